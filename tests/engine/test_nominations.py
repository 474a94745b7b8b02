"""Nominations: every test vector of shared/rules/nominations.md, and each rule and flag.

Random-playout properties (invariants, the gate, determinism, projections and the secret
partner) are in ``test_nominations_properties.py``.
"""

from __future__ import annotations

from typing import Any, cast

import pytest

from engine import get_rules
from engine.core import cards as C
from engine.core.errors import IllegalMove, InvalidOptions, Reason
from engine.core.events import (
    AllPassed,
    AuctionWon,
    CardPlayed,
    CardsExposed,
    ContractDeclared,
    DealScored,
    DealStarted,
    Event,
    GameOver,
    NominationsDealResult,
    PackCut,
    PartnerNotice,
    PartnerRevealed,
    TrickWon,
)
from engine.core.moves import Bid, Call, Cut, DeclareContract, LayAside, Move, PlayCard
from engine.games.nominations import (
    Nominations,
    NominationsState,
    bid_label,
    cut,
    deal_cards,
    deal_points,
    ladder,
    stacked_pack,
)
from tests.engine.helpers import cards, drive, of_type

R: Nominations = get_rules("nominations")  # type: ignore[assignment]

S0, S1, S2, S3 = 0, 1, 2, 3
PASS = Call("pass")
MISERE = Bid("misere")
OPEN = Bid("open_misere")
SUITS = {"S": C.SPADES, "H": C.HEARTS, "D": C.DIAMONDS, "C": C.CLUBS}


def bid(n: int) -> Bid:
    return Bid("tricks", n)


def declare(trump: str | None, called: str) -> DeclareContract:
    return DeclareContract(None if trump is None else SUITS[trump], C.parse(called))


def spec_hand(text: str) -> list[int]:
    """The spec's ``S:KQJT9 H:AKQ D:AK C:AKQ`` notation (``-`` = void) → cards."""
    out: list[int] = []
    for part in text.split():
        suit, ranks = part.split(":")
        if ranks != "-":
            out.extend(C.parse(r + suit) for r in ranks)
    return out


def pack_for(hands: dict[int, str], dealer: int = S0) -> list[int]:
    """A pack that deals ``hands`` (spec notation, by seat) with the default 3-3-3-4 batches."""
    left = {seat: spec_hand(text) for seat, text in hands.items()}
    pack: list[int] = []
    for size in (3, 3, 3, 4):
        for k in range(1, 5):
            seat = (dealer + k) % 4
            pack.extend(left[seat][:size])
            left[seat] = left[seat][size:]
    return pack


def new(
    options: dict[str, object] | None = None,
    hands: dict[int, str] | None = None,
    overrides: dict[str, list[int]] | None = None,
) -> NominationsState:
    """A game dealt by s0 (the vectors' dealer), from ``hands`` if given."""
    ov: dict[str, list[int]] = {"first_dealer": [S0], **(overrides or {})}
    if hands is not None:
        ov["pack:1"] = pack_for(hands)
    return R.new_game(options, b"nominations", ov)


def run(
    state: NominationsState, script: list[tuple[int, Move]]
) -> tuple[NominationsState, list[Event]]:
    after, events = drive(R, state, script)
    assert isinstance(after, NominationsState)
    return after, events


def rejected(state: NominationsState, seat: int, move: Move, reason: Reason) -> None:
    """The move is refused with ``reason`` and the state is left as it was."""
    before = R.snapshot(state)
    with pytest.raises(IllegalMove) as err:
        R.apply(state, seat, move)
    assert err.value.reason == reason, err.value
    assert R.snapshot(state) == before


def play_tricks(state: NominationsState, rows: list[str]) -> tuple[NominationsState, list[Event]]:
    """Play tricks written ``"s2 QC, s3 JC, s0 8C, s1 5C"`` (leader first)."""
    events: list[Event] = []
    for row in rows:
        for item in row.split(","):
            seat_text, card_text = item.split()
            state, step = R.apply(state, int(seat_text[1]), PlayCard(C.parse(card_text)))
            events.extend(step)
    return state, events


def play_first_legal(state: NominationsState) -> tuple[NominationsState, list[Event]]:
    """Play the current deal out, each seat playing its first legal card."""
    events: list[Event] = []
    deal_no = state.deal_no
    while state.deal_no == deal_no and not state.finished:
        seat = R.to_act(state)[0]
        state, step = R.apply(state, seat, R.legal_moves(state, seat)[0])
        events.extend(step)
    return state, events


def scored(events: list[Event]) -> DealScored:
    (result,) = of_type(events, DealScored)
    assert isinstance(result, DealScored)
    return result


# -- TV-NOM-1 auctions -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("calls", "declarer", "contract"),
    [
        ([PASS, bid(10), PASS, bid(11), PASS, bid(12), PASS, PASS, PASS], S2, "12"),
        ([PASS, PASS, PASS, bid(10), bid(11), PASS, PASS, PASS], S1, "11"),
        ([bid(13), MISERE, PASS, OPEN], S0, "open_misere"),
        ([bid(10), PASS, PASS, PASS], S1, "10"),
    ],
    ids=["1-ladder", "2-bid-after-passing", "3-open-misere-ends-at-once", "7-single-bid"],
)
def test_auctions_end_with_the_highest_bidder(
    calls: list[Move], declarer: int, contract: str
) -> None:
    """TV-NOM-1: auctions."""
    state = new()
    seats = [(S1 + i) % 4 for i in range(len(calls))]
    state, events = run(state, list(zip(seats, calls, strict=True)))
    (won,) = of_type(events, AuctionWon)
    assert won.declarer == declarer
    detail = R.view(state, None).detail
    assert detail.declarer == declarer and detail.contract == contract
    assert detail.auction == tuple(bid_label(c) if isinstance(c, Bid) else "pass" for c in calls)
    assert detail.high_bid == contract and detail.high_bidder == declarer
    numeric = contract.isdigit()
    assert state.phase == ("declare" if numeric else "play")
    assert R.to_act(state) == (declarer,)


def test_four_passes_give_a_double_hand() -> None:
    """TV-NOM-1 #4: auctions."""
    state, events = run(new(), [(S1, PASS), (S2, PASS), (S3, PASS), (S0, PASS)])
    (passed,) = of_type(events, AllPassed)
    assert (passed.next_deal, passed.multiplier, passed.dealer) == ("double_hand", 2, S0)
    assert state.dealer == S0 and state.deal_no == 2 and state.phase == "auction"
    assert R.view(state, None).detail.double_hand


@pytest.mark.parametrize("second", [10, 11])
def test_a_bid_must_beat_the_highest_bid(second: int) -> None:
    """TV-NOM-1 #5: auctions."""
    state, _ = run(new(), [(S1, bid(11))])
    rejected(state, S2, bid(second), Reason.BID_TOO_LOW)


def test_a_bid_below_min_bid_is_illegal() -> None:
    """TV-NOM-1 #6: auctions."""
    rejected(new(), S1, bid(9), Reason.BID_TOO_LOW)


