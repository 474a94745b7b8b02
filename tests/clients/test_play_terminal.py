"""``tricktable play`` as a person sees it in a real terminal (a pty) against a real server:
with a clock, a player who does not answer sees the server's move for them as it is made and
the prompt come back for the next decision, without pressing a key; ``q`` asks before leaving;
bid cards are shown with the bid they make and sent only once confirmed."""

from __future__ import annotations

import contextlib
import io
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console
from tricktable import facts
from tricktable.cli import build_parser, play
from tricktable.legal import lay_aside_move
from tricktable.move_text import lay_aside_text

from service.running import ServerThread
from tests.servers import running_server

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b(\[[0-9;?]*[A-Za-z]|[78]|\][^\x07]*\x07)")


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    with running_server(bot_delay_s=0.0) as served:
        yield served.server


class Terminal:
    """A process on a pty: what it has written so far (escape sequences dropped), and keys."""

    def __init__(self, argv: list[str]) -> None:
        self.main, terminal = os.openpty()
        env = {**os.environ, "COLUMNS": "120", "LINES": "40", "TERM": "xterm"}
        self.proc = subprocess.Popen(
            argv, stdin=terminal, stdout=terminal, stderr=terminal, cwd=ROOT, env=env
        )
        os.close(terminal)
        self.raw = b""

    @property
    def text(self) -> str:
        return ANSI.sub("", self.raw.decode(errors="replace"))

    def read_until(self, pattern: str, after: int = 0, limit_s: float = 60) -> int:
        """Read until ``pattern`` shows in the text from position ``after``: where it ends.
        The limit only keeps a broken build from hanging."""
        deadline = time.monotonic() + limit_s
        while (found := re.search(pattern, self.text[after:])) is None:
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in:\n{self.text[after:][-3000:]}"
            ready, _, _ = select.select([self.main], [], [], min(left, 0.5))
            if ready:
                with contextlib.suppress(OSError):
                    self.raw += os.read(self.main, 65536)
        return after + found.end()

    def type(self, keys: str) -> None:
        os.write(self.main, keys.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(15)
        os.close(self.main)


def play_argv(address: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "tricktable.cli", "play", "--address", address, *extra]


def test_with_a_clock_the_servers_moves_show_as_they_happen_and_the_prompt_comes_back(
    server: ServerThread,
) -> None:
    argv = play_argv(
        server.address, "counterpoint", "--seed", "pty", "--move-time", "1", "--seat", "1"
    )
    term = Terminal(argv)
    try:
        at = term.read_until(r"Your move \(\d:\d\d(\.\d)? left\)> ")
        # No key is pressed: the clock runs out, the server moves for the player (bid cards
        # laid aside, then a card), the bot plays on, and the player is asked again, by itself.
        at = term.read_until(r"You run out of time: the server moves for you", at)
        at = term.read_until(r"Your move \(\d:\d\d(\.\d)? left\)> ", at)
        at = term.read_until(r"You run out of time: the server moves for you", at)
        at = term.read_until(r"You play ", at)
        assert "You lay 3 cards aside" in term.text
        # Ctrl-C leaves without asking (q asks first: test_q_leaves_only_once_confirmed).
        term.proc.send_signal(signal.SIGINT)
        term.read_until(r"You resigned and left: the game is over\.", at)
        assert term.proc.wait(30) == 0
    finally:
        term.close()


def test_q_leaves_only_once_confirmed(server: ServerThread) -> None:
    answers = iter(["q", "n", "q", "yes"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None)
    args = build_parser().parse_args(["play", "counterpoint", "--address", server.address])
    assert play.run(args, console=console, read=read) == 0
    assert prompts == [play.PROMPT, play.CONFIRM_QUIT, play.PROMPT, play.CONFIRM_QUIT]
    assert "You resigned and left: the game is over." in out.getvalue()


def test_bid_cards_are_shown_with_their_bid_and_a_bare_number_asks_first(
    server: ServerThread,
) -> None:
    answers = iter(["1", "n", "2", "", "q", "y"])
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None)
    argv = ["play", "ninety-nine", "--address", server.address, "--seed", "bids"]
    assert play.run(build_parser().parse_args(argv), console=console, read=read) == 0
    asked = [p for p in prompts if p.startswith("lay aside: ")]
    assert len(asked) == 2 and all(re.search(r" = bid \d\. Enter sends it", p) for p in asked)
    assert asked[0] != asked[1]  # combination 1, declined; then combination 2, sent
    assert out.getvalue().count("You lay 3 cards aside") == 1


def test_the_bid_a_lay_aside_makes_reads_as_the_game_says() -> None:
    from tricktable import cards as C

    from engine import get_rules
    from service import convert

    facts.learn(
        [
            convert.game_type_to_proto(get_rules(g).game_type())
            for g in ("ninety-nine", "counterpoint")
        ]
    )
    move = lay_aside_move([C.card("6C"), C.card("TC"), C.card("KC")])
    assert lay_aside_text(move, "ninety-nine") == "lay aside: 6♣ 10♣ K♣ = bid 9"
    low = lay_aside_move([C.card("7D"), C.card("8D"), C.card("9S")])
    assert lay_aside_text(low, "counterpoint") == "lay aside: 7♦ 8♦ 9♠ = bid 10 or 110"
    assert lay_aside_text(low, "counterpoint", False) == "lay aside: 7♦ 8♦ 9♠ = bid 10"
    assert lay_aside_text(low, "no-such-game") == "lay aside: 7♦ 8♦ 9♠"
