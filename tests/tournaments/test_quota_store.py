"""The ``QuotaStore`` contract on every adapter (memory, one Redis, a Redis Cluster), and the
lazy giving back of :class:`~service.tournaments.quotas.Quotas`: a place is taken by one atomic
step that checks the count, so takes racing for the last places never pass the limit."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest

from service.errors import LimitExceeded
from service.store.redis_cluster import ClusterPipelinedRedis
from service.store.redis_pipe import PipelinedRedis
from service.tournaments.quotas import (
    BOTS,
    GRACE_MS,
    TOURNAMENTS,
    MemoryQuotaStore,
    Quotas,
    QuotaStore,
    RedisQuotaStore,
    owner_of,
)

Body = Callable[[QuotaStore], Awaitable[None]]


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def run(request: pytest.FixtureRequest) -> Callable[[Body], None]:
    def runner(body: Body) -> None:
        async def main() -> None:
            if request.param == "memory":
                await body(MemoryQuotaStore())
                return
            client: PipelinedRedis | ClusterPipelinedRedis
            if request.param == "redis":
                client = PipelinedRedis.from_url(request.getfixturevalue("redis_url"))
            else:
                client = ClusterPipelinedRedis.from_url(
                    request.getfixturevalue("redis_cluster_url")
                )
            try:
                await body(RedisQuotaStore(client))
            finally:
                await client.close()

        asyncio.run(main())

    return runner


def _owner() -> str:
    return owner_of(f"10.0.0.{uuid.uuid4().int % 250}:{uuid.uuid4().hex}")


def test_places_are_taken_up_to_the_limit_once_each(run: Callable[[Body], None]) -> None:
    async def body(store: QuotaStore) -> None:
        owner = _owner()
        taken = await asyncio.gather(
            *(store.take(TOURNAMENTS, owner, f"t{n}", 3, 1000 + n) for n in range(10))
        )
        assert sum(taken) == 3
        held = dict(await store.held(TOURNAMENTS, owner))
        assert len(held) == 3 and all(1000 <= at < 1010 for at in held.values())
        first = sorted(held)[0]
        assert await store.take(TOURNAMENTS, owner, first, 3, 2000)  # held already: kept
        assert not await store.take(TOURNAMENTS, owner, "another", 3, 2000)
        assert await store.held(BOTS, owner) == []  # each kind counts on its own
        await store.drop(TOURNAMENTS, owner, [first])
        assert await store.take(TOURNAMENTS, owner, "another", 3, 2000)
        assert sorted(dict(await store.held(TOURNAMENTS, owner))) == sorted(
            {*held, "another"} - {first}
        )

    run(body)


def test_places_that_no_longer_count_are_given_back_when_the_limit_is_reached() -> None:
    async def main() -> None:
        quotas = Quotas(MemoryQuotaStore())
        states: dict[str, bool | None] = {"ended": False, "running": True, "young": None}

        async def counts(member: str) -> bool | None:
            return states.get(member)

        async def take(member: str, now_ms: int, limit: int = 3) -> None:
            await quotas.take(
                TOURNAMENTS, "1.2.3.4", member, limit=limit, counts=counts, now_ms=now_ms
            )

        for member in ("ended", "running", "young"):
            await take(member, 0)
        await take("next", 10)  # "ended" gave its place back
        with pytest.raises(LimitExceeded) as refused:
            await take("refused", 20)  # "young" is not written yet, but may be being written
        # a count, not a rate: its own reason, and the grace as the time to wait
        assert refused.value.reason == "TOO_MANY_TOURNAMENTS"
        assert refused.value.retry_after_s == GRACE_MS / 1000
        states["next"] = True
        await take("late", GRACE_MS)  # past its grace, "young" never came: its place is free
        await quotas.take(TOURNAMENTS, "1.2.3.4", "free", limit=0, counts=counts, now_ms=0)
        await quotas.take(BOTS, "1.2.3.4", "bot", limit=1, counts=counts, now_ms=0)
        with pytest.raises(LimitExceeded) as bot_refused:
            await quotas.take(BOTS, "1.2.3.4", "another", limit=1, counts=counts, now_ms=0)
        assert bot_refused.value.reason == "TOO_MANY_BOTS"

    asyncio.run(main())
