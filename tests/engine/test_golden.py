"""Golden playthroughs: every recorded game re-plays to the same events, views and snapshots.

The files under ``golden/`` were recorded by ``tests/engine/golden_games.py`` (which also says
how to re-record them after a deliberate change). Each step is compared whole: the events, the
seats to act, each seat's view and the spectator's (legal moves included), and a digest of the
snapshot, so a refactoring that changes anything observable fails here at the first step that
differs.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.engine.golden_games import GAMES, path_of, read, replay


def _first_difference(want: Any, got: Any, where: str = "") -> str:
    if type(want) is not type(got):
        return f"{where}: recorded {want!r}, now {got!r}"
    if isinstance(want, dict):
        for key in sorted(set(want) | set(got), key=str):
            if want.get(key) != got.get(key):
                return _first_difference(want.get(key), got.get(key), f"{where}.{key}")
    if isinstance(want, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{where}[{i}]")
    return f"{where}: recorded {want!r}, now {got!r}"


@pytest.mark.parametrize(("name", "game", "options", "seed", "bot_seed"), GAMES)
def test_a_recorded_game_replays_to_the_same_events_views_and_snapshots(
    name: str, game: str, options: dict[str, object], seed: bytes, bot_seed: int
) -> None:
    recorded = read(path_of(name))
    assert (recorded["game"], recorded["options"], recorded["seed"], recorded["bot_seed"]) == (
        game,
        options,
        seed.hex(),
        bot_seed,
    ), f"{name}: the file was recorded with other settings than GAMES lists; re-record it"
    replayed = replay(recorded)
    assert len(replayed) == len(recorded["steps"])
    for i, (want, got) in enumerate(zip(recorded["steps"], replayed, strict=True)):
        assert got == want, f"{name} step {i}: " + _first_difference(want, got)
    assert replayed[-1]["views"]["spectator"]["finished"] is True


def test_every_game_has_a_golden_playthrough() -> None:
    import engine

    assert {game for _, game, *_ in GAMES} == set(engine.game_names())


def test_a_changed_event_or_view_is_reported_at_its_step() -> None:
    name = GAMES[0][0]
    recorded = read(path_of(name))
    recorded["steps"][3]["views"]["spectator"]["to_act"] = [9]
    replayed = replay(recorded)
    assert replayed[3] != recorded["steps"][3]
    message = _first_difference(recorded["steps"][3], replayed[3])
    assert message.startswith(".views.spectator.to_act"), message
