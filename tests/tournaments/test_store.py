"""The ``TournamentStore`` contract, on every adapter (memory, one Redis, a Redis Cluster):
each step is atomic and checked against what it was decided on, so a game is started once and a
result counted once however many replicas race."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable

import pytest

from service.tournaments.bot_store import Stores, memory_stores
from service.tournaments.redis_bots import redis_stores
from service.tournaments.spec import CANCELLED, FINISHED, RUNNING, Entrant, TournamentSpec
from service.tournaments.standings import Result
from service.tournaments.store import (
    ALREADY,
    COUNTED,
    ENDED,
    STALE,
    BotNotFound,
    BotRecord,
    Ladder,
    TournamentNotFound,
)

Body = Callable[[Stores], Awaitable[None]]


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def run(request: pytest.FixtureRequest) -> Callable[[Body], None]:
    def runner(body: Body) -> None:
        async def main() -> None:
            if request.param == "memory":
                stores = memory_stores()
            elif request.param == "redis":
                stores = redis_stores(request.getfixturevalue("redis_url"))
            else:
                stores = redis_stores(request.getfixturevalue("redis_cluster_url"), cluster=True)
            try:
                await body(stores)
            finally:
                await stores.close()

        asyncio.run(main())

    return runner


def new_spec(at_once: int = 2, created_at_ms: int = 1_700_000_000_000) -> TournamentSpec:
    return TournamentSpec(
        tournament_id=uuid.uuid4().hex[:16],
        name="cup",
        game_type="counterpoint",
        seats=2,
        options={"target_score": 20},
        time_control=None,
        rounds=1,
        duplicate=False,
        entrants=(Entrant(0, "random", "random"), Entrant(1, "heuristic", "heuristic")),
        games_at_once=at_once,
        seed=b"seed",
        creator_hash="h",
        created_at_ms=created_at_ms,
    )


def result(number: int) -> Result:
    return Result(number, f"g{number}", (10, 3), (0,))


def test_a_tournament_loads_as_created(run: Callable[[Body], None]) -> None:
    async def body(stores: Stores) -> None:
        store = stores.tournaments
        spec = new_spec()
        await store.create(spec, 2)
        state = await store.load(spec.tournament_id)
        assert (state.spec, state.status, state.version) == (spec, RUNNING, 0)
        assert not state.games and not state.results
        with pytest.raises(ValueError):
            await store.create(spec, 2)
        with pytest.raises(TournamentNotFound):
            await store.load("nope")

    run(body)


def test_games_start_once_in_order_and_no_more_at_once_than_allowed(
    run: Callable[[Body], None],
) -> None:
    async def body(stores: Stores) -> None:
        store = stores.tournaments
        spec = new_spec(at_once=2)
        tid = spec.tournament_id
        await store.create(spec, 3)
        assert not await store.start_game(tid, 1, "g1", "e")  # not the next one
        racing = await asyncio.gather(*(store.start_game(tid, 0, "g0", "e") for _ in range(5)))
        assert racing.count(True) == 1
        assert await store.start_game(tid, 1, "g1", "e")
        assert not await store.start_game(tid, 2, "g2", "e")  # two at once already
        assert await store.count_result(tid, result(0), 0, "ended", "end") == COUNTED
        assert await store.start_game(tid, 2, "g2", "e")
        assert not await store.start_game(tid, 3, "g3", "e")  # the schedule has 3 games
        state = await store.load(tid)
        assert dict(state.games) == {0: "g0", 1: "g1", 2: "g2"}
        assert state.playing == [1, 2] and state.version == 4
        assert await store.events(tid, 1) == ["e", "e", "ended", "e"]

    run(body)


def test_a_result_is_counted_once_over_the_results_it_was_decided_on(
    run: Callable[[Body], None],
) -> None:
    async def body(stores: Stores) -> None:
        store = stores.tournaments
        spec = new_spec(at_once=2)
        tid = spec.tournament_id
        await store.create(spec, 2)
        await store.start_game(tid, 0, "g0", "s0")
        await store.start_game(tid, 1, "g1", "s1")
        racing = await asyncio.gather(
            *(store.count_result(tid, result(1), 0, "ended1", "end") for _ in range(5))
        )
        assert sorted(racing) == sorted([COUNTED] + [ALREADY] * 4)
        assert await store.count_result(tid, result(0), 0, "ended0", "end") == STALE
        assert await store.count_result(tid, result(0), 1, "ended0", "end") == COUNTED
        state = await store.load(tid)
        assert state.status == FINISHED and set(state.results) == {0, 1}
        assert state.results[1] == result(1)
        assert await store.events(tid, 3) == ["ended1", "ended0", "end"]
        assert state.version == 5
        assert await store.count_result(tid, result(0), 2, "x", "y") == ENDED

    run(body)


def test_cancel_ends_a_running_tournament_once(run: Callable[[Body], None]) -> None:
    async def body(stores: Stores) -> None:
        store = stores.tournaments
        spec = new_spec()
        tid = spec.tournament_id
        await store.create(spec, 4)
        assert await store.cancel(tid, "cancelled")
        assert not await store.cancel(tid, "again")
        assert not await store.start_game(tid, 0, "g0", "e")
        state = await store.load(tid)
        assert (state.status, state.version) == (CANCELLED, 1)

    run(body)


def test_the_due_index_leases_what_it_hands_out(run: Callable[[Body], None]) -> None:
    async def body(stores: Stores) -> None:
        store = stores.tournaments
        spec = new_spec()
        tid = spec.tournament_id
        await store.create(spec, 4)
        # Now, not later: the index is shared with the session's other tests, whose
        # tournaments this leases for a moment only.
        now = int(time.time() * 1000)
        first = await store.due(now, 1000, 5000)
        assert tid in first
        assert tid not in await store.due(now + 4000, 1000, 5000)  # leased
        assert tid in await store.due(now + 5000, 1000, 5000)  # the lease ran out
        await store.look_again(tid, None)
        assert tid not in await store.due(now + 6000, 1000, 5000)

    run(body)


def test_bots_and_their_seats_are_kept(run: Callable[[Body], None]) -> None:
    async def body(stores: Stores) -> None:
        store = stores.bots
        bot_id = uuid.uuid4().hex[:16]
        game_type = f"type-{bot_id}"
        bot = BotRecord(bot_id, "b", (game_type,), "connected", "", True, "h", 1)
        await store.add_bot(bot)
        assert await store.bot(bot_id) == bot
        assert await store.ladder_bots(game_type) == [bot]
        with pytest.raises(BotNotFound):
            await store.bot("nope")
        await store.give_seat(bot_id, "a")
        await store.give_seat(bot_id, "b")
        assert await store.seats_given(bot_id, 1) == ["b"]

    run(body)


def test_a_ladder_game_starts_once_and_is_rated_once(run: Callable[[Body], None]) -> None:
    async def body(stores: Stores) -> None:
        store = stores.ladders
        game_type = f"type-{uuid.uuid4().hex[:8]}"
        racing = await asyncio.gather(
            *(store.ladder_start(game_type, 0, "g0", ("a", "b"), 1) for _ in range(4))
        )
        assert racing.count(True) == 1
        assert not await store.ladder_start(game_type, 1, "g1", ("c", "d"), 1)  # one at once
        rated = {"a": Ladder(mu=27.0, games=1, wins=1.0), "b": Ladder(mu=23.0, games=1)}
        outcomes = await asyncio.gather(
            *(store.ladder_rate(game_type, 0, 0, rated) for _ in range(4))
        )
        assert sorted(outcomes) == sorted([COUNTED] + [ALREADY] * 3)
        state = await store.ladder(game_type)
        assert dict(state.games) == {0: ("g0", ("a", "b"))} and state.rated == {0}
        assert dict(state.ratings) == rated == await store.ratings(game_type)
        assert await store.ladder_start(game_type, 1, "g1", ("c", "d"), 1)
        assert await store.ladder_rate(game_type, 1, 0, rated) == STALE
        assert await store.lease(f"l.{game_type}", "me", 5000)
        assert await store.lease(f"l.{game_type}", "me", 5000)  # renewed
        assert not await store.lease(f"l.{game_type}", "other", 5000)

    run(body)
