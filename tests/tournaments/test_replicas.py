"""A hosted tournament across replicas: two ``tricktable serve`` processes on one real Redis
(and on a real Redis Cluster). The replica the tournament was created on is SIGKILLed while
games are under way; the other takes the tournament up when its lease runs out and finishes
it. Every scheduled game is played once (one game per number, each started and counted once),
and the standings equal a rerun of the same tournament with the same seed. The servers' bots
wait 50 ms before they move: at 0, both replicas race to make every bot move the moment it is
due (both compute it, one commit wins), which slows a shared machine to a crawl."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

import pytest
from tricktable.bots import make_bot
from tricktable.bots.connected import register, run_connected
from tricktable.client import Client
from tricktable.v1 import clocks_pb2
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import tournament_service_pb2 as tpb

from benchmarks.redis_server import free_port
from service.config import REDIS_CLUSTER_ENV, REDIS_URL_ENV
from tests.servers import ROOT, serve_process
from tests.tournaments.support import create_request, stub, table, wait_ended

GAME = "counterpoint"


def _until_ended_games(tournaments: object, tid: str, count: int) -> None:
    deadline = time.monotonic() + 300  # a bound on a hang, not a timed assertion
    while True:
        got = tournaments.GetTournament(tpb.GetTournamentRequest(tournament_id=tid))  # type: ignore[attr-defined]
        if got.tournament.games_ended >= count:
            return
        assert time.monotonic() < deadline
        time.sleep(0.1)


@pytest.mark.parametrize("store", ["redis", "redis-cluster"])
def test_a_killed_replica_stops_no_tournament_and_each_game_is_played_once(
    request: pytest.FixtureRequest, store: str
) -> None:
    if store == "redis":
        env = {REDIS_URL_ENV: request.getfixturevalue("redis_url")}
    else:
        env = {REDIS_URL_ENV: request.getfixturevalue("redis_cluster_url"), REDIS_CLUSTER_ENV: "1"}
    cup = create_request(
        ["heuristic", "random", "random"],
        rounds=3,
        duplicate=True,
        games_at_once=3,
        options={"target_score": 30},  # short games
    )
    with (
        serve_process("--bot-delay", "0.05", env=env) as doomed,
        serve_process("--bot-delay", "0.05", env=env) as other,
    ):
        channel, first = stub(doomed.address)
        with channel:
            made = first.CreateTournament(cup)
            tid = made.tournament.tournament_id
            _until_ended_games(first, tid, 4)
        doomed.proc.send_signal(signal.SIGKILL)
        doomed.proc.wait(10)
        channel, second = stub(other.address)
        with channel:
            ended = wait_ended(second, tid)
            events = list(second.StreamTournament(tpb.StreamTournamentRequest(tournament_id=tid)))
            rerun = wait_ended(second, second.CreateTournament(cup).tournament.tournament_id)
            statuses = [
                other.client.stub.GetGame(pb.GetGameRequest(game_id=g.game_id)).game.status
                for g in ended.games
            ]
    t = ended.tournament
    assert t.status == tpb.TOURNAMENT_STATUS_FINISHED
    assert t.games_total == 18 == t.games_ended == t.games_started
    assert len({g.game_id for g in ended.games}) == 18
    assert set(statuses) == {pb.GAME_STATUS_FINISHED}
    started = [e.game_started.game.number for e in events if e.HasField("game_started")]
    counted = [e.game_ended.game.number for e in events if e.HasField("game_ended")]
    assert sorted(started) == list(range(18)) == sorted(counted)
    assert [e.version for e in events] == list(range(1, 38))
    # The same seed: the same deals, pairings and (for these deterministic bots) standings.
    assert [g.scores for g in ended.games] == [g.scores for g in rerun.games]
    assert table(t.standings) == table(rerun.tournament.standings)


def test_a_called_a_connected_and_a_reference_bot_finish_on_the_surviving_replica(
    redis_url: str,
) -> None:
    """The issue's tournament: a called bot (a ``tricktable bot`` process), a connected bot and
    a reference bot, on two replicas sharing Redis, the one it was created on SIGKILLed."""
    env = {REDIS_URL_ENV: redis_url}
    port = free_port()
    called = subprocess.Popen(
        [sys.executable, "-m", "tricktable.cli", "bot", "--bot", "heuristic", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    stop = threading.Event()
    try:
        with (
            serve_process("--bot-delay", "0.01", env=env) as doomed,
            serve_process("--bot-delay", "0.01", env=env) as other,
            Client(other.address) as client,
        ):
            called_id = register(
                client, "caller", [GAME], endpoint=f"grpc://127.0.0.1:{port}"
            ).bot_id
            connected = register(client, "connector", [GAME])
            session = threading.Thread(
                target=run_connected,
                args=(client, connected.bot_token, lambda game: make_bot("random", game, 3)),
                kwargs={"stop": stop},
                daemon=True,
            )
            session.start()
            cup = create_request(
                [called_id, connected.bot_id, "random"], rounds=2, games_at_once=3,
                options={"target_score": 30},
            )  # fmt: skip
            cup.time_control.CopyFrom(
                clocks_pb2.TimeControl(
                    move_ms=20_000, on_timeout=clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE
                )
            )
            channel, first = stub(doomed.address)
            with channel:
                tid = first.CreateTournament(cup).tournament.tournament_id
                _until_ended_games(first, tid, 3)
            doomed.proc.send_signal(signal.SIGKILL)
            doomed.proc.wait(10)
            channel, second = stub(other.address)
            with channel:
                ended = wait_ended(second, tid)
            stop.set()
            session.join(10)
    finally:
        stop.set()
        called.kill()
        called.wait(10)
    t = ended.tournament
    assert t.status == tpb.TOURNAMENT_STATUS_FINISHED and t.games_ended == t.games_total == 12
    assert len({g.game_id for g in ended.games}) == 12
    rows = {r.name: r for r in t.standings}
    assert set(rows) == {"caller", "connector", "random"}
    assert all(r.games == 8 for r in rows.values())