def test_misere_ranks_between_10_and_11_with_min_bid_7() -> None:
    """TV-NOM-1 #8: auctions."""
    opts = {"min_bid": 7, "misere_rank": "between_10_and_11"}
    state, _ = run(new(opts), [(S1, bid(7)), (S2, bid(10)), (S3, MISERE)])
    rejected(state, S0, bid(10), Reason.BID_TOO_LOW)
    state, events = run(state, [(S0, bid(11)), (S1, PASS), (S2, PASS), (S3, PASS)])
    (won,) = of_type(events, AuctionWon)
    assert (won.declarer, won.contract, won.tricks) == (S0, "tricks", 11)


def test_a_forced_dealer_may_not_pass() -> None:
    """TV-NOM-1 #9: auctions."""
    opts: dict[str, object] = {"all_pass": "dealer_forced"}
    state, _ = run(new(opts), [(S1, PASS), (S2, PASS), (S3, PASS)])
    rejected(state, S0, PASS, Reason.MUST_BID)
    legal = R.legal_moves(state, S0)
    assert PASS not in legal
    assert [bid_label(m) for m in legal if isinstance(m, Bid)] == [
        "10",
        "11",
        "12",
        "13",
        "misere",
        "open_misere",
    ]
    state, events = run(state, [(S0, bid(10)), (S1, PASS), (S2, PASS), (S3, PASS)])
    assert of_type(events, AuctionWon)[0].declarer == S0


# -- TV-NOM-2 deal mapping ---------------------------------------------------------------------

TV2_PACK = (
    "6S AS 7S 2H JC QS 5S QD 4S 9C 5D 9H 2D 9S 4C JD JS KD 5C 3C KS QC 8S TH 8D 7H 2C KH "
    "4H 3H AC 4D TS 6H TC 6C AH 7D 8C 5H 9D KC QH 6D JH AD 2S 8H 3D 7C 3S TD"
)
TV2_HANDS = {
    S0: "S:83 H:T96 D:T53 C:QT976",
    S1: "S:A976 H:A75 D:872 C:842",
    S2: "S:QJ H:KQ432 D:KJ96 C:KJ",
    S3: "S:KT542 H:J8 D:AQ4 C:A53",
}


def test_the_3_3_3_4_deal_gives_each_seat_the_specs_cards() -> None:
    """TV-NOM-2: deal mapping."""
    state = new(overrides={"pack:1": cards(TV2_PACK)})
    for seat, text in TV2_HANDS.items():
        assert state.hands[seat] == C.mask_of(spec_hand(text)), seat
    first_round = deal_cards(cards(TV2_PACK)[:12] + [0] * 40, "3-3-3-4", S0)
    assert set(cards("6S AS 7S")) <= set(first_round[S1])
    assert set(cards("9C 5D 9H")) <= set(first_round[S0])
    (dealt,) = R.opening_events(state)
    assert isinstance(dealt, DealStarted)
    for seat in range(4):
        mine = dealt.visible_to(seat)
        assert isinstance(mine, DealStarted)
        assert [h is not None for h in mine.hands] == [s == seat for s in range(4)]


# -- TV-NOM-3 double-hand redeal ---------------------------------------------------------------

TV3_STACKED = (
    "TH 9H 6H QC TC 9C 7C 6C TD 5D 3D 8S 3S JH 8H AC 5C 3C AD QD 4D KS TS 5S 4S 2S KH QH 4H "
    "3H 2H KC JC KD JD 9D 6D QS JS AH 7H 5H 8C 4C 2C 8D 7D 2D AS 9S 7S 6S"
)
TV3_CUT = (
    "4D KS TS 5S 4S 2S KH QH 4H 3H 2H KC JC KD JD 9D 6D QS JS AH 7H 5H 8C 4C 2C 8D 7D 2D AS "
    "9S 7S 6S TH 9H 6H QC TC 9C 7C 6C TD 5D 3D 8S 3S JH 8H AC 5C 3C AD QD"
)
TV3_HANDS = {
    S0: "S:- H:96532 D:AQ C:KQ8543",
    S1: "S:KT H:- D:KJ874 C:JT9762",
    S2: "S:AQ98542 H:- D:T96532 C:-",
    S3: "S:J763 H:AKQJT874 D:- C:A",
}
ALL_PASS: list[tuple[int, Move]] = [(S1, PASS), (S2, PASS), (S3, PASS), (S0, PASS)]


def test_double_hand_packets_are_stacked_dealer_on_top_then_cut() -> None:
    """TV-NOM-3: double-hand redeal."""
    hands = [C.mask_of(spec_hand(TV2_HANDS[s])) for s in range(4)]
    stacked = stacked_pack(hands, S0)
    assert stacked == cards(TV3_STACKED)
    assert cut(stacked, 20) == cards(TV3_CUT)
    assert cut(stacked, 20)[0] == C.parse("4D")


def test_a_double_hand_is_dealt_again_without_a_shuffle() -> None:
    """TV-NOM-3: double-hand redeal."""
    state = new(overrides={"pack:1": cards(TV2_PACK), "cut:2": [20]})
    state, events = run(state, ALL_PASS)
    (cut_event,) = of_type(events, PackCut)
    assert cut_event.seat == S3  # the dealer's right cuts
    for seat, text in TV3_HANDS.items():
        assert state.hands[seat] == C.mask_of(spec_hand(text)), seat
    assert state.multiplier == 2 and state.dealer == S0
    assert R.view(state, S2).detail.multiplier == 2


def test_double_hand_scores_are_doubled() -> None:
    """TV-NOM-3: double-hand redeal."""
    state = new(overrides={"pack:1": cards(TV2_PACK), "cut:2": [20]})
    state, _ = run(state, ALL_PASS)
    # s1 (void in hearts) bids misère in the double hand; play it out however it goes
    state, _ = run(state, [(S1, MISERE), (S2, PASS), (S3, PASS), (S0, PASS)])
    state, events = play_first_legal(state)
    result = scored(events)
    if result.taken[S1] == 0:
        assert result.points == (0, 26, 0, 0)
    else:
        assert result.points == (26, 0, 26, 26)
    # the deal was played, so the next one is normal again and the deal passes left
    assert state.multiplier == 1 and state.dealer == S1


# -- TV-NOM-4 legal plays and trick winners ----------------------------------------------------

TV5_HANDS = {
    S1: "S:A H:5432 D:5432 C:5432",
    S2: "S:KQJT9 H:AKQ D:AK C:AKQ",
    S3: "S:8765 H:JT9 D:QJT C:JT9",
    S0: "S:432 H:876 D:9876 C:876",
}
TV5_AUCTION: list[tuple[int, Move]] = [
    (S1, PASS),
    (S2, bid(11)),
    (S3, PASS),
    (S0, PASS),
    (S1, PASS),
]


def in_play(
    trump: str | None,
    options: dict[str, object] | None = None,
    contract: str = "tricks",
) -> NominationsState:
    """A numeric (or misère) contract in play, from the TV-NOM-5 hands, for positions."""
    state = new(options, TV5_HANDS)
    if contract == "misere":
        state, _ = run(state, [(S1, MISERE), (S2, PASS), (S3, PASS), (S0, PASS)])
    else:
        state, _ = run(state, [*TV5_AUCTION, (S2, declare(trump, "QD"))])
    return state


def position(state: NominationsState, led: list[str], holding: str) -> NominationsState:
    """The player after the cards ``led`` holds exactly ``holding`` (a crafted position)."""
    s = state.clone()
    s.trick = cards(" ".join(led))
    s.leader = S2
    s.turn = (S2 + len(led)) % 4
    s.hands = list(s.hands)
    s.hands[s.turn] = C.mask_of(cards(holding))
    return s


