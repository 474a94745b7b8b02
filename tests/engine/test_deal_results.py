"""Each game's typed deal result (``DealScored.result``): filled where the deal is scored, it
accounts for every point the deal gave, so a third party can check a record from it alone.

Each test plays random games of one game (every variant that changes scoring) and checks each
result against the game's scoring rules as the rules documents state them, with nothing taken
from the deal's prose note. The results then cross the wire as typed fields."""

from __future__ import annotations

import random
from typing import Any, cast

import pytest
from tricktable.v1 import events_pb2

from engine import get_rules
from engine.core.events import (
    AllPassed,
    CounterpointDealResult,
    DealScored,
    DealStarted,
    NinetyNineDealResult,
    NominationsDealResult,
    SixtySixDealResult,
)
from engine.core.moves import Call
from engine.games.counterpoint import bid_readings
from engine.games.nominations import contract_value
from service import convert
from tests.engine.helpers import random_steps

SEEDS = range(6)


def deal_results(game: str, options: dict[str, object], seed: int) -> list[DealScored]:
    rules = get_rules(game)
    rng = random.Random(seed)
    found: list[DealScored] = []
    for step in random_steps(rules, options, f"results:{game}:{seed}".encode(), rng):
        found += [e for e in step.events if isinstance(e, DealScored)]
    assert found, "a whole game scores at least one deal"
    return found


def on_the_wire(scored: DealScored) -> events_pb2.DealScored:
    """The event as a client receives it; it reads back to the same event."""
    msg = convert.event_to_proto(scored)
    assert convert.event_from_proto(msg) == scored
    return msg.deal_scored


@pytest.mark.parametrize("edition", ["classic", "revised"])
@pytest.mark.parametrize("seed", SEEDS)
def test_ninety_nine_results_account_for_every_point(edition: str, seed: int) -> None:
    """Rules §7: a point a trick, the contract bonus to each seat that made its bid, then the
    premium to its seat if it made, else to each other seat."""
    for scored in deal_results("ninety-nine", {"edition": edition}, seed):
        r = cast(NinetyNineDealResult, scored.result)
        assert isinstance(r, NinetyNineDealResult)
        assert sum(r.tricks) == 9
        assert r.contract_bonus == {0: 0, 1: 30, 2: 20, 3: 10}[sum(r.made)]
        for seat, bid in enumerate(r.bids):
            assert (bid is None) == (r.bid_cards[seat] is None)
            if bid is not None:
                assert r.made[seat] == (r.tricks[seat] == bid)
        bonus = r.contract_bonus
        expected = [t + (bonus if m else 0) for t, m in zip(r.tricks, r.made, strict=True)]
        if r.premium_seat is not None:
            assert r.premium_value == {"declare": 30, "reveal": 60}[cast(str, r.premium)]
            if r.made[r.premium_seat]:
                expected[r.premium_seat] += r.premium_value
            else:
                for seat in range(3):
                    if seat != r.premium_seat:
                        expected[seat] += r.premium_value
        else:
            assert r.premium is None and r.premium_value == 0
        assert list(scored.points) == expected
        wire = on_the_wire(scored)
        assert wire.WhichOneof("result") == "ninety_nine"
        assert list(wire.ninety_nine.tricks) == list(r.tricks)


@pytest.mark.parametrize("high_readings", [True, False])
@pytest.mark.parametrize("seed", SEEDS)
def test_counterpoint_results_account_for_every_point(high_readings: bool, seed: int) -> None:
    """Rules §5: each seat's error is |taken - bid| with the closer reading of its bid cards;
    a seat scores its opponent's error and its own accuracy bonus."""
    options: dict[str, object] = {"high_readings": high_readings}
    for scored in deal_results("counterpoint", options, seed):
        r = cast(CounterpointDealResult, scored.result)
        assert isinstance(r, CounterpointDealResult)
        for seat in range(2):
            cards = r.bid_cards[seat]
            assert cards is not None and len(cards) == 3
            assert r.bids[seat] in bid_readings(cards, high_readings)
            assert r.errors[seat] == abs(r.card_points[seat] - r.bids[seat])
            assert r.bonuses[seat] == {0: 30, 1: 20, 2: 10}.get(r.errors[seat], 0)
            assert scored.points[seat] == r.errors[1 - seat] + r.bonuses[seat]
        wire = on_the_wire(scored)
        assert list(wire.counterpoint.errors) == list(r.errors)


