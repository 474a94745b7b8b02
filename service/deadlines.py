"""What a game has scheduled, done when it comes: a server bot's move, a clock running out (its
auto move or the seat's forfeit), and the end of an idle game. Each is an ordinary step written
by the one commit builder (:mod:`service.commit`) on the version read, so it happens once
however many replicas' sweepers (:mod:`service.scheduler`) find it, and a racing move wins or
loses it whole.

In a game with a time control or bot seats every commit also writes what the game has scheduled
(its clocks and next deadline), in the same compare-and-set step (DESIGN.md decision 9); what
that is, is :func:`service.turns.next_timing`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterable

import structlog

from engine.core.events import event_from_data
from service import clocks as clock_rules
from service import turns
from service.commit import Committer, GameStep, idle_ended, played, resigned
from service.errors import VersionConflict
from service.store.base import ACTIVE, Due, GameRecord, Timing
from service.tables import Tables

log = structlog.get_logger("tricktable.games")


class Pending:
    """An index entry for a commit that may not have landed yet: kept, looked at again."""


PENDING = Pending()
#: How long an entry for a later version than its game's is kept as a commit that may still
#: land (its deadline is at or after the commit was built). Older, the commit failed or its
#: process died: the game's own entry is another, so the stale one is dropped.
IN_FLIGHT_MS = 10_000


def in_flight(entry: Due, record: GameRecord | None, now_ms: int) -> bool:
    """Whether a TIMING entry may be for a step not written yet (``record``: the game as read,
    None when there is none yet): a commit's next version, or version 0 (a game being created,
    or a table being filled, whose timing is written after the entry) not yet the game's own."""
    if entry.version is None or entry.deadline_ms <= now_ms - IN_FLIGHT_MS:
        return False
    if record is None:
        return entry.version == 0
    if entry.version > record.version:
        return True
    own = record.timing.deadline_ms if record.timing is not None else None
    return entry.version == record.version == 0 and own != entry.deadline_ms


class Deadlines:
    def __init__(
        self, tables: Tables, committer: Committer, *, bot_delay_ms: int, idle_ms: int
    ) -> None:
        self._tables = tables
        self._committer = committer
        self._bot_delay_ms = bot_delay_ms  # before a server bot moves
        self._idle_ms = idle_ms  # a full game with no step this long ends (0: never)

    def starting(self, record: GameRecord, must_act: Iterable[int]) -> Timing | None:
        """The timing of a game whose play begins now with ``must_act`` to act (None if it
        schedules nothing)."""
        return turns.next_timing(
            dataclasses.replace(record, timing=None),
            must_act,
            self._tables.now_ms(),
            bot_delay_ms=self._bot_delay_ms,
        )

    async def first_timing(self, record: GameRecord) -> Timing | None:
        """The timing of a game whose table fills now (None if it schedules nothing)."""
        if not turns.scheduled(record):
            return None
        rules, state = await self._tables.state(record)
        return self.starting(record, rules.to_act(state))

    def idle_deadline(self, moved_at_ms: int) -> int | None:
        return moved_at_ms + self._idle_ms if self._idle_ms > 0 else None

    async def end_if_idle(self, game_id: str) -> int | None:
        """End the game as abandoned if every seat is taken and no step has come for the idle
        time (a ``GameAbandoned("idle")`` version, by compare-and-set: a racing move wins or
        loses it whole). Returns the later deadline to watch when the game has moved since,
        else None (ended now, already over, not full, or gone)."""
        tables = self._tables
        record = await tables.store.load(game_id)
        deadline = self.idle_deadline(record.moved_at_ms)
        if record.status != ACTIVE or not record.full or deadline is None:
            return None
        if deadline > tables.now_ms():
            return deadline
        try:
            await self._committer.commit(idle_ended(record))
        except VersionConflict:
            return self.idle_deadline(tables.now_ms())  # it moved: look again that much later
        log.info("idle game ended", game_id=game_id, version=record.version + 1)
        return None

    async def fire_due(self, game_id: str, entry: Due | None = None) -> GameRecord | Pending | None:
        """Do what the game has scheduled, if it has come: a server bot's move when a bot seat
        must act, else the clock that ran out (with AUTO_MOVE the move the policy picks, after
        a ``TimedOut`` event; with FORFEIT, or at the ``forfeit_after``-th timeout, the seat's
        resignation). One compare-and-set commit on the version read, so a racing move or
        another replica's firing wins or loses it whole. Returns the game after the step, or
        None when nothing was due (the game moved on or ended) or the commit lost the race.

        ``entry``: the index entry that led here. One naming another deadline than the game's
        own is stale (a deadline replaced since, or one a losing commit indexed) and fires
        nothing: the entry of the game's own deadline does. Were a stale entry to fire, each
        one would make another firing, and each firing (won or lost) indexes its own next
        deadline, so replicas sweeping the same entries would multiply them (the index grew to
        thousands for a few dozen bot games). One naming a later version than the game's is
        indexed for a commit that may still land (:class:`Pending`: keep it), else the game
        would lose its only entry and stall."""
        tables = self._tables
        record = await tables.store.load(game_id)
        now = tables.now_ms()
        timing = record.timing
        if record.status == ACTIVE and entry is not None and in_flight(entry, record, now):
            return PENDING
        if (
            record.status != ACTIVE
            or timing is None
            or timing.deadline_ms is None
            or timing.deadline_ms > now
        ):
            return None
        if entry is not None and entry.deadline_ms != timing.deadline_ms:
            return None
        rules, state = await tables.state(record)
        version = record.version + 1
        bot = turns.bot_to_move(record, rules.to_act(state))
        step: GameStep
        if bot is not None:
            kind = record.seats[bot].bot  # type: ignore[union-attr]
            started = time.monotonic()
            if turns.wants_history(kind):
                # The expert searches for its time budget: off the event loop, with the events
                # its seat has seen (read from the store: the replica keeps no history).
                batches = await tables.store.read_events(game_id, 0)
                seen = [event_from_data(e) for b in batches for e in b.events]
                move = await asyncio.to_thread(
                    turns.bot_move,
                    kind,
                    rules,
                    state,
                    bot,
                    seed=record.seed,
                    version=version,
                    events=seen,
                    options=record.options,
                )
            else:
                move = turns.bot_move(kind, rules, state, bot, seed=record.seed, version=version)
            # Every decision takes the bot's whole time, a forced one too: when its move comes
            # must not tell how many legal moves it had (turns.decision_s).
            await asyncio.sleep(max(0.0, started + turns.decision_s(kind) - time.monotonic()))
            tables.metrics.bot_decided(kind)
            step = played(record, rules, state, bot, move)
        else:
            held = turns.clocks_of(record)
            due = clock_rules.next_timeout(*held) if held is not None else None
            if held is None or due is None or due[0] > now:
                return None
            tc, clocks = held
            seat = due[1]
            if clock_rules.policy_for(tc, clocks, seat) == clock_rules.FORFEIT:
                step = resigned(record, seat, on_time=True)
            else:
                move = turns.auto_move(rules, state, seat, record.seed, version)
                step = played(record, rules, state, seat, move, on_time=True)
        try:
            fired = (await self._committer.commit(step)).record
        except VersionConflict:
            return None  # a move, or another replica's firing, came first
        late_s = (tables.now_ms() - timing.deadline_ms) / 1000
        tables.metrics.deadline_fired("bot" if bot is not None else "timeout", late_s)
        log.info(
            "server moved" if bot is not None else "clock ran out",
            game_id=game_id,
            seat=step.seat,
            version=version,
            status=fired.status,
        )
        return fired
