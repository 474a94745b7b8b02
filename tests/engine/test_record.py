"""Game records: made from a played game, they re-play through the rules; any change to what
chance gave, a move, an event or the result is caught, and a record never needs the seed."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from engine import get_rules
from engine.core.chance import Chance, ChanceLog
from engine.core.events import GameAbandoned, GameOver, TimedOut
from engine.core.rules import Outcome
from engine.playout import random_move
from engine.record import RecordMismatch, Step, record_of, replay_logged, timed_out, verify

GAMES: list[tuple[str, dict[str, Any]]] = [
    ("ninety-nine", {}),
    ("ninety-nine", {"edition": "revised"}),
    ("counterpoint", {}),
    ("sixty-six", {}),
    ("sixty-six", {"preset": "pagat", "first_dealer": "random"}),
    ("nominations", {}),
    # gathered, cut packs: most deals are not shuffles, and the cuts are draws
    ("nominations", {"shuffle_between_deals": False, "first_dealer": "random"}),
]


def played(game: str, options: dict[str, Any], seed: bytes, rng_seed: int) -> list[tuple[int, Any]]:
    rules = get_rules(game)
    state = rules.new_game(options, seed)
    rng = random.Random(rng_seed)
    moves = []
    while not state.finished:
        seat, move = random_move(rules, state, rng.randrange)
        rules.apply_in_place(state, seat, move)
        moves.append((seat, move))
    return moves


@pytest.fixture(scope="module", params=GAMES, ids=lambda g: f"{g[0]}-{g[1]}")
def game(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any], list[tuple[int, Any]]]:
    name, options = request.param
    return name, options, played(name, options, b"record-seed", 7)


def test_a_played_game_verifies_and_reaches_its_result(game: Any) -> None:
    name, options, moves = game
    record = record_of(name, options, b"record-seed", moves)
    final = get_rules(name).replay(options, b"record-seed", moves)[0]
    assert verify(record) == get_rules(name).outcome(final) == record.outcome
    assert len(record.steps) == len(moves) + 1
    assert isinstance(record.steps[-1].events[-1], GameOver)


def test_the_record_holds_every_deal_and_every_draw(game: Any) -> None:
    name, options, moves = game
    record = record_of(name, options, b"record-seed", moves)
    numbers = [n for n, _ in record.deals]
    assert numbers == sorted(set(numbers)) and numbers[0] == 1
    assert len(set(record.deals[0][1])) == len(record.deals[0][1])  # a pack: no card twice
    assert all(sorted(p) == sorted(record.deals[0][1]) for _, p in record.deals)
    for label, outcome in record.chance.items():
        if label.startswith("pack:"):  # a shuffle is the pack as dealt
            assert (int(label[5:]), list(outcome)) in [(n, list(p)) for n, p in record.deals]


def test_a_record_replays_without_the_seed() -> None:
    """Two seeds, one record: the seed plays no part once chance is recorded."""
    moves = played("counterpoint", {}, b"one seed", 3)
    record = record_of("counterpoint", {}, b"one seed", moves)
    assert verify(record) is not None
    strict = Chance(b"another seed", record.chance, strict=True)
    state = get_rules("counterpoint").start({}, strict)
    for seat, move in moves:
        get_rules("counterpoint").apply_in_place(state, seat, move)
    assert get_rules("counterpoint").outcome(state) == record.outcome


def test_replay_logged_matches_record_of(game: Any) -> None:
    name, options, moves = game
    state, log = replay_logged(get_rules(name), options, b"record-seed", moves)
    record = record_of(name, options, b"record-seed", moves)
    assert log.draws == record.chance and log.deals == record.deals
    assert get_rules(name).outcome(state) == record.outcome


def _swap_first_two(outcome: list[int]) -> list[int]:
    return [outcome[1], outcome[0], *outcome[2:]]


def test_a_changed_pack_is_caught(game: Any) -> None:
    name, options, moves = game
    record = record_of(name, options, b"record-seed", moves)
    chance = {k: list(v) for k, v in record.chance.items()}
    label = next(k for k in chance if k.startswith("pack:"))
    chance[label] = _swap_first_two(chance[label])
    with pytest.raises(RecordMismatch):
        verify(dataclasses.replace(record, chance=chance))


def test_a_changed_dealt_pack_is_caught(game: Any) -> None:
    name, options, moves = game
    record = record_of(name, options, b"record-seed", moves)
    deals = [(n, list(p)) for n, p in record.deals]
    deals[-1] = (deals[-1][0], _swap_first_two(deals[-1][1]))
    with pytest.raises(RecordMismatch, match="packs"):
        verify(dataclasses.replace(record, deals=deals))


def test_a_missing_draw_is_an_error_not_a_fresh_draw(game: Any) -> None:
    name, options, moves = game
    record = record_of(name, options, b"record-seed", moves)
    last = list(record.chance)[-1]
    chance = {k: v for k, v in record.chance.items() if k != last}
    with pytest.raises(RecordMismatch, match=f"no recorded outcome for {last}"):
        verify(dataclasses.replace(record, chance=chance))


def test_an_extra_draw_is_caught() -> None:
    moves = played("counterpoint", {}, b"s", 1)
    record = record_of("counterpoint", {}, b"s", moves)
    chance = {**record.chance, "pack:999": list(range(3))}
    with pytest.raises(RecordMismatch, match="never drew: pack:999"):
        verify(dataclasses.replace(record, chance=chance))


def test_a_changed_move_event_or_result_is_caught(game: Any) -> None:
    name, options, moves = game
    record = record_of(name, options, b"record-seed", moves)
    steps = list(record.steps)
    # a move by another seat
    first = steps[1]
    assert first.seat is not None
    wrong_seat = dataclasses.replace(first, seat=(first.seat + 1) % get_rules(name).seats)
    with pytest.raises(RecordMismatch, match="version 1"):
        verify(dataclasses.replace(record, steps=[steps[0], wrong_seat, *steps[2:]]))
    # an event dropped
    last = steps[-1]
    fewer = dataclasses.replace(last, events=last.events[:-1])
    with pytest.raises(RecordMismatch, match=f"version {last.version}"):
        verify(dataclasses.replace(record, steps=[*steps[:-1], fewer]))
    # a step dropped: the game has not ended
    with pytest.raises(RecordMismatch):
        verify(dataclasses.replace(record, steps=steps[:-1]))
    # another result
    assert record.outcome is not None
    other = Outcome(tuple(t + 1 for t in record.outcome.totals), record.outcome.winners)
    with pytest.raises(RecordMismatch, match="the rules reach"):
        verify(dataclasses.replace(record, outcome=other))


def test_a_resignation_ends_the_record() -> None:
    moves = played("ninety-nine", {}, b"s", 2)[:10]
    record = record_of("ninety-nine", {}, b"s", moves)
    resign = Step(len(moves) + 1, 1, None, (), resigned_seat=1)
    abandoned = dataclasses.replace(
        record, steps=[*record.steps, resign], outcome=None, resigned_seat=1
    )
    assert verify(abandoned) is None
    with pytest.raises(RecordMismatch, match="had not ended"):
        verify(dataclasses.replace(record, outcome=None))
    with pytest.raises(RecordMismatch, match="resigned"):
        verify(dataclasses.replace(abandoned, resigned_seat=None))
    after = Step(len(moves) + 2, 0, moves[0][1], ())
    with pytest.raises(RecordMismatch, match="follows a resignation"):
        verify(dataclasses.replace(abandoned, steps=[*abandoned.steps, after]))


def test_the_clock_and_an_idle_end_are_told_in_the_record() -> None:
    moves = played("counterpoint", {}, b"s", 6)[:10]
    record = record_of("counterpoint", {}, b"s", moves)
    seat = record.steps[3].seat
    assert seat is not None
    by_clock = dataclasses.replace(
        record.steps[3], events=(TimedOut(seat, auto_move=True), *record.steps[3].events)
    )
    steps = [*record.steps[:3], by_clock, *record.steps[4:]]
    idle = Step(len(moves) + 1, None, None, (GameAbandoned("idle"),))
    told = dataclasses.replace(record, steps=[*steps, idle], outcome=None)
    assert verify(told) is None and timed_out(by_clock) == TimedOut(seat, auto_move=True)
    wrong = dataclasses.replace(
        by_clock, events=(TimedOut(1 - seat, auto_move=True), *record.steps[3].events)
    )
    with pytest.raises(RecordMismatch, match="another seat"):
        verify(dataclasses.replace(told, steps=[*steps[:3], wrong, *steps[4:], idle]))
    after = Step(len(moves) + 2, 0, moves[0][1], ())
    with pytest.raises(RecordMismatch, match="follows the game's abandonment"):
        verify(dataclasses.replace(told, steps=[*steps, idle, after]))
    forfeit = Step(len(moves) + 1, seat, None, (TimedOut(seat, auto_move=False),), seat)
    lost = dataclasses.replace(record, steps=[*steps, forfeit], outcome=None, resigned_seat=seat)
    assert verify(lost) is None


def test_a_record_must_start_with_the_opening() -> None:
    moves = played("counterpoint", {}, b"s", 4)
    record = record_of("counterpoint", {}, b"s", moves)
    with pytest.raises(RecordMismatch, match="opening"):
        verify(dataclasses.replace(record, steps=record.steps[1:]))
    with pytest.raises(RecordMismatch, match="unknown game"):
        verify(dataclasses.replace(record, game_type="bridge"))


def test_logging_chance_does_not_change_the_game() -> None:
    """A log attached to chance records; it never alters a draw."""
    plain = Chance(b"x")
    logged = Chance(b"x", log=ChanceLog())
    assert plain.shuffled("pack:1", list(range(24))) == logged.shuffled("pack:1", list(range(24)))
    assert plain.randint("cut:1", 1, 51) == logged.randint("cut:1", 1, 51)
    assert logged.log is not None and set(logged.log.draws) == {"pack:1", "cut:1"}
    assert plain.to_data() == logged.to_data()  # the log is not part of the game's data


def test_strict_chance_refuses_an_unrecorded_draw() -> None:
    with pytest.raises(ValueError, match="no recorded outcome for pack:2"):
        Chance(b"x", {"pack:1": [0, 1]}, strict=True).shuffled("pack:2", [0, 1])
    with pytest.raises(ValueError, match="one number"):
        Chance(b"x", {"cut:1": [1, 2]}).randint("cut:1", 1, 51)