@pytest.mark.parametrize(
    ("contract", "led", "holding", "legal"),
    [
        ("S", "5H", "2S AD KC", ("2S", "2S AD KC")),
        ("S", "5H", "3H AS KD", ("3H", "3H")),
        ("NT", "5H", "2S AD", ("2S AD", "2S AD")),
        ("S", "7S", "AH KD", ("AH KD", "AH KD")),
        ("misere", "4D", "AC 2S", ("AC 2S", "AC 2S")),
    ],
)
def test_follow_suit_else_trump_when_void_decides_the_legal_plays(
    contract: str, led: str, holding: str, legal: tuple[str, str]
) -> None:
    """TV-NOM-4: ``legal``: with ``must_trump_when_void`` on, then off."""
    for flag, expected in zip((True, False), legal, strict=True):
        options: dict[str, object] = {"must_trump_when_void": flag}
        if contract == "misere":
            base = in_play(None, options, "misere")
        else:
            base = in_play(None if contract == "NT" else contract, options)
        s = position(base, [led], holding)
        playable = {m.card for m in R.legal_moves(s, s.turn) if isinstance(m, PlayCard)}
        assert playable == set(cards(expected)), (flag, playable)


@pytest.mark.parametrize(
    ("trump", "trick", "winning"),
    [
        ("S", "5H KH 2S AH", "2S"),
        (None, "4D QD AC 7D", "QD"),
        ("S", "5H 2S 9S AH", "9S"),
        ("D", "2C AH AS 3C", "3C"),
    ],
)
def test_the_highest_trump_or_else_the_highest_of_the_suit_led_wins_the_trick(
    trump: str | None, trick: str, winning: str
) -> None:
    """TV-NOM-4: trick winners."""
    played = cards(trick)
    s = position(
        in_play(trump, {"must_trump_when_void": False}),
        [C.name(c) for c in played[:3]],
        C.name(played[3]),
    )
    s, events = R.apply(s, s.turn, PlayCard(played[3]))
    (won,) = of_type(events, TrickWon)
    assert won.winner == (S2 + played.index(C.parse(winning))) % 4


def test_a_void_player_holding_a_trump_is_told_he_must_trump() -> None:
    s = position(in_play("S"), ["5H"], "2S AD KC")
    rejected(s, s.turn, PlayCard(C.parse("AD")), Reason.MUST_TRUMP)
    s = position(in_play("S"), ["5H"], "3H AS KD")
    rejected(s, s.turn, PlayCard(C.parse("AS")), Reason.MUST_FOLLOW_SUIT)


# -- TV-NOM-5 full numeric deal ----------------------------------------------------------------

TV5_TRICKS = [
    "s2 QC, s3 JC, s0 8C, s1 5C",
    "s2 KC, s3 TC, s0 7C, s1 4C",
    "s2 AC, s3 9C, s0 6C, s1 3C",
    "s2 KD, s3 QD, s0 9D, s1 5D",
    "s2 AD, s3 JD, s0 8D, s1 4D",
    "s2 QH, s3 JH, s0 8H, s1 5H",
    "s2 KH, s3 TH, s0 7H, s1 4H",
    "s2 AH, s3 9H, s0 6H, s1 3H",
    "s2 9S, s3 8S, s0 4S, s1 AS",
    "s1 2C, s2 KS, s3 7S, s0 3S",
    "s2 TS, s3 6S, s0 2S, s1 2H",
    "s2 JS, s3 5S, s0 7D, s1 3D",
    "s2 QS, s3 TD, s0 6D, s1 2D",
]


def tv5(
    options: dict[str, object] | None = None,
    bid_n: int = 11,
    called: str = "QD",
    overrides: dict[str, list[int]] | None = None,
) -> NominationsState:
    auction: list[tuple[int, Move]] = [
        (S1, PASS),
        (S2, bid(bid_n)),
        (S3, PASS),
        (S0, PASS),
        (S1, PASS),
    ]
    game = new(options, TV5_HANDS, overrides)
    state, _ = run(game, [*auction, (S2, declare("S", called))])
    return state


def test_a_secret_partner_contract_is_made_and_paid_to_both() -> None:
    """TV-NOM-5: full numeric deal."""
    state = new(None, TV5_HANDS)
    state, _ = run(state, TV5_AUCTION)
    assert R.to_act(state) == (S2,)
    state, events = R.apply(state, S2, declare("S", "QD"))
    (announced,) = of_type(events, ContractDeclared)
    assert (announced.trump, announced.called) == (C.SPADES, C.parse("QD"))
    (notice,) = of_type(events, PartnerNotice)
    assert [notice.visible_to(v).holder for v in (S0, S1, S2, S3, None)] == [
        None,
        None,
        None,
        S3,
        None,
    ]
    assert R.to_act(state) == (S2,)  # the declarer leads
    state, events = play_tricks(state, TV5_TRICKS)
    reveals = of_type(events, PartnerRevealed)
    assert [(r.declarer, r.partner) for r in reveals] == [(S2, S3)]
    at = events.index(reveals[0])
    assert events[at - 1] == CardPlayed(seat=S3, card=C.parse("QD"))
    result = scored(events)
    assert result.taken == (0, 1, 12, 0)
    assert result.made == (None, None, True, True)
    assert result.points == (0, 0, 11, 11)
    assert state.scores == [0, 0, 11, 11]


def test_players_void_in_the_suit_led_must_trump() -> None:
    """TV-NOM-5 (trick 10): full numeric deal."""
    state, _ = play_tricks(tv5(), TV5_TRICKS[:9])
    state, _ = play_tricks(state, ["s1 2C, s2 KS"])
    rejected(state, S3, PlayCard(C.parse("TD")), Reason.MUST_TRUMP)
    state, _ = play_tricks(state, ["s3 7S"])
    for c in ("7D", "6D"):
        rejected(state, S0, PlayCard(C.parse(c)), Reason.MUST_TRUMP)


def test_without_must_trump_a_void_player_may_discard() -> None:
    """TV-NOM-5: full numeric deal."""
    state, _ = play_tricks(tv5({"must_trump_when_void": False}), TV5_TRICKS[:9])
    state, _ = play_tricks(state, ["s1 2C, s2 KS"])
    assert PlayCard(C.parse("TD")) in R.legal_moves(state, S3)


def test_opponents_also_score_their_own_tricks_with_opponent_trick_points() -> None:
    """TV-NOM-5: full numeric deal."""
    _, events = play_tricks(tv5({"opponent_trick_points": True}), TV5_TRICKS)
    assert scored(events).points == (0, 1, 11, 11)


def test_a_bid_of_13_fails_once_the_side_loses_a_trick() -> None:
    """TV-NOM-5: full numeric deal."""
    state = tv5(bid_n=13, called="JH")
    state, events = play_tricks(state, TV5_TRICKS[:5])
    assert not of_type(events, PartnerRevealed)
    state, events = play_tricks(state, TV5_TRICKS[5:6])
    assert [r.partner for r in of_type(events, PartnerRevealed)] == [S3]
    _, events = play_tricks(state, TV5_TRICKS[6:])
    assert scored(events).points == (13, 13, 0, 0)


