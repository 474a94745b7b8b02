"""Turn clocks: pure arithmetic over a game's time control, with the time passed in.

No I/O and no reading of a clock here: every function takes ``now_ms`` (server time, ms since
the epoch), so the rules of time are tested without sleeping, and the service, which owns the
clock, writes the result atomically with each commit (DESIGN.md decision 9).

A clock runs for every seat that MUST act (``Rules.to_act``; DESIGN.md decision 11): several at
once while bid cards are laid aside, each seat that has not laid aside. Optional moves
(``may_act`` only) start no clock and, made while the seat's clock is stopped, cost and earn
nothing. A turn gives the seat ``move_ms``; after that its bank runs down; at zero the seat times
out. A move made while the clock ran charges the bank with whatever went past the move time and
adds ``increment_ms``. A seat that stops being to act without moving (the game ended) is charged
the same, without the increment.

A timeout empties the seat's bank and counts against it. The policy says what follows: AUTO_MOVE
plays a move for the seat, FORFEIT resigns it; with AUTO_MOVE and ``forfeit_after`` = n > 0, the
n-th timeout of a seat in one game forfeits instead of moving.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

AUTO_MOVE = "auto_move"
FORFEIT = "forfeit"
POLICIES = (AUTO_MOVE, FORFEIT)

#: The documented ranges of a time control (README, proto/tricktable/v1/clocks.proto).
MAX_MOVE_MS = 86_400_000  # 24 h
MAX_BANK_MS = 86_400_000
MIN_TURN_MS = 50  # move_ms + bank_ms: less is no time to answer at all
MAX_INCREMENT_MS = 3_600_000
MAX_FORFEIT_AFTER = 1000


class BadTimeControl(ValueError):
    """A time control value out of range; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class TimeControl:
    move_ms: int
    bank_ms: int = 0
    increment_ms: int = 0
    on_timeout: str = AUTO_MOVE
    forfeit_after: int = 0

    def check(self) -> None:
        """Raise BadTimeControl naming the first field out of its documented range."""
        if not 0 <= self.move_ms <= MAX_MOVE_MS:
            raise BadTimeControl("move_ms", f"move_ms must be 0 to {MAX_MOVE_MS}")
        if not 0 <= self.bank_ms <= MAX_BANK_MS:
            raise BadTimeControl("bank_ms", f"bank_ms must be 0 to {MAX_BANK_MS}")
        if self.move_ms + self.bank_ms < MIN_TURN_MS:
            raise BadTimeControl("move_ms", f"move_ms + bank_ms must be at least {MIN_TURN_MS} ms")
        if not 0 <= self.increment_ms <= MAX_INCREMENT_MS:
            raise BadTimeControl("increment_ms", f"increment_ms must be 0 to {MAX_INCREMENT_MS}")
        if self.on_timeout not in POLICIES:
            raise BadTimeControl("on_timeout", f"on_timeout must be one of {POLICIES}")
        if not 0 <= self.forfeit_after <= MAX_FORFEIT_AFTER:
            raise BadTimeControl("forfeit_after", f"forfeit_after must be 0 to {MAX_FORFEIT_AFTER}")
        if self.forfeit_after and self.on_timeout != AUTO_MOVE:
            raise BadTimeControl("forfeit_after", "forfeit_after applies to AUTO_MOVE only")

    def to_data(self) -> dict[str, Any]:
        return {
            "move_ms": self.move_ms,
            "bank_ms": self.bank_ms,
            "increment_ms": self.increment_ms,
            "on_timeout": self.on_timeout,
            "forfeit_after": self.forfeit_after,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> TimeControl:
        return cls(
            move_ms=int(data["move_ms"]),
            bank_ms=int(data["bank_ms"]),
            increment_ms=int(data["increment_ms"]),
            on_timeout=str(data["on_timeout"]),
            forfeit_after=int(data["forfeit_after"]),
        )


@dataclass(frozen=True, slots=True)
class SeatTime:
    bank_ms: int
    started_ms: int | None = None  # when the running turn began; None while stopped
    timeouts: int = 0

    @property
    def running(self) -> bool:
        return self.started_ms is not None


@dataclass(frozen=True, slots=True)
class Clocks:
    """Every seat's clock at one version of a game."""

    seats: tuple[SeatTime, ...]

    def to_data(self) -> dict[str, Any]:
        return {"seats": [[s.bank_ms, s.started_ms, s.timeouts] for s in self.seats]}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Clocks:
        return cls(
            tuple(
                SeatTime(int(b), None if t is None else int(t), int(n)) for b, t, n in data["seats"]
            )
        )


@dataclass(frozen=True, slots=True)
class SeatClockView:
    """One seat's clock as a view shows it (proto ``SeatClock``)."""

    seat: int
    move_ms_left: int
    bank_ms_left: int
    running: bool
    deadline_ms: int  # 0 while stopped
    timeouts: int


def start(tc: TimeControl, seat_count: int, must_act: Iterable[int], now_ms: int) -> Clocks:
    """The clocks when play begins (the table is full): the seats that must act run."""
    acting = set(must_act)
    return Clocks(
        tuple(
            SeatTime(tc.bank_ms, now_ms if seat in acting else None) for seat in range(seat_count)
        )
    )


def _charged(tc: TimeControl, seat: SeatTime, now_ms: int) -> int:
    """The bank left once the running turn up to ``now_ms`` is paid for."""
    assert seat.started_ms is not None
    over = max(0, now_ms - seat.started_ms - tc.move_ms)
    return max(0, seat.bank_ms - over)


def after_move(
    tc: TimeControl, clocks: Clocks, mover: int | None, must_act: Iterable[int], now_ms: int
) -> Clocks:
    """The clocks after ``mover`` moved at ``now_ms`` and ``must_act`` must act next (empty when
    the game has ended). ``mover`` None: nobody moved (a seat's clock ran out: see
    :func:`after_timeout`)."""
    acting = set(must_act)
    out = []
    for number, before in enumerate(clocks.seats):
        seat = before
        if seat.running and (number == mover or number not in acting):
            bank = _charged(tc, seat, now_ms)
            if number == mover:
                bank += tc.increment_ms
            seat = replace(seat, bank_ms=bank, started_ms=None)
        if number in acting and not seat.running:
            seat = replace(seat, started_ms=now_ms)
        out.append(seat)
    return Clocks(tuple(out))


def after_timeout(
    tc: TimeControl, clocks: Clocks, seat: int, must_act: Iterable[int], now_ms: int
) -> Clocks:
    """The clocks after ``seat`` timed out at ``now_ms`` (and, with AUTO_MOVE, the server moved
    for it; ``must_act`` are the seats to act after that, empty after a forfeit): its bank is
    spent and its timeout counted; the other seats go on as after any move."""
    spent = replace(
        clocks.seats[seat], bank_ms=0, started_ms=None, timeouts=clocks.seats[seat].timeouts + 1
    )
    seats = list(clocks.seats)
    seats[seat] = spent
    return after_move(tc, Clocks(tuple(seats)), None, must_act, now_ms)


def seat_deadline(tc: TimeControl, seat: SeatTime) -> int | None:
    if seat.started_ms is None:
        return None
    return seat.started_ms + tc.move_ms + seat.bank_ms


def next_timeout(tc: TimeControl, clocks: Clocks) -> tuple[int, int] | None:
    """(deadline_ms, seat) of the clock that runs out first (the lowest seat on a tie), or
    None when no clock runs."""
    due = [
        (deadline, number)
        for number, seat in enumerate(clocks.seats)
        if (deadline := seat_deadline(tc, seat)) is not None
    ]
    return min(due) if due else None


def policy_for(tc: TimeControl, clocks: Clocks, seat: int) -> str:
    """What ``seat``'s next timeout does: AUTO_MOVE or FORFEIT."""
    if tc.on_timeout == FORFEIT:
        return FORFEIT
    if tc.forfeit_after and clocks.seats[seat].timeouts + 1 >= tc.forfeit_after:
        return FORFEIT
    return AUTO_MOVE


def views(tc: TimeControl, clocks: Clocks, now_ms: int) -> tuple[SeatClockView, ...]:
    """Every seat's clock as seen at ``now_ms``."""
    out = []
    for number, seat in enumerate(clocks.seats):
        if seat.started_ms is None:
            out.append(SeatClockView(number, tc.move_ms, seat.bank_ms, False, 0, seat.timeouts))
            continue
        used = max(0, now_ms - seat.started_ms)
        out.append(
            SeatClockView(
                seat=number,
                move_ms_left=max(0, tc.move_ms - used),
                bank_ms_left=_charged(tc, seat, now_ms),
                running=True,
                deadline_ms=seat.started_ms + tc.move_ms + seat.bank_ms,
                timeouts=seat.timeouts,
            )
        )
    return tuple(out)
