"""``RedisStore``: games in Redis, shared by any number of stateless server replicas.

Keys of one game share the hash tag ``{game_id}`` (DESIGN.md decision 4), so every script below
touches one cluster slot:

    tt:{id}:meta      hash    game_type, options, seed, seat_count, created_at_ms, version,
                              status, resigned_seat, time_control, timing (Timing json),
                              moved_at (ms: play began, or the last step)
    tt:{id}:seats     hash    seat -> SeatRecord json
    tt:{id}:snapshot  string  engine snapshot (a cache: rebuilt from the moves when unreadable)
    tt:{id}:moves     list    MoveRecord json, in order
    tt:{id}:requests  hash    request id -> version it produced
    tt:{id}:events    stream  one entry per version, id "<version>-1", field d = EventBatch json
    tt:{id}:seen      hash    seat -> when last seen, ms (presence; not history: it expires on
                              its own, ``finished_ttl_s`` after the last touch)

The lobby index ``tt:lobby`` (a sorted set of games with open seats, by creation time) lives in
another slot; it is advisory and every listed game is re-read before it is shown. So does
``tt:playing``, the public games being played (to watch): a game enters it when its last seat
is taken (or at once, made full) and leaves it when it ends; an entry found stale when listed
(the game ended or expired) is dropped then. Unlisted games are in neither.

A move is one Lua script (:data:`_COMMIT`): request id and version check, snapshot, appended
move, request id, event batch, and the expiry of a finished game, in one atomic round trip. It
also publishes the new version on the channel ``tt:{id}:moved``, which wakes the turn waiters of
every replica (:mod:`service.store.redis_notify`). Every call, and the subscription, go through
one client (:mod:`service.store.redis_pipe`, which says why it is the project's own). On a Redis
Cluster (``cluster=True``) it routes each call by slot and the script publishes with SPUBLISH
instead, on the game's own shard (:mod:`service.store.redis_cluster`). With ``open_ttl_s`` a
game waiting for players expires that long after its creation unless its seats all fill
(:data:`_TAKE_SEAT` then removes the expiry).

Deadlines (DESIGN.md decision 9). A clocked game's timing (its clocks and next deadline) is a
field of its meta hash, written by the commit script (or the seat-taking script that fills the
table) in the same atomic step as the version: that field is the truth. Replicas find due games
through the index ``tt:deadlines``, a sorted set scored by deadline whose members are
``<game id>|<version>|<deadline ms>``. Choice for Redis Cluster (issue 14): the commit script
never touches the index, which lives in another slot; the member is written by a separate,
idempotent ZADD *before* the script runs. So every deadline a commit can write is indexed before
it exists, a crash between the two steps leaves only a stale entry (never a missing one; a
commit refused drops its own at once, unless the winner wrote the same member), and no member
is rescored later but by a claim (two writers of one member write the same score). A sweeper
(:mod:`service.scheduler`) claims due members, loads the game, fires only if the member names
the game's own deadline and it is due (an ordinary compare-and-set commit on its version) and
then drops the member (:meth:`RedisDeadlines.done`); a member whose game moved on, ended or
expired is just dropped, one naming a later version than the game's (a commit in flight)
released. A claim (:data:`_CLAIM`) reads the due members and, in the same script, scores each
at the end of the claimer's lease, out of every other sweeper's reach until then: one replica
computes each step (a bot's move), and one that dies holds its members only until their lease
ends. The deadline a timing member stands for is in its name, so its score is free for the
lease; a member found due at a score above its own deadline was claimed before and its lease
ran out (``lapsed``). Releasing scores it back at its deadline, unless it was claimed again.
Should one index key grow hot, it can be split into buckets by a hash of the game id
with no change to this reasoning.

Idleness is indexed lazily, so that a move costs no index write: the one member
``<game id>|idle`` per game, scored by when the game would count as deserted as last known (play
began, or a sweeper's last look). Moves only push the true deadline (``moved_at`` + the idle
time) later, so the entry is never late, and its score only ever rises (``ZADD GT``); a sweeper
that finds it due either ends the game (a compare-and-set commit) or moves it to the later
deadline (``ZADD XX GT``: never back into the index of a game that has ended since), and drops
it only if no one has moved it since (:data:`_DROP_IDLE`).

A game's deadlines leave the index when it ends: on one Redis, the commit script that ends it
removes its idle member in the same atomic step (it names ``tt:deadlines`` as a key of its own
there); on a Cluster, where the index is in another slot, the commit call removes it right after
the script, as it does the lobby entry. The commit that ends a clocked game writes a timing with
no deadline and drops the one it replaced, as every commit does. What a crash between those
steps, or a game that expires before it ever ends (``open_ttl_s``), leaves behind is dropped
when it comes due: a sweeper finds its game ended or gone.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable
from typing import Any, TypeVar

from redis.exceptions import RedisError

from engine.core.options import OptionValue
from service.errors import GameNotFound, StoreUnavailable, VersionConflict
from service.store.base import (
    ACTIVE,
    IDLE,
    MATCHED_KEEP_MS,
    MAX_DEVICES,
    MAX_PLAYER_GAMES,
    QUEUE_BOT,
    TIMING,
    Access,
    Commit,
    DeadlineIndex,
    Due,
    EventBatch,
    Filled,
    GameExists,
    GameRecord,
    GameStore,
    LobbyPosition,
    MoveRecord,
    PlayerIndex,
    PresenceLog,
    QueueStep,
    QuickPlayQueues,
    RequestSeen,
    SeatRecord,
    Ticket,
    Timing,
)
from service.store.redis_cluster import ClusterPipelinedRedis, ShardedMoveNotifier
from service.store.redis_notify import MoveNotifier, moved_channel
from service.store.redis_pipe import Arg, PipelinedRedis, Script

T = TypeVar("T")
_Client = PipelinedRedis | ClusterPipelinedRedis
_LOBBY = "tt:lobby"
_PLAYING = "tt:playing"
_DEADLINES = "tt:deadlines"
_PARTS = ("meta", "seats", "snapshot", "moves", "requests", "events")

# KEYS: meta seats snapshot moves requests events [deadlines: on one Redis, not on a Cluster]
# ARGV: expected_version snapshot move_json request_id batch_json status resigned_seat ttl_s
#       moved_channel timing_json ('' leaves the timing as it is) moved_at_ms ('' leaves it)
#       idle_member (the game's idle entry in the deadline index, dropped when the game ends)
# The PUBLISH wakes the turn waiters of every replica (service.store.redis_notify). It comes
# before the first write: a script error does not undo earlier writes, and a PUBLISH that an ACL
# refuses must fail the commit whole. Subscribers get the message only once the script is done.
_COMMIT = """
local v = redis.call('HGET', KEYS[1], 'version')
if not v then return {-1, 0} end
if ARGV[4] ~= '' then
  local seen = redis.call('HGET', KEYS[5], ARGV[4])
  if seen then return {2, tonumber(seen)} end