def test_a_bid_of_13_is_worth_26_with_bid13_points() -> None:
    """TV-NOM-5: full numeric deal."""
    _, events = play_tricks(tv5({"bid13_points": 26}, bid_n=13, called="JH"), TV5_TRICKS)
    assert scored(events).points == (26, 26, 0, 0)


@pytest.mark.parametrize(("bid13", "points"), [(13, 26), (26, 52)])
def test_a_failed_bid_of_13_in_a_double_hand_pays_the_opponents_double(
    bid13: int, points: int
) -> None:
    """TV-NOM-5: full numeric deal."""
    assert deal_points(bid13, False, S2, S3, [0, 1, 12, 0], multiplier=2) == [points, points, 0, 0]


def test_calling_his_own_card_is_a_secret_solo() -> None:
    """TV-NOM-5: full numeric deal."""
    state = tv5(called="KS")
    assert R.view(state, S2).detail.partner_status == "you_hold_called_card"
    state, events = play_tricks(state, TV5_TRICKS[:9])
    assert not of_type(events, PartnerRevealed)
    state, events = play_tricks(state, TV5_TRICKS[9:10])
    assert [(r.declarer, r.partner) for r in of_type(events, PartnerRevealed)] == [(S2, None)]
    assert R.view(state, S0).detail.partner_status == "solo"
    _, events = play_tricks(state, TV5_TRICKS[10:])
    result = scored(events)
    assert result.points == (0, 0, 11, 0)
    assert result.made == (None, None, True, None)


def test_a_trump_may_be_called() -> None:
    state = tv5(called="8S")  # s3's trump
    assert R.view(state, S3).detail.partner_status == "you_are_partner"


# -- TV-NOM-6 misère and open misère stopped early ---------------------------------------------

TV6_TRICKS = ["s1 2H, s2 AH, s3 9H, s0 6H", "s2 9S, s3 5S, s0 2S, s1 AS"]


def tv6(options: dict[str, object] | None = None, contract: Bid = MISERE) -> NominationsState:
    calls: list[tuple[int, Move]] = [(S1, contract)]
    if contract == MISERE:
        calls += [(S2, PASS), (S3, PASS), (S0, PASS)]
    state, events = run(new(options, TV5_HANDS), calls)
    (won,) = of_type(events, AuctionWon)
    assert won.declarer == S1
    return state


def test_misere_stops_when_the_declarer_takes_a_trick() -> None:
    """TV-NOM-6: misère and open misère stopped early."""
    state = tv6()
    assert state.trump is None and R.view(state, None).detail.called is None
    assert R.to_act(state) == (S1,)  # the declarer leads
    state, events = play_tricks(state, TV6_TRICKS[:1])
    assert not of_type(events, DealScored)
    state, events = play_tricks(state, TV6_TRICKS[1:])
    assert len(of_type(events, TrickWon)) == 1
    result = scored(events)
    assert result.taken == (0, 1, 1, 0)
    assert result.points == (13, 0, 13, 13)
    # the remaining cards are shown when a deal ends early
    shown = {e.seat: set(e.cards) for e in of_type(events, CardsExposed)}
    assert shown[S1] == set(spec_hand("S:- H:543 D:5432 C:5432"))
    assert len(shown) == 4 and all(len(v) == 11 for v in shown.values())
    assert state.deal_no == 2 and state.dealer == S1


@pytest.mark.parametrize(
    ("options", "points"),
    [
        ({"misere_rank": "between_10_and_11"}, (10, 0, 10, 10)),
        ({"opponent_trick_points": True}, (13, 0, 14, 13)),
    ],
    ids=["misere-worth-10", "opponent-trick-points"],
)
def test_a_failed_misere_pays_each_opponent_its_value(
    options: dict[str, object], points: tuple[int, ...]
) -> None:
    """TV-NOM-6: misère and open misère stopped early."""
    _, events = play_tricks(tv6(options), TV6_TRICKS)
    assert scored(events).points == points


def test_a_failed_misere_in_a_double_hand_pays_double() -> None:
    """TV-NOM-6: misère and open misère stopped early."""
    state = tv6()
    state.multiplier = 2  # the same deal, as the redeal after four passes
    _, events = play_tricks(state, TV6_TRICKS)
    assert scored(events).points == (26, 0, 26, 26)


def test_the_open_misere_hand_is_shown_after_trick_1() -> None:
    """TV-NOM-6: misère and open misère stopped early."""
    state = tv6(contract=OPEN)  # the top bid ends the auction at once
    assert R.view(state, S0).seats[S1].hand is None
    state, events = play_tricks(state, TV6_TRICKS[:1])
    (exposed,) = of_type(events, CardsExposed)
    assert exposed.seat == S1
    assert set(exposed.cards) == set(spec_hand("S:A H:543 D:5432 C:5432"))
    for viewer in (S0, S2, S3, None):
        assert set(R.view(state, viewer).seats[S1].hand or ()) == set(exposed.cards)
    state, _ = play_tricks(state, ["s2 9S, s3 5S, s0 2S"])
    state, events = R.apply(state, S1, PlayCard(C.parse("AS")))
    assert state.finished is False and state.deal_no == 2  # the deal stopped at once
    assert scored(events).points == (26, 0, 26, 26)


def test_open_misere_expose_before_first_lead() -> None:
    state, events = drive(
        R, new({"open_misere_expose": "before_first_lead"}, TV5_HANDS), [(S1, OPEN)]
    )
    (exposed,) = of_type(events, CardsExposed)
    assert set(exposed.cards) == set(spec_hand(TV5_HANDS[S1]))
    assert R.view(state, S3).seats[S1].hand is not None


def test_open_misere_declarer_winning_trick_1_ends_the_deal_without_exposure() -> None:
    state = tv6(contract=OPEN)
    _, events = play_tricks(state, ["s1 AS, s2 9S, s3 8S, s0 4S"])
    assert not [e for e in of_type(events, CardsExposed) if e.what == "hand"]
    assert scored(events).points == (26, 0, 26, 26)


# s1 holds the lowest cards of every suit: following or discarding, he never wins a trick.
LOW_HANDS = {
    S1: "S:5432 H:432 D:432 C:432",
    S2: "S:AKQ H:AKQ D:AKQ C:AKQJ",
    S3: "S:JT9 H:JT9 D:JT9 C:T987",
    S0: "S:876 H:8765 D:8765 C:65",
}


@pytest.mark.parametrize(
    ("options", "opponents_score_tricks"),
    [({}, False), ({"opponent_trick_points": True}, True)],
)
def test_made_misere_plays_all_13_tricks(
    options: dict[str, object], opponents_score_tricks: bool
) -> None:
    state, _ = run(new(options, LOW_HANDS), [(S1, MISERE), (S2, PASS), (S3, PASS), (S0, PASS)])
    state, events = play_first_legal(state)
    result = scored(events)
    assert len(of_type(events, TrickWon)) == 13 and result.taken[S1] == 0
    assert result.made == (None, True, None, None)
    expected = [0, 13, 0, 0]
    if opponents_score_tricks:  # "whatever the result": 13 tricks between the three of them
        for seat in (S0, S2, S3):
            expected[seat] += result.taken[seat]
    assert list(result.points) == expected


# -- TV-NOM-7 game end -------------------------------------------------------------------------

