"""The phase table: what the core derives from it, and how it refuses what a phase lacks."""

from __future__ import annotations

from typing import Any

import pytest

from engine import game_names, get_rules
from engine.core import cards as C
from engine.core.errors import IllegalMove, Reason
from engine.core.moves import Call, Claim, Cut, DeclareMarriage
from engine.core.phases import OVER, Choice, Phase, PhaseTable, nobody


def _noop(s: Any, seat: int, move: Any, events: list[Any]) -> None:
    pass


def test_a_table_refuses_a_phase_or_an_offer_declared_twice() -> None:
    claim = Choice(Claim, (Claim(),), lambda s, seat, m: None, _noop)
    with pytest.raises(ValueError, match="twice"):
        PhaseTable.of([Phase("a", nobody), Phase("a", nobody)])
    with pytest.raises(ValueError, match="Claim twice"):
        PhaseTable.of([Phase("a", nobody, (claim, claim))])
    assert PhaseTable.of([Phase("a", nobody)]).phases[OVER].offers == ()  # the core adds OVER


@pytest.mark.parametrize("game", game_names())
def test_every_phase_of_every_game_is_declared_and_over_offers_nothing(game: str) -> None:
    rules: Any = get_rules(game)
    assert OVER in rules._phases and rules._phases[OVER].offers == ()
    for phase in rules.phases():
        assert {type(o).__name__ for o in phase.offers} <= {
            "Plays",
            "Masked",
            "Choice",
            "LayAsides",
        }
        assert all(o.move_type in rules.move_types for o in phase.offers)


def test_a_move_the_phase_does_not_offer_gets_the_phases_own_reason_or_wrong_phase() -> None:
    rules: Any = get_rules("sixty-six")
    s = rules.new_game({"first_dealer": "seat0"}, b"phases")
    leader = s.leader
    lead = rules.legal_moves(s, leader)[0]
    s, _ = rules.apply(s, leader, lead)
    assert s.phase == "follow"
    with pytest.raises(IllegalMove) as claim:
        rules.apply(s, leader, Claim())
    assert claim.value.reason is Reason.CLAIM_NOT_ALLOWED  # the follow phase's own refusal
    with pytest.raises(IllegalMove) as marry:
        rules.apply(s, leader, DeclareMarriage(C.HEARTS))
    assert marry.value.reason is Reason.WRONG_PHASE  # not offered, no refusal of its own
    with pytest.raises(IllegalMove) as call:
        rules.apply(s, 1 - leader, Call("pass"))
    assert call.value.reason is Reason.CALL_NOT_ALLOWED


def test_a_claim_between_tricks_is_optional_and_the_end_window_claim_is_not() -> None:
    rules: Any = get_rules("sixty-six")
    claims = {
        phase.name: [o.optional for o in phase.offers if o.move_type is Claim]
        for phase in rules.phases()
    }
    assert claims["lead"] == [True] and claims["post_trick"] == [True]
    assert claims["end_window"] == [False]
    assert claims["follow"] == []


def test_a_choice_judged_by_form_lists_what_judging_each_time_lists() -> None:
    def odd_only(s: Any, seat: int, move: Cut) -> Any:
        return None if move.depth % 2 else (Reason.INVALID_CUT, "odd depths only")

    cuts = tuple(Cut(k) for k in range(1, 8))
    by_form = Choice(Cut, cuts, odd_only, _noop, by_form=True)
    judged = Choice(Cut, cuts, odd_only, _noop)
    assert list(by_form.legal(None, 0)) == judged.legal(None, 0) == [Cut(1), Cut(3), Cut(5), Cut(7)]
    with pytest.raises(IllegalMove) as even:
        by_form.check(None, 0, Cut(2))
    assert even.value.reason is Reason.INVALID_CUT


def test_a_marriage_outside_the_mask_is_refused_with_the_first_rule_it_breaks() -> None:
    rules: Any = get_rules("sixty-six")
    s = rules.new_game({"first_dealer": "seat0"}, b"marriage")
    leader = s.leader
    with pytest.raises(IllegalMove) as other:
        rules.apply(s, 1 - leader, DeclareMarriage(C.CLUBS))
    assert other.value.reason is Reason.NOT_YOUR_TURN
    held = {m.suit for m in rules.legal_moves(s, leader) if isinstance(m, DeclareMarriage)}
    missing = next(suit for suit in C.SUITS if suit not in held)
    with pytest.raises(IllegalMove) as no_pair:
        rules.apply(s, leader, DeclareMarriage(missing))
    assert no_pair.value.reason is Reason.NO_MARRIAGE
    with pytest.raises(IllegalMove) as bad:
        rules.apply(s, leader, DeclareMarriage("hearts"))  # type: ignore[arg-type]
    assert bad.value.reason is Reason.NO_MARRIAGE
