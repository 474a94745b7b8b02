"""Clock arithmetic with an injected time (no sleeping): move time then bank, the increment,
simultaneous lay-aside, optional moves running no clock, the timeout policies and
forfeit_after, and the documented ranges."""

from __future__ import annotations

import pytest

from engine import get_rules
from service import clocks as C
from service.clocks import AUTO_MOVE, FORFEIT, BadTimeControl, Clocks, TimeControl

T0 = 1_700_000_000_000


def test_a_turn_gives_the_move_time_then_the_bank() -> None:
    tc = TimeControl(move_ms=1000, bank_ms=5000)
    clocks = C.start(tc, 2, [0], T0)
    assert C.next_timeout(tc, clocks) == (T0 + 6000, 0)
    seen = C.views(tc, clocks, T0 + 400)
    assert (seen[0].move_ms_left, seen[0].bank_ms_left, seen[0].running) == (600, 5000, True)
    assert seen[0].deadline_ms == T0 + 6000
    assert (seen[1].running, seen[1].deadline_ms, seen[1].move_ms_left) == (False, 0, 1000)
    seen = C.views(tc, clocks, T0 + 2500)  # 1.5 s into the bank
    assert (seen[0].move_ms_left, seen[0].bank_ms_left) == (0, 3500)


def test_a_move_within_the_move_time_keeps_the_bank_and_one_past_it_pays_from_it() -> None:
    tc = TimeControl(move_ms=1000, bank_ms=5000)
    clocks = C.after_move(tc, C.start(tc, 2, [0], T0), 0, [1], T0 + 900)
    assert clocks.seats[0] == C.SeatTime(5000, None) and clocks.seats[1].started_ms == T0 + 900
    clocks = C.after_move(tc, clocks, 1, [0], T0 + 900 + 3000)  # 2 s past the move time
    assert clocks.seats[1].bank_ms == 3000
    assert C.next_timeout(tc, clocks) == (T0 + 3900 + 6000, 0)


def test_the_increment_is_added_after_each_move_made_on_the_clock() -> None:
    tc = TimeControl(move_ms=0, bank_ms=2000, increment_ms=500)
    clocks = C.after_move(tc, C.start(tc, 2, [0], T0), 0, [1], T0 + 300)
    assert clocks.seats[0].bank_ms == 2000 - 300 + 500
    # The same seat to act again (a marriage, then the lead): its clock restarts at once.
    clocks = C.after_move(tc, clocks, 1, [1], T0 + 400)
    assert clocks.seats[1] == C.SeatTime(2000 - 100 + 500, T0 + 400)


def test_simultaneous_lay_aside_runs_every_seat_that_has_not_laid_aside() -> None:
    rules = get_rules("ninety-nine")
    state = rules.new_game({}, b"clocks")
    assert rules.to_act(state) == (0, 1, 2)
    tc = TimeControl(move_ms=1000, bank_ms=1000)
    clocks = C.start(tc, 3, rules.to_act(state), T0)
    assert all(s.running for s in clocks.seats)
    state, _ = rules.apply(state, 1, rules.legal_moves(state, 1)[0])
    clocks = C.after_move(tc, clocks, 1, rules.to_act(state), T0 + 700)
    assert [s.running for s in clocks.seats] == [True, False, True]
    assert clocks.seats[0].started_ms == T0  # still the same turn: no fresh move time
    assert C.next_timeout(tc, clocks) == (T0 + 2000, 0)  # a tie goes to the lowest seat


def test_optional_moves_run_no_clock_and_cost_nothing() -> None:
    rules = get_rules("sixty-six")
    state = rules.new_game({"preset": "gamefarm"}, b"clocks")
    (leader,) = rules.to_act(state)
    other = 1 - leader
    assert other in rules.may_act(state)
    tc = TimeControl(move_ms=1000, bank_ms=3000, increment_ms=250)
    clocks = C.start(tc, 2, rules.to_act(state), T0)
    assert clocks.seats[leader].running and not clocks.seats[other].running
    # The other seat's optional claim, long after: its clock was stopped, so nothing is charged
    # and nothing is earned; the leader's clock goes on untouched.
    after, _ = rules.apply(state, other, rules.legal_moves(state, other)[0])
    moved = C.after_move(tc, clocks, other, rules.to_act(after), T0 + 9000)
    assert moved.seats[other].bank_ms == 3000
    if leader in rules.to_act(after):
        assert moved.seats[leader] == clocks.seats[leader]


