"""Counterpoint: every test vector of shared/rules/counterpoint.md, and each rule and flag."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_rules
from engine.core import cards as C
from engine.core.errors import IllegalMove, InvalidOptions, Reason
from engine.core.events import CardsLaidAside, DealScored, DealStarted, GameOver, TrickWon
from engine.core.fields import cards_in
from engine.core.moves import LayAside, PlayCard
from engine.games.counterpoint import (
    POINTS,
    Counterpoint,
    CounterpointState,
    accuracy_bonus,
    bid_error,
    bid_readings,
    trick_winner_index,
)
from tests.engine.helpers import cards, drive, hand, of_type, random_steps

R: Counterpoint = get_rules("counterpoint")  # type: ignore[assignment]

TV4_PACK = (
    "Q♠ Q♦ T♠ J♥ T♦ 7♣ J♣ K♣ 9♣ 8♥ 7♠ 8♠ Q♥ K♥ K♠ A♠ Q♣ 9♥ 8♦ 9♠ A♥ T♣ 7♥ J♠ T♥ 8♣ "
    "A♣ J♦ K♦ 9♦ 7♦ A♦"
)
N, D = 1, 0  # with first_dealer = seat0, seat 0 deals the first deal


def new(options: dict[str, object] | None = None, pack: str | None = None) -> CounterpointState:
    opts: dict[str, object] = {"first_dealer": "seat0", **(options or {})}
    return R.new_game(opts, b"cp", {"pack:1": cards(pack)} if pack else None)


# -- TV-CP-1 bid values ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bid_cards", "readings"),
    [
        ("7♦ 8♦ 9♦", (0, 100)),
        ("7♦ 8♦ 9♠", (10, 110)),
        ("7♦ 8♠ 9♠", (20, 120)),
        ("J♦ 7♦ 8♥", (20, 120)),
        ("7♣ 8♣ 9♣", (90,)),
        ("7♣ 8♥ 9♠", (60,)),
    ],
)
def test_bid_cards_read_as_card_points_with_the_high_readings(
    bid_cards: str, readings: tuple[int, ...]
) -> None:
    """TV-CP-1: bid values: suits ♦0 ♠10 ♥20 ♣30 summed, and 0/10/20 also read +100."""
    assert bid_readings(cards(bid_cards), True) == readings
    assert bid_readings(cards(bid_cards), False) == readings[:1]


# -- TV-CP-2 single tricks -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lead", "follow", "winner", "points"),
    [
        ("J♠", "A♥", 1, 13),
        ("K♠", "K♥", 0, 8),
        ("8♦", "8♣", 1, 0),
        ("K♣", "T♣", 1, 14),
        ("Q♠", "J♥", 0, 5),
        ("J♦", "J♠", 0, 4),
        ("7♥", "7♣", 1, 0),
    ],
    ids=["a", "b", "c", "d", "f", "g", "h"],
)
def test_the_higher_rank_wins_any_suit_and_ties_split_by_counters(
    lead: str, follow: str, winner: int, points: int
) -> None:
    """TV-CP-2: single tricks. The higher rank wins whatever the suit; equal counters go to
    the leader, equal blanks to the follower."""
    a, b = C.parse(lead), C.parse(follow)
    assert trick_winner_index(a, b) == winner
    assert POINTS[a] + POINTS[b] == points


def play_scenario(
    hands: dict[int, str], leader: int, plays: list[str]
) -> tuple[CounterpointState, list[Any]]:
    s = new()
    s.phase = "play"
    s.hands = [hand(hands[0]), hand(hands[1])]
    s.aside = [hand("7♦ 8♦ 9♦"), hand("7♣ 8♣ 9♣")]
    s.leader = s.turn = leader
    script = [((leader + i) % 2, PlayCard(C.parse(p))) for i, p in enumerate(plays)]
    return drive(R, s, script)


def test_a_trick_played_through_the_engine_scores_its_points_for_the_winner() -> None:
    """TV-CP-2: single tricks."""
    s, events = play_scenario({N: "J♠ 9♦", D: "A♥ 8♦"}, N, ["J♠", "A♥"])
    (won,) = of_type(events, TrickWon)
    assert (won.winner, won.points) == (D, 13)
    assert s.points_taken == [13, 0] and s.turn == D


def test_the_follower_must_follow_suit_even_with_a_low_card() -> None:
    """TV-CP-2 (e): single tricks."""
    s, _ = play_scenario({N: "9♣ 9♦", D: "7♣ A♥"}, N, ["9♣"])
    assert R.legal_moves(s, D) == [PlayCard(C.parse("7♣"))]
    with pytest.raises(IllegalMove) as err:
        R.apply(s, D, PlayCard(C.parse("A♥")))
    assert err.value.reason is Reason.MUST_FOLLOW_SUIT
    s, events = R.apply(s, D, PlayCard(C.parse("7♣")))
    assert of_type(events, TrickWon)[0].winner == N


# -- TV-CP-3 scoring -------------------------------------------------------------------------

_BY_SUIT_VALUE = {30: C.CLUBS, 20: C.HEARTS, 10: C.SPADES, 0: C.DIAMONDS}


def aside_for(bid: int) -> tuple[int, ...]:
    """Three distinct cards whose suits encode ``bid`` (0..90)."""
    values = []
    rest = bid
    for _ in range(3):
        v = min(30, rest)
        values.append(v)
        rest -= v
    assert rest == 0
    return tuple(C.card(7 + i, _BY_SUIT_VALUE[v]) for i, v in enumerate(values))


@pytest.mark.parametrize(
    ("bids", "taken", "high", "scores"),
    [
        ((60, 70), (58, 62), True, (18, 2)),
        ((50, 40), (50, 45), True, (35, 0)),
        ((30, 80), (31, 79), True, (21, 21)),
        ((40, 50), (38, 60), True, (20, 2)),
        ((0, 20), (104, 6), True, (14, 4)),
        ((10, 0), (110, 0), True, (30, 30)),
        ((90, 30), (20, 95), True, (65, 70)),
        ((0, 20), (104, 6), False, (14, 104)),
    ],
    ids=[f"row{i}" for i in range(1, 9)],
)
def test_each_seat_scores_the_opponents_error_plus_its_accuracy_bonus(
    bids: tuple[int, int], taken: tuple[int, int], high: bool, scores: tuple[int, int]
) -> None:
    """TV-CP-3: scoring rows."""
    asides = [aside_for(b) for b in bids]
    points, _, _ = R.deal_points(asides, list(taken), high)
    assert tuple(points) == scores


def test_the_reading_closer_to_what_was_taken_counts() -> None:
    assert bid_error((0, 100), 104) == (4, 100)
    assert bid_error((20, 120), 6) == (14, 20)
    assert bid_error((0, 100), 50)[0] == 50  # equally close: the same score either way
    assert [accuracy_bonus(d) for d in range(5)] == [30, 20, 10, 0, 0]


# -- TV-CP-4 full deal -----------------------------------------------------------------------

TV4_TRICKS = [
    (N, "A♥", "8♥", N, 11),
    (N, "A♣", "Q♣", N, 14),
    (N, "T♠", "A♠", D, 21),
    (D, "A♦", "J♦", D, 13),
    (D, "T♦", "Q♦", D, 13),
    (D, "T♣", "J♣", D, 12),
    (D, "K♦", "T♥", N, 14),
    (N, "K♣", "7♦", N, 4),
    (N, "K♥", "9♥", N, 4),
    (N, "K♠", "8♠", N, 4),
    (N, "Q♠", "J♠", N, 5),
    (N, "Q♥", "J♥", N, 5),
    (N, "9♠", "9♦", D, 0),
]


def test_a_full_deal_from_a_fixed_pack_gives_the_specs_tricks_and_scores() -> None:
    """TV-CP-4: full deal."""
    s = new(pack=TV4_PACK)
    assert s.hands[N] == hand("A♣ K♣ J♣ 9♣ 8♣ A♥ T♥ K♥ Q♥ T♠ K♠ Q♠ 9♠ Q♦ J♦ 8♦")
    assert s.hands[D] == hand("T♣ Q♣ 7♣ J♥ 9♥ 8♥ 7♥ A♠ J♠ 8♠ 7♠ A♦ T♦ K♦ 9♦ 7♦")
    s, _ = drive(
        R,
        s,
        [(N, LayAside.of(cards("8♦ 8♣ 9♣"))), (D, LayAside.of(cards("7♣ 7♠ 7♥")))],
    )
    assert R.to_act(s) == (N,)
    events: list[Any] = []
    for leader, lead, follow, winner, points in TV4_TRICKS:
        s, step = drive(
            R, s, [(leader, PlayCard(C.parse(lead))), (1 - leader, PlayCard(C.parse(follow)))]
        )
        (won,) = of_type(step, TrickWon)
        assert (won.winner, won.points) == (winner, points), f"{lead} {follow}"
        events.extend(step)
    (scored,) = of_type(events, DealScored)
    assert scored.taken[N] == 61 and scored.taken[D] == 59
    assert scored.bids == (60, 60)
    assert scored.points == (21, 21)
    assert set(scored.bid_cards[N] or ()) == set(cards("8♦ 8♣ 9♣"))
    assert s.dealer == N  # the dealer swaps


def test_deal_in_ones_gives_the_non_dealer_the_first_card() -> None:
    pack = cards(TV4_PACK)
    s = R.new_game({"first_dealer": "seat0", "deal_batches": "ones"}, b"x", {"pack:1": pack})
    assert s.hands[N] == C.mask_of(pack[0::2]) and s.hands[D] == C.mask_of(pack[1::2])


# -- TV-CP-5 game end ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "deal", "tie_rule", "winners"),
    [
        ((85, 80), (21, 21), "draw", (0,)),
        ((90, 95), (18, 2), "draw", (0,)),
        ((95, 97), (8, 6), "draw", (0, 1)),
        ((95, 97), (8, 6), "extra_deal", None),
        ((70, 60), (21, 21), "draw", None),
    ],
)
def test_the_game_ends_at_the_target_score_with_the_tie_rule(
    before: tuple[int, int],
    deal: tuple[int, int],
    tie_rule: str,
    winners: tuple[int, ...] | None,
) -> None:
    """TV-CP-5: game end."""
    totals = [a + b for a, b in zip(before, deal, strict=True)]
    assert R.game_winners(totals, R.options({"tie_rule": tie_rule})) == winners


def test_the_game_ends_at_the_end_of_the_deal_that_reaches_the_target() -> None:
    steps = list(random_steps(R, {"target_score": 40}, b"end", random.Random(4)))
    final = steps[-1]
    (over,) = of_type(final.events, GameOver)
    assert max(over.totals) >= 40
    for step in steps[:-1]:
        assert not of_type(step.events, GameOver)
    dealers = [e.dealer for s in steps for e in s.events if isinstance(e, DealStarted)]
    assert all(a != b for a, b in itertools.pairwise(dealers))


def test_extra_deals_until_the_totals_differ() -> None:
    rng = random.Random(9)
    for game in range(20):
        *_, last = random_steps(
            R, {"target_score": 30, "tie_rule": "extra_deal"}, bytes([game]), rng
        )
        outcome = R.outcome(last.after)
        assert outcome is not None and len(outcome.winners) == 1


# -- bidding rules, visibility, options ------------------------------------------------------


def test_both_lay_aside_at_once_and_the_non_dealer_leads() -> None:
    s = new()
    assert R.to_act(s) == (0, 1)
    assert len(R.legal_moves(s, 0)) == 560  # C(16, 3)
    s, _ = R.apply(s, D, R.legal_moves(s, D)[5])
    assert R.to_act(s) == (N,)
    s, _ = R.apply(s, N, R.legal_moves(s, N)[7])
    assert R.to_act(s) == (N,) and s.phase == "play"
    assert sum(C.count(h) for h in s.hands) == 26


def test_the_opponents_bid_cards_stay_hidden_until_the_end_of_the_deal() -> None:
    s = new(pack=TV4_PACK)
    s, events = drive(
        R, s, [(N, LayAside.of(cards("8♦ 8♣ 9♣"))), (D, LayAside.of(cards("7♣ 7♠ 7♥")))]
    )
    assert R.view(s, N).seats[D].aside is None and R.view(s, N).seats[D].bid is None
    assert R.view(s, N).seats[N].aside == tuple(sorted(cards("8♦ 8♣ 9♣")))
    assert R.view(s, N).seats[N].bid == 60
    assert R.view(s, None).seats[N].aside is None
    for e in events:
        assert R.project(e, D if e.seat == N else N).cards is None  # type: ignore[union-attr]


def test_the_point_tally_is_shown_only_with_show_point_tally() -> None:
    for tally in (False, True):
        rng = random.Random(1)
        for step in random_steps(R, {"show_point_tally": tally}, b"t", rng):
            if step.after.phase == "play" and any(step.after.points_taken):
                seen = [sv.points_taken for sv in R.view(step.after, 0).seats]
                if tally:
                    assert seen == step.after.points_taken
                else:
                    assert seen == [None, None]
                break


def test_counterpoint_options_and_defaults() -> None:
    specs = {s.name: s.default for s in R.game_type().options}
    assert specs == {
        "players": 2,
        "high_readings": True,
        "target_score": 99,
        "tie_rule": "draw",
        "deal_batches": "3-3-3-3-4",
        "first_dealer": "random",
        "show_point_tally": False,
    }
    with pytest.raises(InvalidOptions) as err:
        R.options({"players": 3})
    assert "players" in err.value.message


# -- information visibility (§9): an independent oracle --------------------------------------


def _played_this_deal(s: CounterpointState) -> set[int]:
    return {c for h in s.history for c in h[2:]} | set(s.trick)


def check_visibility(step: Any) -> None:
    s = step.after
    for viewer in (0, 1, None):
        view = R.view(s, viewer)
        last = view.detail.last_deal
        if last is not None:  # the end of a deal shows both players' bid cards to everyone
            assert all(b is not None for b in last.bid_cards)
        may_see = _played_this_deal(s)
        if viewer is not None:
            may_see |= set(C.cards_of(s.hands[viewer] | s.aside[viewer]))
            assert view.seats[1 - viewer].hand is None and view.seats[1 - viewer].aside is None
        seen = cards_in(view) - (cards_in(last) if last is not None else set())
        assert seen <= may_see, f"viewer {viewer} sees {seen - may_see}"
        for e in step.events:
            p = R.project(e, viewer)
            if isinstance(p, DealStarted):
                assert [h is not None for h in p.hands] == [seat == viewer for seat in (0, 1)]
            elif isinstance(p, CardsLaidAside):
                assert (p.cards is not None) == (p.seat == viewer)
            elif not isinstance(p, DealScored):
                public = _played_this_deal(step.before) | cards_in(step.move)
                assert cards_in(p) <= public


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    tally=st.booleans(),
    high=st.booleans(),
    seed=st.binary(min_size=1, max_size=8),
    bot=st.integers(0, 10**6),
)
def test_no_viewer_ever_sees_a_card_the_rules_hide(
    tally: bool, high: bool, seed: bytes, bot: int
) -> None:
    options = {"show_point_tally": tally, "high_readings": high, "target_score": 60}
    for step in random_steps(R, options, seed, random.Random(bot)):
        check_visibility(step)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.binary(min_size=1, max_size=8), bot=st.integers(0, 10**6))
def test_card_points_are_conserved_in_every_deal(seed: bytes, bot: int) -> None:
    for step in random_steps(R, {"target_score": 60}, seed, random.Random(bot)):
        for e in of_type(step.events, DealScored):
            aside_points = sum(POINTS[c] for b in e.bid_cards for c in b or ())
            assert sum(e.taken) + aside_points == 120
            assert sum(C.count(m) for m in step.before.hands) == 1  # the last card was played
        s = step.after
        if not s.finished:
            held = [C.count(h) for h in s.hands] + [C.count(a) for a in s.aside]
            assert sum(held) + len(_played_this_deal(s)) == 32
