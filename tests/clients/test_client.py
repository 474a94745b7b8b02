"""The Python client against a real server: create, join, get, submit; versions, idempotent
retries and stale moves; errors as exceptions with the server's reason; a stream that survives
a dropped connection."""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest
from tricktable import cards
from tricktable.client import Client, RetryPolicy, Seat, time_control
from tricktable.errors import (
    IllegalMove,
    InvalidArgument,
    NotFound,
    StaleVersion,
    TricktableError,
    Unauthenticated,
    Unavailable,
)
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import moves_pb2

from service.running import ServerThread
from tests.clients.proxy import Proxy
from tests.conftest import free_port


def _seats(client: Client, game_type: str, seed: bytes = b"") -> list[Seat]:
    game = client.create(game_type, seed=seed)
    return [client.join(game.game_id, n, f"p{n}") for n in range(len(game.seats))]


def _advance(seats: list[Seat], moves: int, rng: random.Random) -> None:
    """Random legal moves by whoever is to act."""
    for _ in range(moves):
        public = seats[0].client.get(seats[0].game_id)
        seat = seats[rng.choice(list(public.view.to_act))]
        state = seat.get()
        legal = state.view.legal_moves
        seat.submit(legal[rng.randrange(len(legal))])


def test_create_join_get_submit_round_trip(client: Client) -> None:
    game = client.create("counterpoint", {"target_score": 50}, seed=b"round trip")
    assert game.game_type == "counterpoint" and game.status == pb.GAME_STATUS_WAITING
    assert game.options["target_score"].int_value == 50
    assert game.game_id in {g.game_id for g in client.list_games("counterpoint")}  # open seats
    first = client.join(game.game_id, player_name="ann")
    second = client.join(game.game_id, player_name="bob")
    assert (first.seat, second.seat) == (0, 1) and first.token != second.token
    state = first.get()
    assert state.game.status == pb.GAME_STATUS_PLAYING and first.version == 0
    assert state.view.viewer == 0 and len(state.view.seats[0].hand.cards) == 16
    assert not state.view.seats[1].HasField("hand")  # the other hand stays hidden
    answer = first.submit(state.view.legal_moves[0])
    assert answer.version == 1 == first.version
    assert answer.view.seats[0].aside_count == 3
    assert client.get(game.game_id).game.version == 1
    assert {t.name for t in client.game_types()} >= {"counterpoint", "sixty-six"}


def test_a_saved_token_resumes_the_seat(client: Client) -> None:
    seats = _seats(client, "sixty-six")
    again = client.seat(seats[1].game_id, 1, seats[1].token)
    assert again.get().view.viewer == 1


def test_errors_carry_the_status_code_and_the_reason(client: Client) -> None:
    with pytest.raises(NotFound) as missing:
        client.get("no-such-game")
    assert missing.value.code == grpc.StatusCode.NOT_FOUND
    assert missing.value.reason == "GAME_NOT_FOUND"
    with pytest.raises(InvalidArgument) as unknown:
        client.create("whist")
    assert unknown.value.reason == "UNKNOWN_GAME"
    seats = _seats(client, "counterpoint")
    with pytest.raises(Unauthenticated) as bad_token:
        client.submit(seats[0].game_id, "not-a-token", moves_pb2.Move(claim=moves_pb2.Claim()), 0)
    assert bad_token.value.reason == "INVALID_TOKEN"
    state = seats[0].get()
    three = list(state.view.seats[0].hand.cards)[:3]
    with pytest.raises(IllegalMove) as illegal:  # Counterpoint: bid cards first, no play yet
        seats[0].submit(moves_pb2.Move(play_card=moves_pb2.PlayCard(card=three[0])))
    assert illegal.value.code == grpc.StatusCode.FAILED_PRECONDITION and illegal.value.reason
    assert isinstance(illegal.value, TricktableError) and illegal.value.message
    assert client.get(seats[0].game_id).game.version == 0  # nothing changed
    seats[0].submit(moves_pb2.Move(lay_aside=moves_pb2.LayAside(cards=three)))


def test_a_stale_move_is_refreshed_and_reported_not_resubmitted(client: Client) -> None:
    a, b, c = _seats(client, "ninety-nine", seed=b"stale")
    seen = a.get()  # version 0: every seat lays its bid cards aside at once
    b.submit(b.get().view.legal_moves[0])
    with pytest.raises(StaleVersion) as stale:
        a.submit(seen.view.legal_moves[0])
    assert stale.value.reason == "STALE_VERSION" and stale.value.current_version == 1
    current = stale.value.current
    assert current is not None and current.game.version == 1 == a.version
    assert client.get(a.game_id).game.version == 1  # the stale move was not applied
    assert a.submit(current.view.legal_moves[0]).version == 2  # decided again, accepted
    assert c.get().view.legal_moves