end
if tonumber(v) ~= tonumber(ARGV[1]) then return {0, tonumber(v)} end
local nv = tonumber(v) + 1
redis.call('PUBLISH', ARGV[9], nv)
redis.call('HSET', KEYS[1], 'version', nv, 'status', ARGV[6])
if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], 'moved_at', ARGV[11]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'resigned_seat', ARGV[7]) end
local replaced = ''
if ARGV[10] ~= '' then
  replaced = redis.call('HGET', KEYS[1], 'timing') or ''
  redis.call('HSET', KEYS[1], 'timing', ARGV[10])
end
redis.call('SET', KEYS[3], ARGV[2])
if ARGV[3] ~= '' then redis.call('RPUSH', KEYS[4], ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[5], ARGV[4], nv) end
redis.call('XADD', KEYS[6], nv .. '-1', 'd', ARGV[5])
local ttl = tonumber(ARGV[8])
if ARGV[6] ~= 'active' and ttl > 0 then
  for i = 1, 6 do redis.call('EXPIRE', KEYS[i], ttl) end
end
if ARGV[6] ~= 'active' and KEYS[7] then redis.call('ZREM', KEYS[7], ARGV[12]) end
return {1, nv, replaced}
"""

# KEYS: deadlines   ARGV: idle member, deadline ms   Drop a game's idle entry that was handled
# unless someone has moved it since (a join, or another sweeper that saw the game move on).
_DROP_IDLE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
"""

# KEYS: deadlines   ARGV: now ms, limit, lease end   Claim: the due members with their scores,
# earliest first, each scored at the lease's end (out of every other claim's reach until then).
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, ARGV[2])
for i = 1, #due, 2 do redis.call('ZADD', KEYS[1], ARGV[3], due[i]) end
return due
"""

# KEYS: deadlines   ARGV: member, score it must have (the claim's), new score, GT ('1': only
# later)   Move a claimed or handled member, unless someone has moved it since; returns 1 if it did.
_RESCORE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return 0 end
if tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
  return 1
end
if ARGV[4] == '1' and tonumber(ARGV[3]) > tonumber(score) then
  redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
  return 1
end
return 0
"""

# KEYS: meta seats snapshot   The record as one reply (the snapshot '' when there is none).
_LOAD = """
return {redis.call('HGETALL', KEYS[1]), redis.call('HGETALL', KEYS[2]),
        redis.call('GET', KEYS[3]) or ''}
"""

# KEYS: meta events   ARGV: first stream id   A game's batches from a version, or false when
# there is no game: one round trip, on the pipelined connection, for a stream's every read.
_READ_EVENTS = """
local entries = redis.call('XRANGE', KEYS[2], ARGV[1], '+')
if #entries == 0 and redis.call('EXISTS', KEYS[1]) == 0 then return false end
return entries
"""

_COMMIT_SCRIPT = Script(_COMMIT)
# On a cluster: the notification goes on the game's own shard channel (same slot as its keys),
# not broadcast to every node as a PUBLISH is there.
_SHARDED_COMMIT_SCRIPT = Script(_COMMIT.replace("redis.call('PUBLISH',", "redis.call('SPUBLISH',"))
assert _SHARDED_COMMIT_SCRIPT.source.count("SPUBLISH") == 1
#: How long a commit waits for its replicas (wait_replicas) before it is refused.
WAIT_TIMEOUT_MS = 1000
_LOAD_SCRIPT = Script(_LOAD)
_DROP_IDLE_SCRIPT = Script(_DROP_IDLE)
_CLAIM_SCRIPT = Script(_CLAIM)
_RESCORE_SCRIPT = Script(_RESCORE)
_READ_EVENTS_SCRIPT = Script(_READ_EVENTS)

