"""Sixty-Six: the spec's test vectors (§14) and one story test per rule and per variant flag.

Spec: shared/rules/sixty-six.md. Seats: with ``first_dealer = seat0`` seat 0 deals the first
deal, so D = 0 and N = 1 there. Packs are written from the top card down, as in the spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from engine import get_rules
from engine.core import cards as C
from engine.core.errors import IllegalMove, InvalidOptions, Reason
from engine.core.events import (
    Called,
    CardDrawn,
    CardsExposed,
    DealScored,
    DealStarted,
    Event,
    GameOver,
    MarriageDeclared,
    StockClosed,
    TrickWon,
    TrumpExchanged,
)
from engine.core.fields import cards_in
from engine.core.moves import (
    Call,
    Claim,
    CloseStock,
    DeclareMarriage,
    DrawCards,
    ExchangeTrump,
    Move,
    PlayCard,
)
from engine.games.sixty_six import (
    POINTS,
    SixtySixOptions,
    SixtySixState,
    count,
    failed_claim_award,
    follow_mask,
    leader_wins,
    score_deal,
    win_award,
    with_carry,
)

RULES: Any = get_rules("sixty-six")
D, N = 0, 1  # deal 1 with first_dealer = seat0
EXCHANGE, CLOSE, CLAIM, DRAW = ExchangeTrump(), CloseStock(), Claim(), DrawCards()
PASS, DECLINE = Call("pass"), Call("decline")

TV3 = "KH QH AS 9H AD TD TS 9C JC KS QD 9S JH KC 9D QS AH JD TC JS KD AC TH QC"
TV4 = "9C JC QC 9S KD QD TH 9H JD AC TC KS AS AH TD QS KH 9D JS AD KC QH JH TS"
TV5 = "QS 9S AD 9D QC AC JH JC AH QH TC TH KH AS TD QD 9H KS JD TS KD 9C KC JS"
# TV4 with 9C and 9S swapped: N holds the trump nine instead of D.
TV4_N_NINE = "9S JC QC 9C KD QD TH 9H JD AC TC KS AS AH TD QS KH 9D JS AD KC QH JH TS"


def cards(text: str) -> set[int]:
    return set(C.parse_many(text))


def play(card: str) -> PlayCard:
    return PlayCard(C.parse(card))


class Table:
    """A game under test: applies moves, keeps every event, checks refusals."""

    def __init__(
        self, pack: str | None = None, *, pack_2: str | None = None, **options: Any
    ) -> None:
        opts: dict[str, object] = {"first_dealer": "seat0", **options}
        overrides = {}
        if pack:
            overrides["pack:1"] = C.parse_many(pack)
        if pack_2:
            overrides["pack:2"] = C.parse_many(pack_2)
        self.s: SixtySixState = RULES.new_game(opts, seed=b"sixty-six tests", overrides=overrides)
        self.events: list[Event] = list(RULES.opening_events(self.s))

    def do(self, seat: int, move: Move) -> list[Event]:
        self.s, step = RULES.apply(self.s, seat, move)
        self.events.extend(step)
        return list(step)

    def trick(self, leader: int, lead: str, follow: str) -> list[Event]:
        step = self.do(leader, play(lead))
        return step + self.do(1 - leader, play(follow))

    def refused(self, seat: int, move: Move, reason: Reason) -> None:
        before = RULES.snapshot(self.s)
        assert move not in RULES.legal_moves(self.s, seat)
        with pytest.raises(IllegalMove) as err:
            RULES.apply(self.s, seat, move)
        assert err.value.reason == reason, err.value
        assert RULES.snapshot(self.s) == before

    def legal(self, seat: int) -> list[Move]:
        return list(RULES.legal_moves(self.s, seat))

    def count(self, seat: int) -> int:
        return count(self.s, seat)

    def last_scored(self) -> DealScored:
        return [e for e in self.events if isinstance(e, DealScored)][-1]


def opts(**given: object) -> SixtySixOptions:
    o: SixtySixOptions = RULES.options(given)
    return o


def tv4_after_trick_1(**options: Any) -> Table:
    """TV-66-4 up to D on lead after trick 1 and its draws."""
    t = Table(TV4, **options)
    t.trick(N, "9C", "AC")
    t.do(D, DRAW)
    return t


# -- TV-66-1 .. TV-66-8 --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lead", "follow", "leader_takes"),
    [
        ("KS", "AS", False),  # same suit, A > K
        ("TS", "KS", True),  # same suit, T > K
        ("AC", "9H", False),  # trump on a plain lead
        ("JD", "AS", True),  # different non-trump suit
        ("9H", "AS", True),  # non-trump to a trump lead
        ("QH", "KH", False),  # both trumps, K > Q
    ],
)
def test_the_same_suit_goes_to_the_higher_rank_else_a_trump_else_the_lead(
    lead: str, follow: str, leader_takes: bool
) -> None:
    """TV-66-1: trick winners."""
    assert leader_wins(C.parse(lead), C.parse(follow), C.HEARTS) is leader_takes


@pytest.mark.parametrize(
    ("phase_two", "lead", "hand", "follow_suit", "strict"),
    [
        (False, "AS", "KS 9H AD", "KS 9H AD", "KS 9H AD"),
        (True, "AS", "KS 9H AD", "KS", "KS"),
        (True, "AS", "9H AD TD", "9H AD TD", "9H"),
        (True, "QS", "KS 9S 9H", "KS 9S", "KS"),
        (True, "QS", "9S JS AD", "9S JS", "9S JS"),  # none beats the Q
        (True, "JH", "QC AD TS", "QC AD TS", "QC AD TS"),  # no heart, no trump
    ],
)
def test_the_follow_rule_applies_once_the_stock_is_gone(
    phase_two: bool, lead: str, hand: str, follow_suit: str, strict: str
) -> None:
    """TV-66-2: legal follows."""
    mask = C.mask_of(C.parse_many(hand))
    led = C.parse(lead)
    assert follow_mask(mask, led, C.HEARTS, phase_two, False) == C.mask_of(cards(follow_suit))
    assert follow_mask(mask, led, C.HEARTS, phase_two, True) == C.mask_of(cards(strict))


def _tv3_to_trick_2(preset: str) -> Table:
    t = Table(TV3, preset=preset)
    assert t.s.hands[N] == C.mask_of(cards("KH QH AS TS 9C JC"))
    assert t.s.hands[D] == C.mask_of(cards("9H AD TD KS QD 9S"))
    assert t.s.turn_up == C.parse("JH") and t.s.trump == C.HEARTS
    t.refused(D, EXCHANGE, Reason.NO_TRICK_WON)  # D holds 9H but has won no trick
    (married,) = t.do(N, DeclareMarriage(C.HEARTS))
    assert married == MarriageDeclared(N, C.HEARTS, 40, (C.parse("KH"), C.parse("QH")))
    t.trick(N, "QH", "9S")
    assert t.count(N) == 43  # 3 in cards + the 40, now that N has a trick
    drawn = t.do(N, DRAW)
    assert [(e.seat, e.card) for e in drawn if isinstance(e, CardDrawn)] == [
        (N, C.parse("KC")),
        (D, C.parse("9D")),
    ]
    t.trick(N, "AS", "KS")
    assert t.count(N) == 58
    return t


@pytest.mark.parametrize("preset", ["gamefarm", "pagat"])
def test_a_marriage_refused_then_an_exchange_and_a_schwarz_claim(preset: str) -> None:
    """TV-66-3: marriage at the first lead, refused exchange, claim."""
    t = _tv3_to_trick_2(preset)
    drawn = t.do(N, DRAW)
    assert [e.card for e in drawn if isinstance(e, CardDrawn)] == [C.parse("QS"), C.parse("AH")]
    t.trick(N, "TS", "QD")
    assert t.count(N) == 71
    t.do(N, DRAW)
    assert [e.card for e in t.events[-2:] if isinstance(e, CardDrawn)] == C.parse_many("JD TC")
    assert RULES.view(t.s, N).detail.stock_size == 6
    t.do(N, CLAIM)
    scored = t.last_scored()
    assert scored.points == (0, 3) and scored.made == (None, True)
    assert t.s.scores == [0, 3]


@pytest.mark.parametrize(("preset", "award"), [("gamefarm", 3), ("pagat", 2)])
def test_a_claim_after_trick_2_fails_and_scores_for_the_opponent(preset: str, award: int) -> None:
    """TV-66-3 (alternative): marriage at the first lead, refused exchange, claim."""
    t = _tv3_to_trick_2(preset)
    t.do(N, CLAIM)  # 58: failed; D has no trick
    assert t.last_scored().points == (award, 0)
    assert t.s.scores == [award, 0]


def _tv4_closed(preset: str) -> Table:
    t = tv4_after_trick_1(preset=preset)
    assert t.s.hands[D] == C.mask_of(cards("9S KD QD TC KS AH"))
    assert t.s.hands[N] == C.mask_of(cards("JC QC TH 9H JD TD"))
    (exchanged,) = t.do(D, EXCHANGE)
    assert exchanged == TrumpExchanged(D, C.parse("9S"), C.parse("AS"), at_close=False)
    assert t.s.turn_up == C.parse("9S")
    t.do(D, DeclareMarriage(C.DIAMONDS))
    assert t.count(D) == 31
    (closed,) = t.do(D, CLOSE)
    assert closed == StockClosed(D, before_draw=False, opponent_tricks=0)
    assert t.s.phase == "lead"  # N no longer holds a nine: no exchange step, even in pagat
    t.refused(D, play("TC"), Reason.MUST_LEAD_MARRIAGE)
    t.do(D, play("KD"))
    legal = {m.card for m in t.legal(N) if isinstance(m, PlayCard)}
    expected = "TD" if preset == "pagat" else "JD TD"
    assert legal == cards(expected)
    if preset == "pagat":
        t.refused(N, play("JD"), Reason.MUST_BEAT)
    t.do(N, play("TD"))
    assert t.count(N) == 14
    t.trick(N, "TH", "AH")
    assert t.count(D) == 52
    t.trick(D, "AS", "9H")
    assert t.count(D) == 63
    t.trick(D, "KS", "JD")
    assert t.count(D) == 69
    return t


def _tv4_play_to_end(t: Table) -> None:
    t.trick(D, "QD", "JC")
    assert t.count(D) == 74
    t.trick(D, "TC", "QC")
    assert t.count(D) == 87 and t.count(N) == 14
    assert t.s.hands == [0, 0] and t.s.tricks_won == [6, 1]
    # 67 + 14 in cards, and the ten unused stock cards hold the other 39.
    unused = sum(POINTS[c] for c in t.s.stock) + POINTS[t.s.turn_up]
    assert t.s.card_points == [67, 14] and unused == 39
    assert t.s.phase == "end_window" and RULES.to_act(t.s) == (D,)


def test_gamefarm_judges_an_unclaimed_closer_as_claimant() -> None:
    """TV-66-4: exchange, marriage, close, closer judged at the end."""
    t = _tv4_closed("gamefarm")
    assert CLAIM in t.legal(D)  # a claim would be legal now (69)
    _tv4_play_to_end(t)
    t.do(D, PASS)
    assert RULES.to_act(t.s) == (N,)
    t.do(N, PASS)
    scored = t.last_scored()
    assert scored.points == (2, 0) and scored.taken == (87, 14)


@pytest.mark.parametrize("when", ["after_trick_5", "after_trick_7"])
@pytest.mark.parametrize("preset", ["gamefarm", "pagat"])
def test_a_claim_by_the_closer_scores_two(preset: str, when: str) -> None:
    """TV-66-4: exchange, marriage, close, closer judged at the end."""
    t = _tv4_closed(preset)
    if when == "after_trick_7":
        _tv4_play_to_end(t)
    t.do(D, CLAIM)
    assert t.last_scored().points == (2, 0)


def test_pagat_a_closer_who_never_goes_out_fails() -> None:
    """TV-66-4: exchange, marriage, close, closer judged at the end."""
    t = _tv4_closed("pagat")
    _tv4_play_to_end(t)
    assert t.legal(D) == [CLAIM, PASS] and t.legal(N) == []
    t.do(D, PASS)  # only the last-trick winner is asked under pagat
    assert t.last_scored().points == (0, 3)  # N had no trick when D closed


TV5_TRICKS = [
    # leader, lead, follow, N total, D total
    (N, "JC", "QC", 0, 5),
    (D, "TH", "QS", 0, 18),
    (D, "QH", "9S", 0, 21),
    (D, "AC", "JD", 0, 34),
    (D, "QD", "9H", 3, 34),
    (N, "TD", "KC", 17, 34),
    (N, "JS", "AS", 17, 47),
    (D, "TC", "9C", 17, 57),
    (D, "KS", "KD", 17, 65),
    (D, "9D", "AD", 28, 65),
    (N, "AH", "KH", 43, 65),
    (N, "JH", "TS", 65, 65),  # 55 + 10 for the last trick
]


def play_tv5(t: Table, n: int = N, d: int = D) -> None:
    """TV-66-5's twelve tricks, with the drawing after the first six."""
    for i, (leader, lead, follow, n_total, d_total) in enumerate(TV5_TRICKS):
        seat = n if leader == N else d
        t.do(seat, play(lead))
        t.do(1 - seat, play(follow))
        assert (t.count(n), t.count(d)) == (n_total, d_total), f"trick {i + 1}"
        if i < 6:
            winner = t.s.leader
            step = t.do(winner, DRAW)
            if i == 5:
                draws = [e for e in step if isinstance(e, CardDrawn)]
                assert [(e.seat, C.name(e.card or 0), e.face_up) for e in draws] == [
                    (n, "JS", False),
                    (d, "KH", True),
                ]
                assert RULES.view(t.s, None).detail.stock_state == "exhausted"


