"""Limits that protect a public replica from one client: call rates, calls in progress, open
games, open streams, idle connections. Each has a protective default and a ``serve`` flag
(:data:`FLAGS`).

- Calls per second, as token buckets (a rate and a burst), per client address on CreateGame,
  JoinGame, SubmitMove, the reads (GetGame, ListGames, GetGameRecord, ListMyGames and
  ListGameTypes: one budget), StreamEvents and Play (its opening), and per seat token on
  SubmitMove, the reads and StreamEvents (a seat's token is the client, whatever addresses it
  comes from). A play stream's moves count as SubmitMove calls, in the same buckets. A seat's
  move rate is sized to play (a seat moves only in its turn): 20 a second, 100 at once; its
  reads to a polling page or a bot reading before each move: 50 a second, 200 at once.
- A unary call (or a play stream's move) over its rate waits for its turn when its token comes
  within ``rate_wait_s``, in its client's own queue (the token is promised to it, so waiting
  calls come out at the rate); later than that it is refused at once, before its request is
  decoded. A stream's opening over its rate is refused at once. A refusal's RetryInfo is the
  time until the bucket is full again: a client that spent its burst waits for it, rather than
  retrying every few milliseconds at the edge of the rate. Waiting rather than refusing is what
  keeps a flood from starving everyone else: a client that ignores RetryInfo and retries at
  once (issue 25's floods: 200 calls in flight on one seat, or creates and joins from one
  address) would spin through refusals as fast as the server can answer them, each cheap but
  all of them the event loop's (a create/join flood's 1,300 refusals a second took 0.8 of a
  core); held in its queue, its calls cost nothing until their turn, and come at its rate.
- Calls in progress per seat token and per client address (unary calls of the game service):
  past the cap a call waits for a place behind its own client's calls, first come first served,
  so a client's flood queues behind itself instead of in front of everyone else's moves; past
  ``queued_calls`` waiting, it is refused, told to come back when the queue will have drained
  at the move rate of the seat (or address). The seat's place is taken before its address',
  and both before the rates are asked: a seat's flood waits in the seat's queue without
  holding its address' places, and a client whose calls are refused by a rate gets its
  refusals one place at a time. A call that holds for other players (a ``wait_for_turn`` or
  ``after_version`` wait) gives its places up while it holds (:func:`holding`): a table's
  seats holding for each other from one address never fill its places.
- Calls in progress on the process (``calls_in_progress``), shared between addresses
  (:class:`FairShare`): taken last, once the call's tokens have come, and given to the waiting
  address with the fewest calls running, so an address with many seats (each within its own
  limits, together within the address') cannot keep other addresses' calls waiting behind its
  queue.
- Moves refused as the client's mistake, per address (``refused_moves``): what still cost
  everyone else in issue 25's seat flood (one address, both seats of 50 games, each seat within
  its own rate: 1,300 out-of-turn moves a second admitted, each refused by the game as dearly
  as a move is played) was the seats' rates added up. A move (a SubmitMove, or a move on a
  play stream: one budget) takes a token of its address' budget as it comes in and gives it
  back when it is answered, unless it was refused for what the client sent (out of turn, a
  stale version, an illegal move, a bad token): a bot runner's moves, played, never spend it,
  however many seats it plays from one address, while a flood's spend it, and then its moves
  wait their turn at the budget's rate in the address' queue. Neither the moves' legality nor
  any rule is looked at: only how the call ended.
- The client address is the connection's, or behind a trusted proxy (``trusted_proxies``) the
  one it forwards (service.proxies).
- Open games per address: games it created whose seats are not all taken. A create reserves its
  place before it awaits the store and gives it back if it fails, so creates racing each other
  never pass the cap; when the count is reached, the games are re-read from the store (one
  re-read shared by the creates that meet it), so a game that filled or ended on any replica no
  longer counts; at most once every ``open_games_recount_s``, between which the address' creates
  are refused at once (a create flood at the cap made a 500-game re-read a create).
- Open event streams and play streams per connection and per process.
- Connections (grpc options): keepalive pings, and a connection with no call for
  ``max_connection_idle`` seconds, or older than ``max_connection_age``, is closed (GOAWAY:
  clients reconnect by themselves).

A refusal is RESOURCE_EXHAUSTED with ErrorInfo reason ``RATE_LIMITED``, ``TOO_MANY_CALLS``,
``TOO_MANY_OPEN_GAMES`` or ``TOO_MANY_STREAMS`` and a ``google.rpc.RetryInfo`` saying when to try
again.

Every limit is per server process, and none is promised across replicas (deploy/README.md): N
replicas (or ``serve --workers N``) admit up to N times as much, which is what a load balancer
spreading one client over them means. That is what they protect: the rates, the calls in
progress and the streams guard one process's event loop and memory, which another process's
counts say nothing about; and the open games are a bound on what one client can make a replica
keep for it, where a count across replicas would cost every create a store round trip and a
shared key per address. Being per process, each check and its record happen in one step of the
event loop, with no await between them (both doors run on the one loop), so concurrent calls
cannot both pass a check that only one of them fits.

The defaults are generous for people, bots and tournaments (a tournament's bots all come from
one address), and stop a flood: a burst of 2,000 CreateGame calls from one address gets 300 at
once, then 100 a second, until its 500 open games (about 2 s), and the rest refused.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from collections import OrderedDict, defaultdict, deque
from collections.abc import Awaitable, Callable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from types import TracebackType
from typing import Any

import grpc

from service.auth import bearer_token, token_hash
from service.errors import GameNotFound, LimitExceeded, Unauthenticated, status_of
from service.proxies import ClientAddresses, Network, network_list
from service.store.base import ACTIVE, GameRecord

SERVICE = "/tricktable.v1.GameService/"
_SUBMIT_MOVE = f"{SERVICE}SubmitMove"
#: Reads, under one budget per address and per seat (``read_calls``, ``seat_read_calls``).
_READS = tuple(
    f"{SERVICE}{name}"
    for name in ("GetGame", "ListGames", "GetGameRecord", "ListMyGames", "ListGameTypes")
)
#: Addresses and tokens whose buckets a replica remembers; the least recently seen go first.
MAX_CLIENTS = 100_000
#: The open-games re-read lets other calls run after reading this many games.
_RECOUNT_STEP = 32


@dataclass(frozen=True, slots=True)
class Rate:
    """A token bucket: ``per_s`` calls per second on average, ``burst`` at once. 0: no limit."""

    per_s: float
    burst: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        """``RATE`` or ``RATE/BURST`` (the burst defaults to one second's worth); ``0``: off."""
        rate, _, burst = text.partition("/")
        try:
            per_s = float(rate)
            size = int(burst) if burst else max(1, int(per_s))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected RATE[/BURST], got {text!r}") from None
        if per_s < 0 or size < 1:
            raise argparse.ArgumentTypeError(f"expected a rate >= 0 and a burst >= 1: {text!r}")
        return cls(per_s, size)

    def __str__(self) -> str:
        return f"{self.per_s:g}/{self.burst}"


@dataclass(frozen=True, slots=True)
class LimitsConfig:
    create_game: Rate = Rate(100, 300)  # per address
    join_game: Rate = Rate(300, 1000)  # per address
    submit_move: Rate = Rate(5000, 10000)  # per address
    # Per seat token: a seat moves only in its turn, a few times a second at a table of people
    # and faster among bots; a burst covers a deal's moves at once.
    seat_submit_move: Rate = Rate(20, 100)
    # Per address: SubmitMove calls refused as the client's mistake (out of turn, a stale
    # version, an illegal move, a bad token). A refused move costs the server as much as a
    # played one, and a bot or a tournament of them from one address rarely makes one; past
    # this budget the address' moves take their turn at its rate (module docstring). Its rate
    # times ``rate_wait_s`` is at least ``calls_per_address``: all of a flooding address'
    # places may wait for their turn, so its further calls wait in its queue, at no cost,
    # rather than be refused at once and sent again (at 50/s, 1,760 refusals a second).
    refused_moves: Rate = Rate(100, 200)
    stream_events: Rate = Rate(200, 2000)  # per address
    seat_stream_events: Rate = Rate(20, 100)  # per seat token
    # Reads (GetGame, ListGames, GetGameRecord, ListMyGames, ListGameTypes), one budget per
    # address and per seat: a polling page reads a few times a second, a bot before each move
    # (at most its seat's move rate), a tournament's bots from one address together.
    read_calls: Rate = Rate(2000, 5000)  # per address
    seat_read_calls: Rate = Rate(50, 200)  # per seat token
    calls_per_address: int = 64  # unary calls in progress per address; 0: no limit
    calls_per_seat: int = 4  # unary calls in progress per seat token; 0: no limit
    # Unary calls in progress on this process, all addresses together; past it a call waits,
    # and a place given up goes to the waiting address with the fewest calls in progress.
    calls_in_progress: int = 32  # 0: no limit
    queued_calls: int = 1000  # calls waiting for a place, per address and per seat
    rate_wait_s: float = 1.0  # a unary call over its rate may wait this long for its turn
    open_games: int = 500  # per address; 0: no limit
    # Hosted tournaments (service.tournaments.quotas): counted in the store, across replicas.
    running_tournaments: int = 10  # still running, created per address; 0: no limit
    bots: int = 100  # registered per address; 0: no limit
    # An address at its open-games cap has its games re-read at most this often; between
    # re-reads its creates are refused at once (0: re-read at every create at the cap).
    open_games_recount_s: float = 1.0
    streams_per_connection: int = 1000  # 0: no limit
    streams_per_replica: int = 20_000  # 0: no limit
    keepalive_time_s: float = 60.0  # server pings an idle connection this often
    keepalive_timeout_s: float = 20.0  # and closes it when the ping is not answered in time
    max_connection_idle_s: float = 600.0  # no call for this long: closed (0: never)
    max_connection_age_s: float = 0.0  # closed at this age (0: never), after the grace
    max_connection_age_grace_s: float = 30.0
    # Proxies whose forwarded client address (Forwarded, X-Forwarded-For) the per-address
    # limits count by (service.proxies); from anywhere else those headers are ignored.
    trusted_proxies: tuple[Network, ...] = ()

    def grpc_options(self) -> list[tuple[str, int]]:
        """The connection limits as grpc server options."""
        options = [
            ("grpc.keepalive_timeout_ms", int(self.keepalive_timeout_s * 1000)),
            # Clients may ping idle connections too (bots holding a channel between games).
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
            ("grpc.http2.max_ping_strikes", 2),
        ]
        if self.keepalive_time_s > 0:
            options.append(("grpc.keepalive_time_ms", int(self.keepalive_time_s * 1000)))
        if self.max_connection_idle_s > 0:
            options.append(("grpc.max_connection_idle_ms", int(self.max_connection_idle_s * 1000)))
        if self.max_connection_age_s > 0:
            options.append(("grpc.max_connection_age_ms", int(self.max_connection_age_s * 1000)))
            grace = int(self.max_connection_age_grace_s * 1000)
            options.append(("grpc.max_connection_age_grace_ms", grace))
        return options


#: ``serve`` flags: (config field, flag, help). Rates are RATE[/BURST] per second.
FLAGS: tuple[tuple[str, str, str], ...] = (
    ("create_game", "--limit-create-game", "CreateGame calls per second per client address"),
    ("join_game", "--limit-join-game", "JoinGame calls per second per client address"),
    (
        "submit_move",
        "--limit-submit-move",
        "moves per second per client address (SubmitMove, Play)",
    ),
    (
        "seat_submit_move",
        "--limit-seat-submit-move",
        "moves per second per seat (SubmitMove, Play)",
    ),
    (
        "refused_moves",
        "--limit-refused-moves",
        "SubmitMove calls refused as the client's mistake, per second per client address; "
        "past it the address' moves wait their turn at this rate",
    ),
    (
        "stream_events",
        "--limit-stream-events",
        "StreamEvents and Play calls per second per address",
    ),
    ("seat_stream_events", "--limit-seat-stream-events", "StreamEvents calls per second per seat"),
    (
        "read_calls",
        "--limit-read-calls",
        "reads per second per client address (GetGame, ListGames, GetGameRecord, ListMyGames, "
        "ListGameTypes)",
    ),
    ("seat_read_calls", "--limit-seat-read-calls", "reads per second per seat token"),
    ("calls_per_address", "--limit-calls-per-address", "calls in progress per client address"),
    ("calls_per_seat", "--limit-calls-per-seat", "calls in progress per seat token"),
    (
        "calls_in_progress",
        "--limit-calls-in-progress",
        "calls in progress on this process; past it, each waiting address in turn",
    ),
    ("queued_calls", "--limit-queued-calls", "calls waiting for a place per address or seat"),
    (
        "rate_wait_s",
        "--limit-rate-wait",
        "seconds a move or a read over its rate may wait for its turn, behind its client's calls",
    ),
    ("open_games", "--limit-open-games", "games waiting for players one address may have created"),
    (
        "running_tournaments",
        "--limit-running-tournaments",
        "hosted tournaments still running that one address may have created (on all replicas)",
    ),
    ("bots", "--limit-bots", "bots one address may have registered (on all replicas)"),
    (
        "open_games_recount_s",
        "--limit-open-games-recount",
        "seconds between re-reads of an address' games at its open-games cap",
    ),
    ("streams_per_connection", "--limit-streams-per-connection", "open streams per connection"),
    ("streams_per_replica", "--limit-streams-per-replica", "open streams on this replica"),
    ("keepalive_time_s", "--keepalive-time", "seconds between keepalive pings"),
    ("keepalive_timeout_s", "--keepalive-timeout", "seconds a keepalive ping may go unanswered"),
    ("max_connection_idle_s", "--max-connection-idle", "close a connection idle this long"),
    ("max_connection_age_s", "--max-connection-age", "close a connection this old"),
    ("max_connection_age_grace_s", "--max-connection-age-grace", "calls' time to end then"),
)


_NO_ZERO = {"keepalive_timeout_s", "max_connection_age_grace_s"}
_ZERO_MEANS = {
    "queued_calls": "; 0: refuse rather than wait",
    "rate_wait_s": "; 0: refuse at once",
    "open_games_recount_s": "; 0: at every create at the cap",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = LimitsConfig()
    kinds = {f.name: f.type for f in fields(LimitsConfig)}
    for name, flag, text in FLAGS:
        default = getattr(defaults, name)
        kind = kinds[name]
        if kind == "Rate":
            parser.add_argument(
                flag,
                type=Rate.parse,
                default=default,
                metavar="RATE[/BURST]",
                help=f"{text} (default {default}; 0: no limit)",
            )
        else:
            convert: Callable[[str], Any] = int if kind == "int" else float
            unit = "N" if kind == "int" else "SECONDS"
            off = "" if name in _NO_ZERO else _ZERO_MEANS.get(name, "; 0: off")
            parser.add_argument(
                flag,
                type=convert,
                default=default,
                metavar=unit,
                help=f"{text} (default {default:g}{off})",
            )
    parser.add_argument(
        "--trusted-proxy",
        action=_AppendNetworks,
        dest="trusted_proxies",
        type=network_list,
        default=None,
        metavar="CIDR",
        help="a load balancer or ingress (a network or an address) whose forwarded client "
        "address (Forwarded, X-Forwarded-For) per-address limits count by; repeatable (in the "
        "variable: comma-separated); other peers' forwarding headers are ignored (default: none)",
    )


class _AppendNetworks(argparse.Action):
    """``--trusted-proxy``, repeatable: the flags given replace the variable's list (a flag
    wins over its variable), rather than append to it as argparse's ``append`` would try."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        given = getattr(namespace, self.dest, None)
        items = given if isinstance(given, list) else []
        items.extend(values)
        setattr(namespace, self.dest, items)


def from_args(args: argparse.Namespace) -> LimitsConfig:
    values: dict[str, Any] = {
        name: getattr(args, flag[2:].replace("-", "_")) for name, flag, _ in FLAGS
    }
    values["trusted_proxies"] = tuple(dict.fromkeys(getattr(args, "trusted_proxies", None) or ()))
    return replace(LimitsConfig(), **values)


class Buckets:
    """Token buckets by key (an address, a token's hash), the least recently used forgotten
    past :data:`MAX_CLIENTS` (a forgotten client starts again with a full bucket)."""

    def __init__(self, rate: Rate, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = rate
        self._clock = clock
        self._state: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str) -> float:
        """0 when a call is admitted (and counted), else the seconds until the bucket is full
        again: what a refusal's RetryInfo says. The time until one call's token is back (1/rate,
        milliseconds at the default rates) would invite a client to retry in a tight loop that
        spends each token as it comes; waiting for the refill gives it its whole burst back."""
        admitted, seconds = self.queue(key, 0.0)
        return 0.0 if admitted else seconds

    def queue(self, key: str, patience: float) -> tuple[bool, float]:
        """``(True, delay)``: admitted after ``delay`` seconds (0: now), when its token comes,
        which is reserved for it now: a token that comes within ``patience`` is promised to the
        call that waits for it, so calls waiting in turn come out at the rate, not all at once.
        ``(False, seconds)``: refused, and the seconds until the bucket is full again (what
        :meth:`take` says)."""
        per_s, burst = self._rate.per_s, self._rate.burst
        if per_s <= 0:
            return True, 0.0
        now = self._clock()
        tokens, then = self._state.pop(key, (float(burst), now))
        tokens = min(float(burst), tokens + (now - then) * per_s)
        # Below one token, the bucket owes tokens to calls waiting for them (down to
        # -per_s * patience): the next call waits for its token after theirs.
        delay = 0.0 if tokens >= 1.0 else (1.0 - tokens) / per_s
        admitted = delay <= patience
        if admitted:
            tokens -= 1.0
        else:
            delay = (burst - tokens) / per_s
        self._state[key] = (tokens, now)
        if len(self._state) > MAX_CLIENTS:
            self._state.popitem(last=False)
        return admitted, delay

    def give_back(self, key: str) -> None:
        """Return a token taken by :meth:`queue` (the call did not spend it): the bucket's
        state as if the call had not been made, never above its burst."""
        state = self._state.get(key)
        if state is None or self._rate.per_s <= 0:
            return
        tokens, then = state
        self._state[key] = (min(float(self._rate.burst), tokens + 1.0), then)


def _once(leave: Callable[[], None]) -> Callable[[], None]:
    """A place's one way out: a second call gives nothing up (it would free another call's
    place)."""
    held = [True]

    def once() -> None:
        if held[0]:
            held[0] = False
            leave()

    return once


class _Gate:
    """One client's calls in progress and the calls waiting for a place, oldest first."""

    __slots__ = ("running", "waiting")

    def __init__(self) -> None:
        self.running = 0
        self.waiting: deque[asyncio.Future[None]] = deque()


class Gates:
    """At most ``size`` calls in progress per key (an address, a token's hash); more wait for a
    place in the order they came, up to ``queue`` of them, and past that are refused.

    A place that is given up passes straight to the oldest waiter, so a waiter is never
    overtaken by a call that came later. Keys with nothing in progress are forgotten at once:
    the map holds only the clients that have calls on this process."""

    def __init__(self, size: int, queue: int, what: str, drain_per_s: float = 0.0) -> None:
        self._size = size
        self._queue = queue
        self._what = what  # "from 1.2.3.4", "for this seat": the refusal's words
        # How fast a full queue drains at most (its key's rate; 0: unknown), for the refusal's
        # RetryInfo.
        self._drain_per_s = drain_per_s
        self._gates: dict[str, _Gate] = {}

    def busy(self, key: str) -> int:
        """Calls of ``key`` in progress and waiting (for tests and benchmarks)."""
        gate = self._gates.get(key)
        return 0 if gate is None else gate.running + len(gate.waiting)

    async def enter(self, key: str, name: str) -> Callable[[], None] | None:
        """Wait for a place (None: no limit); the function returned gives it up."""
        if self._size <= 0:
            return None
        gate = self._gates.get(key)
        if gate is None:
            gate = self._gates[key] = _Gate()
        if gate.running < self._size and not gate.waiting:
            gate.running += 1  # the usual case: a place at once, nothing awaited
            return _once(lambda: self._leave(key, gate))
        if len(gate.waiting) >= self._queue:
            raise LimitExceeded(
                f"too many {name} calls in progress {self._what}",
                self.drain_s(gate),
                reason="TOO_MANY_CALLS",
            )
        place = asyncio.get_running_loop().create_future()
        gate.waiting.append(place)
        try:
            await place  # set when a call in progress hands its place over
        except asyncio.CancelledError:
            if place.done() and not place.cancelled():
                self._leave(key, gate)  # handed a place just as the caller went: pass it on
            else:
                # A place handed on may already have dropped it from the queue (``_leave``
                # skips the cancelled), between its cancel and this task's turn to run.
                with contextlib.suppress(ValueError):
                    gate.waiting.remove(place)
                self._forget_if_idle(key, gate)
            raise
        return _once(lambda: self._leave(key, gate))

    def drain_s(self, gate: _Gate) -> float:
        """A refusal's RetryInfo: the time the calls in progress and waiting need to pass at
        the key's rate (a seat's 1,000 queued moves at 20 a second: 50 s), so a refused client
        comes back when there is room rather than spin through refusals; at least a second."""
        if self._drain_per_s <= 0:
            return 1.0
        return max(1.0, (gate.running + len(gate.waiting)) / self._drain_per_s)

    def _leave(self, key: str, gate: _Gate) -> None:
        while gate.waiting:
            place = gate.waiting.popleft()
            if not place.done():
                place.set_result(None)  # the place passes on: ``running`` stays the same
                return
        gate.running -= 1
        self._forget_if_idle(key, gate)

    def _forget_if_idle(self, key: str, gate: _Gate) -> None:
        if gate.running == 0 and not gate.waiting and self._gates.get(key) is gate:
            del self._gates[key]


class _Turn:
    """One address' calls in progress on the process and its calls waiting, oldest first."""

    __slots__ = ("running", "waiting")

    def __init__(self) -> None:
        self.running = 0
        self.waiting: deque[asyncio.Future[None]] = deque()


class FairShare:
    """At most ``size`` calls in progress on the process, whatever their addresses. Past it a
    call waits, in its own address' queue; a place given up goes to the address that has the
    fewest calls in progress among those waiting (the one waiting longest among equals), to its
    oldest call. An address with many seats (each under its own limits) can hold every place
    while no one else asks, but its queued calls never wait in front of another address': the
    next place goes to the address with fewer calls running, so an honest player's call waits
    for one place to free, not behind the abuser's queue.

    What it orders is calls that overlap: handlers awaiting the store (Redis). On the embedded
    store a handler runs in one step of the event loop, so places are given back as soon as they
    are taken and nothing waits here; what one address costs the others is then the CPU of the
    calls its limits admit (the abuse benchmark's ``seat-flood``).

    Invariant: while fewer than ``size`` calls run, no call waits (a place is handed over as
    it is given up). An address with calls waiting is filed under its count of calls running
    (``_levels``), so the next place is found in a few steps, however many addresses wait."""

    def __init__(self, size: int) -> None:
        self._size = size
        self.running = 0
        self._turns: dict[str, _Turn] = {}
        # Addresses with calls waiting, by their calls running, the longest waiting first.
        self._levels: dict[int, OrderedDict[str, None]] = {}

    def busy(self, key: str) -> tuple[int, int]:
        """An address' calls in progress and waiting (for tests and benchmarks)."""
        turn = self._turns.get(key)
        return (0, 0) if turn is None else (turn.running, len(turn.waiting))

    async def enter(self, key: str) -> Callable[[], None] | None:
        """Wait for a place (None: no limit); the function returned gives it up."""
        if self._size <= 0:
            return None
        turn = self._turns.get(key)
        if turn is None:
            turn = self._turns[key] = _Turn()
        if self.running < self._size:
            self.running += 1
            turn.running += 1
            return _once(lambda: self._leave(key, turn))
        place = asyncio.get_running_loop().create_future()
        if not turn.waiting:
            self._file(key, turn)
        turn.waiting.append(place)
        try:
            await place  # set by ``_grant`` as the place is handed over, counted then
        except asyncio.CancelledError:
            if place.done() and not place.cancelled():
                self._leave(key, turn)  # handed a place just as the caller went: pass it on
            else:
                with contextlib.suppress(ValueError):  # ``_grant`` may have dropped it
                    turn.waiting.remove(place)
                if not turn.waiting:
                    self._unfile(key, turn)
                self._forget_if_idle(key, turn)
            raise
        return _once(lambda: self._leave(key, turn))

    def _leave(self, key: str, turn: _Turn) -> None:
        waiting = bool(turn.waiting)
        if waiting:
            self._unfile(key, turn)
        turn.running -= 1
        self.running -= 1
        if waiting:
            self._file(key, turn)  # one call fewer running: its turn may come sooner
        self._forget_if_idle(key, turn)
        self._grant()

    def _grant(self) -> None:
        while self.running < self._size and self._levels:
            fewest = min(self._levels)
            level = self._levels[fewest]
            key = next(iter(level))
            self._unfile(key, self._turns[key])
            turn = self._turns[key]
            place = turn.waiting.popleft()
            if not place.done():  # not cancelled: the place is its
                place.set_result(None)
                self.running += 1
                turn.running += 1
            if turn.waiting:
                self._file(key, turn)
            else:
                self._forget_if_idle(key, turn)

    def _file(self, key: str, turn: _Turn) -> None:
        level = self._levels.get(turn.running)
        if level is None:
            level = self._levels[turn.running] = OrderedDict()
        level[key] = None

    def _unfile(self, key: str, turn: _Turn) -> None:
        if self._turns.get(key) is not turn:
            return  # forgotten already (a cancelled waiter's late turn): another may be filed
        level = self._levels.get(turn.running)
        if level is not None:
            level.pop(key, None)
            if not level:
                del self._levels[turn.running]

    def _forget_if_idle(self, key: str, turn: _Turn) -> None:
        if turn.running == 0 and not turn.waiting and self._turns.get(key) is turn:
            del self._turns[key]


#: Refusals that are the client's mistake (what it sent, when): what ``refused_moves`` counts.
#: Not the server's (UNAVAILABLE, INTERNAL) nor a limit's (RESOURCE_EXHAUSTED: rated already).
_CLIENT_FAULTS = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.OUT_OF_RANGE,
    }
)

