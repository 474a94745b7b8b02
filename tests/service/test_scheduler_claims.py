"""Two replicas' deadline sweepers on one store (memory, and a Redis of this test's own), with an
injected clock: each due bot turn is claimed by one sweep, so the bot's move is computed once
however many sweep at once; a sweeper that claimed a turn and died holds it until its lease
ends, and then the other sweeper makes the move (told the lease lapsed)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest

from benchmarks.redis_server import redis_server
from service.game_service import GameService
from service.metrics import Metrics
from service.scheduler import Scheduler
from service.store.base import ACTIVE, FINISHED, GameStore
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from tests.service.games import FakeClock

LEASE_S = 4.0
DELAY_S = 0.5


class Counted(Metrics):
    """The bot moves computed and the steps fired, as a replica reports them."""

    def __init__(self) -> None:
        self.decided = 0
        self.fired = 0

    def bot_decided(self, bot: str) -> None:
        self.decided += 1

    def deadline_fired(self, kind: str, late_s: float) -> None:
        self.fired += 1


@pytest.fixture(params=["memory", "redis"])
def store_url(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "memory":
        yield ""
        return
    with redis_server() as (url, _):  # its own: no other test's deadlines in its index
        yield url


@asynccontextmanager
async def replicas(
    url: str, clock: FakeClock
) -> AsyncIterator[list[tuple[GameService, Scheduler, Counted]]]:
    """Two replicas on one store: each its game service (its own metrics) and its sweeper."""
    shared = MemoryStore(clock=clock) if not url else None
    stores: list[GameStore] = [shared or RedisStore.from_url(url) for _ in range(2)]
    made = []
    for store in stores:
        counted = Counted()
        games = GameService(store, clock=clock, bot_delay_s=DELAY_S, metrics=counted)
        made.append((games, Scheduler(games, lease_s=LEASE_S, clock=clock), counted))
    try:
        yield made
    finally:
        for store in {id(s): s for s in stores}.values():
            await store.close()


def test_two_sweepers_compute_each_bot_move_once(store_url: str) -> None:
    async def main() -> None:
        clock = FakeClock()
        async with replicas(store_url, clock) as both:
            games = both[0][0]
            record = await games.create_game(
                "counterpoint",
                {"target_score": 20},
                b"claims",
                bot_seats={0: "heuristic", 1: "random"},
            )
            for _ in range(2000):
                record = await games.store.load(record.game_id)
                if record.status != ACTIVE:
                    break
                clock.now += DELAY_S
                await asyncio.gather(*(sweeper.sweep() for _, sweeper, _ in both))
            assert record.status == FINISHED
            moves = len(await games.store.moves(record.game_id))
            decided = [counted.decided for _, _, counted in both]
            assert sum(decided) == moves == sum(c.fired for _, _, c in both) > 0
            assert all(sweeper.lapsed == 0 for _, sweeper, _ in both)

    asyncio.run(main())


def test_a_turn_claimed_by_a_sweeper_that_died_is_made_once_its_lease_ends(
    store_url: str,
) -> None:
    async def main() -> None:
        clock = FakeClock()
        async with replicas(store_url, clock) as both:
            (games, _, dead_counted), (_, alive, counted) = both
            record = await games.create_game(
                "counterpoint", {}, b"dies", bot_seats={0: "heuristic", 1: "random"}
            )
            clock.now += DELAY_S
            # The dying replica's sweep claims the turn, then its process is gone.
            now_ms = int(clock.now * 1000)
            claimed = await games.store.deadlines.due(now_ms, 200, int(LEASE_S * 1000))
            assert [d.game_id for d in claimed] == [record.game_id]
            clock.now += LEASE_S - 0.001
            await alive.sweep()
            assert (await games.store.load(record.game_id)).version == 0  # held by its lease
            clock.now += 0.001
            await alive.sweep()
            assert (await games.store.load(record.game_id)).version == 1
            assert alive.lapsed == 1 and counted.decided == counted.fired == 1
            assert dead_counted.decided == 0

    asyncio.run(main())
