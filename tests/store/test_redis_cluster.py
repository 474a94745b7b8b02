"""RedisStore on a real Redis Cluster: slot routing, redirections while a slot migrates, and move
notifications through sharded pub/sub (the contract suite runs on the cluster too)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis

from service.store.base import SeatRecord
from service.store.redis import RedisStore
from service.store.redis_cluster import ClusterPipelinedRedis, ShardedMoveNotifier, key_slot
from tests.store.test_contract import OPENING, new_record, step


def cmd(client: redis.Redis, *args: object) -> Any:
    return client.execute_command(*args)  # type: ignore[no-untyped-call]


def node_clients(seed_url: str) -> dict[str, redis.Redis]:
    """A plain client per master, by node id (CLUSTER commands only: no routing)."""
    seed = redis.Redis.from_url(seed_url)
    out = {}
    for line in cmd(seed, "CLUSTER", "NODES").decode().splitlines():
        node_id, address, flags, *_ = line.split()
        if "master" in flags and "fail" not in flags:
            host, port = address.split("@")[0].rsplit(":", 1)
            out[node_id] = redis.Redis(host=host, port=int(port))
    seed.close()
    return out


def _master_id(client: redis.Redis, slot: int) -> str:
    for first, last, master, *_ in cmd(client, "CLUSTER", "SLOTS"):
        if first <= slot <= last:
            return str(master[2].decode())
    return ""


def run(seed_url: str, body: Callable[[RedisStore], Awaitable[None]]) -> None:
    async def main() -> None:
        store = RedisStore.from_url(seed_url, cluster=True)
        try:
            await body(store)
        finally:
            await store.close()

    asyncio.run(main())


def test_the_cluster_fixture_has_three_masters_each_with_a_replica(redis_cluster_url: str) -> None:
    seed = redis.Redis.from_url(redis_cluster_url)
    info = cmd(seed, "CLUSTER", "INFO").decode()
    assert "cluster_state:ok" in info and "cluster_size:3" in info
    assert "cluster_known_nodes:6" in info
    seed.close()


def test_key_slot_agrees_with_redis(redis_cluster_url: str) -> None:
    seed = redis.Redis.from_url(redis_cluster_url)
    for key in ["tt:{abc}:meta", "tt:lobby", "plain", "{}x", "a{}b{c}", "{user1000}.following"]:
        assert key_slot(key) == cmd(seed, "CLUSTER", "KEYSLOT", key), key
    seed.close()


def test_games_spread_over_every_master_and_each_stays_in_one_slot(
    redis_cluster_url: str,
) -> None:
    games = [new_record() for _ in range(30)]

    async def body(store: RedisStore) -> None:
        for game in games:
            await store.create(game, OPENING)
            await store.commit(game.game_id, step(0))
            assert (await store.load(game.game_id)).version == 1

    run(redis_cluster_url, body)
    nodes = node_clients(redis_cluster_url)
    holding = {node_id for node_id, c in nodes.items() if c.dbsize() > 0}
    assert len(holding) == 3  # 30 random games land on every master
    for game in games:
        slot = key_slot(f"tt:{{{game.game_id}}}:meta")
        owner = nodes[_master_id(next(iter(nodes.values())), slot)]
        assert cmd(owner, "CLUSTER", "COUNTKEYSINSLOT", slot) >= 4


def test_a_waiter_is_woken_by_a_sharded_notification_not_by_its_timeout(
    redis_cluster_url: str,
) -> None:
    async def body(store: RedisStore) -> None:
        other = RedisStore.from_url(redis_cluster_url, cluster=True)  # another replica
        try:
            game = new_record()
            await store.create(game, OPENING)
            notifier = store.notifier
            assert isinstance(notifier, ShardedMoveNotifier)
            # The first wait subscribes and asks the caller to read the version.
            assert await notifier.wait(game.game_id, 0, 5.0) is None
            assert notifier.following(game.game_id)
            waiting = asyncio.create_task(notifier.wait(game.game_id, 0, 60.0))
            await asyncio.sleep(0.1)
            await other.commit(game.game_id, step(0))
            # A timeout would return None; the notification carries the version.
            assert await asyncio.wait_for(waiting, 30) == 1
        finally:
            await other.close()

    run(redis_cluster_url, body)


def test_an_idle_game_is_unsubscribed_after_the_linger(redis_cluster_url: str) -> None:
    async def body(store: RedisStore) -> None:
        game = new_record()
        await store.create(game, OPENING)
        assert isinstance(store._r, ClusterPipelinedRedis)
        notifier = ShardedMoveNotifier(store._r, linger_s=0.4)
        try:
            await notifier.wait(game.game_id, 0, 1.0)
            assert notifier.following(game.game_id)
            for _ in range(100):
                await asyncio.sleep(0.1)
                if not notifier.following(game.game_id):
                    break
            assert not notifier.following(game.game_id)
            # And a new wait subscribes again.
            await notifier.wait(game.game_id, 0, 1.0)
            assert notifier.following(game.game_id)
        finally:
            await notifier.close()

    run(redis_cluster_url, body)


def _migrate(nodes: dict[str, redis.Redis], slot: int, finish: bool) -> tuple[str, str]:
    """Move ``slot``'s keys to another master (ASK while unfinished; MOVED once finished)."""
    any_node = next(iter(nodes.values()))
    source_id = _master_id(any_node, slot)
    target_id = next(i for i in nodes if i != source_id)
    source, target = nodes[source_id], nodes[target_id]
    cmd(target, "CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
    cmd(source, "CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
    keys = cmd(source, "CLUSTER", "GETKEYSINSLOT", slot, 100)
    address = target.connection_pool.connection_kwargs
    cmd(source, "MIGRATE", address["host"], address["port"], "", 0, 5000, "KEYS", *keys)
    if finish:
        for client in nodes.values():
            cmd(client, "CLUSTER", "SETSLOT", slot, "NODE", target_id)
    return source_id, target_id


def test_moves_follow_a_slot_that_migrates_by_ask_then_moved(redis_cluster_url: str) -> None:
    nodes = node_clients(redis_cluster_url)

    async def body(store: RedisStore) -> None:
        other = RedisStore.from_url(redis_cluster_url, cluster=True)
        try:
            game = new_record()
            await store.create(game, OPENING)
            # Every key of the game exists: a multi-key script whose keys are split between
            # the two nodes mid-migration gets TRYAGAIN (retried) instead of ASK.
            await store.take_seat(game.game_id, 0, SeatRecord("hash", "p0"))
            await store.commit(game.game_id, step(0, request_id="r0"))
            notifier = store.notifier
            assert isinstance(notifier, ShardedMoveNotifier)
            await notifier.wait(game.game_id, 1, 1.0)  # subscribed on the old owner
            slot = key_slot(game.game_id)
            # Keys gone, slot still the source's: the source answers ASK.
            _, target_id = _migrate(nodes, slot, finish=False)
            assert await store.request_version(game.game_id, "r0") == 1
            assert (await store.load(game.game_id)).version == 1
            await store.commit(game.game_id, step(1, request_id="r1"))
            # Slot handed over: the old owner answers MOVED, and drops the channel.
            for client in nodes.values():
                cmd(client, "CLUSTER", "SETSLOT", slot, "NODE", target_id)
            assert (await other.load(game.game_id)).version == 2
            # A waiter after the move is woken through the new owner's shard channel.
            version = None
            for _ in range(20):  # the first waits re-subscribe (None: read the version)
                waiting = asyncio.create_task(notifier.wait(game.game_id, 2, 30.0))
                await asyncio.sleep(0.2)
                if not waiting.done():
                    break
                await waiting
            await other.commit(game.game_id, step(2))
            version = await asyncio.wait_for(waiting, 30)
            assert version == 3
        finally:
            await other.close()

    run(redis_cluster_url, body)


def test_a_cluster_store_refuses_what_it_cannot_do(redis_cluster_url: str) -> None:
    with pytest.raises(ValueError, match="host:port"):
        RedisStore.from_url("unix:///tmp/redis.sock", cluster=True)
    with pytest.raises(ValueError, match="database 0"):
        RedisStore.from_url(redis_cluster_url.replace("/0", "/2"), cluster=True)


def test_a_script_retries_tryagain_until_the_migration_of_its_slot_ends(
    redis_cluster_url: str,
) -> None:
    """Mid-migration, a script whose keys are split (the seats hash does not exist yet, so it
    is on neither node) gets TRYAGAIN; the client retries it with back-off, and it succeeds
    once the slot is handed over."""
    nodes = node_clients(redis_cluster_url)

    async def body(store: RedisStore) -> None:
        game = new_record()
        await store.create(game, OPENING)
        slot = key_slot(game.game_id)
        _, target_id = _migrate(nodes, slot, finish=False)
        loading = asyncio.create_task(store.load(game.game_id))
        await asyncio.sleep(0.5)
        assert not loading.done()  # retrying
        for client in nodes.values():
            cmd(client, "CLUSTER", "SETSLOT", slot, "NODE", target_id)
        assert (await asyncio.wait_for(loading, 30)).version == 0

    run(redis_cluster_url, body)
