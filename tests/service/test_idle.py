"""``serve --idle-ttl``: a full game that sees no move for the idle time ends as abandoned, by
an ordinary compare-and-set commit found through the store's deadline index; a game that moves
is watched again later; an open game is not watched (it expires by the open TTL instead)."""

from __future__ import annotations

import asyncio
import uuid

from engine.core.events import GameAbandoned
from engine.record import verify
from service.game_service import GameService
from service.scheduler import Scheduler
from service.store.base import ABANDONED, ACTIVE
from service.store.memory import MemoryStore
from tests.service.games import FakeClock, seated


def test_a_deserted_full_game_ends_as_abandoned_and_its_record_says_so() -> None:
    async def main() -> None:
        clock = FakeClock()
        games = GameService(MemoryStore(), clock=clock, idle_ttl_s=3600)
        sweeper = Scheduler(games, clock=clock)
        open_game = await games.create_game("counterpoint", {}, b"open")
        game_id, _ = await seated(games, seed=b"idle")
        clock.now += 3599
        await sweeper.sweep()
        assert (await games.store.load(game_id)).status == ACTIVE
        clock.now += 1
        await sweeper.sweep()
        record = await games.store.load(game_id)
        assert record.status == ABANDONED and record.resigned_seat is None
        (last,) = await games.store.read_events(game_id, record.version)
        assert last.seat is None and last.events == ({"type": "game_abandoned", "reason": "idle"},)
        _, full = await games.game_record(game_id)
        assert verify(full) is None and full.steps[-1].events == (GameAbandoned("idle"),)
        streamed = [b async for b in games.stream_events(game_id, None, 0)]
        assert streamed[-1].version == record.version  # the stream ends with the game
        assert (await games.store.load(open_game.game_id)).status == ACTIVE  # not full: kept

    asyncio.run(main())


def test_a_game_that_moves_is_watched_again_from_its_last_move() -> None:
    async def main() -> None:
        clock = FakeClock()
        games = GameService(MemoryStore(), clock=clock, idle_ttl_s=100)
        sweeper = Scheduler(games, clock=clock)
        game_id, tokens = await seated(games, seed=b"idle")
        clock.now += 60
        _, mine = await games.get_game(game_id, tokens[0])
        await games.submit_move(
            game_id, tokens[0], mine.legal_moves[0], expected_version=0, request_id="m"
        )
        clock.now += 40  # the first deadline: but the game moved since
        await sweeper.sweep()
        assert (await games.store.load(game_id)).status == ACTIVE
        clock.now += 59
        await sweeper.sweep()
        assert (await games.store.load(game_id)).status == ACTIVE
        clock.now += 1  # 100 s after the move
        await sweeper.sweep()
        assert (await games.store.load(game_id)).status == ABANDONED

    asyncio.run(main())


def test_a_move_racing_the_idle_end_exactly_one_wins() -> None:
    async def main() -> None:
        clock = FakeClock()
        games = GameService(MemoryStore(), clock=clock, idle_ttl_s=10)
        game_id, tokens = await seated(games, seed=b"idle")
        _, mine = await games.get_game(game_id, tokens[0])
        clock.now += 10
        moved = await games.submit_move(
            game_id,
            tokens[0],
            mine.legal_moves[0],
            expected_version=0,
            request_id=uuid.uuid4().hex,
        )
        assert moved.version == 1
        assert await games.end_if_idle(game_id) == int(clock.now * 1000) + 10_000
        assert (await games.store.load(game_id)).status == ACTIVE

    asyncio.run(main())