# s2 is weak and calls a card of the weak s3: 11 tricks are out of reach.
TV7_HANDS = {
    S2: "S:A H:5432 D:5432 C:5432",
    S3: "S:432 H:876 D:9876 C:876",
    S0: "S:KQJT9 H:AKQ D:AK C:AKQ",
    S1: "S:8765 H:JT9 D:QJT C:JT9",
}


def tv7(
    totals: list[int], options: dict[str, object] | None = None
) -> tuple[NominationsState, list[Event]]:
    state = new(options, TV7_HANDS)
    state.scores = list(totals)
    state, _ = run(state, [*TV5_AUCTION, (S2, declare("S", "8H"))])
    return play_first_legal(state)


def test_at_the_target_the_highest_total_wins() -> None:
    """TV-NOM-7: game end."""
    state, events = tv7([95, 92, 60, 40])
    assert scored(events).made == (None, None, False, False)
    assert state.finished and state.scores == [106, 103, 60, 40]
    assert of_type(events, GameOver)[0].winners == (S0,)
    outcome = R.outcome(state)
    assert outcome is not None and outcome.winners == (S0,) and not outcome.draw


def test_tied_leaders_at_the_target_draw() -> None:
    """TV-NOM-7: game end."""
    state, _ = tv7([95, 95, 60, 40])
    assert state.scores == [106, 106, 60, 40]
    outcome = R.outcome(state)
    assert outcome is not None and outcome.winners == (S0, S1) and outcome.draw


def test_tie_rule_extra_deal_plays_on_until_a_single_leader() -> None:
    state, _ = tv7([95, 95, 60, 40], {"tie_rule": "extra_deal"})
    assert not state.finished and state.deal_no == 2 and state.dealer == S1
    # s0 bids open misère: made or failed, exactly one of s0 and s1 gains 26
    state, _ = run(state, [(S2, PASS), (S3, PASS), (S0, OPEN)])
    state, events = play_first_legal(state)
    assert state.finished
    (over,) = of_type(events, GameOver)
    assert len(over.winners) == 1 and state.scores[over.winners[0]] == max(state.scores)


def test_an_all_pass_deal_does_not_count_towards_a_fixed_number_of_deals() -> None:
    """TV-NOM-7: game end."""
    state = new({"end_mode": "deals", "deal_count": 4})
    dealers = [state.dealer]
    all_events: list[Event] = []
    for n in range(5):
        first = (state.dealer + 1) % 4
        script: list[tuple[int, Move]] = (
            [((first + k) % 4, PASS) for k in range(4)]  # deal 2 by s1: everybody passes
            if n == 1
            else [(first, OPEN)]
        )
        state, events = run(state, script)
        all_events += events
        if n != 1:
            state, events = play_first_legal(state)
            all_events += events
        if state.finished:
            break
        dealers.append(state.dealer)
    assert state.finished
    assert [e.dealer for e in of_type(all_events, DealStarted)] == [1, 1, 2, 3]
    assert dealers == [0, 1, 1, 2, 3]
    assert state.played_deals == 4 and state.deal_no == 5
    # The abandoned deal has its (empty) result too: five deals scored, four of them played.
    results = [cast(DealScored, e).result for e in of_type(all_events, DealScored)]
    assert [cast(NominationsDealResult, r).all_passed for r in results] == [
        False,
        True,
        False,
        False,
        False,
    ]


def test_a_lower_target_score_ends_the_game_sooner() -> None:
    state = tv6({"target_score": 13})
    state, events = play_tricks(state, TV6_TRICKS)
    assert state.finished and of_type(events, GameOver)[0].winners == (S0, S2, S3)
    state = tv6({"target_score": 14})
    state, _ = play_tricks(state, TV6_TRICKS)
    assert not state.finished


def test_end_mode_deals_ends_after_deal_count_played_deals() -> None:
    state = new({"end_mode": "deals", "deal_count": 1})
    state, _ = run(state, [(S1, OPEN)])
    state, events = play_first_legal(state)
    assert state.finished and of_type(events, GameOver)


# -- TV-NOM-8 partner visibility ---------------------------------------------------------------


def statuses(state: NominationsState) -> list[str]:
    return [R.view(state, v).detail.partner_status for v in (S0, S1, S2, S3, None)]


def test_only_the_partner_knows_until_the_called_card_is_played() -> None:
    """TV-NOM-8: partner visibility."""
    state, _ = play_tricks(tv5(), TV5_TRICKS[:3])
    assert statuses(state) == ["unknown", "unknown", "unknown", "you_are_partner", "unknown"]
    for v in (S0, S1, S2, S3, None):
        detail = R.view(state, v).detail
        assert detail.partner is None and detail.side_tricks is None
        assert detail.called == C.parse("QD")
        assert [sv.tricks_won for sv in R.view(state, v).seats] == [0, 0, 3, 0]
    state, _ = play_tricks(state, ["s2 KD, s3 QD"])
    assert statuses(state) == ["revealed"] * 5
    state, _ = play_tricks(state, ["s0 9D, s1 5D"])
    for v in (S0, S1, S2, S3, None):
        detail = R.view(state, v).detail
        assert detail.partner == S3 and detail.side_tricks == 4


def test_a_solo_shows_no_partner_after_the_called_card() -> None:
    """TV-NOM-8: partner visibility."""
    state = tv5(called="KS")
    assert statuses(state) == ["unknown", "unknown", "you_hold_called_card", "unknown", "unknown"]
    state, _ = play_tricks(state, [*TV5_TRICKS[:9], "s1 2C, s2 KS"])
    assert statuses(state) == ["solo"] * 5
    assert R.view(state, S0).detail.partner is None


# -- §8.1 worked scoring examples --------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "points"),
    [
        ((10, True, 2, 3, [0, 1, 8, 4], 1, False), [0, 0, 10, 10]),  # 1
        ((12, False, 2, 0, [2, 0, 9, 2], 1, False), [0, 12, 0, 12]),  # 2
        ((11, False, 1, None, [1, 9, 2, 1], 1, False), [11, 0, 11, 11]),  # 3
        ((11, True, 1, None, [1, 11, 1, 0], 1, False), [0, 11, 0, 0]),  # 4
        ((13, True, 3, None, [4, 4, 5, 0], 1, False), [0, 0, 0, 13]),  # 5
        ((13, False, 3, None, [1, 1, 2, 1], 1, False), [13, 13, 13, 0]),  # 6
        ((26, True, 0, None, [0, 4, 4, 5], 1, False), [26, 0, 0, 0]),  # 7
        ((26, False, 0, None, [1, 0, 0, 0], 1, False), [0, 26, 26, 26]),  # 8
        ((10, True, 2, 1, [0, 5, 6, 2], 2, False), [0, 20, 20, 0]),  # 9
        ((13, True, 0, None, [0, 4, 4, 5], 2, False), [26, 0, 0, 0]),  # 10
        ((26, True, 0, None, [0, 4, 4, 5], 2, False), [52, 0, 0, 0]),  # 10
        ((10, True, 2, 3, [2, 1, 5, 5], 1, True), [2, 1, 10, 10]),  # 11
        ((10, False, 2, 3, [3, 1, 5, 4], 1, True), [13, 11, 0, 0]),  # 12
        ((13, False, 3, None, [2, 1, 0, 1], 1, True), [15, 14, 13, 0]),  # 13
        ((26, True, 1, 2, [3, 5, 5, 0], 1, False), [0, 26, 26, 0]),  # 15
        ((26, False, 1, 2, [3, 5, 5, 0], 1, False), [26, 0, 0, 26]),  # 15
        ((11, False, 2, None, [2, 1, 10, 0], 2, True), [26, 24, 0, 22]),  # 16
    ],
)
def test_worked_scoring_examples(args: tuple[Any, ...], points: list[int]) -> None:
    value, made, declarer, partner, taken, multiplier, opponent_tricks = args
    result = deal_points(
        value,
        made,
        declarer,
        partner,
        taken,
        multiplier=multiplier,
        opponent_trick_points=opponent_tricks,
    )
    assert result == points


