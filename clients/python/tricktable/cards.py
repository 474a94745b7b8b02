"""Small helpers over the protocol's ``Card``: names, suits and ranks. What a card is worth or
how it ranks in a game is the game's fact: see :mod:`tricktable.facts`.

A client knows only the protocol, so these are written over ``cards_pb2`` alone. Suits are the
proto enum values (``SUIT_CLUBS`` = 1 ... ``SUIT_DIAMONDS`` = 4); ranks are the rank numbers
themselves (2 .. 14 = Ace, 15 = Joker).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

from tricktable.v1 import cards_pb2

Card = cards_pb2.Card

CLUBS = cards_pb2.SUIT_CLUBS
HEARTS = cards_pb2.SUIT_HEARTS
SPADES = cards_pb2.SUIT_SPADES
DIAMONDS = cards_pb2.SUIT_DIAMONDS
NO_SUIT = cards_pb2.SUIT_UNSPECIFIED
SUITS: tuple[int, ...] = (CLUBS, HEARTS, SPADES, DIAMONDS)

TEN, JACK, QUEEN, KING, ACE, JOKER = 10, 11, 12, 13, 14, 15

SUIT_LETTERS = {CLUBS: "C", HEARTS: "H", SPADES: "S", DIAMONDS: "D"}
SUIT_SYMBOLS = {CLUBS: "♣", HEARTS: "♥", SPADES: "♠", DIAMONDS: "♦"}
RANK_LETTERS = {TEN: "T", JACK: "J", QUEEN: "Q", KING: "K", ACE: "A"}


def card(name: str) -> cards_pb2.Card:
    """``card("TD")`` → the Ten of diamonds; ``card("Jk")`` → the Joker."""
    if name.lower() in {"jk", "joker"}:
        return cards_pb2.Card(suit=NO_SUIT, rank=cards_pb2.RANK_JOKER)
    rank_text, suit_text = name[:-1].upper(), name[-1].upper()
    suits = {v: k for k, v in SUIT_LETTERS.items()}
    ranks = {v: k for k, v in RANK_LETTERS.items()}
    rank = ranks.get(rank_text) or int(rank_text)
    return cards_pb2.Card(suit=suits[suit_text], rank=rank)  # type: ignore[arg-type]


def name(c: cards_pb2.Card) -> str:
    """The short name: ``"TD"``, ``"AS"``, ``"7H"``, ``"Jk"``."""
    if c.rank == JOKER:
        return "Jk"
    return f"{RANK_LETTERS.get(c.rank, str(c.rank))}{SUIT_LETTERS.get(c.suit, '?')}"


def label(c: cards_pb2.Card) -> str:
    """The name people read: ``"10♦"``, ``"A♠"``, ``"7♥"``, ``"Jk"`` (the Joker)."""
    if c.rank == JOKER:
        return "Jk"
    rank = "10" if c.rank == TEN else RANK_LETTERS.get(c.rank, str(c.rank))
    return f"{rank}{SUIT_SYMBOLS.get(c.suit, '?')}"


def key(c: cards_pb2.Card) -> tuple[int, int]:
    """A hashable identity: (suit, rank)."""
    return (c.suit, c.rank)


def by_suit(cards: Iterable[cards_pb2.Card]) -> dict[int, list[cards_pb2.Card]]:
    """Cards grouped by suit, each group highest rank first (ranks as numbers)."""
    groups: dict[int, list[cards_pb2.Card]] = {s: [] for s in SUITS}
    for c in cards:
        groups.setdefault(c.suit, []).append(c)
    for group in groups.values():
        group.sort(key=lambda x: -x.rank)
    return groups


# -- names that moved (deprecated; see clients/python/CHANGELOG.md) ---------------------------

#: The point-trick games' card points as ``cards.POINTS`` held them until 0.1.0 (A 11, T 10,
#: K 4, Q 3, J 2): kept only for the deprecated names below, which go in 0.3.0. A game's points
#: are its fact now: ``tricktable.facts.of(game).points(card)``, learnt from the server.
_POINTS_0_1 = {ACE: 11, TEN: 10, KING: 4, QUEEN: 3, JACK: 2}


def _points_0_1(c: cards_pb2.Card) -> int:
    return _POINTS_0_1.get(c.rank, 0)


_MOVED: dict[str, tuple[str, Any]] = {
    "points": ("tricktable.facts.of(game).points(card)", _points_0_1),
    "POINTS": ("tricktable.facts.of(game).card_points", _POINTS_0_1),
}


def __getattr__(name: str) -> Any:
    """A name that moved still answers, with a DeprecationWarning naming where it went."""
    if name in _MOVED:
        where, value = _MOVED[name]
        warnings.warn(
            f"tricktable.cards.{name} moved to {where} in tricktable-client 0.2.0 and goes in "
            "0.3.0 (learn the facts first: tricktable.facts.learn(client.game_types()))",
            DeprecationWarning,
            stacklevel=2,
        )
        return value
    raise AttributeError(f"module 'tricktable.cards' has no attribute {name!r}")