# KEYS: meta seats snapshot moves requests events
# ARGV: seat seat_json timing_json moved_at_ms ('' when the take cannot fill the table)
#       refuse_fill ('1': a take that would fill the table writes nothing and answers -2)
#       access (the game's access json the take was checked against; '' checks nothing)
# A game waiting for players may carry an expiry (open_ttl_s): the seats hash, created here,
# shares it, and a table that fills is kept (PERSIST) until it finishes. The timing (a clocked
# game's clocks, which start when play can) is written only by the take that fills the table.
_TAKE_SEAT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
if ARGV[6] ~= '' and (redis.call('HGET', KEYS[1], 'access') or '') ~= ARGV[6] then return 0 end
if ARGV[5] == '1'
  and redis.call('HLEN', KEYS[2]) + 1 >= tonumber(redis.call('HGET', KEYS[1], 'seat_count')) then
  return -2
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local taken = redis.call('HLEN', KEYS[2])
if ARGV[4] ~= '' and taken >= tonumber(redis.call('HGET', KEYS[1], 'seat_count')) then
  redis.call('HSET', KEYS[1], 'moved_at', ARGV[4])
  if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'timing', ARGV[3]) end
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  if taken >= tonumber(redis.call('HGET', KEYS[1], 'seat_count')) then
    for i = 1, 6 do redis.call('PERSIST', KEYS[i]) end
  else
    redis.call('PEXPIRE', KEYS[2], ttl)
  end
end
return taken
"""

# KEYS: meta seats   ARGV: seat token_hash
_FREE_SEAT = """
local meta = redis.call('HMGET', KEYS[1], 'version', 'seat_count')
if not meta[1] then return -1 end
if tonumber(meta[1]) ~= 0 then return 0 end
if redis.call('HLEN', KEYS[2]) >= tonumber(meta[2]) then return 0 end
local taken = redis.call('HGET', KEYS[2], ARGV[1])
if not taken then return 0 end
if cjson.decode(taken)['token_hash'] ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""


# KEYS: meta seats snapshot events   ARGV: ttl_s snapshot opening_json seats_json field value …
# A new game in one step (a failure leaves no half-created game), with the seats taken at once
# (server bots: {"seat": SeatRecord json}); with ttl_s > 0 it expires unless its seats fill
# (_TAKE_SEAT).
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
for seat, record in pairs(cjson.decode(ARGV[4])) do redis.call('HSET', KEYS[2], seat, record) end
redis.call('SET', KEYS[3], ARGV[2])
redis.call('XADD', KEYS[4], '0-1', 'd', ARGV[3])
if tonumber(ARGV[1]) > 0 then
  for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[1]) end
end
return 1
"""

# Every call goes through the one pipelined client: on a cluster, redis-py's cluster client cost
# about 1.3 ms of server CPU per game created (against 0.3 ms on one Redis).
# KEYS: meta   ARGV: expected access json, new access json   A code revoked or reissued.
_SET_ACCESS = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if (redis.call('HGET', KEYS[1], 'access') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'access', ARGV[2])
return 1
"""

# The quick play queue (service.matchmaking), one pool's keys under its own hash tag {pool}:
#   tt:qp:{pool}:tickets   hash  ticket hash -> Ticket json (waiting, or seated at a game)
#   tt:qp:{pool}:waiting   zset  waiting tickets, by when they queued (the queue's order)
#   tt:qp:{pool}:seen      hash  waiting ticket -> when its stream last looked (ms)
#   tt:qp:{pool}:seated    zset  seated tickets, by when (kept MATCHED_KEEP_MS for a resume)
#   tt:qp:{pool}:def       string  what game the queue makes (the service's json)
# KEYS: those five   ARGV: ticket_hash new_ticket_json ('' only looks) now_ms grace_ms seats
#       game_id definition keep_ms ttl_s bot
# One atomic step (see QuickPlayQueues.queue_step): the tickets gone past their grace leave, the
# ticket is added or looked at, and a full table (or this ticket's bot time) seats tickets
# at the new game, each once. Every key expires ttl_s after the queue's last step.
_QUEUE_STEP = """
local now = tonumber(ARGV[3])
if ARGV[7] ~= '' then redis.call('SET', KEYS[5], ARGV[7], 'NX') end
local def = redis.call('GET', KEYS[5]) or ''
for _, h in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if tonumber(redis.call('HGET', KEYS[3], h) or '0') < now - tonumber(ARGV[4]) then
    redis.call('ZREM', KEYS[2], h)
    redis.call('HDEL', KEYS[3], h)
    redis.call('HDEL', KEYS[1], h)
  end
end
for _, h in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[8]))) do
  redis.call('ZREM', KEYS[4], h)
  redis.call('HDEL', KEYS[1], h)
end
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then
  if ARGV[2] == '' then return {'', redis.call('ZCARD', KEYS[2]), def} end
  raw = ARGV[2]
  redis.call('HSET', KEYS[1], ARGV[1], raw)
  redis.call('ZADD', KEYS[2], cjson.decode(raw)['queued_ms'], ARGV[1])
end
local ticket = cjson.decode(raw)
if ticket['game_id'] == '' then
  redis.call('HSET', KEYS[3], ARGV[1], now)
  local waiting = redis.call('ZRANGE', KEYS[2], 0, -1)
  local seats = tonumber(ARGV[5])
  local bot_at = tonumber(ticket['bot_at_ms'])
  if #waiting >= seats or (bot_at > 0 and bot_at <= now) then
    local taken = {ARGV[1]}
    for _, h in ipairs(waiting) do
      if #taken >= seats then break end
      if h ~= ARGV[1] then table.insert(taken, h) end
    end
    local people, match = {}, {}
    for n, h in ipairs(taken) do people[n] = cjson.decode(redis.call('HGET', KEYS[1], h)) end
    for n = 1, seats do
      local p = people[n]
      if p then
        match[n] = {token_hash = p['token_hash'], player_name = p['player_name']}
        if p['player_id'] ~= nil and p['player_id'] ~= '' then
          match[n]['player_id'] = p['player_id']
        end
      else
        match[n] = {token_hash = '', player_name = ARGV[10], bot = ARGV[10]}
      end
    end
    for n, h in ipairs(taken) do
      local p = people[n]
      p['game_id'] = ARGV[6]
      p['seat'] = n - 1
      p['match'] = match
      redis.call('HSET', KEYS[1], h, cjson.encode(p))
      redis.call('ZREM', KEYS[2], h)
      redis.call('HDEL', KEYS[3], h)
      redis.call('ZADD', KEYS[4], now, h)
    end
    raw = redis.call('HGET', KEYS[1], ARGV[1])
  end
end
for i = 1, 5 do redis.call('EXPIRE', KEYS[i], ARGV[9]) end
return {raw, redis.call('ZCARD', KEYS[2]), def}
"""

