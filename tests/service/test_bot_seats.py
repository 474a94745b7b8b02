"""Server bot seats at the service level, with an injected clock (no sleeping): taken at
creation, no token, a move only after the delay and exactly once per turn, the game played to
its end against one person; bad bot seats are refused."""

from __future__ import annotations

import asyncio
import random

import pytest

from engine import get_rules
from engine.record import timed_out, verify
from service.errors import InvalidRequest, SeatUnavailable
from service.game_service import GameService
from service.scheduler import Scheduler
from service.store.base import ACTIVE, FINISHED
from service.store.memory import MemoryStore
from tests.service.games import FakeClock, random_move_if_to_act


def test_bots_fill_their_seats_at_once_and_hold_no_token() -> None:
    async def main() -> None:
        games = GameService(MemoryStore())
        record = await games.create_game(
            "nominations", {}, b"b", bot_seats={1: "random", 3: "heuristic"}
        )
        assert [s.bot if s else None for s in record.seats] == [None, "random", None, "heuristic"]
        assert all(s.token_hash == "" for s in record.seats if s is not None)
        with pytest.raises(SeatUnavailable):
            await games.join_game(record.game_id, 1, "intruder")
        seats = {(await games.join_game(record.game_id, None, "p"))[0] for _ in range(2)}
        assert seats == {0, 2}
        with pytest.raises(InvalidRequest):
            await games.create_game("counterpoint", {}, None, bot_seats={2: "random"})
        with pytest.raises(InvalidRequest):
            await games.create_game("counterpoint", {}, None, bot_seats={1: "genius"})

    asyncio.run(main())


@pytest.mark.parametrize("game", ["counterpoint", "sixty-six", "ninety-nine", "nominations"])
def test_one_person_plays_a_whole_game_against_server_bots(game: str) -> None:
    async def main() -> None:
        clock = FakeClock()
        games = GameService(MemoryStore(), clock=clock, bot_delay_s=0.5)
        sweeper = Scheduler(games, clock=clock)
        seats = get_rules(game).seats
        bots = {n: ("heuristic" if n % 2 else "random") for n in range(1, seats)}
        options = {"target_score": 40} if game in ("counterpoint", "nominations") else {}
        if game == "ninety-nine":
            options = {"game_length_deals": 2}
        if game == "sixty-six":
            options = {"target_game_points": 3}
        record = await games.create_game(game, options, b"alone", bot_seats=bots)
        _, token, record = await games.join_game(record.game_id, 0, "me")
        rng = random.Random(game)
        for _ in range(5000):
            record, mine = await games.get_game(record.game_id, token)
            if record.status != ACTIVE:
                break
            if await random_move_if_to_act(games, record, token, mine, rng):
                continue
            # A bot must act: nothing before the delay, then exactly one move.
            before = record.version
            clock.now += 0.499
            await sweeper.sweep()
            assert (await games.store.load(record.game_id)).version == before
            clock.now += 0.001
            await sweeper.sweep()
            assert (await games.store.load(record.game_id)).version == before + 1
        assert record.status == FINISHED
        _, full = await games.game_record(record.game_id)
        assert verify(full) == full.outcome and full.outcome is not None
        assert not any(timed_out(s) for s in full.steps)
        assert {s.seat for s in full.steps[1:]} <= set(range(seats))

    asyncio.run(main())
