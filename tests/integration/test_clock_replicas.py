"""Clocks across replicas: two ``tricktable serve`` processes on one real Redis. Both sweep the
deadline index; the one the players used is killed with SIGKILL while it holds the game, and the
other keeps the game's clock going. Every timeout fires exactly once: each version the clock made
holds one TimedOut, the clocks count as many, and no more fired than the time allows."""

from __future__ import annotations

import signal
import time

import grpc
from tricktable.v1 import clocks_pb2
from tricktable.v1 import game_service_pb2 as pb

from engine.core.events import TimedOut
from engine.record import timed_out, verify
from service.config import REDIS_URL_ENV
from tests.integration.test_clocks import clocked_table, record_of, watch_until
from tests.servers import serve_process
from tests.service.support import auth

MOVE_MS = 300


def test_a_killed_replica_stops_no_clock_and_each_timeout_fires_once(redis_url: str) -> None:
    env = {REDIS_URL_ENV: redis_url}
    tc = clocks_pb2.TimeControl(move_ms=MOVE_MS, on_timeout=clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE)
    with serve_process(env=env) as doomed, serve_process(env=env) as other:
        first, second = doomed.client, other.client
        table = clocked_table(first, "sixty-six", tc)
        started = time.monotonic()
        # Both replicas sweep while both live: still one firing per timeout.
        watch_until(first, table.game_id, 2)
        doomed.proc.send_signal(signal.SIGKILL)
        doomed.proc.wait(10)
        reached = watch_until(second, table.game_id, 8)
        elapsed = time.monotonic() - started
        assert reached.game.version >= 8
        try:
            second.stub.LeaveGame(
                pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
            )
        except grpc.RpcError as over:
            # On a slow machine the clocks may play the short deal out before the leave.
            assert over.code() == grpc.StatusCode.FAILED_PRECONDITION, over
            assert (
                second.stub.GetGame(pb.GetGameRequest(game_id=table.game_id)).game.status
                == pb.GAME_STATUS_FINISHED
            )
        record = record_of(second, table.game_id)
    verify(record)
    moves = [s for s in record.steps if s.move is not None]
    assert all(timed_out(s) == TimedOut(s.seat or 0, auto_move=True) for s in moves)
    clocked = sum(c.timeouts for c in reached.view.clocks)
    assert clocked == reached.game.version  # one counted timeout per version the clock made
    # Only one clock runs at a time in Sixty-Six: a timeout fired twice would come early.
    assert len(moves) <= elapsed / (MOVE_MS / 1000) + 1