#: Settles a move's token of its address' ``refused_moves`` budget once the move is answered:
#: called with how it was refused, or None (played, holding, or never run).
Settle = Callable[[BaseException | None], None]


class _RefusedMoveToken:
    """A move's token of its address' ``refused_moves`` budget, held until the move is
    answered, whichever way it came (SubmitMove on either door, a play stream's move): the one
    place that decides which answers keep it (:data:`_CLIENT_FAULTS`). Settled once; later
    calls do nothing (a move that held, then was answered)."""

    __slots__ = ("_address", "_buckets")

    def __init__(self, buckets: Buckets, address: str) -> None:
        self._buckets: Buckets | None = buckets
        self._address = address

    def __call__(self, error: BaseException | None) -> None:
        buckets, self._buckets = self._buckets, None
        if buckets is not None and (error is None or status_of(error)[0] not in _CLIENT_FAULTS):
            buckets.give_back(self._address)


class CallPlace:
    """A unary call's places among its client's calls in progress (its address', its seat's):
    given up once, when the call ends or starts to hold for other players. A move also holds a
    token of its address' ``refused_moves`` budget until it is answered: :meth:`settle` gives
    it back unless the move was refused as the client's mistake."""

    __slots__ = ("_leaves", "_refund")

    def __init__(self, leaves: list[Callable[[], None]]) -> None:
        self._leaves = leaves
        self._refund: Settle | None = None

    def add(self, leave: Callable[[], None]) -> None:
        self._leaves.append(leave)

    def refund_with(self, refund: Settle | None) -> None:
        self._refund = refund

    def settle(self, error: BaseException | None) -> None:
        """The call was answered (``error``: how it was refused, None: it succeeded or holds
        now): its token of the refused-moves budget is kept only for the client's mistake."""
        refund, self._refund = self._refund, None
        if refund is not None:
            refund(error)

    def leave(self) -> None:
        leaves, self._leaves = self._leaves, []
        for leave in leaves:
            leave()


