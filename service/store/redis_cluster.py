"""Redis Cluster on the hot path: the pipelined client (:mod:`service.store.redis_pipe`) routed
by slot, and move notifications through sharded pub/sub.

Why the pipelined client extended, not redis-py's ``RedisCluster``: measured with
``tricktable bench cluster-client`` (the store's game-load script, EVALSHA on one game's keys,
64 concurrent callers, games on all three masters of a test cluster; a 2-core machine shared
with other agents, two runs), redis-py's cluster client costs 61-62 µs of client CPU per call
(11,500-12,200 calls/s), this one 8.7-9.3 µs (57,000-72,000 calls/s): 6.6-7.1 times less. A
move makes two or three such calls on a server spending about 900 µs per move, so redis-py
would add some 15% to the server's CPU per move; this client adds one CRC16
(``binascii.crc_hqx``, in C) and a list lookup per call (``tricktable bench service``: 897 µs
of server CPU per move on the cluster against 860 µs on one Redis, in one run, noisy).

:class:`ClusterPipelinedRedis` keeps the slot map (``CLUSTER SLOTS``) and one pipelined
connection per master. A command goes to the master of its key's slot:

- ``MOVED slot host:port``: the slot has a new owner (resharding, failover): the map entry is
  corrected at once, a full refresh is scheduled, and the command is sent again there;
- ``ASK slot host:port``: the slot is migrating and this key has gone: the command is sent
  there once, preceded by ``ASKING`` on the same connection;
- ``TRYAGAIN`` (a multi-key command during a migration), ``CLUSTERDOWN`` (a master failed and
  no replica is promoted yet) and a connection that cannot be made (a killed master): the map
  is refreshed and the command retried with back-off, until ``timeout_s`` has passed;
- a connection lost with the command in flight: the command may or may not have run, so it
  is NOT retried here (as with one Redis): the store reports StoreUnavailable and the client
  retries with its request id, which the commit script answers idempotently. The map is
  refreshed for the next call.

Scripts go by EVALSHA to each node; a node that has not cached one (new, restarted, a promoted
replica) answers NOSCRIPT and gets EVAL, per node, as on one Redis.

Notifications (:class:`ShardedMoveNotifier`): a plain ``PUBLISH`` on a cluster is broadcast to
every node, and a pattern subscription would receive every game's moves on every replica. The
commit script publishes with ``SPUBLISH`` on the game's own channel ``tt:{id}:moved`` (the same
slot as its keys), and a replica ``SSUBSCRIBE``\\s to a game's channel, on the master owning its
slot, only while it has waiters on that game (and a while after, so a game in play is not
subscribed again at every move). A slot that moves away, or a node that is lost, drops its
channels: their waiters are woken to re-read the version, and their next wait subscribes on the
new owner.
"""

from __future__ import annotations

import asyncio
import binascii
import contextlib
import random
import ssl
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import hiredis
import structlog
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.redis_notify import RECHECK, MoveNotifier, moved_channel
from service.store.redis_pipe import (
    DEFAULT_TIMEOUT_S,
    Arg,
    ConnectFailed,
    PipelinedRedis,
    Script,
    Subscription,
    connection_options,
)

log = structlog.get_logger("tricktable.store")

T = TypeVar("T")
SLOTS = 16384
Address = tuple[str, int]
#: Back-off between retries of a command its cluster could not take yet (seconds).
_BACKOFF_S = (0.02, 0.05, 0.1, 0.2, 0.4, 0.8)
#: Redirections followed for one command before it fails (a map that keeps changing).
_MAX_REDIRECTS = 16


def key_slot(key: bytes | str) -> int:
    """The cluster slot of ``key``: CRC16 of its hash tag (the part between the first ``{`` and
    the next ``}``, when not empty), else of the whole key, modulo 16384."""
    data = key.encode() if isinstance(key, str) else key
    start = data.find(b"{")
    if start != -1:
        end = data.find(b"}", start + 1)
        if end > start + 1:
            data = data[start + 1 : end]
    return binascii.crc_hqx(data, 0) % SLOTS


def _address(text: str) -> Address:
    host, _, port = text.rpartition(":")
    return host, int(port)


