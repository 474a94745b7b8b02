"""Clocks that tick in the terminal while a player waits for the others or thinks.

The time left is drawn from the server's deadlines and the estimated server time
(:class:`tricktable.server_time.ServerTime`), about once a second:

* while the game waits on other seats, a line under the table (rich's ``Live``, erased when the
  next message comes) says whom it waits for and every clock;
* while the player types a move, the line of clocks printed just above the prompt is rewritten
  in place (the cursor saved and restored around it), so the prompt and what is typed stay as
  they are.

Only on a terminal, and only when a clock runs: a pipe or a file gets no redrawn lines.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

from rich.console import Console
from rich.live import Live
from rich.text import Text

from tricktable.render import Seats, clock_text
from tricktable.server_time import ServerTime
from tricktable.v1 import views_pb2

#: Save the cursor, go up a line to its start and clear it; then restore the cursor.
_UP_AND_CLEAR = "\x1b7\x1b[1A\r\x1b[2K"
_RESTORE = "\x1b8"


def clocks_line(view: views_pb2.View, seats: Seats, now_ms: int) -> Text:
    """Every seat's clock at server time ``now_ms``: ``Clocks: you ▶ 0:43 +0:30 · seat 1 1:00``."""
    line = Text("Clocks: ", style="dim")
    for n, clock in enumerate(sorted(view.clocks, key=lambda c: c.seat)):
        if n:
            line.append(" · ", style="dim")
        line.append(f"{seats.label(clock.seat)} ")
        line.append(clock_text(clock, now_ms), style="bold" if clock.running else None)
    return line


def waiting_line(view: views_pb2.View, seats: Seats, now_ms: int) -> Text:
    """Whom the game waits for, then every clock at server time ``now_ms``."""
    line = Text(f"Waiting for {seats.many(waited(view, seats))}.  ", style="dim")
    return line.append_text(clocks_line(view, seats, now_ms))


def waited(view: views_pb2.View, seats: Seats) -> list[int]:
    """The seats other than the viewer that the game waits on."""
    return [s for s in view.to_act if s != seats.viewer]


def running(view: views_pb2.View | None) -> bool:
    return view is not None and not view.finished and any(c.running for c in view.clocks)


class _Fresh:
    """A renderable drawn anew at each refresh of a ``Live``."""

    def __init__(self, draw: Callable[[], Text]) -> None:
        self.draw = draw

    def __rich__(self) -> Text:
        return self.draw()


class Ticking:
    """The ticking clocks of one player's screen. ``interval_s``: how often they are redrawn."""

    def __init__(
        self, console: Console, seats: Seats, server_time: ServerTime, interval_s: float = 1.0
    ) -> None:
        self.console = console
        self.seats = seats
        self.server_time = server_time
        self.interval_s = interval_s

    def _ticks(self, view: views_pb2.View | None) -> bool:
        return running(view) and self.console.is_terminal and not self.console.is_dumb_terminal

    @contextmanager
    def waiting(self, view: views_pb2.View | None) -> Iterator[None]:
        """While the game waits on others: a status line, redrawn, erased at the end."""
        if view is None or not self._ticks(view) or not waited(view, self.seats):
            yield  # (a view this seat alone is to act on was answered: the next one comes)
            return
        fresh = _Fresh(lambda: waiting_line(view, self.seats, self.server_time.now_ms()))
        with Live(
            fresh,
            console=self.console,
            refresh_per_second=1 / self.interval_s,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        ):
            yield

    @contextmanager
    def at_prompt(self, view: views_pb2.View) -> Iterator[None]:
        """While the player types: the clocks line above the prompt, rewritten in place."""
        if not self._ticks(view):
            yield
            return

        def draw() -> Text:
            return clocks_line(view, self.seats, self.server_time.now_ms())

        self.console.print(draw(), soft_wrap=True)
        stop = threading.Event()
        thread = threading.Thread(target=self._redraw, args=(draw, stop), daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join(2 * self.interval_s)

    def _redraw(self, draw: Callable[[], Text], stop: threading.Event) -> None:
        while not stop.wait(self.interval_s):
            ansi = self._ansi(draw())
            if stop.is_set():  # the player answered meanwhile: the cursor has moved on
                return
            self.console.file.write(f"{_UP_AND_CLEAR}{ansi}{_RESTORE}")
            self.console.file.flush()

    def _ansi(self, text: Text) -> str:
        """The line with the console's colours, rendered apart (the console itself is busy
        reading the player's input)."""
        out = io.StringIO()
        apart = Console(
            file=out,
            force_terminal=True,
            color_system=cast(Any, self.console.color_system),  # rich types it as a Literal
            width=self.console.width,
        )
        apart.print(text, end="", soft_wrap=True)
        return out.getvalue()
