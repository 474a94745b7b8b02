"""The one feed of a replica: one wait per game on the store for its next versions, and their
batches handed to everyone who waits on this replica.

Many wait on one game: its spectators' and seats' event streams (StreamEvents, the web door's
too), its seats' play streams, the calls that hold their answer for a turn or a later version
(``wait_for_turn``, ``GetGame.after_version``). One commit must reach them all. For each game
someone waits on, :class:`GameFeed` keeps ONE watch: a task that waits on the store
(``wait_for_version``) for the game to pass the latest version it has handed out, gets the new
batches once, decodes them once, and hands the same list to every waiter and follower. A
waiter then wakes once, with its batches in hand, and only projects them for its viewer
(waiters of the same viewer share that too, :func:`project`).

The batches of a commit this replica made are handed over as the committer gave them
(:meth:`GameFeed.committing`, :meth:`GameFeed.committed`), with no read from the store; others'
are read once per commit, however many wait. The store's notification of a commit may come
before the commit's own answer (they travel on different connections): a watch woken while a
commit of this replica on its game is in flight waits for that answer before it reads. A read
is shared only while it is in flight, and a replica's own batch is kept only while its game is
watched, so nothing is cached beyond the waiters it serves and nothing goes stale.

The watch is the only waiter the store sees for a game: an idle stream costs one future and no
Redis command. The store's guarantees hold: a notification lost (pub/sub delivers at most once)
delays a batch until the store's re-read, never drops it; every ``recheck_s`` of quiet the
watch reads the game's version, so a game that expired ends everyone waiting (GameNotFound).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core.events import Event, event_from_data
from engine.core.rules import Rules
from service.results import ProjectedBatch
from service.store.base import EventBatch, GameStore


@dataclass(frozen=True, slots=True)
class DecodedBatch:
    batch: EventBatch
    events: tuple[Event, ...]  # full, unprojected
    # What the waiters that share this batch made of it for a viewer (a seat, None:
    # spectators), so that the same viewer's share one: see project.
    projected: dict[int | None, tuple[ProjectedBatch, bool]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @property
    def version(self) -> int:
        return self.batch.version


#: Batches of consecutive versions, oldest first.
Batches = list[DecodedBatch]
#: Told each list of batches its game reaches, or the error that ended the wait (the game
#: expired, the store failed); called on the event loop, it must not block or raise.
Follower = Callable[[Batches | Exception], None]
#: A call waiting for its game's next batches: its future, or its wait ran out (None).
_Waiter = asyncio.Future[Batches | None]


def project(
    rules: Rules[Any], decoded: DecodedBatch, viewer: int | None
) -> tuple[ProjectedBatch, bool]:
    """``decoded`` as ``viewer`` may see it, and whether it ends the game: made once for every
    waiter of that viewer (ten thousand spectators' streams share one)."""
    made = decoded.projected.get(viewer)
    if made is None:
        batch = decoded.batch
        events = [rules.project(e, viewer) for e in decoded.events]
        projected = ProjectedBatch(
            batch.version, batch.seat, events, batch.resigned_seat, batch.rematch
        )
        decoded.projected[viewer] = made = (projected, projected.last)
    return made


def project_upto(rules: Rules[Any], batches: Batches, viewer: int | None) -> list[ProjectedBatch]:
    """``batches`` as ``viewer`` may see them, up to the game's last."""
    out = []
    for decoded in batches:
        projected, last = project(rules, decoded, viewer)
        out.append(projected)
        if last:
            break
    return out


@dataclass(slots=True)
class _Watch:
    """Who waits on one game, and the task waiting on the store for them."""

    after: int  # the latest version handed out
    waiters: dict[_Waiter, int] = field(default_factory=dict)  # -> the version it waits for
    followers: dict[Follower, None] = field(default_factory=dict)  # an ordered set
    local: DecodedBatch | None = None  # the latest batch this replica committed, not yet handed
    committing: int = 0  # this replica's commits on the game in flight
    settled: asyncio.Future[None] | None = None  # set when the last of them has answered
    task: asyncio.Task[None] | None = None


class GameFeed:
    def __init__(self, store: GameStore, recheck_s: float = math.inf) -> None:
        """``recheck_s``: how often a watch looks at the store while its game is quiet (the
        store's ``wait_for_version`` timeout), only to end the waits on a game that expired."""
        self._store = store
        self._recheck_s = recheck_s
        self._reads: dict[tuple[str, int], asyncio.Future[Batches]] = {}
        self._watches: dict[str, _Watch] = {}
        self._catching_up: set[asyncio.Task[None]] = set()
        self._closed = False

    def committing(self, game_id: str) -> None:
        """This replica sends a commit on the game: :meth:`committed` follows, whatever the
        store answers."""
        watch = self._watches.get(game_id)
        if watch is not None:
            watch.committing += 1

    def committed(self, game_id: str, batch: EventBatch | None, events: Sequence[Event]) -> None:
        """The store answered a commit this replica sent: ``batch`` (with its full ``events``)
        when it was written, None when it was not. When the store tells the game's watch of
        that version, the batch is handed over as it is, not read back."""
        watch = self._watches.get(game_id)
        if watch is None:
            return
        if batch is not None and batch.version > watch.after:
            watch.local = DecodedBatch(batch, tuple(events))
        if watch.committing > 0:
            watch.committing -= 1
        if watch.committing == 0 and watch.settled is not None:
            if not watch.settled.done():
                watch.settled.set_result(None)
            watch.settled = None

    async def read(self, game_id: str, from_version: int) -> Batches:
        """Batches with version >= ``from_version`` (as :meth:`GameStore.read_events`)."""
        key = (game_id, from_version)
        pending = self._reads.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._read(game_id, from_version))
            self._reads[key] = pending
            pending.add_done_callback(lambda done: self._done(key, done))
        # A waiter that goes away must not cancel the read the others wait on.
        return await asyncio.shield(pending)

    async def between(self, game_id: str, after: int, upto: int) -> Batches:
        """The batches after ``after`` up to ``upto`` (a version the game has reached): the one
        this replica committed when it is just that one, else as stored."""
        watch = self._watches.get(game_id)
        local = watch.local if watch is not None else None
        if local is not None and local.version == upto == after + 1:
            return [local]
        return [b for b in await self.read(game_id, after + 1) if b.version <= upto]

    async def moved_past(self, game_id: str, version: int) -> bool:
        """One look at the game's version: whether it is past ``version``. GameNotFound when
        the game expired."""
        return await self._store.wait_for_version(game_id, version, 0) is not None

    async def after(
        self, game_id: str, next_version: int, wait_s: float = math.inf
    ) -> Batches | None:
        """The batches from ``next_version`` on, once the game has one; None when ``wait_s``
        passes first or the feed is closed. Raises what the store's wait or read raised
        (GameNotFound: the game expired)."""
        if self._closed:
            return None
        watch = self._watches.get(game_id)
        if watch is not None and watch.after >= next_version:
            return await self.read(game_id, next_version)  # the game is there already
        if watch is None:
            watch = self._watch(game_id, next_version - 1)
        loop = asyncio.get_running_loop()
        waiter: _Waiter = loop.create_future()
        watch.waiters[waiter] = next_version
        # No timer for an endless wait (a spectator's): only the watch ends it.
        timer = loop.call_later(wait_s, _expire, waiter) if math.isfinite(wait_s) else None
        try:
            return await waiter
        finally:
            if timer is not None:
                timer.cancel()
            if watch.waiters.pop(waiter, None) is not None:  # not handed: timed out or gone
                self._end_if_unwatched(game_id, watch)

    def follow(self, game_id: str, after: int, follower: Follower) -> Callable[[], None]:
        """Tell ``follower`` the batches of each version ``game_id`` reaches past ``after``,
        until the function returned is called. A follower behind the game's watch is first
        told what it missed, once read."""
        watch = self._watches.get(game_id)
        if watch is None:
            watch = self._watch(game_id, after)
        elif watch.after > after:
            task = asyncio.get_running_loop().create_task(
                self._tell_missed(game_id, after, watch.after, follower)
            )
            self._catching_up.add(task)
            task.add_done_callback(self._catching_up.discard)
        watch.followers[follower] = None
        return lambda: self._unfollow(game_id, watch, follower)

    def counts(self) -> tuple[int, int]:
        """(games followed, calls and streams waiting for their next move) now, for the
        metrics. Called from the scraping thread: a snapshot taken while the loop changes the
        watches is taken again."""
        for _ in range(5):
            try:
                watches = list(self._watches.values())
                return len(watches), sum(len(w.waiters) + len(w.followers) for w in watches)
            except RuntimeError:  # a dict resized during the copy
                continue
        return len(self._watches), 0

    def close(self) -> None:
        """Shutdown: every waiting call's wait returns None, and every later wait at once; the
        store's waits stop (followers end by the server's own signal)."""
        self._closed = True
        watches, self._watches = self._watches, {}
        for watch in watches.values():
            if watch.task is not None:
                watch.task.cancel()
            for waiter in watch.waiters:
                if not waiter.done():
                    waiter.set_result(None)

    def _watch(self, game_id: str, after: int) -> _Watch:
        watch = self._watches[game_id] = _Watch(after)
        watch.task = asyncio.get_running_loop().create_task(self._run(game_id, watch))
        return watch

    def _unfollow(self, game_id: str, watch: _Watch, follower: Follower) -> None:
        watch.followers.pop(follower, None)
        self._end_if_unwatched(game_id, watch)

    def _end_if_unwatched(self, game_id: str, watch: _Watch) -> None:
        if watch.waiters or watch.followers:
            return
        # Nobody waits any more: the store's wait stops too (a new waiter starts a new one).
        if self._watches.get(game_id) is watch:
            del self._watches[game_id]
        if watch.task is not None:
            watch.task.cancel()

    async def _run(self, game_id: str, watch: _Watch) -> None:
        try:
            while True:
                # None: the store looked (the game is still there) and it has not moved.
                version = await self._store.wait_for_version(game_id, watch.after, self._recheck_s)
                if version is None or version <= watch.after:
                    continue
                while watch.committing and (watch.local is None or watch.local.version < version):
                    # This replica's commit has not answered yet: its batch may be this one.
                    watch.settled = asyncio.get_running_loop().create_future()
                    await watch.settled
                local = watch.local
                if local is not None and local.version == version == watch.after + 1:
                    batches = [local]
                else:
                    batches = await self.read(game_id, watch.after + 1)
                watch.local = None
                if not batches:
                    continue
                watch.after = batches[-1].version
                self._hand(watch, batches)
                if not watch.waiters and not watch.followers:
                    # Those it woke wait again on a new watch, if on anything.
                    if self._watches.get(game_id) is watch:
                        del self._watches[game_id]
                    return
        except Exception as failed:  # GameNotFound (expired), StoreUnavailable: everyone's
            if self._watches.get(game_id) is watch:
                del self._watches[game_id]
            for waiter in watch.waiters:
                if not waiter.done():
                    waiter.set_exception(failed)
                    waiter.exception()  # retrieved: its caller may be cancelled before it looks
            watch.waiters.clear()
            for follower in list(watch.followers):
                follower(failed)

    @staticmethod
    def _hand(watch: _Watch, batches: Batches) -> None:
        """``batches`` (from ``watch.after`` + 1 on) to every follower, and to every waiter
        whose version they reach."""
        last = batches[-1].version
        for waiter, wanted in list(watch.waiters.items()):
            if wanted > last:
                continue
            del watch.waiters[waiter]
            if not waiter.done():
                # Usually all of them: each waiter is handed the same list then.
                waiter.set_result(
                    batches
                    if batches[0].version >= wanted
                    else [b for b in batches if b.version >= wanted]
                )
        for follower in list(watch.followers):
            follower(batches)

    async def _tell_missed(self, game_id: str, after: int, upto: int, follower: Follower) -> None:
        try:
            batches: Batches | Exception = await self.between(game_id, after, upto)
        except Exception as failed:
            batches = failed
        watch = self._watches.get(game_id)
        if watch is not None and follower in watch.followers and batches:
            follower(batches)

    async def _read(self, game_id: str, from_version: int) -> Batches:
        batches = await self._store.read_events(game_id, from_version)
        return [DecodedBatch(b, tuple(event_from_data(e) for e in b.events)) for b in batches]

    def _done(self, key: tuple[str, int], done: asyncio.Future[Batches]) -> None:
        if self._reads.get(key) is done:
            del self._reads[key]
        if not done.cancelled():
            done.exception()  # retrieved: every waiter may have gone before it failed


def _expire(waiter: _Waiter) -> None:
    if not waiter.done():
        waiter.set_result(None)