def _redirect(error: ResponseError) -> tuple[str, int, Address] | None:
    """(kind, slot, address) of a MOVED or ASK error reply, else None."""
    parts = str(error).split()
    if len(parts) == 3 and parts[0] in ("MOVED", "ASK"):
        return parts[0], int(parts[1]), _address(parts[2])
    return None


def _retryable(error: ResponseError) -> bool:
    return str(error).startswith(("TRYAGAIN", "CLUSTERDOWN"))


class ClusterPipelinedRedis:
    """Pipelined commands routed to the master of their key's slot. The same calls as
    :class:`PipelinedRedis` (``execute``, ``evalsha``, ``close``); a keyless command (PING)
    goes to every master. Bound to the event loop that first uses it."""

    def __init__(
        self,
        seeds: list[Address],
        *,
        username: str | None = None,
        password: str | None = None,
        tls: ssl.SSLContext | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        if not seeds:
            raise ValueError("a Redis Cluster needs at least one seed node")
        self._seeds = list(seeds)
        self._username = username
        self._password = password
        self._tls = tls  # every node alike (the nodes' certificates name what they announce)
        self.timeout_s = timeout_s
        self._slots: list[Address | None] = [None] * SLOTS
        self._nodes: dict[Address, PipelinedRedis] = {}
        self._known: set[Address] = set()  # every node CLUSTER SLOTS named, replicas too
        self._refreshing: asyncio.Task[None] | None = None
        self._closed = False

    @classmethod
    def from_url(cls, url: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> ClusterPipelinedRedis:
        """From a seed node's ``redis://[user:password@]host:port[/0]`` URL, or ``rediss://``
        for TLS to every node (:func:`service.store.redis_pipe.connection_options`; a cluster
        has database 0 only)."""
        options = connection_options(url)
        if options.path is not None:
            raise ValueError(f"a Redis Cluster URL must be redis://host:port, not {url!r}")
        if options.db:
            raise ValueError(f"a Redis Cluster has database 0 only, not {options.db!r}")
        return cls(
            [(options.host, options.port)],
            username=options.username,
            password=options.password,
            tls=options.tls,
            timeout_s=timeout_s,
        )

    def node(self, address: Address) -> PipelinedRedis:
        """The pipelined connection to one node (made on first use)."""
        found = self._nodes.get(address)
        if found is None:
            if self._closed:
                raise RedisConnectionError("the cluster client is closed")
            host, port = address
            found = PipelinedRedis(
                host=host,
                port=port,
                username=self._username,
                password=self._password,
                tls=self._tls,
                timeout_s=self.timeout_s,
            )
            self._nodes[address] = found
        return found

    @property
    def closed(self) -> bool:
        return self._closed

    def masters(self) -> list[Address]:
        return sorted({a for a in self._slots if a is not None})

    async def owner(self, slot: int) -> Address:
        """The master serving ``slot``, from the map (read on first use)."""
        address = self._slots[slot]
        if address is None:
            await self.refresh()
            address = self._slots[slot]
            if address is None:
                raise RedisError(f"CLUSTERDOWN no node serves slot {slot}")
        return address

    def refresh_soon(self) -> None:
        """Read the slot map again in the background (one refresh at a time)."""
        if self._refreshing is None or self._refreshing.done():
            self._refreshing = asyncio.get_running_loop().create_task(self._refresh())
            self._refreshing.add_done_callback(_retrieve)

    async def refresh(self) -> None:
        """Read the slot map again now (joining a refresh under way)."""
        self.refresh_soon()
        assert self._refreshing is not None
        await asyncio.shield(self._refreshing)

    async def _refresh(self) -> None:
        # Known masters first, then every other node seen, then the seeds (a seed may be the
        # master that was killed); the first answer wins.
        masters = self.masters()
        random.shuffle(masters)
        last: Exception | None = None
        for address in dict.fromkeys([*masters, *sorted(self._known), *self._seeds]):
            try:
                async with asyncio.timeout(self.timeout_s):
                    reply = await self.node(address).execute("CLUSTER", "SLOTS")
            except (RedisError, TimeoutError) as exc:
                last = exc
                continue
            slots: list[Address | None] = [None] * SLOTS
            for first, last_slot, *nodes in reply:
                seen = [(n[0].decode() or address[0], int(n[1])) for n in nodes]  # "": this one
                self._known.update(seen)
                slots[first : last_slot + 1] = [seen[0]] * (last_slot + 1 - first)
            self._slots = slots
            return
        raise RedisConnectionError(f"no node of the Redis Cluster answered CLUSTER SLOTS: {last}")

    async def execute(self, *args: Arg) -> Any:
        command = str(args[0]).upper() if not isinstance(args[0], bytes) else args[0].decode()
        if len(args) < 2 or command in ("PING", "SCRIPT", "CLUSTER", "INFO"):
            return await self._everywhere(args)
        key = args[3] if command in ("EVAL", "EVALSHA") else args[1]
        assert isinstance(key, (bytes, str)), key
        return await self._routed(
            key_slot(key), lambda node, asking: node.execute(*args, asking=asking)
        )

    async def evalsha(self, script: Script, keys: list[str], args: list[Arg]) -> Any:
        return await self._routed(
            key_slot(keys[0]),
            lambda node, asking: node.evalsha(script, keys, args, asking=asking),
        )

    async def execute_together(
        self, first: tuple[Arg, ...], then: tuple[Arg, ...]
    ) -> tuple[Any, Any]:
        """:meth:`PipelinedRedis.execute_together` on the master of ``first``'s key."""
        key = first[1]
        assert isinstance(key, (bytes, str)), key
        return await self._routed(
            key_slot(key),
            lambda node, asking: node.execute_together(first, then, asking=asking),
        )

    async def evalsha_wait(
        self, script: Script, keys: list[str], args: list[Arg], replicas: int, timeout_ms: int
    ) -> tuple[Any, int]:
        """:meth:`PipelinedRedis.evalsha_wait` on the master of the keys' slot: the WAIT on
        the node, and the connection, that ran the script."""
        return await self._routed(
            key_slot(keys[0]),
            lambda node, asking: node.evalsha_wait(
                script, keys, args, replicas, timeout_ms, asking=asking
            ),
        )

    async def _everywhere(self, args: tuple[Arg, ...]) -> Any:
        """A keyless command (PING, and such) on every master: every shard is reachable; the
        first reply. A master that fails has the map read again and all are asked again (a
        failed-over shard answers at its new master), until ``timeout_s`` has passed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        failures = 0
        while True:
            try:
                if not self.masters():
                    await self.refresh()
                calls = (self.node(a).execute(*args) for a in self.masters())
                replies = await asyncio.gather(*calls)
                return replies[0]
            except (RedisConnectionError, RedisTimeoutError, ResponseError) as exc:
                if isinstance(exc, ResponseError) and not _retryable(exc):
                    raise
                if loop.time() >= deadline:
                    raise
            delay = _BACKOFF_S[min(failures, len(_BACKOFF_S) - 1)]
            failures += 1
            await asyncio.sleep(min(delay, max(0.0, deadline - loop.time())))
            with contextlib.suppress(RedisError):
                await self.refresh()

    async def _routed(self, slot: int, call: Callable[[PipelinedRedis, bool], Awaitable[T]]) -> T:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        asking: Address | None = None
        redirects = failures = 0
        while True:
            address = asking or await self.owner(slot)
            try:
                return await call(self.node(address), asking is not None)
            except ResponseError as exc:
                moved = _redirect(exc)
                if moved is not None and redirects < _MAX_REDIRECTS:
                    redirects += 1
                    kind, moved_slot, target = moved
                    if kind == "MOVED":
                        self._slots[moved_slot] = target
                        self.refresh_soon()  # others have probably moved too
                        asking = None
                    else:
                        asking = target
                    continue
                if not _retryable(exc) or loop.time() >= deadline:
                    raise
                error: Exception = exc
            except ConnectFailed as exc:  # the command was never sent: try the new owner
                if loop.time() >= deadline:
                    raise
                error = exc
            except (RedisConnectionError, RedisTimeoutError):
                self.refresh_soon()  # in flight: it may have run; the caller decides
                raise
            asking = None
            delay = _BACKOFF_S[min(failures, len(_BACKOFF_S) - 1)]
            failures += 1
            log.debug("cluster command retried", why=str(error), retry_s=delay)
            await asyncio.sleep(min(delay, max(0.0, deadline - loop.time())))
            with contextlib.suppress(RedisError):
                await self.refresh()

    async def close(self) -> None:
        self._closed = True
        if self._refreshing is not None:
            self._refreshing.cancel()
        for node in list(self._nodes.values()):
            await node.close()
        self._nodes.clear()


def _retrieve(task: asyncio.Task[None]) -> None:
    """A background refresh's failure is only logged: the next command refreshes again."""
    if not task.cancelled() and task.exception() is not None:
        log.debug("cluster slot map refresh failed", why=repr(task.exception()))


@dataclass(eq=False)
class _Shard:
    """This replica's subscription connection to one master, and what it asked on it."""

    address: Address
    subscription: Subscription
    games: set[str] = field(default_factory=set)
    #: Commands sent, in order, each with the future its confirmation resolves (None for an
    #: unsubscribe nobody waits on). Replies come in the same order.
    asked: deque[tuple[bytes, str, asyncio.Future[None] | None]] = field(default_factory=deque)


_CHANNEL_PREFIX = b"tt:{"
_CHANNEL_SUFFIX = b"}:moved"


def _game_of(channel: Any) -> str:
    if not (
        isinstance(channel, bytes)
        and channel.startswith(_CHANNEL_PREFIX)
        and channel.endswith(_CHANNEL_SUFFIX)
    ):
        raise ValueError(f"unexpected channel {channel!r}")
    return channel[len(_CHANNEL_PREFIX) : -len(_CHANNEL_SUFFIX)].decode()


class ShardedMoveNotifier(MoveNotifier):
    """Move notifications on a Redis Cluster: ``SSUBSCRIBE`` per game with waiters, on the
    master owning its slot (see the module docstring). The waiting itself is
    :class:`MoveNotifier`'s."""

    #: How long a game's channel stays subscribed after its last waiter left.
    LINGER_S = 30.0

    def __init__(self, cluster: ClusterPipelinedRedis, linger_s: float = LINGER_S) -> None:
        super().__init__(None)
        self._cluster = cluster
        self._linger_s = linger_s
        self._shards: dict[Address, _Shard] = {}
        self._opening: dict[Address, asyncio.Lock] = {}
        self._game_shard: dict[str, _Shard] = {}
        self._used: dict[str, float] = {}  # game -> when a wait last asked for it
        self._failures = 0

    def following(self, game_id: str) -> bool:
        """Whether this replica is subscribed to the game's notifications now."""
        return game_id in self._game_shard

    async def _follow(self, game_id: str, timeout_s: float) -> bool:
        loop = asyncio.get_running_loop()
        self._used[game_id] = loop.time()
        if game_id in self._game_shard:
            return True
        channel = moved_channel(game_id)
        try:
            async with asyncio.timeout(min(timeout_s, self._cluster.timeout_s)):
                shard = await self._shard(await self._cluster.owner(key_slot(channel)))
                confirmed: asyncio.Future[None] = loop.create_future()
                shard.asked.append((b"ssubscribe", game_id, confirmed))
                shard.subscription.write("SSUBSCRIBE", channel)
                await confirmed
            shard.games.add(game_id)
            self._game_shard[game_id] = shard
            self._failures = 0
        except (RedisError, OSError, TimeoutError) as exc:
            # A master lost or a slot moved: the map is read again, and until then the caller
            # re-reads the version after a pause rather than in a tight loop.
            self._cluster.refresh_soon()
            delay = _BACKOFF_S[min(self._failures, len(_BACKOFF_S) - 1)]
            self._failures += 1
            log.debug("sharded subscription failed", game_id=game_id, why=repr(exc))
            await asyncio.sleep(min(delay, timeout_s))
        # Just subscribed (or not at all): a commit before now was not heard, so the caller
        # reads the version once; its next wait is woken by the subscription.
        return False

    async def _shard(self, address: Address) -> _Shard:
        """The subscription connection to a master (one per master, opened on first use)."""
        async with self._opening.setdefault(address, asyncio.Lock()):
            shard = self._shards.get(address)
            if shard is not None and not shard.subscription.lost:
                return shard
            holder: list[_Shard] = []
            subscription = await self._cluster.node(address).subscriber(
                lambda reply: self._on_reply(holder[0], reply)
            )
            shard = _Shard(address, subscription)
            holder.append(shard)
            self._shards[address] = shard
            subscription.when_closed(lambda: self._lost(shard))
            return shard

    def _on_reply(self, shard: _Shard, reply: Any) -> None:
        """Every reply on a shard's subscription: a message, a confirmation of what was asked,
        an error answering it, or an unsubscription the node made itself (its slot moved)."""
        try:
            if isinstance(reply, list) and reply[:1] == [b"smessage"]:
                _, channel, data = reply
                version = int(data)
                if version < 0:
                    raise ValueError("a negative version")
                self.notify(_game_of(channel), version)
                return
            head = shard.asked[0] if shard.asked else None
            if isinstance(reply, list) and reply[:1] == [b"sunsubscribe"]:
                game_id = _game_of(reply[1])
                if head is None or head[:2] != (b"sunsubscribe", game_id):
                    self._drop(shard, game_id)  # the node's own doing: the slot moved away
                    return
            if head is None:
                raise ValueError("a reply nobody asked for")
            shard.asked.popleft()
            _, game_id, confirmed = head
            if isinstance(reply, hiredis.ReplyError):
                if _redirect(ResponseError(str(reply))) is not None:
                    self._cluster.refresh_soon()
                if confirmed is not None and not confirmed.done():
                    confirmed.set_exception(ResponseError(str(reply)))
            elif confirmed is not None and not confirmed.done():
                confirmed.set_result(None)
        except (TypeError, ValueError, IndexError) as exc:
            log.warning(
                "malformed sharded notification ignored", reply=repr(reply)[:200], why=str(exc)
            )

    def _drop(self, shard: _Shard, game_id: str) -> None:
        """The game's channel is no longer subscribed there: its waiters re-read."""
        shard.games.discard(game_id)
        if self._game_shard.get(game_id) is shard:
            del self._game_shard[game_id]
        for future in self._waiters.pop(game_id, ()):
            if not future.done():
                future.set_result(RECHECK)

    def _lost(self, shard: _Shard) -> None:
        """A shard's connection dropped (a master killed, a failover): its games re-read and
        subscribe again, on their slots' owners."""
        if self._shards.get(shard.address) is shard:
            del self._shards[shard.address]
        for game_id in list(shard.games):
            self._drop(shard, game_id)
        error = RedisConnectionError("the sharded subscription was lost")
        for _, _, confirmed in shard.asked:
            if confirmed is not None and not confirmed.done():
                confirmed.set_exception(error)
        shard.asked.clear()
        if not self._cluster.closed:
            with contextlib.suppress(RuntimeError):  # no running loop: closing
                self._cluster.refresh_soon()

    async def _run(self) -> None:
        """Unsubscribe games nobody has waited on for ``linger_s`` (until cancelled)."""
        self.subscribed.set()  # subscriptions are made per game, on demand
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self._linger_s / 2)
            now = loop.time()
            for game_id, used in list(self._used.items()):
                if game_id not in self._game_shard and now - used >= self._linger_s:
                    del self._used[game_id]  # a subscription that failed, long ago
            for game_id, shard in list(self._game_shard.items()):
                if game_id in self._waiters or now - self._used.get(game_id, 0) < self._linger_s:
                    continue
                del self._game_shard[game_id]
                self._used.pop(game_id, None)
                shard.games.discard(game_id)
                if not shard.subscription.lost:
                    shard.asked.append((b"sunsubscribe", game_id, None))
                    shard.subscription.write("SUNSUBSCRIBE", moved_channel(game_id))

    async def close(self) -> None:
        await super().close()
        for shard in list(self._shards.values()):
            shard.subscription.close()
        self._shards.clear()
        self._game_shard.clear()
