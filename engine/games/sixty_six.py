"""Sixty-Six (Sechsundsechzig), two players, with the ``gamefarm`` and ``pagat`` presets.

Spec: ``shared/rules/sixty-six.md`` (section numbers below refer to it; §16 overrides looser
wording elsewhere).

24 cards A T K Q J 9 worth 11/10/4/3/2/0. Six cards each; the 13th card is turned up for trumps
and lies under the stock. While the stock is open anything may be played and both players draw
after each trick (winner first); once it is exhausted or closed, the follow rules of §4.2 apply.
Marriages (K+Q shown before a lead) add 20, or 40 in trumps. A player who thinks he has 66 card
points claims; the deal is scored in game points by the claim's success and the opponent's
count, and the first to 7 game points wins the match.

Moves, and when they are legal (§10):

* ``PlayCard``: the lead (after a ``DeclareMarriage``, only the K or Q of that suit) or the
  follow (§4.2).
* ``DeclareMarriage(suit)``: the leader, before his lead card, while the stock is open; one per
  lead. It is its own move so that a declarer may claim without leading (§6).
* ``ExchangeTrump``: swap the trump nine for the turn-up (§5), including out of turn under
  ``exchange_window = any_time``; also the answer "exchange" in the one-time step offered at the
  opponent's close (``exchange_on_opponent_close``), where ``Call("decline")`` is the other answer.
* ``CloseStock``: the leader, or the trick winner before drawing (§7).
* ``DrawCards``: the trick winner's "draw" in the post-trick pause; both draws happen at once.
* ``Claim``: declare out (§8), by either seat between tricks (``between_tricks``) or only right
  after winning a trick or declaring a marriage (``after_own_trick_or_marriage``).
* ``Call("pass")``: decline to claim in the end window after the last trick (§9.1).

``to_act`` lists the seat the game waits on. Between tricks the seat not on lead may claim
(under ``between_tricks``) or exchange, moves it may make but is never waited for (DESIGN.md
decision 11). Whose turn it is, the phase and who may act are public, so none of them depends on
a hidden card (§16.9): ``may_act`` lists the other seat only for a claim, whose legality is
public; a seat that may exchange the nine learns it from its own legal moves (``movers``), and
the exchange offer at a close is made whenever the nine's place is not public.

Points the spec leaves open, as decided here:

* Nobody may claim during the one-time exchange step at a close: the holder "decides at once
  (accept or decline) before play goes on" and "may only exchange or decline" (§5, §16.3).
* Drawing is an explicit move of the trick winner (``DrawCards``), never automatic, because
  closing before the draw is the alternative he must be able to choose (§4.3, §10).
* The turn-up's identity stays in the view while it lies in the stock, also once it is turned
  face down by a close (§13: both saw it); it leaves the view when the loser of trick 6 takes it.
* At the end of a deal the remaining hands are shown (``CardsExposed``); the unused stock cards,
  which "may be shown", are not.
* ``view.detail.known_cards`` lists the cards everyone knows a seat holds (a declared marriage's
  unplayed card, the turn-up taken by an exchange or drawn last), so a client need not track them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.core import cards as C
from engine.core import tricks
from engine.core.cards import SUIT_MASK
from engine.core.errors import InvalidOptions, Reason
from engine.core.events import (
    PLAYED,
    Called,
    CardDrawn,
    CardsExposed,
    DealScored,
    DealStarted,
    Event,
    MarriageDeclared,
    SixtySixDealResult,
    StockClosed,
    TrickWon,
    TrumpExchanged,
    Viewer,
)
from engine.core.fields import cards_field, per_seat_cards_field
from engine.core.information import (
    HiddenPlace,
    InformationSet,
    Match,
    deal_events,
    deal_hidden,
    information_set_of,
    match_of,
    match_of_state,
    new_state,
    seat_of,
    unseen_cards,
)
from engine.core.moves import (
    Call,
    Claim,
    CloseStock,
    DeclareMarriage,
    DrawCards,
    ExchangeTrump,
    PlayCard,
)
from engine.core.options import first_dealer_option, option
from engine.core.phases import Choice, Masked, Phase, Plays, Problem
from engine.core.rules import Rules, register, strongest_first
from engine.core.state import GameState
from engine.core.view import SeatView, TrickView, View, seat_view, trick_view

_SEATS: Final = 2
_DECK: Final = C.deck(range(9, 15))  # 24 cards
_NINE: Final = 9
_QUEEN: Final = 12
_KING: Final = 13
# A > T > K > Q > J > 9 in every suit (§1); the Ten sits between Ace and King.
_RANK_STRENGTH: Final = {14: 6, 10: 5, 13: 4, 12: 3, 11: 2, 9: 1}
_RANK_POINTS: Final = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2, 9: 0}
STRENGTH: Final = tuple(_RANK_STRENGTH.get(c & 15, 0) for c in range(64))
POINTS: Final = tuple(_RANK_POINTS.get(c & 15, 0) for c in range(64))
# By trump, for each card the cards that beat it: who wins a trick (§4.1), and the strict
# follower's "must beat" (§4.2).
_BEATERS: Final = tricks.beaters(_DECK, STRENGTH)
GOAL: Final = 66
SCHNEIDER: Final = 33
LAST_TRICK_BONUS: Final = 10
MARRIAGE_POINTS: Final = 20
ROYAL_MARRIAGE_POINTS: Final = 40


# The phases of a deal (the game's last phase is the core's OVER).
LEAD: Final = "lead"  # the trick area is empty; the leader may exchange, marry, close, claim, play
FOLLOW: Final = "follow"  # the lead card is down; the follower plays
POST_TRICK: Final = "post_trick"  # the winner chooses to draw or to close before drawing
CLOSE_EXCHANGE: Final = "close_exchange"  # the non-closer answers the exchange offer at a close
END_WINDOW: Final = "end_window"  # all cards played: claim or pass, last-trick winner first


# The pagat preset (§11); gamefarm is every option's own default.
_PAGAT: Final[dict[str, bool | int | str]] = {
    "next_dealer": "winner",
    "endgame_follow": "strict",
    "claim_window": "after_own_trick_or_marriage",
    "failed_claim_points": "flat2",
    "unclaimed_closed_deal": "closer_fails",
    "non_closer_out_points": "flat2",
    "unclaimed_open_deal": "higher_total",
    "carry_over": False,
    "exchange_window": "before_own_lead",
    "exchange_on_opponent_close": True,
    "close_before_final_draw": False,
}
_GAMEFARM: Final[dict[str, bool | int | str]] = {
    "next_dealer": "alternate",
    "endgame_follow": "follow_suit",
    "claim_window": "between_tricks",
    "failed_claim_points": "gf",
    "unclaimed_closed_deal": "closer_as_claimant",
    "non_closer_out_points": "table",
    "unclaimed_open_deal": "no_score",
    "carry_over": True,
    "exchange_window": "any_time",
    "exchange_on_opponent_close": False,
    "close_before_final_draw": True,
}


@dataclass(frozen=True, slots=True)
class SixtySixOptions:
    preset: str = option(
        "gamefarm",
        "rule set: gamefarm (the reference article's rules) or pagat (the German rules); "
        "sets the defaults of the flags below, which may still be given one by one",
        choices=("gamefarm", "pagat"),
        sets={"gamefarm": _GAMEFARM, "pagat": _PAGAT},
    )
    target_game_points: int = option(7, "game points that win the match", minimum=1, maximum=99)
    first_dealer: str = first_dealer_option()
    next_dealer: str = option(
        "alternate",
        "who deals next: the other player after every deal, or the deal's winner "
        "(the same dealer after a deal with no winner)",
        choices=("alternate", "winner"),
    )
    endgame_follow: str = option(
        "follow_suit",
        "follow rule once the stock is gone: follow suit only, or follow and beat, else trump",
        choices=("follow_suit", "strict"),
    )
    claim_window: str = option(
        "between_tricks",
        "when a claim may be made: by either player whenever no card of a trick is down, or "
        "only right after winning a trick or declaring a marriage",
        choices=("between_tricks", "after_own_trick_or_marriage"),
    )
    failed_claim_points: str = option(
        "gf",
        "a failed claim gives the opponent 2, or 3 when: either player (gf), the opponent "
        "(gf_opponent) or the claimant (gf_claimant) has no trick; flat2: always 2",
        choices=("gf", "gf_opponent", "gf_claimant", "flat2"),
    )
    unclaimed_closed_deal: str = option(
        "closer_as_claimant",
        "a closed deal nobody claimed: the closer is judged as claimant, or the closer failed "
        "(the opponent gets 2, or 3 if he had no trick at the close)",
        choices=("closer_as_claimant", "closer_fails"),
    )
    non_closer_out_points: str = option(
        "table",
        "a correct claim by the closer's opponent scores by the table (1/2/3) or a flat 2",
        choices=("table", "flat2"),
    )
    unclaimed_open_deal: str = option(
        "no_score",
        "a deal played out with no close and no claim: nobody scores, or the higher total "
        "scores 1/2/3 (equal totals: a drawn deal)",
        choices=("no_score", "higher_total"),
    )
    carry_over: bool = option(
        True, "each deal with no game points adds 1 to the next scoring deal's award"
    )
    exchange_window: str = option(
        "any_time",
        "when the trump nine may be exchanged: any time the player has no card in the current "
        "trick, or only as the leader before the lead card",
        choices=("any_time", "before_own_lead"),
    )
    exchange_min_stock: int = option(
        2,
        "stock size (face-down cards plus the turn-up) needed for the exchange: 2 = any open "
        "stock, 4 = not once only the last face-down card and the turn-up remain",
        minimum=2,
        maximum=4,
    )
    exchange_on_opponent_close: bool = option(
        False, "at the opponent's close the trump nine's holder may swap it, even with no trick"
    )
    close_before_final_draw: bool = option(
        True, "the winner of trick 6 may close before the last two stock cards are drawn"
    )
    marriage_when_stock_gone: bool = option(
        False, "marriages may also be declared once the stock is exhausted or closed"
    )
    review_last_trick: bool = option(
        True, "the trick just completed may be looked at until the next lead card"
    )
    show_own_points: bool = option(
        False, "assist mode: each player sees his own running count (never the opponent's)"
    )
    shutout_counts_double: bool = option(
        False, "stakes: a match won 7-0 counts double (informative: shown as match_stakes 2)"
    )


@dataclass(frozen=True, slots=True)
class MarriageView:
    seat: int
    suit: int
    points: int
    counts: bool  # the declarer has won a trick, so the points count (§6)
    cards: tuple[int, ...] = cards_field()


@dataclass(frozen=True, slots=True)
class SixtySixDetail:
    """Sixty-Six's public state, the same for every viewer (§13)."""

    preset: str
    non_dealer: int
    stock_size: int  # face-down cards plus the turn-up while it lies under the stock
    stock_state: str  # "open", "exhausted" or "closed"
    turn_up_face_up: bool
    closer: int | None
    closer_opponent_tricks: int | None  # the non-closer's tricks at the moment of closing
    marriages: tuple[MarriageView, ...]
    marriage_suit: int | None  # declared on this lead: the lead must be its K or Q
    end_window_seat: int | None  # whose claim-or-pass is due after the last trick
    carry: int
    target_game_points: int
    match_stakes: int  # 2 for a 7-0 match with ``shutout_counts_double``
    # Cards everyone knows a seat holds: an unplayed marriage card, the old turn-up taken by an
    # exchange, the turn-up drawn as the last stock card.
    known_cards: tuple[tuple[int, ...] | None, ...] = per_seat_cards_field()
    last_deal: DealScored | None = None


