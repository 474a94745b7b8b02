"""Every row of the error table, triggered by a real request through the real interceptor:
the status code, the ErrorInfo reason, and the game unchanged afterwards (STYLE.md §9, §15)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any, cast

import grpc
import pytest
from tricktable.v1 import cards_pb2, moves_pb2
from tricktable.v1 import game_service_pb2 as pb

from engine.core.errors import Reason
from service.errors import ERROR_DOMAIN, GENERIC_MESSAGE, STATUS_CODES
from service.interceptors import ErrorInterceptor
from service.store.memory import MemoryStore
from tests.conftest import redis_server
from tests.servers import running_server
from tests.service.support import Client, Table, auth, error_info, game_bytes


def everything(client: Client, table: Table) -> list[bytes]:
    """What every seat and the spectator can read of the game, to prove nothing changed."""
    return [game_bytes(client.get(table.game_id, token)) for token in (None, *table.tokens)]


def rejected(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str, dict[str, str]]:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    err: Any = caught.value
    info = error_info(err)
    assert info.domain == ERROR_DOMAIN
    return err.code(), info.reason, dict(info.metadata)


def play(card: str) -> moves_pb2.Move:
    from engine.core.cards import parse
    from service.convert import card_to_proto

    return moves_pb2.Move(play_card=moves_pb2.PlayCard(card=card_to_proto(parse(card))))


def lay_aside_first_three(client: Client, table: Table) -> None:
    for token in table.tokens:
        mine = client.get(table.game_id, token)
        client.move(table.game_id, token, mine.view.legal_moves[0], mine.game.version)


def test_every_error_class_has_a_status_code_other_than_internal() -> None:
    assert grpc.StatusCode.INTERNAL not in STATUS_CODES.values()
    assert STATUS_CODES  # the table the interceptor reads


@pytest.mark.parametrize(
    ("game_id", "reason"), [("no such game", "INVALID_REQUEST"), ("x" * 65, "INVALID_REQUEST")]
)
def test_a_malformed_game_id_is_invalid_argument(client: Client, game_id: str, reason: str) -> None:
    code, got, _ = rejected(lambda: client.get(game_id))
    assert (code, got) == (grpc.StatusCode.INVALID_ARGUMENT, reason)


def test_an_unknown_game_is_not_found(client: Client) -> None:
    code, reason, _ = rejected(lambda: client.get("0123456789abcdef"))
    assert (code, reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")


@pytest.mark.parametrize(
    ("game_type", "options", "reason"),
    [
        ("chess", {}, Reason.UNKNOWN_GAME),
        ("counterpoint", {"no_such_option": 1}, Reason.UNKNOWN_OPTION),
        ("counterpoint", {"target_score": -5}, Reason.INVALID_OPTION_VALUE),
        ("counterpoint", {"tie_rule": "coin_flip"}, Reason.INVALID_OPTION_VALUE),
        ("ninety-nine", {"premium_bids": "maybe"}, Reason.INVALID_OPTION_VALUE),
    ],
)
def test_bad_game_options_are_invalid_argument_and_create_nothing(
    client: Client, game_type: str, options: dict[str, object], reason: Reason
) -> None:
    kind = "counterpoint" if game_type == "chess" else game_type
    before = client.stub.ListGames(pb.ListGamesRequest(game_type=kind, page_size=100))
    code, got, _ = rejected(lambda: client.create(game_type, options))
    assert (code, got) == (grpc.StatusCode.INVALID_ARGUMENT, reason.value)
    after = client.stub.ListGames(pb.ListGamesRequest(game_type=kind, page_size=100))
    assert len(after.games) == len(before.games)


def test_an_oversized_seed_is_invalid_argument(client: Client) -> None:
    code, reason, _ = rejected(lambda: client.create("counterpoint", seed=b"x" * 65))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST")


def test_an_oversized_request_is_refused_by_the_transport(client: Client) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        client.stub.JoinGame(pb.JoinGameRequest(game_id="abc", player_name="x" * 100_000))
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_joining_a_taken_seat_or_a_full_game_fails_and_changes_nothing(client: Client) -> None:
    table = client.table("counterpoint")
    before = everything(client, table)
    for seat, reason in ((0, "SEAT_TAKEN"), (None, "NO_OPEN_SEAT")):
        request = pb.JoinGameRequest(game_id=table.game_id, seat=seat)
        code, got, _ = rejected(lambda r=request: client.stub.JoinGame(r))  # type: ignore[misc]
        assert (code, got) == (grpc.StatusCode.FAILED_PRECONDITION, reason)
    code, got, _ = rejected(
        lambda: client.stub.JoinGame(pb.JoinGameRequest(game_id=table.game_id, seat=7))
    )
    assert (code, got) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_SEAT")
    assert everything(client, table) == before


MoveCase = tuple[str, Callable[[Client, Table], Callable[[], Any]], grpc.StatusCode, str]


def _no_token(c: Client, t: Table) -> Callable[[], Any]:
    return lambda: c.move(t.game_id, None, play("AS"), 0)


def _bad_token(c: Client, t: Table) -> Callable[[], Any]:
    return lambda: c.move(t.game_id, "not-a-seat-token", play("AS"), 0)


def _other_games_token(c: Client, t: Table) -> Callable[[], Any]:
    other = c.table("counterpoint")
    return lambda: c.move(t.game_id, other.tokens[0], play("AS"), 0)


def _wrong_seat(c: Client, t: Table) -> Callable[[], Any]:
    request = pb.SubmitMoveRequest(
        game_id=t.game_id, move=play("AS"), expected_version=0, request_id="r-seat", seat=1
    )
    return lambda: c.stub.SubmitMove(request, metadata=auth(t.tokens[0]))


def _stale(c: Client, t: Table) -> Callable[[], Any]:
    return lambda: c.move(
        t.game_id, t.tokens[0], c.get(t.game_id, t.tokens[0]).view.legal_moves[0], 5
    )


def _empty_move(c: Client, t: Table) -> Callable[[], Any]:
    return lambda: c.move(t.game_id, t.tokens[0], moves_pb2.Move(), 0)


def _malformed_card(c: Client, t: Table) -> Callable[[], Any]:
    bad = moves_pb2.Move(play_card=moves_pb2.PlayCard(card=cards_pb2.Card(suit=1, rank=1)))  # type: ignore[arg-type]
    return lambda: c.move(t.game_id, t.tokens[0], bad, 0)


def _missing_card(c: Client, t: Table) -> Callable[[], Any]:
    return lambda: c.move(t.game_id, t.tokens[0], moves_pb2.Move(play_card=moves_pb2.PlayCard()), 0)


def _bad_request_id(c: Client, t: Table) -> Callable[[], Any]:
    return lambda: c.move(t.game_id, t.tokens[0], play("AS"), 0, request_id="has space")


def _wrong_phase(c: Client, t: Table) -> Callable[[], Any]:
    hand = c.get(t.game_id, t.tokens[0]).view.seats[0].hand.cards
    move = moves_pb2.Move(play_card=moves_pb2.PlayCard(card=hand[0]))
    return lambda: c.move(t.game_id, t.tokens[0], move, 0)


def _lay_aside_too_few(c: Client, t: Table) -> Callable[[], Any]:
    hand = c.get(t.game_id, t.tokens[0]).view.seats[0].hand.cards
    move = moves_pb2.Move(lay_aside=moves_pb2.LayAside(cards=hand[:2]))
    return lambda: c.move(t.game_id, t.tokens[0], move, 0)


def _move_kind_not_in_game(c: Client, t: Table) -> Callable[[], Any]:
    move = moves_pb2.Move(choose_seat=moves_pb2.ChooseSeat(seat=1))
    return lambda: c.move(t.game_id, t.tokens[0], move, 0)


MOVE_CASES: list[MoveCase] = [
    ("no token", _no_token, grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN"),
    ("bad token", _bad_token, grpc.StatusCode.UNAUTHENTICATED, "INVALID_TOKEN"),
    ("another game's token", _other_games_token, grpc.StatusCode.UNAUTHENTICATED, "INVALID_TOKEN"),
    ("wrong seat", _wrong_seat, grpc.StatusCode.PERMISSION_DENIED, "WRONG_SEAT"),
    ("stale version", _stale, grpc.StatusCode.ABORTED, "STALE_VERSION"),
    ("empty move", _empty_move, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_MOVE"),
    ("malformed card", _malformed_card, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_CARD"),
    ("no card", _missing_card, grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_MOVE"),
    ("bad request id", _bad_request_id, grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST"),
    ("wrong phase", _wrong_phase, grpc.StatusCode.FAILED_PRECONDITION, "WRONG_PHASE"),
    (
        "too few cards",
        _lay_aside_too_few,
        grpc.StatusCode.FAILED_PRECONDITION,
        "WRONG_NUMBER_OF_CARDS",
    ),
    (
        "move not in game",
        _move_kind_not_in_game,
        grpc.StatusCode.FAILED_PRECONDITION,
        "MOVE_NOT_ALLOWED",
    ),
]


@pytest.mark.parametrize(
    ("name", "make", "code", "reason"), MOVE_CASES, ids=[c[0] for c in MOVE_CASES]
)
def test_a_rejected_move_has_its_code_and_reason_and_changes_nothing(
    client: Client,
    name: str,
    make: Callable[[Client, Table], Callable[[], Any]],
    code: grpc.StatusCode,
    reason: str,
) -> None:
    table = client.table("counterpoint")
    call = make(client, table)
    before = everything(client, table)
    got_code, got_reason, metadata = rejected(call)
    assert (got_code, got_reason) == (code, reason)
    if reason == "STALE_VERSION":
        assert metadata == {"current_version": "0"}
    assert everything(client, table) == before


def test_playing_out_of_turn_is_not_your_turn(client: Client) -> None:
    table = client.table("counterpoint")
    lay_aside_first_three(client, table)
    view = client.get(table.game_id, table.tokens[0]).view
    idle = 1 - view.to_act[0]
    card = client.get(table.game_id, table.tokens[idle]).view.seats[idle].hand.cards[0]
    before = everything(client, table)
    move = moves_pb2.Move(play_card=moves_pb2.PlayCard(card=card))
    code, reason, _ = rejected(lambda: client.move(table.game_id, table.tokens[idle], move, 2))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    assert everything(client, table) == before


def _find_possible_revoke(client: Client) -> tuple[Table, int, int, Any, Any]:
    """Counterpoint: play until the seat to act holds a card it may not play (it can follow
    suit). Returns the table, that seat, the version, the barred card and an opponent's card."""
    rng = random.Random(4)
    for attempt in range(20):
        table = client.table("counterpoint", seed=f"revoke{attempt}".encode())
        lay_aside_first_three(client, table)
        for _ in range(26):
            seat = client.get(table.game_id, table.tokens[0]).view.to_act[0]
            mine = client.get(table.game_id, table.tokens[seat])
            legal = [m.play_card.card for m in mine.view.legal_moves]
            barred = [c for c in mine.view.seats[seat].hand.cards if c not in legal]
            if barred:
                theirs = client.get(table.game_id, table.tokens[1 - seat]).view.seats[1 - seat]
                return table, seat, mine.game.version, barred[0], theirs.hand.cards[0]
            move = mine.view.legal_moves[rng.randrange(len(legal))]
            client.move(table.game_id, table.tokens[seat], move, mine.game.version)
    raise AssertionError("no trick with a possible revoke in 20 games")


