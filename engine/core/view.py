"""What one viewer sees of a game: everything a frontend draws and a bot decides on.

A view is built by the game's projection from the full state for one viewer (a seat, or None for
a spectator), and holds no card that viewer may not see. Common parts (phase, whose turn, hands,
the trick, scores, legal moves) are the same shape in every game; what is special to a game sits
in ``detail``, a small dataclass of the game's own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.fields import card_field, cards_field
from engine.core.memo import Memo
from engine.core.moves import Move


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    hand_size: int
    hand: tuple[int, ...] | None = cards_field()  # own hand, or an exposed one; else None
    aside_count: int = 0  # cards laid aside (bid cards)
    aside: tuple[int, ...] | None = cards_field(default=None)  # when the viewer may see them
    bid: int | None = None  # the bid, once public (or own)
    tricks_won: int = 0
    points_taken: int | None = None  # card points, where the viewer may know them
    score: int = 0


@dataclass(frozen=True, slots=True)
class TrickView:
    leader: int
    seats: tuple[int, ...]  # who played, in play order
    cards: tuple[int, ...] = cards_field()
    winner: int | None = None


@dataclass(frozen=True, slots=True)
class View:
    game: str
    viewer: int | None
    phase: str
    deal_no: int
    dealer: int
    to_act: tuple[int, ...]  # the seats that must move (their clocks run)
    may_act: tuple[int, ...]  # every seat with a legal move: to_act and optional movers
    seats: tuple[SeatView, ...]
    trick: TrickView | None
    tricks: tuple[TrickView, ...]  # this deal's completed tricks (public history)
    trump: int | None
    # A tuple, or a lay-aside's lazy LayAsideChoices (immutable too): hundreds of moves.
    legal_moves: Sequence[Move]
    detail: Any
    finished: bool
    winners: tuple[int, ...]
    turn_up: int | None = card_field(default=None)


def seat_view(
    *,
    seat: int,
    hand_size: int,
    hand: tuple[int, ...] | None = None,
    aside_count: int = 0,
    aside: tuple[int, ...] | None = None,
    bid: int | None = None,
    tricks_won: int = 0,
    points_taken: int | None = None,
    score: int = 0,
) -> SeatView:
    """A seat as viewed; the games build their seat views here rather than with ``SeatView``.

    Every view shows each other seat again, and a seat whose cards are hidden is a few small
    numbers that recur across moves and games: those views are shared, looked up rather than
    built (building a frozen dataclass is most of a seat view's cost). A view showing cards
    is built: a hand rarely recurs."""
    hidden = hand is None and aside is None
    if hidden:
        key = (seat, hand_size, aside_count, bid, tricks_won, points_taken, score)
        shared = _HIDDEN_SEATS.get(key)
        if shared is not None:
            return shared
    view = SeatView(
        seat=seat,
        hand_size=hand_size,
        hand=hand,
        aside_count=aside_count,
        aside=aside,
        bid=bid,
        tricks_won=tricks_won,
        points_taken=points_taken,
        score=score,
    )
    return _HIDDEN_SEATS.keep(key, view) if hidden else view


#: Seat views without cards, by (seat, hand_size, aside_count, bid, tricks_won, points_taken,
#: score).
_HIDDEN_SEATS: Memo[tuple[int, int, int, int | None, int, int | None, int], SeatView] = Memo(65_536)


def trick_view(leader: int, cards: list[int], winner: int | None, seats: int) -> TrickView:
    """A trick as viewed: who played each card, clockwise from the leader.

    Every view of a deal lists its completed tricks again, so trick views are shared: the same
    trick gives the same (immutable) object, looked up rather than built."""
    played = tuple(cards)
    key = (leader, played, winner, seats)
    view = _TRICKS.get(key)
    if view is None:
        view = _TRICKS.keep(
            key,
            TrickView(
                leader=leader,
                seats=tuple((leader + i) % seats for i in range(len(played))),
                cards=played,
                winner=winner,
            ),
        )
    return view


#: Trick views by (leader, cards, winner, seats).
_TRICKS: Memo[tuple[int, tuple[int, ...], int | None, int], TrickView] = Memo(65_536)


class TrickRows(Memo[tuple[int, ...], TrickView]):
    """Completed tricks' views by a game's history rows ``[leader, winner, *cards]``.

    A view lists the deal's completed tricks again on every move; ``shown`` looks them all up
    in C (a map over the rows), without a Python call per trick, which is most of their cost. A
    miss builds the view by ``trick_view`` and keeps it (``Memo.keep``: starting over when full)."""

    __slots__ = ("seats",)

    def __init__(self, seats: int, limit: int = 65_536) -> None:
        super().__init__(limit)
        self.seats = seats

    def __missing__(self, row: tuple[int, ...]) -> TrickView:
        return self.keep(row, trick_view(row[0], list(row[2:]), row[1], self.seats))

    def shown(self, history: list[list[int]]) -> tuple[TrickView, ...]:
        """The views of ``history``'s tricks, in order."""
        return tuple(map(self.__getitem__, map(tuple, history)))
