"""The one commit builder: every version a game takes after its opening is written here.

A step is what happens to a game at one version (:class:`GameStep`): a seat's move (a player's, a
server bot's, or the clock's auto move after a ``TimedOut``), a seat's resignation (leaving a
full table, or forfeiting on time), or the service ending a deserted game. :class:`Committer`
turns a step into the store's compare-and-set commit (snapshot, event batch, status, move
record, request id, the game's timing after it: DESIGN.md decision 9) and, once written, keeps
the replica's copy, its feed (:mod:`service.feed`) and the metrics in step. A rule of the
commit (what the timing becomes, what status a step leaves, which copy is kept) is written
once, here, for every kind of step.

A commit on a version that moved raises :class:`~service.errors.VersionConflict`, and a request
id the store has seen :class:`~service.store.base.RequestSeen`: nothing was written, and the
caller decides what that means for its kind of step.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.events import Event, GameAbandoned, TimedOut, event_to_data
from engine.core.moves import Move, move_to_data
from engine.core.rules import Rules
from service import turns
from service.feed import GameFeed
from service.store.base import (
    ABANDONED,
    ACTIVE,
    FINISHED,
    Commit,
    EventBatch,
    GameRecord,
    MoveRecord,
)
from service.tables import Tables


@dataclass(frozen=True, slots=True)
class GameStep:
    """One version a game takes, on ``record`` (the game before it). ``seat``: whose step it is
    (None: the service's own, an idle game's end); ``events``: full, not projected. A move
    carries ``move`` and the game after it (``rules``, ``state``); a step without one leaves
    the game's snapshot as it was."""

    record: GameRecord
    seat: int | None
    events: list[Event]
    move: Move | None = None
    rules: Rules[Any] | None = None
    state: Any = None
    request_id: str = ""
    resigned: bool = False  # the seat resigns (the game is abandoned)
    timed_out: int | None = None  # the seat whose clock ran out with this step
    #: After the game's end: a seat accepting a rematch (service.rematch's offer data). The
    #: game stays as it ended (status, snapshot, timing); only its version and stream move.
    rematch: Mapping[str, Any] | None = None


def played(
    record: GameRecord,
    rules: Rules[Any],
    state: Any,
    seat: int,
    move: Move,
    *,
    request_id: str = "",
    on_time: bool = False,
) -> GameStep:
    """``seat``'s ``move`` on ``state`` (the game at ``record``'s version): a player's, a server
    bot's, or (``on_time``) the one the clock makes when the seat's time ran out, opened by a
    ``TimedOut``. The rules' refusal (EngineError) raises here, before anything is written."""
    new_state, events = rules.apply(state, seat, move)
    if on_time:
        events = [TimedOut(seat=seat, auto_move=True), *events]
    return GameStep(
        record,
        seat,
        events,
        move,
        rules,
        new_state,
        request_id,
        timed_out=seat if on_time else None,
    )


def resigned(record: GameRecord, seat: int, *, on_time: bool = False) -> GameStep:
    """``seat`` resigns: it left a full table, or (``on_time``) forfeited when its clock ran
    out, which a ``TimedOut`` event tells."""
    if on_time:
        return GameStep(
            record, seat, [TimedOut(seat=seat, auto_move=False)], resigned=True, timed_out=seat
        )
    return GameStep(record, seat, [], resigned=True)


def rematch_offered(record: GameRecord, seat: int, offer: Mapping[str, Any]) -> GameStep:
    """``seat`` of the ended game accepts a rematch; ``offer`` is who has, and the next game
    once every human seat has (service.rematch)."""
    return GameStep(record, seat, [], rematch=offer)


def abandoned(record: GameRecord, reason: str) -> GameStep:
    """The service ends a game under way as abandoned, for ``reason`` (the game's own players
    made no step: idle; its tournament was cancelled)."""
    return GameStep(record, None, [GameAbandoned(reason=reason)])


def idle_ended(record: GameRecord) -> GameStep:
    """The service ends a full table that took no step for its idle time."""
    return abandoned(record, "idle")


@dataclass(frozen=True, slots=True)
class Committed:
    """A step written: the ``record`` it made, and the engine ``state`` there."""

    record: GameRecord
    state: Any

    @property
    def version(self) -> int:
        return self.record.version


class Committer:
    """Writes steps (see the module docstring): the one way a game takes a version."""

    def __init__(self, tables: Tables, feed: GameFeed, *, bot_delay_ms: int) -> None:
        self._tables = tables
        self._feed = feed
        self._bot_delay_ms = bot_delay_ms  # before a server bot moves

    def build(self, step: GameStep, now_ms: int) -> Commit:
        """The store's commit of ``step`` made at ``now_ms``."""
        record = step.record
        moved = step.move is not None
        if step.rematch is not None:
            return Commit(
                expected_version=record.version,
                snapshot=record.snapshot,
                batch=EventBatch(version=record.version + 1, seat=step.seat, rematch=step.rematch),
                status=record.status,
            )
        if moved:
            assert step.rules is not None and step.seat is not None
            finished = step.state.finished
            status = FINISHED if finished else ACTIVE
            must_act = () if finished else step.rules.to_act(step.state)
            snapshot = step.rules.snapshot(step.state)
        else:
            status, must_act, snapshot = ABANDONED, (), record.snapshot
        resigned_seat = step.seat if step.resigned else None
        return Commit(
            expected_version=record.version,
            snapshot=snapshot,
            batch=EventBatch(
                version=record.version + 1,
                seat=step.seat,
                events=tuple(event_to_data(e) for e in step.events),
                resigned_seat=resigned_seat,
                request_id=step.request_id,
            ),
            status=status,
            move=(
                MoveRecord(step.seat, move_to_data(step.move), step.request_id)  # type: ignore[arg-type]
                if moved
                else None
            ),
            resigned_seat=resigned_seat,
            # A game that schedules nothing has no timing, and none is written.
            timing=turns.next_timing(
                record,
                must_act,
                now_ms,
                bot_delay_ms=self._bot_delay_ms,
                mover=step.seat if moved and step.timed_out is None else None,
                timed_out=step.timed_out,
            )
            if record.timing is not None
            else None,
            at_ms=now_ms,
        )

    async def commit(self, step: GameStep) -> Committed:
        """Write ``step`` by compare-and-set on its record's version; the game it made.
        Raises VersionConflict (the game moved) or RequestSeen (the request id was accepted
        before): nothing was written then."""
        tables = self._tables
        record = step.record
        commit = self.build(step, tables.now_ms())
        self._feed.committing(record.game_id)
        try:
            version = await tables.store.commit(record.game_id, commit)
        except BaseException:
            self._feed.committed(record.game_id, None, ())
            raise
        made = dataclasses.replace(
            record,
            version=version,
            status=commit.status,
            snapshot=commit.snapshot,
            resigned_seat=commit.resigned_seat
            if commit.resigned_seat is not None
            else record.resigned_seat,
            timing=commit.timing if commit.timing is not None else record.timing,
        )
        state = step.state if step.move is not None else None
        # Before this call next awaits: waiters on this replica woken by the commit find it.
        if commit.status == ABANDONED or step.rematch is not None:  # no state at hand to keep
            tables.cache.drop(record.game_id)
        else:
            tables.cache.put(made, state)
        # Those waiting on this game here are handed this batch as it is, not read back.
        self._feed.committed(record.game_id, commit.batch, step.events)
        if commit.status != ACTIVE and record.status == ACTIVE:
            tables.metrics.game_ended(record.game_type, commit.status)
        return Committed(made, state)
