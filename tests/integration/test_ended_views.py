"""Issue 25: a game the service ended (idle, a resignation, a forfeit on time) is over in every
view of it, though its deal is not: ``finished``, and no one to act or with a legal move. Before,
such a view said ``finished=false`` and still offered the seat to act its moves."""

from __future__ import annotations

from tricktable.v1 import clocks_pb2, views_pb2
from tricktable.v1 import game_service_pb2 as pb

from tests.integration.test_clocks import clocked_table, time_control, watch_until
from tests.servers import running_server
from tests.service.support import PlayLine, auth


def assert_over(view: views_pb2.View) -> None:
    assert view.finished
    assert list(view.to_act) == [] and list(view.may_act) == []
    assert list(view.legal_moves) == [] and not view.HasField("lay_aside_choice")


def test_a_game_the_service_ended_is_finished_in_every_view() -> None:
    with running_server(idle_ttl_s=0.4) as (_, client):
        idle = client.table("counterpoint")
        resigned = client.table("nominations")
        forfeit = clocked_table(
            client, "sixty-six", time_control(clocks_pb2.TIMEOUT_POLICY_FORFEIT)
        )
        client.stub.LeaveGame(
            pb.LeaveGameRequest(game_id=resigned.game_id), metadata=auth(resigned.tokens[1])
        )
        for table in (idle, forfeit):
            assert watch_until(client, table.game_id, 1).game.status == pb.GAME_STATUS_ABANDONED
        for table in (idle, resigned, forfeit):
            for token in (None, *table.tokens):  # a spectator, and each seat
                reply = client.get(table.game_id, token)
                assert reply.game.status == pb.GAME_STATUS_ABANDONED
                assert_over(reply.view)


def test_a_seats_play_stream_ends_with_a_finished_view_when_another_seat_resigns() -> None:
    with running_server() as (_, client):
        table = client.table("counterpoint")
        mine = client.get(table.game_id, table.tokens[0])
        line = PlayLine(client, table.game_id, table.tokens[0], mine.game.version)
        try:
            line.until("view")  # the stream's opening view
            client.stub.LeaveGame(
                pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[1])
            )
            last, _ = line.until("view")
            assert last.view.version == mine.game.version + 1
            assert_over(last.view.view)
        finally:
            line.close()