class SixtySixState(GameState):
    """The full state. Only the lists in ``copied`` change in place (on almost every move);
    the fields typed ``Sequence`` hold lists that are only ever replaced, so copies share them."""

    game = "sixty-six"
    schema = 3  # 2: last_result holds the DealScored event; 3: history
    copied = ("hands", "tricks_won", "card_points")

    options: SixtySixOptions
    # match
    scores: Sequence[int]
    carry: int
    winners: Sequence[int]
    # deal
    hands: list[int]
    shown: Sequence[int]  # cards publicly known to have gone into each hand this deal
    trump: int
    turn_up: int  # the card under the stock (after an exchange, the nine)
    turn_up_in_stock: bool  # False once the loser of trick 6 has drawn it
    stock: Sequence[int]  # face-down stock cards, top first
    closer: int | None
    closer_opp_tricks: int
    leader: int  # the leader of the current trick; in POST_TRICK, the trick's winner
    trick: Sequence[int]
    marriage_suit: int | None  # the marriage declared on the current lead
    tricks_won: list[int]
    card_points: list[int]
    marriage_points: Sequence[int]
    marriages: Sequence[Sequence[int]]  # [seat, suit, points] in declaration order
    bonus_seat: int | None  # who earned the last-trick 10
    tricks_played: int
    last_trick: Sequence[int]  # [leader, winner, lead, follow] while it may be reviewed
    window_seat: int | None
    #: this deal's tricks, [leader, winner, lead, follow, 1 if played after the stock was
    #: closed or exhausted else 0]: both seats saw every card, which an information set keeps
    history: Sequence[Sequence[int]]


_BOTH: Final = (0, 1)
_ONLY: Final = ((0,), (1,))

# Each seat's calls as events, built once: events are immutable (as ``PLAYED``), and a claim
# ends almost every random deal, so sharing them spares a frozen event's construction a deal.
_CLAIMED: Final = tuple(Called(seat=seat, call="claim") for seat in range(_SEATS))
_DECLINED: Final = tuple(Called(seat=seat, call="decline") for seat in range(_SEATS))
_PASSED: Final = tuple(Called(seat=seat, call="pass") for seat in range(_SEATS))

