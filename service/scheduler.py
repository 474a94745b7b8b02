"""The scheduler every replica runs: it sweeps the store's deadline index and fires what is due.

Deadlines live in the store (DESIGN.md decision 9), so any replica may fire any game's clock and
a replica that dies stops nothing: the others' sweeps find its games' deadlines. Firing is
:meth:`GameService.fire_due`, an ordinary compare-and-set commit on the game's version, so
when several replicas sweep the same entry, or a move races the clock, exactly one commit wins.
An entry is dropped once handled (fired, lost to a racing commit, stale, or its game gone); one
that failed for a passing reason (the store unreachable) stays and is tried again next sweep.
A game that ends leaves the index in the step that ends it, so the index holds only games that
run (and, for a while, the stale hints a crash or an expired open game left).
Idle games (``serve --idle-ttl``) are found the same way, from a lazily kept entry (see
:meth:`GameService.end_if_idle`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

import structlog

from service.errors import GameNotFound, StoreUnavailable
from service.game_service import GameService
from service.store.base import IDLE, Due

log = structlog.get_logger("tricktable.scheduler")

#: The longest a sweeper sleeps: a new deadline earlier than the one it slept for (written by
#: any replica) is fired at most about this late.
DEFAULT_INTERVAL_S = 0.05
#: Entries fired concurrently per sweep.
DEFAULT_BATCH = 200


class Scheduler:
    def __init__(
        self,
        games: GameService,
        *,
        interval_s: float = DEFAULT_INTERVAL_S,
        batch: int = DEFAULT_BATCH,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._games = games
        self._store = games.store
        self._interval_s = interval_s
        self._batch = batch
        self._clock = clock
        self._task: asyncio.Task[None] | None = None
        self.fired = 0  # timeouts this replica committed

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="scheduler")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            try:
                more = await self.sweep()
                pause = 0.0 if more else await self._pause()
            except StoreUnavailable as exc:
                log.warning("deadline sweep failed", why=exc.message)
                pause = self._interval_s
            except Exception:  # a bug must not stop every clock of this replica
                log.exception("deadline sweep failed")
                pause = self._interval_s
            await asyncio.sleep(pause)

    async def _pause(self) -> float:
        """Until the next indexed deadline, at most the interval."""
        upcoming = await self._store.next_deadline()
        if upcoming is None:
            return self._interval_s
        return min(self._interval_s, max(0.001, upcoming / 1000 - self._clock()))

    async def sweep(self) -> bool:
        """Fire every entry due now (up to one batch); True when a full batch was due (sweep
        again at once)."""
        now_ms = int(self._clock() * 1000)
        entries = await self._store.due(now_ms, self._batch)
        await asyncio.gather(*(self._handle(entry) for entry in entries))
        return len(entries) >= self._batch

    async def _handle(self, entry: Due) -> None:
        later: int | None = None  # an idle game that moved since: its later deadline
        try:
            if entry.kind == IDLE:
                later = await self._games.end_if_idle(entry.game_id)
            elif await self._games.fire_due(entry.game_id) is not None:
                self.fired += 1
        except GameNotFound:
            pass  # expired: only its index entry is left
        except StoreUnavailable as exc:
            log.warning(
                "firing failed; kept for the next sweep", game_id=entry.game_id, why=exc.message
            )
            return
        await self._store.done(entry, later)