def test_a_deal_played_out_at_65_65_with_no_claim_carries_one() -> None:
    """TV-66-5: played out, 65–65, no claim."""
    t = Table(TV5)
    assert t.s.turn_up == C.parse("KH")
    play_tv5(t)
    assert t.s.phase == "end_window" and RULES.to_act(t.s) == (N,)
    t.do(N, PASS)
    t.do(D, PASS)
    scored = t.last_scored()
    assert scored.points == (0, 0) and scored.taken == (65, 65)
    assert t.s.carry == 1 and t.s.scores == [0, 0]


@pytest.mark.parametrize(("claimer", "scores"), [(N, [2, 0]), (D, [0, 2])])
def test_a_claim_in_the_end_window_fails_at_65(claimer: int, scores: list[int]) -> None:
    """TV-66-5: played out, 65–65, no claim."""
    t = Table(TV5)
    play_tv5(t)
    if claimer == D:
        t.refused(D, CLAIM, Reason.NOT_YOUR_TURN)  # §16.2: N speaks first
        t.do(N, PASS)
    t.do(claimer, CLAIM)
    assert t.s.scores == scores


def test_strict_follow_makes_the_specs_trick_9_illegal() -> None:
    """TV-66-5: played out, 65–65, no claim."""
    t = Table(TV5, endgame_follow="strict")
    for i, (leader, lead, follow, _, _) in enumerate(TV5_TRICKS[:8]):
        t.trick(leader, lead, follow)
        if i < 6:
            t.do(t.s.leader, DRAW)
    t.do(D, play("KS"))
    t.refused(N, play("KD"), Reason.MUST_TRUMP)  # N holds AH and JH