# The moves without parameters, built once.
_EXCHANGE: Final = ExchangeTrump()
_CLOSE: Final = CloseStock()
_CLAIM: Final = Claim()
_DRAW: Final = DrawCards()
_PASS: Final = Call("pass")
_DECLINE: Final = Call("decline")
_MARRY: Final = tuple(DeclareMarriage(s) for s in C.SUITS)
# Each suit's King and Queen: after a marriage, the lead must be one of them.
_PAIR: Final = tuple((1 << (suit * 16 + _KING)) | (1 << (suit * 16 + _QUEEN)) for suit in C.SUITS)
_KINGS: Final = sum(1 << (suit * 16 + _KING) for suit in C.SUITS)

# Why a move is refused, named once (the rules below return these).
_P_NOT_LEADER: Final = (Reason.NOT_YOUR_TURN, "only the leader may do that")
_P_STOCK: Final = (Reason.STOCK_NOT_OPEN, "the stock is closed or exhausted")
_P_NO_NINE: Final = (Reason.NO_TRUMP_NINE, "you do not hold the nine of trumps")
_P_NO_TRICK: Final = (Reason.NO_TRICK_WON, "the exchange needs a trick won in this deal")
_P_MIN_STOCK: Final = (Reason.EXCHANGE_NOT_ALLOWED, "the stock is too small for the exchange")
_P_EXCHANGE_TIME: Final = (
    Reason.EXCHANGE_NOT_ALLOWED,
    "the exchange is not allowed now (exchange_window)",
)
_P_CLOSE_EXCHANGE_ONLY: Final = (
    Reason.NOT_YOUR_TURN,
    "the closer's opponent is answering the exchange offer",
)
_P_FINAL_DRAW: Final = (
    Reason.CLOSE_NOT_ALLOWED,
    "the last chance to close was leading to trick 6 (close_before_final_draw)",
)
_P_MARRIED: Final = (Reason.MARRIAGE_ALREADY_DECLARED, "one marriage per lead")
_P_NO_MARRIAGE: Final = (Reason.NO_MARRIAGE, "you do not hold the King and Queen of that suit")
_P_TRICK_ON_TABLE: Final = (Reason.CLAIM_NOT_ALLOWED, "no claim while a trick is in progress")
_P_CLAIM_TIME: Final = (
    Reason.CLAIM_NOT_ALLOWED,
    "a claim is allowed only right after winning a trick or declaring a marriage",
)
_P_WINDOW_TURN: Final = (Reason.NOT_YOUR_TURN, "the other player speaks first after the last trick")
_P_NO_CALL: Final = (
    Reason.CALL_NOT_ALLOWED,
    "no call is answered now: 'decline' answers the exchange offer at a close, 'pass' the end "
    "window after the last trick",
)
_P_DRAW_TIME: Final = (Reason.WRONG_PHASE, "cards are drawn only right after a trick")
_P_NOT_WINNER: Final = (Reason.NOT_YOUR_TURN, "the trick's winner decides when to draw")
_P_LEAD_MARRIAGE: Final = (Reason.MUST_LEAD_MARRIAGE, "after a marriage, lead its King or Queen")
_FOLLOW_REASONS: Final = tricks.REASONS._replace(
    trump=(Reason.MUST_TRUMP, "with no card of the suit led, you must trump")
)


def leader_wins(lead: int, follow: int, trump: int) -> bool:
    """§4.1: the same suit goes to the higher rank; a trump on a plain lead wins; else the lead.
    That is, the lead holds unless the follow beats it (:func:`engine.core.tricks.beaters`).

    >>> from engine.core.cards import parse, HEARTS
    >>> leader_wins(parse("KS"), parse("AS"), HEARTS), leader_wins(parse("AC"), parse("9H"), HEARTS)
    (False, False)
    >>> leader_wins(parse("JD"), parse("AS"), HEARTS)
    True
    """
    return not _BEATERS[trump][lead] >> follow & 1


def follow_mask(hand: int, lead: int, trump: int, phase_two: bool, strict: bool) -> int:
    """The cards a follower may play to ``lead`` (§4.2): any in phase one; in phase two, follow
    suit, and if ``strict`` also beat the lead if possible, and trump when void."""
    if not phase_two:
        return hand
    if strict:
        return tricks.follow_mask(hand, lead >> 4, trump, _BEATERS[trump][lead])
    return tricks.follow_mask(hand, lead >> 4)


def win_award(opponent_count: int, opponent_tricks: int) -> int:
    """Game points for a correct claim (§9.2 rows 1-3): schwarz 3, schneider 2, else 1."""
    if opponent_tricks == 0:
        return 3
    return 2 if opponent_count < SCHNEIDER else 1


def failed_claim_award(rule: str, claimant_tricks: int, opponent_tricks: int) -> int:
    """Game points to the opponent of a failed claim (§9.2 rows 4-6, flag failed_claim_points)."""
    if rule == "flat2":
        return 2
    if rule == "gf":
        three = claimant_tricks == 0 or opponent_tricks == 0
    elif rule == "gf_opponent":
        three = opponent_tricks == 0
    else:  # gf_claimant
        three = claimant_tricks == 0
    return 3 if three else 2


#: The reasons a deal scores as it does (``SixtySixDealResult.reason``), each with the words the
#: deal's note gives it.
REASON_NOTES: Final = {
    "out": "out",
    "false_out": "false out",
    "closer_judged_out": "the closer judged as claimant: out",
    "closer_judged_false_out": "the closer judged as claimant: false out",
    "closer_failed": "the closer did not go out",
    "false_out_by_closer": "false out by the closer",
    "out_after_close": "out after the opponent's close",
    "no_claim": "played out, nobody claimed",
    "higher_total": "higher total",
    "drawn": "drawn deal",
}


def score_deal(
    opts: SixtySixOptions,
    counts: Sequence[int],
    tricks: Sequence[int],
    claimant: int | None,
    *,
    closer: int | None,
    closer_opp_tricks: int,
) -> tuple[int | None, int, str]:
    """The deal's result before the carry: (seat scoring, game points, reason) — §9.2 to §9.5;
    the reasons are the keys of ``REASON_NOTES``.

    ``claimant`` is None when nobody claimed; counts already follow §8 (marriages only with a
    trick, the last-trick 10 only if earned).
    """
    judged = False
    if claimant is None and closer is not None:
        if opts.unclaimed_closed_deal == "closer_fails":  # §9.5: the closer never went out
            return 1 - closer, 3 if closer_opp_tricks == 0 else 2, "closer_failed"
        claimant = closer  # §9.3: the closer is judged as if he had claimed
        judged = True
    if claimant is not None:
        c, o = claimant, 1 - claimant
        if counts[c] >= GOAL:
            if closer is not None and c != closer and opts.non_closer_out_points == "flat2":
                return c, 2, "out_after_close"
            return c, win_award(counts[o], tricks[o]), "closer_judged_out" if judged else "out"
        if c == closer and opts.unclaimed_closed_deal == "closer_fails":  # §16.6
            return o, 3 if closer_opp_tricks == 0 else 2, "false_out_by_closer"
        award = failed_claim_award(opts.failed_claim_points, tricks[c], tricks[o])
        return o, award, "closer_judged_false_out" if judged else "false_out"
    if opts.unclaimed_open_deal == "no_score":
        return None, 0, "no_claim"
    if counts[0] == counts[1]:
        return None, 0, "drawn"
    hi = 0 if counts[0] > counts[1] else 1
    return hi, win_award(counts[1 - hi], tricks[1 - hi]), "higher_total"


