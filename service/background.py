"""A replica's background loop (the deadline sweep, the tournaments' sweep, the ladders): one
task, started once, cancelled and awaited on shutdown. Each loop says only what it does."""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod


class BackgroundLoop(ABC):
    #: The task's name (asyncio task names show in debug output and tracebacks).
    task_name = "background"
    _task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Run the loop on the running event loop, once (a second start does nothing)."""
        if self._task is None and self.wanted():
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.task_name)

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def wanted(self) -> bool:
        """Whether this replica runs the loop at all (a switch the operator may turn off)."""
        return True

    @abstractmethod
    async def _run(self) -> None:
        """The loop: until cancelled, never raising (a failed round is logged and retried)."""
