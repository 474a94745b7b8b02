"""``RedisBotStore`` and ``RedisLadderStore``: registered bots and the rated ladders in Redis.

    tt:bot:{<id>}            string  BotRecord json
    tt:bot:{<id>}:seats      list    the seats handed to a connected bot (SeatGiven json)
    tt:bot:{<id>}:failures   string  a called bot's failed calls in a row
    tt:bot:{<id>}:online     string  set while a connected bot's session is open (expires)
    tt:ladder:<game type>    zset    the bots on a game type's ladder, by registration time
    tt:ladders               zset    the game types whose ladder has a bot
    tt:{ladder.<game type>}:games    hash  number -> {game_id, bots}, for every rated game started
    tt:{ladder.<game type>}:rated    set   the numbers rated
    tt:{ladder.<game type>}:ratings  hash  bot id -> Ladder json
    tt:lease:{<name>}        string  who advances a ladder (expires)

A ladder's keys share one slot, so starting and rating a game are each one Lua script.

A seat handed to a connected bot is notified on ``tt:{b.<id>}:moved`` (the move notifier's
channel of the id ``b.<id>``, which no game id can be) with the bot's count of seats handed, so
its sessions on every replica wake (:meth:`RedisBotStore.wait_seats`). The notification follows
the push as a command of its own (the channel is in another slot than the list on a cluster): a
replica that dies between the two leaves the seat to the sessions' slow re-read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from service.store.redis_cluster import ClusterPipelinedRedis
from service.store.redis_notify import MoveNotifier, moved_channel
from service.store.redis_pipe import PipelinedRedis, Script
from service.tournaments.bot_store import BotStore, LadderStore, Stores
from service.tournaments.quotas import RedisQuotaStore
from service.tournaments.redis_store import (
    _COUNT_REPLIES,
    RedisTournamentStore,
    _pairs,
    unavailable_on_error,
)
from service.tournaments.store import BotNotFound, BotRecord, Ladder, LadderState

# KEYS: games rated   ARGV: number game_json at_once   Start a ladder's next rated game.
_LADDER_START = Script("""
local n = redis.call('HLEN', KEYS[1])
if n ~= tonumber(ARGV[1]) then return 0 end
if n - redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
""")

# KEYS: rated ratings   ARGV: number expected bot json bot json …   Rate a game once.
_LADDER_RATE = Script("""
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 2 end
if redis.call('SCARD', KEYS[1]) ~= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], unpack(ARGV, 3))
return 1
""")

# KEYS: lease   ARGV: holder lease_ms   Hold a lease, or renew one's own.
_LEASE = Script("""
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
""")


#: The game types whose ladder has a bot (zset, by the first one's registration): the ladders
#: to advance. Read every second by each replica's ladder, so it must stay one cheap read.
_LADDERS = "tt:ladders"


def _ladder(game_type: str) -> str:
    return f"tt:ladder:{game_type}"


def _ladder_keys(game_type: str) -> list[str]:
    """A ladder's games, rated numbers and ratings: one slot."""
    return [f"tt:{{ladder.{game_type}}}:{part}" for part in ("games", "rated", "ratings")]


def seats_channel(bot_id: str) -> str:
    """The id the move notifier knows a bot's handed seats by (see the module's notes)."""
    return f"b.{bot_id}"


