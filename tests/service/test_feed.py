"""Everyone waiting on a game on one replica shares one wait (service.feed.GameFeed): followers
(play streams) and waiting calls are handed the batches of each version the game reaches, the
store sees a single waiter however many wait, nothing waits once they have gone, and an expired
game ends every follower. (The feed's event streams: test_event_feed.)"""

from __future__ import annotations

import asyncio

from service.errors import GameNotFound
from service.feed import Batches, Follower, GameFeed
from service.game_service import GameService
from service.play import PlaySession
from tests.service.games import FakeClock, seated
from tests.service.test_event_feed import CountingStore, Watcher, _move, _until
from tests.service.test_play_session import _no_moves

Told = list[list[int] | Exception]


def _told(into: Told) -> Follower:
    """A follower that notes the versions of the batches it is handed (or the error)."""

    def follower(news: Batches | Exception) -> None:
        into.append(news if isinstance(news, Exception) else [b.version for b in news])

    return follower


def test_the_seats_of_a_game_share_one_wait_and_each_is_handed_every_batch() -> None:
    async def main() -> None:
        store = CountingStore()
        games = GameService(store)
        game_id, tokens = await seated(games, seed=b"one wait")
        feed = GameFeed(store, recheck_s=60)
        told: list[Told] = [[], [], []]
        leave = [feed.follow(game_id, 0, _told(told[n])) for n in range(3)]
        await _until(lambda: store.waiting == 1)
        for version in range(3):
            await _move(games, game_id, tokens, version)
            await _until(lambda v=version: all(t[-1:] == [[v + 1]] for t in told))
            assert store.waiting == 1  # still one wait, not one per follower
        assert told == [[[1], [2], [3]]] * 3
        assert store.reads == {1: 1, 2: 1, 3: 1}  # one read per commit, for every follower
        # A follower that leaves is told nothing more; the last one's leaving ends the wait.
        leave[0]()
        await _move(games, game_id, tokens, 3)
        await _until(lambda: told[1][-1:] == [[4]] and told[2][-1:] == [[4]])
        assert told[0] == [[1], [2], [3]]
        leave[1]()
        leave[2]()
        await _until(lambda: store.waiting == 0)

    asyncio.run(main())


def test_a_follower_behind_the_watch_is_handed_what_it_missed() -> None:
    async def main() -> None:
        store = CountingStore()
        games = GameService(store)
        game_id, tokens = await seated(games, seed=b"behind")
        feed = GameFeed(store, recheck_s=60)
        first: Told = []
        leave_first = feed.follow(game_id, 0, _told(first))
        await _move(games, game_id, tokens, 0)
        await _until(lambda: first == [[1]])
        late: Told = []
        leave_late = feed.follow(game_id, 0, _told(late))
        await _until(lambda: late == [[1]])
        ahead: Told = []
        leave_ahead = feed.follow(game_id, 1, _told(ahead))
        await asyncio.sleep(0.01)
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
        feed = GameFeed(store, recheck_s=0.02)
        told: list[Told] = [[], []]
        for n in range(2):
            feed.follow(record.game_id, 0, _told(told[n]))
        await _until(lambda: store.waiting == 1)
        clock.now += 61
        await _until(lambda: all(t for t in told))
        for t in told:
            assert len(t) == 1 and isinstance(t[0], GameNotFound)
        assert store.waiting == 0
        # A new follower starts a new wait, which finds the game gone too.
        again: Told = []
        feed.follow(record.game_id, 0, _told(again))
        await _until(lambda: bool(again))
        assert isinstance(again[0], GameNotFound)

    asyncio.run(main())


def test_shutdown_stops_every_wait() -> None:
    async def main() -> None:
        store = CountingStore()
        games = GameService(store)
        ids = [(await seated(games, seed=bytes([n]) * 8))[0] for n in range(3)]
        feed = GameFeed(store, recheck_s=60)
        for game_id in ids:
            feed.follow(game_id, 0, lambda news: None)
        await _until(lambda: store.waiting == 3)
        feed.close()
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


def test_streams_play_streams_and_waiting_calls_of_a_game_share_one_wait() -> None:
    async def main() -> None:
        store = CountingStore()
        games = GameService(store, stream_wait_s=30, turn_wait_s=30)
        game_id, tokens = await seated(games, seed=b"everyone")
        plays = [PlaySession(games, game_id, t, 1).items(_no_moves()) for t in tokens]
        for play in plays:
            await anext(play)
        spectators = [Watcher(games.stream_events(game_id, None, 0)) for _ in range(3)]
        _, view = await games.get_game(game_id, tokens[0])
        mover = 0 if view.legal_moves else 1
        # The seat not to act waits for its turn; a spectator's call waits for version 1.
        turn = asyncio.ensure_future(games.get_game(game_id, tokens[1 - mover], wait_s=30))
        later = asyncio.ensure_future(games.get_game(game_id, None, wait_s=30, after_version=0))
        await _until(lambda: all(w.versions == [0] for w in spectators))
        await asyncio.sleep(0.01)
        assert store.waiting == 1  # one wait for the two play streams, 3 streams and 2 calls
        store.reads.clear()
        await _move(GameService(store), game_id, tokens, 0)  # another replica's move
        record, _ = await asyncio.wait_for(later, 5)
        assert record.version == 1
        await _until(lambda: all(w.versions == [0, 1] for w in spectators))
        for play in plays:
            step = await asyncio.wait_for(anext(play), 5)
            assert [b.version for b in step.batches] == [1]
        assert store.reads == {1: 1}  # and one read of the move, for all of them
        for play in plays:
            await play.aclose()  # type: ignore[attr-defined]  # an async generator
        for w in spectators:
            w.task.cancel()
        turn.cancel()
        await asyncio.gather(turn, *(w.task for w in spectators), return_exceptions=True)
        await _until(lambda: store.waiting == 0)

    asyncio.run(main())
