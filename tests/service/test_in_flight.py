"""``service.deadlines.in_flight``: whether a TIMING index entry may stand for a step not written
yet (kept and looked at again) rather than a stale one (dropped), branch by branch."""

from __future__ import annotations

import pytest

from service.deadlines import IN_FLIGHT_MS, in_flight
from service.store.base import Due, GameRecord, Timing

NOW = 1_800_000_000_000
SOON = NOW + 500  # an entry's deadline, recent enough for a commit to be in flight


def game(version: int, deadline_ms: int | None = None) -> GameRecord:
    timing = Timing({"seats": []}, deadline_ms) if deadline_ms is not None else None
    return GameRecord(
        game_id="g",
        game_type="counterpoint",
        options={},
        seed=b"s",
        seat_count=2,
        created_at_ms=NOW,
        version=version,
        timing=timing,
    )


def entry(version: int | None, deadline_ms: int = SOON) -> Due:
    return Due("g", deadline_ms, key="g|x", version=version)


def test_an_entry_without_a_version_is_never_in_flight() -> None:
    # (the memory store's index is the games' own deadlines: nothing is indexed ahead)
    assert not in_flight(entry(None), None, NOW)
    assert not in_flight(entry(None), game(0), NOW)


def test_an_entry_for_a_game_not_created_yet_is_in_flight_at_version_zero_only() -> None:
    assert in_flight(entry(0), None, NOW)
    assert not in_flight(entry(3), None, NOW)  # a later version of a game that is gone


def test_an_entry_for_a_later_version_than_the_games_is_in_flight() -> None:
    assert in_flight(entry(5), game(4, SOON - 100), NOW)
    assert not in_flight(entry(4), game(4, SOON), NOW)  # the game's own
    assert not in_flight(entry(3), game(4, SOON), NOW)  # an older version's: stale


@pytest.mark.parametrize(
    ("own", "expected"),
    [
        (None, True),  # the table filling: its timing not written yet
        (SOON + 1, True),  # another take's first deadline written: this one may still be
        (SOON, False),  # the game's own first deadline
    ],
)
def test_a_version_zero_entry_is_in_flight_until_it_is_the_games_own(
    own: int | None, expected: bool
) -> None:
    assert in_flight(entry(0), game(0, own), NOW) is expected


def test_an_entry_older_than_the_in_flight_window_is_never_in_flight() -> None:
    old = NOW - IN_FLIGHT_MS  # a commit built that long ago has landed or failed
    assert not in_flight(entry(0, old), None, NOW)
    assert not in_flight(entry(5, old), game(4), NOW)
    assert not in_flight(entry(0, old), game(0), NOW)
    # One millisecond younger, the same entries may still be in flight.
    assert in_flight(entry(0, old + 1), None, NOW)
    assert in_flight(entry(5, old + 1), game(4), NOW)
    assert in_flight(entry(0, old + 1), game(0), NOW)
