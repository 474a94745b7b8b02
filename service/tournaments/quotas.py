"""What one client may hold at once, counted in the store so that the counts hold across
replicas: the hosted tournaments it created that still run, and the bots it registered
(``--limit-running-tournaments``, ``--limit-bots``: :class:`service.limits.LimitsConfig`).

A client's places of one kind are one sorted set in the store (member -> when it was taken),
under a hash of the client's address (no address is written to the store). Taking a place is one
atomic step that checks the count and records the member (:meth:`QuotaStore.take`), so replicas
racing for a client's last place never both get it.

A place is given back lazily: when a client is at its limit, each member is looked at, and those
that no longer count (a tournament that has ended, on whichever replica) are dropped before the
take is tried once more. So nothing has to give a place back at the moment a tournament ends,
and a replica that dies between taking a place and writing what it took it for leaks nothing for
good. A member that is not in the store (yet) counts for :data:`GRACE_MS` after it was taken:
what it was taken for may be being written by another replica.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from service.errors import LimitExceeded
from service.store.redis_cluster import ClusterPipelinedRedis
from service.store.redis_pipe import PipelinedRedis, Script
from service.tournaments.redis_store import unavailable_on_error

TOURNAMENTS = "tournaments"  # running tournaments a client created
BOTS = "bots"  # bots a client registered
#: How long a place taken for something not in the store yet still counts.
GRACE_MS = 60_000
#: What a refusal says to wait: the grace above, the longest a place can stay taken by a create
#: or registration that never wrote what it took it for. Otherwise a place frees only when one of
#: the client's tournaments ends (which nobody can tell) and a bot's never does; the RetryInfo is
#: there as on every refusal, and the reason says that this is a count, not a rate.
RETRY_S = GRACE_MS / 1000

#: Whether a member still holds its place: True, False (it has ended), None (not in the store).
Counts = Callable[[str], Awaitable[bool | None]]

_WHAT = {TOURNAMENTS: "running tournaments created", BOTS: "bots registered"}


def owner_of(client: str) -> str:
    """The key part a client's places are kept under: a hash of its address."""
    return hashlib.sha256(client.encode()).hexdigest()[:32]


class QuotaStore(ABC):
    @abstractmethod
    async def take(self, kind: str, owner: str, member: str, limit: int, now_ms: int) -> bool:
        """Record ``member`` as one of ``owner``'s places of ``kind`` if fewer than ``limit``
        are (True), in one atomic step; False (nothing written) at the limit. A member held
        already is True."""

    @abstractmethod
    async def held(self, kind: str, owner: str) -> list[tuple[str, int]]:
        """``owner``'s places of ``kind``: each member and when it was taken (ms)."""

    @abstractmethod
    async def drop(self, kind: str, owner: str, members: Sequence[str]) -> None:
        """Give ``members``' places back."""


class MemoryQuotaStore(QuotaStore):
    """One process: each method runs without awaiting, so each is atomic on its loop."""

    def __init__(self) -> None:
        self._places: dict[tuple[str, str], dict[str, int]] = {}

    async def take(self, kind: str, owner: str, member: str, limit: int, now_ms: int) -> bool:
        places = self._places.setdefault((kind, owner), {})
        if member in places:
            return True
        if len(places) >= limit:
            return False
        places[member] = now_ms
        return True

    async def held(self, kind: str, owner: str) -> list[tuple[str, int]]:
        return list(self._places.get((kind, owner), {}).items())

    async def drop(self, kind: str, owner: str, members: Sequence[str]) -> None:
        places = self._places.get((kind, owner), {})
        for member in members:
            places.pop(member, None)


# KEYS: places   ARGV: member limit now_ms   1: taken (or held already), 0: at the limit.
_TAKE = Script("""
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
""")


def _key(kind: str, owner: str) -> str:
    return f"tt:quota:{{{owner}}}:{kind}"


class RedisQuotaStore(QuotaStore):
    """``tt:quota:{<owner>}:<kind>``: a sorted set, member -> when its place was taken (ms)."""

    _call = staticmethod(unavailable_on_error)

    def __init__(self, client: PipelinedRedis | ClusterPipelinedRedis) -> None:
        self._r = client

    async def take(self, kind: str, owner: str, member: str, limit: int, now_ms: int) -> bool:
        args: list[Any] = [member, limit, now_ms]
        return bool(await self._call(self._r.evalsha(_TAKE, [_key(kind, owner)], args)))

    async def held(self, kind: str, owner: str) -> list[tuple[str, int]]:
        raw = await self._call(self._r.execute("ZRANGE", _key(kind, owner), 0, -1, "WITHSCORES"))
        return [(m.decode(), int(float(at))) for m, at in zip(raw[::2], raw[1::2], strict=True)]

    async def drop(self, kind: str, owner: str, members: Sequence[str]) -> None:
        if members:
            await self._call(self._r.execute("ZREM", _key(kind, owner), *members))


class Quotas:
    def __init__(self, store: QuotaStore) -> None:
        self._store = store

    async def take(
        self,
        kind: str,
        client: str,
        member: str,
        *,
        limit: int,
        counts: Counts,
        now_ms: int,
    ) -> None:
        """A place of ``kind`` for ``member`` among ``client``'s (an address:
        :class:`service.proxies.ClientAddresses`), or LimitExceeded (RESOURCE_EXHAUSTED with a
        RetryInfo) when ``limit`` of them still count (``counts``); 0: no limit."""
        if limit <= 0:
            return
        owner = owner_of(client)
        if await self._store.take(kind, owner, member, limit, now_ms):
            return
        gone = []
        for held, taken_ms in await self._store.held(kind, owner):
            counted = await counts(held)
            if counted is False or (counted is None and now_ms - taken_ms >= GRACE_MS):
                gone.append(held)
        if gone:
            await self._store.drop(kind, owner, gone)
            if await self._store.take(kind, owner, member, limit, now_ms):
                return
        raise _refusal(kind, f"at most {limit} {_WHAT[kind]} from one address ({client}) at a time")


def _refusal(kind: str, message: str) -> LimitExceeded:
    """A refusal at ``kind``'s limit, with a reason of its own rather than RATE_LIMITED: waiting
    for a rate's bucket to refill would not help, only one of the client's places freeing. (Each
    reason is written out, so tests/service/test_error_reasons.py sees it used.)"""
    if kind == BOTS:
        return LimitExceeded(message, RETRY_S, reason="TOO_MANY_BOTS")
    return LimitExceeded(message, RETRY_S, reason="TOO_MANY_TOURNAMENTS")
