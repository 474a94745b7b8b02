"""The server's clock as seen from here, for drawing seat clocks that tick.

A running seat clock (``View.clocks``) has its deadline in server time (milliseconds since the
Unix epoch) and the time it had left when the view was taken. When a view arrives, the server's
"now" was its deadline minus that time left, so

    offset = (deadline_ms - move_ms_left - bank_ms_left) - local time at arrival

(a little low by the answer's travel time: a clock shows a few milliseconds too many, never too
few). The time left at any later moment is then ``deadline_ms - (local time + offset)``, which
holds whatever this machine's clock says, since only its own differences count. The web client
(clients/web/src/clocks.ts) does the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tricktable.v1 import views_pb2


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


class ServerTime:
    """Server time minus local time, learnt from the views that arrive (0 until one had a
    running clock). ``local_ms`` is the local clock (injected by tests)."""

    def __init__(self, local_ms: Callable[[], int] = wall_ms) -> None:
        self.offset_ms = 0
        self.local_ms = local_ms

    def learn(self, view: views_pb2.View, arrived_ms: int | None = None) -> None:
        """Learn the offset from a view that has just arrived. A clock already at zero only
        says the server is past its deadline, so it teaches nothing."""
        arrived = self.local_ms() if arrived_ms is None else arrived_ms
        for clock in view.clocks:
            left = clock.move_ms_left + clock.bank_ms_left
            if clock.running and left > 0:
                self.offset_ms = clock.deadline_ms - left - arrived
                return

    def now_ms(self) -> int:
        return self.local_ms() + self.offset_ms
