"""The store's one Redis client: commands pipelined on one connection per node.

Every call of :class:`service.store.redis.RedisStore` goes through it (on a Redis Cluster,
through :class:`service.store.redis_cluster.ClusterPipelinedRedis`, which routes it to one of
these per master), and so does the move-notification subscription.

Why a client of the project's own, not redis-py's asyncio clients: redis-py runs each command
through its connection pool, retry wrapper, stream reader and response callbacks, and holds a
whole connection for it until the reply comes (~10x this client's CPU per call on one Redis).
Profiling the benchmark server put that per-call cost at a large share of the store's CPU per
move. Here many
callers share ONE connection: each command is written as soon as it is asked for (the writes
of one event-loop turn go out in one ``send``), its future queued, and replies, which Redis
sends in the order of the commands, resolve the queue in order (parsed by hiredis, in C).

Failure is simple, because a pipelined connection cannot lose its place: any error on the
socket, and any reply overdue by ``timeout_s`` (checked by one timer, not one per call), drops
the connection and fails every call in flight with a redis ``ConnectionError`` or
``TimeoutError`` (the store reports StoreUnavailable); the next call connects again. A command
that failed this way may or may not have run, as with any client.

Scripts go by EVALSHA; a NOSCRIPT reply (after SCRIPT FLUSH, a restart or a failover) loads the
script with EVAL, which also caches it again.

On a cluster redis-py's ``RedisCluster`` costs 6.6-7.1 times the client CPU per call of the
slot-routed form of this one (``tricktable bench cluster-client``; see
:mod:`service.store.redis_cluster`), some 15% of the server's CPU per move. What the store
used redis-py for besides (TLS, the URL forms, a second subscribe loop, the cold calls) is
small and is here, so one client serves both shapes. coredis and valkey-glide, the other kept
asyncio clients with cluster support, have not been measured against it.

URLs (:func:`connection_options`): ``redis://[[user]:password@]host[:port][/db]``,
``rediss://`` (TLS, verified against the system's CAs or ``ssl_ca_certs``) and
``unix://[[user]:password@]/path/to/socket[?db=N]``, with AUTH (user and password) and SELECT,
as redis-py spells them.
"""

from __future__ import annotations

import asyncio
import hashlib
import socket
import ssl
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import parse_qs, unquote, urlparse

import hiredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

#: How long a reply may be overdue before the connection is dropped.
DEFAULT_TIMEOUT_S = 5.0

Arg = bytes | str | int | float


def pack(args: tuple[Arg, ...]) -> bytes:
    """One command in RESP (an array of bulk strings), by hiredis (whose parser reads the
    replies): its C encoder takes a third of the time of one written in Python."""
    # hiredis's stub types the argument as a one-item tuple; any number of items is meant.
    packed: bytes = hiredis.pack_command(args)  # type: ignore[arg-type]
    return packed


#: TCP keepalive on every connection: a subscription waits quietly for as long as no game moves,
#: so a peer that vanished (a half-open connection after a failover or a dropped NAT entry)
#: would go unnoticed for hours at the system default; with these, in about a minute, and the
#: subscriber reconnects. (Calls on the command connection have their own reply timeout.)
KEEPALIVE_IDLE_S = 30
KEEPALIVE_INTERVAL_S = 10
KEEPALIVE_PROBES = 3


def keep_alive(sock: socket.socket | None) -> None:
    """Turn TCP keepalive on with the probes above (not for Unix sockets)."""
    if sock is None or sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (
        ("TCP_KEEPIDLE", KEEPALIVE_IDLE_S),
        ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL_S),
        ("TCP_KEEPCNT", KEEPALIVE_PROBES),
    ):
        option = getattr(socket, name, None)  # not every platform names all three
        if option is not None:
            sock.setsockopt(socket.IPPROTO_TCP, option, value)


#: What a subscription does with each message (a reply no call asked for).
OnPush = Callable[[Any], None]


class ConnectFailed(RedisConnectionError):
    """No connection could be made: no command was sent, so any command may be retried (on a
    cluster, at the node that owns its slot now)."""


