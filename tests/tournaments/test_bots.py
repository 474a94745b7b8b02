"""Registered bots in hosted tournaments: a called bot (a BotService the server calls per
decision), a connected bot (BotSession, seats played over the play stream) and a reference bot
play a tournament to the end; a called bot that never answers loses on the clock, is marked
unavailable and forfeits its remaining games, and the tournament still ends."""

from __future__ import annotations

import threading

import grpc
import pytest
from tricktable.bots import make_bot
from tricktable.bots.connected import register, run_connected
from tricktable.bots.service import serve_bot
from tricktable.client import Client
from tricktable.v1 import clocks_pb2
from tricktable.v1 import tournament_service_pb2 as tpb

from benchmarks.redis_server import free_port
from tests.servers import running_server
from tests.service.support import auth
from tests.tournaments.support import create_request, stub, wait_ended

GAME = "counterpoint"


def _clocked(request: tpb.CreateTournamentRequest, move_ms: int) -> tpb.CreateTournamentRequest:
    request.time_control.CopyFrom(
        clocks_pb2.TimeControl(move_ms=move_ms, on_timeout=clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE)
    )
    return request


def test_a_called_a_connected_and_a_reference_bot_play_a_tournament_out() -> None:
    called = serve_bot(lambda game: make_bot("heuristic", game), name="caller", games=[GAME])
    stop = threading.Event()
    try:
        with running_server(bot_delay_s=0) as served, Client(served.address) as client:
            endpoint = f"grpc://{called.address}"
            called_id = register(client, "caller", [GAME], endpoint=endpoint).bot_id
            connected = register(client, "connector", [GAME])
            seats: list[tpb.SeatGiven] = []
            session = threading.Thread(
                target=run_connected,
                args=(client, connected.bot_token, lambda game: make_bot("random", game, 1)),
                kwargs={"stop": stop, "on_seat": seats.append},
                daemon=True,
            )
            session.start()
            channel, tournaments = stub(served.address)
            with channel:
                request = _clocked(
                    create_request(
                        [called_id, connected.bot_id, "random"], options={"target_score": 30}
                    ),
                    5000,
                )
                made = tournaments.CreateTournament(request)
                ended = wait_ended(tournaments, made.tournament.tournament_id)
                with pytest.raises(grpc.RpcError) as wrong:
                    tournaments.BotSession(
                        tpb.BotSessionRequest(), metadata=auth(f"{connected.bot_id}.nope")
                    ).next()
                assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
            stop.set()
            session.join(10)
    finally:
        stop.set()
        called.stop()
    t = ended.tournament
    assert t.status == tpb.TOURNAMENT_STATUS_FINISHED and t.games_ended == 6
    rows = {r.name: r for r in t.standings}
    assert set(rows) == {"caller", "connector", "random"}
    assert all(r.games == 4 and r.forfeits == 0 for r in rows.values())
    # the connected bot was handed each of its seats, with the seat's token
    mine = {(g.game_id, list(g.seats).index(1)) for g in ended.games if 1 in g.seats}
    assert {(s.game_id, s.seat) for s in seats} == mine
    assert all(s.seat_token for s in seats)


def test_a_called_bot_that_does_not_answer_forfeits_and_the_tournament_ends() -> None:
    with running_server(bot_delay_s=0) as served, Client(served.address) as client:
        dead = register(client, "silent", [GAME], endpoint=f"grpc://127.0.0.1:{free_port()}")
        channel, tournaments = stub(served.address)
        with channel:
            request = _clocked(
                create_request(
                    [dead.bot_id, "heuristic", "random"],
                    rounds=2,
                    games_at_once=1,
                    options={"target_score": 30},
                ),
                300,
            )
            made = tournaments.CreateTournament(request)
            ended = wait_ended(tournaments, made.tournament.tournament_id)
    t = ended.tournament
    assert t.status == tpb.TOURNAMENT_STATUS_FINISHED and t.games_ended == t.games_total == 12
    rows = {r.name: r for r in t.standings}
    assert rows["silent"].forfeits > 0
    assert rows["silent"].wins == 0
    assert rows["heuristic"].forfeits == rows["random"].forfeits == 0