def test_equal_totals_under_higher_total_give_a_drawn_deal() -> None:
    """TV-66-5: played out, 65–65, no claim."""
    t = Table(TV5, unclaimed_open_deal="higher_total", next_dealer="winner")
    play_tv5(t)
    t.do(N, PASS)
    t.do(D, PASS)
    assert t.last_scored().points == (0, 0) and t.last_scored().note == "drawn deal"
    assert t.s.deal_no == 2 and t.s.dealer == D  # the same dealer deals again


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        # (claimant count, claimant tricks, opponent count, opponent tricks, carry)
        ((71, 3, 0, 0, 0), ("claimant", 3)),
        ((70, 5, 40, 2, 0), ("claimant", 1)),
        ((66, 4, 33, 3, 0), ("claimant", 1)),
        ((68, 5, 32, 2, 0), ("claimant", 2)),
        ((80, 5, 0, 1, 0), ("claimant", 2)),
        ((65, 6, 20, 3, 0), ("opponent", 2)),
        ((58, 2, 0, 0, 0), ("opponent", 3)),
        ((0, 0, 0, 0, 0), ("opponent", 3)),
        ((0, 0, 90, 6, 0), ("opponent", 3)),
        ((70, 4, 20, 2, 2), ("claimant", 4)),
    ],
)
def test_the_deal_result_follows_the_scoring_table_and_flags(
    case: tuple[int, int, int, int, int], expected: tuple[str, int]
) -> None:
    """TV-66-6: scoring rows."""
    claimant_count, claimant_tricks, opp_count, opp_tricks, carry = case
    claimant = 1
    scorer, award, _ = score_deal(
        opts(),
        counts=(opp_count, claimant_count),
        tricks=(opp_tricks, claimant_tricks),
        claimant=claimant,
        closer=None,
        closer_opp_tricks=0,
    )
    gained, carry_after = with_carry(scorer, award, carry, carry_over=True)
    assert ("claimant" if scorer == claimant else "opponent", gained) == expected
    assert carry_after == 0


def test_a_closed_deal_with_no_claim_judges_the_closer_at_60() -> None:
    """TV-66-6: scoring function."""
    scorer, award, _ = score_deal(opts(), (60, 60), (3, 3), None, closer=0, closer_opp_tricks=2)
    assert (scorer, award) == (1, 2)


def test_any_time_exchange_is_allowed_whenever_no_own_card_is_in_the_trick() -> None:
    """TV-66-7: exchange windows."""
    t = tv4_after_trick_1()
    assert EXCHANGE in t.legal(D)
    # D as follower: N must first win a trick to lead.
    t.trick(D, "KD", "TD")
    t.do(N, DRAW)
    t.do(N, play("TH"))
    assert EXCHANGE in t.legal(D)  # while following, before his card
    t.do(D, EXCHANGE)
    assert t.s.hands[D] >> C.parse("AS") & 1


def test_before_own_lead_refuses_the_follower() -> None:
    """TV-66-7: exchange windows."""
    t = tv4_after_trick_1(exchange_window="before_own_lead")
    assert EXCHANGE in t.legal(D)
    t.trick(D, "KD", "TD")
    t.do(N, DRAW)
    t.do(N, play("TH"))
    t.refused(D, EXCHANGE, Reason.EXCHANGE_NOT_ALLOWED)


def test_a_nine_holder_without_a_trick_may_not_exchange() -> None:
    """TV-66-7: exchange windows."""
    t = Table(TV4_N_NINE)
    t.trick(N, "JC", "AC")  # D wins; N holds 9S but has no trick
    t.refused(N, EXCHANGE, Reason.NO_TRICK_WON)
    t.do(D, DRAW)
    t.refused(N, EXCHANGE, Reason.NO_TRICK_WON)


def test_after_a_close_nobody_exchanges() -> None:
    """TV-66-7: exchange windows."""
    t = Table(TV4_N_NINE)
    t.trick(N, "JC", "AC")
    t.do(D, CLOSE)
    assert t.s.phase == "lead"
    t.refused(N, EXCHANGE, Reason.STOCK_NOT_OPEN)


def test_the_close_offers_the_non_closer_one_exchange() -> None:
    """TV-66-7: exchange windows."""
    t = Table(TV4_N_NINE, exchange_on_opponent_close=True)
    t.trick(N, "JC", "AC")
    t.do(D, CLOSE)  # before drawing
    assert t.s.phase == "close_exchange"
    assert RULES.to_act(t.s) == (N,)
    assert t.legal(N) == [EXCHANGE, DECLINE] and t.legal(D) == []
    t.refused(D, play("9C"), Reason.WRONG_PHASE)
    t.refused(N, CLAIM, Reason.WRONG_PHASE)
    (exchanged,) = t.do(N, EXCHANGE)  # with no trick won: allowed in this step only
    assert exchanged == TrumpExchanged(N, C.parse("9S"), C.parse("AS"), at_close=True)
    assert t.s.phase == "lead" and t.s.leader == D
    assert C.count(t.s.hands[N]) == 5 and C.count(t.s.hands[D]) == 5  # nobody drew
    view = RULES.view(t.s, None)
    assert view.turn_up == C.parse("9S") and not view.detail.turn_up_face_up
    assert view.detail.known_cards[N] == (C.parse("AS"),)


def test_the_exchange_offered_at_a_close_may_be_declined() -> None:
    """TV-66-7: exchange windows."""
    t = Table(TV4_N_NINE, exchange_on_opponent_close=True)
    t.trick(N, "JC", "AC")
    t.do(D, DRAW)
    t.do(D, CLOSE)  # after drawing
    t.do(N, DECLINE)
    assert t.s.phase == "lead" and t.s.turn_up == C.parse("AS")
    t.refused(N, EXCHANGE, Reason.STOCK_NOT_OPEN)


# TV4 with D's trump nine (9S) swapped with AH, the top stock card: nobody holds it.
TV4_NINE_IN_STOCK = "9C JC QC AH KD QD TH 9H JD AC TC KS AS 9S TD QS KH 9D JS AD KC QH JH TS"
# TV4 with 9S swapped with the turn-up AS: the trump nine is turned up, its place public.
TV4_NINE_TURNED_UP = "9C JC QC AS KD QD TH 9H JD AC TC KS 9S AH TD QS KH 9D JS AD KC QH JH TS"


@pytest.mark.parametrize(
    ("pack", "where"), [(TV4_NINE_IN_STOCK, "in the stock"), (TV4, "with the closer")]
)
def test_the_close_offers_the_exchange_whenever_the_nine_is_unseen(pack: str, where: str) -> None:
    """§16.9: the step reveals nothing, so it is asked whether or not the non-closer holds the
    nine; without it, declining is all he may do."""
    t = Table(pack, exchange_on_opponent_close=True)
    t.trick(N, "JC", "AC")
    t.do(D, CLOSE)
    assert t.s.phase == "close_exchange" and RULES.to_act(t.s) == RULES.may_act(t.s) == (N,)
    assert t.legal(N) == [DECLINE] and t.legal(D) == []
    t.refused(N, EXCHANGE, Reason.NO_TRUMP_NINE)
    t.refused(D, DECLINE, Reason.NOT_YOUR_TURN)
    assert RULES.timeout_move(t.s, N) == DECLINE
    (declined,) = t.do(N, DECLINE)
    assert declined == Called(N, "decline") and t.s.phase == "lead" and t.s.leader == D


def test_the_close_skips_the_exchange_when_the_nine_is_turned_up() -> None:
    t = Table(TV4_NINE_TURNED_UP, exchange_on_opponent_close=True)
    t.trick(N, "JC", "AC")
    t.do(D, CLOSE)
    assert t.s.phase == "lead" and RULES.to_act(t.s) == (D,)


def test_the_close_skips_the_exchange_when_the_nine_was_exchanged() -> None:
    t = Table(TV4, exchange_on_opponent_close=True)  # D holds 9S
    t.trick(N, "JC", "AC")
    t.do(D, EXCHANGE)  # any_time: after his won trick, before drawing
    t.do(D, CLOSE)
    assert t.s.phase == "lead" and RULES.to_act(t.s) == (D,)


def test_a_timeout_declines_only_at_the_close_exchange() -> None:
    t = Table(TV4_N_NINE, exchange_on_opponent_close=True)
    assert RULES.timeout_move(t.s, N) is None  # elsewhere the service's policy chooses
    t.trick(N, "JC", "AC")
    t.do(D, CLOSE)
    assert EXCHANGE in t.legal(N) and RULES.timeout_move(t.s, N) == DECLINE


