"""Replicas of the tournament service in this process (``running_server``), and what the tests
of notifications, limits and cancelling do with them: pause and resume a replica's sweep of the
tournaments, register connected bots, create a tournament whose games wait for ever (its
entrants are connected bots with no session and it has no clock), wait for a state."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from tricktable.v1 import tournament_service_pb2 as tpb
from tricktable.v1 import tournament_service_pb2_grpc

from service.server import Server
from service.tournaments.follow import Following
from tests.servers import Served
from tests.tournaments.support import create_request

GAME = "counterpoint"
T = TypeVar("T")
Stub = tournament_service_pb2_grpc.TournamentServiceStub


def server_of(served: Served) -> Server:
    running = served.server.server
    assert running is not None
    return running


def following(served: Served) -> Following:
    return server_of(served).tournaments.desk.following


def pause_sweep(served: Served) -> None:
    """This replica advances no tournament until :func:`resume_sweep` (the others may)."""
    served.server.call(server_of(served).tournaments.runner.stop)


def resume_sweep(served: Served) -> None:
    async def start() -> None:
        server_of(served).tournaments.runner.start()

    served.server.call(start)


def connected_bot(tournaments: Stub, name: str) -> tpb.RegisterBotResponse:
    made: tpb.RegisterBotResponse = tournaments.RegisterBot(
        tpb.RegisterBotRequest(name=name, game_types=[GAME], kind=tpb.BOT_KIND_CONNECTED)
    )
    return made


def waiting_tournament(tournaments: Stub, bots: list[str]) -> tpb.CreateTournamentResponse:
    """A tournament of connected bots with no clock: its first game waits for ever."""
    made: tpb.CreateTournamentResponse = tournaments.CreateTournament(
        create_request(bots, games_at_once=1)
    )
    return made


def tournament(tournaments: Stub, tid: str) -> tpb.GetTournamentResponse:
    got: tpb.GetTournamentResponse = tournaments.GetTournament(
        tpb.GetTournamentRequest(tournament_id=tid)
    )
    return got


def until(look: Callable[[], T], done: Callable[[T], bool], timeout_s: float = 60.0) -> T:
    """``look()`` once ``done`` says so (a bound on a hang, not a timed assertion)."""
    deadline = time.monotonic() + timeout_s
    while True:
        seen = look()
        if done(seen):
            return seen
        assert time.monotonic() < deadline, f"still not there: {seen}"
        time.sleep(0.05)