#: The place of the call this task is serving, for :func:`holding`.
_CURRENT_PLACE: ContextVar[CallPlace | None] = ContextVar("tricktable_call_place", default=None)


def holding() -> None:
    """The call being served holds now until other players move (``wait_for_turn``,
    ``after_version``): it gives up its places among its client's calls in progress, or the
    seats of one table, holding for each other from one address, could fill its places and
    leave the move they wait for queued behind them. A call that is not counted: nothing."""
    place = _CURRENT_PLACE.get()
    if place is not None:
        place.settle(None)  # a move that holds was played
        place.leave()


@dataclass
class _Streams:
    total: int = 0
    by_connection: dict[str, int] = field(default_factory=lambda: defaultdict(int))


@dataclass(slots=True)
class _OpenGames:
    """One address' games that may still wait for players, and its creates under way."""

    games: list[str] = field(default_factory=list)  # oldest first
    reserved: int = 0  # creates admitted whose game is not made yet
    recount: asyncio.Task[None] | None = None  # a re-read of ``games`` under way
    recounted: float = float("-inf")  # when the last re-read ended (the limits' clock)


class GamePlace:
    """A create's place under its address' open-games cap, taken before the game is made: the
    game made, :meth:`created` records it; otherwise leaving the ``with`` block gives the place
    back (a refusal, a store error, the client gone)."""

    __slots__ = ("_book", "_done")

    def __init__(self, book: _OpenGames | None) -> None:
        self._book = book  # None: no cap
        self._done = book is None

    def created(self, game_id: str) -> None:
        book = self._book
        if book is not None and not self._done:
            self._done = True
            book.reserved -= 1
            book.games.append(game_id)

    def __enter__(self) -> GamePlace:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        # A create that failed after the store wrote its game (a reply lost on the way back)
        # leaves that game uncounted: the cap is exact for what this process knows was made.
        if self._book is not None and not self._done:
            self._done = True
            self._book.reserved -= 1


