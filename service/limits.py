"""Limits that protect a public replica from one client: call rates, open games, open streams,
idle connections. Each has a protective default and a ``serve`` flag (:data:`FLAGS`).

- Calls per second, as token buckets (a rate and a burst), per client address on CreateGame,
  JoinGame, SubmitMove and StreamEvents, and per seat token on SubmitMove and StreamEvents
  (a seat's token is the client, whatever addresses it comes from).
- Open games per address: games it created whose seats are not all taken. Counted on this
  replica; when the count is reached, the games are re-read from the store, so a game that
  filled or ended on any replica no longer counts.
- Open event streams per connection and per replica.
- Connections (grpc options): keepalive pings, and a connection with no call for
  ``max_connection_idle`` seconds, or older than ``max_connection_age``, is closed (GOAWAY:
  clients reconnect by themselves).

A refusal is RESOURCE_EXHAUSTED with ErrorInfo reason ``RATE_LIMITED``, ``TOO_MANY_OPEN_GAMES``
or ``TOO_MANY_STREAMS`` and a ``google.rpc.RetryInfo`` saying when to try again. Limits are per
replica: N replicas admit up to N times as much, which is what a load balancer spreading one
client over them means.

The defaults are generous for people, bots and tournaments (a tournament's bots all come from
one address), and stop a flood: a burst of 2,000 CreateGame calls from one address meets them
after about 300.
"""

from __future__ import annotations

import argparse
import time
from collections import OrderedDict, defaultdict, deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Any

from service.auth import bearer_token, token_hash
from service.errors import GameNotFound, LimitExceeded
from service.store.base import ACTIVE, GameRecord

SERVICE = "/tricktable.v1.GameService/"
#: Addresses and tokens whose buckets a replica remembers; the least recently seen go first.
MAX_CLIENTS = 100_000


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
    seat_submit_move: Rate = Rate(500, 1000)  # per seat token
    stream_events: Rate = Rate(200, 2000)  # per address
    seat_stream_events: Rate = Rate(20, 100)  # per seat token
    open_games: int = 500  # per address; 0: no limit
    streams_per_connection: int = 1000  # 0: no limit
    streams_per_replica: int = 20_000  # 0: no limit
    keepalive_time_s: float = 60.0  # server pings an idle connection this often
    keepalive_timeout_s: float = 20.0  # and closes it when the ping is not answered in time
    max_connection_idle_s: float = 600.0  # no call for this long: closed (0: never)
    max_connection_age_s: float = 0.0  # closed at this age (0: never), after the grace
    max_connection_age_grace_s: float = 30.0

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
    ("submit_move", "--limit-submit-move", "SubmitMove calls per second per client address"),
    ("seat_submit_move", "--limit-seat-submit-move", "SubmitMove calls per second per seat"),
    ("stream_events", "--limit-stream-events", "StreamEvents calls per second per address"),
    ("seat_stream_events", "--limit-seat-stream-events", "StreamEvents calls per second per seat"),
    ("open_games", "--limit-open-games", "games waiting for players one address may have created"),
    ("streams_per_connection", "--limit-streams-per-connection", "open streams per connection"),
    ("streams_per_replica", "--limit-streams-per-replica", "open streams on this replica"),
    ("keepalive_time_s", "--keepalive-time", "seconds between keepalive pings"),
    ("keepalive_timeout_s", "--keepalive-timeout", "seconds a keepalive ping may go unanswered"),
    ("max_connection_idle_s", "--max-connection-idle", "close a connection idle this long"),
    ("max_connection_age_s", "--max-connection-age", "close a connection this old"),
    ("max_connection_age_grace_s", "--max-connection-age-grace", "calls' time to end then"),
)


_NO_ZERO = {"keepalive_timeout_s", "max_connection_age_grace_s"}


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
            off = "" if name in _NO_ZERO else "; 0: off"
            parser.add_argument(
                flag,
                type=convert,
                default=default,
                metavar=unit,
                help=f"{text} (default {default:g}{off})",
            )


def from_args(args: argparse.Namespace) -> LimitsConfig:
    values = {name: getattr(args, flag[2:].replace("-", "_")) for name, flag, _ in FLAGS}
    return replace(LimitsConfig(), **values)