@pytest.mark.parametrize(
    ("options", "points"),
    [({"misere_rank": "between_10_and_11"}, 10), ({}, 13), ({"misere_points": 20}, 20)],
)
def test_misere_value_follows_the_options(options: dict[str, object], points: int) -> None:
    assert R.options(options).misere_points == points


def test_misere_points_20_is_what_a_failed_misere_pays() -> None:
    # TV-NOM-6 with misere_points = 20: s1 wins trick 2, so each other player gets 20.
    _, events = play_tricks(tv6({"misere_points": 20}), TV6_TRICKS)
    result = scored(events)
    assert result.made == (None, False, None, None)
    assert result.points == (20, 0, 20, 20)


def test_misere_points_20_is_what_a_made_misere_pays() -> None:
    state = new({"misere_points": 20}, LOW_HANDS)
    state, _ = run(state, [(S1, MISERE), (S2, PASS), (S3, PASS), (S0, PASS)])
    state, events = play_first_legal(state)
    result = scored(events)
    assert len(of_type(events, TrickWon)) == 13 and result.taken[S1] == 0
    assert result.points == (0, 20, 0, 0)
    assert state.scores == [0, 20, 0, 0]


def test_open_misere_points_option_sets_its_value() -> None:
    state = tv6({"open_misere_points": 30}, contract=OPEN)
    _, events = play_tricks(state, TV6_TRICKS)
    assert scored(events).points == (30, 0, 30, 30)


def test_bid13_points_accepts_only_13_or_26() -> None:
    with pytest.raises(InvalidOptions):
        R.options({"bid13_points": 20})
    assert R.options({"bid13_points": "26"}).bid13_points == 26


# -- auction flags -----------------------------------------------------------------------------


def test_ladder_orders_from_the_options() -> None:
    assert [bid_label(b) for b in ladder(10, "above_13", True)] == [
        "10",
        "11",
        "12",
        "13",
        "misere",
        "open_misere",
    ]
    assert R.view(new({"min_bid": 7}), None).detail.ladder[0] == "7"


def test_without_open_misere_it_cannot_be_bid_and_misere_is_the_top_bid() -> None:
    state = new({"open_misere": False})
    rejected(state, S1, OPEN, Reason.CALL_NOT_ALLOWED)
    state, events = run(state, [(S1, MISERE)])
    assert of_type(events, AuctionWon)[0].contract == "misere"


def test_without_auto_end_the_others_must_pass_after_the_top_bid() -> None:
    state, events = run(new({"auto_end_on_top_bid": False}), [(S1, OPEN)])
    assert not of_type(events, AuctionWon)
    assert list(R.legal_moves(state, S2)) == [PASS]
    rejected(state, S2, MISERE, Reason.BID_TOO_LOW)
    state, events = run(state, [(S2, PASS), (S3, PASS), (S0, PASS)])
    assert of_type(events, AuctionWon)[0].declarer == S1


def test_a_bid_resets_the_count_of_passes() -> None:
    state, events = drive(
        R, new(), [(S1, bid(10)), (S2, PASS), (S3, PASS), (S0, bid(11)), (S1, PASS), (S2, PASS)]
    )
    assert not of_type(events, AuctionWon) and R.to_act(state) == (S3,)


def test_all_pass_redeal_shuffles_even_when_shuffle_between_deals_is_off() -> None:
    # §16.3: all_pass = redeal deals again from a fresh shuffle even with
    # shuffle_between_deals off: not the hands gathered and cut, not a double hand.
    options: dict[str, object] = {"all_pass": "redeal", "shuffle_between_deals": False}
    state = new(options, overrides={"pack:1": cards(TV2_PACK), "pack:2": pack_for(TV5_HANDS)})
    state, events = run(state, ALL_PASS)
    (passed,) = of_type(events, AllPassed)
    assert (passed.next_deal, passed.multiplier, passed.dealer) == ("redeal", 1, S0)
    assert not of_type(events, PackCut)
    for seat, text in TV5_HANDS.items():  # the fresh shuffle (pack:2) was dealt
        assert state.hands[seat] == C.mask_of(spec_hand(text)), seat
    assert state.deal_no == 2 and state.dealer == S0
    assert state.multiplier == 1 and state.played_deals == 0
    assert not R.view(state, None).detail.double_hand


def test_all_pass_redeal_shuffles_again_without_multiplier() -> None:
    state = new({"all_pass": "redeal"})
    state, events = run(state, ALL_PASS)
    (passed,) = of_type(events, AllPassed)
    assert (passed.next_deal, passed.multiplier) == ("redeal", 1)
    assert not of_type(events, PackCut)
    expected = R.new_game({}, b"nominations", {"first_dealer": [S0]}).chance.shuffled(
        "pack:2", C.deck(range(2, 15))
    )
    assert state.hands == [C.mask_of(h) for h in deal_cards(expected, "3-3-3-4", S0)]
    assert state.dealer == S0 and state.multiplier == 1 and state.played_deals == 0


def test_double_hand_multiplier_option() -> None:
    state, events = run(new({"double_hand_multiplier": 3}), ALL_PASS)
    assert of_type(events, AllPassed)[0].multiplier == 3 and state.multiplier == 3


def tv3_double_hand(options: dict[str, object]) -> NominationsState:
    """TV-NOM-3: all four pass on the TV-NOM-2 deal; the double hand is dealt after a cut of 20."""
    state = new(options, overrides={"pack:1": cards(TV2_PACK), "cut:2": [20]})
    state, _ = run(state, ALL_PASS)
    for seat, text in TV3_HANDS.items():
        assert state.hands[seat] == C.mask_of(spec_hand(text)), seat
    return state


def test_double_hand_multiplier_3_scores_a_failed_open_misere() -> None:
    # s3 (S:J763 H:AKQJT874 D:- C:A) bids open misère in the double hand and leads AH: s0
    # follows with a heart, s1 and s2 are void; AH wins, so the deal stops and each other
    # player scores 26 x 3 = 78.
    state = tv3_double_hand({"double_hand_multiplier": 3})
    state, _ = run(state, [(S1, PASS), (S2, PASS), (S3, OPEN)])
    state, events = play_tricks(state, ["s3 AH, s0 2H, s1 2C, s2 2D"])
    result = scored(events)
    assert result.taken == (0, 0, 0, 1) and result.made == (None, None, None, False)
    assert result.points == (78, 78, 78, 0)
    assert state.scores == [78, 78, 78, 0]
    assert "x3" in result.note
    assert state.multiplier == 1 and state.dealer == S1  # a played deal: back to normal


