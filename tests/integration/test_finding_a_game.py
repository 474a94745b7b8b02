"""Finding a game (issue 29), through a real server on each store: private tables (unlisted
games, invite codes, reserved seats, revocation), Rematch of an ended game, and QuickPlay."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tricktable.v1 import game_service_pb2 as pb

from tests.service.support import Client, auth, error_info


@pytest.fixture(scope="module", params=["memory", "redis"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _refused(call: object, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    assert caught.value.code() == code, caught.value.details()
    assert error_info(caught.value).reason == reason


def _listed(client: Client, game_id: str) -> bool:
    token = ""
    while True:
        page = client.stub.ListGames(pb.ListGamesRequest(page_size=100, page_token=token))
        if any(g.game_id == game_id for g in page.games):
            return True
        token = page.next_page_token
        if not token:
            return False


def _join(client: Client, game_id: str, code: str = "", seat: int | None = None) -> str:
    request = pb.JoinGameRequest(game_id=game_id, player_name="p", invite_code=code)
    if seat is not None:
        request.seat = seat
    joined: pb.JoinGameResponse = client.stub.JoinGame(request)
    return joined.seat_token


# -- private tables -----------------------------------------------------------------------------


def test_an_unlisted_game_is_joined_with_its_invite_code_only(client: Client) -> None:
    made = client.stub.CreateGame(
        pb.CreateGameRequest(game_type="sixty-six", visibility=pb.VISIBILITY_UNLISTED)
    )
    game_id, code = made.game.game_id, made.invite_code
    assert len(code) >= 22 and made.game.visibility == pb.VISIBILITY_UNLISTED
    public = client.stub.CreateGame(
        pb.CreateGameRequest(game_type="sixty-six", visibility=pb.VISIBILITY_PUBLIC)
    )
    assert public.invite_code == "" and public.game.visibility == pb.VISIBILITY_PUBLIC
    unsaid = client.stub.CreateGame(pb.CreateGameRequest(game_type="sixty-six"))
    assert unsaid.invite_code == "" and unsaid.game.visibility == pb.VISIBILITY_UNSPECIFIED
    assert _listed(client, unsaid.game.game_id)
    assert not _listed(client, game_id) and _listed(client, public.game.game_id)

    denied = grpc.StatusCode.PERMISSION_DENIED
    _refused(lambda: _join(client, game_id), denied, "INVALID_INVITE")
    _refused(lambda: _join(client, game_id, code[:-1] + "x"), denied, "INVALID_INVITE")
    first = _join(client, game_id, code)
    # Nothing anyone reads of the game carries the code.
    seen = client.get(game_id, first).SerializeToString() + client.get(game_id).SerializeToString()
    assert code.encode() not in seen
    assert client.get(game_id).game.visibility == pb.VISIBILITY_UNLISTED

    # Revoked, the code takes no seat; a reissued one does, and the old one still does not.
    revoke = pb.RevokeInviteRequest(game_id=game_id, invite_code=code)
    assert client.stub.RevokeInvite(revoke).invite_code == ""
    _refused(lambda: _join(client, game_id, code), denied, "INVALID_INVITE")
    _refused(lambda: client.stub.RevokeInvite(revoke), denied, "INVALID_INVITE")
    assert not _listed(client, game_id)
    # A revoked code cannot be reissued; the creator keeps none, so this table stays closed.
    again = client.stub.CreateGame(
        pb.CreateGameRequest(game_type="sixty-six", visibility=pb.VISIBILITY_UNLISTED)
    )
    fresh = client.stub.RevokeInvite(
        pb.RevokeInviteRequest(
            game_id=again.game.game_id, invite_code=again.invite_code, reissue=True
        )
    ).invite_code
    assert len(fresh) >= 22 and fresh != again.invite_code
    _refused(lambda: _join(client, again.game.game_id, again.invite_code), denied, "INVALID_INVITE")
    _join(client, again.game.game_id, fresh)


def test_a_reserved_seat_is_taken_with_its_own_code_only(client: Client) -> None:
    made = client.stub.CreateGame(
        pb.CreateGameRequest(game_type="counterpoint", reserved_seats=[pb.SeatReservation(seat=1)])
    )
    game_id = made.game.game_id
    assert made.invite_code == "" and set(made.seat_invite_codes) == {1}
    assert list(made.game.reserved_seats) == [1] and _listed(client, game_id)
    _refused(
        lambda: _join(client, game_id, seat=1), grpc.StatusCode.FAILED_PRECONDITION, "SEAT_RESERVED"
    )
    # Anyone takes the open seats around it.
    open_seats = len(made.game.seats) - 1
    for _ in range(open_seats):
        _join(client, game_id)
    _refused(lambda: _join(client, game_id), grpc.StatusCode.FAILED_PRECONDITION, "NO_OPEN_SEAT")
    token = _join(client, game_id, made.seat_invite_codes[1])
    seat = client.get(game_id, token)
    assert seat.game.status == pb.GAME_STATUS_PLAYING
    assert list(seat.game.reserved_seats) == []


def test_malformed_private_table_requests_are_invalid_and_change_nothing(client: Client) -> None:
    bad = grpc.StatusCode.INVALID_ARGUMENT
    unknown: Any = 9  # no Visibility has this number
    _refused(
        lambda: client.stub.CreateGame(
            pb.CreateGameRequest(game_type="sixty-six", visibility=unknown)
        ),
        bad,
        "INVALID_REQUEST",
    )
    _refused(
        lambda: client.stub.CreateGame(
            pb.CreateGameRequest(game_type="sixty-six", reserved_seats=[pb.SeatReservation(seat=7)])
        ),
        bad,
        "UNKNOWN_SEAT",
    )
    made = client.stub.CreateGame(pb.CreateGameRequest(game_type="sixty-six"))
    _refused(lambda: _join(client, made.game.game_id, "x" * 65), bad, "INVALID_REQUEST")
    assert not any(s.taken for s in client.get(made.game.game_id).game.seats)


# -- rematch ------------------------------------------------------------------------------------


def _ended_table(client: Client) -> tuple[str, list[str]]:
    table = client.table("sixty-six")
    client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
    )
    return table.game_id, table.tokens


def test_a_rematch_starts_when_every_seat_accepts_with_the_seats_rotated(client: Client) -> None:
    game_id, tokens = _ended_table(client)
    ended = client.get(game_id)
    assert ended.game.status == pb.GAME_STATUS_ABANDONED
    # Without asking, a stream opened after the ended game's last batch ends at once (as ever).
    assert not list(
        client.stub.StreamEvents(
            pb.StreamEventsRequest(game_id=game_id, from_version=ended.game.version + 1),
            metadata=auth(tokens[1]),
            timeout=30,
        )
    )
    # A stream of the ended game opened after its last batch follows the offers when asked.
    stream = client.stub.StreamEvents(
        pb.StreamEventsRequest(
            game_id=game_id, from_version=ended.game.version + 1, follow_rematch=True
        ),
        metadata=auth(tokens[1]),
        timeout=30,
    )
    heard: list[pb.StreamEventsResponse] = []
    listener = threading.Thread(target=lambda: heard.extend(stream))
    listener.start()

    ask = pb.RematchRequest(game_id=game_id)
    first = client.stub.Rematch(ask, metadata=auth(tokens[0])).rematch
    assert list(first.accepted) == [0] and first.game_id == ""
    again = client.stub.Rematch(ask, metadata=auth(tokens[0])).rematch
    assert again == first  # accepting twice changes nothing
    done = client.stub.Rematch(ask, metadata=auth(tokens[1])).rematch
    assert list(done.accepted) == [0, 1] and done.game_id
    assert client.stub.Rematch(ask, metadata=auth(tokens[1])).rematch == done
    listener.join(30)
    assert not listener.is_alive()
    assert [b.rematch.game_id for b in heard] == ["", done.game_id]
    assert [list(b.rematch.accepted) for b in heard] == [[0], [0, 1]]

    # The next game runs, each player one seat on with the same token; the ended game's
    # record is still its own.
    new = client.get(done.game_id, tokens[0])
    assert new.game.status == pb.GAME_STATUS_PLAYING
    assert [s.player_name for s in new.game.seats] == ["bot1", "bot0"]
    assert client.get(done.game_id, tokens[1]).view.viewer == 0
    assert new.view.viewer == 1
    record = client.stub.GetGameRecord(pb.GetGameRecordRequest(game_id=game_id)).record
    assert record.steps[-1].resigned_seat == 0


def test_a_rematch_is_asked_by_a_seat_of_an_ended_game(client: Client) -> None:
    table = client.table("sixty-six")
    ask = pb.RematchRequest(game_id=table.game_id)
    _refused(
        lambda: client.stub.Rematch(ask, metadata=auth(table.tokens[0])),
        grpc.StatusCode.FAILED_PRECONDITION,
        "GAME_NOT_FINISHED",
    )
    _refused(lambda: client.stub.Rematch(ask), grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN")
    game_id, _ = _ended_table(client)
    _refused(
        lambda: client.stub.Rematch(
            pb.RematchRequest(game_id=game_id), metadata=auth(table.tokens[0])
        ),
        grpc.StatusCode.UNAUTHENTICATED,
        "INVALID_TOKEN",
    )


def test_only_human_seats_accept_a_rematch(client: Client) -> None:
    made = client.stub.CreateGame(
        pb.CreateGameRequest(game_type="sixty-six", bot_seats={1: "heuristic"})
    )
    token = _join(client, made.game.game_id)
    client.stub.LeaveGame(pb.LeaveGameRequest(game_id=made.game.game_id), metadata=auth(token))
    offer = client.stub.Rematch(
        pb.RematchRequest(game_id=made.game.game_id), metadata=auth(token)
    ).rematch
    assert list(offer.accepted) == [0] and offer.game_id
    new = client.get(offer.game_id, token)
    assert new.view.viewer == 1 and new.game.seats[0].bot == "heuristic"


# -- quick play ---------------------------------------------------------------------------------


def _quick(client: Client, **fields: object) -> Iterator[pb.QuickPlayResponse]:
    request = pb.QuickPlayRequest(player_name="q", **fields)  # type: ignore[arg-type]
    responses: Iterator[pb.QuickPlayResponse] = client.stub.QuickPlay(request, timeout=60)
    return responses


def test_quick_play_seats_each_waiting_player_once(client: Client) -> None:
    # A game type no other test of this module queues for, with options of its own.
    first = _quick(client, game_type="counterpoint")
    queued = next(first)
    assert queued.WhichOneof("kind") == "queued" and queued.queued.waiting >= 1
    ticket = queued.queued.ticket
    seat_count = len(
        client.stub.CreateGame(pb.CreateGameRequest(game_type="counterpoint")).game.seats
    )
    others = [_quick(client, game_type="counterpoint") for _ in range(seat_count - 1)]
    matched = [
        next(r for r in stream if r.WhichOneof("kind") == "matched").matched
        for stream in [first, *others]
    ]
    assert len({m.game_id for m in matched}) == 1
    assert sorted(m.seat for m in matched) == list(range(seat_count))
    game_id = matched[0].game_id
    for m in matched:
        assert client.get(game_id, m.seat_token).view.viewer == m.seat
    assert client.get(game_id).game.status == pb.GAME_STATUS_PLAYING
    # Resuming the seated ticket answers the same seat at once.
    resumed = list(_quick(client, ticket=ticket))
    assert [r.matched for r in resumed] == [matched[0]]
    cancel = pb.CancelQuickPlayRequest(ticket=ticket)
    assert client.stub.CancelQuickPlay(cancel).cancelled is False


def test_quick_play_gives_empty_seats_to_bots_after_the_wait(client: Client) -> None:
    stream = _quick(client, game_type="ninety-nine", bot_wait_ms=300)
    kinds = [r.WhichOneof("kind") for r in stream]
    assert kinds[0] == "queued" and kinds[-1] == "matched"


def test_a_cancelled_ticket_is_never_seated(client: Client) -> None:
    stream = _quick(client, game_type="nominations")
    ticket = next(stream).queued.ticket
    stream.cancel()  # type: ignore[attr-defined]
    assert client.stub.CancelQuickPlay(pb.CancelQuickPlayRequest(ticket=ticket)).cancelled
    _refused(
        lambda: list(_quick(client, ticket=ticket)), grpc.StatusCode.NOT_FOUND, "UNKNOWN_TICKET"
    )
    _refused(
        lambda: client.stub.CancelQuickPlay(pb.CancelQuickPlayRequest(ticket=ticket)),
        grpc.StatusCode.NOT_FOUND,
        "UNKNOWN_TICKET",
    )
    _refused(
        lambda: list(_quick(client, ticket="not-a-ticket")),
        grpc.StatusCode.NOT_FOUND,
        "UNKNOWN_TICKET",
    )
    _refused(
        lambda: list(_quick(client, game_type="no_such_game")),
        grpc.StatusCode.INVALID_ARGUMENT,
        "UNKNOWN_GAME",
    )
