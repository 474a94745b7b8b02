"""Arbitrary moves through the wire: the server never fails with INTERNAL, accepts exactly the
moves the seat's view listed as legal, and a rejected move changes nothing."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tricktable.v1 import cards_pb2, moves_pb2

from engine import game_names
from tests.service.support import Client, game_bytes

WORDS = [
    "pass",
    "declare",
    "reveal",
    "decline",
    "exchange",
    "tricks",
    "misere",
    "open_misere",
    "10",
    "",
    "x" * 40,
]
ACCEPTED_ERRORS = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.PERMISSION_DENIED,
}


def cards() -> st.SearchStrategy[cards_pb2.Card]:
    return st.builds(
        cards_pb2.Card,
        suit=st.integers(0, 6),
        rank=st.integers(0, 17),
    )


def moves() -> st.SearchStrategy[moves_pb2.Move]:
    """Any case of Move with any field values, plausible or not."""
    small = st.integers(-3, 60)
    word = st.sampled_from(WORDS)
    cases: list[st.SearchStrategy[moves_pb2.Move]] = [
        st.builds(lambda c: moves_pb2.Move(play_card=moves_pb2.PlayCard(card=c)), cards()),
        st.builds(
            lambda cs: moves_pb2.Move(lay_aside=moves_pb2.LayAside(cards=cs)),
            st.lists(cards(), max_size=5),
        ),
        st.builds(lambda w: moves_pb2.Move(call=moves_pb2.Call(call=w)), word),
        st.builds(lambda s: moves_pb2.Move(choose_seat=moves_pb2.ChooseSeat(seat=s)), small),
        st.just(moves_pb2.Move(exchange_trump=moves_pb2.ExchangeTrump())),
        st.builds(
            lambda s: moves_pb2.Move(declare_marriage=moves_pb2.DeclareMarriage(suit=s)),
            st.integers(0, 6),
        ),
        st.just(moves_pb2.Move(close_stock=moves_pb2.CloseStock())),
        st.just(moves_pb2.Move(claim=moves_pb2.Claim())),
        st.just(moves_pb2.Move(draw_cards=moves_pb2.DrawCards())),
        st.builds(
            lambda w, n: moves_pb2.Move(bid=moves_pb2.Bid(contract=w, tricks=n)), word, small
        ),
        st.builds(lambda w: moves_pb2.Move(bid=moves_pb2.Bid(contract=w)), word),
        st.builds(
            lambda s, c: moves_pb2.Move(
                declare_contract=moves_pb2.DeclareContract(trump=s, called=c)
            ),
            st.integers(0, 6),
            cards(),
        ),
        st.builds(lambda d: moves_pb2.Move(cut=moves_pb2.Cut(depth=d)), small),
    ]
    return st.one_of(cases)


@pytest.mark.parametrize("game", game_names())
def test_arbitrary_moves_are_accepted_exactly_when_legal(client: Client, game: str) -> None:
    table = client.table(game, seed=f"fuzz:{game}".encode())

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(move=st.one_of(moves(), st.none()), pick=st.integers(0, 10_000), seat=st.integers(0, 3))
    def attempt(move: moves_pb2.Move | None, pick: int, seat: int) -> None:
        public = client.get(table.game_id)
        if public.view.finished:
            return
        seat %= len(table.tokens)
        mine = client.get(table.game_id, table.tokens[seat])
        legal = list(mine.view.legal_moves)
        if move is None:  # half the time, a legal move of a seat to act keeps the game going
            actor = list(public.view.to_act)[pick % len(public.view.to_act)]
            mine = client.get(table.game_id, table.tokens[actor])
            legal = list(mine.view.legal_moves)
            move, seat = legal[pick % len(legal)], actor
        before = [game_bytes(client.get(table.game_id, t)) for t in (None, *table.tokens)]
        try:
            result = client.move(table.game_id, table.tokens[seat], move, mine.game.version)
        except grpc.RpcError as err:
            error: Any = err
            assert error.code() in ACCEPTED_ERRORS, (error.code(), error.details(), move)
            assert move not in legal, f"a legal move was refused: {error.details()}"
            after = [game_bytes(client.get(table.game_id, t)) for t in (None, *table.tokens)]
            assert after == before
            return
        assert move in legal, f"an illegal move was accepted: {move}"
        assert result.version == mine.game.version + 1

    attempt()