def test_double_hand_multiplier_3_scores_a_numeric_contract() -> None:
    # s3 bids 10 in the double hand, hearts trumps, and calls AS (s2's): 10 x 3 = 30 to the
    # side if s3 and s2 take 10 tricks, else 30 to each of s0 and s1.
    state = tv3_double_hand({"double_hand_multiplier": 3})
    auction: list[tuple[int, Move]] = [(S1, PASS), (S2, PASS), (S3, bid(10))]
    auction += [(S0, PASS), (S1, PASS), (S2, PASS), (S3, declare("H", "AS"))]
    state, _ = run(state, auction)
    state, events = play_first_legal(state)
    result = scored(events)
    side = result.taken[S3] + result.taken[S2]
    expected = (0, 0, 30, 30) if side >= 10 else (30, 30, 0, 0)
    assert result.points == expected


@pytest.mark.parametrize(("stacking", "second"), [(False, 2), (True, 4)])
def test_consecutive_double_hands(stacking: bool, second: int) -> None:
    state = new({"double_hand_stacking": stacking})
    state, _ = run(state, ALL_PASS)
    assert state.multiplier == 2
    state, events = run(state, ALL_PASS)
    assert of_type(events, AllPassed)[0].multiplier == second and state.multiplier == second
    assert state.dealer == S0
    if stacking:
        state, _ = run(state, ALL_PASS)
        assert state.multiplier == 8


def test_double_hand_of_a_double_hand_restacks_the_hands_just_dealt() -> None:
    state = new(overrides={"pack:1": cards(TV2_PACK), "cut:2": [20], "cut:3": [7]})
    state, _ = run(state, ALL_PASS)
    previous = list(state.hands)
    state, _ = run(state, ALL_PASS)
    expected = deal_cards(cut(stacked_pack(previous, S0), 7), "3-3-3-4", S0)
    assert state.hands == [C.mask_of(h) for h in expected]


def test_double_hand_cut_none_deals_the_stacked_pack() -> None:
    state = new({"double_hand_cut": "none"}, overrides={"pack:1": cards(TV2_PACK)})
    state, events = run(state, ALL_PASS)
    assert not of_type(events, PackCut)
    expected = deal_cards(cards(TV3_STACKED), "3-3-3-4", S0)
    assert state.hands == [C.mask_of(h) for h in expected]


def test_double_hand_cutter_chooses_the_depth() -> None:
    state = new({"double_hand_cut": "cutter_chooses"}, overrides={"pack:1": cards(TV2_PACK)})
    state, events = run(state, ALL_PASS)
    assert state.phase == "cut" and R.to_act(state) == (S3,)
    assert R.view(state, S0).detail.cutter == S3
    assert all(sv.hand_size == 0 for sv in R.view(state, S0).seats)
    assert list(R.legal_moves(state, S3)) == [Cut(k) for k in range(1, 52)]
    for depth in (0, 52):
        rejected(state, S3, Cut(depth), Reason.INVALID_CUT)
    rejected(state, S0, Cut(20), Reason.NOT_YOUR_TURN)
    rejected(state, S0, PASS, Reason.WRONG_PHASE)
    state, events = R.apply(state, S3, Cut(20))
    for seat, text in TV3_HANDS.items():
        assert state.hands[seat] == C.mask_of(spec_hand(text))
    (pack_cut,) = of_type(events, PackCut)
    assert [pack_cut.visible_to(v).depth for v in (S0, S1, S2, S3, None)] == [
        None,
        None,
        None,
        20,
        None,
    ]


def test_a_random_cut_depth_is_shown_to_nobody() -> None:
    state = new(overrides={"pack:1": cards(TV2_PACK), "cut:2": [20]})
    _, events = run(state, ALL_PASS)
    (pack_cut,) = of_type(events, PackCut)
    assert pack_cut.depth == 20
    assert all(pack_cut.visible_to(v).depth is None for v in (S0, S1, S2, S3, None))


# -- dealing flags -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("batches", "left_gets"),
    [
        ("3-3-3-4", [0, 1, 2, 12, 13, 14, 24, 25, 26, 36, 37, 38, 39]),
        ("4-3-3-3", [0, 1, 2, 3, 16, 17, 18, 28, 29, 30, 40, 41, 42]),
        ("3-4-3-3", [0, 1, 2, 12, 13, 14, 15, 28, 29, 30, 40, 41, 42]),
        ("3-3-4-3", [0, 1, 2, 12, 13, 14, 24, 25, 26, 27, 40, 41, 42]),
        ("5-5-3", [0, 1, 2, 3, 4, 20, 21, 22, 23, 24, 40, 41, 42]),
        ("rotating", [0, 1, 2, 3, 13, 14, 15, 26, 27, 28, 39, 40, 41]),
    ],
)
def test_deal_batches_serve_the_dealers_left_first(batches: str, left_gets: list[int]) -> None:
    """Positions in the pack (0 = top) that reach the dealer's left."""
    pack = list(range(52))
    dealt = deal_cards(pack, batches, S0)
    assert dealt[S1] == left_gets
    assert sorted(c for h in dealt for c in h) == pack
    assert all(len(h) == 13 for h in dealt)


@pytest.mark.parametrize(
    "batches", ["3-3-3-4", "3-4-3-3", "3-3-4-3", "4-3-3-3", "5-5-3", "rotating"]
)
def test_the_deal_batches_option_drives_the_deal(batches: str) -> None:
    pack = cards(TV2_PACK)
    state = new({"deal_batches": batches}, overrides={"pack:1": pack})
    assert state.hands == [C.mask_of(h) for h in deal_cards(pack, batches, S0)]


def test_rotating_batches_give_each_player_one_batch_of_four() -> None:
    dealt = deal_cards(list(range(52)), "rotating", S2)
    # round 2: the second player served (the dealer's opposite, s0) gets 4 cards
    assert dealt[S0][3:7] == [16, 17, 18, 19]
    # round 4: the dealer, served last, gets the last 4
    assert dealt[S2][-4:] == [48, 49, 50, 51]


def test_without_shuffle_the_played_tricks_are_gathered_cut_and_dealt() -> None:
    state = tv5({"shuffle_between_deals": False}, overrides={"cut:2": [5]})
    state, events = play_tricks(state, TV5_TRICKS)
    played = [c for e in of_type(events, TrickWon) for c in e.cards]
    (pack_cut,) = of_type(events, PackCut)
    assert pack_cut.seat == S0  # the new dealer s1's right
    expected = deal_cards(played[5:] + played[:5], "3-3-3-4", S1)
    assert state.dealer == S1 and state.hands == [C.mask_of(h) for h in expected]


def test_without_shuffle_unplayed_cards_follow_the_tricks_seat_by_seat() -> None:
    state = tv6({"shuffle_between_deals": False})
    state, events = play_tricks(state, TV6_TRICKS)
    # the two tricks in play order, then what each seat still held, from the old dealer's
    # left (s1, s2, s3, s0), each S H D C, high to low
    gathered = cards(
        "2H AH 9H 6H 9S 5S 2S AS "
        "5H 4H 3H 5D 4D 3D 2D 5C 4C 3C 2C "
        "KS QS JS TS KH QH AD KD AC KC QC "
        "8S 7S 6S JH TH QD JD TD JC TC 9C "
        "4S 3S 8H 7H 9D 8D 7D 6D 8C 7C 6C"
    )
    (pack_cut,) = of_type(events, PackCut)
    k = state.chance.randint("cut:2", 1, 51)
    assert pack_cut.depth == k and not pack_cut.chosen
    assert state.hands == [C.mask_of(h) for h in deal_cards(cut(gathered, k), "3-3-3-4", S1)]


