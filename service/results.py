"""What the service answers, transport-free: the values the doors convert (:mod:`service.convert`)
and the rooms return. Plain data and the projection of events for a viewer; no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.events import Event, GameAbandoned, GameOver, event_from_data
from engine.core.rules import Rules
from engine.core.view import View
from service.clocks import SeatClockView
from service.store.base import ACTIVE, EventBatch, GameRecord


@dataclass(frozen=True, slots=True)
class SeatPresenceView:
    seat: int
    connected: bool
    last_seen_ms: int


@dataclass(frozen=True, slots=True)
class MoveResult:
    version: int  # the game's version after the move
    events: list[Event]  # projected for the mover
    view: View
    view_version: int = -1  # the version ``view`` shows (-1: ``version``)
    clocks: tuple[SeatClockView, ...] = ()  # at the version ``view`` shows (clocked games)

    def __post_init__(self) -> None:
        if self.view_version < 0:
            object.__setattr__(self, "view_version", self.version)


@dataclass(frozen=True, slots=True)
class ProjectedBatch:
    version: int
    seat: int | None
    events: list[Event]
    resigned_seat: int | None
    rematch: Mapping[str, Any] | None = None  # a seat accepting a rematch of the ended game
    # The transport's encoding of this batch, made once: every stream woken by one commit that
    # projects for the same viewer receives this very object (see Reads.stream_events).
    encoded: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    @property
    def last(self) -> bool:
        """Whether the game ends with this batch: a resignation, an abandonment (a forfeit on
        the clock, an idle game) or the game's end."""
        if self.rematch is not None:  # after the game's end: the rematch that started is last
            return bool(self.rematch["game_id"])
        return self.resigned_seat is not None or any(
            type(e) is GameOver or type(e) is GameAbandoned for e in self.events
        )


def project_events(rules: Rules[Any], events: list[Event], viewer: int | None) -> list[Event]:
    """``events`` as ``viewer`` (a seat, or None for a spectator) may see them."""
    return [rules.project(e, viewer) for e in events]


def project_batch(rules: Rules[Any], batch: EventBatch, viewer: int | None) -> ProjectedBatch:
    """A stored batch as ``viewer`` may see it."""
    events = project_events(rules, [event_from_data(e) for e in batch.events], viewer)
    return ProjectedBatch(batch.version, batch.seat, events, batch.resigned_seat, batch.rematch)


def view_of(rules: Rules[Any], state: Any, viewer: int | None, record: GameRecord) -> View:
    """``viewer``'s view of the game as stored. A game the service ended (idle, a resignation,
    a forfeit on time) is over though its deal is not: finished, and no one may act."""
    view = rules.view(state, viewer)
    if record.status == ACTIVE or view.finished:
        return view
    return dataclasses.replace(view, finished=True, to_act=(), may_act=(), legal_moves=())


# -- a seat's play stream (service.play) --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MoveAnswer:
    """The answer to one move: the version it made, or the error that refused it."""

    request_id: str
    version: int | None
    error: Exception | None = None


@dataclass(frozen=True, slots=True)
class SeatView:
    """The seat's view at ``version``: the expected version of its next move, with the game's
    clocks there (a clocked game's; they are the service's, not the engine view's)."""

    version: int
    view: View
    clocks: tuple[SeatClockView, ...] = ()


@dataclass(slots=True)
class PlayStep:
    """What one step of the game tells the seat, sent as one message: the answer to its move,
    versions' events in order, and its view."""

    answer: MoveAnswer | None = None
    batches: list[ProjectedBatch] = field(default_factory=list)
    view: SeatView | None = None

    def __bool__(self) -> bool:
        return self.answer is not None or bool(self.batches) or self.view is not None
