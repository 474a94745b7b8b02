"""``RedisTournamentStore``: tournaments in Redis, shared by every replica.

Keys of one tournament share the hash tag ``{t.<id>}`` (one cluster slot), so each step below
is one Lua script on one slot:

    tt:{t.<id>}:meta     hash    spec (TournamentSpec json), status, version, total
    tt:{t.<id>}:games    hash    number -> game id, for every game started
    tt:{t.<id>}:results  hash    number -> Result json, for every game counted
    tt:{t.<id>}:events   list    event json; version n is element n - 1

The index of running tournaments ``tt:tournaments:due`` (scored by when to look again) and the
listing ``tt:tournaments`` (scored by creation time) live in other slots: a tournament is listed
and indexed before its keys are written, so a crash between the steps leaves an entry whose
tournament is gone (dropped when swept or listed), never a tournament nobody advances. Bots are
``tt:bot:{<id>}`` (a BotRecord json).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from redis.exceptions import RedisError

from service.errors import StoreUnavailable
from service.store.redis_cluster import ClusterPipelinedRedis
from service.store.redis_pipe import PipelinedRedis, Script
from service.tournaments.spec import TournamentSpec
from service.tournaments.standings import Result
from service.tournaments.store import (
    ALREADY,
    COUNTED,
    ENDED,
    STALE,
    TournamentNotFound,
    TournamentState,
    TournamentStore,
)

T = TypeVar("T")
_DUE = "tt:tournaments:due"
_ALL = "tt:tournaments"

# KEYS: meta   ARGV: spec_json total at_once   A new tournament, whole (version 0: no event).
_CREATE = Script("""
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'spec', ARGV[1], 'status', 'running', 'version', 0,
           'total', ARGV[2], 'at_once', ARGV[3])
return 1
""")

# KEYS: meta games results events   ARGV: number game_id event_json
_START = Script("""
local m = redis.call('HMGET', KEYS[1], 'status', 'total', 'at_once')
if not m[1] then return -1 end
if m[1] ~= 'running' then return 0 end
local started = redis.call('HLEN', KEYS[2])
local n = tonumber(ARGV[1])
if started ~= n or n >= tonumber(m[2]) then return 0 end
if started - redis.call('HLEN', KEYS[3]) >= tonumber(m[3]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[4], ARGV[3])
return redis.call('HINCRBY', KEYS[1], 'version', 1)
""")

# KEYS: meta results events   ARGV: number result_json expected event_json end_event_json
_COUNT = Script("""
local m = redis.call('HMGET', KEYS[1], 'status', 'total')
if not m[1] then return -1 end
if m[1] ~= 'running' then return 3 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 2 end
if redis.call('HLEN', KEYS[2]) ~= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[3], ARGV[4])
local added = 1
if redis.call('HLEN', KEYS[2]) >= tonumber(m[2]) then
  redis.call('RPUSH', KEYS[3], ARGV[5])
  redis.call('HSET', KEYS[1], 'status', 'finished')
  added = 2
end
redis.call('HINCRBY', KEYS[1], 'version', added)
return 1
""")

# KEYS: meta events   ARGV: event_json
_CANCEL = Script("""
local s = redis.call('HGET', KEYS[1], 'status')
if not s then return -1 end
if s ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'cancelled')
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('HINCRBY', KEYS[1], 'version', 1)
return 1
""")

# KEYS: meta games results   The tournament as one reply.
_LOAD = Script("""
return {redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]),
        redis.call('HGETALL', KEYS[3])}
""")

# KEYS: due   ARGV: now limit lease_until   Take due entries, leasing each until lease_until.
_TAKE_DUE = Script("""
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], 'XX', ARGV[3], id) end
return ids
""")

_COUNT_REPLIES = {1: COUNTED, 2: ALREADY, 0: STALE, 3: ENDED}


async def unavailable_on_error(pending: Awaitable[T]) -> T:
    """A Redis call's reply; its failure as StoreUnavailable."""
    try:
        return await pending
    except RedisError as exc:
        raise StoreUnavailable(f"the tournament store is unavailable: {exc}") from exc


def _keys(tournament_id: str) -> list[str]:
    return [f"tt:{{t.{tournament_id}}}:{part}" for part in ("meta", "games", "results", "events")]


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return dict(zip(flat[::2], flat[1::2], strict=True))


