"""No public signal the service sends reveals a hidden card (Sixty-Six §16.9; issue: the trump
nine's holder was told to everyone by ``may_act`` and by the close's exchange step).

The leak tests check cards; this one checks the signals every viewer is sent: the phase, whose
turn it is, who may act, the clocks. Two games are dealt through the service whose deals differ
by two cards swapped between places a viewer cannot see (the store deals the second from the
engine's chance overrides, as the specs' fixed-pack vectors are dealt), and the same moves are
played on both. While everything else that viewer is sent agrees, the signals must agree too.
The swaps are chosen with the engine's own check (``tests/engine/test_public_signals.py``): those
whose deals stay alike longest for the viewer, and any the engine would give away.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import Any

import pytest

from engine import get_rules
from engine.core.errors import EngineError
from engine.core.events import event_to_data
from engine.core.options import OptionValue
from engine.core.view import View
from service.clocks import TimeControl
from service.errors import TricktableError
from service.game_service import GameService
from service.store.base import EventBatch, GameRecord
from service.store.memory import MemoryStore
from tests.engine.test_public_signals import SIGNALS, Played, _moves, compare, shown
from tests.service.games import FakeClock, seated

VARIANTS: list[tuple[str, dict[str, OptionValue]]] = [
    ("sixty-six", {"preset": "pagat"}),
    ("sixty-six", {"claim_window": "after_own_trick_or_marriage"}),
    ("ninety-nine", {"game_length_deals": 2}),
    ("counterpoint", {}),
    ("nominations", {"target_score": 20}),
]
TIME_CONTROL = TimeControl(move_ms=60_000, bank_ms=120_000)


class DealingStore(MemoryStore):
    """A memory store that deals the next game created from the packs it is given (the engine's
    chance overrides, kept in the game's snapshot like its seed), so that a test can seat two
    games dealt alike but for the cards it chose."""

    def __init__(self) -> None:
        super().__init__()
        self.next_packs: dict[str, list[int]] | None = None

    async def create(self, game: GameRecord, opening: EventBatch) -> None:
        if self.next_packs is not None:
            rules = get_rules(game.game_type)
            state = rules.new_game(dict(game.options), game.seed, self.next_packs)
            game = dataclasses.replace(game, snapshot=rules.snapshot(state))
            events = tuple(event_to_data(e) for e in rules.opening_events(state))
            opening = dataclasses.replace(opening, events=events)
            self.next_packs = None
        await super().create(game, opening)


def _twins(
    game: Played, viewer: int | None, rng: random.Random, count: int
) -> list[dict[str, list[int]]]:
    """Twin deals to try on the service: the ``count`` swaps of hidden cards whose deals stay
    alike longest for ``viewer``, and every swap whose signals the engine itself would let the
    viewer tell apart (none, while the engine check passes): the service must not hide an
    engine leak, nor add one of its own."""
    longest: list[tuple[int, dict[str, list[int]]]] = []
    leaking: list[dict[str, list[int]]] = []
    for overrides, start in game.hidden_swaps(viewer, rng, 12):
        try:
            longest.append((compare(game, overrides, start, viewer), overrides))
        except AssertionError:
            leaking.append(overrides)
    longest.sort(key=lambda t: -t[0])
    return [overrides for _, overrides in longest[:count]] + leaking


def _signals(view: View, clocks: Any) -> tuple[Any, ...]:
    return (*(getattr(view, name) for name in SIGNALS), clocks)


async def _check(game_type: str, options: dict[str, OptionValue], seed: bytes) -> int:
    rules = get_rules(game_type)
    rng = random.Random(seed)
    moves = _moves(rules, options, seed, rng)
    played = Played(rules, options, seed, moves)
    store = DealingStore()
    clock = FakeClock()
    creator = GameService(store, clock=clock)
    # Played on another replica of the same store: nothing the creator keeps can mask the deal.
    games = GameService(store, clock=clock)
    compared = 0
    for viewer in (None, *range(rules.seats)):
        twins = _twins(played, viewer, rng, 4)
        tables = [await seated(creator, game_type, options, seed, TIME_CONTROL)]
        for overrides in twins:
            store.next_packs = overrides
            tables.append(await seated(creator, game_type, options, seed, TIME_CONTROL))
        (original, tokens), others = tables[0], tables[1:]
        alike = [True] * len(others)
        for at in range(len(moves) + 1):
            if at:
                seat, move = moves[at - 1]
                for n, (game_id, their) in enumerate(tables):
                    if n and not alike[n - 1]:
                        continue
                    record, _ = await games.get_game(game_id, None)
                    try:
                        await games.submit_move(
                            game_id,
                            their[seat],
                            move,
                            expected_version=record.version,
                            request_id=f"m{at}",
                        )
                    except (TricktableError, EngineError):
                        assert n, "the game's own move was refused"
                        alike[n - 1] = False  # the mover's hidden cards differ: deals part
            me = None if viewer is None else tokens[viewer]
            record, view = await games.get_game(original, me)
            mine = _signals(view, games.clocks(record))
            for n, (game_id, their) in enumerate(others):
                if not alike[n]:
                    continue
                token = None if viewer is None else their[viewer]
                twin_record, twin_view = await games.get_game(game_id, token)
                if shown(twin_view) != shown(view):
                    alike[n] = False
                    continue
                theirs = _signals(twin_view, games.clocks(twin_record))
                assert theirs == mine, (
                    f"{game_type} {options}: viewer {viewer} is sent the same game but other "
                    f"signals at move {at} (phase {view.phase}): {mine} against {theirs}"
                )
                compared += 1
    return compared


@pytest.mark.parametrize(("game_type", "options"), VARIANTS, ids=str)
def test_the_service_sends_no_signal_that_follows_a_hidden_card(
    game_type: str, options: dict[str, OptionValue]
) -> None:
    games = 5 if game_type == "sixty-six" else 2  # short games: more of them
    compared = sum(
        asyncio.run(_check(game_type, options, f"service-signals-{n}".encode()))
        for n in range(games)
    )
    assert compared > 100, f"too few positions compared ({compared})"
