"""What the tournament tests share: a client of ``TournamentService`` and waits."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import grpc
from tricktable.v1 import tournament_service_pb2 as tpb
from tricktable.v1 import tournament_service_pb2_grpc


def stub(address: str) -> tuple[grpc.Channel, tournament_service_pb2_grpc.TournamentServiceStub]:
    channel = grpc.insecure_channel(address)
    return channel, tournament_service_pb2_grpc.TournamentServiceStub(channel)


def create_request(
    entrants: Sequence[str],
    *,
    game_type: str = "counterpoint",
    rounds: int = 1,
    duplicate: bool = False,
    games_at_once: int = 2,
    seed: bytes = b"cup",
    options: Mapping[str, int] | None = None,
) -> tpb.CreateTournamentRequest:
    made = tpb.CreateTournamentRequest(
        game_type=game_type,
        round_robin=tpb.RoundRobin(rounds=rounds, duplicate=duplicate),
        entrants=list(entrants),
        games_at_once=games_at_once,
        seed=seed,
    )
    for name, value in (options or {}).items():
        made.options[name].int_value = value
    return made


def wait_ended(
    tournaments: tournament_service_pb2_grpc.TournamentServiceStub,
    tournament_id: str,
    timeout_s: float = 600.0,
) -> tpb.GetTournamentResponse:
    """The tournament once it has ended (a bound on a hang, not a timed assertion)."""
    deadline = time.monotonic() + timeout_s
    while True:
        got: tpb.GetTournamentResponse = tournaments.GetTournament(
            tpb.GetTournamentRequest(tournament_id=tournament_id)
        )
        if got.tournament.status != tpb.TOURNAMENT_STATUS_RUNNING:
            return got
        assert time.monotonic() < deadline, f"tournament still running: {got.tournament}"
        time.sleep(0.2)


def table(rows: Sequence[tpb.StandingRow]) -> list[tuple[object, ...]]:
    """Standings as comparable tuples."""
    return [
        (r.rank, r.name, r.games, r.wins, r.mean_score, round(r.mu, 9), r.duplicate_score)
        for r in rows
    ]