def with_carry(scorer: int | None, award: int, carry: int, carry_over: bool) -> tuple[int, int]:
    """(game points the scorer gets, the carry afterwards) under §9.4.

    A scoring deal takes the whole carry, whoever scores; with ``carry_over`` every deal that
    scores nothing adds 1, a drawn deal included (§16.8). Without it the carry stays 0.
    """
    if scorer is not None:
        return award + carry, 0
    return 0, carry + 1 if carry_over else carry


def _with_bit(masks: Sequence[int], seat: int, card: int) -> list[int]:
    """A copy of per-seat masks with ``card`` added to ``seat``'s."""
    out = list(masks)
    out[seat] |= 1 << card
    return out


# -- named rules -----------------------------------------------------------------------------


def stock_open(s: SixtySixState) -> bool:
    """§3: neither closed nor exhausted (then it holds the turn-up and a face-down card)."""
    return s.closer is None and s.turn_up_in_stock


def stock_size(s: SixtySixState) -> int:
    return len(s.stock) + s.turn_up_in_stock


def stock_state(s: SixtySixState) -> str:
    if s.closer is not None:
        return "closed"
    return "open" if s.turn_up_in_stock else "exhausted"


def count(s: SixtySixState, seat: int) -> int:
    """A player's count as a claim would be judged now (§8)."""
    total = s.card_points[seat]
    if s.tricks_won[seat]:
        total += s.marriage_points[seat]
    if s.bonus_seat == seat:
        total += LAST_TRICK_BONUS
    return total


def leads(s: SixtySixState, seat: int) -> int:
    """The cards ``seat`` may lead now: any, or after a marriage only its King or Queen (§6)."""
    if seat != s.leader:
        return 0
    hand = s.hands[seat]
    return hand if s.marriage_suit is None else hand & _PAIR[s.marriage_suit]


def lead_problem(s: SixtySixState, seat: int, card: object) -> Problem:
    if seat != s.leader:
        return (Reason.NOT_YOUR_TURN, f"it is seat {s.leader}'s turn to play")
    if not (type(card) is int and 0 <= card < 64) or not s.hands[seat] >> card & 1:
        return (Reason.CARD_NOT_IN_HAND, f"{C.describe(card)} is not in your hand")
    return _P_LEAD_MARRIAGE


def follows(s: SixtySixState, seat: int) -> int:
    """The cards ``seat`` may play to the lead (§4.2): any while the stock is open; after, the
    follow rule of ``endgame_follow``."""
    if seat == s.leader:
        return 0
    hand = s.hands[seat]
    if stock_open(s):
        return hand
    return follow_mask(hand, s.trick[0], s.trump, True, s.options.endgame_follow == "strict")


def follow_problem(s: SixtySixState, seat: int, card: object) -> Problem:
    turn = 1 - s.leader
    return tricks.play_refusal(seat, turn, s.hands[seat], card, s.trick, reasons=_FOLLOW_REASONS)


def exchange_problem(s: SixtySixState, seat: int, move: object = None) -> Problem | None:
    """Why ``seat`` may not exchange the trump nine now (§5), or None if it may."""
    if not stock_open(s):
        return _P_STOCK
    if not s.hands[seat] >> (s.trump * 16 + _NINE) & 1:
        return _P_NO_NINE
    phase = s.phase
    o = s.options
    if not s.tricks_won[seat]:
        return _P_NO_TRICK
    if len(s.stock) + 1 < o.exchange_min_stock:
        return _P_MIN_STOCK
    if o.exchange_window == "any_time":
        # Anything but while one's own card lies in the unfinished trick.
        if phase == FOLLOW and seat == s.leader:
            return _P_EXCHANGE_TIME
        return None
    return None if phase == LEAD and seat == s.leader else _P_EXCHANGE_TIME


def marriages(s: SixtySixState, seat: int) -> int:
    """The suits (a bit per suit) in which ``seat`` may declare a marriage now (§6, §16.1):
    the leader, before his lead card, while the stock is open (or with
    ``marriage_when_stock_gone``), one marriage per lead, holding the suit's King and Queen."""
    if may_marry(s, seat) is not None:
        return 0
    hand = s.hands[seat]
    kings = hand & hand << 1 & _KINGS  # each King whose Queen (the rank below) is held too
    return (
        kings >> _KING & 1
        | kings >> 16 + _KING - 1 & 2
        | kings >> 32 + _KING - 2 & 4
        | (kings >> 48 + _KING - 3 & 8)
    )


def may_marry(s: SixtySixState, seat: int) -> Problem | None:
    if seat != s.leader:
        return _P_NOT_LEADER
    if not (stock_open(s) or s.options.marriage_when_stock_gone):
        return _P_STOCK
    if s.marriage_suit is not None:
        return _P_MARRIED
    return None


def marriage_problem(s: SixtySixState, seat: int, suit: object) -> Problem:
    """Why a marriage outside ``marriages()`` is refused."""
    return may_marry(s, seat) or _P_NO_MARRIAGE


def close_problem(s: SixtySixState, seat: int, move: object = None) -> Problem | None:
    """§7: the leader, or the trick winner before drawing, while the stock is open."""
    if seat != s.leader:
        return _P_NOT_LEADER
    if not stock_open(s):
        return _P_STOCK
    if s.phase == POST_TRICK and len(s.stock) == 1:
        return None if s.options.close_before_final_draw else _P_FINAL_DRAW
    return None


def nine_hidden(s: SixtySixState) -> bool:
    """§16.9: whether the trump nine's place is unknown to someone: it lies face down in the
    stock or unshown in a hand (not the turn-up, not exchanged, not played)."""
    nine = s.trump * 16 + _NINE
    held = (s.hands[0] & ~s.shown[0] | s.hands[1] & ~s.shown[1]) >> nine & 1
    return bool(held) or nine in s.stock


def offers_exchange_at_close(s: SixtySixState, closer: int) -> bool:
    """§5, §16.9: the one-time exchange step at a close (``exchange_on_opponent_close``) is
    asked whenever the nine's place is not public, so that it reveals nothing; when it is
    public, only if the closer's opponent holds the nine."""
    if not s.options.exchange_on_opponent_close:
        return False
    return nine_hidden(s) or bool(s.hands[1 - closer] >> (s.trump * 16 + _NINE) & 1)


def answer_turn(s: SixtySixState, seat: int, move: object = None) -> Problem | None:
    """§5 and §16.3: the exchange offered at a close is answered by the closer's opponent."""
    return None if seat != s.closer else _P_CLOSE_EXCHANGE_ONLY


