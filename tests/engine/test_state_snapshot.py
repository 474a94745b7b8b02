"""Snapshots: the event fields' JSON is remembered per event object and spliced in, never
changing the bytes."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import game_names, get_rules
from engine.core import state as state_module
from engine.core.events import event_to_data
from engine.core.options import options_to_data


def _plain_snapshot(state: Any) -> bytes:
    """The snapshot as one json.dumps of the whole payload writes it."""
    fields = {
        k: event_to_data(v) if k in state._event_fields and v is not None else v
        for k, v in state.fields_data().items()
    }
    payload = {
        "game": state.game,
        "schema": state.schema,
        "options": options_to_data(state.options),
        "chance": state.chance.to_data(),
        "state": fields,
    }
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


@pytest.mark.parametrize("game", game_names())
def test_snapshots_with_remembered_event_json_equal_plain_ones_and_restore(game: str) -> None:
    rules = get_rules(game)
    rng = random.Random(8)
    state = rules.new_game({}, f"snap:{game}".encode())
    for _ in range(300):
        if state.finished:
            break
        remembered = rules.snapshot(state)
        state_module._EVENT_JSON.clear()
        assert rules.snapshot(state) == remembered == _plain_snapshot(state)
        assert rules.restore(remembered) == state
        seat = rules.to_act(state)[0]
        legal = rules.legal_moves(state, seat)
        state, _ = rules.apply(state, seat, legal[rng.randrange(len(legal))])


def test_a_state_may_only_list_its_own_fields_as_copied() -> None:
    with pytest.raises(TypeError, match="stock"):

        class _Broken(state_module.GameState):  # pyright: ignore[reportUnusedClass]
            copied = ("stock",)
            scores: list[int]


def test_a_clone_copies_the_listed_lists_and_shares_the_rest() -> None:
    rules = get_rules("sixty-six")
    state = rules.new_game({}, b"clone")
    copy = state.clone()
    for name in type(state).copied:
        assert getattr(copy, name) == getattr(state, name)
        assert getattr(copy, name) is not getattr(state, name)
    assert copy.stock is state.stock  # replaced on change, never changed in place
