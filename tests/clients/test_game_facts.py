"""The games' facts a client reads from ``ListGameTypes`` (:mod:`tricktable.facts`) are the
engine's own: rank order, card points and bid readings, for every game."""

from __future__ import annotations

import itertools

import pytest
from tricktable import facts
from tricktable.client import Client
from tricktable.v1 import cards_pb2

from engine import game_names, get_rules
from engine.core import cards as C
from engine.core.rules import GameType


def engine_type(game: str) -> GameType:
    return get_rules(game).game_type()


def proto_card(c: int) -> cards_pb2.Card:
    return cards_pb2.Card(suit=(c >> 4) + 1, rank=c & 15)  # type: ignore[arg-type]


@pytest.mark.parametrize("game", game_names())
def test_the_client_learns_each_games_facts_from_the_server(client: Client, game: str) -> None:
    client.game_types()
    learnt = facts.of(game)
    engine = engine_type(game)
    assert learnt.rank_order == engine.rank_order
    assert dict(learnt.card_points) == dict(engine.card_points)
    assert learnt.counts_points == bool(engine.card_points)
    reading = engine.bid_reading
    if reading is None:
        assert not learnt.bid_suit_values and learnt.bid_cards == 0
    else:
        assert dict(learnt.bid_suit_values) == {s + 1: v for s, v in reading.suit_values.items()}
        assert learnt.bid_cards == reading.cards
        assert (learnt.high_reading_max, learnt.high_reading_add) == (
            reading.high_reading_max,
            reading.high_reading_add,
        )


def test_card_strength_and_points_agree_with_the_engines_tables(client: Client) -> None:
    from engine.games import counterpoint, sixty_six

    client.game_types()
    for game, strength, points in (
        ("counterpoint", counterpoint.STRENGTH, counterpoint.POINTS),
        ("sixty-six", sixty_six.STRENGTH, sixty_six.POINTS),
        ("ninety-nine", None, None),
        ("nominations", None, None),
    ):
        learnt = facts.of(game)
        ranks = learnt.rank_order
        deck = C.deck(range(min(ranks), 15))
        for a, b in itertools.combinations(deck, 2):
            engine_says = (strength[a] > strength[b]) if strength else (a & 15) > (b & 15)
            assert (learnt.strength(proto_card(a)) > learnt.strength(proto_card(b))) == engine_says
        for c in deck:
            assert learnt.points(proto_card(c)) == (points[c] if points else 0)
    assert facts.of("counterpoint").pack_points == sum(
        counterpoint.POINTS[c] for c in C.deck(range(7, 15))
    )


def test_bid_readings_agree_with_the_engine(client: Client) -> None:
    from engine.games.counterpoint import bid_readings

    client.game_types()
    learnt = facts.of("counterpoint")
    for three in itertools.combinations(C.deck(range(7, 15)), 3):
        shown = [proto_card(c) for c in three]
        for high in (True, False):
            assert tuple(learnt.readings(learnt.bid(shown), high)) == bid_readings(three, high)


def test_a_game_whose_facts_are_not_learnt_is_an_error_that_says_so() -> None:
    with pytest.raises(LookupError, match="game types"):
        facts.of("no-such-game")