class Limits:
    """One process' limits, shared by its doors: ``enter`` is asked before every unary call of
    the game service and ``admit`` before every stream, over native gRPC (``ErrorInterceptor``)
    and over the web (``ErrorsToConnect``); ``move`` before each move a play stream carries;
    ``reserve_game`` before a game is created."""

    def __init__(self, config: LimitsConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self._clock = clock
        events = Buckets(config.stream_events, clock)
        moves = Buckets(config.submit_move, clock)
        seat_moves = Buckets(config.seat_submit_move, clock)
        self._refused_moves = Buckets(config.refused_moves, clock)
        # A play stream's opening counts as an event stream's from its address (it is one,
        # with moves; a seat reopens its stream after every dropped connection, so not per
        # seat), and its moves as SubmitMove calls: the same buckets, whichever way a seat plays.
        self._by_address = {
            f"{SERVICE}CreateGame": Buckets(config.create_game, clock),
            f"{SERVICE}JoinGame": Buckets(config.join_game, clock),
            f"{SERVICE}SubmitMove": moves,
            f"{SERVICE}StreamEvents": events,
            f"{SERVICE}Play": events,
            # Finding a game (issue 29): quick play tickets and rematch offers at the joins'
            # rate, codes reissued at the creates' (each method a bucket of its own).
            f"{SERVICE}QuickPlay": Buckets(config.join_game, clock),
            f"{SERVICE}RevokeInvite": Buckets(config.create_game, clock),
            f"{SERVICE}Rematch": Buckets(config.join_game, clock),
        }
        reads = Buckets(config.read_calls, clock)
        seat_reads = Buckets(config.seat_read_calls, clock)
        self._by_address.update(dict.fromkeys(_READS, reads))
        self._by_token = {
            f"{SERVICE}SubmitMove": seat_moves,
            f"{SERVICE}StreamEvents": Buckets(config.seat_stream_events, clock),
            **dict.fromkeys(_READS, seat_reads),
        }
        self.client_address = ClientAddresses(config.trusted_proxies)
        queue = config.queued_calls
        # A full queue's refusal says when it will have drained, at the move rates: a seat's
        # or an address' flood of moves is what fills one.
        self.address_calls = Gates(
            config.calls_per_address, queue, "from this address", config.submit_move.per_s
        )
        self.seat_calls = Gates(
            config.calls_per_seat, queue, "for this seat", config.seat_submit_move.per_s
        )
        self.share = FairShare(config.calls_in_progress)
        self._streams = _Streams()
        # Games each address created that may still wait for players; the least recently
        # creating addresses are forgotten past MAX_CLIENTS, like the buckets.
        self._open_games: OrderedDict[str, _OpenGames] = OrderedDict()

    def admit(
        self, method: str, peer: str, metadata: Iterable[tuple[str, str | bytes]] | None
    ) -> Callable[[], None] | None:
        """Raise LimitExceeded if the call is over a rate (at once: a stream does not wait for
        its turn); for a stream admitted, the function to call when it ends. Both doors ask:
        ``peer`` is the client's connection in grpc's form (``ipv4:1.2.3.4:5678``),
        ``metadata`` the call's headers (the seat token, forwarded addresses)."""
        if method not in self._by_address:
            return None
        self._rates(method, self.client_address(peer, metadata), metadata, 0.0)
        if method in (f"{SERVICE}StreamEvents", f"{SERVICE}Play", f"{SERVICE}QuickPlay"):
            return self._open_stream(peer)
        return None

    async def enter(
        self, method: str, peer: str, metadata: Iterable[tuple[str, str | bytes]] | None
    ) -> CallPlace | None:
        """A unary call's way in: its places among its client's calls in progress
        (:meth:`in_progress`), then its rates, then its share of the process (:class:`FairShare`).
        A call over a rate whose turn comes within ``rate_wait_s`` waits for it, holding its
        client's places (not the process' share), so its client's next calls queue behind it
        and come out at the rate; later than that, or with no place, it is refused
        (LimitExceeded, with the time until the bucket is full again). The wait costs the server
        nothing but the parked call: a flood from one client paces itself instead of taking the
        event loop from everyone else's calls."""
        place = await self.in_progress(method, peer, metadata)
        refund: Settle | None = None
        try:
            if not method.startswith(SERVICE):
                return place
            address = self.client_address(peer, metadata)
            if method in self._by_address:
                delay = self._rates(method, address, metadata, self.config.rate_wait_s)
                if method == _SUBMIT_MOVE:
                    delay, refund = self._refusals(address, delay)
                if delay > 0:
                    await asyncio.sleep(delay)
            # Its share of the process, last: a call waiting for its token holds none of it.
            leave = await self.share.enter(address)
        except BaseException:
            if refund is not None:  # never ran: nothing to count
                refund(None)
            if place is not None:
                place.leave()
            raise
        if leave is not None or refund is not None:
            if place is None:
                place = CallPlace([])
                _CURRENT_PLACE.set(place)
            if leave is not None:
                place.add(leave)
            place.refund_with(refund)
        return place

    def _refusals(self, address: str, delay: float) -> tuple[float, Settle | None]:
        """A move's token of its address' ``refused_moves`` budget, taken before it runs and
        given back when it is not refused as the client's mistake (:meth:`CallPlace.settle`):
        the delay until both it and the move's rate tokens come, and its settle. An address
        whose moves are played spends none of it, however many it makes (a tournament's bots);
        one whose moves are refused (out of turn, stale: issue 25's seat flood, each of its
        seats within its own rate) spends it, then its moves come at its rate, waiting in the
        address' own queue, and past ``rate_wait_s`` are refused at once. What a refused move
        costs (the game's check, the error's status and log) is then bounded per address, not
        per seat."""
        admitted, seconds = self._refused_moves.queue(address, self.config.rate_wait_s)
        if not admitted:
            raise LimitExceeded(f"too many refused SubmitMove calls from {address}", seconds)
        if self.config.refused_moves.per_s <= 0:
            return delay, None
        return max(delay, seconds), _RefusedMoveToken(self._refused_moves, address)

    async def move(
        self, peer: str, metadata: Iterable[tuple[str, str | bytes]] | None
    ) -> Settle | None:
        """Before a move a play stream carries: SubmitMove's rates, per address and per seat,
        and its token of the address' ``refused_moves`` budget (one budget each, whichever way
        the seat sends its moves: a hundred play streams from one address flooding refused
        moves spend what the same flood by SubmitMove would), waiting for its turn as a unary
        call does; LimitExceeded answers that one move. Returns the move's settle: call it
        with the move's refusal, or None, once it is answered (None: no budget to settle).
        The stream's moves are read one after another, so while one waits the stream's next
        ones wait unread behind it (HTTP/2 flow control holds the client back), and a stream
        is at most one call in progress."""
        address = self.client_address(peer, metadata)
        delay = self._rates(_SUBMIT_MOVE, address, metadata, self.config.rate_wait_s)
        delay, settle = self._refusals(address, delay)
        if delay > 0:
            try:
                await asyncio.sleep(delay)
            except BaseException:
                if settle is not None:  # never ran: nothing to count
                    settle(None)
                raise
        return settle

    def _rates(
        self,
        method: str,
        address: str,
        metadata: Iterable[tuple[str, str | bytes]] | None,
        patience: float,
    ) -> float:
        """Takes the call's tokens (its address', its seat's): the seconds until both come
        (0: now), or LimitExceeded."""
        admitted, seconds = self._by_address[method].queue(address, patience)
        if not admitted:
            raise LimitExceeded(f"too many {_name(method)} calls from {address}", seconds)
        by_token = self._by_token.get(method)
        token = _seat_token(metadata) if by_token is not None else None
        if by_token is None or token is None:
            return seconds
        # The secret itself is not kept, its hash is.
        seat_admitted, seat_seconds = by_token.queue(token_hash(token), patience)
        if not seat_admitted:
            raise LimitExceeded(f"too many {_name(method)} calls for this seat", seat_seconds)
        return max(seconds, seat_seconds)

    async def in_progress(
        self, method: str, peer: str, metadata: Iterable[tuple[str, str | bytes]] | None
    ) -> CallPlace | None:
        """For a unary call of the game service: wait for a place among its seat's calls in
        progress (with a seat token), then its address'; the place returned is given up with
        ``leave()`` when the call ends (or by :func:`holding`). The seat's first: the calls a
        seat floods with wait in its own queue without holding places of its address, where
        the address' other seats' calls would wait behind them. Streams are not counted here:
        they are ``admit``'s (a play stream takes its seat's moves one at a time)."""
        if not method.startswith(SERVICE):
            return None
        name = _name(method)
        leaves: list[Callable[[], None]] = []
        try:
            token = _seat_token(metadata) if self.config.calls_per_seat > 0 else None
            if token is not None:
                leave = await self.seat_calls.enter(token_hash(token), name)
                if leave is not None:
                    leaves.append(leave)
            leave = await self.address_calls.enter(self.client_address(peer, metadata), name)
            if leave is not None:
                leaves.append(leave)
        except BaseException:
            for leave in leaves:
                leave()
            raise
        if not leaves:
            return None
        place = CallPlace(leaves)
        _CURRENT_PLACE.set(place)
        return place

    def _open_stream(self, connection: str) -> Callable[[], None]:
        streams, config = self._streams, self.config
        if 0 < config.streams_per_replica <= streams.total:
            raise LimitExceeded(
                f"this server holds {streams.total} open streams, its most",
                1.0,
                reason="TOO_MANY_STREAMS",
            )
        if 0 < config.streams_per_connection <= streams.by_connection[connection]:
            raise LimitExceeded(
                f"at most {config.streams_per_connection} open streams per connection",
                1.0,
                reason="TOO_MANY_STREAMS",
            )
        streams.total += 1
        streams.by_connection[connection] += 1

        def release() -> None:
            streams.total -= 1
            left = streams.by_connection[connection] - 1
            if left > 0:
                streams.by_connection[connection] = left
            else:
                del streams.by_connection[connection]

        return release

    async def reserve_game(
        self,
        peer: str,
        load: Callable[[str], Awaitable[GameRecord]],
        metadata: Iterable[tuple[str, str | bytes]] | None = None,
    ) -> GamePlace:
        """A place for one more game of this address under ``open_games``, taken now (before
        the create awaits anything), or LimitExceeded. ``load`` reads a game from the store: at
        the cap the address' games are re-read, once for all the creates that meet it."""
        limit = self.config.open_games
        if limit <= 0:
            return GamePlace(None)
        address = self.client_address(peer, metadata)
        book = self._open_games.pop(address, None) or _OpenGames()
        self._open_games[address] = book  # the most recent, last
        if len(self._open_games) > MAX_CLIENTS:
            self._open_games.popitem(last=False)
        if len(book.games) + book.reserved >= limit:
            if book.recount is None:
                if self._clock() - book.recounted < self.config.open_games_recount_s:
                    # Re-read a moment ago: the verdict stands. Re-read at every create at the
                    # cap, 500 games each, a create flood's cost was the re-reads (100 a second).
                    raise self._too_many_games(address, book)
                recount = _recount(book, load, self._clock)
                book.recount = asyncio.get_running_loop().create_task(recount)
                # Its error reaches the creates that await it; if they have all gone, it is
                # read here so that asyncio does not report it as never retrieved.
                book.recount.add_done_callback(_read_error)
            # Shielded: a create whose client goes away leaves the re-read to the others.
            await asyncio.shield(book.recount)
            if len(book.games) + book.reserved >= limit:
                raise self._too_many_games(address, book)
        # Checked and taken in one step of the event loop: no other create between them.
        book.reserved += 1
        return GamePlace(book)

    @staticmethod
    def _too_many_games(address: str, book: _OpenGames) -> LimitExceeded:
        return LimitExceeded(
            f"{address} has {len(book.games) + book.reserved} games waiting for players, its most",
            5.0,
            reason="TOO_MANY_OPEN_GAMES",
        )


async def _recount(
    book: _OpenGames,
    load: Callable[[str], Awaitable[GameRecord]],
    clock: Callable[[], float],
) -> None:
    """Drop from ``book`` the games that no longer wait for players (filled, ended, expired).
    It reads a copy: creates that finish meanwhile append to the list, and keep their place."""
    try:
        closed = set()
        for count, game_id in enumerate(list(book.games), 1):
            if count % _RECOUNT_STEP == 0:
                # The embedded store answers without yielding: 500 games read in one step of
                # the event loop held every other call for a millisecond, again at each create.
                await asyncio.sleep(0)
            try:
                record = await load(game_id)
            except GameNotFound:
                closed.add(game_id)
                continue
            if record.status != ACTIVE or record.full:
                closed.add(game_id)
        if closed:
            book.games = [game_id for game_id in book.games if game_id not in closed]
    finally:
        book.recount = None
        book.recounted = clock()


def _read_error(task: asyncio.Task[None]) -> None:
    if not task.cancelled():
        task.exception()


def _name(method: str) -> str:
    return method.rpartition("/")[2]


def _seat_token(metadata: Any) -> str | None:
    """The call's seat token, to count its calls by; None when it has none, or a malformed one:
    the limits run before the request is decoded and must not answer for the handler, which
    refuses malformed bytes (INVALID_ARGUMENT) before a bad header (UNAUTHENTICATED)."""
    try:
        return bearer_token(metadata)
    except Unauthenticated:
        return None