def test_a_seat_that_stops_without_moving_pays_but_earns_no_increment() -> None:
    tc = TimeControl(move_ms=100, bank_ms=1000, increment_ms=500)
    clocks = C.after_move(tc, C.start(tc, 2, [0, 1], T0), 0, [], T0 + 600)
    assert clocks.seats[0].bank_ms == 1000 - 500 + 500
    assert clocks.seats[1] == C.SeatTime(500, None)  # the game ended under it


def test_a_timeout_spends_the_bank_and_counts() -> None:
    tc = TimeControl(move_ms=100, bank_ms=1000, increment_ms=50)
    clocks = C.start(tc, 2, [0, 1], T0)
    clocks = C.after_timeout(tc, clocks, 0, [0, 1], T0 + 1100)
    assert clocks.seats[0] == C.SeatTime(0, T0 + 1100, 1)  # to act again: a fresh turn
    assert clocks.seats[1].started_ms == T0  # the other seat's turn goes on
    assert C.next_timeout(tc, clocks) == (T0 + 1100, 1)
    assert C.next_timeout(tc, C.after_timeout(tc, clocks, 1, [0], T0 + 1100)) == (T0 + 1200, 0)


def test_policies_and_forfeit_after() -> None:
    forfeit = TimeControl(move_ms=100, on_timeout=FORFEIT)
    clocks = C.start(forfeit, 2, [0], T0)
    assert C.policy_for(forfeit, clocks, 0) == FORFEIT
    auto = TimeControl(move_ms=100, on_timeout=AUTO_MOVE, forfeit_after=2)
    clocks = C.start(auto, 2, [0], T0)
    assert C.policy_for(auto, clocks, 0) == AUTO_MOVE
    clocks = C.after_timeout(auto, clocks, 0, [0], T0 + 100)
    assert C.policy_for(auto, clocks, 0) == FORFEIT  # the second timeout forfeits
    assert C.policy_for(auto, clocks, 1) == AUTO_MOVE  # counted per seat
    never = TimeControl(move_ms=100)
    clocks = C.start(never, 2, [0], T0)
    for n in range(5):
        clocks = C.after_timeout(never, clocks, 0, [0], T0 + 100 * (n + 1))
        assert C.policy_for(never, clocks, 0) == AUTO_MOVE


def test_clocks_and_time_controls_round_trip_as_data() -> None:
    tc = TimeControl(move_ms=100, bank_ms=200, increment_ms=3, forfeit_after=4)
    assert TimeControl.from_data(tc.to_data()) == tc
    clocks = C.after_timeout(tc, C.start(tc, 3, [0, 2], T0), 2, [1], T0 + 5)
    assert Clocks.from_data(clocks.to_data()) == clocks


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"move_ms": -1}, "move_ms"),
        ({"move_ms": C.MAX_MOVE_MS + 1}, "move_ms"),
        ({"move_ms": 10, "bank_ms": 10}, "move_ms"),
        ({"bank_ms": -5}, "bank_ms"),
        ({"increment_ms": -1}, "increment_ms"),
        ({"increment_ms": C.MAX_INCREMENT_MS + 1}, "increment_ms"),
        ({"forfeit_after": -1}, "forfeit_after"),
        ({"forfeit_after": 1, "on_timeout": FORFEIT}, "forfeit_after"),
        ({"on_timeout": "sulk"}, "on_timeout"),
    ],
)
def test_values_out_of_range_name_their_field(values: dict[str, object], field: str) -> None:
    given: dict[str, object] = {"move_ms": 1000} | values
    with pytest.raises(BadTimeControl) as bad:
        TimeControl(**given).check()  # type: ignore[arg-type]
    assert bad.value.field == field


def test_the_widest_sensible_values_are_accepted() -> None:
    TimeControl(move_ms=0, bank_ms=C.MIN_TURN_MS).check()
    TimeControl(C.MAX_MOVE_MS, C.MAX_BANK_MS, C.MAX_INCREMENT_MS, AUTO_MOVE, 1000).check()