class _LoseFirstAnswer(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Sends every SubmitMove; the first one's answer is lost on the way back (UNAVAILABLE)."""

    def __init__(self) -> None:
        self.request_ids: list[str] = []

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        outcome = continuation(details, request)
        if details.method.endswith("/SubmitMove"):
            self.request_ids.append(request.request_id)
            if len(self.request_ids) == 1:
                outcome.result()  # the server applied it
                raise _Unavailable()
        return outcome


class _Unavailable(grpc.RpcError):  # type: ignore[misc]
    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.UNAVAILABLE

    def details(self) -> str:
        return "connection lost"

    def trailing_metadata(self) -> tuple[()]:
        return ()


def test_a_retried_move_reuses_its_request_id_and_applies_once(server: ServerThread) -> None:
    lossy = _LoseFirstAnswer()
    channel = grpc.intercept_channel(grpc.insecure_channel(server.address), lossy)
    with Client(channel, retry=RetryPolicy(initial_s=0.01)) as client:
        seats = _seats(client, "counterpoint")
        state = seats[0].get()
        answer = seats[0].submit(state.view.legal_moves[0])
        assert len(lossy.request_ids) == 2 and len(set(lossy.request_ids)) == 1
        assert answer.version == 1 and client.get(seats[0].game_id).game.version == 1
    channel.close()


def test_retries_give_up_with_unavailable() -> None:
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    with (
        Client(address, timeout_s=0.5, retry=RetryPolicy(attempts=2, initial_s=0.01)) as client,
        pytest.raises(Unavailable) as down,
    ):
        client.get("any")
    assert down.value.retryable


def test_a_stream_resumes_after_a_dropped_connection_without_gaps_or_repeats(
    client: Client, server: ServerThread
) -> None:
    seats = _seats(client, "counterpoint", seed=b"drop")
    rng = random.Random(3)
    _advance(seats, 4, rng)
    with Proxy(server.address) as proxy, Client(proxy.address) as flaky:
        stream = flaky.stream(seats[1].game_id, seats[1].token)
        received: list[int] = []
        for batch in stream:
            received.append(batch.version)
            if batch.version == 2:
                proxy.drop()  # the link goes down mid-stream...
                _advance(seats, 5, rng)  # ...while the game goes on
            if batch.version == 6:
                proxy.drop()
            if batch.version == 9:
                break
        assert proxy.drops == 2
    assert received == list(range(10))


def test_a_finished_games_stream_ends(client: Client) -> None:
    seats = _seats(client, "sixty-six", seed=b"short")
    rng = random.Random(1)
    while not client.get(seats[0].game_id).view.finished:
        _advance(seats, 1, rng)
    final = client.get(seats[0].game_id).game.version
    versions = [b.version for b in client.stream(seats[0].game_id)]
    assert versions == list(range(final + 1))
    assert not list(client.stream(seats[0].game_id, from_version=final + 1))


def test_card_helpers_name_and_parse_cards() -> None:
    ten = cards.card("TD")
    assert (ten.suit, ten.rank) == (cards.DIAMONDS, 10) and cards.name(ten) == "TD"
    assert cards.name(cards.card("Jk")) == "Jk"
    groups = cards.by_suit([cards.card("7C"), cards.card("AC"), cards.card("KH")])
    assert [cards.name(c) for c in groups[cards.CLUBS]] == ["AC", "7C"]


def test_the_client_creates_clocked_games_with_server_bots_and_watches_for_changes(
    client: Client,
) -> None:
    clock = time_control(0.3, bank_s=1, increment_s=0.1, forfeit_after=3)
    game = client.create("sixty-six", clock=clock, bot_seats={1: "heuristic"})
    assert game.time_control == clock and [s.bot for s in game.seats] == ["", "heuristic"]
    me = client.join(game.game_id, 0, "me")
    state = me.get()
    assert [c.seat for c in state.view.clocks] == [0, 1]
    watched = client.get(game.game_id, after_version=state.game.version)  # a spectator
    assert watched.game.version > state.game.version  # a bot's move, or my clock's
    assert not watched.view.HasField("viewer")