# KEYS: tickets waiting seen   ARGV: ticket_hash   -1: no such ticket, 0: seated, 1: left.
_QUEUE_CANCEL = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return -1 end
if cjson.decode(raw)['game_id'] ~= '' then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 1
"""

# KEYS: seats   ARGV: seat player_id token_hash max_devices   A seat taken again by its player
# from another device: the new token's hash joins its devices (the oldest leave past the max).
_ADD_DEVICE = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local s = cjson.decode(raw)
if type(s['player_id']) ~= 'string' or s['player_id'] == '' or s['player_id'] ~= ARGV[2] then
  return 0
end
local d = s['devices']
if type(d) ~= 'table' or d[1] == nil then d = {} end
table.insert(d, ARGV[3])
while #d > tonumber(ARGV[4]) do table.remove(d, 1) end
s['devices'] = d
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(s))
return 1
"""

_CREATE_SCRIPT = Script(_CREATE)
_ADD_DEVICE_SCRIPT = Script(_ADD_DEVICE)
_SET_ACCESS_SCRIPT = Script(_SET_ACCESS)
_QUEUE_STEP_SCRIPT = Script(_QUEUE_STEP)
_QUEUE_CANCEL_SCRIPT = Script(_QUEUE_CANCEL)
_TAKE_SEAT_SCRIPT = Script(_TAKE_SEAT)
_FREE_SEAT_SCRIPT = Script(_FREE_SEAT)


def _keys(game_id: str) -> list[str]:
    return [f"tt:{{{game_id}}}:{part}" for part in _PARTS]


def _pool_keys(pool: str) -> list[str]:
    return [f"tt:qp:{{{pool}}}:{part}" for part in ("tickets", "waiting", "seen", "seated", "def")]


def _player_key(player_id: str) -> str:
    # Hashed: a player id is the operator's text, and braces in it would move its hash tag.
    return f"tt:player:{{{hashlib.sha256(player_id.encode()).hexdigest()[:32]}}}"


def _idle_member(game_id: str) -> str:
    """A game's one idle entry in the deadline index."""
    return f"{game_id}|{IDLE}"


async def _call(pending: Awaitable[T]) -> T:
    """A call's reply; a Redis failure is StoreUnavailable to the service."""
    try:
        return await pending
    except RedisError as exc:
        raise _unavailable(exc) from exc


async def _index(client: _Client, game_id: str, version: int, timing: Timing | None) -> None:
    """Index a deadline before the step that may write it (see the module docstring)."""
    if timing is not None and timing.deadline_ms is not None:
        member = f"{game_id}|{version}|{timing.deadline_ms}"
        await _call(client.execute("ZADD", _DEADLINES, timing.deadline_ms, member))


async def _unindex(client: _Client, game_id: str, version: int, replaced: Timing) -> None:
    """Drop the index entry of a deadline this commit replaced: it can only be stale now.
    (Left behind, as after a crash here, a sweeper drops it once it comes due.)"""
    if replaced.deadline_ms is not None:
        member = f"{game_id}|{version}|{replaced.deadline_ms}"
        await _call(client.execute("ZREM", _DEADLINES, member))


class RedisDeadlines(DeadlineIndex):
    """The index ``tt:deadlines`` (see the module docstring), another slot than any game's."""

    def __init__(self, client: _Client) -> None:
        self._r = client

    async def due(self, now_ms: int, limit: int, lease_ms: int = 0) -> list[Due]:
        until = now_ms + lease_ms if lease_ms > 0 else None
        # A plain read first: an idle sweep (most of them) costs one ZRANGEBYSCORE, as it did
        # before claims, and only one that finds entries due runs the claim.
        raw = await _call(
            self._r.execute(
                "ZRANGEBYSCORE", _DEADLINES, "-inf", now_ms, "WITHSCORES", "LIMIT", 0, limit
            )
        )
        if raw and until is not None:
            args: list[Arg] = [now_ms, limit, until]
            raw = await _call(self._r.evalsha(_CLAIM_SCRIPT, [_DEADLINES], args))
        out = []
        for member, score in _scored(raw):
            key = member.decode()
            # <id>|<version>|<deadline>, <id>|idle, or <id>|idle|<deadline> as written before
            # a game had one idle entry (dropped like any other once handled).
            game_id, kind, *rest = key.split("|")
            scored = int(float(score))
            if kind == IDLE:
                out.append(Due(game_id, scored, key, IDLE, leased_until_ms=until))
            else:
                deadline = int(rest[0])  # the score is a lapsed lease's end if above it
                lapsed = until is not None and scored > deadline
                due = Due(game_id, deadline, key, TIMING, int(kind), until, lapsed)
                out.append(due)
        return out

    async def done(self, entry: Due, later_ms: int | None = None) -> None:
        member = _idle_member(entry.game_id)
        if entry.kind != IDLE or entry.key != member:  # a timing entry, or an old idle one
            if entry.kind == IDLE and later_ms is not None:
                await self.watch_idle(entry.game_id, later_ms)
            await _call(self._r.execute("ZREM", _DEADLINES, entry.key))
            return
        held = entry.leased_until_ms if entry.leased_until_ms is not None else entry.deadline_ms
        if later_ms is not None:  # XX: a game that has ended since stays out of the index
            # Where the claim left it, to the later deadline (even below the lease's end);
            # else only later, as any watch.
            args: list[Arg] = [member, held, later_ms, "1"]
            await _call(self._r.evalsha(_RESCORE_SCRIPT, [_DEADLINES], args))
        else:
            args = [member, held]
            await _call(self._r.evalsha(_DROP_IDLE_SCRIPT, [_DEADLINES], args))

    async def release(self, entry: Due) -> None:
        if entry.leased_until_ms is None:
            return
        args: list[Arg] = [entry.key, entry.leased_until_ms, entry.deadline_ms, "0"]
        await _call(self._r.evalsha(_RESCORE_SCRIPT, [_DEADLINES], args))

    async def watch_idle(self, game_id: str, deadline_ms: int) -> None:
        # GT: the entry only moves later (a raced take may index an earlier deadline late).
        member = _idle_member(game_id)
        await _call(self._r.execute("ZADD", _DEADLINES, "GT", deadline_ms, member))

    async def next_deadline(self) -> int | None:
        raw = await _call(self._r.execute("ZRANGE", _DEADLINES, 0, 0, "WITHSCORES"))
        return int(float(_scored(raw)[0][1])) if raw else None