def test_close_exchange_ignores_exchange_min_stock() -> None:
    # §16.3: the exchange at the opponent's close ignores exchange_min_stock. D holds the trump
    # nine (9H) and has tricks, but with exchange_min_stock = 4 the ordinary exchange is gone
    # once only the last face-down card and the turn-up remain; N then closes.
    t = Table(NINE_WITH_D, exchange_min_stock=4, exchange_on_opponent_close=True)
    tricks = [(N, "JC", "AC"), (D, "TC", "JH"), (N, "AH", "QC"), (N, "9S", "TH"), (D, "QH", "QS")]
    for leader, lead, follow in tricks:
        t.trick(leader, lead, follow)
        t.do(t.s.leader, DRAW)
    assert t.s.hands[D] == C.mask_of(cards("9H QD AS JD TS 9C")) and t.s.leader == D
    assert RULES.view(t.s, None).detail.stock_size == 2
    t.refused(D, EXCHANGE, Reason.EXCHANGE_NOT_ALLOWED)  # the stock is too small
    t.trick(D, "9C", "KC")  # N wins trick 6 and closes before the final draw
    t.refused(D, EXCHANGE, Reason.EXCHANGE_NOT_ALLOWED)
    t.do(N, CLOSE)
    assert t.s.phase == "close_exchange" and RULES.to_act(t.s) == (D,)
    assert t.legal(D) == [EXCHANGE, DECLINE]
    (exchanged,) = t.do(D, EXCHANGE)
    assert exchanged == TrumpExchanged(D, C.parse("9H"), C.parse("KH"), at_close=True)
    assert t.s.turn_up == C.parse("9H") and t.s.hands[D] >> C.parse("KH") & 1
    assert t.s.phase == "lead" and t.s.leader == N
    assert [C.count(h) for h in t.s.hands] == [5, 5]  # closed before drawing: nobody drew


def play_out_without_claims(t: Table) -> None:
    """Finish the current deal with no claim or close: first legal card, draw, then pass."""
    deal = t.s.deal_no
    while t.s.deal_no == deal and not t.s.finished:
        seat = t.s.window_seat if t.s.phase == "end_window" else None
        if seat is not None:
            t.do(seat, PASS)
            continue
        if t.s.phase == "post_trick":
            t.do(t.s.leader, DRAW)
            continue
        seat = t.s.leader if t.s.phase == "lead" else 1 - t.s.leader
        t.do(seat, next(m for m in t.legal(seat) if isinstance(m, PlayCard)))


def test_the_dealer_alternates_even_after_a_deal_that_scored_nothing() -> None:
    """TV-66-8: match flow."""
    t = Table()
    dealers = [t.s.dealer]
    play_out_without_claims(t)
    assert t.last_scored().points == (0, 0)  # gamefarm: nobody claimed, nobody scores
    for _ in range(3):
        dealers.append(t.s.dealer)
        t.do(1 - t.s.dealer, CLAIM)  # N claims before any trick: fails
    assert dealers == [0, 1, 0, 1]


def test_the_winner_deals_next_and_a_drawn_deal_keeps_the_dealer() -> None:
    """TV-66-8: match flow."""
    t = Table(TV3, pack_2=TV5, preset="pagat", endgame_follow="follow_suit")
    # Deal 1 (P0 deals): TV-66-3, N = P1 claims after trick 3.
    t.do(N, DeclareMarriage(C.HEARTS))
    t.trick(N, "QH", "9S")
    t.do(N, DRAW)
    t.trick(N, "AS", "KS")
    t.do(N, DRAW)
    t.trick(N, "TS", "QD")
    t.do(N, CLAIM)
    assert t.s.scores == [0, 3] and t.s.dealer == 1  # P1 won deal 1, so P1 deals deal 2
    # Deal 2: TV-66-5 with P1 dealing (so N = P0): 65-65, a drawn deal under pagat.
    play_tv5(t, n=0, d=1)
    t.do(0, PASS)
    assert t.last_scored().note == "drawn deal"
    assert t.s.deal_no == 3 and t.s.dealer == 1


def test_the_deal_that_reaches_7_ends_the_match() -> None:
    """TV-66-8: match flow."""
    t = Table(failed_claim_points="flat2")
    t.s.scores = [5, 6]
    t.do(1, CLAIM)  # seat 1 claims with nothing: seat 0 (on 5) gets 2
    assert t.s.scores == [7, 6] and t.s.finished and t.s.winners == [0]
    assert isinstance(t.events[-1], GameOver) and t.events[-1].winners == (0,)
    assert RULES.outcome(t.s).winners == (0,)
    assert RULES.to_act(t.s) == () and t.legal(0) == [] and t.legal(1) == []
    t.refused(0, CLAIM, Reason.GAME_OVER)


# -- dealing and the stock -----------------------------------------------------------------------


def test_dealing_gives_three_and_three_to_each_starting_with_the_non_dealer() -> None:
    pack = C.parse_many(TV3)
    t = Table(TV3)
    assert t.s.hands[N] == C.mask_of(pack[0:3] + pack[6:9])
    assert t.s.hands[D] == C.mask_of(pack[3:6] + pack[9:12])
    assert t.s.turn_up == pack[12] and t.s.stock == pack[13:]
    view = RULES.view(t.s, N)
    assert view.detail.stock_size == 12 and view.detail.stock_state == "open"
    assert view.to_act == (N,) and view.phase == "lead" and view.turn_up == pack[12]
    assert view.may_act == (0, 1)  # D may claim between tricks (gamefarm), but need not
    deal = t.events[0]
    assert isinstance(deal, DealStarted) and deal.trump == C.HEARTS and deal.turn_up == pack[12]


def test_first_dealer_is_a_seeded_draw_or_seat_0() -> None:
    chosen = {
        RULES.new_game({}, seed=bytes([i]), overrides={"first_dealer": [d]}).dealer
        for i, d in enumerate([0, 1])
    }
    assert chosen == {0, 1}
    seen = {RULES.new_game({}, seed=bytes([i])).dealer for i in range(1, 40)}
    assert seen == {0, 1}
    assert all(
        RULES.new_game({"first_dealer": "seat0"}, seed=bytes([i])).dealer == 0 for i in range(1, 9)
    )


def test_drawing_winner_first_each_sees_only_his_own_card() -> None:
    t = Table(TV3)
    t.trick(N, "KH", "9H")  # N wins (same suit, K > 9)
    assert t.s.phase == "post_trick" and t.legal(N)[0] == DRAW
    t.refused(D, DRAW, Reason.NOT_YOUR_TURN)
    first, second = t.do(N, DRAW)
    assert isinstance(first, CardDrawn) and isinstance(second, CardDrawn)
    assert (first.seat, first.card, first.stock_left) == (N, C.parse("KC"), 11)
    assert (second.seat, second.card, second.stock_left) == (D, C.parse("9D"), 10)
    assert first.visible_to(N).card == C.parse("KC") and first.visible_to(D).card is None
    assert second.visible_to(D).card == C.parse("9D") and second.visible_to(N).card is None
    assert first.visible_to(None).card is None and second.visible_to(None).card is None
    assert t.s.phase == "lead" and t.s.leader == N


def test_the_turn_up_drawn_last_is_public() -> None:
    t = Table(TV5)
    play_tv5(t)
    last = [e for e in t.events if isinstance(e, CardDrawn)][-1]
    assert last.face_up and last.card == C.parse("KH") and last.stock_left == 0
    # Each draw says how many stock cards are left after it: 11 face down and the turn-up at
    # first, one fewer per draw (the draw events are shared, prebuilt objects).
    lefts = [e.stock_left for e in t.events if isinstance(e, CardDrawn)]
    assert lefts == list(range(11, -1, -1))
    assert all(last.visible_to(v).card == C.parse("KH") for v in (0, 1, None))


def test_phase_one_allows_any_card() -> None:
    t = Table(TV3)
    t.do(N, play("AS"))
    assert {m.card for m in t.legal(D) if isinstance(m, PlayCard)} == cards("9H AD TD KS QD 9S")


def test_not_your_turn_and_card_not_in_hand() -> None:
    t = Table(TV3)
    t.refused(D, play("9H"), Reason.NOT_YOUR_TURN)
    t.refused(N, play("9H"), Reason.CARD_NOT_IN_HAND)
    t.refused(N, PlayCard(99), Reason.CARD_NOT_IN_HAND)
    t.do(N, play("AS"))
    t.refused(N, play("TS"), Reason.NOT_YOUR_TURN)
    t.refused(D, DRAW, Reason.WRONG_PHASE)


