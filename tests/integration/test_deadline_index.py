"""The deadline index through a real server on a real Redis (and a Redis Cluster): a game that
ends leaves ``tt:deadlines`` in the step that ends it, however it ends (played out, a
resignation, a forfeit on time, idleness), so finished games no longer keep idle entries for
the idle time (issue 25: 11,642 entries after a 10-minute soak)."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis
from tricktable.v1 import clocks_pb2
from tricktable.v1 import game_service_pb2 as pb

from service.store.base import IDLE
from service.store.redis import RedisStore
from tests.integration.test_clocks import clocked_table, time_control, watch_until
from tests.servers import running_server, store_fields
from tests.service.support import auth, play_random_game

STORES = ["redis", "redis-cluster"]


def index_of(redis_client: Any, game_id: str) -> list[str]:
    """The game's members of the deadline index."""
    members = [m.decode() for m in redis_client.zrange("tt:deadlines", 0, -1)]
    return [m for m in members if m.startswith(f"{game_id}|")]


@pytest.fixture
def raw_redis(request: pytest.FixtureRequest, store: str) -> Iterator[Any]:
    fields = store_fields(request, store)
    if fields.get("redis_cluster"):
        client: Any = redis.RedisCluster.from_url(fields["redis_url"])
    else:
        client = redis.Redis.from_url(fields["redis_url"])
    try:
        yield client
    finally:
        client.close()


@pytest.mark.parametrize("store", STORES)
def test_ended_games_leave_the_deadline_index(
    store: str, request: pytest.FixtureRequest, raw_redis: Any
) -> None:
    with running_server(idle_ttl_s=3600, **store_fields(request, store)) as (_, client):
        tc = time_control(clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE, move_ms=600_000)
        resigned = clocked_table(client, "sixty-six", tc)
        played = client.table("counterpoint", {"target_score": 1})
        running = clocked_table(client, "sixty-six", tc)
        for table in (resigned, played, running):
            kinds = {m.split("|")[1] for m in index_of(raw_redis, table.game_id)}
            assert "idle" in kinds  # watched for idleness while it runs
        assert len(index_of(raw_redis, resigned.game_id)) >= 2  # and its clock

        client.stub.LeaveGame(
            pb.LeaveGameRequest(game_id=resigned.game_id), metadata=auth(resigned.tokens[0])
        )
        play_random_game(client, played, random.Random(25))
        assert index_of(raw_redis, resigned.game_id) == []
        assert index_of(raw_redis, played.game_id) == []
        assert {m.split("|")[1] for m in index_of(raw_redis, running.game_id)} >= {"idle"}


@pytest.mark.parametrize("store", STORES)
def test_games_ended_by_their_clock_or_idleness_leave_the_deadline_index(
    store: str, request: pytest.FixtureRequest, raw_redis: Any
) -> None:
    with running_server(idle_ttl_s=0.6, **store_fields(request, store)) as (_, client):
        forfeit = clocked_table(
            client, "sixty-six", time_control(clocks_pb2.TIMEOUT_POLICY_FORFEIT)
        )
        idle = client.table("nominations")
        for table in (forfeit, idle):
            ended = watch_until(client, table.game_id, 1)
            assert ended.game.status == pb.GAME_STATUS_ABANDONED
            assert index_of(raw_redis, table.game_id) == []


def test_an_idle_entry_written_before_one_entry_per_game_is_still_handled(
    redis_url: str,
) -> None:
    """Entries ``<id>|idle|<deadline>`` that a Redis may hold from before: found due as IDLE,
    and moved to the game's one entry when the game has moved on, or dropped."""

    async def main() -> None:
        store = RedisStore.from_url(redis_url)
        raw: Any = aioredis.Redis.from_url(redis_url)
        try:
            moved_on, gone = uuid.uuid4().hex, uuid.uuid4().hex
            for game_id in (moved_on, gone):
                await raw.zadd("tt:deadlines", {f"{game_id}|idle|5000": 5000})
            due = [
                d for d in await store.deadlines.due(5000, 10_000) if d.game_id in (moved_on, gone)
            ]
            assert sorted((d.game_id, d.kind, d.deadline_ms) for d in due) == sorted(
                [(moved_on, IDLE, 5000), (gone, IDLE, 5000)]
            )
            for entry in due:
                await store.deadlines.done(entry, 9000 if entry.game_id == moved_on else None)
            members = {m.decode() for m in await raw.zrange("tt:deadlines", 0, -1)}
            assert {m for m in members if m.split("|")[0] in (moved_on, gone)} == {
                f"{moved_on}|idle"
            }
            assert await raw.zscore("tt:deadlines", f"{moved_on}|idle") == 9000
            await raw.zrem("tt:deadlines", f"{moved_on}|idle")
        finally:
            await raw.aclose()
            await store.close()

    asyncio.run(main())
