"""The expert as a server bot seat (``bot_seats`` with ``"expert"``): it plays whole games
against a person, deciding on its seat's view and the events its seat has seen (read from the
store, projected for the seat), off the event loop."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from engine import get_rules
from service.game_service import GameService
from service.scheduler import Scheduler
from service.store.base import ACTIVE, FINISHED
from service.store.memory import MemoryStore
from service.turns import BOT_KINDS, decision_s, wants_history
from tests.service.games import FakeClock, random_move_if_to_act


def test_the_expert_is_a_server_bot_that_is_shown_its_seats_history() -> None:
    assert "expert" in BOT_KINDS and wants_history("expert")
    assert not wants_history("heuristic") and not wants_history("random")


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("counterpoint", {"target_score": 30}),
        ("nominations", {"target_score": 80, "shuffle_between_deals": False}),
    ],
)
def test_a_person_plays_a_whole_game_against_an_expert_seat(
    game: str, options: dict[str, Any]
) -> None:
    async def main() -> None:
        clock = FakeClock()
        games = GameService(MemoryStore(), clock=clock, bot_delay_s=0.5)
        sweeper = Scheduler(games, clock=clock)
        seats = get_rules(game).seats
        bots = {n: ("expert" if n == 1 else "random") for n in range(1, seats)}
        record = await games.create_game(game, options, b"expert seat", bot_seats=bots)
        _, token, record = await games.join_game(record.game_id, 0, "me")
        rng = random.Random(game)
        expert_moves = 0
        for _ in range(3000):
            record, mine = await games.get_game(record.game_id, token)
            if record.status != ACTIVE:
                break
            if await random_move_if_to_act(games, record, token, mine, rng):
                continue
            before = record.version
            rules, state = await games.tables.state(record)
            expert_moves += 1 in rules.to_act(state)
            clock.now += 0.5
            await sweeper.sweep()
            assert (await games.store.load(record.game_id)).version == before + 1
        assert record.status == FINISHED
        assert expert_moves > 5

    asyncio.run(main())


def test_an_expert_seat_takes_its_whole_budget_over_a_forced_move_too() -> None:
    """The expert answers a forced move at once and searches the others for its budget: were
    its moves committed as soon as decided, when one came would tell the table it had a single
    legal move (one card of the suit led; its last card). Each of its moves takes the budget."""

    async def main() -> None:
        clock = FakeClock()
        games = GameService(MemoryStore(), clock=clock, bot_delay_s=0.5)
        sweeper = Scheduler(games, clock=clock)
        options = {"target_score": 30}
        record = await games.create_game("counterpoint", options, b"paced", bot_seats={1: "expert"})
        _, token, record = await games.join_game(record.game_id, 0, "me")
        rng = random.Random(7)
        budget = decision_s("expert")
        took: dict[bool, list[float]] = {True: [], False: []}  # by forced
        while True:
            record, mine = await games.get_game(record.game_id, token)
            rules, state = await games.tables.state(record)
            if record.status != ACTIVE or state.deal_no > 1:
                break
            if await random_move_if_to_act(games, record, token, mine, rng):
                continue
            forced = len(rules.legal_moves(state, 1)) == 1
            clock.now += 0.5
            started = time.monotonic()
            await sweeper.sweep()
            took[forced].append(time.monotonic() - started)
        assert budget == 0.2
        assert took[True] and took[False]  # the deal's last trick at least is forced
        assert min(took[True] + took[False]) >= budget * 0.99, took

    asyncio.run(main())
