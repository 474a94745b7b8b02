"""No public signal reveals a hidden card, in any game (Sixty-Six §16.9 says it; all obey it).

Whose turn it is (``to_act``), who may act (``may_act``) and the phase are shown to every viewer,
so they may depend only on what that viewer may see. The check: play a random game, then play
the very same moves on a second deal that differs from the first by two cards swapped between
places the viewer cannot see (the same seed, one pack overridden). While everything the viewer
is shown agrees in both games (its view but for those signals, and every event projected for it),
the signals, and the viewer's own legal moves, must agree too. Once the viewer could tell the
deals apart (it drew or saw a swapped card, or a seat's move is illegal in the other deal), the
pair is done: from there on the deals are no longer alike for that viewer.

The two cards are drawn among those the viewer is not shown when the deal begins (a swap of a
card it sees would agree on nothing and check nothing).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

import engine
from engine import get_rules
from engine.core.chance import Chance, ChanceLog
from engine.core.errors import EngineError
from engine.core.fields import cards_in
from engine.core.moves import Claim
from engine.core.rules import Rules
from engine.core.view import View

#: The fields of a view that every viewer is shown and that may reveal nothing (§16.9), and the
#: viewer's own legal moves, which may depend on its own cards only.
SIGNALS = ("phase", "to_act", "may_act", "legal_moves")

#: The variants that change who may act and when (Sixty-Six's exchange window, claim window and
#: the close's exchange offer).
VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("ninety-nine", {}),
    ("ninety-nine", {"edition": "revised"}),
    ("counterpoint", {}),
    ("sixty-six", {}),
    ("sixty-six", {"preset": "pagat"}),
    ("sixty-six", {"exchange_on_opponent_close": True}),
    # any_time exchanges with no claim between tricks: only an exchange lists the other seat
    ("sixty-six", {"claim_window": "after_own_trick_or_marriage"}),
    ("nominations", {}),
]


def test_every_game_is_checked() -> None:
    assert {game for game, _ in VARIANTS} == set(engine.game_names())


def shown(view: View) -> View:
    """What the viewer is shown besides the signals under test (blanked)."""
    return dataclasses.replace(view, phase="", to_act=(), may_act=(), legal_moves=())


def _moves(
    rules: Rules[Any], options: Mapping[str, object], seed: bytes, rng: random.Random
) -> list[tuple[int, Any]]:
    """A random game's moves: any seat with a legal move may make one (its optional moves
    too), except that a claim is drawn again nine times in ten: a claim ends a Sixty-Six deal,
    and deals played on are where a seat holds a card long enough for its signals to show."""
    state = rules.new_game(options, seed)
    moves: list[tuple[int, Any]] = []
    while not state.finished:
        for _ in range(10):
            seat = rng.choice(rules.movers(state))
            legal = rules.legal_moves(state, seat)
            move = legal[rng.randrange(len(legal))]
            if not isinstance(move, Claim) or rng.random() < 0.1:
                break
        state, _ = rules.apply(state, seat, move)
        moves.append((seat, move))
    return moves


class Played:
    """A played game: every position, and what each viewer was shown there (made lazily)."""

    def __init__(
        self,
        rules: Rules[Any],
        options: Mapping[str, object],
        seed: bytes,
        moves: Sequence[tuple[int, Any]],
    ) -> None:
        self.rules, self.options, self.seed, self.moves = rules, options, seed, moves
        log = ChanceLog()
        state = rules.start(options, Chance(seed, log=log))
        self.states = [state]
        self.events: list[list[Any]] = [[]]
        for seat, move in moves:
            state, events = rules.apply(state, seat, move)
            self.states.append(state)
            self.events.append(events)
        self._views: dict[tuple[int, int | None], View] = {}
        #: The packs the game was dealt, by label (``pack:N``, deal N)
        self.packs = {label: order for label, order in log.draws.items() if label[:5] == "pack:"}

    def view(self, at: int, viewer: int | None) -> View:
        key = (at, viewer)
        if key not in self._views:
            self._views[key] = self.rules.view(self.states[at], viewer)
        return self._views[key]

    def hidden_swaps(
        self, viewer: int | None, rng: random.Random, per_pack: int
    ) -> list[tuple[dict[str, list[int]], int]]:
        """Twin deals for ``viewer``: ``per_pack`` swaps of two cards of each pack that the
        viewer is not shown when that deal begins, each with the position the deal begins at."""
        starts: dict[int, int] = {}
        for at, state in enumerate(self.states):
            starts.setdefault(state.deal_no, at)
        twins = []
        for label, pack in sorted(self.packs.items()):
            start = starts[int(label.removeprefix("pack:"))]
            seen = cards_in(self.view(start, viewer))
            hidden = [k for k, card in enumerate(pack) if card not in seen]
            for _ in range(per_pack if len(hidden) > 1 else 0):
                i, j = rng.sample(hidden, 2)
                twin = list(pack)
                twin[i], twin[j] = twin[j], twin[i]
                twins.append(({label: twin}, start))
        return twins


def compare(
    game: Played,
    overrides: dict[str, list[int]],
    start: int,
    viewer: int | None,
) -> int:
    """Plays the game's moves on its twin dealt with ``overrides``; from position ``start`` on
    (the twin's deal), asserts that the signals agree for ``viewer`` while all else it is shown
    agrees. Returns the number of positions compared."""
    rules = game.rules
    twin = rules.new_game(game.options, game.seed, overrides)
    compared = 0
    for at in range(len(game.states)):
        if at:
            seat, move = game.moves[at - 1]
            try:
                twin, events = rules.apply(twin, seat, move)
            except EngineError:
                return compared  # the mover's hidden cards differ: the deals part here
            if at > start:
                seen = [rules.project(e, viewer) for e in game.events[at]]
                if seen != [rules.project(e, viewer) for e in events]:
                    return compared
        if at < start:
            continue  # the same deal in both games until the twin's own
        view_a, view_b = game.view(at, viewer), rules.view(twin, viewer)
        if shown(view_a) != shown(view_b):
            return compared
        for name in SIGNALS:
            assert getattr(view_a, name) == getattr(view_b, name), (
                f"{rules.name}: viewer {viewer} is shown the same game but a different {name} "
                f"({getattr(view_a, name)} against {getattr(view_b, name)}) at position {at}, "
                f"phase {view_a.phase}, deals differing by {overrides}"
            )
        compared += 1
    return compared


def check_game(
    rules: Rules[Any], options: Mapping[str, object], seed: bytes, swaps: int, viewers: Any = None
) -> int:
    rng = random.Random(seed)
    game = Played(rules, options, seed, _moves(rules, options, seed, rng))
    compared = 0
    for viewer in viewers or (None, *range(rules.seats)):
        for overrides, start in game.hidden_swaps(viewer, rng, swaps):
            compared += compare(game, overrides, start, viewer)
    return compared


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=str)
def test_public_signals_depend_only_on_what_the_viewer_may_see(
    game: str, options: Mapping[str, object]
) -> None:
    rules = get_rules(game)
    games = {"sixty-six": 16, "ninety-nine": 3}.get(game, 6)  # by how long a game is
    compared = sum(check_game(rules, options, f"signals-{n}".encode(), 4) for n in range(games))
    assert compared > 500, f"too few positions compared ({compared}): the check saw nothing"


def test_the_check_catches_a_signal_that_follows_a_hidden_card() -> None:
    """The check itself: a game whose ``may_act`` lists the seat that holds a given card (what
    Sixty-Six did with the trump nine before §16.9) fails it."""
    rules = get_rules("counterpoint")

    class Leaky(type(rules)):  # type: ignore[misc]
        def may_act(self, state: Any) -> tuple[int, ...]:
            holder = {seat for seat in range(self.seats) if state.hands[seat] >> 14 & 1}
            return tuple(sorted({*super().may_act(state), *holder}))  # 14: the Ace of clubs

    with pytest.raises(AssertionError, match="different may_act"):
        for n in range(10):
            check_game(Leaky(), {}, f"leaky-{n}".encode(), 10, viewers=(None,))