class RedisPresence(PresenceLog):
    """``tt:{id}:seen``, in the game's slot: it expires on its own after the last touch."""

    def __init__(self, client: _Client, finished_ttl_s: int) -> None:
        self._r = client
        self._ttl = finished_ttl_s

    async def touch(self, game_id: str, seat: int, now_ms: int) -> None:
        key = f"tt:{{{game_id}}}:seen"
        await _call(self._r.execute("HSET", key, seat, now_ms))
        await _call(self._r.execute("EXPIRE", key, max(self._ttl, 60)))

    async def seen(self, game_id: str) -> dict[int, int]:
        raw = await _call(self._r.execute("HGETALL", f"tt:{{{game_id}}}:seen"))
        return {int(k): int(v) for k, v in zip(raw[::2], raw[1::2], strict=True)}


class RedisPlayers(PlayerIndex):
    """A player's devices on a seat (the game's seats hash), and the index of the player's
    games (``tt:player:{hash}``, a key of its own per player)."""

    def __init__(self, client: _Client, finished_ttl_s: int) -> None:
        self._r = client
        self._ttl = finished_ttl_s

    async def add_device(self, game_id: str, seat: int, player_id: str, token_hash: str) -> bool:
        seats = _keys(game_id)[1]
        args: list[Arg] = [seat, player_id, token_hash, MAX_DEVICES]
        return bool(await _call(self._r.evalsha(_ADD_DEVICE_SCRIPT, [seats], args)))

    async def note_game(self, player_id: str, game_id: str, at_ms: int) -> None:
        # An index of its own per player (one key, one slot); a hint that each game is read
        # again against, so its writes need not be atomic with the seat's.
        key = _player_key(player_id)
        await _call(self._r.execute("ZADD", key, at_ms, game_id))
        await _call(self._r.execute("ZREMRANGEBYRANK", key, 0, -MAX_PLAYER_GAMES - 1))
        await _call(self._r.execute("EXPIRE", key, max(self._ttl, 86400) * 7))

    async def player_games(self, player_id: str, limit: int) -> list[str]:
        raw = await _call(self._r.execute("ZREVRANGE", _player_key(player_id), 0, limit - 1))
        return [member.decode() for member in raw]


class RedisQueues(QuickPlayQueues):
    """The quick play queues, each pool's keys under its own hash tag (see :data:`_QUEUE_STEP`)."""

    def __init__(self, client: _Client) -> None:
        self._r = client

    async def queue_step(
        self,
        pool: str,
        ticket_hash: str,
        new: Ticket | None,
        *,
        now_ms: int,
        grace_ms: int,
        seats: int,
        game_id: str,
        definition: str,
    ) -> QueueStep:
        ttl_s = (MATCHED_KEEP_MS + grace_ms) // 1000 + 1
        args: list[Arg] = [
            ticket_hash,
            new.to_json() if new is not None else "",
            now_ms,
            grace_ms,
            seats,
            game_id,
            definition,
            MATCHED_KEEP_MS,
            ttl_s,
            QUEUE_BOT,
        ]
        raw, waiting, kept = await _call(
            self._r.evalsha(_QUEUE_STEP_SCRIPT, _pool_keys(pool), args)
        )
        ticket = Ticket.from_json(raw) if raw else None
        return QueueStep(ticket, int(waiting), kept.decode() if kept else "")

    async def queue_cancel(self, pool: str, ticket_hash: str) -> bool | None:
        keys = _pool_keys(pool)[:3]
        done = await _call(self._r.evalsha(_QUEUE_CANCEL_SCRIPT, keys, [ticket_hash]))
        return None if done == -1 else bool(done)