@pytest.mark.parametrize("preset", ["gamefarm", "pagat"])
@pytest.mark.parametrize("seed", SEEDS)
def test_sixty_six_results_name_the_reason_and_carry_the_carry_over(preset: str, seed: int) -> None:
    """Rules §9: one seat scores the table's award plus the carry, or nobody scores and the
    carry grows by one (with ``carry_over``, §9.4 and §16.8)."""
    carry_over = preset == "gamefarm"
    carry = 0
    for scored in deal_results("sixty-six", {"preset": preset}, seed):
        r = cast(SixtySixDealResult, scored.result)
        assert isinstance(r, SixtySixDealResult)
        if r.scorer is None:
            assert r.reason in {"no_claim", "drawn"} and r.award == r.carry_taken == 0
            assert scored.points == (0, 0)
            assert r.carry == (carry + 1 if carry_over else carry)
        else:
            assert r.carry_taken == carry and r.carry == 0
            assert scored.points[r.scorer] == r.award + r.carry_taken
            assert scored.points[1 - r.scorer] == 0
            assert 1 <= r.award <= 3
        if r.reason in {"out", "false_out", "out_after_close"}:
            assert r.claimant is not None
        if r.reason.startswith("closer_judged") or r.reason == "closer_failed":
            assert r.claimant is None and r.closer is not None
        if r.reason in {"out", "closer_judged_out", "out_after_close"}:
            who = r.claimant if r.claimant is not None else r.closer
            assert r.scorer == who and r.counts[cast(int, who)] >= 66
        carry = r.carry
        wire = on_the_wire(scored)
        reason = events_pb2.SixtySixReason.Name(wire.sixty_six.reason)
        assert reason == "SIXTY_SIX_REASON_" + r.reason.upper()
        assert wire.sixty_six.carry == r.carry


def nominations_deals(options: dict[str, object], seed: int) -> list[DealScored]:
    """Random Nominations games whose players pass three times in four, so deals are
    abandoned as often as played."""
    rules = get_rules("nominations")
    rng = random.Random(seed)
    state: Any = rules.new_game(options, f"results:nominations:{seed}".encode())
    found: list[DealScored] = []
    while not state.finished:
        seat = rng.choice(rules.may_act(state))
        legal = rules.legal_moves(state, seat)
        move = Call("pass") if Call("pass") in legal and rng.random() < 0.75 else None
        state, events = rules.apply(state, seat, move or rng.choice(legal))
        found += [e for e in events if isinstance(e, DealScored)]
    return found


@pytest.mark.parametrize(
    "options",
    [
        {"end_mode": "deals", "deal_count": 4},
        {"end_mode": "deals", "deal_count": 4, "double_hand_stacking": True},
        {"end_mode": "deals", "deal_count": 4, "opponent_trick_points": True},
        {"end_mode": "deals", "deal_count": 4, "all_pass": "redeal"},
    ],
)
@pytest.mark.parametrize("seed", SEEDS)
def test_nominations_results_give_the_contract_and_the_multiplier(
    options: dict[str, object], seed: int
) -> None:
    """Rules §7, §8: made, the bid value to the declarer's side; failed, to every other seat;
    everything times the deal's multiplier. An all-pass deal (§4) has a result that scores
    nothing."""
    o = get_rules("nominations").options(options)
    deals = nominations_deals(options, seed)
    assert any(cast(NominationsDealResult, d.result).all_passed for d in deals)
    for scored in deals:
        r = cast(NominationsDealResult, scored.result)
        assert isinstance(r, NominationsDealResult)
        if r.all_passed:
            assert scored.points == (0, 0, 0, 0) and not r.made and r.declarer is None
            continue
        assert r.declarer is not None and r.contract is not None
        assert r.value == contract_value(o, r.contract, r.bid_tricks or 0)
        side = {r.declarer} | ({r.partner} if r.partner is not None else set())
        for seat in range(4):
            paid = (seat in side) == r.made
            expected = r.value * r.multiplier if paid else 0
            if o.opponent_trick_points and seat not in side:
                expected += r.tricks[seat] * r.multiplier
            assert scored.points[seat] == expected, (seat, r)
        wire = on_the_wire(scored)
        assert wire.nominations.multiplier == r.multiplier


def test_an_all_pass_nominations_deal_is_scored_with_nothing_and_doubles_the_next() -> None:
    rules = get_rules("nominations")
    state: Any = rules.new_game({}, b"all-pass")
    events = []
    for _ in range(4):
        (seat,) = rules.to_act(state)
        state, step = rules.apply(state, seat, Call("pass"))
        events += step
    kinds = [type(e) for e in events if type(e) in (AllPassed, DealScored, DealStarted)]
    assert kinds[:2] == [AllPassed, DealScored]
    scored = next(e for e in events if isinstance(e, DealScored))
    assert scored.deal_no == 1 and scored.points == (0, 0, 0, 0) and scored.totals == (0,) * 4
    assert scored.result == NominationsDealResult(
        all_passed=True,
        declarer=None,
        contract=None,
        bid_tricks=None,
        partner=None,
        made=False,
        value=0,
        multiplier=1,
        tricks=(0, 0, 0, 0),
    )
    assert state.multiplier == 2 and state.played_deals == 0
    assert rules.view(state, None).detail.last_deal == scored
    wire = on_the_wire(scored)
    assert wire.nominations.all_passed and not wire.nominations.HasField("declarer")
