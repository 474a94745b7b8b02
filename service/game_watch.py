"""What a replica's play streams share: one wait per game for the versions it reaches.

Every seat of a table holds a play stream, and each must hear of the others' moves (from any
replica: the store's notifications wake this replica's waiters). :class:`GameWatch` keeps, for
each game some stream follows, ONE task waiting on the store (``wait_for_version``) and tells
each follower every version the game reaches, in a plain call. A stream that waited on the
store itself made a task wake, a future and a timer per move for every seat, its own moves
included (a commit wakes every waiter of its game); sharing the wait makes one per game, and a
follower is told with a call that costs nothing when it already knows the version (under
callgrind, the stream benchmark's server ran 2-3% fewer instructions per move).

The wait keeps the store's guarantees: a notification lost (pub/sub delivers at most once)
delays a version until the store's re-read, never drops it; every ``recheck_s`` of quiet the
wait reads the game's version, so a game that expired ends its followers (GameNotFound).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from service.store.base import GameStore

#: Told a version the game reached, or the error that ended the wait (the game expired, the
#: store failed); called on the event loop, it must not block or raise.
Follower = Callable[[int | Exception], None]


@dataclass(slots=True)
class _Watch:
    """The followers of one game, and the task waiting on the store for them."""

    after: int  # the latest version told
    followers: dict[Follower, None] = field(default_factory=dict)  # an ordered set
    task: asyncio.Task[None] | None = None


class GameWatch:
    def __init__(self, store: GameStore, recheck_s: float) -> None:
        """``recheck_s``: how long the wait lasts before it reads the game's version itself."""
        self._store = store
        self._recheck_s = recheck_s
        self._watches: dict[str, _Watch] = {}

    def follow(self, game_id: str, after: int, follower: Follower) -> Callable[[], None]:
        """Tell ``follower`` each version ``game_id`` reaches past ``after`` (not every one: a
        follower that falls behind is told the latest), until the function returned is
        called. A game already watched past ``after`` is told at once, before this returns."""
        watch = self._watches.get(game_id)
        if watch is None:
            watch = self._watches[game_id] = _Watch(after)
            watch.task = asyncio.get_running_loop().create_task(self._wait(game_id, watch))
        elif watch.after > after:
            follower(watch.after)
        watch.followers[follower] = None
        return lambda: self._leave(game_id, watch, follower)

    def close(self) -> None:
        """Shutdown: stop every wait (the followers end by the server's own signal)."""
        watches, self._watches = self._watches, {}
        for watch in watches.values():
            if watch.task is not None:
                watch.task.cancel()

    def _leave(self, game_id: str, watch: _Watch, follower: Follower) -> None:
        watch.followers.pop(follower, None)
        if not watch.followers and self._watches.get(game_id) is watch:
            del self._watches[game_id]  # nobody follows: the store's wait stops too
            if watch.task is not None:
                watch.task.cancel()

    async def _wait(self, game_id: str, watch: _Watch) -> None:
        try:
            while True:
                version = await self._store.wait_for_version(game_id, watch.after, self._recheck_s)
                if version is not None and version > watch.after:
                    watch.after = version
                    for follower in list(watch.followers):
                        follower(version)
        except Exception as failed:  # the game expired, the store went away: every follower's
            if self._watches.get(game_id) is watch:
                del self._watches[game_id]
            for follower in list(watch.followers):
                follower(failed)
