"""What a replica's event streams share: one wait and one read per game and version, decoded once.

Many streams watch one game (spectators of a tournament's final, every seat of a table): one
commit must reach them all. :class:`EventFeed` keeps, for each game and next version that some
stream waits for, ONE watch: a task that waits on the store (``wait_for_version``) for the game
to pass that version, makes the one store read of the new batches, decodes them once, and hands
the result to every stream waiting on it. A stream then wakes once, with its batches in hand, and
only projects them for its viewer (streams of the same viewer share that too). A read is shared
only while it is in flight, so nothing is cached beyond the streams it woke, and nothing goes
stale.

The watch is the only waiter the store sees for those streams: an idle stream costs one future
and no Redis command, and the store's periodic check that the game still exists (``recheck_s``)
is made once per game, not once per stream.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from typing import Any

from engine.core.events import Event, event_from_data
from service.store.base import EventBatch, GameStore


@dataclass(frozen=True, slots=True)
class DecodedBatch:
    batch: EventBatch
    events: tuple[Event, ...]  # full, unprojected
    # What the streams that share this read made of it for a viewer (a seat, None: spectators),
    # so that the same viewer's streams share one: see GameService.stream_events.
    projected: dict[int | None, Any] = field(default_factory=dict, compare=False, repr=False)


#: A stream waiting for the next batches: its future, or its wait ran out (None).
_Waiter = asyncio.Future[list[DecodedBatch] | None]


@dataclass(slots=True)
class _Watch:
    """The streams waiting for one game's batches from one version on, and the task waiting
    on the store for them."""

    waiters: dict[_Waiter, None] = field(default_factory=dict)  # an ordered set: woken in turn
    task: asyncio.Task[None] | None = None


class EventFeed:
    def __init__(self, store: GameStore, recheck_s: float = math.inf) -> None:
        """``recheck_s``: how often a watch looks at the store while its game is quiet (the
        store's ``wait_for_version`` timeout), only to end the streams of a game that expired."""
        self._store = store
        self._recheck_s = recheck_s
        self._reads: dict[tuple[str, int], asyncio.Future[list[DecodedBatch]]] = {}
        self._watches: dict[tuple[str, int], _Watch] = {}
        self._closed = False

    async def read(self, game_id: str, from_version: int) -> list[DecodedBatch]:
        """Batches with version >= ``from_version`` (as :meth:`GameStore.read_events`)."""
        key = (game_id, from_version)
        pending = self._reads.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._read(game_id, from_version))
            self._reads[key] = pending
            pending.add_done_callback(lambda done: self._done(key, done))
        # A stream that goes away must not cancel the read the others wait on.
        return await asyncio.shield(pending)

    async def after(
        self, game_id: str, next_version: int, wait_s: float = math.inf
    ) -> list[DecodedBatch] | None:
        """The batches from ``next_version`` on, once the game has one (as :meth:`read`);
        None when ``wait_s`` passes first or the feed is closed. Raises what the store's wait or
        read raised (GameNotFound: the game expired)."""
        if self._closed:
            return None
        key = (game_id, next_version)
        watch = self._watches.get(key)
        if watch is None:
            watch = self._watches[key] = _Watch()
            watch.task = asyncio.ensure_future(self._watch(key, watch))
        loop = asyncio.get_running_loop()
        waiter: _Waiter = loop.create_future()
        watch.waiters[waiter] = None
        # No timer for an endless wait (a spectator's): only the watch ends it.
        timer = loop.call_later(wait_s, _expire, waiter) if math.isfinite(wait_s) else None
        try:
            return await waiter
        finally:
            if timer is not None:
                timer.cancel()
            if self._watches.get(key) is watch:  # not woken by the watch: timed out or gone
                self._leave(key, watch, waiter)

    def close(self) -> None:
        """Shutdown: every waiting stream's wait returns None, and every later wait at once."""
        self._closed = True
        watches, self._watches = self._watches, {}
        for watch in watches.values():
            if watch.task is not None:
                watch.task.cancel()
            for waiter in watch.waiters:
                if not waiter.done():
                    waiter.set_result(None)

    def _leave(self, key: tuple[str, int], watch: _Watch, waiter: _Waiter) -> None:
        del watch.waiters[waiter]
        if not watch.waiters:
            # Nobody waits any more (the last stream went away, or its wait ran out: it comes
            # back as a new watch): the store's wait stops too.
            del self._watches[key]
            if watch.task is not None:
                watch.task.cancel()

    async def _watch(self, key: tuple[str, int], watch: _Watch) -> None:
        game_id, next_version = key
        batches: list[DecodedBatch] | None = None
        error: Exception | None = None
        try:
            after, recheck_s = next_version - 1, self._recheck_s
            # None: the store looked (the game is still there) and it has not moved: wait on.
            while await self._store.wait_for_version(game_id, after, recheck_s) is None:
                pass
            batches = await self.read(game_id, next_version)
        except Exception as exc:  # GameNotFound (expired), StoreUnavailable: every stream's
            error = exc
        if self._watches.get(key) is watch:
            del self._watches[key]
        for waiter in watch.waiters:
            if waiter.done():
                continue
            if error is not None:
                waiter.set_exception(error)
                waiter.exception()  # retrieved: its stream may be cancelled before it looks
            else:
                waiter.set_result(batches)

    async def _read(self, game_id: str, from_version: int) -> list[DecodedBatch]:
        batches = await self._store.read_events(game_id, from_version)
        return [DecodedBatch(b, tuple(event_from_data(e) for e in b.events)) for b in batches]

    def _done(self, key: tuple[str, int], done: asyncio.Future[list[DecodedBatch]]) -> None:
        if self._reads.get(key) is done:
            del self._reads[key]
        if not done.cancelled():
            done.exception()  # retrieved: every waiter may have gone before it failed


def _expire(waiter: _Waiter) -> None:
    if not waiter.done():
        waiter.set_result(None)
