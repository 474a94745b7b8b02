"""The streams of one game share one wait and one read (service.feed.GameFeed): the store sees a
single waiter however many streams wait, one read per commit (none for a commit made on the
streams' own replica), and nothing once the streams have gone; an expired game and a shutdown
still end every waiting stream."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator

import pytest

from engine import get_rules
from service.errors import GameNotFound
from service.game_service import GameService, ProjectedBatch, project_batch
from service.store.base import EventBatch
from service.store.memory import MemoryStore
from tests.service.games import FakeClock, seated


class CountingStore(MemoryStore):
    """The memory store, counting what the streams ask of it."""

    def __init__(self, clock: FakeClock | None = None, open_ttl_s: float = 0.0) -> None:
        super().__init__(clock=clock or FakeClock(), open_ttl_s=open_ttl_s)
        self.waiting = 0  # wait_for_version calls in progress
        self.reads: Counter[int] = Counter()  # read_events calls by from_version

    async def wait_for_version(self, game_id: str, after: int, wait_s: float) -> int | None:
        self.waiting += 1
        try:
            return await super().wait_for_version(game_id, after, wait_s)
        finally:
            self.waiting -= 1

    async def read_events(self, game_id: str, from_version: int) -> list[EventBatch]:
        self.reads[from_version] += 1
        return await super().read_events(game_id, from_version)


class Watcher:
    """One stream, read into ``versions`` by a task of its own, as a server runs each call."""

    def __init__(self, stream: AsyncIterator[ProjectedBatch]) -> None:
        self.versions: list[int] = []
        self.task = asyncio.create_task(self._follow(stream))

    async def _follow(self, stream: AsyncIterator[ProjectedBatch]) -> None:
        async for batch in stream:
            self.versions.append(batch.version)


async def _until(done: object, timeout_s: float = 5.0) -> None:
    async with asyncio.timeout(timeout_s):
        while not callable(done) or not done():
            await asyncio.sleep(0.005)


async def _move(games: GameService, game_id: str, tokens: list[str], version: int) -> None:
    for token in tokens:
        _, view = await games.get_game(game_id, token)
        if view.legal_moves:
            await games.submit_move(
                game_id,
                token,
                view.legal_moves[0],
                expected_version=version,
                request_id=f"m{version}",
            )
            return
    raise AssertionError("nobody may move")


def test_one_wait_and_one_read_per_commit_serve_every_stream_of_a_game() -> None:
    async def main() -> None:
        store = CountingStore()
        games = GameService(store, stream_wait_s=30)
        game_id, tokens = await seated(games)
        spectators = [Watcher(games.stream_events(game_id, None, 0)) for _ in range(40)]
        seats = [Watcher(games.stream_events(game_id, t, 0)) for t in tokens]
        everyone = spectators + seats
        await _until(lambda: all(w.versions == [0] for w in everyone))
        await asyncio.sleep(0.01)
        assert store.waiting == 1  # the feed's one watch, for all 42 streams
        store.reads.clear()
        await _move(games, game_id, tokens, 0)
        await _until(lambda: all(w.versions == [0, 1] for w in everyone))
        assert store.reads == {}  # made on this replica: its batch is handed over, not read back
        await asyncio.sleep(0.01)
        assert store.waiting == 1  # and one again for the next version
        # A stream that starts behind reads what it missed, then joins the others.
        late = Watcher(games.stream_events(game_id, None, 0))
        await _until(lambda: late.versions == [0, 1])
        store.reads.clear()
        await _move(GameService(store), game_id, tokens, 1)  # another replica's move
        await _until(lambda: all(w.versions == [0, 1, 2] for w in [*everyone, late]))
        assert store.reads == {2: 1}  # read once, for all 43 streams
        for w in [*everyone, late]:
            w.task.cancel()
        await asyncio.gather(*(w.task for w in [*everyone, late]), return_exceptions=True)
        await asyncio.sleep(0.01)
        assert store.waiting == 0  # the streams gone, nothing waits on the store for them

    asyncio.run(main())


def test_spectators_and_each_seat_see_only_what_they_may() -> None:
    async def main() -> None:
        games = GameService(CountingStore())
        game_id, tokens = await seated(games)
        rules = get_rules("counterpoint")
        streams = [games.stream_events(game_id, t, 0) for t in [None, None, *tokens]]
        firsts = [await anext(s) for s in streams]
        pending = [asyncio.ensure_future(anext(s)) for s in streams]
        await asyncio.sleep(0.01)
        await _move(games, game_id, tokens, 0)
        seconds = await asyncio.gather(*pending)
        assert seconds[0] is seconds[1]  # projected once for every spectator the commit woke
        for batches in (firsts, seconds):
            spectator, _, *by_seat = batches
            stored = (await games.store.read_events(game_id, spectator.version))[0]
            assert spectator == project_batch(rules, stored, None)
            for seat, projected in enumerate(by_seat):
                assert projected == project_batch(rules, stored, seat)
        # The deal: each seat sees its own hand, and a spectator none.
        assert all(seat != firsts[0] for seat in firsts[2:])

    asyncio.run(main())


def test_an_expired_game_ends_its_waiting_streams() -> None:
    async def main() -> None:
        clock = FakeClock()
        store = CountingStore(clock, open_ttl_s=60)
        games = GameService(store, stream_wait_s=0.02, stream_recheck_s=0.02)
        record = await games.create_game("counterpoint", {}, b"open")
        _, token, _ = await games.join_game(record.game_id, 0, "p0")  # a seat, still open
        spectators = [Watcher(games.stream_events(record.game_id, None, 0)) for _ in range(3)]
        seat = Watcher(games.stream_events(record.game_id, token, 0))
        await _until(lambda: all(w.versions == [0] for w in [*spectators, seat]))
        clock.now += 61
        for w in [*spectators, seat]:
            with pytest.raises(GameNotFound):
                await asyncio.wait_for(w.task, 5)
        assert store.waiting == 0

    asyncio.run(main())


def test_shutdown_ends_waiting_streams_and_any_that_start_waiting_after() -> None:
    async def main() -> None:
        store = CountingStore()
        games = GameService(store, stream_wait_s=30)
        game_id, tokens = await seated(games)
        watchers = [Watcher(games.stream_events(game_id, t, 0)) for t in [None, *tokens]]
        await _until(lambda: all(w.versions == [0] for w in watchers))
        games.close_streams()
        await asyncio.wait_for(asyncio.gather(*(w.task for w in watchers)), 5)  # ended cleanly
        assert [w.versions for w in watchers] == [[0]] * len(watchers)
        late = [b.version async for b in games.stream_events(game_id, None, 0)]
        assert late == []  # the server is going away: its clients reconnect to another
        await asyncio.sleep(0.01)
        assert store.waiting == 0

    asyncio.run(main())


def test_a_seat_whose_waits_keep_running_out_misses_no_batch() -> None:
    async def main() -> None:
        store = CountingStore()
        # Each wait of the seat's stream runs out almost at once: it leaves the feed, keeps its
        # presence, looks at the version itself and waits again, as moves are committed.
        games = GameService(store, stream_wait_s=0.001)
        game_id, tokens = await seated(games)
        seat = Watcher(games.stream_events(game_id, tokens[0], 0))
        for version in range(6):
            await _move(games, game_id, tokens, version)
            await asyncio.sleep(0.002 * version)
        await _until(lambda: seat.versions == list(range(7)))
        seat.task.cancel()
        await asyncio.gather(seat.task, return_exceptions=True)
        await asyncio.sleep(0.01)
        assert store.waiting == 0

    asyncio.run(main())
