"""Move notifications: one Redis subscription per replica wakes every in-process turn waiter.

The commit script publishes the new version on ``tt:{game_id}:moved`` (:func:`moved_channel`).
A replica keeps ONE pattern subscription (:data:`PATTERN`) on a connection of its own and wakes
the waiters of the game named in each message: a wait then costs no Redis connection and no
round trip, where a blocking XREAD per waiting call held a connection each and read the whole
event batch only to learn its version.

Pub/sub delivers at most once: a message sent while the subscriber is (re)connecting is lost.
So a waiter is only ever delayed, never stuck: :meth:`MoveNotifier.wait` gives up after its
timeout (the caller then reads the version itself), and every (re)subscription wakes all
waiters to read it at once, since messages may have been missed while there was none.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import Any

import structlog
from redis.exceptions import RedisError

from service.store.redis_pipe import PipelinedRedis

log = structlog.get_logger("tricktable.store")

#: The channel pattern a replica subscribes to (Redis ACLs must allow it: ``&tt:*:moved``).
PATTERN = "tt:*:moved"
_PREFIX = b"tt:{"
_SUFFIX = b"}:moved"
#: Games whose latest notified version a replica remembers (a waiter that arrives after the
#: notification it wants returns at once); older ones only cost a waiter its timeout.
REMEMBERED_GAMES = 65536
#: A woken waiter must read the version itself: the subscription was (re)established.
RECHECK = -1
_RETRY_S = (0.05, 0.1, 0.25, 0.5, 1.0)


def moved_channel(game_id: str) -> str:
    return f"tt:{{{game_id}}}:moved"


class MoveNotifier:
    """Versions committed to games, as their notifications arrive; waits on them.

    Started lazily by the first :meth:`wait` (it needs the running loop); :meth:`close` stops
    it. Safe only on the loop that started it, like the client it reads from.
    """

    def __init__(self, pipe: PipelinedRedis | None, remembered: int = REMEMBERED_GAMES) -> None:
        """``pipe``: the client whose server to subscribe to (None: a subclass that subscribes
        its own way). Messages are parsed and handled as they arrive, in the connection's
        callback, with no task in between."""
        self._pipe = pipe
        self._remembered = remembered
        self._latest: dict[str, int] = {}  # insertion order = least recently notified first
        self._waiters: dict[str, list[asyncio.Future[int | None]]] = {}
        self._task: asyncio.Task[None] | None = None
        self.subscribed = asyncio.Event()  # set while the subscription is live (tests wait on it)

    def latest(self, game_id: str) -> int | None:
        return self._latest.get(game_id)

    async def wait(self, game_id: str, after: int, timeout_s: float) -> int | None:
        """A version of ``game_id`` later than ``after`` once one is notified; None when
        ``timeout_s`` (may be ``math.inf``) passes first or notifications may have been missed
        (RECHECK): the caller then reads the version from Redis."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())
        known = self._latest.get(game_id)
        if known is not None and known > after:
            return known
        if not await self._follow(game_id, timeout_s):
            return None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while True:
            future: asyncio.Future[int | None] = loop.create_future()
            waiters = self._waiters.setdefault(game_id, [])
            waiters.append(future)
            # No timer for an infinite wait (an idle event stream): only a notification or a
            # resubscription (RECHECK) ends it.
            timer = loop.call_at(deadline, _expire, future) if math.isfinite(deadline) else None
            try:
                version = await future
            finally:
                if timer is not None:
                    timer.cancel()
                # Woken by a notification, its list is gone already; timed out or cancelled,
                # it is still listed.
                _discard(self._waiters, game_id, future)
            if version is None or version == RECHECK:
                return None
            # Several notifications may have been read since this one woke us: the latest
            # spares the caller a state it would only pass through.
            version = max(version, self._latest.get(game_id, version))
            if version > after:
                return version
            # A notification of a version the caller already has (a waiter of another seat,
            # further behind, shares the game's list): wait on.

    async def _follow(self, game_id: str, timeout_s: float) -> bool:
        """Whether this replica hears the game's notifications already (the pattern
        subscription hears every game's). A notifier that subscribes per game (on a cluster,
        :class:`service.store.redis_cluster.ShardedMoveNotifier`) subscribes here and says
        False: what was published before, the caller must read."""
        return True

    def notify(self, game_id: str, version: int) -> None:
        """Record ``version`` of ``game_id`` and wake its waiters. A version no later than one
        already notified wakes no one (every waiter waits for a later one): the subscription's
        echo of a commit this replica has notified itself (:meth:`RedisStore.commit`)."""
        latest = self._latest.pop(game_id, None)
        self._latest[game_id] = version if latest is None else max(latest, version)
        if latest is not None and version <= latest:
            return
        if len(self._latest) > self._remembered:
            del self._latest[next(iter(self._latest))]
        for future in self._waiters.pop(game_id, ()):
            if not future.done():
                future.set_result(version)

    def _wake_all(self) -> None:
        waiting, self._waiters = self._waiters, {}
        for futures in waiting.values():
            for future in futures:
                if not future.done():
                    future.set_result(RECHECK)

    def handle(self, message: Any) -> None:
        """One reply read on the subscription. Anything but a well-formed move notification is
        logged and ignored: a stray publish on the channel must not stop the subscriber."""
        try:
            kind, _, channel, data = message
            if kind != b"pmessage":
                raise ValueError(f"unexpected {kind!r}")
            if not (channel.startswith(_PREFIX) and channel.endswith(_SUFFIX)):
                raise ValueError(f"unexpected channel {channel!r}")
            game_id = channel[len(_PREFIX) : -len(_SUFFIX)].decode()
            version = int(data)
            if version < 0 or not game_id:
                raise ValueError("no game or a negative version")
        except (TypeError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
            log.warning(
                "malformed move notification ignored", reply=repr(message)[:200], why=str(exc)
            )
            return
        self.notify(game_id, version)

    async def _run(self) -> None:
        """Keep the subscription: subscribe, and after it drops, wake the waiters, back off
        and subscribe again, until cancelled."""
        failures = 0  # in a row, for the back-off; reset once a subscription is live
        while True:
            try:
                await self._subscribed()  # returns only by raising, when the subscription is gone
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as exc:
                if self.subscribed.is_set():  # it was live: a new drop, not a failing retry
                    failures = 0
                self.subscribed.clear()
                self._wake_all()  # waiters re-read: notifications may be missed until resubscribed
                delay = _RETRY_S[min(failures, len(_RETRY_S) - 1)]
                failures += 1
                log.warning("move notifications lost; resubscribing", why=repr(exc), retry_s=delay)
                await asyncio.sleep(delay)
            finally:
                self.subscribed.clear()

    def _live(self) -> None:
        """The subscription is (re)established: anything published before now was missed, so
        every waiter re-reads its game's version."""
        self.subscribed.set()
        self._wake_all()

    async def _subscribed(self) -> None:
        """One pattern subscription, on a connection of its own, until it drops."""
        assert self._pipe is not None
        subscription = await self._pipe.psubscribe(PATTERN, self.handle)
        try:
            self._live()
            raise await subscription.closed()
        finally:
            subscription.close()

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._wake_all()


def _expire(future: asyncio.Future[int | None]) -> None:
    if not future.done():
        future.set_result(None)


def _discard(
    waiters: dict[str, list[asyncio.Future[int | None]]], game_id: str, future: Any
) -> None:
    listed = waiters.get(game_id)
    if listed is None:
        return
    with contextlib.suppress(ValueError):
        listed.remove(future)
    if not listed:
        del waiters[game_id]
