"""Small helpers shared by the engine tests."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import cards as C
from engine.core.events import Event
from engine.core.moves import Move
from engine.core.rules import Rules


def cards(text: str) -> list[int]:
    """``"A♣ 6♠ Jk"`` → card ids, in the order written."""
    return C.parse_many(text)


def hand(text: str) -> int:
    return C.mask_of(cards(text))


@dataclass
class Step:
    """One accepted move of a playout: the state before it, who moved, what, and the events."""

    before: Any
    seat: int
    move: Move
    after: Any
    events: list[Event]


def random_steps(
    rules: Rules[Any],
    options: Mapping[str, object] | None,
    seed: bytes,
    rng: random.Random,
    *,
    max_moves: int = 100_000,
) -> Iterator[Step]:
    """A random legal playout to the end, through the pure ``apply``; any seat with a legal
    move (``movers``: optional moves too, private ones included) may move."""
    state = rules.new_game(options, seed)
    for _ in range(max_moves):
        if state.finished:
            return
        acting = rules.movers(state)
        assert acting, "a running game must have a seat to act"
        seat = rng.choice(acting)
        legal = rules.legal_moves(state, seat)
        assert len(legal) > 0, f"seat {seat} is to act but has no legal move"
        move = legal[rng.randrange(len(legal))]
        after, events = rules.apply(state, seat, move)
        yield Step(state, seat, move, after, events)
        state = after
    raise AssertionError(f"{rules.name} did not end within {max_moves} moves")


def drive(
    rules: Rules[Any], state: Any, script: Sequence[tuple[int, Move]]
) -> tuple[Any, list[Event]]:
    """Apply scripted moves, collecting every event."""
    events: list[Event] = []
    for seat, move in script:
        state, step = rules.apply(state, seat, move)
        events.extend(step)
    return state, events


def of_type(events: list[Event], kind: type) -> list[Any]:
    return [e for e in events if type(e) is kind]
