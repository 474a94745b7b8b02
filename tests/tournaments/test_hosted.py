"""A hosted tournament on one server (the embedded store): created, advanced by the server
alone, followed by StreamTournament, its games ordinary games, its standings reproducible."""

from __future__ import annotations

import grpc
import pytest
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import tournament_service_pb2 as tpb

from tests.servers import running_server
from tests.service.support import auth
from tests.tournaments.support import create_request, stub, table, wait_ended


def test_a_tournament_of_reference_bots_plays_every_game_once_and_repeats_with_its_seed() -> None:
    with running_server(bot_delay_s=0) as served:
        channel, tournaments = stub(served.address)
        with channel:
            request = create_request(["heuristic", "random", "random"], duplicate=True)
            made = tournaments.CreateTournament(request)
            assert made.creator_token
            first = wait_ended(tournaments, made.tournament.tournament_id)
            again = tournaments.CreateTournament(request)
            second = wait_ended(tournaments, again.tournament.tournament_id)
            events = list(
                tournaments.StreamTournament(
                    tpb.StreamTournamentRequest(tournament_id=made.tournament.tournament_id)
                )
            )
            games = first.games
            record = served.client.stub.GetGame(pb.GetGameRequest(game_id=games[0].game_id))
    t = first.tournament
    assert t.status == tpb.TOURNAMENT_STATUS_FINISHED
    # three entrants, two seats: three tables in two rotations
    assert t.games_total == 6 == t.games_ended == len(games)
    assert len({g.game_id for g in games}) == 6 and all(g.ended for g in games)
    assert record.game.status == pb.GAME_STATUS_FINISHED
    assert table(t.standings) == table(second.tournament.standings)
    assert [g.scores for g in games] == [g.scores for g in second.games]
    assert sum(r.games for r in t.standings) == 12  # seat-games
    kinds = [e.WhichOneof("kind") for e in events]
    assert kinds.count("game_started") == 6 and kinds.count("game_ended") == 6
    assert kinds[-1] == "ended" and [e.version for e in events] == list(range(1, 14))
    assert table(events[-1].ended.standings) == table(t.standings)
    # duplicate: the rotations of a table share their cards
    deals = {(g.table, g.round): g.deal_id for g in games}
    assert all(g.deal_id == deals[(g.table, g.round)] for g in games)


def test_only_the_creator_token_cancels() -> None:
    with running_server(bot_delay_s=0.2) as served:
        channel, tournaments = stub(served.address)
        with channel:
            made = tournaments.CreateTournament(
                create_request(["heuristic", "random"], rounds=50, games_at_once=1)
            )
            tid = made.tournament.tournament_id
            cancel = tpb.CancelTournamentRequest(tournament_id=tid)
            with pytest.raises(grpc.RpcError) as wrong:
                tournaments.CancelTournament(cancel, metadata=auth("not-the-token"))
            assert wrong.value.code() == grpc.StatusCode.PERMISSION_DENIED
            with pytest.raises(grpc.RpcError) as none:
                tournaments.CancelTournament(cancel)
            assert none.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert (
                tournaments.GetTournament(
                    tpb.GetTournamentRequest(tournament_id=tid)
                ).tournament.status
                == tpb.TOURNAMENT_STATUS_RUNNING
            )
            done = tournaments.CancelTournament(cancel, metadata=auth(made.creator_token))
            assert done.tournament.status == tpb.TOURNAMENT_STATUS_CANCELLED
            last = list(
                tournaments.StreamTournament(tpb.StreamTournamentRequest(tournament_id=tid))
            )
            assert last[-1].ended.status == tpb.TOURNAMENT_STATUS_CANCELLED


@pytest.mark.parametrize(
    ("request_", "code"),
    [
        (create_request(["heuristic"]), grpc.StatusCode.INVALID_ARGUMENT),
        (create_request(["heuristic", "nobody"]), grpc.StatusCode.INVALID_ARGUMENT),
        (
            create_request(["heuristic", "random"], game_type="chess"),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
        (create_request(["random"] * 40), grpc.StatusCode.RESOURCE_EXHAUSTED),
        (
            create_request(["heuristic", "random"], games_at_once=1000),
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        ),
        (
            tpb.CreateTournamentRequest(game_type="counterpoint", entrants=["random", "random"]),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
    ],
)
def test_bad_tournaments_are_refused_and_change_nothing(
    request_: tpb.CreateTournamentRequest, code: grpc.StatusCode
) -> None:
    with running_server() as served:
        channel, tournaments = stub(served.address)
        with channel:
            with pytest.raises(grpc.RpcError) as refused:
                tournaments.CreateTournament(request_)
            assert refused.value.code() == code
            listed = tournaments.ListTournaments(tpb.ListTournamentsRequest())
    assert not listed.tournaments
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        details = dict(refused.value.trailing_metadata() or ())
        assert "grpc-status-details-bin" in details  # RetryInfo rides in the status details


def test_malformed_bytes_are_invalid_and_an_unknown_tournament_is_not_found() -> None:
    with running_server() as served:
        channel, tournaments = stub(served.address)
        with channel:
            for method in ("GetTournament", "CreateTournament", "CancelTournament"):
                call = channel.unary_unary(f"/tricktable.v1.TournamentService/{method}")
                with pytest.raises(grpc.RpcError) as bad:
                    call(b"\xff\xff\x01", timeout=10)
                assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            with pytest.raises(grpc.RpcError) as missing:
                tournaments.GetTournament(tpb.GetTournamentRequest(tournament_id="nope"))
            assert missing.value.code() == grpc.StatusCode.NOT_FOUND
            with pytest.raises(grpc.RpcError) as session:
                next(tournaments.BotSession(tpb.BotSessionRequest()))
            assert session.value.code() == grpc.StatusCode.UNAUTHENTICATED