def answer_problem(s: SixtySixState, seat: int, move: object = None) -> Problem | None:
    """§5, §16.3, §16.9: the answer "exchange" at a close, by the closer's opponent holding
    the nine; the offer ignores the trick and stock-size conditions."""
    if seat == s.closer:
        return _P_CLOSE_EXCHANGE_ONLY
    return None if s.hands[seat] >> (s.trump * 16 + _NINE) & 1 else _P_NO_NINE


def claim_problem(s: SixtySixState, seat: int, move: object = None) -> Problem | None:
    """§8 and §16.2/§16.4: when ``seat`` may declare out between tricks."""
    if s.options.claim_window == "between_tricks":
        return None
    if seat != s.leader:
        return _P_CLAIM_TIME
    # The leader of trick 2 onwards just won the previous trick; N before trick 1 has not,
    # but a marriage on this lead also opens the window.
    if s.phase == POST_TRICK or s.tricks_played or s.marriage_suit is not None:
        return None
    return _P_CLAIM_TIME


def window_problem(s: SixtySixState, seat: int, move: object = None) -> Problem | None:
    """§9.1 and §16.2: after the last trick, claim or pass, the last trick's winner first."""
    return None if seat == s.window_seat else _P_WINDOW_TURN


def draw_problem(s: SixtySixState, seat: int, move: object = None) -> Problem | None:
    """§4.3: the trick's winner draws first (and the loser with him)."""
    return None if seat == s.leader else _P_NOT_WINNER


def decline_problem(s: SixtySixState, seat: int, move: Call) -> Problem | None:
    """§5: the answer "decline" to the exchange offer at a close, by its holder."""
    if move.call != "decline":
        return (Reason.CALL_NOT_ALLOWED, "the exchange offer is answered by exchange or decline")
    return answer_turn(s, seat)


def pass_problem(s: SixtySixState, seat: int, move: Call) -> Problem | None:
    """§9.1: "pass" (no claim) in the end window, in turn."""
    if move.call != "pass":
        return (Reason.CALL_NOT_ALLOWED, "after the last trick: claim, or pass")
    return window_problem(s, seat)


def _leader(s: SixtySixState) -> tuple[int, ...]:
    """``to_act`` between tricks: the leader (or the trick's winner) alone must move."""
    return _ONLY[s.leader]


def between_tricks(s: SixtySixState) -> tuple[int, ...]:
    """``may_act`` between tricks, a public list: the leader, and the other seat too when it
    may claim (under ``between_tricks``). Never the exchange, whose legality depends on holding
    the nine, a card the leader cannot see (§16.9)."""
    return _BOTH if claim_problem(s, 1 - s.leader) is None else _ONLY[s.leader]


def movers_between_tricks(s: SixtySixState) -> tuple[int, ...]:
    """Every seat with a legal move between tricks: ``between_tricks``, and the other seat
    when it may exchange the nine (told to that seat alone, through its legal moves)."""
    other = 1 - s.leader
    if claim_problem(s, other) is None or exchange_problem(s, other) is None:
        return _BOTH
    return _ONLY[s.leader]


def _suit_of(move: DeclareMarriage) -> object:
    return move.suit


def _follower(s: SixtySixState) -> tuple[int, ...]:
    return _ONLY[1 - s.leader]


def _non_closer(s: SixtySixState) -> tuple[int, ...]:
    assert s.closer is not None
    return _ONLY[1 - s.closer]


def _window_seat(s: SixtySixState) -> tuple[int, ...]:
    assert s.window_seat is not None
    return _ONLY[s.window_seat]


