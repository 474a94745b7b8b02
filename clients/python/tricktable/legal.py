"""A view's legal moves as one sequence, however the server sent them.

A seat that lays cards aside (the bid of Ninety-Nine and Counterpoint) may lay aside any 3 of its
12 or 16 cards: 220 or 560 moves. A client that asks for ``compact_lay_aside`` receives them as
one ``View.lay_aside_choice`` (the cards and the count) instead of listed in ``legal_moves``.
:func:`legal_moves` reads either form as the same :class:`LegalMoves` sequence, in the same order
(the listed moves, then every ``count``-subset of the choice's cards in lexicographic order, the
order the server lists them in), so a bot written against a list works unchanged. A move of the
choice is built only when it is looked at: ``legal[random index]`` builds one move, not 560.

    legal = legal_moves(view)
    move = legal[rng.randrange(len(legal))]   # a uniformly random legal move, lay-asides too
    assert move in legal
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from math import comb
from typing import overload

from tricktable.v1 import cards_pb2, moves_pb2, views_pb2

Card = cards_pb2.Card
Move = moves_pb2.Move


def lay_aside_move(cards: Sequence[Card]) -> Move:
    """The move that lays ``cards`` aside."""
    return Move(lay_aside=moves_pb2.LayAside(cards=cards))


class LegalMoves(Sequence[Move]):
    """The listed ``legal_moves`` of a view, then the moves of its ``lay_aside_choice``."""

    __slots__ = ("_listed", "_listed_len", "_size", "cards", "choose")

    def __init__(self, view: views_pb2.View) -> None:
        self._listed = view.legal_moves
        self._listed_len = len(self._listed)
        #: The cards of the lay-aside choice (none: empty) ...
        self.cards: tuple[Card, ...] = ()
        #: ... and how many of them one move lays aside (``count`` is Sequence's own method).
        self.choose = 0
        self._size = 0
        if view.HasField("lay_aside_choice"):
            self.cards = tuple(view.lay_aside_choice.cards)
            self.choose = view.lay_aside_choice.count
            self._size = comb(len(self.cards), self.choose)

    @property
    def listed(self) -> Sequence[Move]:
        """The moves the view lists one by one (without the choice's)."""
        return self._listed

    @property
    def choice_size(self) -> int:
        """How many lay-asides the choice holds (0: the view has no choice)."""
        return self._size

    def __len__(self) -> int:
        return self._listed_len + self._size

    @overload
    def __getitem__(self, index: int) -> Move: ...
    @overload
    def __getitem__(self, index: slice) -> list[Move]: ...
    def __getitem__(self, index: int | slice) -> Move | list[Move]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        if index < self._listed_len:
            return self._listed[index]
        return lay_aside_move(self._unrank(index - self._listed_len))

    def _unrank(self, index: int) -> list[Card]:
        """The index-th ``choose``-subset of the cards in lexicographic order (the order of
        ``itertools.combinations``, and of the server's list)."""
        n, k = len(self.cards), self.choose
        out: list[Card] = []
        start = 0
        for slot in range(k):
            for i in range(start, n):
                block = comb(n - i - 1, k - slot - 1)  # subsets that take cards[i] here
                if index < block:
                    out.append(self.cards[i])
                    start = i + 1
                    break
                index -= block
        return out

    def choice_index(self, places: Sequence[int]) -> int:
        """The index among the choice's moves (from 0) of the subset of ``cards`` at the
        ascending positions ``places``: the inverse of the unranking above."""
        n, k = len(self.cards), self.choose
        index = 0
        start = 0
        for slot, place in enumerate(places):
            for i in range(start, place):  # the subsets that take cards[i] here come first
                index += comb(n - i - 1, k - slot - 1)
            start = place + 1
        return index

    def __iter__(self) -> Iterator[Move]:
        yield from self._listed
        if self._size:
            for cards in combinations(self.cards, self.choose):
                yield lay_aside_move(cards)

    def __contains__(self, move: object) -> bool:
        if not isinstance(move, Move):
            return False
        if self._size and move.WhichOneof("kind") == "lay_aside":
            keys = [(c.suit, c.rank) for c in move.lay_aside.cards]
            held = {(c.suit, c.rank) for c in self.cards}
            if len(keys) == self.choose and len(set(keys)) == self.choose and set(keys) <= held:
                return True
        return move in self._listed

    def kinds(self) -> set[str]:
        """The kinds of move among them, without building the choice's moves."""
        found: set[str] = {m.WhichOneof("kind") or "" for m in self._listed}
        if self._size:
            found.add("lay_aside")
        return found


def legal_moves(view: views_pb2.View) -> LegalMoves:
    """The view's legal moves, listed or compact alike (see the module's documentation)."""
    return LegalMoves(view)


def lay_asides(legal: Sequence[Move]) -> Iterator[tuple[int, Sequence[Card]]]:
    """Each lay-aside of ``legal`` as (its index in ``legal``, its cards), in order. For a
    :class:`LegalMoves` with a choice the moves are not built: ``legal[index]`` builds the one
    chosen."""
    listed = legal.listed if isinstance(legal, LegalMoves) else legal
    for index, move in enumerate(listed):
        if move.WhichOneof("kind") == "lay_aside":
            yield index, move.lay_aside.cards
    if isinstance(legal, LegalMoves) and legal.choice_size:
        start = len(listed)
        for offset, cards in enumerate(combinations(legal.cards, legal.choose)):
            yield start + offset, cards


def expanded(view: views_pb2.View) -> views_pb2.View:
    """The view with its lay-aside choice listed in ``legal_moves``, as a server sends it to a
    client that does not ask for ``compact_lay_aside`` (for a program that reads only
    ``legal_moves``). A view without a choice is returned as it is."""
    if not view.HasField("lay_aside_choice"):
        return view
    out = views_pb2.View()
    out.CopyFrom(view)
    out.ClearField("lay_aside_choice")
    choice = view.lay_aside_choice
    out.legal_moves.extend(lay_aside_move(c) for c in combinations(choice.cards, choice.count))
    return out