def test_the_all_pass_double_hand_also_applies_without_shuffle() -> None:
    state = new(
        {"shuffle_between_deals": False}, overrides={"pack:1": cards(TV2_PACK), "cut:2": [20]}
    )
    state, _ = run(state, ALL_PASS)
    for seat, text in TV3_HANDS.items():
        assert state.hands[seat] == C.mask_of(spec_hand(text))


# -- stop_when_decided -------------------------------------------------------------------------


def test_stop_when_decided_ends_once_the_side_has_its_tricks() -> None:
    state = tv5({"stop_when_decided": True})
    state, events = play_tricks(state, TV5_TRICKS[:11])
    assert not of_type(events, DealScored)
    _, events = play_tricks(state, TV5_TRICKS[11:12])
    result = scored(events)
    assert sum(result.taken) == 12 and result.points == (0, 0, 11, 11)
    assert {e.seat for e in of_type(events, CardsExposed)} == {S0, S1, S2, S3}


def test_stop_when_decided_waits_while_the_partner_is_secret() -> None:
    # s2 bids 10 and calls s1's 2D (played last). After trick 10 s2 and s1 have 9 + 1: the
    # contract is made, but stopping would tell everyone who the partner is. After trick 11
    # s2 alone has 10, which decides it whoever the partner is.
    state = tv5({"stop_when_decided": True}, bid_n=10, called="2D")
    state, events = play_tricks(state, TV5_TRICKS[:10])
    assert not of_type(events, DealScored)
    _, events = play_tricks(state, TV5_TRICKS[10:11])
    result = scored(events)
    assert sum(result.taken) == 11 and result.points == (0, 10, 10, 0)
    assert [r.partner for r in of_type(events, PartnerRevealed)] == [S1]


def test_stop_when_decided_ends_a_lost_contract_early() -> None:
    state = tv5({"stop_when_decided": True}, bid_n=13, called="JH")
    state, events = play_tricks(state, TV5_TRICKS[:9])
    result = scored(events)
    assert sum(result.taken) == 9 and result.points == (13, 13, 0, 0)


def test_stop_when_decided_is_off_with_opponent_trick_points() -> None:
    state = tv5({"stop_when_decided": True, "opponent_trick_points": True})
    _, events = play_tricks(state, TV5_TRICKS)
    assert sum(scored(events).taken) == 13


def test_without_stop_when_decided_all_13_tricks_are_played() -> None:
    _, events = play_tricks(tv5(), TV5_TRICKS[:12])
    assert not of_type(events, DealScored)


# -- view --------------------------------------------------------------------------------------


@pytest.mark.parametrize("review", [True, False])
def test_the_last_trick_may_be_reviewed_until_the_next_lead(review: bool) -> None:
    state, _ = play_tricks(tv5({"review_last_trick": review}), TV5_TRICKS[:2])
    tricks = R.view(state, S0).tricks
    assert len(tricks) == (1 if review else 0)
    if review:
        assert tricks[0].cards == tuple(cards("KC TC 7C 4C")) and tricks[0].winner == S2
    state, _ = play_tricks(state, ["s2 AC"])
    assert R.view(state, S0).tricks == ()


def test_a_seat_sees_its_own_hand_only() -> None:
    state = tv5()
    for viewer in (S0, S1, S2, S3, None):
        view = R.view(state, viewer)
        for sv in view.seats:
            assert (sv.hand is not None) == (sv.seat == viewer)
            assert sv.hand_size == 13
    assert R.view(state, S2).seats[S2].bid == 11
    assert R.view(state, None).detail.no_trump is False


def test_no_trump_is_declared_with_trump_none() -> None:
    state, events = run(new(None, TV5_HANDS), [*TV5_AUCTION, (S2, declare(None, "QD"))])
    assert of_type(events, ContractDeclared)[0].trump is None
    assert R.view(state, S0).detail.no_trump and state.trump is None


def test_first_dealer_is_random_from_the_seed_or_seat_0() -> None:
    assert R.new_game({"first_dealer": "seat0"}, b"x").dealer == 0
    assert R.new_game({}, b"x", {"first_dealer": [2]}).dealer == 2
    assert {R.new_game({}, bytes([i])).dealer for i in range(1, 40)} == {0, 1, 2, 3}


# -- rejected moves ----------------------------------------------------------------------------


def test_moves_out_of_turn_or_phase_are_rejected_and_change_nothing() -> None:
    state = new(None, TV5_HANDS)
    rejected(state, S2, PASS, Reason.NOT_YOUR_TURN)
    rejected(state, S2, bid(10), Reason.NOT_YOUR_TURN)
    rejected(state, S1, PlayCard(C.parse("AS")), Reason.WRONG_PHASE)
    rejected(state, S1, declare("S", "QD"), Reason.WRONG_PHASE)
    rejected(state, S1, Cut(5), Reason.WRONG_PHASE)
    rejected(state, S1, Call("double"), Reason.CALL_NOT_ALLOWED)
    rejected(state, S1, bid(14), Reason.CALL_NOT_ALLOWED)
    rejected(state, S1, Bid("grand"), Reason.CALL_NOT_ALLOWED)
    rejected(state, S1, Bid("tricks", None), Reason.CALL_NOT_ALLOWED)
    rejected(state, S1, LayAside((1, 2, 3)), Reason.MOVE_NOT_ALLOWED)
    state, _ = run(state, TV5_AUCTION)
    rejected(state, S3, declare("S", "QD"), Reason.NOT_YOUR_TURN)
    rejected(state, S2, PASS, Reason.WRONG_PHASE)
    rejected(state, S2, PlayCard(C.parse("AS")), Reason.WRONG_PHASE)
    rejected(state, S2, DeclareContract(4, C.parse("QD")), Reason.INVALID_CONTRACT)
    rejected(state, S2, DeclareContract(C.SPADES, 0), Reason.INVALID_CONTRACT)
    rejected(state, S2, DeclareContract(C.SPADES, 64), Reason.INVALID_CONTRACT)
    state, _ = R.apply(state, S2, declare("S", "QD"))
    rejected(state, S3, PlayCard(C.parse("QD")), Reason.NOT_YOUR_TURN)
    rejected(state, S2, PlayCard(C.parse("QD")), Reason.CARD_NOT_IN_HAND)
    rejected(state, S2, PlayCard(0), Reason.CARD_NOT_IN_HAND)
    rejected(state, S2, PlayCard(-1), Reason.CARD_NOT_IN_HAND)
    rejected(state, S2, bid(13), Reason.WRONG_PHASE)
    state, _ = play_tricks(state, ["s2 QC"])
    rejected(state, S3, PlayCard(C.parse("QD")), Reason.MUST_FOLLOW_SUIT)


def test_no_move_is_accepted_after_the_game_is_over() -> None:
    state, _ = tv7([95, 92, 60, 40])
    assert state.finished and R.to_act(state) == ()
    assert list(R.legal_moves(state, S1)) == []
    rejected(state, S1, PASS, Reason.GAME_OVER)
