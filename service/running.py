"""Run a server on its own event loop in a background thread: for tests, the service benchmark
and programs that embed Tricktable. Clients then talk to it over a real port like any other."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from types import TracebackType
from typing import Any, TypeVar

from service.config import ServerConfig, host_port
from service.server import Server
from service.store.base import GameStore

T = TypeVar("T")


class ServerThread:
    def __init__(
        self,
        config: ServerConfig | None = None,
        store_factory: Callable[[], GameStore] | None = None,
    ) -> None:
        self.config = config or ServerConfig(port=0, grace_s=1.0, stream_wait_s=0.2)
        self._store_factory = store_factory
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.server: Server | None = None

    @property
    def address(self) -> str:
        assert self.server is not None
        return host_port(self.config.host, self.server.port)

    def call(self, make: Callable[[], Coroutine[Any, Any, T]], timeout: float = 30.0) -> T:
        """Run a coroutine on the server's loop (to reach the store from a test)."""
        return asyncio.run_coroutine_threadsafe(make(), self._loop).result(timeout)

    def start(self) -> ServerThread:
        self._thread.start()

        async def start() -> Server:
            store = self._store_factory() if self._store_factory else None
            server = Server(self.config, store)
            await server.start()
            return server

        self.server = self.call(start)
        return self

    def stop(self) -> None:
        """Stop the server and its loop; again, when a test stopped it already, does nothing."""
        if self._loop.is_closed():
            return
        if self.server is not None:
            server = self.server
            self.call(server.stop)
            self.server = None
        self.call(_finish_pending_tasks)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


async def _finish_pending_tasks() -> None:
    """Let the RPC tasks grpc left behind (streams whose clients went away) end on this loop,
    rather than be destroyed pending when the loop closes."""
    await asyncio.sleep(0)
    pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    await asyncio.get_running_loop().shutdown_asyncgens()
