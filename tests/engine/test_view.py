"""Seat and trick views: who played what; the parts shared between views change no view."""

from __future__ import annotations

import dataclasses
import random
import sys
from collections.abc import Callable
from typing import Any

import pytest

from engine import get_rules
from engine.core.errors import InvalidMove, Reason
from engine.core.rules import game_names
from engine.core.view import SeatView, TrickRows, TrickView, seat_view, trick_view
from tests.engine.helpers import random_steps


def test_a_trick_view_names_each_card_s_seat_and_the_same_trick_is_one_object() -> None:
    view = trick_view(2, [10, 20, 30], 0, 3)
    assert view == TrickView(leader=2, seats=(2, 0, 1), cards=(10, 20, 30), winner=0)
    assert trick_view(2, [10, 20, 30], 0, 3) is view
    assert trick_view(2, [10, 20], None, 3) == TrickView(2, (2, 0), (10, 20), None)
    assert trick_view(2, [10, 20, 30], None, 3) is not view  # not yet won: another view
    assert trick_view(2, [10, 20, 30], 0, 4).seats == (2, 3, 0)


def test_a_seat_view_without_cards_is_shared_and_one_with_cards_is_built() -> None:
    hidden = seat_view(seat=1, hand_size=9, aside_count=3, tricks_won=2, score=40)
    assert hidden == SeatView(seat=1, hand_size=9, hand=None, aside_count=3, tricks_won=2, score=40)
    assert seat_view(seat=1, hand_size=9, aside_count=3, tricks_won=2, score=40) is hidden
    assert seat_view(seat=1, hand_size=9, aside_count=3, tricks_won=2, score=41) == SeatView(
        seat=1, hand_size=9, hand=None, aside_count=3, tricks_won=2, score=41
    )
    for bid, points in ((None, 7), (10, None)):  # every field is part of the key
        assert seat_view(
            seat=1, hand_size=9, aside_count=3, bid=bid, tricks_won=2, points_taken=points
        ) == SeatView(
            seat=1,
            hand_size=9,
            hand=None,
            aside_count=3,
            bid=bid,
            tricks_won=2,
            points_taken=points,
        )
    shown = seat_view(seat=0, hand_size=2, hand=(10, 20), aside_count=1, aside=(30,), bid=5)
    assert shown == SeatView(seat=0, hand_size=2, hand=(10, 20), aside_count=1, aside=(30,), bid=5)
    assert seat_view(seat=0, hand_size=0, hand=(), score=3) == SeatView(0, 0, (), score=3)


def test_trick_rows_give_the_trick_views_of_history_rows_and_start_over_when_full() -> None:
    rows = TrickRows(3, limit=2)
    history = [[2, 0, 10, 20, 30], [0, 1, 11, 21, 31], [1, 1, 12, 22, 32]]
    expected = tuple(trick_view(h[0], h[2:], h[1], 3) for h in history)
    assert rows.shown(history) == expected
    assert all(a is b for a, b in zip(rows.shown(history), expected, strict=True))
    assert len(rows) <= 2
    assert rows.shown([]) == ()


class _Built:
    """The completed tricks' views as built without ``TrickRows``: one ``trick_view`` each."""

    def __init__(self, seats: int) -> None:
        self.seats = seats

    def shown(self, history: list[list[int]]) -> tuple[TrickView, ...]:
        return tuple(trick_view(h[0], h[2:], h[1], self.seats) for h in history)


def _seat_built(**fields: Any) -> SeatView:
    return SeatView(**{"hand": None, **fields})


@pytest.mark.parametrize("game", game_names())
def test_views_equal_views_computed_without_the_caches(
    game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every viewer's view of random games (caches warm) equals the view computed with each
    cache taken out: seat views built by ``SeatView``, completed tricks one ``trick_view``
    each, Counterpoint's bid cards read anew."""
    rules = get_rules(game)
    module = sys.modules[type(rules).__module__]
    rng = random.Random(game)
    states = [step.after for n in range(3) for step in random_steps(rules, None, b"%d" % n, rng)]
    viewers = (*range(rules.seats), None)
    cached = [[rules.view(s, v) for v in viewers] for s in states]
    monkeypatch.setattr(module, "seat_view", _seat_built)
    if hasattr(module, "_COMPLETED"):
        monkeypatch.setattr(module, "_COMPLETED", _Built(rules.seats))
    if hasattr(module, "laid_aside"):
        monkeypatch.setattr(module, "laid_aside", module.laid_aside.__wrapped__)
    for state, views in zip(states, cached, strict=True):
        for viewer, view in zip(viewers, views, strict=True):
            built = rules.view(state, viewer)
            assert (view.seats, view.tricks) == (built.seats, built.tricks)
            assert view == dataclasses.replace(built, legal_moves=view.legal_moves)


@pytest.mark.parametrize("game", game_names())
def test_every_call_naming_a_seat_refuses_one_the_game_does_not_have(game: str) -> None:
    """A seat out of range, a bool or a string names no seat: refused with UNKNOWN_SEAT,
    never answered for another seat (a negative index would read the last seat's cards)."""
    rules = get_rules(game)
    state = rules.new_game(rules.options({}), b"\x05" * 32)
    before = rules.snapshot(state)
    any_move = rules.legal_moves(state, rules.to_act(state)[0])[0]
    calls: dict[str, Callable[[Any], object]] = {
        "legal_moves": lambda seat: rules.legal_moves(state, seat),
        "view": lambda seat: rules.view(state, seat),
        "information_set": lambda seat: rules.information_set(state, seat),
        "apply": lambda seat: rules.apply(state, seat, any_move),
    }
    for name, call in calls.items():
        for seat in (-1, rules.seats, True, "0", 1.0, 2**70):
            with pytest.raises(InvalidMove) as refused:
                call(seat)
            assert refused.value.reason == Reason.UNKNOWN_SEAT, (name, seat)
    assert rules.snapshot(state) == before
    assert rules.view(state, None).viewer is None  # a spectator names no seat
    for seat in range(rules.seats):
        assert rules.view(state, seat).viewer == seat
        assert rules.information_set(state, seat).seat == seat