@pytest.mark.parametrize(
    ("pick", "reason"), [("barred", "MUST_FOLLOW_SUIT"), ("theirs", "CARD_NOT_IN_HAND")]
)
def test_a_revoke_or_a_card_not_in_hand_is_refused(client: Client, pick: str, reason: str) -> None:
    table, seat, version, barred, theirs = _find_possible_revoke(client)
    card = barred if pick == "barred" else theirs
    move = moves_pb2.Move(play_card=moves_pb2.PlayCard(card=card))
    before = everything(client, table)
    code, got, _ = rejected(lambda: client.move(table.game_id, table.tokens[seat], move, version))
    assert (code, got) == (grpc.StatusCode.FAILED_PRECONDITION, reason)
    assert everything(client, table) == before


def test_a_game_waiting_for_players_accepts_no_move(client: Client) -> None:
    game = client.create("counterpoint")
    token = client.stub.JoinGame(pb.JoinGameRequest(game_id=game.game_id)).seat_token
    assert not client.get(game.game_id, token).view.legal_moves  # nothing to do yet
    move = moves_pb2.Move(lay_aside=moves_pb2.LayAside())
    code, reason, _ = rejected(lambda: client.move(game.game_id, token, move, 0))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_STARTED")
    assert client.get(game.game_id, token).game.version == 0


