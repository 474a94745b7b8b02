"""Random playouts: the engine's own way to play a game to the end with random legal moves.

Used by ``tricktable simulate`` and ``tricktable bench engine``, and by the property tests. The
move choice uses a ``random.Random`` passed in by the caller (a bot's choice, not chance: the
deals still come from the game's secret seed), so a playout is reproducible from its two seeds.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.events import DealScored, Event
from engine.core.rules import Outcome, Rules

#: What ``random.Random`` draws below n with (CPython's, with ``getrandbits``), if it has it.
_RANDBELOW = getattr(random.Random, "_randbelow_with_getrandbits", None)


@dataclass(frozen=True, slots=True)
class PlayoutResult:
    outcome: Outcome
    moves: int
    deals: int


def random_playout(
    rules: Rules[Any],
    options: Mapping[str, object] | None,
    seed: bytes,
    rng: random.Random,
    *,
    in_place: bool = True,
    max_moves: int = 1_000_000,
) -> PlayoutResult:
    """Play one game to the end, each move chosen uniformly among every legal (seat, move).

    When several seats may act (bid cards laid aside at once, a claim between tricks), every
    seat's moves are in the draw, so no seat is favoured for being listed first.
    The playout owns its state, so by default it applies moves in place (no copy per move);
    ``in_place=False`` goes through the pure ``apply`` instead, for comparison.
    """
    opts = rules.options(options)  # remembered for the same values, see Rules.options
    state = rules.new_game(opts, seed)
    moves = deals = 0
    # ``randrange(n)`` draws uniformly from range(n); ``random_move`` never asks for n = 0.
    # It is ``_randbelow(n)`` behind a check of its argument: the same numbers, called directly.
    randbelow = getattr(rng, "_randbelow", rng.randrange)
    # A plain ``random.Random`` draws below n by ``getrandbits`` with rejection: done inline
    # for the draw of one or two seats (almost every move), drawing the very same numbers (a
    # test holds the playout to ``random_move``, which calls ``_randbelow``); any other
    # generator is called.
    plain = getattr(type(rng), "_randbelow", None) is _RANDBELOW is not None
    getrandbits = rng.getrandbits if plain else None
    # The loop reads the rules' per-phase tables itself (what ``movers``, ``legal_moves`` and
    # ``apply_in_place`` look up): the same functions, without three calls per move around
    # them, which in a random playout cost as much as the rule they wrap. A move just taken
    # from the legal ones passes every check by construction (the property tests hold
    # ``legal_moves`` to the checks), so in place only its effect runs.
    movers = rules._movers
    listing = rules._legal
    by_type = rules._by_type
    while not state.finished:
        if moves >= max_moves:
            raise RuntimeError(f"{rules.name} did not end within {max_moves} moves")
        phase = state.phase
        acting = movers[phase](state)
        if not acting or len(acting) > 2:
            seat, move = random_move(rules, state, randbelow)
        else:  # random_move's draw for one seat or two (a claim between tricks), inline
            seat = acting[0]
            listed = listing[phase]
            legal = listed(state, seat)
            n = total = len(legal)
            if len(acting) == 2:
                other = listed(state, acting[1])
                total += len(other)
            if not total:
                raise RuntimeError(
                    f"{rules.name}: seats {acting} are to act but have no legal move"
                )
            if getrandbits is None:
                r = randbelow(total)
            else:
                k = total.bit_length()
                r = getrandbits(k)
                while r >= total:
                    r = getrandbits(k)
            if r < n:
                move = legal[r]
            else:
                seat = acting[1]
                move = other[r - n]
        if in_place:  # a move from legal_moves, so its checks are not run a second time
            events: list[Event] = []
            by_type[phase][type(move)].effect(state, seat, move, events)
        else:
            state, events = rules.apply(state, seat, move)
        moves += 1
        for event in events:  # counted inline: a call per move costs more than the loop
            if type(event) is DealScored:
                deals += 1
    outcome = rules.outcome(state)
    assert outcome is not None
    return PlayoutResult(outcome=outcome, moves=moves, deals=deals)


def random_move(rules: Rules[Any], state: Any, randbelow: Any) -> tuple[int, Any]:
    """A uniformly random legal (seat, move) of a running game.

    ``randbelow(n)`` draws uniformly from ``range(n)``, over every seat that may act (optional
    moves included). A running game where those seats have no legal move is a rules bug,
    reported as a ``RuntimeError``.
    """
    acting = rules.movers(state)  # optional moves too, private ones included: every legal move
    if len(acting) == 1:
        seat = acting[0]
        legal = rules.legal_moves(state, seat)
        if not legal:
            raise RuntimeError(f"{rules.name}: seat {seat} is to act but has no legal move")
        return seat, legal[randbelow(len(legal))]
    if len(acting) == 2:  # the common case of several (a claim between tricks): no list
        first, second = acting
        legal = rules.legal_moves(state, first)
        other = rules.legal_moves(state, second)
        n = len(legal)
        total = n + len(other)
        if not total:
            raise RuntimeError(f"{rules.name}: seats {acting} are to act but have no legal move")
        k = randbelow(total)
        return (first, legal[k]) if k < n else (second, other[k - n])
    choices = [(seat, rules.legal_moves(state, seat)) for seat in acting]
    total = sum(len(legal) for _, legal in choices)
    if not total:
        raise RuntimeError(f"{rules.name}: seats {acting} are to act but have no legal move")
    k = randbelow(total)
    for seat, legal in choices:
        if k < len(legal):
            return seat, legal[k]
        k -= len(legal)
    raise AssertionError("unreachable: k is below the number of choices")


def variants(rules: Rules[Any]) -> list[tuple[str, dict[str, object]]]:
    """The named variants worth measuring separately: one per edition or preset (an option
    named so, that sets other options' defaults), else just the defaults."""
    out: list[tuple[str, dict[str, object]]] = []
    for spec in rules.game_type().options:
        if spec.sets and spec.name in {"edition", "preset"}:
            out.extend((value, {spec.name: value}) for value in spec.choices)
    return out or [("default", {})]