class RedisBotStore(BotStore):
    _call = staticmethod(unavailable_on_error)

    def __init__(
        self, client: PipelinedRedis | ClusterPipelinedRedis, notifier: MoveNotifier
    ) -> None:
        self._r = client
        self._notifier = notifier
        self._publish = "SPUBLISH" if isinstance(client, ClusterPipelinedRedis) else "PUBLISH"

    async def add_bot(self, bot: BotRecord) -> None:
        await self._call(self._r.execute("SET", f"tt:bot:{{{bot.bot_id}}}", bot.to_json()))
        if bot.ladder:
            for game_type in bot.game_types:
                await self._call(
                    self._r.execute("ZADD", _ladder(game_type), bot.created_at_ms, bot.bot_id)
                )
                await self._call(
                    self._r.execute("ZADD", _LADDERS, "NX", bot.created_at_ms, game_type)
                )

    async def ladder_game_types(self) -> list[str]:
        # ZRANGEBYSCORE, as the deadline sweep reads its index: an idle replica's only look.
        found = await self._call(self._r.execute("ZRANGEBYSCORE", _LADDERS, "-inf", "+inf"))
        return [raw.decode() for raw in found]

    async def ladder_bots(self, game_type: str) -> list[BotRecord]:
        ids = await self._call(self._r.execute("ZRANGE", _ladder(game_type), 0, -1))
        found = []
        for raw in ids:
            try:
                found.append(await self.bot(raw.decode()))
            except BotNotFound:
                continue
        return found

    async def mark_online(self, bot_id: str, for_ms: int) -> None:
        key = f"tt:bot:{{{bot_id}}}:online"
        await self._call(self._r.execute("SET", key, 1, "PX", for_ms))

    async def online(self, bot_id: str) -> bool:
        key = f"tt:bot:{{{bot_id}}}:online"
        return bool(await self._call(self._r.execute("EXISTS", key)))

    async def failures(self, bot_id: str) -> int:
        raw = await self._call(self._r.execute("GET", f"tt:bot:{{{bot_id}}}:failures"))
        return int(raw or 0)

    async def failed(self, bot_id: str) -> int:
        return int(await self._call(self._r.execute("INCR", f"tt:bot:{{{bot_id}}}:failures")))

    async def succeeded(self, bot_id: str) -> None:
        await self._call(self._r.execute("DEL", f"tt:bot:{{{bot_id}}}:failures"))

    async def give_seat(self, bot_id: str, seat: str) -> None:
        handed = int(await self._call(self._r.execute("RPUSH", f"tt:bot:{{{bot_id}}}:seats", seat)))
        channel = seats_channel(bot_id)
        await self._call(self._r.execute(self._publish, moved_channel(channel), handed))
        self._notifier.notify(channel, handed)  # this replica's sessions, without the echo

    async def wait_seats(self, bot_id: str, after: int, wait_s: float) -> None:
        await self._notifier.wait(seats_channel(bot_id), after, wait_s)

    async def seats_given(self, bot_id: str, start: int) -> list[str]:
        raw = await self._call(self._r.execute("LRANGE", f"tt:bot:{{{bot_id}}}:seats", start, -1))
        return [r.decode() for r in raw]

    async def bot(self, bot_id: str) -> BotRecord:
        raw = await self._call(self._r.execute("GET", f"tt:bot:{{{bot_id}}}"))
        if raw is None:
            raise BotNotFound(bot_id)
        return BotRecord.from_json(raw)


class RedisLadderStore(LadderStore):
    _call = staticmethod(unavailable_on_error)

    def __init__(self, client: PipelinedRedis | ClusterPipelinedRedis) -> None:
        self._r = client

    async def ratings(self, game_type: str) -> dict[str, Ladder]:
        raw = await self._call(self._r.execute("HGETALL", _ladder_keys(game_type)[2]))
        return {k.decode(): Ladder.from_json(v) for k, v in _pairs(raw).items()}

    async def ladder(self, game_type: str) -> LadderState:
        games_key, rated_key, _ = _ladder_keys(game_type)
        games = _pairs(await self._call(self._r.execute("HGETALL", games_key)))
        rated = await self._call(self._r.execute("SMEMBERS", rated_key))
        return LadderState(
            games={
                int(n): (data["game_id"], tuple(data["bots"]))
                for n, data in ((n, json.loads(v)) for n, v in games.items())
            },
            rated=frozenset(int(n) for n in rated),
            ratings=await self.ratings(game_type),
        )

    async def ladder_start(
        self, game_type: str, number: int, game_id: str, bots: tuple[str, ...], at_once: int
    ) -> bool:
        games_key, rated_key, _ = _ladder_keys(game_type)
        data = json.dumps({"game_id": game_id, "bots": list(bots)})
        args: list[Any] = [number, data, at_once]
        return bool(await self._call(self._r.evalsha(_LADDER_START, [games_key, rated_key], args)))

    async def ladder_rate(
        self, game_type: str, number: int, expected: int, ratings: Mapping[str, Ladder]
    ) -> str:
        _, rated_key, ratings_key = _ladder_keys(game_type)
        pairs = [x for bot, r in ratings.items() for x in (bot, r.to_json())]
        args: list[Any] = [number, expected, *pairs]
        reply = await self._call(self._r.evalsha(_LADDER_RATE, [rated_key, ratings_key], args))
        return _COUNT_REPLIES[int(reply)]

    async def lease(self, name: str, holder: str, lease_ms: int) -> bool:
        key = f"tt:lease:{{{name}}}"
        return bool(await self._call(self._r.evalsha(_LEASE, [key], [holder, lease_ms])))


def redis_stores(
    url: str, *, cluster: bool = False, notifier: MoveNotifier | None = None
) -> Stores:
    """The stores on one client (one connection) to the Redis at ``url``. ``notifier``: the
    process' move notifier (its game store's), so that one subscription serves the games,
    the tournaments and the bots' seats alike; None: one of their own."""
    client = ClusterPipelinedRedis.from_url(url) if cluster else PipelinedRedis.from_url(url)
    tournaments = RedisTournamentStore(client, notifier)  # None: its own, closed with it
    return Stores(
        tournaments,
        RedisBotStore(client, tournaments.notifier),
        RedisLadderStore(client),
        RedisQuotaStore(client),
    )