class RedisStore(GameStore):
    def __init__(
        self,
        client: PipelinedRedis | ClusterPipelinedRedis,
        finished_ttl_s: int = 86400,
        open_ttl_s: int = 0,
        *,
        wait_replicas: int = 0,
    ) -> None:
        """``client``: the store's one client (:mod:`service.store.redis_pipe`), slot-routed on a
        Redis Cluster; every call and the move notifications go through it.
        ``wait_replicas``: see :meth:`_commit_step`."""
        if wait_replicas < 0:
            raise ValueError("wait_replicas must be 0 or more")
        self._r = client
        self._ttl = finished_ttl_s
        self._open_ttl = open_ttl_s  # 0: a game waiting for players never expires
        self._wait_replicas = wait_replicas
        self.notifier: MoveNotifier
        if isinstance(client, ClusterPipelinedRedis):
            self.notifier = ShardedMoveNotifier(client)
            self._commit_script = _SHARDED_COMMIT_SCRIPT
        else:
            self.notifier = MoveNotifier(client)
            self._commit_script = _COMMIT_SCRIPT
        # On one Redis the commit script may name the index (another slot on a Cluster), so the
        # step that ends a game drops its idle entry atomically.
        self._index_in_commit = not isinstance(client, ClusterPipelinedRedis)
        # The parts, on the same client (and so the same connection and script registry).
        self.deadlines = RedisDeadlines(client)
        self.presence = RedisPresence(client, finished_ttl_s)
        self.players = RedisPlayers(client, finished_ttl_s)
        self.queues = RedisQueues(client)

    @classmethod
    def from_url(
        cls,
        url: str,
        finished_ttl_s: int = 86400,
        open_ttl_s: int = 0,
        *,
        cluster: bool = False,
        wait_replicas: int = 0,
    ) -> RedisStore:
        """``url``: ``redis://``, ``rediss://`` (TLS) or ``unix://``
        (:func:`service.store.redis_pipe.connection_options`); with ``cluster``, a seed node of
        a Redis Cluster."""
        client = ClusterPipelinedRedis.from_url(url) if cluster else PipelinedRedis.from_url(url)
        return cls(client, finished_ttl_s, open_ttl_s, wait_replicas=wait_replicas)

    def _commit_step(self, game_id: str, request_id: str, args: list[Arg]) -> Awaitable[list[Any]]:
        """The commit script's reply ({outcome, version, …}); with wait_replicas, once that
        many replicas have what it wrote (a request seen before: what the first try wrote),
        else StoreUnavailable.

        Why wait: Redis replicates asynchronously, so a master that dies can take with it the
        last writes its replicas had not received, and a replica promoted in its place then
        lacks moves already acknowledged to players. With ``wait_replicas=N`` each commit is
        followed, on the same connection, by ``WAIT N`` and acknowledged only once N replicas
        have it; fewer in time is StoreUnavailable (UNAVAILABLE), which the client retries with
        its request id: the script answers a seen id without writing, so the retry writes that
        id again (:meth:`_replicated`) and waits again, to confirm what the first try wrote."""
        keys = _keys(game_id)
        if self._index_in_commit:
            keys.append(_DEADLINES)
        if not self._wait_replicas:
            # The script's own awaitable, not one more coroutine around it: this is every move.
            return self._r.evalsha(self._commit_script, keys, args)
        return self._commit_waited(game_id, request_id, keys, args)

    async def _commit_waited(
        self, game_id: str, request_id: str, keys: list[str], args: list[Arg]
    ) -> list[Any]:
        """:meth:`_commit_step` with wait_replicas: the script, then WAIT on its connection."""
        reply, acked = await self._r.evalsha_wait(
            self._commit_script, keys, args, self._wait_replicas, WAIT_TIMEOUT_MS
        )
        outcome, version = reply[0], reply[1]
        if outcome == 2 and request_id:
            acked = await self._replicated(game_id, request_id, int(version))
        if outcome in (1, 2) and acked < self._wait_replicas:
            raise StoreUnavailable(
                f"the move reached {acked} of the {self._wait_replicas} Redis replicas it "
                "must reach; retry with the same request id"
            )
        return reply  # type: ignore[no-any-return]

    async def _replicated(self, game_id: str, request_id: str, version: int) -> int:
        """A request seen before: it was committed, but maybe never replicated (the try that
        wrote it was refused for that). Writing its id again (same value) puts a write after
        it in the replication stream of THIS connection, so a WAIT here confirms both."""
        _, acked = await self._r.execute_together(
            ("HSET", _keys(game_id)[4], request_id, version),
            ("WAIT", self._wait_replicas, WAIT_TIMEOUT_MS),
        )
        return int(acked)

    async def ping(self) -> None:
        # On the connection moves use: a ping then says it is alive.
        await _call(self._r.execute("PING"))

    async def close(self) -> None:
        await self.notifier.close()
        await self._r.close()

    async def create(self, game: GameRecord, opening: EventBatch) -> None:
        meta, seats, snapshot, _, _, events = _keys(game.game_id)
        fields: dict[str, Any] = {
            "game_type": game.game_type,
            "options": json.dumps(dict(game.options)),
            "seed": game.seed.hex(),
            "seat_count": game.seat_count,
            "created_at_ms": game.created_at_ms,
            "version": 0,
            "status": game.status,
        }
        if game.time_control is not None:
            fields["time_control"] = json.dumps(dict(game.time_control))
        if game.timing is not None:
            fields["timing"] = game.timing.to_json()
        if game.moved_at_ms:
            fields["moved_at"] = game.moved_at_ms
        if game.access is not None:
            fields["access"] = game.access.to_json()
        taken = {seat: s.to_json() for seat, s in enumerate(game.seats) if s is not None}

        await _index(self._r, game.game_id, 0, game.timing)
        pairs: list[Arg] = [x for field in fields.items() for x in field]
        ttl = self._open_ttl if not game.full else 0  # a table filled at once (bot seats) stays
        args: list[Arg] = [ttl, game.snapshot, opening.to_json(), json.dumps(taken), *pairs]
        made = await _call(self._r.evalsha(_CREATE_SCRIPT, [meta, seats, snapshot, events], args))
        if made == 0:
            raise GameExists(game.game_id)
        if game.listed:  # a table made full (bots, a rematch, a quick play match) is in play
            index = _PLAYING if game.full else _LOBBY
            await _call(self._r.execute("ZADD", index, game.created_at_ms, game.game_id))

    async def load(self, game_id: str) -> GameRecord:
        meta, seats, snapshot, *_ = _keys(game_id)
        flat_meta, flat_seats, snap = await _call(
            self._r.evalsha(_LOAD_SCRIPT, [meta, seats, snapshot], [])
        )
        if not flat_meta:
            raise GameNotFound(game_id)
        return _record(game_id, _pairs(flat_meta), _pairs(flat_seats), snap)

    async def moves(self, game_id: str) -> list[MoveRecord]:
        key = _keys(game_id)[3]
        raw = await _call(self._r.execute("LRANGE", key, 0, -1))
        return [MoveRecord.from_json(x) for x in raw]

    async def commit(self, game_id: str, step: Commit) -> int:
        if step.timing is not None:  # else no deadline, and no coroutine to make for none
            await _index(self._r, game_id, step.expected_version + 1, step.timing)
        move = step.move.to_json() if step.move is not None else ""
        resigned = "" if step.resigned_seat is None else str(step.resigned_seat)
        args: list[Arg] = [
            step.expected_version,
            step.snapshot,
            move,
            step.batch.request_id,
            step.batch.to_json(),
            step.status,
            resigned,
            self._ttl,
            moved_channel(game_id),
            step.timing.to_json() if step.timing is not None else "",
            step.at_ms or "",
            _idle_member(game_id),
        ]
        try:  # as _call does, without its coroutine: this is every move
            reply = await self._commit_step(game_id, step.batch.request_id, args)
        except RedisError as exc:
            raise _unavailable(exc) from exc
        outcome, version = reply[0], reply[1]
        if outcome in (0, 2) and step.timing is not None:
            await self._drop_refused(game_id, step.expected_version + 1, step.timing)
        if outcome == -1:
            raise GameNotFound(game_id)
        if outcome == 0:
            raise VersionConflict(int(version))
        if outcome == 2:
            raise RequestSeen(int(version))
        if step.status != ACTIVE:
            await _call(self._r.execute("ZREM", _LOBBY, game_id))
            await _call(self._r.execute("ZREM", _PLAYING, game_id))
            if not self._index_in_commit:  # else the script has dropped it
                await _call(self._r.execute("ZREM", _DEADLINES, _idle_member(game_id)))
        if len(reply) > 2 and reply[2]:
            await _unindex(self._r, game_id, step.expected_version, Timing.from_json(reply[2]))
        # This replica's waiters need not wait for the subscription to echo the commit: they
        # are woken now, after the committing call has had the reply (so a waiter woken here
        # finds the state that call keeps before it next awaits); the echo then wakes no one.
        self.notifier.notify(game_id, int(version))
        return int(version)

    async def _drop_refused(self, game_id: str, version: int, timing: Timing) -> None:
        """A refused commit's entry, indexed before it, is stale at once (a racing firing of
        another replica won): drop it now rather than leave it for the sweeps, unless the
        winner wrote the very same member (same version and deadline: it is the game's own)."""
        if timing.deadline_ms is None:
            return
        raw_version, raw_timing = await _call(
            self._r.execute("HMGET", _keys(game_id)[0], "version", "timing")
        )
        if (
            raw_version is not None
            and int(raw_version) == version
            and raw_timing
            and Timing.from_json(raw_timing).deadline_ms == timing.deadline_ms
        ):
            return
        member = f"{game_id}|{version}|{timing.deadline_ms}"
        await _call(self._r.execute("ZREM", _DEADLINES, member))

    async def request_version(self, game_id: str, request_id: str) -> int | None:
        raw = await _call(self._r.execute("HGET", _keys(game_id)[4], request_id))
        return None if raw is None else int(raw)

    async def take_seat(
        self,
        game_id: str,
        seat: int,
        record: SeatRecord,
        filled: Filled | None = None,
        access: Access | None = None,
    ) -> bool:
        keys = _keys(game_id)
        args: list[Arg] = [seat, record.to_json(), "", "", "1" if filled is not None else "0"]
        args.append(access.to_json() if access is not None else "")
        # A take that leaves a seat open indexes nothing (so an open game that expires leaves
        # nothing behind); one that would fill the table is refused whole and made again with
        # what play begins with, its deadlines indexed first (see the module docstring). A
        # take raced in between may still index for nothing: a stale hint, dropped when due.
        taken = await _call(self._r.evalsha(_TAKE_SEAT_SCRIPT, keys, args))
        if taken == -2:
            assert filled is not None
            await _index(self._r, game_id, 0, filled.timing)
            if filled.idle_deadline_ms is not None:
                await self.deadlines.watch_idle(game_id, filled.idle_deadline_ms)
            args[2:5] = [filled.timing.to_json() if filled.timing else "", filled.at_ms, "0"]
            taken = await _call(self._r.evalsha(_TAKE_SEAT_SCRIPT, keys, args))
        if taken == -1:
            raise GameNotFound(game_id)
        if taken == 0:
            return False
        game = await self.load(game_id)
        if game.full:
            await _call(self._r.execute("ZREM", _LOBBY, game_id))
            if game.listed and game.status == ACTIVE:
                await _call(self._r.execute("ZADD", _PLAYING, game.created_at_ms, game_id))
        return True

    async def free_seat(self, game_id: str, seat: int, token_hash: str) -> bool:
        keys = _keys(game_id)[:2]
        freed = await _call(self._r.evalsha(_FREE_SEAT_SCRIPT, keys, [seat, token_hash]))
        if freed == -1:
            raise GameNotFound(game_id)
        if freed == 0:
            return False
        game = await self.load(game_id)
        if game.listed:
            await _call(self._r.execute("ZADD", _LOBBY, game.created_at_ms, game_id))
        return True

    async def set_access(self, game_id: str, expected: Access, new: Access) -> bool:
        meta = _keys(game_id)[0]
        args: list[Arg] = [expected.to_json(), new.to_json()]
        done = await _call(self._r.evalsha(_SET_ACCESS_SCRIPT, [meta], args))
        if done == -1:
            raise GameNotFound(game_id)
        return bool(done)

    async def read_events(self, game_id: str, from_version: int) -> list[EventBatch]:
        # On the hot connection: many streams reading at once (spectators, play streams) must
        # not each take a pooled connection of their own.
        meta, *_, events = _keys(game_id)
        entries = await _call(
            self._r.evalsha(_READ_EVENTS_SCRIPT, [meta, events], [f"{max(from_version, 0)}-0"])
        )
        if entries is None:
            raise GameNotFound(game_id)
        return [EventBatch.from_json(_pairs(fields)[b"d"]) for _, fields in entries]

    async def wait_for_version(self, game_id: str, after: int, wait_s: float) -> int | None:
        # Woken by this replica's subscription; the read below covers a notification that was
        # lost (pub/sub delivers at most once: the notifier wakes every waiter to read after it
        # resubscribes) and tells an expired game from a quiet one. With an infinite wait_s,
        # a quiet game costs no command at all.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while True:
            notified = await self.notifier.wait(game_id, after, max(0.0, deadline - loop.time()))
            if notified is not None:
                return notified
            raw = await _call(self._r.execute("HGET", _keys(game_id)[0], "version"))
            if raw is None:
                raise GameNotFound(game_id)
            if int(raw) > after:
                return int(raw)
            if loop.time() >= deadline:
                return None
            # Woken early to re-read (the subscription came back) and nothing new: wait on.

    async def list_open(
        self,
        game_type: str,
        limit: int,
        after: LobbyPosition | None = None,
        *,
        playing: bool = False,
    ) -> list[GameRecord]:
        # Members of equal score are ordered by id, so (score, id) orders the whole index.
        index = _PLAYING if playing else _LOBBY
        low = after[0] if after is not None else "-inf"
        offset, batch = 0, 4 * limit
        out: list[GameRecord] = []
        while len(out) < limit:
            raw = await _call(
                self._r.execute(
                    "ZRANGEBYSCORE", index, low, "+inf", "WITHSCORES", "LIMIT", offset, batch
                )
            )
            if not raw:
                break
            entries = _scored(raw)
            offset += len(entries)
            for raw_id, score in entries:
                game_id = raw_id.decode()
                if after is not None and (int(float(score)), game_id) <= after:
                    continue
                try:
                    record = await self.load(game_id)
                except GameNotFound:  # expired: drop it from the index
                    await _call(self._r.execute("ZREM", index, game_id))
                    continue
                if playing and record.status != ACTIVE:  # ended since (its ZREM was lost)
                    await _call(self._r.execute("ZREM", index, game_id))
                    continue
                if record.full != playing or record.status != ACTIVE or not record.listed:
                    continue
                if game_type and record.game_type != game_type:
                    continue
                out.append(record)
                if len(out) >= limit:
                    break
        return out


