"""What the heuristic bots share: reading card plays out of the legal moves, and who is winning
the trick on the table, and reading protocol cards into the plain values the shared judgement
(:mod:`tricktable.bots.judgement`) takes. Written over the protocol alone (bots never import the
engine)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tricktable import cards as C
from tricktable.bots import judgement
from tricktable.bots.base import Move, View, kind
from tricktable.bots.judgement import Plain, Play
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


def trump_of(trump: int) -> int | None:
    """The view's trump as :mod:`tricktable.bots.judgement` takes it: None for no trump."""
    return None if trump == C.NO_SUIT else trump


def plain(c: Card, strength: Strength) -> Plain:
    """A protocol card as :mod:`tricktable.bots.judgement` reads it."""
    return Plain(c.suit, c.rank, strength(c))


def plain_plays(plays: Sequence[tuple[Card, Move]], strength: Strength) -> list[Play[Move]]:
    return [(plain(c, strength), m) for c, m in plays]


def by_suit_order(cards: Sequence[Card]) -> list[Card]:
    """The cards grouped by suit in :func:`tricktable.cards.by_suit`'s order (the order the
    heuristic bots have always summed a hand's estimate in)."""
    return [c for group in C.by_suit(cards).values() for c in group]


def trick_winner(cards: Sequence[Card], trump: int, strength: Strength) -> int | None:
    """Index of the card winning a suit-following trick so far: the highest trump, else the
    highest card of the suit led. None for an empty trick."""
    if not cards:
        return None
    return judgement.winner([plain(c, strength) for c in cards], trump_of(trump))


def beats(c: Card, winning: Card, trump: int, strength: Strength) -> bool:
    """Does ``c``, played now, beat the card winning the trick (of the suit led or a trump)?"""
    return judgement.beats(plain(c, strength), plain(winning, strength), trump_of(trump))