class RedisTournamentStore(TournamentStore):
    def __init__(self, client: PipelinedRedis | ClusterPipelinedRedis) -> None:
        self._r = client

    async def close(self) -> None:
        await self._r.close()

    _call = staticmethod(unavailable_on_error)

    async def create(self, spec: TournamentSpec, total: int) -> None:
        tid = spec.tournament_id
        meta = _keys(tid)[0]
        await self._call(self._r.execute("ZADD", _ALL, spec.created_at_ms, tid))
        await self._call(self._r.execute("ZADD", _DUE, 0, tid))
        args: list[Any] = [spec.to_json(), total, spec.games_at_once]
        if not await self._call(self._r.evalsha(_CREATE, [meta], args)):
            raise ValueError(f"tournament {tid!r} exists")

    async def load(self, tournament_id: str) -> TournamentState:
        keys = _keys(tournament_id)[:3]
        meta, games, results = await self._call(self._r.evalsha(_LOAD, keys, []))
        fields = _pairs(meta)
        if b"spec" not in fields:
            raise TournamentNotFound(tournament_id)
        return TournamentState(
            spec=TournamentSpec.from_json(fields[b"spec"]),
            status=fields[b"status"].decode(),
            version=int(fields[b"version"]),
            games={int(n): g.decode() for n, g in _pairs(games).items()},
            results={int(n): Result.from_json(r) for n, r in _pairs(results).items()},
        )

    async def start_game(self, tournament_id: str, number: int, game_id: str, event: str) -> bool:
        meta, games, results, events = _keys(tournament_id)
        reply = await self._call(
            self._r.evalsha(_START, [meta, games, results, events], [number, game_id, event])
        )
        if reply == -1:
            raise TournamentNotFound(tournament_id)
        return bool(reply)

    async def count_result(
        self, tournament_id: str, result: Result, expected: int, event: str, end_event: str
    ) -> str:
        meta, _, results, events = _keys(tournament_id)
        args: list[Any] = [result.number, result.to_json(), expected, event, end_event]
        reply = await self._call(self._r.evalsha(_COUNT, [meta, results, events], args))
        if reply == -1:
            raise TournamentNotFound(tournament_id)
        return _COUNT_REPLIES[int(reply)]

    async def cancel(self, tournament_id: str, event: str) -> bool:
        meta, _, _, events = _keys(tournament_id)
        reply = await self._call(self._r.evalsha(_CANCEL, [meta, events], [event]))
        if reply == -1:
            raise TournamentNotFound(tournament_id)
        return bool(reply)

    async def events(self, tournament_id: str, from_version: int) -> list[str]:
        events = _keys(tournament_id)[3]
        raw = await self._call(self._r.execute("LRANGE", events, max(from_version, 1) - 1, -1))
        return [r.decode() for r in raw]

    async def wait(self, tournament_id: str, after: int, wait_s: float) -> None:
        # A short sleep between looks: a tournament's events come at the pace of whole games,
        # and a watcher costs one LLEN per look.
        events = _keys(tournament_id)[3]
        step = 0.1
        waited = 0.0
        while waited < wait_s:
            if int(await self._call(self._r.execute("LLEN", events))) > after:
                return
            await asyncio.sleep(step)
            waited += step

    async def due(self, now_ms: int, limit: int, lease_ms: int) -> list[str]:
        # A look before the take: an idle replica's sweep costs one read (as the deadline
        # sweep's does), not a script run ten times a second.
        if not await self._call(
            self._r.execute("ZRANGEBYSCORE", _DUE, "-inf", now_ms, "LIMIT", 0, 1)
        ):
            return []
        raw = await self._call(
            self._r.evalsha(_TAKE_DUE, [_DUE], [now_ms, limit, now_ms + lease_ms])
        )
        return [r.decode() for r in raw]

    async def look_again(self, tournament_id: str, at_ms: int | None) -> None:
        if at_ms is None:
            await self._call(self._r.execute("ZREM", _DUE, tournament_id))
        else:
            await self._call(self._r.execute("ZADD", _DUE, at_ms, tournament_id))

    async def page(self, limit: int, before: tuple[int, str] | None) -> list[TournamentState]:
        top = "+inf" if before is None else before[0]
        raw = await self._call(
            self._r.execute(
                "ZREVRANGEBYSCORE", _ALL, top, "-inf", "WITHSCORES", "LIMIT", 0, limit + 64
            )
        )
        found: list[TournamentState] = []
        for member, score in zip(raw[::2], raw[1::2], strict=True):
            tid = member.decode()
            if before is not None and (int(float(score)), tid) >= before:
                continue
            try:
                found.append(await self.load(tid))
            except TournamentNotFound:
                continue
            if len(found) >= limit:
                break
        return found
