"""Helpers for the tests that drive GameService directly, with no server or socket between: a
clock that stands still until the test moves it, a game with every seat joined, and a person's
random move."""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping
from typing import Any

from engine.core.options import OptionValue
from service.clocks import TimeControl
from service.game_service import GameService

#: When a FakeClock starts (seconds since the epoch).
T0 = 1_700_000_000.0


class FakeClock:
    """The service's clock, moved by hand: ``clock.now += 1.5``."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


async def seated(
    games: GameService,
    game_type: str = "counterpoint",
    options: Mapping[str, OptionValue] | None = None,
    seed: bytes = b"seated",
    time_control: TimeControl | None = None,
) -> tuple[str, list[str]]:
    """A new game with every seat joined by players p0, p1, ...: its id and the seats' tokens."""
    record = await games.create_game(game_type, options or {}, seed, time_control=time_control)
    tokens = []
    for seat in range(record.seat_count):
        _, token, _ = await games.join_game(record.game_id, seat, f"p{seat}")
        tokens.append(token)
    return record.game_id, tokens


async def random_move_if_to_act(
    games: GameService, record: Any, token: str, view: Any, rng: random.Random
) -> bool:
    """The seat's random legal move when it must act (``view`` is its view of ``record``):
    whether it moved."""
    if view.viewer not in view.to_act:
        return False
    await games.submit_move(
        record.game_id,
        token,
        view.legal_moves[rng.randrange(len(view.legal_moves))],
        expected_version=record.version,
        request_id=uuid.uuid4().hex,
    )
    return True
