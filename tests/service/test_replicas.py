"""The replica-local state cache and wait_for_turn, at the GameService level.

Two GameService instances on one Redis are two replicas. A replica's cached copy of a game may be
behind the store; these tests prove that costs an ABORTED or a reload, never a wrong result, and
that the cache is really used (otherwise the staleness tests would pass through the slow path).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest

from engine import get_rules
from engine.core.errors import IllegalMove
from engine.core.moves import LayAside, Move
from service.errors import Unauthenticated, VersionConflict
from service.game_service import GameService, StateCache
from service.store.base import GameRecord, GameStore, SeatRecord
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from tests.service.games import seated

Body = Callable[[GameService, GameService], Awaitable[None]]


class CountingStore:
    """Counts a store's loads, to tell the cached path from the full one."""

    def __init__(self, store: GameStore) -> None:
        self.loads = 0
        original = store.load

        async def load(game_id: str) -> GameRecord:
            self.loads += 1
            return await original(game_id)

        store.load = load  # type: ignore[method-assign]


def run_replicas(redis_url: str, body: Body) -> None:
    async def main() -> None:
        stores = [RedisStore.from_url(redis_url), RedisStore.from_url(redis_url)]
        try:
            await body(GameService(stores[0]), GameService(stores[1]))
        finally:
            for store in stores:
                await store.close()

    asyncio.run(main())


async def legal(games: GameService, game_id: str, token: str) -> tuple[Move, int, int]:
    """The first legal move of the token's seat, the game's version and that seat."""
    record, view = await games.get_game(game_id, token)
    assert view.viewer is not None and view.legal_moves
    return view.legal_moves[0], record.version, view.viewer


async def a_seat_to_act(games: GameService, game_id: str, tokens: list[str]) -> int:
    _, view = await games.get_game(game_id, tokens[0])
    return view.to_act[0]


def rid() -> str:
    return uuid.uuid4().hex


def test_a_replica_moves_from_its_cache_without_reading_the_store(redis_url: str) -> None:
    async def body(a: GameService, b: GameService) -> None:
        game_id, tokens = await seated(a, seed=b"replicas")
        counting = CountingStore(a.store)
        for _ in range(6):
            seat = await a_seat_to_act(a, game_id, tokens)
            move, version, _ = await legal(a, game_id, tokens[seat])
            before = counting.loads
            result = await a.submit_move(
                game_id, tokens[seat], move, expected_version=version, request_id=rid()
            )
            assert result.version == version + 1
            assert counting.loads == before  # decided on the cached copy, committed by CAS
        moves = await b.store.moves(game_id)
        assert len(moves) == 6

    run_replicas(redis_url, body)


def test_a_stale_cache_costs_an_aborted_move_never_a_wrong_one(redis_url: str) -> None:
    async def body(a: GameService, b: GameService) -> None:
        game_id, tokens = await seated(a, seed=b"replicas")
        seat = await a_seat_to_act(a, game_id, tokens)
        move, version, _ = await legal(a, game_id, tokens[seat])
        assert a.cache.get(game_id, version) is not None  # A holds the game at `version`
        # Replica B advances the game; A's copy is now behind the store.
        await b.submit_move(game_id, tokens[seat], move, expected_version=version, request_id=rid())
        # A client that missed B's move decides on `version` and asks A: A's copy agrees with it,
        # the compare-and-set does not.
        seat = await a_seat_to_act(b, game_id, tokens)
        other, _, _ = await legal(b, game_id, tokens[seat])
        assert a.cache.get(game_id, version) is not None  # A's copy is behind the store
        with pytest.raises(VersionConflict) as conflict:
            await a.submit_move(
                game_id, tokens[seat], other, expected_version=version, request_id=rid()
            )
        assert conflict.value.current_version == version + 1
        assert len(await a.store.moves(game_id)) == 1  # nothing written
        # With the current version, A reloads and the move is accepted.
        result = await a.submit_move(
            game_id, tokens[seat], other, expected_version=version + 1, request_id=rid()
        )
        assert result.version == version + 2
        assert len(await b.store.moves(game_id)) == 2

    run_replicas(redis_url, body)


def test_a_retry_sent_to_a_replica_with_a_stale_cache_returns_the_first_result(
    redis_url: str,
) -> None:
    async def body(a: GameService, b: GameService) -> None:
        game_id, tokens = await seated(a, seed=b"replicas")
        seat = await a_seat_to_act(a, game_id, tokens)
        move, version, _ = await legal(a, game_id, tokens[seat])
        request_id = rid()
        first = await b.submit_move(
            game_id, tokens[seat], move, expected_version=version, request_id=request_id
        )
        assert a.cache.get(game_id, version) is not None  # A is behind
        again = await a.submit_move(
            game_id, tokens[seat], move, expected_version=version, request_id=request_id
        )
        assert again.version == first.version == version + 1
        assert again.events == first.events
        assert len(await a.store.moves(game_id)) == 1  # applied once

    run_replicas(redis_url, body)


def test_an_illegal_move_is_refused_the_same_way_with_or_without_a_cached_copy(
    redis_url: str,
) -> None:
    async def body(a: GameService, b: GameService) -> None:
        game_id, tokens = await seated(a, seed=b"replicas")
        seat = await a_seat_to_act(a, game_id, tokens)
        _, version, _ = await legal(a, game_id, tokens[seat])
        _, view = await a.get_game(game_id, tokens[seat])
        hand = view.seats[seat].hand
        assert hand is not None
        # Laying aside the wrong number of cards is illegal in the bidding phase.
        bad = LayAside(cards=tuple(sorted(hand[:1])))
        reasons = []
        for games in (a, b):  # A has the game cached at `version`; B loads it
            with pytest.raises(IllegalMove) as refused:
                await games.submit_move(
                    game_id, tokens[seat], bad, expected_version=version, request_id=rid()
                )
            reasons.append(refused.value.reason)
        assert reasons[0] == reasons[1]
        assert (await a.store.load(game_id)).version == version

    run_replicas(redis_url, body)