def test_a_request_id_belongs_to_the_seat_that_used_it(client: Client) -> None:
    table = client.table("counterpoint")
    first = client.get(table.game_id, table.tokens[0]).view.legal_moves[0]
    client.move(table.game_id, table.tokens[0], first, 0, request_id="shared-id")
    other = client.get(table.game_id, table.tokens[1]).view.legal_moves[0]
    before = everything(client, table)
    code, reason, _ = rejected(
        lambda: client.move(table.game_id, table.tokens[1], other, 1, request_id="shared-id")
    )
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "REQUEST_ID_REUSED")
    assert everything(client, table) == before


def test_moves_after_a_resignation_are_refused(client: Client) -> None:
    table = client.table("counterpoint")
    # A move that was legal before: an ended game's view offers none (issue 25).
    move = client.get(table.game_id, table.tokens[0]).view.legal_moves[0]
    client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[1])
    )
    before = everything(client, table)
    code, reason, _ = rejected(lambda: client.move(table.game_id, table.tokens[0], move, 1))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_ABANDONED")
    code, reason, _ = rejected(
        lambda: client.stub.LeaveGame(
            pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
        )
    )
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
    assert everything(client, table) == before


class _BuggyStore(MemoryStore):
    async def load(self, game_id: str) -> Any:
        raise RuntimeError(f"secret internals of {game_id}")


