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

Notifications: each step that adds events publishes the tournament's new version on
``tt:{t.<id>}:moved`` (:func:`tournament_channel`: the channel of a "game" ``t.<id>``, which no
game id can be, a ``.`` being no game id's character), in its script, before it writes (as the
games' commit does); ``SPUBLISH`` on a cluster, where the channel is in the tournament's own slot.
So the replica's one move subscription (:mod:`service.store.redis_notify`: a pattern on one
Redis, a shard channel per followed id on a cluster) wakes a tournament's streams on every
replica, with no read while nothing happens.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

from redis.exceptions import RedisError

from service.errors import StoreUnavailable
from service.store.redis_cluster import ClusterPipelinedRedis, ShardedMoveNotifier
from service.store.redis_notify import MoveNotifier, moved_channel
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

# Each step that adds events PUBLISHes the new version (ARGV's last: the tournament's channel)
# before its first write: a script error does not undo earlier writes, and a PUBLISH an ACL
# refuses must fail the step whole. Subscribers get the message once the script is done.

# KEYS: meta games results events   ARGV: number game_id event_json channel   The new version.
_START = """
local m = redis.call('HMGET', KEYS[1], 'status', 'total', 'at_once', 'version')
if not m[1] then return -1 end
if m[1] ~= 'running' then return 0 end
local started = redis.call('HLEN', KEYS[2])
local n = tonumber(ARGV[1])
if started ~= n or n >= tonumber(m[2]) then return 0 end
if started - redis.call('HLEN', KEYS[3]) >= tonumber(m[3]) then return 0 end
local nv = tonumber(m[4]) + 1
redis.call('PUBLISH', ARGV[4], nv)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[4], ARGV[3])
redis.call('HSET', KEYS[1], 'version', nv)
return nv
"""

# KEYS: meta results events   ARGV: number result_json expected event_json end_event_json channel
# {outcome, the new version (0 when nothing was written)}
_COUNT = """
local m = redis.call('HMGET', KEYS[1], 'status', 'total', 'version')
if not m[1] then return {-1, 0} end
if m[1] ~= 'running' then return {3, 0} end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return {2, 0} end
local counted = redis.call('HLEN', KEYS[2])
if counted ~= tonumber(ARGV[3]) then return {0, 0} end
local last = counted + 1 >= tonumber(m[2])
local nv = tonumber(m[3]) + 1
if last then nv = nv + 1 end
redis.call('PUBLISH', ARGV[6], nv)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[3], ARGV[4])
if last then
  redis.call('RPUSH', KEYS[3], ARGV[5])
  redis.call('HSET', KEYS[1], 'status', 'finished')
end
redis.call('HSET', KEYS[1], 'version', nv)
return {1, nv}
"""

# KEYS: meta events   ARGV: event_json channel   The new version.
_CANCEL = """
local m = redis.call('HMGET', KEYS[1], 'status', 'version')
if not m[1] then return -1 end
if m[1] ~= 'running' then return 0 end
local nv = tonumber(m[2]) + 1
redis.call('PUBLISH', ARGV[2], nv)
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'version', nv)
redis.call('RPUSH', KEYS[2], ARGV[1])
return nv
"""


def _scripts(source: str) -> tuple[Script, Script]:
    """A step's script on one Redis, and on a cluster (where the notification goes on the
    tournament's own shard channel, not broadcast to every node as a PUBLISH is there)."""
    sharded = source.replace("redis.call('PUBLISH',", "redis.call('SPUBLISH',")
    assert sharded.count("SPUBLISH") == 1
    return Script(source), Script(sharded)


_START_SCRIPTS = _scripts(_START)
_COUNT_SCRIPTS = _scripts(_COUNT)
_CANCEL_SCRIPTS = _scripts(_CANCEL)

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


def tournament_channel(tournament_id: str) -> str:
    """The id the move notifier knows a tournament by (see the module's notes)."""
    return f"t.{tournament_id}"


def new_notifier(client: PipelinedRedis | ClusterPipelinedRedis) -> MoveNotifier:
    """A move notifier of its own on ``client`` (a process that has its game store's shares
    that one instead: :func:`~service.tournaments.redis_bots.redis_stores`)."""
    if isinstance(client, ClusterPipelinedRedis):
        return ShardedMoveNotifier(client)
    return MoveNotifier(client)


def _keys(tournament_id: str) -> list[str]:
    return [f"tt:{{t.{tournament_id}}}:{part}" for part in ("meta", "games", "results", "events")]


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    return dict(zip(flat[::2], flat[1::2], strict=True))


class RedisTournamentStore(TournamentStore):
    def __init__(
        self,
        client: PipelinedRedis | ClusterPipelinedRedis,
        notifier: MoveNotifier | None = None,
    ) -> None:
        """``notifier``: the process' move notifier to wait on (None: one of its own, closed
        with the store)."""
        self._r = client
        self._own_notifier = notifier is None
        self.notifier = new_notifier(client) if notifier is None else notifier
        self._sharded = isinstance(client, ClusterPipelinedRedis)

    async def close(self) -> None:
        if self._own_notifier:
            await self.notifier.close()
        await self._r.close()

    def _script(self, scripts: tuple[Script, Script]) -> Script:
        return scripts[1] if self._sharded else scripts[0]

    def _notified(self, tournament_id: str, version: int) -> None:
        """This replica's own streams learn of a step now, not when its echo arrives."""
        self.notifier.notify(tournament_channel(tournament_id), version)

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
        keys = _keys(tournament_id)
        args: list[Any] = [number, game_id, event, moved_channel(tournament_channel(tournament_id))]
        reply = int(await self._call(self._r.evalsha(self._script(_START_SCRIPTS), keys, args)))
        if reply == -1:
            raise TournamentNotFound(tournament_id)
        if reply > 0:
            self._notified(tournament_id, reply)
        return reply > 0

    async def count_result(
        self, tournament_id: str, result: Result, expected: int, event: str, end_event: str
    ) -> str:
        meta, _, results, events = _keys(tournament_id)
        channel = moved_channel(tournament_channel(tournament_id))
        args: list[Any] = [result.number, result.to_json(), expected, event, end_event, channel]
        script = self._script(_COUNT_SCRIPTS)
        outcome, version = await self._call(self._r.evalsha(script, [meta, results, events], args))
        if outcome == -1:
            raise TournamentNotFound(tournament_id)
        if outcome == 1:
            self._notified(tournament_id, int(version))
        return _COUNT_REPLIES[int(outcome)]

    async def cancel(self, tournament_id: str, event: str) -> bool:
        meta, _, _, events = _keys(tournament_id)
        args: list[Any] = [event, moved_channel(tournament_channel(tournament_id))]
        reply = int(
            await self._call(self._r.evalsha(self._script(_CANCEL_SCRIPTS), [meta, events], args))
        )
        if reply == -1:
            raise TournamentNotFound(tournament_id)
        if reply > 0:
            self._notified(tournament_id, reply)
        return reply > 0

    async def events(self, tournament_id: str, from_version: int) -> list[str]:
        events = _keys(tournament_id)[3]
        raw = await self._call(self._r.execute("LRANGE", events, max(from_version, 1) - 1, -1))
        return [r.decode() for r in raw]

    async def wait(self, tournament_id: str, after: int, wait_s: float) -> None:
        # On the replica's one subscription: no command while nothing happens. It also returns
        # when notifications may have been missed (a resubscription, a cluster channel just
        # subscribed): the caller reads then, as it does after ``wait_s``.
        await self.notifier.wait(tournament_channel(tournament_id), after, wait_s)

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
