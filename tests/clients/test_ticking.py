"""``tricktable play``'s ticking clocks, from an injected clock (no sleeping): the server time
learnt from a view, the clocks' text at a given server time, the prompt's time left, and the
lines redrawn on a terminal while the player waits or types."""

from __future__ import annotations

import io
import time
from collections.abc import Callable

from rich.console import Console
from tricktable.cli.play import prompt
from tricktable.cli.ticking import Ticking, clocks_line, waiting_line
from tricktable.render import Seats
from tricktable.server_time import ServerTime
from tricktable.v1 import views_pb2

#: Server time when the test's view was taken; the local clock is 5 s behind the server's.
T = 1_800_000_000_000
BEHIND = 5_000


class Clock:
    """A local clock the test moves by hand."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


def clocked_view(viewer: int = 0) -> views_pb2.View:
    """Seat 1 is to act with 60 s of move time and a 30 s bank; seat 0's clock is stopped."""
    view = views_pb2.View(viewer=viewer)
    view.to_act.append(1)
    view.clocks.add(seat=0, move_ms_left=60_000, bank_ms_left=30_000)
    view.clocks.add(
        seat=1, move_ms_left=60_000, bank_ms_left=30_000, running=True, deadline_ms=T + 90_000
    )
    return view


def test_server_time_is_learnt_from_a_running_clock() -> None:
    local = Clock(T - BEHIND)
    server = ServerTime(local)
    assert server.now_ms() == T - BEHIND  # nothing learnt yet: the local clock
    server.learn(clocked_view())
    assert server.offset_ms == BEHIND and server.now_ms() == T
    local.ms += 1_234
    assert server.now_ms() == T + 1_234
    # A stopped clock, or one already at zero, teaches nothing.
    spent = views_pb2.View()
    spent.clocks.add(seat=0, running=True, deadline_ms=T + 999_999)
    spent.clocks.add(seat=1, move_ms_left=5_000, deadline_ms=T + 999_999)
    server.learn(spent)
    assert server.offset_ms == BEHIND


def plain(text: object) -> str:
    return str(text)


def test_the_clocks_count_down_from_the_deadline_at_the_given_server_time() -> None:
    view = clocked_view()
    seats = Seats(0, ["me", "bob"])
    assert (
        plain(clocks_line(view, seats, T)) == "Clocks: you 1:00 +0:30 · seat 1 (bob) ▶ 1:00 +0:30"
    )
    assert plain(clocks_line(view, seats, T + 17_000)).endswith("seat 1 (bob) ▶ 0:43 +0:30")
    # Past the move time the bank runs, and tenths show under ten seconds.
    assert plain(clocks_line(view, seats, T + 80_600)).endswith("▶ 0:00.0 +0:09.4")
    assert plain(clocks_line(view, seats, T + 95_000)).endswith("▶ 0:00.0")  # never below zero
    line = plain(waiting_line(view, seats, T + 17_000))
    assert line.startswith("Waiting for seat 1 (bob).") and "▶ 0:43 +0:30" in line


def test_the_prompt_counts_the_time_left_down_to_the_server_time() -> None:
    view = clocked_view()
    assert prompt(view, 1) == "Your move (1:30 left)> "  # as the view was taken
    assert prompt(view, 1, T + 17_000) == "Your move (1:13 left)> "
    assert prompt(view, 1, T + 85_000) == "Your move (0:05.0 left)> "
    assert prompt(view, 0, T) == "Your move> "  # that seat's clock is not running


def terminal() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=100, color_system=None), out


def wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10  # only keeps a broken build from hanging
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.002)


def test_at_the_prompt_the_line_above_is_rewritten_in_place_as_time_passes() -> None:
    console, out = terminal()
    local = Clock(T)
    ticking = Ticking(console, Seats(1, ["ann", "me"]), ServerTime(local), interval_s=0.005)
    with ticking.at_prompt(clocked_view(viewer=1)):
        console.file.write("Your move> ")  # as console.input would
        assert out.getvalue().startswith("Clocks: seat 0 (ann) 1:00 +0:30 · you ▶ 1:00 +0:30\n")
        local.ms = T + 17_000
        wait_for(lambda: "you ▶ 0:43 +0:30" in out.getvalue())
    written = out.getvalue()
    # Each redraw: save the cursor, up a line, clear it, the clocks, the cursor back.
    redraw = "\x1b7\x1b[1A\r\x1b[2KClocks: seat 0 (ann) 1:00 +0:30 · you ▶ 0:43 +0:30\x1b8"
    assert redraw in written and written.index("Your move> ") < written.index(redraw)
    after = len(out.getvalue())
    time.sleep(0.05)
    assert len(out.getvalue()) == after  # stopped once the player answered


def test_while_waiting_a_live_line_says_whom_for_and_is_erased() -> None:
    console, out = terminal()
    ticking = Ticking(console, Seats(0, ["me", "bob"]), ServerTime(Clock(T)), interval_s=0.005)
    with ticking.waiting(clocked_view()):
        wait_for(lambda: "Waiting for seat 1 (bob)." in out.getvalue())
    assert "▶ 1:00 +0:30" in out.getvalue()


def test_nothing_ticks_on_a_pipe_nor_without_a_running_clock() -> None:
    out = io.StringIO()
    piped = Console(file=out, width=100)  # not a terminal
    ticking = Ticking(piped, Seats(0, ["me", "bob"]), ServerTime(Clock(T)), interval_s=0.001)
    with ticking.at_prompt(clocked_view()), ticking.waiting(clocked_view()):
        time.sleep(0.02)
    console, shown = terminal()
    stopped = clocked_view()
    stopped.clocks[1].running = False
    ticking = Ticking(console, Seats(0, ["me", "bob"]), ServerTime(Clock(T)), interval_s=0.001)
    with ticking.at_prompt(stopped), ticking.waiting(stopped):
        time.sleep(0.02)
    # A view this seat alone is to act on (its move already sent) shows no waiting line.
    ticking = Ticking(console, Seats(1, ["ann", "me"]), ServerTime(Clock(T)), interval_s=0.001)
    with ticking.waiting(clocked_view(viewer=1)):
        time.sleep(0.02)
    assert out.getvalue() == "" and shown.getvalue() == ""
