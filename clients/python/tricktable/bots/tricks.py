"""What the heuristic bots share: reading card plays out of the legal moves, and who is winning
the trick on the table. Written over the protocol alone (bots never import the engine)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tricktable import cards as C
from tricktable.bots.base import Move, View, kind
from tricktable.v1 import cards_pb2

Card = cards_pb2.Card
Strength = Callable[[Card], int]


def card_plays(legal: Sequence[Move]) -> list[tuple[Card, Move]]:
    """The legal card plays: (card, move)."""
    return [(m.play_card.card, m) for m in legal if kind(m) == "play_card"]


def find(legal: Sequence[Move], move_kind: str) -> Move | None:
    return next((m for m in legal if kind(m) == move_kind), None)


def find_call(legal: Sequence[Move], call: str) -> Move | None:
    return next((m for m in legal if kind(m) == "call" and m.call.call == call), None)


def own_hand(view: View) -> list[Card]:
    if view.viewer is None:
        return []
    seat = view.seats[view.viewer]
    return list(seat.hand.cards) if seat.HasField("hand") else []


def trick_winner(cards: Sequence[Card], trump: int, strength: Strength) -> int | None:
    """Index of the card winning a suit-following trick so far: the highest trump, else the
    highest card of the suit led. None for an empty trick."""
    if not cards:
        return None
    best = 0
    for i, c in enumerate(cards[1:], start=1):
        if beats(c, cards[best], trump, strength):
            best = i
    return best


def beats(c: Card, winning: Card, trump: int, strength: Strength) -> bool:
    """Does ``c``, played now, beat the card winning the trick? The winning card is always of
    the suit led or a trump, so a card of another suit never beats it."""
    if c.suit == winning.suit:
        return strength(c) > strength(winning)
    return trump != C.NO_SUIT and c.suit == trump


def lowest(cards: Sequence[tuple[Card, Move]], strength: Strength, trump: int) -> Move:
    """The cheapest card to give away: the weakest, keeping trumps."""
    return min(cards, key=lambda cm: (cm[0].suit == trump, strength(cm[0])))[1]


def highest(cards: Sequence[tuple[Card, Move]], strength: Strength, trump: int) -> Move:
    return max(cards, key=lambda cm: (cm[0].suit == trump, strength(cm[0])))[1]