class SixtySix(Rules[SixtySixState]):
    name = "sixty-six"
    title = "Sixty-Six"
    seats = _SEATS
    summary = "Two-player stock game: draw, marry, exchange the trump nine, close, claim 66."
    options_type = SixtySixOptions
    state_type = SixtySixState
    detail_type = SixtySixDetail
    rank_order = strongest_first(_RANK_STRENGTH)
    card_points = _RANK_POINTS
    move_types = (PlayCard, DeclareMarriage, ExchangeTrump, CloseStock, DrawCards, Claim, Call)

    def check_options(self, opts: SixtySixOptions) -> None:
        if opts.exchange_min_stock not in (2, 4):  # an open stock always holds an even count
            raise InvalidOptions(
                Reason.INVALID_OPTION_VALUE,
                f"sixty-six option 'exchange_min_stock': expected 2 or 4 "
                f"(got {opts.exchange_min_stock})",
            )

    def phases(self) -> Sequence[Phase[SixtySixState]]:
        exchange = Choice(ExchangeTrump, (_EXCHANGE,), exchange_problem, self.exchange)
        close = Choice(CloseStock, (_CLOSE,), close_problem, self.close)
        # Between tricks a claim is a move a seat may make, never one the rules wait for.
        may_claim = Choice(Claim, (_CLAIM,), claim_problem, self.claim, optional=True)
        not_a_call: dict[type, Problem] = {Call: _P_NO_CALL}
        return (
            Phase(
                LEAD,
                _leader,
                (
                    Plays(leads, lead_problem, self.lead),
                    Masked(
                        DeclareMarriage,
                        _MARRY,
                        _suit_of,
                        marriages,
                        marriage_problem,
                        effect=self.marry,
                    ),
                    exchange,
                    close,
                    may_claim,
                ),
                {**not_a_call, DrawCards: _P_DRAW_TIME},
                may_act=between_tricks,
                movers=movers_between_tricks,
            ),
            Phase(
                FOLLOW,
                _follower,
                (Plays(follows, follow_problem, self.follow), exchange),
                {**not_a_call, DrawCards: _P_DRAW_TIME, Claim: _P_TRICK_ON_TABLE},
            ),
            Phase(
                POST_TRICK,
                _leader,
                (Choice(DrawCards, (_DRAW,), draw_problem, self.draw), close, exchange, may_claim),
                not_a_call,
                may_act=between_tricks,
                movers=movers_between_tricks,
            ),
            Phase(
                CLOSE_EXCHANGE,
                _non_closer,
                (
                    Choice(ExchangeTrump, (_EXCHANGE,), answer_problem, self.exchange),
                    Choice(Call, (_DECLINE,), decline_problem, self.decline),
                ),
                {DrawCards: _P_DRAW_TIME},
            ),
            Phase(
                END_WINDOW,
                _window_seat,
                (
                    Choice(Claim, (_CLAIM,), window_problem, self.claim),
                    Choice(Call, (_PASS,), pass_problem, self.pass_),
                ),
                {ExchangeTrump: _P_STOCK, DrawCards: _P_DRAW_TIME},
            ),
        )

    # -- dealing (§2) ------------------------------------------------------------------------

    def begin(self, s: SixtySixState, first_dealer: int) -> None:
        s.carry = 0
        self.deal(s, first_dealer)

    def next_deal(self, s: SixtySixState, events: list[Event]) -> None:
        """§16.7: the dealer alternates, or the deal's scorer deals (the same dealer after a
        deal where nobody scored)."""
        if s.options.next_dealer == "alternate":
            dealer = 1 - s.dealer
        else:
            points = s.last_result.points
            dealer = 0 if points[0] else 1 if points[1] else s.dealer
        self.deal(s, dealer)
        events.append(self.deal_started(s))

    def dealt_turn_up(self, s: SixtySixState) -> int | None:
        return s.turn_up

    def dealt_trump(self, s: SixtySixState) -> int | None:
        return s.trump

    def deal(self, s: SixtySixState, dealer: int) -> None:
        s.deal_no += 1
        s.dealer = dealer
        non_dealer = 1 - dealer
        pack = s.chance.shuffled(f"pack:{s.deal_no}", _DECK)
        s.chance.dealt(s.deal_no, pack)
        # §2: three to N, three to D, three to N, three to D; deck[0] is the top card.
        n_hand = 1 << pack[0] | 1 << pack[1] | 1 << pack[2]
        n_hand |= 1 << pack[6] | 1 << pack[7] | 1 << pack[8]
        d_hand = 1 << pack[3] | 1 << pack[4] | 1 << pack[5]
        d_hand |= 1 << pack[9] | 1 << pack[10] | 1 << pack[11]
        s.hands = [n_hand, d_hand] if non_dealer == 0 else [d_hand, n_hand]
        s.shown = [0, 0]
        s.turn_up = pack[12]
        s.trump = pack[12] >> 4
        s.turn_up_in_stock = True
        s.stock = pack[13:]
        s.closer = None
        s.closer_opp_tricks = 0
        s.phase = LEAD
        s.leader = non_dealer
        s.trick = []
        s.marriage_suit = None
        s.tricks_won = [0, 0]
        s.card_points = [0, 0]
        s.marriage_points = [0, 0]
        s.marriages = []
        s.bonus_seat = None
        s.tricks_played = 0
        s.last_trick = []
        s.window_seat = None
        s.history = []

    # -- the moves ---------------------------------------------------------------------------

    def lead(self, s: SixtySixState, seat: int, move: PlayCard, events: list[Event]) -> None:
        c = move.card
        s.hands[seat] &= ~(1 << c)
        events.append(PLAYED[seat][c])
        s.trick = [c]
        s.marriage_suit = None
        s.last_trick = []  # §4.4: the previous trick may be reviewed until this card
        s.phase = FOLLOW

    def follow(self, s: SixtySixState, seat: int, move: PlayCard, events: list[Event]) -> None:
        c = move.card
        s.hands[seat] &= ~(1 << c)
        events.append(PLAYED[seat][c])
        leader = s.leader
        lead = s.trick[0]
        winner = leader if leader_wins(lead, c, s.trump) else seat
        s.history = [*s.history, [leader, winner, lead, c, 0 if stock_open(s) else 1]]
        points = POINTS[lead] + POINTS[c]
        s.tricks_won[winner] += 1
        s.card_points[winner] += points
        s.tricks_played += 1
        s.last_trick = [leader, winner, lead, c]
        s.trick = []
        s.leader = winner
        events.append(
            TrickWon(
                trick_no=s.tricks_played,
                winner=winner,
                leader=leader,
                cards=(lead, c),
                points=points,
            )
        )
        if not s.hands[winner]:
            if s.closer is None:  # §1: the last trick's 10 only in a deal played out unclosed
                s.bonus_seat = winner
            s.phase = END_WINDOW
            s.window_seat = winner
        elif stock_open(s):
            s.phase = POST_TRICK
        else:
            s.phase = LEAD

    def draw(self, s: SixtySixState, winner: int, move: DrawCards, events: list[Event]) -> None:
        # §4.3: the winner takes the top card, the loser the next one, or the turn-up last.
        loser = 1 - winner
        stock = s.stock
        first = stock[0]
        s.hands[winner] |= 1 << first
        left = len(stock)  # after this draw: the rest of the stock and the turn-up
        events.append(CardDrawn(seat=winner, stock_left=left, card=first))
        if left > 1:
            second = stock[1]
            s.stock = stock[2:]
            events.append(CardDrawn(seat=loser, stock_left=left - 1, card=second))
        else:
            second = s.turn_up
            s.stock = []
            s.turn_up_in_stock = False
            s.shown = _with_bit(s.shown, loser, second)
            events.append(CardDrawn(seat=loser, stock_left=0, face_up=True, card=second))
        s.hands[loser] |= 1 << second
        s.phase = LEAD

    def marry(
        self, s: SixtySixState, seat: int, move: DeclareMarriage, events: list[Event]
    ) -> None:
        suit = move.suit
        points = ROYAL_MARRIAGE_POINTS if suit == s.trump else MARRIAGE_POINTS
        king, queen = suit * 16 + _KING, suit * 16 + _QUEEN
        s.marriage_suit = suit
        marriage_points = list(s.marriage_points)
        marriage_points[seat] += points
        s.marriage_points = marriage_points
        s.marriages = [*s.marriages, [seat, suit, points]]
        s.shown = _with_bit(_with_bit(s.shown, seat, king), seat, queen)
        events.append(MarriageDeclared(seat=seat, suit=suit, points=points, cards=(king, queen)))

    def exchange(
        self, s: SixtySixState, seat: int, move: ExchangeTrump, events: list[Event]
    ) -> None:
        nine = s.trump * 16 + _NINE
        taken = s.turn_up
        s.hands[seat] = (s.hands[seat] & ~(1 << nine)) | (1 << taken)
        s.shown = _with_bit(s.shown, seat, taken)
        s.turn_up = nine
        at_close = s.phase == CLOSE_EXCHANGE
        events.append(TrumpExchanged(seat=seat, given=nine, taken=taken, at_close=at_close))
        if at_close:
            s.phase = LEAD

    def close(self, s: SixtySixState, seat: int, move: CloseStock, events: list[Event]) -> None:
        other = 1 - seat
        s.closer = seat
        s.closer_opp_tricks = s.tricks_won[other]
        events.append(
            StockClosed(
                seat=seat, before_draw=s.phase == POST_TRICK, opponent_tricks=s.tricks_won[other]
            )
        )
        s.phase = CLOSE_EXCHANGE if offers_exchange_at_close(s, seat) else LEAD

    def timeout_move(self, s: SixtySixState, seat: int) -> Call | DrawCards | None:
        """The least harmful move for a seat whose clock ran out: §16.9 declines the close's
        exchange offer; the proposed wording (docs/proposed-rules-timeout.md) draws after a
        trick and passes in the end window, so a timeout never closes, claims, marries or
        exchanges. None at a lead or a follow: the service's policy plays a card (the
        reference bot's choice among the card plays only)."""
        if seat not in self.to_act(s):
            return None
        if s.phase == CLOSE_EXCHANGE:
            return _DECLINE
        if s.phase == POST_TRICK:
            return _DRAW
        if s.phase == END_WINDOW:
            return _PASS
        return None

    def claim(self, s: SixtySixState, seat: int, move: Claim, events: list[Event]) -> None:
        events.append(_CLAIMED[seat])
        self.end_deal(s, seat, events)

    def decline(self, s: SixtySixState, seat: int, move: Call, events: list[Event]) -> None:
        events.append(_DECLINED[seat])
        s.phase = LEAD

    def pass_(self, s: SixtySixState, seat: int, move: Call, events: list[Event]) -> None:
        events.append(_PASSED[seat])
        if s.options.claim_window == "between_tricks" and seat == s.leader:
            s.window_seat = 1 - seat  # §16.2: the other player may claim after the pass
        else:
            self.end_deal(s, None, events)

    # -- scoring and the end (§8, §9) --------------------------------------------------------

    def end_deal(self, s: SixtySixState, claimant: int | None, events: list[Event]) -> None:
        o = s.options
        for seat in range(_SEATS):  # §13: at the end of the deal the remaining cards are shown
            if s.hands[seat]:
                events.append(
                    CardsExposed(seat=seat, what="hand", cards=tuple(C.cards_of(s.hands[seat])))
                )
        counts = (count(s, 0), count(s, 1))
        scorer, award, reason = score_deal(
            o,
            counts,
            s.tricks_won,
            claimant,
            closer=s.closer,
            closer_opp_tricks=s.closer_opp_tricks,
        )
        carry_before = s.carry
        gained, s.carry = with_carry(scorer, award, s.carry, o.carry_over)
        points: tuple[int, int] = (0, 0)
        if scorer is not None:
            points = (gained, 0) if scorer == 0 else (0, gained)
            scores = list(s.scores)
            scores[scorer] += gained
            s.scores = scores
        made: tuple[bool | None, bool | None] = (None, None)
        if claimant is not None:
            ok = counts[claimant] >= GOAL
            made = (ok, None) if claimant == 0 else (None, ok)
        # taken: each seat's final count (§8); made: the claimant's success (None for the other
        # seat, and for both when nobody claimed); note: the reason in words.
        scored = DealScored(
            deal_no=s.deal_no,
            bids=(None, None),
            taken=counts,
            made=made,
            points=points,
            totals=tuple(s.scores),
            bid_cards=(None, None),
            note=REASON_NOTES[reason],
            result=SixtySixDealResult(
                reason=reason,
                counts=counts,
                tricks=tuple(s.tricks_won),
                claimant=claimant,
                closer=s.closer,
                scorer=scorer,
                award=award,
                carry_taken=carry_before if scorer is not None else 0,
                carry=s.carry,
            ),
        )
        self.close_deal(s, scored, events)

    def match_winners(self, s: SixtySixState) -> tuple[int, ...] | None:
        """§9.6: the first to ``target_game_points``; one deal scores for one seat only, so two
        seats never reach the target together."""
        if max(s.scores) < s.options.target_game_points:
            return None
        return (0,) if s.scores[0] > s.scores[1] else (1,)

    @staticmethod
    def match_stakes(s: SixtySixState) -> int:
        """§9.6: a 7-0 match counts double with ``shutout_counts_double`` (informative)."""
        if s.finished and s.options.shutout_counts_double and min(s.scores) == 0:
            return 2
        return 1

    # -- projection (§13) --------------------------------------------------------------------

    def seat_view(self, s: SixtySixState, seat: int, viewer: Viewer) -> SeatView:
        own = seat == viewer
        return seat_view(
            seat=seat,
            hand_size=C.count(s.hands[seat]),
            hand=tuple(C.cards_of(s.hands[seat])) if own else None,
            tricks_won=s.tricks_won[seat],
            # Never the opponent's count; one's own only in assist mode.
            points_taken=count(s, seat) if s.options.show_own_points and own else None,
            score=s.scores[seat],
        )

    def trick_shown(self, s: SixtySixState) -> TrickView | None:
        return trick_view(s.leader, list(s.trick), None, _SEATS) if not s.finished else None

    def tricks_shown(self, s: SixtySixState) -> tuple[TrickView, ...]:
        """§4.4: only the trick just completed, and only until the next lead card."""
        if s.options.review_last_trick and s.last_trick and not s.finished:
            leader, winner, *cards = s.last_trick
            return (trick_view(leader, cards, winner, _SEATS),)
        return ()

    def trump_shown(self, s: SixtySixState) -> int | None:
        return s.trump

    def turn_up_shown(self, s: SixtySixState) -> int | None:
        # The turn-up's identity stays public while it lies in the stock, face up or not.
        return s.turn_up if s.turn_up_in_stock and not s.finished else None

    def detail(self, s: SixtySixState, viewer: Viewer) -> SixtySixDetail:
        o = s.options
        state = stock_state(s)
        return SixtySixDetail(
            preset=o.preset,
            non_dealer=1 - s.dealer,
            stock_size=stock_size(s),
            stock_state=state,
            turn_up_face_up=state == "open",
            closer=s.closer,
            closer_opponent_tricks=s.closer_opp_tricks if s.closer is not None else None,
            marriages=tuple(
                MarriageView(
                    seat=m_seat,
                    suit=suit,
                    points=points,
                    counts=s.tricks_won[m_seat] > 0,
                    cards=(suit * 16 + _KING, suit * 16 + _QUEEN),
                )
                for m_seat, suit, points in s.marriages
            ),
            marriage_suit=s.marriage_suit,
            end_window_seat=s.window_seat if s.phase == END_WINDOW else None,
            carry=s.carry,
            target_game_points=o.target_game_points,
            match_stakes=self.match_stakes(s),
            known_cards=tuple(
                tuple(C.cards_of(s.shown[seat] & s.hands[seat])) for seat in range(_SEATS)
            ),
            last_deal=s.last_result,
        )

    # -- information sets (engine.core.information) ------------------------------------------

    def seat_information(self, state: SixtySixState, seat: int) -> InformationSet:
        s = state
        public = SixtySixPublic(
            last_deal=s.last_result,
            carry=s.carry,
            turn_up=s.turn_up,
            turn_up_in_stock=s.turn_up_in_stock,
            stock_size=len(s.stock),
            closer=s.closer,
            closer_opp_tricks=s.closer_opp_tricks,
            leader=s.leader,
            trick=tuple(s.trick),
            marriage_suit=s.marriage_suit,
            tricks_won=tuple(s.tricks_won),
            marriages=tuple((m[0], m[1], m[2]) for m in s.marriages),
            shown=tuple(s.shown),
            history=tuple((r[0], r[1], r[2], r[3], r[4]) for r in s.history),
            window_seat=s.window_seat if s.phase == END_WINDOW else None,
        )
        match = match_of_state(s)
        hand = tuple(C.cards_of(s.hands[seat]))
        return _information(
            s.options, seat, match, hand, public, other_hand=C.count(s.hands[1 - seat])
        )

    def information_set_from(
        self, view: View, events: Sequence[Event], options: Mapping[str, object] | Any = None
    ) -> InformationSet:
        seat = seat_of(view)
        opts = options if type(options) is SixtySixOptions else self.options(options)
        d: SixtySixDetail = view.detail
        turn_up = view.turn_up
        shown = [0, 0]
        history: list[tuple[int, int, int, int, int]] = []
        closed = exhausted = False
        for e in deal_events(events):
            if isinstance(e, DealStarted):
                turn_up = e.turn_up
            elif isinstance(e, TrumpExchanged):
                turn_up = e.given
                shown[e.seat] |= 1 << e.taken
            elif isinstance(e, MarriageDeclared):
                for c in e.cards:
                    shown[e.seat] |= 1 << c
            elif isinstance(e, CardDrawn) and e.face_up:
                assert e.card is not None
                shown[e.seat] |= 1 << e.card
                exhausted = True
            elif isinstance(e, StockClosed):
                closed = True
            elif isinstance(e, TrickWon):
                lead, follow = e.cards
                history.append((e.leader, e.winner, lead, follow, int(closed or exhausted)))
        assert turn_up is not None, "the deal's events begin with its DealStarted"
        in_stock = d.stock_state != "exhausted"
        trick = view.trick
        public = SixtySixPublic(
            last_deal=d.last_deal,
            carry=d.carry,
            turn_up=turn_up,
            turn_up_in_stock=in_stock,
            stock_size=d.stock_size - in_stock,
            closer=d.closer,
            closer_opp_tricks=d.closer_opponent_tricks or 0,
            leader=(
                trick.leader
                if trick is not None
                else history[-1][1]
                if history
                else 1 - view.dealer
            ),
            trick=trick.cards if trick is not None else (),
            marriage_suit=d.marriage_suit,
            tricks_won=tuple(sv.tricks_won for sv in view.seats),
            marriages=tuple((m.seat, m.suit, m.points) for m in d.marriages),
            shown=tuple(shown),
            history=tuple(history),
            window_seat=d.end_window_seat,
        )
        hand = view.seats[seat].hand or ()
        return _information(
            opts, seat, match_of(view), hand, public, other_hand=view.seats[1 - seat].hand_size
        )

    def sample_state(self, info: InformationSet, rng: random.Random) -> SixtySixState:
        p: SixtySixPublic = info.public
        seat = info.seat
        hand, stock = deal_hidden(info.hidden, info.unseen, rng)
        rng.shuffle(stock)  # every order of the stock's cards is as consistent as any other
        s: SixtySixState = new_state(SixtySixState, info, rng)
        s.last_result = p.last_deal
        s.carry = p.carry
        s.hands = [0, 0]
        s.hands[seat] = C.mask_of(info.hand)
        s.hands[1 - seat] = C.mask_of(hand)
        s.shown = list(p.shown)
        s.trump = p.turn_up >> 4  # the turn-up's suit, which an exchange keeps (the nine)
        s.turn_up = p.turn_up
        s.turn_up_in_stock = p.turn_up_in_stock
        s.stock = stock
        s.closer = p.closer
        s.closer_opp_tricks = p.closer_opp_tricks
        s.leader = p.leader
        s.trick = list(p.trick)
        s.marriage_suit = p.marriage_suit
        s.tricks_won = list(p.tricks_won)
        card_points = [0, 0]
        for row in p.history:
            card_points[row[1]] += POINTS[row[2]] + POINTS[row[3]]
        s.card_points = card_points
        marriage_points = [0, 0]
        for m_seat, _, points in p.marriages:
            marriage_points[m_seat] += points
        s.marriage_points = marriage_points
        s.marriages = [list(m) for m in p.marriages]
        last = p.history[-1] if p.history else None
        ended = info.phase == END_WINDOW
        s.bonus_seat = last[1] if last is not None and ended and p.closer is None else None
        s.tricks_played = len(p.history)
        s.last_trick = list(last[:4]) if last is not None and not p.trick else []
        s.window_seat = p.window_seat
        s.history = [list(row) for row in p.history]
        return s