def test_strict_follow_to_a_trump_lead_means_a_higher_trump() -> None:
    hand = C.mask_of(C.parse_many("9H AH AS"))
    assert follow_mask(hand, C.parse("QH"), C.HEARTS, True, True) == C.mask_of([C.parse("AH")])
    assert follow_mask(hand, C.parse("QH"), C.HEARTS, True, False) == C.mask_of(
        C.parse_many("9H AH")
    )


def test_once_the_stock_is_exhausted_no_close_exchange_or_marriage() -> None:
    t = Table(TV5)
    for i, (leader, lead, follow, _, _) in enumerate(TV5_TRICKS[:6]):
        t.trick(leader, lead, follow)
        t.do(t.s.leader, DRAW)
        assert (i < 5) == (RULES.view(t.s, None).detail.stock_state == "open")
    assert t.s.phase == "lead" and t.s.leader == N
    t.refused(N, CLOSE, Reason.STOCK_NOT_OPEN)
    t.refused(N, EXCHANGE, Reason.STOCK_NOT_OPEN)
    t.refused(N, DeclareMarriage(C.DIAMONDS), Reason.STOCK_NOT_OPEN)
    t.do(N, play("JS"))
    # Phase 2: D must follow spades (follow_suit: any spade).
    assert {m.card for m in t.legal(D) if isinstance(m, PlayCard)} == cards("AS KS TS")


# -- marriages -----------------------------------------------------------------------------------


def test_marriage_points_count_only_once_a_trick_is_won() -> None:
    # TV-66-3 with D's 9H and the stock's AH swapped: D can take N's marriage lead.
    t = Table("KH QH AS AH AD TD TS 9C JC KS QD 9S JH KC 9D QS 9H JD TC JS KD AC TH QC")
    t.do(N, DeclareMarriage(C.HEARTS))
    assert t.count(N) == 0
    assert RULES.view(t.s, D).detail.marriages[0].counts is False
    t.do(N, play("QH"))
    t.do(D, play("AH"))  # D takes it: N still has no trick, so his 40 does not count yet
    assert t.count(N) == 0 and t.count(D) == 14
    t.do(D, DRAW)
    t.do(D, play("9S"))
    t.do(N, play("AS"))
    assert t.count(N) == 11 + 40
    assert RULES.view(t.s, D).detail.marriages[0].counts is True


def test_plain_marriage_is_worth_20_and_the_lead_must_come_from_it() -> None:
    t = tv4_after_trick_1()
    t.refused(D, DeclareMarriage(C.HEARTS), Reason.NO_MARRIAGE)
    t.refused(D, DeclareMarriage(7), Reason.NO_MARRIAGE)
    t.refused(N, DeclareMarriage(C.DIAMONDS), Reason.NOT_YOUR_TURN)
    (married,) = t.do(D, DeclareMarriage(C.DIAMONDS))
    assert isinstance(married, MarriageDeclared) and married.points == 20
    t.refused(D, DeclareMarriage(C.DIAMONDS), Reason.MARRIAGE_ALREADY_DECLARED)
    assert {m.card for m in t.legal(D) if isinstance(m, PlayCard)} == cards("KD QD")
    t.refused(D, play("AH"), Reason.MUST_LEAD_MARRIAGE)
    t.do(D, play("QD"))
    view = RULES.view(t.s, N)
    assert view.detail.known_cards[D] == (C.parse("KD"),)  # the partner is known to be held
    assert view.detail.marriage_suit is None


def test_marriage_only_by_the_leader_before_his_lead_card() -> None:
    t = Table(TV3)
    t.do(N, play("AS"))
    t.refused(N, DeclareMarriage(C.HEARTS), Reason.WRONG_PHASE)
    t.do(D, play("KS"))  # N wins
    t.refused(N, DeclareMarriage(C.HEARTS), Reason.WRONG_PHASE)  # §16.1: only after the draw
    t.do(N, DRAW)
    assert DeclareMarriage(C.HEARTS) in t.legal(N)


def test_winner_who_closes_before_drawing_cannot_marry() -> None:
    t = Table(TV3)
    t.trick(N, "AS", "KS")
    t.do(N, CLOSE)
    t.refused(N, DeclareMarriage(C.HEARTS), Reason.STOCK_NOT_OPEN)


def test_marriage_when_stock_gone_flag_allows_it_after_a_close() -> None:
    t = Table(TV3, marriage_when_stock_gone=True)
    t.trick(N, "AS", "KS")
    t.do(N, CLOSE)
    t.do(N, DeclareMarriage(C.HEARTS))
    assert t.count(N) == 15 + 40


@pytest.mark.parametrize(("preset", "award"), [("gamefarm", 3), ("pagat", 2)])
def test_marriage_then_claim_without_leading(preset: str, award: int) -> None:
    # §9.7 example 8: 40 declared, a claim at once; the 40 does not count without a trick.
    t = Table(TV3, preset=preset)
    if preset == "pagat":
        t.refused(N, CLAIM, Reason.CLAIM_NOT_ALLOWED)
    t.do(N, DeclareMarriage(C.HEARTS))
    t.do(N, CLAIM)
    assert t.last_scored().taken == (0, 0) and t.s.scores == [award, 0]


def test_second_marriage_needs_a_new_lead() -> None:
    # N holds both the heart and the club marriage.
    pack = "KH QH KC 9H AD TD QC TS 9C JC KS QD AS JH 9D QS AH JD TC JS KD AC TH 9S"
    t = Table(pack)
    assert {DeclareMarriage(C.HEARTS), DeclareMarriage(C.CLUBS)} <= set(t.legal(N))
    t.do(N, DeclareMarriage(C.CLUBS))
    t.refused(N, DeclareMarriage(C.HEARTS), Reason.MARRIAGE_ALREADY_DECLARED)
    t.trick(N, "QC", "KS")  # D trumps (♠): D leads next
    t.do(D, DRAW)
    t.do(D, play("JC"))
    t.do(N, play("KC"))  # N wins back the lead
    t.do(N, DRAW)
    (married,) = t.do(N, DeclareMarriage(C.HEARTS))
    assert isinstance(married, MarriageDeclared) and married.points == 20  # trump is ♠


# -- the trump-nine exchange ---------------------------------------------------------------------


def test_exchange_needs_the_nine_and_is_public() -> None:
    t = tv4_after_trick_1()
    t.refused(N, EXCHANGE, Reason.NO_TRUMP_NINE)
    (exchanged,) = t.do(D, EXCHANGE)
    assert all(exchanged.visible_to(v) == exchanged for v in (0, 1, None))
    t.refused(D, EXCHANGE, Reason.NO_TRUMP_NINE)  # only one nine, one exchange per deal
    assert RULES.view(t.s, N).detail.known_cards[D] == (C.parse("AS"),)


def test_no_exchange_exists_when_the_turn_up_is_the_nine() -> None:
    pack = "KH QH AS 9H AD TD TS 9C JC KS QD JH 9S KC 9D QS AH JD TC JS KD AC TH QC"
    t = Table(pack)
    assert t.s.turn_up == C.parse("9S")
    t.trick(N, "AS", "KS")
    t.refused(N, EXCHANGE, Reason.NO_TRUMP_NINE)
    t.refused(D, EXCHANGE, Reason.NO_TRUMP_NINE)


def test_exchange_not_while_own_card_is_in_the_trick() -> None:
    t = tv4_after_trick_1()
    t.do(D, play("KD"))
    t.refused(D, EXCHANGE, Reason.EXCHANGE_NOT_ALLOWED)


@pytest.mark.parametrize("window", ["any_time", "before_own_lead"])
def test_exchange_after_a_marriage_in_the_same_lead(window: str) -> None:
    # §5 (a) and §6 "Order of pre-lead actions": exchange, marriage and close may come in any
    # order before the lead card; the lead must still come from the marriage.
    t = tv4_after_trick_1(exchange_window=window)
    t.do(D, DeclareMarriage(C.DIAMONDS))
    assert EXCHANGE in t.legal(D)
    (exchanged,) = t.do(D, EXCHANGE)
    assert exchanged == TrumpExchanged(D, C.parse("9S"), C.parse("AS"), at_close=False)
    assert t.s.turn_up == C.parse("9S")
    assert t.s.hands[D] == C.mask_of(cards("AS KD QD TC KS AH"))
    assert t.count(D) == 11 + 20
    assert {m.card for m in t.legal(D) if isinstance(m, PlayCard)} == cards("KD QD")
    t.refused(D, play("AS"), Reason.MUST_LEAD_MARRIAGE)
    assert CLOSE in t.legal(D)  # and the close may still follow, before the lead card