class Buckets:
    """Token buckets by key (an address, a token's hash), the least recently used forgotten
    past :data:`MAX_CLIENTS` (a forgotten client starts again with a full bucket)."""

    def __init__(self, rate: Rate, clock: Callable[[], float] = time.monotonic) -> None:
        self._rate = rate
        self._clock = clock
        self._state: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str) -> float:
        """0 when a call is admitted (and counted), else the seconds until one would be."""
        per_s, burst = self._rate.per_s, self._rate.burst
        if per_s <= 0:
            return 0.0
        now = self._clock()
        tokens, then = self._state.pop(key, (float(burst), now))
        tokens = min(float(burst), tokens + (now - then) * per_s)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / per_s
        self._state[key] = (tokens, now)
        if len(self._state) > MAX_CLIENTS:
            self._state.popitem(last=False)
        return wait


def address_of(peer: str) -> str:
    """The client address of a grpc peer string (``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``,
    ``unix:/path``): the connection's port dropped."""
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rpartition(":")[0]
    if kind == "ipv6":
        return rest.rpartition(":")[0].strip("[]")
    return kind


@dataclass
class _Streams:
    total: int = 0
    by_connection: dict[str, int] = field(default_factory=lambda: defaultdict(int))


class Limits:
    """One replica's limits, shared by its doors: ``admit`` is asked before every call of the
    game service, over native gRPC (``ErrorInterceptor``) and over the web (``ErrorsToConnect``)."""

    def __init__(self, config: LimitsConfig, clock: Callable[[], float] = time.monotonic) -> None:
        self.config = config
        self._by_address = {
            f"{SERVICE}CreateGame": Buckets(config.create_game, clock),
            f"{SERVICE}JoinGame": Buckets(config.join_game, clock),
            f"{SERVICE}SubmitMove": Buckets(config.submit_move, clock),
            f"{SERVICE}StreamEvents": Buckets(config.stream_events, clock),
        }
        self._by_token = {
            f"{SERVICE}SubmitMove": Buckets(config.seat_submit_move, clock),
            f"{SERVICE}StreamEvents": Buckets(config.seat_stream_events, clock),
        }
        self._streams = _Streams()
        # Games each address created that may still wait for players; the least recently
        # creating addresses are forgotten past MAX_CLIENTS, like the buckets.
        self._open_games: OrderedDict[str, deque[str]] = OrderedDict()

    def admit(
        self, method: str, peer: str, metadata: Iterable[tuple[str, str | bytes]] | None
    ) -> Callable[[], None] | None:
        """Raise LimitExceeded if the call is over a limit; for a stream admitted, the
        function to call when it ends. Both doors ask: ``peer`` is the client's connection in
        grpc's form (``ipv4:1.2.3.4:5678``), ``metadata`` the call's headers (the seat token)."""
        buckets = self._by_address.get(method)
        if buckets is None:
            return None
        address = address_of(peer)
        wait = buckets.take(address)
        if wait > 0:
            raise LimitExceeded(f"too many {_name(method)} calls from {address}", wait)
        by_token = self._by_token.get(method)
        token = bearer_token(metadata) if by_token is not None else None
        if by_token is not None and token is not None:
            wait = by_token.take(token_hash(token))  # the secret itself is not kept
            if wait > 0:
                raise LimitExceeded(f"too many {_name(method)} calls for this seat", wait)
        if method == f"{SERVICE}StreamEvents":
            return self._open_stream(peer)
        return None

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

    async def before_create(self, peer: str, load: Callable[[str], Awaitable[GameRecord]]) -> None:
        """Refuse a game to an address that has ``open_games`` games waiting for players.
        ``load`` reads a game from the store: the count is re-checked there when it is reached."""
        limit = self.config.open_games
        if limit <= 0:
            return
        address = address_of(peer)
        games = self._open_games.get(address, deque())
        if len(games) < limit:
            return
        still_open: deque[str] = deque()
        for game_id in games:
            try:
                record = await load(game_id)
            except GameNotFound:
                continue
            if record.status == ACTIVE and not record.full:
                still_open.append(game_id)
        self._open_games[address] = still_open
        if len(still_open) >= limit:
            raise LimitExceeded(
                f"{address} has {len(still_open)} games waiting for players, its most",
                5.0,
                reason="TOO_MANY_OPEN_GAMES",
            )

    def created(self, peer: str, game_id: str) -> None:
        if self.config.open_games > 0:
            address = address_of(peer)
            games = self._open_games.pop(address, None) or deque()
            games.append(game_id)
            self._open_games[address] = games  # the most recent, last
            if len(self._open_games) > MAX_CLIENTS:
                self._open_games.popitem(last=False)


def _name(method: str) -> str:
    return method.rpartition("/")[2]
