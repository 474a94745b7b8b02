"""Move notifications between replicas (RedisStore with service.store.redis_notify), on the
session's real redis-server: a commit on one replica wakes a waiter on another through the
subscription, a lost notification only delays a waiter, a malformed one is ignored and a
dropped subscription comes back.

The waits here are long (30 s) and a hang guard bounds each test: a waiter that returns the
version before its wait ran out was woken by a notification. Nothing is timed."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as aioredis

from service.errors import StoreUnavailable
from service.store.base import GameStore
from service.store.redis import RedisStore
from service.store.redis_notify import MoveNotifier, moved_channel
from tests.store.test_contract import OPENING, new_record, step

LONG_S = 30.0  # a wait that only a notification ends early
GUARD_S = 20.0  # a test that would hang fails instead


Replicas = tuple[RedisStore, RedisStore, aioredis.Redis]


def replicas_run(redis_url: str, body: Callable[[Replicas], Awaitable[None]]) -> None:
    """Run ``body`` with two stores on the same Redis (two replicas) and a raw client."""

    async def main() -> None:
        a = RedisStore.from_url(redis_url)
        b = RedisStore.from_url(redis_url)
        raw = aioredis.Redis.from_url(redis_url)
        try:
            await asyncio.wait_for(body((a, b, raw)), GUARD_S)
        finally:
            await a.close()
            await b.close()
            await raw.aclose()

    asyncio.run(main())


async def subscribed(notifier: MoveNotifier) -> None:
    """Start ``notifier`` (a wait does) and wait until its subscription is live."""
    await notifier.wait(uuid.uuid4().hex, 0, 0)
    await notifier.subscribed.wait()


async def new_game(store: GameStore) -> str:
    record = new_record()
    await store.create(record, OPENING)
    return record.game_id


def test_a_commit_on_one_replica_wakes_a_waiter_on_another(redis_url: str) -> None:
    async def body(stores: Replicas) -> None:
        a, b, _ = stores
        game_id = await new_game(a)
        await subscribed(b.notifier)
        waiting = asyncio.create_task(b.notifier.wait(game_id, 0, LONG_S))
        await asyncio.sleep(0.05)
        assert not waiting.done()
        await a.commit(game_id, step(0))
        assert await waiting == 1  # None would mean the wait ran out
        # The replica remembers it: a waiter arriving after the notification returns at once.
        assert b.notifier.latest(game_id) == 1
        assert await b.wait_for_version(game_id, 0, LONG_S) == 1

    replicas_run(redis_url, body)


def test_a_lost_notification_only_delays_the_waiter(redis_url: str) -> None:
    async def body(stores: Replicas) -> None:
        a, _, raw = stores
        game_id = await new_game(a)
        await subscribed(a.notifier)
        # A version written with no notification (as if the message were lost): the waiter
        # finds it when its wait runs out and it reads the version itself.
        await raw.hset(f"tt:{{{game_id}}}:meta", "version", 3)
        assert await a.notifier.wait(game_id, 0, 0.1) is None
        assert await a.wait_for_version(game_id, 0, 0.1) == 3
        assert await a.wait_for_version(game_id, 3, 0.1) is None

    replicas_run(redis_url, body)


def test_malformed_notifications_are_ignored_and_the_subscriber_lives_on(redis_url: str) -> None:
    async def body(stores: Replicas) -> None:
        a, b, raw = stores
        game_id = await new_game(a)
        await subscribed(b.notifier)
        waiting = asyncio.create_task(b.notifier.wait(game_id, 0, LONG_S))
        await asyncio.sleep(0.05)
        malformed: list[tuple[str | bytes, bytes]] = [
            (moved_channel(game_id), b"not a version"),
            (moved_channel(game_id), b"-4"),
            ("tt:{}:moved", b"1"),
            ("tt:no-braces:moved", b"1"),
            (moved_channel(game_id).encode() + b"\xff", b"1"),
            (b"tt:{\xff\xfe}:moved", b"1"),
        ]
        for channel, data in malformed:
            await raw.publish(channel, data)
        await a.commit(game_id, step(0))
        assert await waiting == 1
        assert b.notifier.subscribed.is_set()

    replicas_run(redis_url, body)


def test_the_subscriber_reconnects_and_rechecks_waiters(redis_url: str) -> None:
    async def body(stores: Replicas) -> None:
        a, b, raw = stores
        game_id = await new_game(a)
        await subscribed(b.notifier)
        waiting = asyncio.create_task(b.wait_for_version(game_id, 0, LONG_S))
        await asyncio.sleep(0.05)
        await raw.client_kill_filter(_type="pubsub")
        # Committed while the subscription may be down: the resubscription wakes the waiter to
        # read the version, or the notification does.
        await a.commit(game_id, step(0))
        assert await waiting == 1
        await b.notifier.subscribed.wait()  # back
        waiting = asyncio.create_task(b.notifier.wait(game_id, 1, LONG_S))
        await asyncio.sleep(0.05)
        await a.commit(game_id, step(1))
        assert await waiting == 2

    replicas_run(redis_url, body)


def test_a_waiter_of_an_older_version_sleeps_on(redis_url: str) -> None:
    async def body(stores: Replicas) -> None:
        a, _, _ = stores
        game_id = await new_game(a)
        await subscribed(a.notifier)
        ahead = asyncio.create_task(a.notifier.wait(game_id, 1, LONG_S))
        behind = asyncio.create_task(a.notifier.wait(game_id, 0, LONG_S))
        await asyncio.sleep(0.05)
        await a.commit(game_id, step(0))
        assert await behind == 1
        await asyncio.sleep(0.05)
        assert not ahead.done()  # version 1 is what it has: it waits for the next
        await a.commit(game_id, step(1))
        assert await ahead == 2

    replicas_run(redis_url, body)


def test_the_documented_acl_serves_moves_and_a_missing_channel_refuses_them_whole(
    redis_url: str,
) -> None:
    """deploy/README.md's ACL works end to end; without ``&tt:*:moved`` a commit fails before
    it writes anything (a Lua error does not undo earlier writes)."""
    host_port = redis_url.removeprefix("redis://").split("/")[0]
    allowed, refused = f"tt-{uuid.uuid4().hex[:8]}", f"tt-{uuid.uuid4().hex[:8]}"
    rules = "~tt:* +@read +@write +@scripting +@pubsub +@connection +@transaction"

    async def main() -> None:
        admin = aioredis.Redis.from_url(redis_url)
        for user, channels in ((allowed, ["&tt:*:moved"]), (refused, [])):
            await admin.execute_command(  # type: ignore[no-untyped-call]
                "ACL", "SETUSER", user, "on", ">pw", "resetchannels", *channels, *rules.split()
            )
        good = RedisStore.from_url(f"redis://{allowed}:pw@{host_port}/0")
        bad = RedisStore.from_url(f"redis://{refused}:pw@{host_port}/0")
        try:
            game_id = await new_game(good)
            await subscribed(good.notifier)
            waiting = asyncio.create_task(good.notifier.wait(game_id, 0, LONG_S))
            await asyncio.sleep(0.05)
            assert await good.commit(game_id, step(0)) == 1
            assert await waiting == 1
            with pytest.raises(StoreUnavailable):
                await bad.commit(game_id, step(1, request_id="refused"))
            assert (await good.load(game_id)).version == 1
            assert len(await good.moves(game_id)) == 1
            assert await good.request_version(game_id, "refused") is None
        finally:
            await good.close()
            await bad.close()
            await admin.acl_deluser(allowed, refused)
            await admin.aclose()

    asyncio.run(asyncio.wait_for(main(), GUARD_S))


def test_a_commit_wakes_its_own_replicas_waiters_before_the_echo(redis_url: str) -> None:
    """The committing replica's waiters are woken as the commit returns, not by the
    subscription: a waiter runs in the next turn of the loop (it finds what the committing call
    kept, such as the new state in the cache), even with no subscription at all."""

    async def body(stores: Replicas) -> None:
        a, _, _ = stores
        game_id = await new_game(a)
        # No subscription: the notifier is never started by a wait of its own here.
        waiter = asyncio.get_running_loop().create_future()
        a.notifier._waiters[game_id] = [waiter]
        await a.commit(game_id, step(0))
        assert waiter.done() and waiter.result() == 1
        assert a.notifier.latest(game_id) == 1
        assert a.notifier._task is None  # nothing was subscribed

    replicas_run(redis_url, body)


def test_a_notification_no_later_than_one_heard_wakes_no_one(redis_url: str) -> None:
    """The subscription's echo of a commit the replica has heard of already (or an older one,
    arriving late) ends no wait: every waiter is waiting for a later version."""

    async def body(stores: Replicas) -> None:
        a, _, _ = stores
        game_id = await new_game(a)
        await subscribed(a.notifier)
        await a.commit(game_id, step(0))
        waiting = asyncio.create_task(a.notifier.wait(game_id, 1, LONG_S))
        await asyncio.sleep(0.05)
        a.notifier.notify(game_id, 1)
        a.notifier.notify(game_id, 0)
        await asyncio.sleep(0.05)
        assert not waiting.done()
        assert a.notifier.latest(game_id) == 1
        await a.commit(game_id, step(1))
        assert await waiting == 2

    replicas_run(redis_url, body)