def _unavailable(exc: RedisError) -> StoreUnavailable:
    """What a Redis failure is to the service."""
    return StoreUnavailable(f"the game store is unavailable ({type(exc).__name__})")


def _scored(raw: list[bytes]) -> list[tuple[bytes, bytes]]:
    """(member, score) pairs of a WITHSCORES reply (flat: member, score, member, score, …)."""
    return list(zip(raw[::2], raw[1::2], strict=True))


def _pairs(flat: list[bytes]) -> dict[bytes, bytes]:
    """A hash from a script's HGETALL reply: field, value, field, value, …"""
    return dict(zip(flat[::2], flat[1::2], strict=True))


def _record(
    game_id: str, meta: dict[bytes, bytes], seats: dict[bytes, bytes], snapshot: bytes
) -> GameRecord:
    m = {k.decode(): v.decode() for k, v in meta.items()}
    count = int(m["seat_count"])
    taken = {int(k): SeatRecord.from_json(v) for k, v in seats.items()}
    options: dict[str, OptionValue] = json.loads(m["options"])
    resigned = m.get("resigned_seat")
    time_control = m.get("time_control")
    timing = m.get("timing")
    access = m.get("access")
    return GameRecord(
        game_id=game_id,
        game_type=m["game_type"],
        options=options,
        seed=bytes.fromhex(m["seed"]),
        seat_count=count,
        created_at_ms=int(m["created_at_ms"]),
        version=int(m["version"]),
        status=m["status"],
        seats=tuple(taken.get(i) for i in range(count)),
        resigned_seat=None if resigned is None else int(resigned),
        snapshot=snapshot,
        moved_at_ms=int(m.get("moved_at", 0)),
        time_control=None if time_control is None else json.loads(time_control),
        timing=None if timing is None else Timing.from_json(timing),
        access=None if access is None else Access.from_json(access),
    )