class _Protocol(asyncio.Protocol):
    """One connection: writes batched per loop turn, replies matched to calls in order; on a
    subscription (``on_push``), the messages that follow the calls' replies go to it."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_push: OnPush | None = None) -> None:
        self._loop = loop
        self._reader = hiredis.Reader()
        self._transport: asyncio.Transport | None = None
        self._out: list[bytes] = []
        self._on_push = on_push
        self.pending: deque[tuple[asyncio.Future[Any], float]] = deque()
        self.lost: BaseException | None = None
        self.closed: asyncio.Future[None] = loop.create_future()  # done once it is dropped

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport, though not always an asyncio.Transport subclass (uvloop's are
        # their own classes with the same methods).
        self._transport = cast(asyncio.Transport, transport)
        keep_alive(transport.get_extra_info("socket"))

    def send(self, command: bytes) -> asyncio.Future[Any]:
        self.write(command)
        future = self._loop.create_future()
        self.pending.append((future, self._loop.time()))
        return future

    def write(self, command: bytes) -> None:
        """Queue a command whose reply goes to ``on_push`` (a subscription matches them)."""
        if self.lost is not None or self._transport is None:
            raise RedisConnectionError("the pipelined Redis connection is closed")
        if not self._out:
            self._loop.call_soon(self._flush)
        self._out.append(command)

    def _flush(self) -> None:
        out, self._out = self._out, []
        if out and self._transport is not None and self.lost is None:
            self._transport.write(b"".join(out))

    def data_received(self, data: bytes) -> None:
        self._reader.feed(data)
        while True:
            try:
                reply = self._reader.gets()
            except hiredis.ProtocolError as exc:
                self.fail(RedisConnectionError(f"Redis protocol error: {exc}"))
                return
            if reply is False:
                return
            if not self.pending:
                if self._on_push is not None:
                    self._on_push(reply)
                    continue
                # Nothing asked for it: the stream cannot be trusted.
                self.fail(RedisConnectionError("a Redis reply nobody asked for"))
                return
            future, _ = self.pending.popleft()
            if not future.done():  # a caller that was cancelled leaves its reply unread
                future.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.fail(RedisConnectionError(f"Redis closed the connection ({exc or 'EOF'})"))

    def fail(self, error: BaseException) -> None:
        """Drop the connection and fail every call in flight with ``error``."""
        if self.lost is None:
            self.lost = error
        if not self.closed.done():
            self.closed.set_result(None)
        pending, self.pending = self.pending, deque()
        for future, _ in pending:
            if not future.done():
                future.set_exception(error)
        if self._transport is not None:
            self._transport.abort()

    def overdue(self, now: float, timeout_s: float) -> bool:
        return bool(self.pending) and now - self.pending[0][1] > timeout_s


class PipelinedRedis:
    """Commands pipelined on one connection, (re)connected on demand. Bound to the event loop
    that first uses it, like a redis-py client."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 6379,
        path: str | None = None,
        db: int = 0,
        username: str | None = None,
        password: str | None = None,
        tls: ssl.SSLContext | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        """``tls``: connect over TLS with this context (the host name checked against the
        certificate when the context says so)."""
        self._address = (host, port, path)
        self._tls = tls
        self._hello: list[tuple[Arg, ...]] = []
        if password is not None:
            auth: tuple[Arg, ...] = ("AUTH", username, password) if username else ("AUTH", password)
            self._hello.append(auth)
        if db:
            self._hello.append(("SELECT", db))
        self._timeout_s = timeout_s
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Lock | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self._closed = False

    @classmethod
    def from_url(cls, url: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> PipelinedRedis:
        """From a ``redis://``, ``rediss://`` or ``unix://`` URL (:func:`connection_options`)."""
        o = connection_options(url)
        return cls(
            host=o.host,
            port=o.port,
            path=o.path,
            db=o.db,
            username=o.username,
            password=o.password,
            tls=o.tls,
            timeout_s=timeout_s,
        )

    async def execute(self, *args: Arg, asking: bool = False) -> Any:
        """Send one command and return its reply; an error reply raises ResponseError.
        ``asking``: preceded by ASKING on the same connection (a cluster's ASK redirection)."""
        protocol = self._protocol
        if protocol is None or protocol.lost is not None:
            protocol = await self._connect()
        if asking:
            # Sent in the same loop turn, so no other caller's command comes in between.
            asked = protocol.send(pack(("ASKING",)))
            reply = await protocol.send(pack(args))
            if isinstance(await asked, hiredis.ReplyError):
                raise _response_error(str(await asked))
        else:
            reply = await protocol.send(pack(args))
        if isinstance(reply, hiredis.ReplyError):
            raise _response_error(str(reply))
        return reply

    async def execute_together(
        self, first: tuple[Arg, ...], then: tuple[Arg, ...], *, asking: bool = False
    ) -> tuple[Any, Any]:
        """Two commands back to back on the same connection (a WAIT counts the replicas that
        have the writes of ITS connection): both replies; an error reply raises, the first's
        first (the second ran anyway)."""
        protocol = self._protocol
        if protocol is None or protocol.lost is not None:
            protocol = await self._connect()
        asked = protocol.send(pack(("ASKING",))) if asking else None
        sent = (protocol.send(pack(first)), protocol.send(pack(then)))
        replies = [await asked] if asked is not None else []
        replies += [await reply for reply in sent]
        for reply in replies:
            if isinstance(reply, hiredis.ReplyError):
                raise _response_error(str(reply))
        return replies[-2], replies[-1]

    async def evalsha_wait(
        self,
        script: Script,
        keys: list[str],
        args: list[Arg],
        replicas: int,
        timeout_ms: int,
        *,
        asking: bool = False,
    ) -> tuple[Any, int]:
        """The script, then ``WAIT replicas timeout_ms`` on the same connection: its reply
        and how many replicas acknowledged every write this connection made so far."""
        wait: tuple[Arg, ...] = ("WAIT", replicas, timeout_ms)
        try:
            reply, acked = await self.execute_together(
                ("EVALSHA", script.sha, len(keys), *keys, *args), wait, asking=asking
            )
        except NoScriptError:
            reply, acked = await self.execute_together(
                ("EVAL", script.source, len(keys), *keys, *args), wait, asking=asking
            )
        return reply, int(acked)

    async def evalsha(
        self, script: Script, keys: list[str], args: list[Arg], *, asking: bool = False
    ) -> Any:
        try:
            return await self.execute("EVALSHA", script.sha, len(keys), *keys, *args, asking=asking)
        except NoScriptError:  # this node has not cached it (new, restarted, promoted)
            return await self.execute("EVAL", script.source, len(keys), *keys, *args, asking=asking)

    async def _connect(self) -> _Protocol:
        if self._closed:
            raise RedisConnectionError("the pipelined Redis connection is closed")
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            if self._protocol is not None and self._protocol.lost is None:
                return self._protocol  # another caller connected while this one waited
            protocol = await self._open(None)
            self._protocol = protocol
            if self._watchdog is None:
                self._arm_watchdog()
            return protocol

    async def _open(self, on_push: OnPush | None) -> _Protocol:
        """A new connection, authenticated and on its database."""
        loop = asyncio.get_running_loop()
        host, port, path = self._address
        try:
            async with asyncio.timeout(self._timeout_s):
                if path is not None:
                    _, protocol = await loop.create_unix_connection(
                        lambda: _Protocol(loop, on_push), path
                    )
                else:
                    _, protocol = await loop.create_connection(
                        lambda: _Protocol(loop, on_push),
                        host,
                        port,
                        ssl=self._tls,
                        server_hostname=host if self._tls is not None else None,
                    )
                for command in self._hello:
                    reply = await protocol.send(pack(command))
                    if isinstance(reply, hiredis.ReplyError):
                        protocol.fail(RedisConnectionError(str(reply)))
                        raise _response_error(str(reply))
        except TimeoutError as exc:
            raise ConnectFailed("connecting to Redis timed out") from exc
        except OSError as exc:  # ssl.SSLError too: a certificate refused
            raise ConnectFailed(f"cannot connect to Redis: {exc}") from exc
        return protocol

    async def subscriber(self, on_message: OnPush) -> Subscription:
        """A connection of its own on which every reply goes to ``on_message`` (commands are
        sent with :meth:`Subscription.write`; the caller matches their confirmations)."""
        return Subscription(await self._open(on_message))

    async def psubscribe(self, pattern: str, on_message: OnPush) -> Subscription:
        """A connection of its own subscribed to ``pattern``: ``on_message`` gets every reply
        after the subscription's (RESP2 ``pmessage`` arrays), called as the bytes are parsed,
        with no task in between. Messages are not timed: a quiet channel is not a fault."""
        protocol = await self._open(on_message)
        try:
            async with asyncio.timeout(self._timeout_s):
                confirmed = await protocol.send(pack(("PSUBSCRIBE", pattern)))
        except TimeoutError as exc:
            protocol.fail(RedisTimeoutError("PSUBSCRIBE was not confirmed"))
            raise RedisTimeoutError("PSUBSCRIBE was not confirmed") from exc
        if not (isinstance(confirmed, list) and confirmed[:1] == [b"psubscribe"]):
            protocol.fail(RedisConnectionError(f"PSUBSCRIBE answered {confirmed!r}"))
            raise RedisConnectionError(f"PSUBSCRIBE answered {confirmed!r}")
        return Subscription(protocol)

    def _arm_watchdog(self) -> None:
        # One timer per connection, not one per call: a quarter of the timeout late at most.
        loop = asyncio.get_running_loop()
        self._watchdog = loop.call_later(self._timeout_s / 4, self._check_overdue)

    def _check_overdue(self) -> None:
        self._watchdog = None
        protocol = self._protocol
        if protocol is None or self._closed:
            return
        if protocol.lost is None and protocol.overdue(
            asyncio.get_running_loop().time(), self._timeout_s
        ):
            protocol.fail(RedisTimeoutError(f"no reply from Redis in {self._timeout_s} s"))
        if protocol.lost is None:
            self._arm_watchdog()

    async def close(self) -> None:
        self._closed = True
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self._protocol is not None:
            self._protocol.fail(RedisConnectionError("the pipelined Redis connection is closed"))
            self._protocol = None


class Subscription:
    """A live subscription (:meth:`PipelinedRedis.psubscribe`)."""

    def __init__(self, protocol: _Protocol) -> None:
        self._protocol = protocol

    async def closed(self) -> BaseException:
        """Wait until the connection is dropped; why it was."""
        await self._protocol.closed
        return self._protocol.lost or RedisConnectionError("closed")

    def write(self, *args: Arg) -> None:
        """Send a command; its reply goes to the subscription's ``on_message``."""
        self._protocol.write(pack(args))

    @property
    def lost(self) -> bool:
        return self._protocol.lost is not None

    def when_closed(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the connection is dropped."""
        self._protocol.closed.add_done_callback(lambda _: callback())

    def close(self) -> None:
        self._protocol.fail(RedisConnectionError("subscription closed"))


class Script:
    """A Lua script and its SHA1, for :meth:`PipelinedRedis.evalsha`."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()  # Redis' own script id


def _response_error(message: str) -> ResponseError:
    if message.startswith("NOSCRIPT"):
        return NoScriptError(message)
    return ResponseError(message)


@dataclass(frozen=True, slots=True)
class ConnectionOptions:
    """Where and how to connect, as a URL says (:func:`connection_options`)."""

    host: str = "127.0.0.1"
    port: int = 6379
    path: str | None = None  # a Unix socket instead of host and port
    db: int = 0
    username: str | None = None
    password: str | None = None
    tls: ssl.SSLContext | None = None


#: redis-py's spellings of ``ssl_cert_reqs``.
_CERT_REQS = {"none": ssl.CERT_NONE, "optional": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}
_TLS_PARAMS = ("ssl_cert_reqs", "ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_check_hostname")


def connection_options(url: str) -> ConnectionOptions:
    """Parse ``redis://[[user]:password@]host[:port][/db]``, ``rediss://…`` (TLS) or
    ``unix://[[user]:password@]/path[?db=N]``. TLS takes redis-py's query parameters:
    ``ssl_ca_certs`` (a PEM bundle to verify the server with; default: the system's),
    ``ssl_cert_reqs`` (``required``, the default, ``optional`` or ``none``),
    ``ssl_check_hostname`` (``true``, the default, or ``false``: certificates made for an IP
    or a name other than the one connected to), and ``ssl_certfile`` / ``ssl_keyfile`` (a
    client certificate). Anything else is refused with a clear error."""
    parsed = urlparse(url)
    query = {k: v[-1] for k, v in parse_qs(parsed.query, keep_blank_values=True).items()}
    unknown = set(query) - {"db", *_TLS_PARAMS}
    if unknown:
        raise ValueError(f"unknown Redis URL parameter(s): {', '.join(sorted(unknown))}")
    if parsed.scheme not in ("redis", "rediss", "unix"):
        raise ValueError(f"a Redis URL starts redis://, rediss:// or unix://, not {url!r}")
    if parsed.scheme != "rediss" and any(k in query for k in _TLS_PARAMS):
        raise ValueError("ssl_* parameters need a rediss:// URL")
    db_text = query.get("db") or (parsed.path.lstrip("/") if parsed.scheme != "unix" else "")
    if db_text and not db_text.isdigit():
        raise ValueError(f"a Redis database is a number, not {db_text!r}")
    try:
        port = parsed.port or 6379
    except ValueError as exc:
        raise ValueError(f"a bad port in the Redis URL: {exc}") from None
    return ConnectionOptions(
        host=parsed.hostname or "127.0.0.1",
        port=port,
        path=parsed.path if parsed.scheme == "unix" else None,
        db=int(db_text or 0),
        username=unquote(parsed.username) if parsed.username else None,
        password=unquote(parsed.password) if parsed.password is not None else None,
        tls=_tls_context(query) if parsed.scheme == "rediss" else None,
    )


def _tls_context(query: dict[str, str]) -> ssl.SSLContext:
    reqs = query.get("ssl_cert_reqs", "required").lower()
    if reqs not in _CERT_REQS:
        raise ValueError(f"ssl_cert_reqs must be none, optional or required, not {reqs!r}")
    check = query.get("ssl_check_hostname", "true").lower()
    if check not in ("true", "false", "1", "0", "yes", "no"):
        raise ValueError(f"ssl_check_hostname must be true or false, not {check!r}")
    context = ssl.create_default_context(cafile=query.get("ssl_ca_certs"))
    context.check_hostname = check in ("true", "1", "yes") and _CERT_REQS[reqs] != ssl.CERT_NONE
    context.verify_mode = _CERT_REQS[reqs]
    if "ssl_certfile" in query:
        context.load_cert_chain(query["ssl_certfile"], query.get("ssl_keyfile"))
    elif "ssl_keyfile" in query:
        raise ValueError("ssl_keyfile needs ssl_certfile")
    return context
