"""Ninety-Nine: every test vector of shared/rules/ninety-nine.md, and each rule and flag."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_rules
from engine.core import cards as C
from engine.core.errors import IllegalMove, InvalidOptions, Reason
from engine.core.events import (
    Called,
    CardsExposed,
    CardsLaidAside,
    DealScored,
    DealStarted,
    GameOver,
    TrickWon,
)
from engine.core.fields import cards_in
from engine.core.moves import Call, ChooseSeat, LayAside, PlayCard
from engine.games.ninety_nine import NinetyNine, NinetyNineState, bid_value, revised_trump
from tests.engine.helpers import cards, drive, hand, of_type, random_steps

R: NinetyNine = get_rules("ninety-nine")  # type: ignore[assignment]
CLASSIC_DECK = C.deck(range(6, 15), joker=True)

TV6_PACK = (
    "A♣ 6♠ 6♣ 6♥ 9♠ 9♦ 8♦ A♦ 7♦ Q♠ A♠ Jk A♥ 8♣ 8♠ Q♦ J♦ K♦ 7♥ 6♦ 9♣ Q♥ 9♥ K♥ 7♣ T♦ T♠ J♠ "
    "T♣ Q♣ J♣ K♣ J♥ K♠ 7♠ T♥ 8♥"
)
TV7_PACK = (
    "6♠ Q♣ 8♣ 7♠ 7♣ K♦ T♦ Q♥ 6♦ T♣ T♥ 8♠ Q♠ 7♥ 9♦ J♣ A♠ K♥ 7♦ 8♦ 6♥ 9♠ J♥ 8♥ J♦ K♠ J♠ A♣ "
    "T♠ A♥ A♦ 6♣ K♣ Q♦ 9♣ 9♥"
)


def new(options: dict[str, object] | None = None, pack: str | None = None) -> NinetyNineState:
    opts: dict[str, object] = {"first_dealer": "seat0", **(options or {})}
    overrides = {"pack:1": cards(pack)} if pack else None
    return R.new_game(opts, b"test-seed", overrides)


def with_turn_up(turn_up: str) -> NinetyNineState:
    """A classic game whose first turn-up (the 37th card) is ``turn_up``."""
    top = C.parse(turn_up)
    pack = [c for c in CLASSIC_DECK if c != top] + [top]
    return R.new_game({"first_dealer": "seat0"}, b"s", {"pack:1": pack})


def scenario(
    hands: dict[int, str], *, trump: int | None, turn_up: str | None = None, leader: int = 1
) -> NinetyNineState:
    """A position in the play phase with the given hands (scenario tests set up a position)."""
    s = with_turn_up(turn_up) if turn_up else new({"edition": "revised"})
    s.phase = "play"
    s.hands = [hand(hands.get(seat, "")) for seat in range(3)]
    s.aside = [hand("6♦ 7♦ 8♦")] * 3
    s.trump = trump
    s.leader = s.turn = leader
    return s


def lay_aside_all(s: NinetyNineState, bids: dict[int, str]) -> NinetyNineState:
    for seat in range(3):
        s, _ = R.apply(s, seat, LayAside.of(cards(bids[seat])))
    return s


def first_three(s: NinetyNineState) -> NinetyNineState:
    """Every seat lays aside its first legal choice."""
    for seat in range(3):
        s, _ = R.apply(s, seat, R.legal_moves(s, seat)[0])
    return s


# -- TV-NN-1 bid values --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bid_cards", "turn_up", "expected"),
    [
        ("7♦ 6♠ T♣", "8♥", 4),
        ("9♣ 8♣ 6♣", "8♥", 9),
        ("6♦ 7♦ 8♦", "8♥", 0),
        ("Jk 8♥ 9♦", "Q♣", 5),  # the Joker is the Q♣: 3+2+0
        ("Jk A♠ K♠", "9♦", 2),  # the Joker is the 9♦: 0+1+1
    ],
)
def test_bid_cards_sum_their_suit_digits_with_the_joker_as_the_turn_up(
    bid_cards: str, turn_up: str, expected: int
) -> None:
    """TV-NN-1: bid values."""
    s = with_turn_up(turn_up)
    assert bid_value(s, hand(bid_cards)) == expected


def test_every_bid_from_0_to_9_is_reachable() -> None:
    s = new({"edition": "revised"})
    values = {
        bid_value(s, C.mask_of(m.cards)) for m in R.legal_moves(s, 0) if isinstance(m, LayAside)
    }
    # a single hand cannot make all of them, but the encoding must span 0..9 over suits
    assert values <= set(range(10))
    suits = [C.card(6 + i, suit) for suit in C.SUITS for i in range(3)]
    all_values = {
        bid_value(s, C.mask_of((a, b, c)))
        for a in suits
        for b in suits
        for c in suits
        if len({a, b, c}) == 3
    }
    assert all_values == set(range(10))


# -- TV-NN-2 single tricks -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trump", "turn_up", "plays", "winner"),
    [
        (C.HEARTS, None, ("T♠", "A♠", "6♥"), 0),  # a: only trump
        (None, None, ("K♦", "A♣", "A♥"), 1),  # b: only the suit led can win
        (C.SPADES, None, ("Q♦", "7♠", "9♠"), 0),  # c: higher trump
        (C.HEARTS, "8♥", ("A♠", "6♠", "Jk"), 0),  # d: Jk = 8♥, a trump
        (None, "9♣", ("T♣", "Jk", "J♣"), 0),  # e: Jk = 9♣ follows suit; J > T > 9
    ],
    ids=["a", "b", "c", "d", "e"],
)
def test_the_highest_trump_or_else_the_highest_of_the_suit_led_wins(
    trump: int | None, turn_up: str | None, plays: tuple[str, str, str], winner: int
) -> None:
    """TV-NN-2: single tricks."""
    p1, p2, p0 = plays
    s = scenario({1: p1, 2: p2, 0: p0}, trump=trump, turn_up=turn_up)
    s, events = drive(
        R, s, [(1, PlayCard(C.parse(p1))), (2, PlayCard(C.parse(p2))), (0, PlayCard(C.parse(p0)))]
    )
    (won,) = of_type(events, TrickWon)
    assert won.winner == winner
    assert s.turn == winner  # the winner leads next


def test_a_player_who_holds_the_suit_led_must_follow_it() -> None:
    """TV-NN-2 (f): single tricks."""
    s = scenario({1: "9♠ 7♣", 2: "6♠ A♥", 0: "K♣ 8♣"}, trump=C.HEARTS)
    s, _ = R.apply(s, 1, PlayCard(C.parse("9♠")))
    assert [m.card for m in R.legal_moves(s, 2)] == [C.parse("6♠")]  # type: ignore[union-attr]
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 2, PlayCard(C.parse("A♥")))
    assert err.value.reason is Reason.MUST_FOLLOW_SUIT


def test_the_joker_is_a_club_when_the_turn_up_is_a_club() -> None:
    """TV-NN-2 (g): single tricks."""
    s = scenario({1: "T♣ 7♥", 2: "Jk Q♦", 0: "K♥ 8♥"}, trump=None, turn_up="9♣")
    s, _ = R.apply(s, 1, PlayCard(C.parse("T♣")))
    assert R.legal_moves(s, 2) == [PlayCard(C.JOKER)]
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 2, PlayCard(C.parse("Q♦")))
    assert err.value.reason is Reason.MUST_FOLLOW_SUIT


def test_a_player_void_in_the_suit_led_may_play_anything_and_need_not_trump() -> None:
    s = scenario({1: "A♠", 2: "6♥ 7♦ 8♣", 0: "9♠"}, trump=C.HEARTS)
    s, _ = R.apply(s, 1, PlayCard(C.parse("A♠")))
    assert {m.card for m in R.legal_moves(s, 2)} == set(cards("6♥ 7♦ 8♣"))  # type: ignore[union-attr]


def test_a_joker_led_asks_for_the_turn_ups_suit() -> None:
    s = scenario({1: "Jk 7♠", 2: "6♥ A♠", 0: "9♠ K♥"}, trump=C.HEARTS, turn_up="8♥")
    s, _ = R.apply(s, 1, PlayCard(C.JOKER))
    assert R.legal_moves(s, 2) == [PlayCard(C.parse("6♥"))]


# -- TV-NN-3 premium call sequences ----------------------------------------------------------
# Dealer P0 (first_dealer = seat0), so E = P1, S = P2, D = P0.


def calls(s: NinetyNineState, script: list[tuple[int, str]]) -> tuple[NinetyNineState, list[Any]]:
    return drive(R, s, [(seat, Call(c)) for seat, c in script])


def test_pass_declare_pass_leaves_the_declare_standing() -> None:
    """TV-NN-3: premium call sequences."""
    s, events = calls(first_three(new()), [(1, "pass"), (2, "declare"), (0, "pass")])
    assert (s.premium_seat, s.premium) == (2, "declare")
    (exposed,) = of_type(events, CardsExposed)
    assert (exposed.seat, exposed.what) == (2, "bid_cards")
    assert R.to_act(s) == (1,)  # eldest leads after a declare
    assert s.phase == "play"


def test_a_later_reveal_overrides_a_declare() -> None:
    """TV-NN-3: premium call sequences."""
    s, events = calls(first_three(new()), [(1, "declare"), (2, "pass"), (0, "reveal")])
    assert (s.premium_seat, s.premium) == (0, "reveal")
    exposed = of_type(events, CardsExposed)
    assert [(e.seat, e.what) for e in exposed] == [(0, "bid_cards")]  # E's stay hidden
    assert R.view(s, 2).seats[1].aside is None
    assert R.to_act(s) == (0,) and s.phase == "name_leader"


def test_a_second_declare_is_illegal() -> None:
    """TV-NN-3: premium call sequences."""
    s, _ = calls(first_three(new()), [(1, "declare")])
    assert R.legal_moves(s, 2) == [Call("pass"), Call("reveal")]
    before = R.snapshot(s)
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 2, Call("declare"))
    assert err.value.reason is Reason.CALL_NOT_ALLOWED
    assert R.snapshot(s) == before


def test_after_a_reveal_the_others_pass_automatically() -> None:
    """TV-NN-3: premium call sequences."""
    s, events = calls(first_three(new()), [(1, "reveal")])
    passes = [(e.seat, e.call, e.automatic) for e in of_type(events, Called)]
    assert passes == [(1, "reveal", False), (2, "pass", True), (0, "pass", True)]
    assert (s.premium_seat, s.premium) == (1, "reveal")


def test_no_call_is_accepted_after_a_reveal_ends_the_calls() -> None:
    """TV-NN-3: premium call sequences."""
    s, _ = calls(first_three(new()), [(1, "pass"), (2, "reveal")])
    before = R.snapshot(s)
    with pytest.raises(IllegalMove):
        R.apply(s, 0, Call("declare"))
    assert R.snapshot(s) == before
    assert s.calls == ["pass", "pass", "reveal"]


def test_all_pass_means_no_premium() -> None:
    """TV-NN-3: premium call sequences."""
    s, events = calls(first_three(new()), [(1, "pass"), (2, "pass"), (0, "pass")])
    assert s.premium is None and not of_type(events, CardsExposed)
    assert R.to_act(s) == (1,)


def test_calls_are_made_in_order_from_eldest() -> None:
    s = first_three(new())
    assert R.to_act(s) == (1,)
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 2, Call("pass"))
    assert err.value.reason is Reason.NOT_YOUR_TURN


# -- TV-NN-4 scoring -------------------------------------------------------------------------

PREMIUMS: dict[str, tuple[int | None, str | None]] = {
    "—": (None, None),
    "P1 declares": (1, "declare"),
    "P1 reveals": (1, "reveal"),
    "P2 declares": (2, "declare"),
    "P0 declares": (0, "declare"),
}


@pytest.mark.parametrize(
    ("bids", "tricks", "premium", "k", "scores", "next_trump"),
    [
        ((3, 3, 3), (3, 3, 3), "—", 3, (13, 13, 13), C.CLUBS),
        ((0, 4, 2), (2, 3, 4), "—", 0, (2, 3, 4), C.DIAMONDS),
        ((4, 2, 4), (4, 3, 2), "—", 1, (34, 3, 2), C.SPADES),
        ((0, 5, 6), (0, 5, 4), "—", 2, (20, 25, 4), C.HEARTS),
        ((0, 5, 6), (0, 5, 4), "P1 declares", 2, (20, 55, 4), C.HEARTS),
        ((0, 5, 3), (0, 6, 3), "P1 declares", 2, (50, 6, 53), C.HEARTS),
        ((2, 9, 1), (1, 8, 0), "P1 reveals", 0, (61, 8, 60), C.DIAMONDS),
        ((1, 9, 2), (0, 9, 0), "P1 reveals", 1, (0, 99, 0), C.SPADES),
        ((2, 4, 3), (2, 4, 3), "P2 declares", 3, (12, 14, 43), C.CLUBS),
        ((1, 3, 4), (2, 2, 5), "P0 declares", 0, (2, 32, 35), C.DIAMONDS),
    ],
    ids=[f"row{i}" for i in range(1, 11)],
)
def test_tricks_contract_bonus_and_premium_make_the_deal_score(
    bids: tuple[int, int, int],
    tricks: tuple[int, int, int],
    premium: str,
    k: int,
    scores: tuple[int, int, int],
    next_trump: int,
) -> None:
    """TV-NN-4: scoring rows."""
    seat, kind = PREMIUMS[premium]
    points, made = R.deal_points(list(bids), list(tricks), seat, kind)
    assert sum(made) == k
    assert tuple(points) == scores
    assert revised_trump(2, k, R.options({"edition": "revised"})) == next_trump


def test_a_failed_premium_pays_nobody_with_premium_fail_award_none() -> None:
    points, _ = R.deal_points([0, 5, 3], [0, 6, 3], 1, "declare", fail_award="none")
    assert points == [20, 6, 23]


# -- TV-NN-5 revised trump sequence ----------------------------------------------------------


@pytest.mark.parametrize(("first_deal_trump", "first"), [("none", None), ("diamonds", C.DIAMONDS)])
def test_revised_trumps_follow_how_many_made_their_bid(
    first_deal_trump: str, first: int | None
) -> None:
    """TV-NN-5: revised trump sequence."""
    o = R.options({"edition": "revised", "first_deal_trump": first_deal_trump})
    successes = [2, 1, 0, 3]  # deals 1..4
    trumps = [revised_trump(1, -1, o)] + [
        revised_trump(n + 2, k, o) for n, k in enumerate(successes)
    ]
    assert trumps == [first, C.HEARTS, C.SPADES, C.DIAMONDS, C.CLUBS]


def test_revised_trumps_follow_the_previous_deals_successes_in_real_games() -> None:
    rng = random.Random(5)
    for game in range(6):
        prev_k: int | None = None
        for step in random_steps(R, {"edition": "revised"}, bytes([game]), rng):
            for e in step.events:
                if isinstance(e, DealScored):
                    prev_k = sum(bool(m) for m in e.made)
                elif isinstance(e, DealStarted):
                    expected = {3: C.CLUBS, 2: C.HEARTS, 1: C.SPADES, 0: C.DIAMONDS}[prev_k]  # type: ignore[index]
                    assert e.trump == expected


def test_classic_trumps_are_the_turn_ups_suit_unless_a_nine_or_the_joker() -> None:
    assert with_turn_up("7♥").trump == C.HEARTS
    assert with_turn_up("9♦").trump is None
    jk = with_turn_up("Jk")
    assert jk.trump is None
    assert sum(C.count(h) for h in jk.hands) == 36 and not any(h >> C.JOKER & 1 for h in jk.hands)


# -- TV-NN-6 full classic deal ---------------------------------------------------------------

TV6_BIDS = {0: "6♣ 7♦ 8♠", 1: "7♣ 8♦ J♠", 2: "6♠ 6♦ 7♠"}
TV6_TRICKS = [
    (1, "A♥ 9♥ Jk", 1),
    (1, "Q♥ 8♣ T♥", 1),
    (1, "7♥ 9♠ J♥", 0),
    (0, "K♥ 6♥ T♦", 0),
    (0, "K♦ Q♦ J♦", 0),
    (0, "Q♣ J♣ T♣", 0),
    (0, "T♠ Q♠ A♠", 2),
    (2, "A♦ 9♦ K♠", 2),
    (2, "K♣ 9♣ A♣", 1),
]


def play_tricks(
    s: NinetyNineState, tricks: list[tuple[int, str, int]]
) -> tuple[NinetyNineState, list[Any]]:
    events: list[Any] = []
    for leader, played, winner in tricks:
        assert R.to_act(s) == (leader,)
        for i, c in enumerate(cards(played)):
            s, step = R.apply(s, (leader + i) % 3, PlayCard(c))
            events.extend(step)
        won = of_type(events, TrickWon)[-1]
        assert won.winner == winner, f"trick led by P{leader} ({played})"
    return s, events


def test_a_fixed_classic_pack_deals_the_specs_hands_and_turn_up() -> None:
    """TV-NN-6: full classic deal."""
    s = new(pack=TV6_PACK)
    assert s.dealer == 0 and s.turn_up == C.parse("8♥") and s.trump == C.HEARTS
    assert s.hands[0] == hand("Q♣ 9♣ 6♣ K♥ J♥ T♥ T♠ 8♠ K♦ 9♦ 7♦ Jk")
    assert s.hands[1] == hand("A♣ J♣ 7♣ A♥ Q♥ 7♥ 6♥ K♠ Q♠ J♠ Q♦ 8♦")
    assert s.hands[2] == hand("K♣ T♣ 8♣ 9♥ A♠ 9♠ 7♠ 6♠ A♦ J♦ T♦ 6♦")
    s = lay_aside_all(s, TV6_BIDS)
    assert [bid_value(s, a) for a in s.aside] == [4, 4, 2]


@pytest.mark.parametrize(
    ("declare", "award", "scores"),
    [
        (True, "opponents", (54, 3, 52)),
        (True, "none", (24, 3, 22)),
        (False, "opponents", (24, 3, 22)),
    ],
)
def test_a_full_classic_deal_with_the_joker_and_a_failed_declare_scores_as_specified(
    declare: bool, award: str, scores: tuple[int, ...]
) -> None:
    """TV-NN-6: full classic deal."""
    s = lay_aside_all(new({"premium_fail_award": award}, TV6_PACK), TV6_BIDS)
    s, _ = calls(s, [(1, "declare" if declare else "pass"), (2, "pass"), (0, "pass")])
    s, events = play_tricks(s, TV6_TRICKS)
    (scored,) = of_type(events, DealScored)
    assert scored.taken == (4, 3, 2)
    assert scored.made == (True, False, True)
    assert scored.points == scores
    assert s.deal_no == 2 and s.dealer == 1  # the deal passed to the left


# -- TV-NN-7 full revised deal ---------------------------------------------------------------


def revised_deal_two(options: dict[str, object], successes: int) -> NinetyNineState:
    """A revised game at the start of deal 2 (dealt TV-NN-7's pack) after a first deal with
    exactly ``successes`` successful bids, reached by playing deal 1 with seeded random moves."""
    opts = {"edition": "revised", "first_dealer": "seat0", **options}
    for attempt in range(2000):
        rng = random.Random(attempt)
        s = R.new_game(opts, b"tv7", {"pack:2": cards(TV7_PACK)})
        while s.deal_no == 1:
            seat = R.to_act(s)[0]
            legal = R.legal_moves(s, seat)
            s, _ = R.apply(s, seat, legal[rng.randrange(len(legal))])
        assert s.last_result is not None
        if sum(bool(m) for m in s.last_result.made) == successes and not s.finished:
            return s
    raise AssertionError("no first deal with that many successes found")


TV7_BIDS = {0: "6♣ 7♣ 8♦", 1: "6♦ 8♣ 8♠", 2: "6♠ 7♠ 7♦"}
TV7_TRICKS = [
    (0, "Q♥ 6♥ 9♠", 0),
    (0, "J♥ 8♥ T♦", 0),
    (0, "T♥ 9♥ T♣", 0),
    (0, "7♥ K♥ J♣", 1),
    (1, "A♥ J♦ 9♣", 1),
    (1, "K♦ Q♦ T♠", 1),
    (1, "K♣ A♣ Q♣", 2),
    (2, "A♦ K♠ 9♦", 2),
    (2, "Q♠ A♠ J♠", 0),
]


def test_a_full_revised_deal_where_the_revealer_names_another_leader() -> None:
    """TV-NN-7: full revised deal."""
    s = revised_deal_two({}, successes=2)
    s.scores = before = [0, 0, 0]  # the vector gives no totals; none so high the game ends
    assert (s.dealer, s.trump) == (1, C.HEARTS)
    assert s.hands[0] == hand("Q♣ 9♣ 7♣ 6♣ Q♥ J♥ T♥ 7♥ A♠ K♠ T♠ 8♦")
    assert s.hands[1] == hand("K♣ 8♣ A♥ K♥ 9♥ 8♥ 6♥ J♠ 8♠ K♦ 9♦ 6♦")
    assert s.hands[2] == hand("A♣ J♣ T♣ Q♠ 9♠ 7♠ 6♠ A♦ Q♦ J♦ T♦ 7♦")
    s = lay_aside_all(s, TV7_BIDS)
    s, events = calls(s, [(2, "reveal")])
    assert [(e.seat, e.call) for e in of_type(events, Called)] == [
        (2, "reveal"),
        (0, "pass"),
        (1, "pass"),
    ]
    s, events = drive(R, s, [(2, ChooseSeat(0))])
    assert R.to_act(s) == (0,)
    assert not [e for e in of_type(events, CardsExposed) if e.what == "hand"]
    s, events = R.apply(s, 0, PlayCard(C.parse("Q♥")))
    (exposed,) = of_type(events, CardsExposed)
    assert exposed.seat == 2 and exposed.what == "hand"
    assert set(exposed.cards) == set(cards("A♣ J♣ T♣ Q♠ 9♠ A♦ Q♦ J♦ T♦"))
    for viewer in (0, 1, None):
        assert set(R.view(s, viewer).seats[2].hand or ()) == set(exposed.cards)
    # finish the first trick, then the rest
    s, _ = drive(R, s, [(1, PlayCard(C.parse("6♥"))), (2, PlayCard(C.parse("9♠")))])
    s, events = play_tricks(s, TV7_TRICKS[1:])
    (scored,) = of_type(events, DealScored)
    assert scored.taken == (4, 3, 2)
    assert scored.points == (4, 3, 92)
    assert [t - b for t, b in zip(scored.totals, before, strict=True)] == [4, 3, 92]
    assert not s.finished and s.deal_no == 3
    assert s.trump == C.SPADES  # next deal: k = 1


# -- reveal exposure timing, leader naming, flags ----------------------------------------------


def reveal_by_eldest(options: dict[str, object]) -> NinetyNineState:
    s = first_three(new(options))
    s, _ = calls(s, [(1, "reveal")])
    return s


def test_reveal_before_opening_lead_exposes_when_the_leader_is_named() -> None:
    s = reveal_by_eldest({"reveal_expose_timing": "before_opening_lead"})
    s, events = R.apply(s, 1, ChooseSeat(2))
    (exposed,) = [e for e in of_type(events, CardsExposed) if e.what == "hand"]
    assert exposed.seat == 1 and len(exposed.cards) == 9
    assert R.view(s, 0).seats[1].hand == exposed.cards


def test_reveal_at_revealer_first_card_waits_for_the_revealers_own_card() -> None:
    s = reveal_by_eldest({"reveal_expose_timing": "at_revealer_first_card"})
    s, _ = R.apply(s, 1, ChooseSeat(2))
    s, events = R.apply(s, 2, R.legal_moves(s, 2)[0])
    assert not [e for e in of_type(events, CardsExposed) if e.what == "hand"]
    s, events = R.apply(s, 0, R.legal_moves(s, 0)[0])
    assert not [e for e in of_type(events, CardsExposed) if e.what == "hand"]
    assert R.view(s, 0).seats[1].hand is None
    s, events = R.apply(s, 1, R.legal_moves(s, 1)[0])
    (exposed,) = [e for e in of_type(events, CardsExposed) if e.what == "hand"]
    assert len(exposed.cards) == 8


def test_a_revealer_may_name_itself_to_lead() -> None:
    s = reveal_by_eldest({})
    s, _ = R.apply(s, 1, ChooseSeat(1))
    assert R.to_act(s) == (1,)
    s, events = R.apply(s, 1, R.legal_moves(s, 1)[0])
    (exposed,) = [e for e in of_type(events, CardsExposed) if e.what == "hand"]
    assert len(exposed.cards) == 8  # the revealer led: 8 cards left


def test_without_revealer_names_leader_eldest_leads_after_a_reveal() -> None:
    s = first_three(new({"revealer_names_leader": False}))
    s, _ = calls(s, [(1, "pass"), (2, "reveal")])
    assert s.phase == "play" and R.to_act(s) == (1,)


def test_naming_a_seat_that_does_not_exist_is_rejected() -> None:
    s = reveal_by_eldest({})
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 1, ChooseSeat(3))
    assert err.value.reason is Reason.INVALID_SEAT_CHOICE


def test_without_premium_bids_play_starts_once_all_bid_cards_are_laid() -> None:
    s = first_three(new({"premium_bids": False}))
    assert s.phase == "play" and R.to_act(s) == (1,)
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 1, Call("declare"))
    assert err.value.reason is Reason.WRONG_PHASE


def test_show_all_bids_at_end_false_hides_failed_ordinary_bids() -> None:
    s = lay_aside_all(new({"show_all_bids_at_end": False}, TV6_PACK), TV6_BIDS)
    s, _ = calls(s, [(1, "declare"), (2, "pass"), (0, "pass")])
    s, events = play_tricks(s, TV6_TRICKS)
    (scored,) = of_type(events, DealScored)
    # P0 and P2 made their bids; P1 failed but is the premium bidder: all three shown
    assert scored.bids == (4, 4, 2)
    s2 = lay_aside_all(new({"show_all_bids_at_end": False}, TV6_PACK), TV6_BIDS)
    s2, _ = calls(s2, [(1, "pass"), (2, "pass"), (0, "pass")])
    s2, events = play_tricks(s2, TV6_TRICKS)
    (scored,) = of_type(events, DealScored)
    assert scored.bids == (4, None, 2) and scored.bid_cards[1] is None
    assert scored.made == (True, False, True)


def test_bid_cards_are_laid_aside_simultaneously_and_exactly_three() -> None:
    s = new()
    assert R.to_act(s) == (0, 1, 2)
    mine = C.cards_of(s.hands[2])
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 2, LayAside(tuple(mine[:2])))
    assert err.value.reason is Reason.WRONG_NUMBER_OF_CARDS
    theirs = C.cards_of(s.hands[0])
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 2, LayAside((mine[0], mine[1], theirs[0])))
    assert err.value.reason is Reason.CARD_NOT_IN_HAND
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 2, LayAside((mine[0], mine[0], mine[1])))
    assert err.value.reason is Reason.DUPLICATE_CARDS
    s, _ = R.apply(s, 2, LayAside(tuple(mine[:3])))
    assert R.to_act(s) == (0, 1)
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 2, LayAside(tuple(mine[3:6])))
    assert err.value.reason is Reason.NOT_YOUR_TURN
    assert len(R.legal_moves(s, 0)) == 220  # C(12, 3)


def test_playing_out_of_turn_or_during_bidding_is_rejected() -> None:
    s = new()
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 1, PlayCard(C.cards_of(s.hands[1])[0]))
    assert err.value.reason is Reason.WRONG_PHASE
    s = first_three(new({"premium_bids": False}))
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 2, PlayCard(C.cards_of(s.hands[2])[0]))
    assert err.value.reason is Reason.NOT_YOUR_TURN


# -- TV-NN-8 game end ------------------------------------------------------------------------


def test_classic_dealers_rotate_and_the_game_lasts_nine_deals() -> None:
    """TV-NN-8: game end."""
    dealers: list[int] = []
    steps = list(random_steps(R, {"first_dealer": "seat0"}, b"tv8", random.Random(8)))
    for step in steps:
        dealers.extend(e.dealer for e in step.events if isinstance(e, DealStarted))
    first = R.new_game({"first_dealer": "seat0"}, b"tv8").dealer
    assert [first, *dealers] == [0, 1, 2, 0, 1, 2, 0, 1, 2]
    assert steps[-1].after.finished and steps[-1].after.deal_no == 9


@pytest.mark.parametrize(("bonus", "totals"), [(False, (100, 63, 102)), (True, (200, 63, 202))])
def test_a_revised_game_ends_when_someone_reaches_100(bonus: bool, totals: tuple[int, ...]) -> None:
    """TV-NN-8: game end."""
    s = revised_deal_two({"game_bonus_100": bonus}, successes=2)
    s.scores = [96, 60, 10]  # scenario: the totals before TV-NN-7's deal
    s = lay_aside_all(s, TV7_BIDS)
    s, _ = calls(s, [(2, "reveal")])
    s, _ = drive(R, s, [(2, ChooseSeat(0))])
    s, events = play_tricks(s, TV7_TRICKS)
    (over,) = of_type(events, GameOver)
    assert over.totals == totals and over.winners == (2,)
    assert s.finished and R.to_act(s) == () and R.legal_moves(s, 0) == []
    with pytest.raises(IllegalMove) as err:
        R.apply(s, 0, PlayCard(C.parse("A♠")))
    assert err.value.reason is Reason.GAME_OVER


@pytest.mark.parametrize(("tie_rule", "winners"), [("draw", (0, 1)), ("extra_deal", None)])
def test_a_tie_for_first_is_shared_or_played_off_by_the_tie_rule(
    tie_rule: str, winners: tuple[int, ...] | None
) -> None:
    """TV-NN-8: game end."""
    o = R.options({"edition": "revised", "tie_rule": tie_rule})
    points, made = R.deal_points([3, 5, 0], [3, 5, 1], None, None)
    assert points == [23, 25, 1] and sum(made) == 2
    totals = [a + b for a, b in zip([80, 78, 20], points, strict=True)]
    assert totals == [103, 103, 21]
    assert R.game_winners(totals, 5, o) == winners


def test_extra_deals_are_played_until_one_seat_leads() -> None:
    rng = random.Random(3)
    for game in range(25):
        opts = {"game_length_deals": 3, "tie_rule": "extra_deal"}
        *_, last = random_steps(R, opts, bytes([game]), rng)
        outcome = R.outcome(last.after)
        assert outcome is not None and len(outcome.winners) == 1
        assert last.after.deal_no >= 3


def test_a_fixed_length_game_can_be_set_by_option() -> None:
    *_, last = random_steps(R, {"game_length_deals": 3}, b"len", random.Random(1))
    assert last.after.deal_no == 3


def test_a_classic_game_may_end_on_target_score_instead() -> None:
    *_, last = random_steps(
        R, {"game_end": "target_score", "target_score": 60}, b"t", random.Random(2)
    )
    assert max(last.after.scores) >= 60
    assert max(last.before.scores) < 60 or last.before.deal_no == last.after.deal_no


# -- options -------------------------------------------------------------------------------


def test_the_edition_sets_the_default_game_end_and_explicit_values_win() -> None:
    assert R.options({}).game_end == "fixed_deals"
    assert R.options({"edition": "revised"}).game_end == "target_score"
    assert R.options({"edition": "revised", "game_end": "fixed_deals"}).game_end == "fixed_deals"


@pytest.mark.parametrize(
    ("given", "reason", "named"),
    [
        ({"edtion": "classic"}, Reason.UNKNOWN_OPTION, "edtion"),
        ({"edition": "modern"}, Reason.INVALID_OPTION_VALUE, "edition"),
        ({"target_score": "lots"}, Reason.INVALID_OPTION_VALUE, "target_score"),
        ({"game_length_deals": 0}, Reason.INVALID_OPTION_VALUE, "game_length_deals"),
        ({"premium_bids": "maybe"}, Reason.INVALID_OPTION_VALUE, "premium_bids"),
    ],
)
def test_bad_options_are_rejected_by_name(
    given: dict[str, object], reason: Reason, named: str
) -> None:
    with pytest.raises(InvalidOptions) as err:
        R.options(given)
    assert err.value.reason is reason and named in err.value.message


def test_option_values_may_come_as_strings() -> None:
    o = R.options({"premium_bids": "false", "target_score": "150", "edition": "revised"})
    assert o.premium_bids is False and o.target_score == 150


def test_every_spec_flag_is_an_option_with_the_spec_default() -> None:
    specs = {s.name: s.default for s in R.game_type().options}
    assert specs == {
        "edition": "classic",
        "first_deal_trump": "none",
        "game_end": "fixed_deals",
        "game_length_deals": 9,
        "target_score": 100,
        "premium_bids": True,
        "premium_fail_award": "opponents",
        "reveal_expose_timing": "after_opening_lead",
        "revealer_names_leader": True,
        "show_all_bids_at_end": True,
        "game_bonus_100": False,
        "tie_rule": "draw",
        "first_dealer": "random",
    }


def test_a_random_first_dealer_comes_from_the_seed() -> None:
    dealers = {R.new_game({}, bytes([i])).dealer for i in range(30)}
    assert dealers == {0, 1, 2}
    assert R.new_game({}, b"same").dealer == R.new_game({}, b"same").dealer


# -- information visibility (§11): an independent oracle -------------------------------------


def _played_this_deal(s: NinetyNineState) -> list[tuple[int, int]]:
    """(seat, card) for every card played in the current deal, from the trick record."""
    out = []
    for h in s.history:
        leader, cards_ = h[0], h[2:]
        out += [((leader + i) % 3, c) for i, c in enumerate(cards_)]
    out += [((s.leader + i) % 3, c) for i, c in enumerate(s.trick)]
    return out


def _revealer_hand_public(s: NinetyNineState) -> bool:
    if s.premium != "reveal" or s.phase not in ("play", "over"):
        return False
    timing = s.options.reveal_expose_timing
    played = _played_this_deal(s)
    if timing == "before_opening_lead":
        return True
    if timing == "after_opening_lead":
        return bool(played)
    return any(seat == s.premium_seat for seat, _ in played)


def _may_see(s: NinetyNineState, viewer: int | None) -> set[int]:
    """What the rules let ``viewer`` see of the current deal."""
    ok = {c for _, c in _played_this_deal(s)}
    if s.turn_up is not None:
        ok.add(s.turn_up)
    if viewer is not None:
        ok |= set(C.cards_of(s.hands[viewer] | s.aside[viewer]))
    if s.premium_seat is not None and s.phase in ("name_leader", "play", "over"):
        ok |= set(C.cards_of(s.aside[s.premium_seat]))
    if _revealer_hand_public(s):
        assert s.premium_seat is not None
        ok |= set(C.cards_of(s.hands[s.premium_seat]))
    return ok


def _public_bid_cards(scored: DealScored, show_all: bool) -> None:
    for seat, shown in enumerate(scored.bid_cards):
        must_show = show_all or scored.made[seat] or seat == scored.premium_seat
        assert (shown is not None) == must_show, f"seat {seat} bid cards shown={shown}"


def check_visibility(step: Any) -> None:
    s = step.after
    show_all = s.options.show_all_bids_at_end
    for viewer in (0, 1, 2, None):
        view = R.view(s, viewer)
        last = view.detail.last_deal
        if last is not None:
            _public_bid_cards(last, show_all)
        seen = cards_in(view) - (cards_in(last) if last is not None else set())
        assert seen <= _may_see(s, viewer), f"viewer {viewer} sees {seen - _may_see(s, viewer)}"
        if viewer is not None:
            assert set(view.seats[viewer].hand or ()) == set(C.cards_of(s.hands[viewer]))
        for e in step.events:
            p = R.project(e, viewer)
            if isinstance(p, DealStarted):
                for seat, h in enumerate(p.hands):
                    assert (h is not None) == (seat == viewer)
            elif isinstance(p, CardsLaidAside):
                assert (p.cards is not None) == (p.seat == viewer)
            elif isinstance(p, CardsExposed):
                assert p.seat == s.premium_seat
                if p.what == "hand":
                    assert _revealer_hand_public(s) or s.deal_no > step.before.deal_no
            elif isinstance(p, DealScored):
                _public_bid_cards(p, show_all)
            else:  # played cards (and the turn-up the Joker stands for) are public
                public = {c for _, c in _played_this_deal(step.before)} | cards_in(step.move)
                public |= {step.before.turn_up}
                assert cards_in(p) <= public, f"{p.kind} shows {cards_in(p) - public}"


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    edition=st.sampled_from(["classic", "revised"]),
    timing=st.sampled_from(["after_opening_lead", "before_opening_lead", "at_revealer_first_card"]),
    names_leader=st.booleans(),
    show_all=st.booleans(),
    seed=st.binary(min_size=1, max_size=8),
    bot=st.integers(0, 10**6),
)
def test_no_viewer_ever_sees_a_card_the_rules_hide(
    edition: str, timing: str, names_leader: bool, show_all: bool, seed: bytes, bot: int
) -> None:
    options = {
        "edition": edition,
        "reveal_expose_timing": timing,
        "revealer_names_leader": names_leader,
        "show_all_bids_at_end": show_all,
        "game_length_deals": 2,
        "target_score": 40,
    }
    for step in random_steps(R, options, seed, random.Random(bot)):
        check_visibility(step)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    edition=st.sampled_from(["classic", "revised"]),
    premium_bids=st.booleans(),
    award=st.sampled_from(["opponents", "none"]),
    seed=st.binary(min_size=1, max_size=8),
    bot=st.integers(0, 10**6),
)
def test_invariants_hold_through_random_games(
    edition: str, premium_bids: bool, award: str, seed: bytes, bot: int
) -> None:
    options = {
        "edition": edition,
        "premium_bids": premium_bids,
        "premium_fail_award": award,
        "game_length_deals": 3,
        "target_score": 60,
    }
    pack_size = 37 if edition == "classic" else 36
    totals = [0, 0, 0]
    deals = 0
    for step in random_steps(R, options, seed, random.Random(bot)):
        s = step.after
        for e in of_type(step.events, DealScored):
            deals += 1
            assert sum(e.taken) == 9  # nine tricks a deal
            assert all(p >= 0 for p in e.points)  # a missed bid costs nothing
            totals = [t + p for t, p in zip(totals, e.points, strict=True)]
            assert list(e.totals) == totals
        if s.finished:
            break
        # every card is somewhere, exactly once: hands, bid cards, played, turn-up
        held = [*C.cards_of(s.hands[0]), *C.cards_of(s.hands[1]), *C.cards_of(s.hands[2])]
        held += [c for a in s.aside for c in C.cards_of(a)]
        held += [c for _, c in _played_this_deal(s)]
        if s.turn_up is not None:
            held.append(s.turn_up)
        assert len(held) == len(set(held)) == pack_size
        assert s.turn_up is None or not any(h >> s.turn_up & 1 for h in s.hands)
    over = of_type(step.events, GameOver)
    assert over and deals >= 1
    assert list(over[0].totals) == totals  # no bonus option here: totals are final