def test_any_time_exchange_out_of_turn_between_tricks() -> None:
    t = tv4_after_trick_1()
    # D leads KD, N wins with TD: D, not on lead, may exchange before N's lead and before draw.
    t.trick(D, "KD", "TD")
    assert t.s.phase == "post_trick" and EXCHANGE in t.legal(D)
    # D may claim (public, between_tricks) and exchange (his own): optional, never waited for
    assert RULES.may_act(t.s) == RULES.movers(t.s) == (0, 1) and RULES.to_act(t.s) == (N,)
    t.do(N, DRAW)
    assert EXCHANGE in t.legal(D)


def test_an_exchange_out_of_turn_is_told_to_its_seat_alone() -> None:
    """§16.9: may_act is public, so the nine's holder is not listed for his exchange; his own
    legal moves tell him of it (``movers`` lists him, for the service)."""
    t = tv4_after_trick_1(claim_window="after_own_trick_or_marriage")
    t.trick(D, "KD", "TD")  # N wins; D holds the trump nine 9S and has won trick 1
    assert EXCHANGE in t.legal(D) and CLAIM not in t.legal(D)
    assert RULES.to_act(t.s) == RULES.may_act(t.s) == (N,)
    assert RULES.movers(t.s) == (D, N)
    for viewer in (None, D, N):
        view = RULES.view(t.s, viewer)
        assert view.may_act == (N,) and view.to_act == (N,)
    assert EXCHANGE in RULES.view(t.s, D).legal_moves
    t.do(D, EXCHANGE)  # made out of turn, as before
    assert t.s.turn_up == C.parse("9S")


def test_before_own_lead_lists_the_non_leader_only_when_he_can_act() -> None:
    t = tv4_after_trick_1(preset="pagat")
    t.trick(D, "KD", "TD")
    assert RULES.to_act(t.s) == RULES.may_act(t.s) == (N,)  # D has no claim nor exchange (pagat)
    t.refused(D, EXCHANGE, Reason.EXCHANGE_NOT_ALLOWED)
    t.refused(D, CLAIM, Reason.CLAIM_NOT_ALLOWED)


# D holds the trump nine (9H; the turn-up KH makes hearts trumps) from the deal.
NINE_WITH_D = "QS 9S AD 9H QC AC JH JC AH QD TC TH KH AS TD 9D QH KS JD TS KD 9C KC JS"


def play_tricks_keeping_the_nine(t: Table, tricks: int) -> None:
    """Trick 1 is N's JC to D's AC (D wins); then the first cards that are not 9H, drawing."""
    t.trick(N, "JC", "AC")
    nine = C.parse("9H")
    for _ in range(tricks - 1):
        t.do(t.s.leader, DRAW)
        for seat in (t.s.leader, 1 - t.s.leader):
            t.do(seat, next(m for m in t.legal(seat) if isinstance(m, PlayCard) and m.card != nine))


def test_exchange_in_the_pre_draw_pause_after_trick_6() -> None:
    t = Table(NINE_WITH_D)
    play_tricks_keeping_the_nine(t, 6)
    assert t.s.phase == "post_trick" and RULES.view(t.s, None).detail.stock_size == 2
    assert t.s.tricks_won[D] >= 1 and EXCHANGE in t.legal(D)
    t.do(D, EXCHANGE)
    winner = t.s.leader
    step = t.do(winner, DRAW)
    last = step[-1]
    assert isinstance(last, CardDrawn) and last.face_up and last.seat == 1 - winner
    assert last.card == C.parse("9H")  # the loser of trick 6 takes the nine
    assert RULES.view(t.s, None).detail.stock_state == "exhausted"


def test_exchange_min_stock_4_forbids_it_at_the_last_face_down_card() -> None:
    t = Table(NINE_WITH_D, exchange_min_stock=4)
    play_tricks_keeping_the_nine(t, 5)
    assert RULES.view(t.s, None).detail.stock_size == 4
    assert EXCHANGE in t.legal(D)
    t.do(t.s.leader, DRAW)
    assert RULES.view(t.s, None).detail.stock_size == 2
    t.refused(D, EXCHANGE, Reason.EXCHANGE_NOT_ALLOWED)

    t = Table(NINE_WITH_D)  # the default (2) still allows it there
    play_tricks_keeping_the_nine(t, 5)
    t.do(t.s.leader, DRAW)
    assert EXCHANGE in t.legal(D)


def test_exchange_min_stock_must_be_2_or_4() -> None:
    with pytest.raises(InvalidOptions) as err:
        RULES.options({"exchange_min_stock": 3})
    assert err.value.reason == Reason.INVALID_OPTION_VALUE


# -- closing -------------------------------------------------------------------------------------


def test_non_dealer_may_close_before_the_first_lead() -> None:
    t = Table(TV3)
    t.refused(D, CLOSE, Reason.NOT_YOUR_TURN)
    (closed,) = t.do(N, CLOSE)
    assert closed == StockClosed(N, before_draw=False, opponent_tricks=0)
    t.refused(N, CLOSE, Reason.STOCK_NOT_OPEN)
    t.refused(N, DeclareMarriage(C.HEARTS), Reason.STOCK_NOT_OPEN)
    assert RULES.view(t.s, D).detail.stock_state == "closed"


def test_closing_before_drawing_leaves_five_cards_each() -> None:
    t = Table(TV3)
    t.trick(N, "AS", "KS")
    t.refused(D, CLOSE, Reason.NOT_YOUR_TURN)
    (closed,) = t.do(N, CLOSE)
    assert isinstance(closed, StockClosed) and closed.before_draw
    assert [C.count(h) for h in t.s.hands] == [5, 5] and t.s.phase == "lead"
    t.refused(N, DRAW, Reason.WRONG_PHASE)
    # Phase 2 follow rules apply now: D must follow hearts.
    t.do(N, play("QH"))
    assert {m.card for m in t.legal(D) if isinstance(m, PlayCard)} == cards("9H")


def test_follower_cannot_close() -> None:
    t = Table(TV3)
    t.do(N, play("AS"))
    t.refused(D, CLOSE, Reason.WRONG_PHASE)
    t.refused(N, CLOSE, Reason.WRONG_PHASE)


def _to_pause_after_trick_6(**options: Any) -> Table:
    t = Table(TV5, **options)
    for leader, lead, follow, _, _ in TV5_TRICKS[:5]:
        t.trick(leader, lead, follow)
        t.do(t.s.leader, DRAW)
    assert t.s.phase == "lead" and RULES.view(t.s, None).detail.stock_size == 2
    return t


def test_close_before_final_draw_flag() -> None:
    t = _to_pause_after_trick_6()
    assert CLOSE in t.legal(N)  # leading to trick 6: the last chance under both rules
    t.trick(N, "TD", "KC")
    t.do(N, CLOSE)  # gamefarm: allowed before the last two stock cards are drawn
    assert t.s.closer == N

    t = _to_pause_after_trick_6(close_before_final_draw=False)
    t.trick(N, "TD", "KC")
    t.refused(N, CLOSE, Reason.CLOSE_NOT_ALLOWED)


def test_a_closed_deal_has_no_last_trick_bonus() -> None:
    t = Table(TV3)
    t.do(N, CLOSE)
    play_out_without_claims(t)
    scored = t.last_scored()
    assert sum(scored.taken) == 120 - sum(POINTS[c] for c in C.parse_many(TV3)[12:])


def test_the_last_trick_of_an_open_deal_is_worth_10() -> None:
    t = Table(TV5)
    play_tv5(t)
    assert t.s.card_points == [65, 55] and t.count(N) == 65 and t.s.bonus_seat == N


# -- claiming ------------------------------------------------------------------------------------