def test_an_unexpected_error_is_internal_with_a_generic_message() -> None:
    with running_server(_BuggyStore) as (_, client):
        with pytest.raises(grpc.RpcError) as caught:
            client.get("abcdef")
        err: Any = caught.value
        assert err.code() == grpc.StatusCode.INTERNAL
        assert err.details() == GENERIC_MESSAGE
        assert error_info(err).reason == "INTERNAL"
        assert "secret" not in str(err)


def test_a_store_that_goes_down_is_unavailable() -> None:
    with redis_server() as (url, proc), running_server(redis_url=url) as (_, client):
        game = client.create("counterpoint")
        proc.kill()
        proc.wait()
        code, reason, _ = rejected(lambda: client.get(game.game_id))
        assert (code, reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")


@pytest.mark.parametrize("token", ["not a token", "abc", "12-"])
def test_a_malformed_page_token_is_invalid_argument(client: Client, token: str) -> None:
    code, reason, _ = rejected(lambda: client.stub.ListGames(pb.ListGamesRequest(page_token=token)))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PAGE_TOKEN")


@pytest.mark.parametrize(
    ("request_", "code", "reason"),
    [
        (
            pb.StreamEventsRequest(game_id="0123456789abcdef"),
            grpc.StatusCode.NOT_FOUND,
            "GAME_NOT_FOUND",
        ),
        (
            pb.StreamEventsRequest(game_id="abc", from_version=-1),
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_REQUEST",
        ),
    ],
)
def test_a_stream_fails_with_the_same_error_model(
    client: Client, request_: pb.StreamEventsRequest, code: grpc.StatusCode, reason: str
) -> None:
    got_code, got_reason, _ = rejected(lambda: list(client.stub.StreamEvents(request_)))
    assert (got_code, got_reason) == (code, reason)


def test_the_interceptor_wraps_each_method_handler_once() -> None:
    # grpc.aio consults the interceptor on every call: the wrapper is built once per handler.
    interceptor = ErrorInterceptor()

    async def echo(request: bytes, context: object) -> bytes:
        return request

    first_handler = grpc.unary_unary_rpc_method_handler(echo)
    second_handler = grpc.unary_unary_rpc_method_handler(echo)

    async def wrap(handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        async def continuation(_: object) -> grpc.RpcMethodHandler:
            return handler

        details = SimpleNamespace(method=method, invocation_metadata=())
        wrapped: grpc.RpcMethodHandler = await interceptor.intercept_service(
            continuation, cast(grpc.HandlerCallDetails, details)
        )
        return wrapped

    async def scenario() -> None:
        one = await wrap(first_handler, "/m/A")
        assert await wrap(first_handler, "/m/A") is one
        assert one is not first_handler
        assert await wrap(first_handler, "/m/B") is not one  # another method, its own wrapper
        assert await wrap(second_handler, "/m/A") is not one  # another handler is wrapped anew

    asyncio.run(scenario())


def test_a_stream_from_beyond_the_next_version_is_out_of_range_at_once(client: Client) -> None:
    table = client.table("counterpoint")
    version = client.get(table.game_id).game.version
    request_ = pb.StreamEventsRequest(game_id=table.game_id, from_version=version + 2)
    err: Any
    with pytest.raises(grpc.RpcError) as caught:
        # A generous deadline: held until it, the call would fail with DEADLINE_EXCEEDED.
        list(client.stub.StreamEvents(request_, metadata=auth(table.tokens[0]), timeout=30))
    err = caught.value
    assert err.code() == grpc.StatusCode.OUT_OF_RANGE
    info = error_info(err)
    assert info.reason == "VERSION_AHEAD"
    assert info.metadata["current_version"] == str(version)
    # The next version itself is where a client that has seen everything resumes: held, live.
    live = client.stub.StreamEvents(
        pb.StreamEventsRequest(game_id=table.game_id, from_version=version + 1), timeout=0.5
    )
    with pytest.raises(grpc.RpcError) as waited:
        list(live)
    assert waited.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
