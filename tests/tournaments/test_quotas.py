"""The counts a client may hold (``--limit-running-tournaments``, ``--limit-bots``) hold across
replicas, since the store keeps them and takes a place in one atomic step; over them, and over a
tournament's size caps (entrants, games at once, games), RESOURCE_EXHAUSTED with a RetryInfo,
and nothing is made. An ended or cancelled tournament frees its creator's place."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from tricktable.v1 import tournament_service_pb2 as tpb

from service.limits import LimitsConfig
from tests.conftest import redis_server
from tests.servers import running_server
from tests.service.support import auth, error_info, retry_after_s
from tests.tournaments.replicas import Stub, connected_bot, waiting_tournament
from tests.tournaments.support import create_request, stub, wait_ended


@pytest.fixture
def own_redis_url() -> Iterator[str]:
    """A Redis of the test's own: every test client is 127.0.0.1, whose places in the
    session's Redis other tests' tournaments and bots hold too."""
    with redis_server() as (url, _):
        yield url


def _refused(call: Callable[[], Any]) -> tuple[str, str, float]:
    """The reason, message and RetryInfo of ``call``'s RESOURCE_EXHAUSTED."""
    with pytest.raises(grpc.RpcError) as refused:
        call()
    err = refused.value
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err
    return error_info(err).reason, err.details() or "", retry_after_s(err)


def _listed(tournaments: Stub) -> set[str]:
    found = tournaments.ListTournaments(tpb.ListTournamentsRequest(page_size=100))
    return {t.tournament_id for t in found.tournaments}


def _cancel(tournaments: Stub, made: tpb.CreateTournamentResponse) -> None:
    tournaments.CancelTournament(
        tpb.CancelTournamentRequest(tournament_id=made.tournament.tournament_id),
        metadata=auth(made.creator_token),
    )


def test_running_tournaments_and_bots_are_counted_across_replicas(own_redis_url: str) -> None:
    limits = LimitsConfig(running_tournaments=2, bots=3)
    with (
        running_server(redis_url=own_redis_url, limits=limits) as a,
        running_server(redis_url=own_redis_url, limits=limits) as b,
    ):
        channel_a, on_a = stub(a.address)
        channel_b, on_b = stub(b.address)
        with channel_a, channel_b:
            # Bots: two registered on A and one on B fill the address' three places.
            bots = [connected_bot(on_a, "one").bot_id, connected_bot(on_a, "two").bot_id]
            bots.append(connected_bot(on_b, "three").bot_id)
            bot_refusals = [
                _refused(lambda: connected_bot(on_a, "four")),
                _refused(lambda: connected_bot(on_b, "four")),
            ]
            # Tournaments: one created on each replica fill its two places.
            first = waiting_tournament(on_a, bots[:2])
            second = waiting_tournament(on_b, bots[1:])
            refusal = _refused(lambda: waiting_tournament(on_a, bots[:2]))
            listed_when_refused = _listed(on_b)
            _cancel(on_b, first)  # its place is free again, on every replica
            third = waiting_tournament(on_a, bots[:2])
            # The last place, asked for on both replicas at once: one of them gets it.
            _cancel(on_a, second)
            outcomes: list[object] = []

            def create(on: Stub) -> None:
                try:
                    outcomes.append(waiting_tournament(on, bots[::2]))
                except grpc.RpcError as err:
                    outcomes.append(err.code())

            racers = [threading.Thread(target=create, args=(on,)) for on in (on_a, on_b)]
            for racer in racers:
                racer.start()
            for racer in racers:
                racer.join(60)
            running = {
                t.tournament_id
                for t in on_a.ListTournaments(tpb.ListTournamentsRequest()).tournaments
                if t.status == tpb.TOURNAMENT_STATUS_RUNNING
            }
    for reason, _, retry_s in bot_refusals:
        assert reason == "TOO_MANY_BOTS" and retry_s > 0
    assert refusal[0] == "TOO_MANY_TOURNAMENTS" and refusal[2] > 0
    assert all("bots registered" in message for _, message, _ in bot_refusals)
    assert "running tournaments" in refusal[1]
    assert listed_when_refused == {
        first.tournament.tournament_id,
        second.tournament.tournament_id,
    }  # the refused one made nothing
    won = [o for o in outcomes if isinstance(o, tpb.CreateTournamentResponse)]
    assert len(won) == 1 and outcomes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 1
    assert running == {third.tournament.tournament_id, won[0].tournament.tournament_id}


def test_an_ended_tournament_frees_its_place_on_the_embedded_store() -> None:
    limits = LimitsConfig(running_tournaments=1, bots=1)
    with running_server(bot_delay_s=0, limits=limits) as served:
        channel, tournaments = stub(served.address)
        with channel:
            short = tournaments.CreateTournament(
                create_request(["heuristic", "random"], options={"target_score": 20})
            )
            wait_ended(tournaments, short.tournament.tournament_id)
            long = tournaments.CreateTournament(
                create_request(["heuristic", "random"], rounds=200, games_at_once=1)
            )
            refused = _refused(
                lambda: tournaments.CreateTournament(create_request(["random", "random"]))
            )
            _cancel(tournaments, long)
            again = tournaments.CreateTournament(create_request(["random", "random"], rounds=200))
            _cancel(tournaments, again)
            connected_bot(tournaments, "only")
            bot_refused = _refused(lambda: connected_bot(tournaments, "another"))
    assert refused[0] == "TOO_MANY_TOURNAMENTS" and refused[2] > 0
    assert again.tournament.status == tpb.TOURNAMENT_STATUS_RUNNING
    assert bot_refused[0] == "TOO_MANY_BOTS" and bot_refused[2] > 0


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (create_request(["random"] * 33), "TOO_MANY_ENTRANTS"),
        (create_request(["heuristic", "random"], games_at_once=65), "TOO_MANY_GAMES_AT_ONCE"),
        # 20 entrants, 2 seats: 190 tables in 2 rotations, 380 games a round.
        (create_request(["random"] * 20, rounds=264), "TOO_MANY_GAMES"),
    ],
)
def test_a_tournament_over_a_size_cap_is_refused_and_one_at_the_cap_is_not(
    request_: tpb.CreateTournamentRequest, reason: str
) -> None:
    at_cap = tpb.CreateTournamentRequest()
    at_cap.CopyFrom(request_)
    if reason == "TOO_MANY_ENTRANTS":
        del at_cap.entrants[32:]
    elif reason == "TOO_MANY_GAMES_AT_ONCE":
        at_cap.games_at_once = 64
    else:
        at_cap.round_robin.rounds = 263  # 99,940 games
    with running_server() as served:
        channel, tournaments = stub(served.address)
        with channel:
            refused = _refused(lambda: tournaments.CreateTournament(request_))
            listed = _listed(tournaments)
            made = tournaments.CreateTournament(at_cap)
            _cancel(tournaments, made)
    assert refused[0] == reason and refused[2] > 0
    assert listed == set()
    assert made.tournament.games_total <= 100_000