def test_between_tricks_either_player_may_claim_but_not_during_a_trick() -> None:
    t = Table(TV3)
    assert CLAIM in t.legal(D) and CLAIM in t.legal(N)
    t.do(N, play("AS"))
    assert RULES.to_act(t.s) == (D,)
    t.refused(D, CLAIM, Reason.CLAIM_NOT_ALLOWED)
    t.refused(N, CLAIM, Reason.CLAIM_NOT_ALLOWED)
    t.do(D, play("KS"))
    assert CLAIM in t.legal(D)  # the loser, in the post-trick pause
    t.do(D, CLAIM)
    assert t.last_scored().made == (False, None)


def test_after_own_trick_or_marriage_window() -> None:
    t = Table(TV3, claim_window="after_own_trick_or_marriage")
    t.refused(N, CLAIM, Reason.CLAIM_NOT_ALLOWED)  # N has won nothing yet
    t.refused(D, CLAIM, Reason.CLAIM_NOT_ALLOWED)
    t.trick(N, "AS", "KS")
    t.refused(D, CLAIM, Reason.CLAIM_NOT_ALLOWED)
    assert CLAIM in t.legal(N)
    t.do(N, DRAW)
    assert CLAIM in t.legal(N)  # still before his next lead
    t.do(N, play("TS"))
    t.refused(N, CLAIM, Reason.CLAIM_NOT_ALLOWED)


def test_a_player_who_does_not_claim_can_lose_to_a_later_claim() -> None:
    t = Table(TV5, unclaimed_open_deal="higher_total")
    play_tv5(t)
    t.do(N, PASS)
    t.do(D, CLAIM)  # 65 is not enough
    assert t.s.scores == [0, 2]


# -- scoring flags -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "claimant_tricks", "opponent_tricks", "award"),
    [
        ("gf", 1, 1, 2),
        ("gf", 0, 1, 3),
        ("gf", 1, 0, 3),
        ("gf_opponent", 0, 1, 2),
        ("gf_opponent", 1, 0, 3),
        ("gf_claimant", 0, 1, 3),
        ("gf_claimant", 1, 0, 2),
        ("flat2", 0, 0, 2),
    ],
)
def test_failed_claim_points_flag(
    rule: str, claimant_tricks: int, opponent_tricks: int, award: int
) -> None:
    assert failed_claim_award(rule, claimant_tricks, opponent_tricks) == award
    o = opts(failed_claim_points=rule)
    result = score_deal(
        o, (0, 40), (opponent_tricks, claimant_tricks), 1, closer=None, closer_opp_tricks=0
    )
    assert result[:2] == (0, award)


def test_win_award_thresholds_are_inclusive() -> None:
    assert win_award(33, 1) == 1 and win_award(32, 1) == 2 and win_award(0, 1) == 2
    assert win_award(0, 0) == 3


@pytest.mark.parametrize(
    ("preset", "closer_opp_tricks", "expected"),
    [("gamefarm", 0, (1, 2)), ("pagat", 1, (1, 2)), ("pagat", 0, (1, 3))],
)
def test_worked_example_10_closer_at_60(
    preset: str, closer_opp_tricks: int, expected: tuple[int, int]
) -> None:
    # N (seat 0 here) closed; 60-60 at the end, both with tricks; nobody claims.
    result = score_deal(
        opts(preset=preset),
        (60, 60),
        (3, 3),
        None,
        closer=0,
        closer_opp_tricks=closer_opp_tricks,
    )
    assert result[:2] == expected


@pytest.mark.parametrize(("preset", "award"), [("gamefarm", 1), ("pagat", 2)])
def test_worked_example_11_non_closer_out_points(preset: str, award: int) -> None:
    # D (seat 0) closed; N (seat 1) claims correctly with 70, D has 40.
    result = score_deal(opts(preset=preset), (40, 70), (3, 3), 1, closer=0, closer_opp_tricks=1)
    assert result[:2] == (1, award)
    flat = opts(non_closer_out_points="flat2")
    assert score_deal(flat, (40, 70), (3, 3), 1, closer=0, closer_opp_tricks=1)[:2] == (1, 2)


def test_false_out_by_the_closer_follows_clarification_6() -> None:
    closer_fails = opts(unclaimed_closed_deal="closer_fails", failed_claim_points="gf")
    assert score_deal(closer_fails, (50, 30), (3, 2), 0, closer=0, closer_opp_tricks=0)[:2] == (
        1,
        3,
    )
    assert score_deal(closer_fails, (50, 30), (3, 2), 0, closer=0, closer_opp_tricks=1)[:2] == (
        1,
        2,
    )
    as_claimant = opts(failed_claim_points="gf")
    assert score_deal(as_claimant, (50, 30), (3, 2), 0, closer=0, closer_opp_tricks=0)[:2] == (
        1,
        2,
    )


def test_false_out_by_the_non_closer_gives_the_closer_the_failed_claim_points() -> None:
    pagat = opts(preset="pagat")
    assert score_deal(pagat, (50, 30), (3, 0), 1, closer=0, closer_opp_tricks=0)[:2] == (0, 2)


@pytest.mark.parametrize(("preset", "expected"), [("gamefarm", (None, 0)), ("pagat", (0, 1))])
def test_worked_example_13_played_out_80_50(preset: str, expected: tuple[int | None, int]) -> None:
    result = score_deal(
        opts(preset=preset), (80, 50), (7, 5), None, closer=None, closer_opp_tricks=0
    )
    assert result[:2] == expected


def test_carry_over_flag() -> None:
    assert with_carry(None, 0, 0, carry_over=True) == (0, 1)
    assert with_carry(None, 0, 1, carry_over=True) == (0, 2)
    assert with_carry(None, 0, 0, carry_over=False) == (0, 0)
    assert with_carry(1, 2, 2, carry_over=True) == (4, 0)


def test_carry_goes_to_the_next_award_whoever_gets_it() -> None:
    t = Table(TV5)
    play_tv5(t)
    t.do(N, PASS)
    t.do(D, PASS)
    assert t.s.carry == 1
    t.do(t.s.leader, CLAIM)  # deal 2: the non-dealer claims at once and fails (3)
    assert sum(t.s.scores) == 4 and t.s.carry == 0
    assert t.last_scored().points in ((4, 0), (0, 4))


def test_pagat_has_no_carry() -> None:
    t = Table(TV5, preset="pagat", endgame_follow="follow_suit", unclaimed_open_deal="no_score")
    play_tv5(t)
    t.do(N, PASS)
    assert t.s.carry == 0 and t.s.scores == [0, 0]


def test_a_drawn_higher_total_deal_adds_1_to_the_carry() -> None:
    # §16.8: with carry_over on, a drawn higher_total deal (65-65) adds 1 to the carry, and
    # the next deal that awards game points takes it (§9.4).
    t = Table(TV5, unclaimed_open_deal="higher_total", carry_over=True)
    play_tv5(t)
    t.do(N, PASS)
    t.do(D, PASS)
    scored = t.last_scored()
    assert scored.note == "drawn deal" and scored.points == (0, 0)
    assert t.s.carry == 1 and t.s.scores == [0, 0]
    assert RULES.view(t.s, None).detail.carry == 1
    # Deal 2, dealt by seat 1: seat 0 claims before any trick and fails; neither player has a
    # trick, so seat 1 gets 3 (gf), plus the carried 1.
    assert t.s.deal_no == 2 and t.s.leader == 0
    t.do(0, CLAIM)
    assert t.last_scored().points == (0, 4)
    assert t.s.scores == [0, 4] and t.s.carry == 0


def test_pagat_with_carry_over_on_carries_a_drawn_deal() -> None:
    # §9.5: carry_over is off in pagat "unless the host turns it on"; §16.8 then applies.
    t = Table(TV5, preset="pagat", endgame_follow="follow_suit", carry_over=True)
    play_tv5(t)
    t.do(N, PASS)  # pagat: only the last-trick winner is asked
    assert t.last_scored().note == "drawn deal"
    assert t.s.carry == 1 and t.s.scores == [0, 0]