@dataclass(frozen=True, slots=True)
class SixtySixPublic:
    """Sixty-Six's part of an information set (``InformationSet.public``): the last deal's
    result and the carry; the turn-up (the trump nine after an exchange), whether it still lies
    under the stock, and how many face-down cards the stock holds; the closer and the
    non-closer's tricks when it closed; who leads the trick on the table and its cards, the
    marriage declared on this lead; each seat's tricks; the marriages as ``(seat, suit,
    points)``; per seat, the mask of cards publicly known to have gone into its hand this deal
    (a marriage's King and Queen, the turn-up taken in exchange or drawn last); this deal's
    tricks as ``(leader, winner, lead, follow, 1 if played after the stock was closed or
    exhausted)``; and whose claim-or-pass is due after the last trick."""

    last_deal: DealScored | None
    carry: int
    turn_up: int
    turn_up_in_stock: bool
    stock_size: int
    closer: int | None
    closer_opp_tricks: int
    leader: int
    trick: tuple[int, ...]
    marriage_suit: int | None
    tricks_won: tuple[int, ...]
    marriages: tuple[tuple[int, int, int], ...]
    shown: tuple[int, ...]
    history: tuple[tuple[int, int, int, int, int], ...]
    window_seat: int | None


def _information(
    opts: SixtySixOptions,
    seat: int,
    match: Match,
    hand: tuple[int, ...],
    public: SixtySixPublic,
    *,
    other_hand: int,
) -> InformationSet:
    """The information set from the facts both routes gather. The hidden places are the
    opponent's hand (holding the cards shown into it and not played since) and the stock's
    face-down cards. Once the stock is closed or exhausted a follower must follow suit (and
    under ``strict`` beat the lead if it can, else trump if it can, §4.2): a card that broke
    none of these duties tells which cards the follower did not hold."""
    other = 1 - seat
    strict = opts.endgame_follow == "strict"
    trump = public.turn_up >> 4
    out = [0, 0]
    excluded = 0
    plays: list[tuple[int, int]] = []
    for leader, _, lead, follow, phase_two in public.history:
        follower = 1 - leader
        plays += [(leader, lead), (follower, follow)]
        if not phase_two:
            continue
        led = lead >> 4
        if follow >> 4 == led:
            # A lower card of the suit led, under ``strict``: it held none that beats the lead.
            above = _BEATERS[None][lead]  # the cards of the suit led that beat the lead
            cannot = above if strict and not above >> follow & 1 else 0
        else:
            out[follower] |= 1 << led
            cannot = SUIT_MASK[led]
            if strict and follow >> 4 != trump:
                out[follower] |= 1 << trump
                cannot |= SUIT_MASK[trump]
        if follower == other:
            excluded |= cannot
    if public.trick:
        plays.append((public.leader, public.trick[0]))
    played = C.mask_of(c for _, c in plays)
    known = tuple(C.cards_of(public.shown[other] & ~played))
    seen = [*hand, *known, *(c for _, c in plays)]
    if public.turn_up_in_stock:
        seen.append(public.turn_up)
    hidden = (
        HiddenPlace(other, "hand", other_hand, known, excluded),
        HiddenPlace(None, "stock", public.stock_size),
    )
    return information_set_of(
        "sixty-six",
        seat,
        opts,
        match,
        hand=hand,
        plays=tuple(plays),
        shown_out=tuple(out),
        hidden=hidden,
        unseen=unseen_cards(_DECK, seen),
        public=public,
    )


RULES = register(SixtySix())
