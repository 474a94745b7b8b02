"""The play streams of one game share one wait (service.game_watch.GameWatch): the store sees a
single waiter however many seats follow the game, every follower is told each version, nothing
waits once they have gone, and an expired game ends every follower."""

from __future__ import annotations

import asyncio

from service.errors import GameNotFound
from service.game_service import GameService
from service.game_watch import GameWatch
from service.play import PlaySession
from tests.service.games import FakeClock, seated
from tests.service.test_event_feed import CountingStore, _move, _until
from tests.service.test_play_session import _no_moves


def test_the_seats_of_a_game_share_one_wait_and_each_is_told_every_version() -> None:
    async def main() -> None:
        store = CountingStore()
        games = GameService(store)
        game_id, tokens = await seated(games, seed=b"one wait")
        watch = GameWatch(store, recheck_s=60)
        told: list[list[int | Exception]] = [[], [], []]
        leave = [watch.follow(game_id, 0, told[n].append) for n in range(3)]
        await _until(lambda: store.waiting == 1)
        for version in range(3):
            await _move(games, game_id, tokens, version)
            await _until(lambda v=version: all(t[-1:] == [v + 1] for t in told))
            assert store.waiting == 1  # still one wait, not one per follower
        assert told == [[1, 2, 3]] * 3
        # A follower that leaves is told nothing more; the last one's leaving ends the wait.
        leave[0]()
        await _move(games, game_id, tokens, 3)
        await _until(lambda: told[1][-1:] == [4] and told[2][-1:] == [4])
        assert told[0] == [1, 2, 3]
        leave[1]()
        leave[2]()
        await _until(lambda: store.waiting == 0)

    asyncio.run(main())


def test_a_follower_behind_the_watch_is_told_the_latest_version_at_once() -> None:
    async def main() -> None:
        store = CountingStore()
        games = GameService(store)
        game_id, tokens = await seated(games, seed=b"behind")
        watch = GameWatch(store, recheck_s=60)
        first: list[int | Exception] = []
        leave_first = watch.follow(game_id, 0, first.append)
        await _move(games, game_id, tokens, 0)
        await _until(lambda: first == [1])
        late: list[int | Exception] = []
        leave_late = watch.follow(game_id, 0, late.append)
        assert late == [1]  # before follow returned
        ahead: list[int | Exception] = []
        leave_ahead = watch.follow(game_id, 1, ahead.append)
        assert ahead == []  # it knows version 1 already
        for leave in (leave_first, leave_late, leave_ahead):
            leave()
        await _until(lambda: store.waiting == 0)

    asyncio.run(main())


def test_an_expired_game_ends_every_follower_and_its_wait() -> None:
    async def main() -> None:
        clock = FakeClock()
        store = CountingStore(clock, open_ttl_s=60)
        games = GameService(store)
        record = await games.create_game("counterpoint", {}, b"open")  # never filled: expires
        watch = GameWatch(store, recheck_s=0.02)
        told: list[list[int | Exception]] = [[], []]
        for n in range(2):
            watch.follow(record.game_id, 0, told[n].append)
        await _until(lambda: store.waiting == 1)
        clock.now += 61
        await _until(lambda: all(t for t in told))
        for t in told:
            assert len(t) == 1 and isinstance(t[0], GameNotFound)
        assert store.waiting == 0
        # A new follower starts a new wait, which finds the game gone too.
        again: list[int | Exception] = []
        watch.follow(record.game_id, 0, again.append)
        await _until(lambda: bool(again))
        assert isinstance(again[0], GameNotFound)

    asyncio.run(main())


def test_shutdown_stops_every_wait() -> None:
    async def main() -> None:
        store = CountingStore()
        games = GameService(store)
        ids = [(await seated(games, seed=bytes([n]) * 8))[0] for n in range(3)]
        watch = GameWatch(store, recheck_s=60)
        for game_id in ids:
            watch.follow(game_id, 0, lambda news: None)
        await _until(lambda: store.waiting == 3)
        watch.close()
        await _until(lambda: store.waiting == 0)

    asyncio.run(main())


def test_the_play_streams_of_a_table_make_one_wait_and_leave_none_behind() -> None:
    async def main() -> None:
        store = CountingStore()
        games = GameService(store)
        game_id, tokens = await seated(games, seed=b"streams")
        streams = [PlaySession(games, game_id, t, 1).items(_no_moves()) for t in tokens]
        for stream in streams:
            await anext(stream)  # each opens with its seat's view
        await _until(lambda: store.waiting == 1)
        await _move(games, game_id, tokens, 0)  # a move made elsewhere reaches both streams
        for stream in streams:
            step = await asyncio.wait_for(anext(stream), 5)
            assert [b.version for b in step.batches] == [1]
        assert store.waiting == 1
        for stream in streams:
            await stream.aclose()  # type: ignore[attr-defined]  # an async generator
        await _until(lambda: store.waiting == 0)

    asyncio.run(main())