def test_a_waiting_seat_on_one_replica_wakes_on_a_move_made_through_another(
    redis_url: str,
) -> None:
    async def body(a: GameService, b: GameService) -> None:
        game_id, tokens = await seated(a, seed=b"replicas")
        # Both seats lay their bid cards aside; then exactly one seat leads.
        for seat in (0, 1):
            move, version, _ = await legal(a, game_id, tokens[seat])
            await a.submit_move(
                game_id, tokens[seat], move, expected_version=version, request_id=rid()
            )
        leader = await a_seat_to_act(a, game_id, tokens)
        follower = 1 - leader
        waiting = asyncio.create_task(a.get_game(game_id, tokens[follower], wait_s=10))
        await asyncio.sleep(0.2)
        assert not waiting.done()
        move, version, _ = await legal(b, game_id, tokens[leader])
        await b.submit_move(
            game_id, tokens[leader], move, expected_version=version, request_id=rid()
        )
        record, view = await asyncio.wait_for(waiting, 10)
        assert record.version == version + 1
        assert view.to_act == (follower,) and view.legal_moves

    run_replicas(redis_url, body)


def test_submit_move_with_a_wait_answers_when_the_mover_is_to_act_again() -> None:
    async def main() -> None:
        games = GameService(MemoryStore(), stream_wait_s=0.05)
        game_id, tokens = await seated(games, seed=b"replicas")
        for seat in (0, 1):  # bid cards: both seats act at once
            move, version, _ = await legal(games, game_id, tokens[seat])
            await games.submit_move(
                game_id, tokens[seat], move, expected_version=version, request_id=rid()
            )
        leader = await a_seat_to_act(games, game_id, tokens)
        follower = 1 - leader
        move, version, _ = await legal(games, game_id, tokens[leader])
        mine = asyncio.create_task(
            games.submit_move(
                game_id, tokens[leader], move, expected_version=version, request_id=rid(), wait_s=10
            )
        )
        await asyncio.sleep(0.1)
        assert not mine.done()  # the follower has not played yet
        answers = 0
        while not mine.done():  # the follower plays until the leader's turn comes back
            _, view = await games.get_game(game_id, tokens[follower])
            if follower in view.to_act:
                reply, answered, _ = await legal(games, game_id, tokens[follower])
                await games.submit_move(
                    game_id, tokens[follower], reply, expected_version=answered, request_id=rid()
                )
                answers += 1
            await asyncio.sleep(0.02)
        result = await mine
        current = await games.store.load(game_id)
        assert answers >= 1
        assert result.version == version + 1  # the mover's own move
        assert result.view_version == current.version == version + 1 + answers
        assert result.view.finished or leader in result.view.to_act
        assert result.view.legal_moves or result.view.finished

    asyncio.run(main())


def test_a_wait_ends_after_its_limit_with_the_current_view() -> None:
    async def main() -> None:
        games = GameService(MemoryStore(), stream_wait_s=0.05)
        game_id, tokens = await seated(games, seed=b"replicas")
        for seat in (0, 1):
            move, version, _ = await legal(games, game_id, tokens[seat])
            await games.submit_move(
                game_id, tokens[seat], move, expected_version=version, request_id=rid()
            )
        follower = 1 - await a_seat_to_act(games, game_id, tokens)
        record, view = await asyncio.wait_for(
            games.get_game(game_id, tokens[follower], wait_s=0.3), 5
        )
        assert record.version == 2 and follower not in view.to_act and not view.legal_moves
        with pytest.raises(Unauthenticated):
            await games.get_game(game_id, None, wait_s=0.3)

    asyncio.run(main())


def test_the_cache_keeps_only_full_tables_newest_versions_and_a_bounded_number() -> None:
    rules = get_rules("counterpoint")
    cache = StateCache(max_games=2)

    def record(game_id: str, version: int, full: bool = True) -> GameRecord:
        seat = SeatRecord(token_hash="h", player_name="p")
        return GameRecord(
            game_id=game_id,
            game_type=rules.name,
            options={},
            seed=b"s",
            seat_count=2,
            created_at_ms=0,
            version=version,
            seats=(seat, seat if full else None),
        )

    cache.put(record("open", 0, full=False), "state")
    assert cache.get("open", 0) is None  # seats can still change: never cached
    cache.put(record("g", 3), "v3")
    cache.put(record("g", 2), "v2")  # an older version never replaces a newer one
    assert cache.get("g", 3) == (record("g", 3), "v3") and cache.get("g", 2) is None
    cache.put(record("h", 1), "h1")
    cache.put(record("i", 1), "i1")  # the least recently used game goes
    assert cache.get("g", 3) is None and cache.get("h", 1) and cache.get("i", 1)


def test_one_request_sent_twice_at_once_to_two_replicas_is_applied_once(redis_url: str) -> None:
    async def body(a: GameService, b: GameService) -> None:
        game_id, tokens = await seated(a, seed=b"replicas")
        seat = await a_seat_to_act(a, game_id, tokens)
        move, version, _ = await legal(a, game_id, tokens[seat])
        request_id = rid()
        results = await asyncio.gather(
            *(
                games.submit_move(
                    game_id, tokens[seat], move, expected_version=version, request_id=request_id
                )
                for games in (a, b, a, b)
            )
        )
        assert {r.version for r in results} == {version + 1}
        assert len({tuple(r.events) for r in results}) == 1
        assert len(await a.store.moves(game_id)) == 1

    run_replicas(redis_url, body)
