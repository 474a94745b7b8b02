"""Laying cards aside face down, all seats at once: the Parlett games' secret bid.

Every seat that has not yet laid aside is "to act" at the same time; each lays aside exactly
``count`` cards of its hand. The order in which seats do it does not matter and nobody sees
another seat's choice until the rules expose it.

A 16-card hand has 560 ways to lay 3 cards aside, so the legal lay-asides are a lazy sequence
(:class:`LayAsideChoices`): its length and any item are computed on demand by unranking the
combination, and iterating walks them in lexicographic order. A random bot that picks one by index
builds one move, not 560.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from math import comb
from typing import Any, TypeVar, overload

from engine.core.cards import cards_of, describe, is_card, mask_of
from engine.core.errors import IllegalMove, InvalidMove, Reason
from engine.core.moves import LayAside
from engine.core.phases import Effect, Offer

S = TypeVar("S")


class _Interned(dict[tuple[int, ...], LayAside]):
    """One LayAside per card set, shared by every hand that holds those cards. Moves are
    immutable, so sharing is invisible, and a view of a lay-aside (every choice, hundreds) then
    looks its moves up instead of building each: a dataclass instance costs far more than a
    lookup. At most C(52, k) entries for the k cards laid aside, which a few games share."""

    def __missing__(self, cards: tuple[int, ...]) -> LayAside:
        move = self[cards] = LayAside(cards)
        return move


_MOVES = _Interned()


class LayAsideChoices(Sequence[LayAside]):
    """Every ``count``-card subset of a hand, as LayAside moves, in lexicographic order."""

    __slots__ = ("_cards", "_count", "_len")

    def __init__(self, hand: int, count: int) -> None:
        self._cards = tuple(cards_of(hand))
        self._count = count
        self._len = comb(len(self._cards), count)

    @property
    def cards(self) -> tuple[int, ...]:
        """The hand's cards, ascending: any ``count`` distinct ones make a legal move."""
        return self._cards

    @property
    def choose(self) -> int:
        """How many of ``cards`` one move lays aside (``count`` is Sequence's own method)."""
        return self._count

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> LayAside: ...
    @overload
    def __getitem__(self, index: slice) -> list[LayAside]: ...
    def __getitem__(self, index: int | slice) -> LayAside | list[LayAside]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError(index)
        return _MOVES[self._unrank(index)]

    def _unrank(self, index: int) -> tuple[int, ...]:
        """The index-th k-subset in lexicographic order (combinatorial number system)."""
        n, k = len(self._cards), self._count
        out = []
        start = 0
        for slot in range(k):
            for i in range(start, n):
                block = comb(n - i - 1, k - slot - 1)  # subsets that start with cards[i] here
                if index < block:
                    out.append(self._cards[i])
                    start = i + 1
                    break
                index -= block
        return tuple(out)

    def __iter__(self) -> Iterator[LayAside]:
        return map(_MOVES.__getitem__, combinations(self._cards, self._count))

    def __contains__(self, move: object) -> bool:
        if not isinstance(move, LayAside) or not card_numbers(move.cards):
            return False
        if len(move.cards) != self._count:
            return False
        return len(set(move.cards)) == self._count and set(move.cards) <= set(self._cards)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        # What the choices are, not where they sit in memory: a view's repr is then the same
        # for equal views (OpenSpiel's observation strings are views' reprs).
        return f"LayAsideChoices(cards={self._cards!r}, choose={self._count})"


def card_numbers(cards: object) -> bool:
    """Whether a lay-aside's cards are card numbers at all. The engine's API takes any object,
    so None, a number or a list of lists is refused as malformed, not by a TypeError."""
    return isinstance(cards, (tuple, list)) and all(type(c) is int for c in cards)


def check_lay_aside(hand: int, already: int, move: LayAside, count: int) -> int:
    """Validate a lay-aside; return the mask of the cards laid aside."""
    if already:
        raise IllegalMove(Reason.NOT_YOUR_TURN, "you have already laid aside your bid cards")
    if not card_numbers(move.cards):
        raise InvalidMove(Reason.MALFORMED_MOVE, "a lay-aside names its cards as card numbers")
    if len(move.cards) != count:
        raise IllegalMove(
            Reason.WRONG_NUMBER_OF_CARDS,
            f"lay aside exactly {count} cards (got {len(move.cards)})",
        )
    if len(set(move.cards)) != count:
        raise IllegalMove(Reason.DUPLICATE_CARDS, "the same card is named twice")
    for c in move.cards:
        if not is_card(c) or not hand >> c & 1:
            raise IllegalMove(Reason.CARD_NOT_IN_HAND, f"{describe(c)} is not in your hand")
    return mask_of(move.cards)


class LayAsides(Offer[S]):
    """The offer of a lay-aside phase: every seat that has not laid aside yet lays aside
    exactly ``count`` cards of its hand (read from the state's ``hands`` and ``aside``)."""

    __slots__ = ("count", "effect", "legal", "optional")
    move_type = LayAside

    def __init__(self, count: int, effect: Effect[S]) -> None:
        self.count = count
        self.effect = effect
        self.optional = False

        def legal(s: Any, seat: int) -> Sequence[LayAside]:
            return [] if s.aside[seat] else LayAsideChoices(s.hands[seat], count)

        self.legal = legal

    def check(self, s: S, seat: int, move: Any) -> None:
        check_lay_aside(s.hands[seat], s.aside[seat], move, self.count)  # type: ignore[attr-defined]


def not_laid_aside(s: Any) -> tuple[int, ...]:
    """``to_act`` of a lay-aside phase: every seat that has not laid its cards aside yet."""
    return tuple(seat for seat, aside in enumerate(s.aside) if not aside)
