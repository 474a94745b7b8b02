"""Health that follows the store: readiness and liveness as the gRPC health service tells them.

``""`` and ``tricktable.v1.GameService`` say whether this replica can serve games now: they go
NOT_SERVING while the store cannot be reached (every call would fail with UNAVAILABLE) and
SERVING again once it answers, so a readiness probe takes the replica out of rotation and back.
:data:`LIVENESS` says only that the process serves: a liveness probe on it does not restart every
replica while Redis is down, which would not bring Redis back.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable

import structlog
from grpc_health.v1 import health, health_pb2

from service.errors import StoreUnavailable
from service.store.base import GameStore

log = structlog.get_logger("tricktable.health")

#: The health service name a liveness probe asks: SERVING from start to shutdown.
LIVENESS = "liveness"
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class StoreHealth:
    """Pings the store every ``interval_s`` seconds and sets the readiness names to match."""

    def __init__(
        self,
        servicer: health.aio.HealthServicer,
        store: GameStore,
        names: Iterable[str],
        interval_s: float,
    ) -> None:
        self._servicer = servicer
        self._store = store
        self._names = tuple(names)
        self._interval_s = interval_s
        self._task: asyncio.Task[None] | None = None
        self.serving = False

    async def start(self) -> None:
        """Everything SERVING (the caller has just reached the store), then follow it."""
        await self._servicer.set(LIVENESS, SERVING)
        await self._set(True)
        if self._interval_s > 0:
            self._task = asyncio.get_running_loop().create_task(self._follow())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _set(self, serving: bool) -> None:
        self.serving = serving
        for name in self._names:
            await self._servicer.set(name, SERVING if serving else NOT_SERVING)

    async def check(self) -> bool:
        """Whether the store answers a ping within the interval (or 1 s)."""
        try:
            await asyncio.wait_for(self._store.ping(), max(self._interval_s, 1.0))
        except (StoreUnavailable, TimeoutError):
            return False
        return True

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(self._interval_s)
            reachable = await self.check()
            if reachable != self.serving:
                log.warning("store reachable" if reachable else "store unreachable: not serving")
                await self._set(reachable)
