"""The lazy sequence of lay-asides: every subset once, in lexicographic order, by index too."""

from __future__ import annotations

import random
from itertools import combinations

from engine.core import cards as C
from engine.core.laying_aside import LayAsideChoices
from engine.core.moves import LayAside


def test_choices_list_every_subset_in_order_and_index_and_iteration_agree() -> None:
    rng = random.Random(3)
    deck = list(C.deck(range(2, 15)))
    for _ in range(20):
        hand = C.mask_of(rng.sample(deck, 12))
        choices = LayAsideChoices(hand, 3)
        expected = [LayAside(cards) for cards in combinations(C.cards_of(hand), 3)]
        assert list(choices) == expected
        assert [choices[i] for i in range(len(choices))] == expected
        assert choices[-1] == expected[-1]


def test_hands_sharing_cards_share_the_move_objects() -> None:
    # Moves are interned per card set (a lay-aside view lists hundreds): the same cards laid
    # aside from two hands is one object, equal to a freshly built move.
    a = C.mask_of([C.card(r, 0) for r in range(2, 10)])
    b = C.mask_of([C.card(r, 0) for r in range(2, 6)] + [C.card(r, 1) for r in range(2, 6)])
    first = next(iter(LayAsideChoices(a, 3)))
    again = next(iter(LayAsideChoices(b, 3)))
    assert first is again
    assert first == LayAside(first.cards)
    assert LayAsideChoices(a, 3)[0] is first
