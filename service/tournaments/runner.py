"""The sweep every replica runs over the store's index of running tournaments (as
:mod:`service.scheduler` sweeps the games' deadlines): take what is due, leased, and advance
each tournament held (:class:`~.advance.Advancer`), renewing its lease, until it ends (then it
leaves the index).

A tournament held is advanced again when there is something to do: when what its last step
left it waiting for (:class:`~.advance.Watch`: one of its games under way moved, or the
tournament itself did, on any replica) happens, and otherwise every ``recheck_s`` (a lost
notification, and its lease's renewal, well inside the lease). The waits are the store's
notifications (on Redis, the replica's one subscription): a tournament whose games are all
waiting for their players costs the store no command between those re-reads. No tournament is
advanced more often than once a sweep (``poll_s``), however busy its games.

A lease is what keeps replicas from all advancing one tournament at once (each would be
correct, the store's steps being atomic, only wasteful, and each would call the tournament's
called bots); a replica that dies holding one leaves it to run out, and the next sweep of any
replica takes the tournament up.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Coroutine
from typing import Any

import structlog

from service.background import BackgroundLoop
from service.errors import StoreUnavailable
from service.store.base import GameStore
from service.tournaments.advance import Advancer, Watch
from service.tournaments.store import TournamentNotFound, TournamentStore

log = structlog.get_logger("tricktable.tournaments")

#: How long a replica holds a tournament it took: longer than one step takes.
DEFAULT_LEASE_S = 5.0
#: How often the index is looked at, and the least time between two steps of one tournament
#: (its games' ends are counted at most this late).
DEFAULT_POLL_S = 0.1
#: How long a held tournament with nothing to wait for is left unread (well inside its lease).
DEFAULT_RECHECK_S = 1.0
DEFAULT_BATCH = 50


class TournamentRunner(BackgroundLoop):
    task_name = "tournaments"

    def __init__(
        self,
        advancer: Advancer,
        store: TournamentStore,
        games: GameStore,
        *,
        poll_s: float = DEFAULT_POLL_S,
        recheck_s: float = DEFAULT_RECHECK_S,
        lease_s: float = DEFAULT_LEASE_S,
        batch: int = DEFAULT_BATCH,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._advancer = advancer
        self._store = store
        self._games = games
        self._poll_ms = int(poll_s * 1000)
        #: How long a held tournament is left unread at most (``math.inf``: only when woken;
        #: tests set it so, to show what wakes it).
        self.recheck_s = recheck_s
        self._lease_ms = int(lease_s * 1000)
        self._batch = batch
        self._clock = clock
        #: Tournaments this replica holds: advanced each sweep, their leases renewed, until
        #: they end (so one replica, not each in turn, plays a tournament's called bots).
        self._held: set[str] = set()
        #: Each held tournament's wait for its next step (done: advance it), and when it is
        #: read anyway (the loop's clock); none: advance it at the next sweep.
        self._waits: dict[str, asyncio.Task[None]] = {}
        self._read_at: dict[str, float] = {}

    async def stop(self) -> None:
        await super().stop()
        for task in self._waits.values():
            task.cancel()
        self._waits.clear()  # started again, each held tournament is read at its first sweep

    async def _run(self) -> None:
        while True:
            try:
                await self.sweep()
            except StoreUnavailable as exc:
                log.warning("tournament sweep failed", why=exc.message)
            except Exception:  # a bug must not stop every tournament of this replica
                log.exception("tournament sweep failed")
            await asyncio.sleep(self._poll_ms / 1000)

    async def sweep(self) -> int:
        """Take what is due (one batch: new, or asked to be looked at again) and advance it
        and every tournament held that has something to do; how many were advanced."""
        now_ms = int(self._clock() * 1000)
        taken = set(await self._store.due(now_ms, self._batch, self._lease_ms))
        self._held.update(taken)
        now = asyncio.get_running_loop().time()
        ready = sorted(t for t in self._held if t in taken or self._woken(t, now))
        await asyncio.gather(*(self._handle(tid) for tid in ready))
        return len(ready)

    def _woken(self, tournament_id: str, now: float) -> bool:
        wait = self._waits.get(tournament_id)
        return wait is None or wait.done() or now >= self._read_at[tournament_id]

    def _wait(self, tournament_id: str, watch: Watch) -> None:
        """Wait, from now, for what ``watch`` says the tournament's next step waits for."""
        waits: list[Coroutine[Any, Any, object]] = [
            self._store.wait(tournament_id, watch.version, math.inf)
        ]
        waits += [self._games.wait_for_version(g, v, math.inf) for g, v in watch.games.items()]
        self._waits[tournament_id] = asyncio.get_running_loop().create_task(_first_of(waits))
        self._read_at[tournament_id] = asyncio.get_running_loop().time() + self.recheck_s

    def _unwait(self, tournament_id: str) -> None:
        wait = self._waits.pop(tournament_id, None)
        if wait is not None:
            wait.cancel()
        self._read_at.pop(tournament_id, None)

    async def _handle(self, tournament_id: str) -> None:
        self._unwait(tournament_id)  # none until this step says what the next one waits for
        try:
            running = await self._advancer.advance(tournament_id)
        except TournamentNotFound:
            running = None
        except StoreUnavailable as exc:
            log.warning("advancing failed", tournament_id=tournament_id, why=exc.message)
            return  # tried again next sweep, or by another replica once the lease runs out
        except Exception:
            log.exception("advancing failed", tournament_id=tournament_id)
            return
        if running is not None:  # held on: the lease renewed
            await self._store.look_again(tournament_id, int(self._clock() * 1000) + self._lease_ms)
            self._wait(tournament_id, running)
        else:
            self._held.discard(tournament_id)
            await self._store.look_again(tournament_id, None)


async def _first_of(waits: list[Coroutine[Any, Any, object]]) -> None:
    """Until the first of ``waits`` returns or raises (then the others are cancelled). What one
    raised (the game gone, the store down) is left to the step it wakes, which reads the store
    and meets it there."""
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
    for task in done:
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not log it as never retrieved
