"""The sweep every replica runs over the store's index of running tournaments (as
:mod:`service.scheduler` sweeps the games' deadlines): take what is due, leased, and advance
every tournament held (:class:`~.advance.Advancer`) each sweep, renewing its lease, until it
ends (then it leaves the index).

A lease is what keeps replicas from all advancing one tournament at once (each would be
correct, the store's steps being atomic, only wasteful, and each would call the tournament's
called bots); a replica that dies holding one leaves it to run out, and the next sweep of any
replica takes the tournament up.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import structlog

from service.background import BackgroundLoop
from service.errors import StoreUnavailable
from service.tournaments.advance import Advancer
from service.tournaments.store import TournamentNotFound, TournamentStore

log = structlog.get_logger("tricktable.tournaments")

#: How long a replica holds a tournament it took: longer than one step takes.
DEFAULT_LEASE_S = 5.0
#: How soon a running tournament is looked at again (its games' ends are counted this late).
DEFAULT_POLL_S = 0.1
DEFAULT_BATCH = 50


class TournamentRunner(BackgroundLoop):
    task_name = "tournaments"

    def __init__(
        self,
        advancer: Advancer,
        store: TournamentStore,
        *,
        poll_s: float = DEFAULT_POLL_S,
        lease_s: float = DEFAULT_LEASE_S,
        batch: int = DEFAULT_BATCH,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._advancer = advancer
        self._store = store
        self._poll_ms = int(poll_s * 1000)
        self._lease_ms = int(lease_s * 1000)
        self._batch = batch
        self._clock = clock
        #: Tournaments this replica holds: advanced each sweep, their leases renewed, until
        #: they end (so one replica, not each in turn, plays a tournament's called bots).
        self._held: set[str] = set()

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
        """Take what is due (one batch) and advance every tournament held; how many."""
        now_ms = int(self._clock() * 1000)
        self._held.update(await self._store.due(now_ms, self._batch, self._lease_ms))
        held = sorted(self._held)
        await asyncio.gather(*(self._handle(tid) for tid in held))
        return len(held)

    async def _handle(self, tournament_id: str) -> None:
        try:
            running = await self._advancer.advance(tournament_id)
        except TournamentNotFound:
            running = False
        except StoreUnavailable as exc:
            log.warning("advancing failed", tournament_id=tournament_id, why=exc.message)
            return  # tried again next sweep, or by another replica once the lease runs out
        except Exception:
            log.exception("advancing failed", tournament_id=tournament_id)
            return
        if running:  # held on: the lease renewed
            await self._store.look_again(tournament_id, int(self._clock() * 1000) + self._lease_ms)
        else:
            self._held.discard(tournament_id)
            await self._store.look_again(tournament_id, None)
