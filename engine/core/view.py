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
