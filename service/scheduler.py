"""The scheduler every replica runs: it sweeps the store's deadline index and fires what is due.

Deadlines live in the store (DESIGN.md decision 9), so any replica may fire any game's clock and
a replica that dies stops nothing: the others' sweeps find its games' deadlines. A sweep claims
the entries it reads (:meth:`~service.store.base.DeadlineIndex.due` with a lease, one atomic step
in the store): the other replicas' sweeps skip them until the lease ends, so one replica
computes each step (a server bot's move, the expert's search) instead of every replica
computing it for one commit to win. A replica that dies mid-move holds its entries only until
their lease ends; another then claims and fires them. Firing is :meth:`GameService.fire_due`,
an ordinary compare-and-set commit on the game's version, which stays the arbiter: when a lease
runs out while its holder still works, or a move races the clock, exactly one commit wins.
An entry is dropped once handled (fired, lost to a racing commit, stale, or its game gone); a
stale one (its deadline is no longer the game's) fires nothing (see :meth:`GameService.fire_due`:
stale entries that fired would multiply across replicas); one that cannot be handled yet (a
commit in flight, a game not yet created) or that failed for a passing reason (the store
unreachable) is released, due again at the next sweep (or, when even the release fails, when
its lease ends).
A game that ends leaves the index in the step that ends it, so the index holds only games that
run (and, for a while, the stale hints a crash or an expired open game left).
Idle games (``serve --idle-ttl``) are found the same way, from a lazily kept entry (see
:meth:`GameService.end_if_idle`).

While the store cannot be reached, the sweeps fail: the outage is logged once (a warning),
sweeps go on at a slower pace, and its end is logged once (with how long it lasted and how many
sweeps failed), instead of a warning per sweep (:class:`Outage`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

import structlog

from service.background import BackgroundLoop
from service.deadlines import Pending, in_flight
from service.errors import GameNotFound, StoreUnavailable
from service.game_service import GameService
from service.store.base import IDLE, Due

log = structlog.get_logger("tricktable.scheduler")

#: The longest a sweeper sleeps: a new deadline earlier than the one it slept for (written by
#: any replica) is fired at most about this late.
DEFAULT_INTERVAL_S = 0.05
#: Entries fired concurrently per sweep.
DEFAULT_BATCH = 200
#: The longest pause between sweeps while the store is unreachable (doubling up to it).
OUTAGE_PAUSE_S = 0.5
#: How long a sweep's claim on its entries lasts: longer than handling a batch takes (an
#: expert's move included, on a loaded machine), and what a replica that dies mid-move costs the
#: entries it held.
DEFAULT_LEASE_S = 10.0


class Outage:
    """Whether the store is down as this replica's sweeps see it: logs its start and its end
    once each, and the pause before the next sweep."""

    def __init__(self, interval_s: float, clock: Callable[[], float]) -> None:
        self._interval_s = interval_s
        self._clock = clock
        self.since: float | None = None  # when the first failing sweep came
        self.failures = 0
        self._pause_s = interval_s

    def failed(self, why: str) -> float:
        """A sweep (or a firing) failed for want of the store: the pause before the next."""
        self.failures += 1
        if self.since is None:
            self.since = self._clock()
            log.warning("store unreachable: deadline sweeps fail until it answers", why=why)
        else:
            self._pause_s = min(OUTAGE_PAUSE_S, self._pause_s * 2)
        return self._pause_s

    def recovered(self) -> None:
        """A sweep went through: the end of an outage, if one was on."""
        if self.since is None:
            return
        log.info(
            "store reachable again: deadline sweeps resumed",
            down_s=round(self._clock() - self.since, 3),
            failed_sweeps=self.failures,
        )
        self.since, self.failures, self._pause_s = None, 0, self._interval_s


class Scheduler(BackgroundLoop):
    task_name = "scheduler"

    def __init__(
        self,
        games: GameService,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        batch: int = DEFAULT_BATCH,
        lease_s: float = DEFAULT_LEASE_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._games = games
        self._index = games.store.deadlines
        self._interval_s = interval_s
        self._batch = batch
        self._lease_ms = max(1, int(lease_s * 1000))
        self._clock = clock
        self.fired = 0  # timeouts this replica committed
        self.lapsed = 0  # entries claimed here after another claim's lease ran out
        self.outage = Outage(interval_s, clock)

    async def _run(self) -> None:
        while True:
            try:
                more = await self.sweep()
                pause = 0.0 if more else await self._pause()
            except StoreUnavailable as exc:
                pause = self.outage.failed(exc.message)
            except Exception:  # a bug must not stop every clock of this replica
                log.exception("deadline sweep failed")
                pause = self._interval_s
            await asyncio.sleep(pause)

    async def _pause(self) -> float:
        """Until the next indexed deadline, at most the interval."""
        upcoming = await self._index.next_deadline()
        if upcoming is None:
            return self._interval_s
        return min(self._interval_s, max(0.001, upcoming / 1000 - self._clock()))

    async def sweep(self) -> bool:
        """Fire every entry due now (up to one batch); True when a full batch was due (sweep
        again at once)."""
        now_ms = int(self._clock() * 1000)
        entries = await self._index.due(now_ms, self._batch, self._lease_ms)
        self._note_lapsed(entries)
        if self.outage.since is not None and not entries:
            self.outage.recovered()  # (with entries, once one of them went through)
        handled = await asyncio.gather(*(self._handle(entry) for entry in entries))
        if any(handled):
            self.outage.recovered()
        return len(entries) >= self._batch

    def _note_lapsed(self, entries: list[Due]) -> None:
        lapsed = sum(entry.lapsed for entry in entries)
        if lapsed:
            self.lapsed += lapsed
            self._games.tables.metrics.deadline_lease_lapsed(lapsed)
            log.info("claimed entries whose lease ran out", count=lapsed)

    async def _handle(self, entry: Due) -> bool:
        """Fire one entry; False when the store failed meanwhile (the entry is released)."""
        later: int | None = None  # an idle game that moved since: its later deadline
        try:
            if entry.kind == IDLE:
                later = await self._games.end_if_idle(entry.game_id)
            else:
                fired = await self._games.fire_due(entry.game_id, entry)
                if isinstance(fired, Pending):
                    await self._index.release(entry)  # its commit may land yet: look again
                    return True
                if fired is not None:
                    self.fired += 1
        except GameNotFound:
            if entry.kind != IDLE and in_flight(entry, None, int(self._clock() * 1000)):
                await self._index.release(entry)  # indexed before its game is created
                return True
            # else expired: only its index entry is left
        except StoreUnavailable as exc:  # released for the next sweep (if the store answers)
            self.outage.failed(exc.message)
            with contextlib.suppress(StoreUnavailable):  # else its lease ends on its own
                await self._index.release(entry)
            return False
        await self._index.done(entry, later)
        return True