def test_shutout_counts_double_is_shown_as_match_stakes() -> None:
    for flag, stakes in ((True, 2), (False, 1)):
        t = Table(shutout_counts_double=flag, target_game_points=3)
        t.do(N, CLAIM)  # fails with no tricks at all: D +3, match over at 3-0
        assert t.s.finished and t.s.scores == [3, 0]
        assert RULES.view(t.s, 0).detail.match_stakes == stakes


def test_target_game_points_flag() -> None:
    t = Table(target_game_points=1)
    t.do(N, CLAIM)
    assert t.s.finished and t.s.winners == [D]


def test_next_dealer_winner_flag() -> None:
    t = Table(next_dealer="winner")
    t.do(N, CLAIM)  # D scores, so D (seat 0) deals again
    assert t.s.dealer == D and t.s.deal_no == 2
    t.do(1, CLAIM)  # seat 1 fails again: seat 0 keeps the deal
    assert t.s.dealer == D
    t.do(D, CLAIM)  # seat 0 fails: seat 1 wins the deal and deals
    assert t.s.dealer == N


@pytest.mark.parametrize("preset", ["gamefarm", "pagat"])
def test_alternate_dealer_after_a_drawn_deal(preset: str) -> None:
    # §16.7: next_dealer alone decides; under alternate the other player deals after a drawn
    # deal too (under winner the same dealer would deal again).
    t = Table(
        TV5,
        preset=preset,
        next_dealer="alternate",
        endgame_follow="follow_suit",
        unclaimed_open_deal="higher_total",
    )
    assert t.s.dealer == D
    play_tv5(t)
    t.do(N, PASS)
    if preset == "gamefarm":
        t.do(D, PASS)
    assert t.last_scored().note == "drawn deal" and t.s.scores == [0, 0]
    assert t.s.deal_no == 2 and t.s.dealer == N
    started = t.events[-1]
    assert isinstance(started, DealStarted) and started.deal_no == 2 and started.dealer == N
    assert t.s.leader == D  # the new non-dealer leads


def test_remaining_hands_are_shown_when_a_claim_ends_the_deal() -> None:
    t = Table(TV3)
    step = t.do(N, CLAIM)
    exposed = {e.seat: set(e.cards) for e in step if isinstance(e, CardsExposed)}
    assert exposed == {N: cards("KH QH AS TS 9C JC"), D: cards("9H AD TD KS QD 9S")}
    assert isinstance(step[0], Called) and step[0].call == "claim"
    assert isinstance(step[-1], DealStarted) and step[-1].deal_no == 2


# -- visibility (§13) ----------------------------------------------------------------------------


def test_last_trick_reviewable_until_the_next_lead_only() -> None:
    t = Table(TV3)
    t.trick(N, "AS", "KS")
    view = RULES.view(t.s, D)
    assert len(view.tricks) == 1 and view.tricks[0].cards == (C.parse("AS"), C.parse("KS"))
    t.do(N, DRAW)
    assert len(RULES.view(t.s, None).tricks) == 1
    t.do(N, play("TS"))
    assert RULES.view(t.s, N).tricks == ()
    t.do(D, play("QD"))
    assert [tr.cards for tr in RULES.view(t.s, N).tricks] == [tuple(C.parse_many("TS QD"))]

    t = Table(TV3, review_last_trick=False)
    t.trick(N, "AS", "KS")
    assert RULES.view(t.s, D).tricks == ()


def test_running_points_are_hidden_unless_show_own_points() -> None:
    t = Table(TV3)
    t.trick(N, "AS", "KS")
    assert all(sv.points_taken is None for v in (0, 1, None) for sv in RULES.view(t.s, v).seats)
    t = Table(TV3, show_own_points=True)
    t.trick(N, "AS", "KS")
    view = RULES.view(t.s, N)
    assert view.seats[N].points_taken == 15 and view.seats[D].points_taken is None
    assert RULES.view(t.s, D).seats[D].points_taken == 0
    assert RULES.view(t.s, D).seats[N].points_taken is None
    assert all(sv.points_taken is None for sv in RULES.view(t.s, None).seats)


def test_views_show_only_the_viewers_hand() -> None:
    t = Table(TV3)
    for viewer in (0, 1):
        view = RULES.view(t.s, viewer)
        assert view.seats[viewer].hand == tuple(C.cards_of(t.s.hands[viewer]))
        assert view.seats[1 - viewer].hand is None and view.seats[1 - viewer].hand_size == 6
        assert cards_in(view) == set(C.cards_of(t.s.hands[viewer])) | {t.s.turn_up}
    assert cards_in(RULES.view(t.s, None)) == {t.s.turn_up}
    assert RULES.view(t.s, None).legal_moves == ()


def test_deal_started_shows_each_seat_only_its_hand() -> None:
    deal = Table(TV3).events[0]
    assert isinstance(deal, DealStarted)
    assert deal.visible_to(N).hands[D] is None and deal.visible_to(N).hands[N] is not None
    assert deal.visible_to(None).hands == (None, None)


def test_trick_won_and_marriage_events_are_public() -> None:
    t = Table(TV3)
    t.do(N, DeclareMarriage(C.HEARTS))
    step = t.trick(N, "QH", "9S")
    won = step[-1]
    assert isinstance(won, TrickWon) and won.points == 3 and won.winner == N
    assert won.visible_to(None) == won


# -- options and records -------------------------------------------------------------------------


def test_pagat_preset_sets_its_flags_and_explicit_flags_win() -> None:
    o = opts(preset="pagat")
    assert (o.next_dealer, o.endgame_follow, o.claim_window, o.failed_claim_points) == (
        "winner",
        "strict",
        "after_own_trick_or_marriage",
        "flat2",
    )
    assert (o.unclaimed_closed_deal, o.non_closer_out_points, o.unclaimed_open_deal) == (
        "closer_fails",
        "flat2",
        "higher_total",
    )
    assert not o.carry_over and o.exchange_window == "before_own_lead"
    assert o.exchange_on_opponent_close and not o.close_before_final_draw
    assert opts(preset="pagat", carry_over=True).carry_over
    g = opts()
    assert g.preset == "gamefarm" and g.endgame_follow == "follow_suit" and g.carry_over
    assert opts(preset="gamefarm", endgame_follow="strict").endgame_follow == "strict"


def test_every_flag_of_the_variants_table_is_an_option() -> None:
    names = {spec.name for spec in RULES.game_type().options}
    assert names == {
        "preset",
        "target_game_points",
        "first_dealer",
        "next_dealer",
        "endgame_follow",
        "claim_window",
        "failed_claim_points",
        "unclaimed_closed_deal",
        "non_closer_out_points",
        "unclaimed_open_deal",
        "carry_over",
        "exchange_window",
        "exchange_min_stock",
        "exchange_on_opponent_close",
        "close_before_final_draw",
        "marriage_when_stock_gone",
        "review_last_trick",
        "show_own_points",
        "shutout_counts_double",
    }


def test_unknown_call_is_refused() -> None:
    t = Table(TV3)
    t.refused(N, Call("redouble"), Reason.CALL_NOT_ALLOWED)
    t.refused(N, PASS, Reason.CALL_NOT_ALLOWED)
    t.refused(N, DECLINE, Reason.CALL_NOT_ALLOWED)


def test_snapshot_round_trip_mid_deal() -> None:
    t = tv4_after_trick_1()
    t.do(D, EXCHANGE)
    restored = RULES.restore(RULES.snapshot(t.s))
    assert restored == t.s
    a, ev_a = RULES.apply(restored, D, CLOSE)
    b, ev_b = RULES.apply(t.s, D, CLOSE)
    assert a == b and ev_a == ev_b


def test_replay_rebuilds_the_same_game() -> None:
    moves: list[tuple[int, Move]] = [
        (N, DeclareMarriage(C.HEARTS)),
        (N, play("QH")),
        (D, play("9S")),
        (N, DRAW),
        (N, CLAIM),
    ]
    overrides: Mapping[str, list[int]] = {"pack:1": C.parse_many(TV3)}
    state, events = RULES.replay({"first_dealer": "seat0"}, b"sixty-six tests", moves, overrides)
    t = Table(TV3)
    for seat, move in moves:
        t.do(seat, move)
    assert state == t.s and events == t.events
    assert state.scores == [3, 0]  # 43 is not 66: D gets 3
