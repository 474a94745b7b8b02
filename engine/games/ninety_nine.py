"""Ninety-Nine (David Parlett), three players, classic and revised editions.

Spec: ``shared/rules/ninety-nine.md`` (section numbers below refer to it).

Each player is dealt 12 cards and secretly lays 3 aside; their suits encode a bid of 0–9 tricks
(♣3 ♥2 ♠1 ♦0). One round of premium calls (declare: bid cards face up, +30; reveal: the hand is
played face up too, +60) precedes nine tricks of ordinary follow-suit play. Classic: 37 cards, the
turn-up sets trumps and the Joker stands for it. Revised: 36 cards, trumps follow how many players
made their bid in the previous deal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from engine.core import cards as C
from engine.core.cards import JOKER, JOKER_BIT, SUIT_MASK
from engine.core.errors import Reason
from engine.core.events import (
    PLAYED,
    Called,
    CardPlayed,
    CardsExposed,
    CardsLaidAside,
    DealScored,
    Event,
    NinetyNineDealResult,
    SeatChosen,
    TrickWon,
    Viewer,
)
from engine.core.fields import card_field
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
    shown_out,
    suits_of_mask,
    unseen_cards,
)
from engine.core.laying_aside import LayAsides, not_laid_aside
from engine.core.moves import Call, ChooseSeat, LayAside, PlayCard
from engine.core.options import first_dealer_option, option, tie_rule_option
from engine.core.phases import Choice, Phase, Plays, Problem, whose_turn
from engine.core.rules import BidCardReading, Rules, register
from engine.core.scoring import final_winners
from engine.core.state import GameState
from engine.core.tricks import beaters, follow_mask, play_refusal, trick_winner
from engine.core.view import SeatView, TrickRows, TrickView, View, seat_view, trick_view

_SEATS: Final = 3
_COMPLETED: Final = TrickRows(_SEATS)  # completed tricks' views, by history row
_HAND: Final = 12
_TRICKS: Final = 9
_RANKS: Final = range(6, 15)  # 6 to Ace, in their natural order (§1)
_CLASSIC_DECK: Final = C.deck(_RANKS, joker=True)  # 37 cards
_REVISED_DECK: Final = C.deck(_RANKS)  # 36 cards
#: §4.1: ♣ 3, ♥ 2, ♠ 1, ♦ 0 tricks, summed over three bid cards.
BID_READING: Final = BidCardReading(
    suit_values={C.CLUBS: 3, C.HEARTS: 2, C.SPADES: 1, C.DIAMONDS: 0}, cards=3
)
_STRENGTH: Final = tuple(c & 15 for c in range(64))  # A K Q J T 9 8 7 6: the natural order
_CONTRACT_BONUS: Final = {1: 30, 2: 20, 3: 10}  # by how many seats made their bid (§7)
_PREMIUM_VALUE: Final = {"declare": 30, "reveal": 60}
_TRUMP_BY_SUCCESSES: Final = {3: C.CLUBS, 2: C.HEARTS, 1: C.SPADES, 0: C.DIAMONDS}  # §3.3
_BEATERS: Final = beaters(_REVISED_DECK, _STRENGTH)  # by trump; the Joker plays as the turn-up


def _joker_in(suit: int) -> tuple[int, ...]:
    """The cards of each suit when the Joker belongs to ``suit``: lane 4, the Joker's own, is
    that suit too, so a Joker led leads it."""
    lanes = tuple(m | JOKER_BIT if lane == suit else m for lane, m in enumerate(SUIT_MASK))
    return (*lanes, lanes[suit])


#: The cards of each suit for following, by the deal's turn-up (§3.2: classic, the Joker belongs
#: to the turn-up's suit). No Joker in play follows the printed suits: revised (no turn-up), or
#: classic with the Joker turned up (nobody holds it).
_FOLLOW_SUITS: Final[dict[int | None, tuple[int, ...]]] = {
    None: SUIT_MASK,
    JOKER: SUIT_MASK,
    **{c: _joker_in(c >> 4) for c in _CLASSIC_DECK if c != JOKER},
}

# The phases of a deal (the game's last phase is the core's OVER).
LAY_ASIDE: Final = "lay_aside"  # all seats lay three bid cards aside, at once
PREMIUM: Final = "premium"  # one round of premium calls from eldest, the dealer last (§5)
NAME_LEADER: Final = "name_leader"  # a revealer names who leads the first trick
PLAY: Final = "play"  # nine tricks

_CALLS: Final = (Call("pass"), Call("declare"), Call("reveal"))
_PASS: Final = _CALLS[0]
_SEAT_CHOICES: Final = tuple(ChooseSeat(seat) for seat in range(_SEATS))


@dataclass(frozen=True, slots=True)
class NinetyNineOptions:
    edition: str = option(
        "classic",
        "classic: 37 cards, the turn-up sets trumps, the Joker stands for it; "
        "revised: 36 cards, trumps from last deal's successes, game to 100",
        choices=("classic", "revised"),
        sets={"classic": {"game_end": "fixed_deals"}, "revised": {"game_end": "target_score"}},
    )
    first_deal_trump: str = option(
        "none",
        "revised only: trumps of the first deal",
        choices=("none", "diamonds"),
    )
    game_end: str = option(
        "fixed_deals",
        "end after a fixed number of deals, or once someone reaches the target score "
        "(default follows the edition)",
        choices=("fixed_deals", "target_score"),
    )
    game_length_deals: int = option(
        9,
        "deals in a fixed-length game (a multiple of 3 keeps dealing fair)",
        minimum=1,
        maximum=999,
    )
    target_score: int = option(
        100, "score that ends a target-score game", minimum=1, maximum=100_000
    )
    premium_bids: bool = option(True, "allow the premium calls declare and reveal")
    premium_fail_award: str = option(
        "opponents",
        "when a premium bidder fails: each opponent scores the premium, or nobody does",
        choices=("opponents", "none"),
    )
    reveal_expose_timing: str = option(
        "after_opening_lead",
        "when the revealer's hand is laid face up",
        choices=("after_opening_lead", "before_opening_lead", "at_revealer_first_card"),
    )
    revealer_names_leader: bool = option(
        True, "the revealer names who leads the first trick (else eldest leads)"
    )
    show_all_bids_at_end: bool = option(
        True,
        "show every seat's bid cards at the end of a deal (else only successful "
        "players' and the premium bidder's)",
    )
    game_bonus_100: bool = option(
        False, "the winner, and any other player who reached the target score, add 100"
    )
    tie_rule: str = tie_rule_option(
        "tied leaders at the end share the win, or play extra deals until one leads"
    )
    first_dealer: str = first_dealer_option()


@dataclass(frozen=True, slots=True)
class NinetyNineDetail:
    """Game-specific public state, as one viewer sees it."""

    edition: str
    eldest: int
    caller: int | None  # whose premium call is due
    calls: tuple[str | None, ...]  # each seat's premium call this deal, once made
    premium_seat: int | None  # the standing premium bidder
    premium: str | None  # "declare" or "reveal"
    revealer_hand_exposed: bool
    joker_as: int | None = card_field(default=None)  # the card the Joker stands for
    last_deal: DealScored | None = None


class NinetyNineState(GameState):
    game = "ninety-nine"
    schema = 1
    copied = (
        "scores",
        "winners",
        "hands",
        "aside",
        "aside_exposed",
        "calls",
        "trick",
        "tricks_won",
        "history",
    )

    options: NinetyNineOptions
    # match
    scores: list[int]
    prev_successes: int  # k of the previous deal, for revised trumps
    winners: list[int]
    # deal
    hands: list[int]  # masks of cards in hand (bid cards removed)
    aside: list[int]  # masks of bid cards, 0 until laid aside
    aside_exposed: list[bool]
    turn_up: int | None
    trump: int | None
    caller: int | None
    calls: list[str | None]
    premium_seat: int | None
    premium: str | None
    hand_exposed: bool  # the revealer's hand is face up
    leader: int
    turn: int
    trick: list[int]  # cards of the current trick, in play order from ``leader``
    tricks_won: list[int]
    history: list[list[int]]  # completed tricks: [leader, winner, *cards]


# -- named rules -----------------------------------------------------------------------------


def revised_trump(deal_no: int, prev_successes: int, o: NinetyNineOptions) -> int | None:
    """§3.3: the first deal per ``first_deal_trump``; later deals by last deal's successes
    (3 ♣, 2 ♥, 1 ♠, 0 ♦)."""
    if deal_no == 1:
        return C.DIAMONDS if o.first_deal_trump == "diamonds" else None
    return _TRUMP_BY_SUCCESSES[prev_successes]


def joker_card(s: NinetyNineState) -> int | None:
    """The card the Joker stands for this deal (§3.2): the turn-up, classic only."""
    return s.turn_up if s.turn_up is not None and s.turn_up != JOKER else None


def effective(s: NinetyNineState, c: int) -> int:
    return s.turn_up if c == JOKER and s.turn_up is not None else c


def bid_value(s: NinetyNineState, aside: int) -> int:
    """♣3 ♥2 ♠1 ♦0 summed over the bid cards; the Joker counts as the turn-up (§4.1)."""
    return BID_READING.raw([effective(s, c) for c in C.iter_cards(aside)])


def contract_bonus(made: list[bool]) -> int:
    """§7.2: the bonus each seat that made its bid gets, by how many made theirs."""
    return _CONTRACT_BONUS.get(sum(made), 0)


def allowed_calls(s: NinetyNineState) -> tuple[str, ...]:
    """§5.2: none standing → pass/declare/reveal; a declare → pass/reveal."""
    if s.premium is None:
        return ("pass", "declare", "reveal")
    if s.premium == "declare":
        return ("pass", "reveal")
    return ("pass",)


def caller_gate(s: NinetyNineState, seat: int) -> Problem | None:
    if seat != s.caller:
        return (Reason.NOT_YOUR_TURN, f"it is seat {s.caller}'s turn to call")
    return None


def call_problem(s: NinetyNineState, seat: int, move: Call) -> Problem | None:
    if move.call in allowed_calls(s):
        return None
    allowed = ", ".join(allowed_calls(s))
    return (Reason.CALL_NOT_ALLOWED, f"{move.call!r} is not allowed now; allowed: {allowed}")


def revealer_gate(s: NinetyNineState, seat: int) -> Problem | None:
    if seat != s.premium_seat:
        return (Reason.NOT_YOUR_TURN, "only the revealer names the leader")
    return None


def seat_choice_problem(s: NinetyNineState, seat: int, move: ChooseSeat) -> Problem | None:
    if type(move.seat) is int and 0 <= move.seat < _SEATS:
        return None
    return (Reason.INVALID_SEAT_CHOICE, f"no seat {move.seat!r}")


def playable(s: NinetyNineState, seat: int) -> int:
    """Mask of the cards ``seat`` may play now: on its turn, any to lead; to follow, the suit
    led if it has one, else any (§6: no duty to trump or to beat); the Joker belongs to the
    turn-up's suit (§3.2, see ``_FOLLOW_SUITS``)."""
    if seat != s.turn:
        return 0
    hand = s.hands[seat]
    if not s.trick:
        return hand
    return follow_mask(hand, s.trick[0] >> 4, None, 0, _FOLLOW_SUITS[s.turn_up])


def play_problem(s: NinetyNineState, seat: int, card: object) -> Problem:
    suits = _FOLLOW_SUITS[s.turn_up]
    return play_refusal(seat, s.turn, s.hands[seat], card, s.trick, suits=suits)


class NinetyNine(Rules[NinetyNineState]):
    name = "ninety-nine"
    title = "Ninety-Nine"
    seats = _SEATS
    summary = (
        "Bid by laying three cards aside (their suits are the number); premium declare/reveal."
    )
    options_type = NinetyNineOptions
    state_type = NinetyNineState
    detail_type = NinetyNineDetail
    rank_order = tuple(reversed(_RANKS))
    bid_reading = BID_READING
    move_types = (LayAside, Call, ChooseSeat, PlayCard)

    def phases(self) -> Sequence[Phase[NinetyNineState]]:
        return (
            Phase(LAY_ASIDE, not_laid_aside, (LayAsides(BID_READING.cards, self.lay_aside),)),
            Phase(
                PREMIUM,
                lambda s: (s.caller,) if s.caller is not None else (),
                (Choice(Call, _CALLS, call_problem, self.call, gate=caller_gate),),
            ),
            Phase(
                NAME_LEADER,
                lambda s: (s.premium_seat,) if s.premium_seat is not None else (),
                (
                    Choice(
                        ChooseSeat,
                        _SEAT_CHOICES,
                        seat_choice_problem,
                        self.choose_leader,
                        gate=revealer_gate,
                    ),
                ),
            ),
            Phase(PLAY, whose_turn, (Plays(playable, play_problem, self.play),)),
        )

    # -- dealing (§2, §3) --------------------------------------------------------------------

    def begin(self, s: NinetyNineState, first_dealer: int) -> None:
        s.prev_successes = -1
        s.dealer = (first_dealer - 1) % _SEATS  # deal() passes the deal to ``first_dealer``
        self.deal(s)

    def next_deal(self, s: NinetyNineState, events: list[Event]) -> None:
        self.deal(s)
        events.append(self.deal_started(s))

    def dealt_turn_up(self, s: NinetyNineState) -> int | None:
        return s.turn_up

    def dealt_trump(self, s: NinetyNineState) -> int | None:
        return s.trump

    def deal(self, s: NinetyNineState) -> None:
        o = s.options
        s.deal_no += 1
        s.dealer = (s.dealer + 1) % _SEATS
        classic = o.edition == "classic"
        pack = s.chance.shuffled(f"pack:{s.deal_no}", _CLASSIC_DECK if classic else _REVISED_DECK)
        s.chance.dealt(s.deal_no, pack)
        hands = [0] * _SEATS
        for i in range(_SEATS * _HAND):  # one at a time, clockwise from eldest (§2)
            hands[(s.dealer + 1 + i) % _SEATS] |= 1 << pack[i]
        s.hands = hands
        if classic:
            s.turn_up = pack[_SEATS * _HAND]
            no_trump = s.turn_up == JOKER or s.turn_up & 15 == 9
            s.trump = None if no_trump else s.turn_up >> 4
        else:
            s.turn_up = None
            s.trump = revised_trump(s.deal_no, s.prev_successes, o)
        s.phase = LAY_ASIDE
        s.aside = [0] * _SEATS
        s.aside_exposed = [False] * _SEATS
        s.caller = None
        s.calls = [None] * _SEATS
        s.premium_seat = None
        s.premium = None
        s.hand_exposed = False
        s.leader = s.turn = (s.dealer + 1) % _SEATS
        s.trick = []
        s.tricks_won = [0] * _SEATS
        s.history = []

    # -- the moves ---------------------------------------------------------------------------

    def lay_aside(self, s: NinetyNineState, seat: int, move: LayAside, events: list[Event]) -> None:
        mask = C.mask_of(move.cards)
        s.aside[seat] = mask
        s.hands[seat] &= ~mask
        events.append(CardsLaidAside(seat=seat, count=BID_READING.cards, cards=move.cards))
        if all(s.aside):
            if s.options.premium_bids:
                s.phase = PREMIUM
                s.caller = (s.dealer + 1) % _SEATS
            else:
                self._begin_play(s, events)

    def call(self, s: NinetyNineState, seat: int, move: Call, events: list[Event]) -> None:
        call = move.call
        s.calls[seat] = call
        events.append(Called(seat=seat, call=call))
        if call != "pass":
            s.premium_seat, s.premium = seat, call
        # The next caller, clockwise; the dealer calls last. After a reveal only "pass" is
        # possible, so the engine passes for the remaining seats (no move is needed, §5.2).
        nxt = (seat + 1) % _SEATS
        while nxt != (s.dealer + 1) % _SEATS:
            if s.premium != "reveal":
                s.caller = nxt
                return
            s.calls[nxt] = "pass"
            events.append(Called(seat=nxt, call="pass", automatic=True))
            nxt = (nxt + 1) % _SEATS
        s.caller = None
        self._end_calls(s, events)

    def _end_calls(self, s: NinetyNineState, events: list[Event]) -> None:
        p = s.premium_seat
        if p is not None:
            s.aside_exposed[p] = True
            events.append(
                CardsExposed(seat=p, what="bid_cards", cards=tuple(C.cards_of(s.aside[p])))
            )
            if s.premium == "reveal" and s.options.revealer_names_leader:
                s.phase = NAME_LEADER
                return
        self._begin_play(s, events)

    def _begin_play(self, s: NinetyNineState, events: list[Event]) -> None:
        s.phase = PLAY
        if s.premium == "reveal" and s.options.reveal_expose_timing == "before_opening_lead":
            self._expose_hand(s, events)

    def _expose_hand(self, s: NinetyNineState, events: list[Event]) -> None:
        p = s.premium_seat
        assert p is not None
        s.hand_exposed = True
        events.append(CardsExposed(seat=p, what="hand", cards=tuple(C.cards_of(s.hands[p]))))

    def timeout_move(self, s: NinetyNineState, seat: int) -> Call | ChooseSeat | None:
        """The least harmful move for a seat whose clock ran out (proposed wording in
        docs/proposed-rules-timeout.md): at the premium calls ``pass`` (never a premium); a
        revealer names eldest to lead, as when ``revealer_names_leader`` is off. None for the bid
        cards and the play: the service's policy chooses (the reference bot, cards only)."""
        if s.phase == PREMIUM and seat == s.caller:
            return _PASS
        if s.phase == NAME_LEADER and seat == s.premium_seat:
            return ChooseSeat((s.dealer + 1) % _SEATS)
        return None

    def choose_leader(
        self, s: NinetyNineState, seat: int, move: ChooseSeat, events: list[Event]
    ) -> None:
        events.append(SeatChosen(seat=seat, chosen=move.seat, role="leader"))
        s.leader = s.turn = move.seat
        self._begin_play(s, events)

    def play(self, s: NinetyNineState, seat: int, move: PlayCard, events: list[Event]) -> None:
        c = move.card
        s.hands[seat] &= ~(1 << c)
        s.trick.append(c)
        events.append(CardPlayed(seat, c, s.turn_up) if c == JOKER else PLAYED[seat][c])
        if s.premium == "reveal" and not s.hand_exposed:
            timing = s.options.reveal_expose_timing
            if (timing == "after_opening_lead" and not s.history and len(s.trick) == 1) or (
                timing == "at_revealer_first_card" and seat == s.premium_seat
            ):
                self._expose_hand(s, events)
        if len(s.trick) < _SEATS:
            s.turn = (seat + 1) % _SEATS
            return
        trick = s.trick
        if JOKER in trick:  # the Joker plays as the turn-up card (§3.2)
            trick = [effective(s, x) for x in trick]
        winner = (s.leader + trick_winner(trick, _BEATERS[s.trump])) % _SEATS
        s.tricks_won[winner] += 1
        s.history.append([s.leader, winner, *s.trick])
        events.append(TrickWon(len(s.history), winner, s.leader, tuple(s.trick)))
        s.trick = []
        s.leader = s.turn = winner
        if len(s.history) == _TRICKS:
            self.score_deal(s, events)

    # -- scoring and the end -----------------------------------------------------------------

    @staticmethod
    def deal_points(
        bids: list[int],
        tricks: list[int],
        premium_seat: int | None,
        premium: str | None,
        fail_award: str = "opponents",
    ) -> tuple[list[int], list[bool]]:
        """§7: 1 per trick, 30/20/10 contract bonus, then the premium. Returns (points, made)."""
        made = [t == b for t, b in zip(tricks, bids, strict=True)]
        bonus = contract_bonus(made)
        points = [t + (bonus if m else 0) for t, m in zip(tricks, made, strict=True)]
        if premium_seat is not None and premium is not None:
            value = _PREMIUM_VALUE[premium]
            if made[premium_seat]:
                points[premium_seat] += value
            elif fail_award == "opponents":
                for seat in range(len(points)):
                    if seat != premium_seat:
                        points[seat] += value
        return points, made

    def score_deal(self, s: NinetyNineState, events: list[Event]) -> None:
        o = s.options
        bids = [bid_value(s, a) for a in s.aside]
        points, made = self.deal_points(
            bids, s.tricks_won, s.premium_seat, s.premium, o.premium_fail_award
        )
        for seat in range(_SEATS):
            s.scores[seat] += points[seat]
        shown = [
            o.show_all_bids_at_end or made[seat] or seat == s.premium_seat for seat in range(_SEATS)
        ]
        shown_bids = tuple(b if shown[i] else None for i, b in enumerate(bids))
        shown_cards = tuple(
            tuple(C.cards_of(a)) if shown[i] else None for i, a in enumerate(s.aside)
        )
        scored = DealScored(
            deal_no=s.deal_no,
            bids=shown_bids,
            taken=tuple(s.tricks_won),
            made=tuple(made),
            points=tuple(points),
            totals=tuple(s.scores),
            bid_cards=shown_cards,
            premium_seat=s.premium_seat,
            premium=s.premium,
            result=NinetyNineDealResult(
                bids=shown_bids,
                bid_cards=shown_cards,
                tricks=tuple(s.tricks_won),
                made=tuple(made),
                contract_bonus=contract_bonus(made),
                premium_seat=s.premium_seat,
                premium=s.premium,
                premium_value=_PREMIUM_VALUE[s.premium] if s.premium is not None else 0,
            ),
        )
        s.prev_successes = sum(made)
        self.close_deal(s, scored, events)

    def match_winners(self, s: NinetyNineState) -> tuple[int, ...] | None:
        return self.game_winners(s.scores, s.deal_no, s.options)

    @staticmethod
    def game_winners(
        totals: list[int], deals_played: int, o: NinetyNineOptions
    ) -> tuple[int, ...] | None:
        """§8.2: the winners once the game is over, None while it goes on."""
        if o.game_end == "fixed_deals":
            reached = deals_played >= o.game_length_deals
        else:
            reached = max(totals) >= o.target_score
        return final_winners(totals, reached, o.tie_rule)

    def final_totals(self, s: NinetyNineState, winners: tuple[int, ...]) -> list[int]:
        """§8.2 ``game_bonus_100``: the winner(s), and anyone who reached the target, add 100."""
        o = s.options
        if not o.game_bonus_100:
            return list(s.scores)
        return [
            t + 100 if seat in winners or t >= o.target_score else t
            for seat, t in enumerate(s.scores)
        ]

    # -- projection (§11) --------------------------------------------------------------------

    def seat_view(self, s: NinetyNineState, seat: int, viewer: Viewer) -> SeatView:
        own = seat == viewer
        hand_public = s.hand_exposed and seat == s.premium_seat
        aside_visible = own or s.aside_exposed[seat]
        return seat_view(
            seat=seat,
            hand_size=C.count(s.hands[seat]),
            hand=tuple(C.cards_of(s.hands[seat])) if own or hand_public else None,
            aside_count=C.count(s.aside[seat]),
            aside=tuple(C.cards_of(s.aside[seat])) if aside_visible else None,
            bid=bid_value(s, s.aside[seat]) if aside_visible and s.aside[seat] else None,
            tricks_won=s.tricks_won[seat],
            score=s.scores[seat],
        )

    def trick_shown(self, s: NinetyNineState) -> TrickView | None:
        return trick_view(s.leader, s.trick, None, _SEATS) if s.phase == PLAY else None

    def tricks_shown(self, s: NinetyNineState) -> tuple[TrickView, ...]:
        return _COMPLETED.shown(s.history)

    def trump_shown(self, s: NinetyNineState) -> int | None:
        return s.trump

    def turn_up_shown(self, s: NinetyNineState) -> int | None:
        return s.turn_up

    def detail(self, s: NinetyNineState, viewer: Viewer) -> NinetyNineDetail:
        return NinetyNineDetail(
            edition=s.options.edition,
            eldest=(s.dealer + 1) % _SEATS,
            caller=s.caller,
            calls=tuple(s.calls),
            premium_seat=s.premium_seat,
            premium=s.premium,
            revealer_hand_exposed=s.hand_exposed,
            joker_as=joker_card(s),
            last_deal=s.last_result,
        )

    # -- information sets (engine.core.information) ------------------------------------------

    def seat_information(self, state: NinetyNineState, seat: int) -> InformationSet:
        s = state
        public = NinetyNinePublic(
            last_deal=s.last_result,
            turn_up=s.turn_up,
            trump=s.trump,
            caller=s.caller,
            calls=tuple(s.calls),
            premium_seat=s.premium_seat,
            premium=s.premium,
            leader=s.leader,
            trick=tuple(s.trick),
            history=tuple(map(tuple, s.history)),
            tricks_won=tuple(s.tricks_won),
            own_aside=tuple(C.cards_of(s.aside[seat])),
            aside_exposed=tuple(s.aside_exposed),
            exposed_asides=tuple(
                tuple(C.cards_of(a)) if shown and i != seat else None
                for i, (a, shown) in enumerate(zip(s.aside, s.aside_exposed, strict=True))
            ),
            hand_exposed=s.hand_exposed,
            exposed_hand=(
                tuple(C.cards_of(s.hands[s.premium_seat]))
                if s.hand_exposed and s.premium_seat is not None and s.premium_seat != seat
                else None
            ),
        )
        match = match_of_state(s)
        return _information(
            s.options,
            seat,
            match,
            tuple(C.cards_of(s.hands[seat])),
            public,
            hand_sizes=tuple(C.count(h) for h in s.hands),
            aside_sizes=tuple(C.count(a) for a in s.aside),
        )

    def information_set_from(
        self, view: View, events: Sequence[Event], options: Mapping[str, object] | Any = None
    ) -> InformationSet:
        seat = seat_of(view)
        opts = options if type(options) is NinetyNineOptions else self.options(options)
        d: NinetyNineDetail = view.detail
        history = tuple((t.leader, t.winner, *t.cards) for t in view.tricks)
        trick = view.trick.cards if view.trick is not None else ()
        if view.trick is not None:
            leader = view.trick.leader
        elif history:
            leader = history[-1][1]  # type: ignore[assignment]
        else:
            leader = (view.dealer + 1) % _SEATS
        exposed = {
            e.seat
            for e in deal_events(events)
            if isinstance(e, CardsExposed) and e.what == "bid_cards"
        }
        own = view.seats[seat]
        public = NinetyNinePublic(
            last_deal=d.last_deal,
            turn_up=view.turn_up,
            trump=view.trump,
            caller=d.caller,
            calls=d.calls,
            premium_seat=d.premium_seat,
            premium=d.premium,
            leader=leader,
            trick=tuple(trick),
            history=history,  # type: ignore[arg-type]
            tricks_won=tuple(sv.tricks_won for sv in view.seats),
            own_aside=own.aside or (),
            aside_exposed=tuple(i in exposed for i in range(_SEATS)),
            exposed_asides=tuple(
                sv.aside if i != seat and i in exposed else None for i, sv in enumerate(view.seats)
            ),
            hand_exposed=d.revealer_hand_exposed,
            exposed_hand=(
                view.seats[d.premium_seat].hand
                if d.revealer_hand_exposed and d.premium_seat is not None and d.premium_seat != seat
                else None
            ),
        )
        return _information(
            opts,
            seat,
            match_of(view),
            own.hand or (),
            public,
            hand_sizes=tuple(sv.hand_size for sv in view.seats),
            aside_sizes=tuple(sv.aside_count for sv in view.seats),
        )

    def sample_state(self, info: InformationSet, rng: random.Random) -> NinetyNineState:
        p: NinetyNinePublic = info.public
        seat = info.seat
        dealt = deal_hidden(info.hidden, info.unseen, rng)
        s: NinetyNineState = new_state(NinetyNineState, info, rng)
        s.last_result = p.last_deal
        s.prev_successes = sum(1 for m in p.last_deal.made if m) if p.last_deal is not None else -1
        s.hands = [0] * _SEATS
        s.aside = [0] * _SEATS
        s.hands[seat] = C.mask_of(info.hand)
        s.aside[seat] = C.mask_of(p.own_aside)
        for place, cards in zip(info.hidden, dealt, strict=True):
            assert place.owner is not None
            if place.what == "hand":
                s.hands[place.owner] = C.mask_of(cards)
            else:
                s.aside[place.owner] = C.mask_of(cards)
        s.aside_exposed = list(p.aside_exposed)
        s.turn_up = p.turn_up
        s.trump = p.trump
        s.caller = p.caller
        s.calls = list(p.calls)
        s.premium_seat = p.premium_seat
        s.premium = p.premium
        s.hand_exposed = p.hand_exposed
        s.leader = p.leader
        s.turn = (p.leader + len(p.trick)) % _SEATS
        s.trick = list(p.trick)
        s.tricks_won = list(p.tricks_won)
        s.history = [list(row) for row in p.history]
        return s


@dataclass(frozen=True, slots=True)
class NinetyNinePublic:
    """Ninety-Nine's part of an information set (``InformationSet.public``): the last deal's
    result, the turn-up and trumps, the premium calls (whose call is due, each seat's call, the
    standing premium), who leads the trick on the table and its cards, this deal's completed
    tricks as ``(leader, winner, *cards)``, each seat's tricks, the seat's own bid cards, which
    seats' bid cards lie face up (and those cards, for the other seats), and the revealer's
    hand once it lies face up (None if not, or if it is the seat's own)."""

    last_deal: DealScored | None
    turn_up: int | None
    trump: int | None
    caller: int | None
    calls: tuple[str | None, ...]
    premium_seat: int | None
    premium: str | None
    leader: int
    trick: tuple[int, ...]
    history: tuple[tuple[int, ...], ...]
    tricks_won: tuple[int, ...]
    own_aside: tuple[int, ...]
    aside_exposed: tuple[bool, ...]
    exposed_asides: tuple[tuple[int, ...] | None, ...]
    hand_exposed: bool
    exposed_hand: tuple[int, ...] | None


def _information(
    opts: NinetyNineOptions,
    seat: int,
    match: Match,
    hand: tuple[int, ...],
    public: NinetyNinePublic,
    *,
    hand_sizes: tuple[int, ...],
    aside_sizes: tuple[int, ...],
) -> InformationSet:
    """The information set from the facts both routes gather. The hidden places are the other
    seats' hands and bid cards; face-up ones are known. A seat that did not follow the suit led
    holds none of it, nor the Joker when the Joker belongs to that suit (§3.2, §6)."""
    turn_up = public.turn_up

    def suit(c: int) -> int:
        return (turn_up if c == JOKER and turn_up is not None else c) >> 4

    tricks: list[tuple[int, Sequence[int]]] = [(row[0], row[2:]) for row in public.history]
    tricks.append((public.leader, public.trick))
    out = shown_out(tricks, _SEATS, suit)
    plays = tuple(
        ((leader + i) % _SEATS, c) for leader, cards in tricks for i, c in enumerate(cards)
    )
    hidden: list[HiddenPlace] = []
    seen = [*hand, *public.own_aside, *(c for _, c in plays)]
    if turn_up is not None:
        seen.append(turn_up)
    for other in range(_SEATS):
        if other == seat:
            continue
        excluded = suits_of_mask(out[other])
        if turn_up is not None and turn_up != JOKER and out[other] >> (turn_up >> 4) & 1:
            excluded |= JOKER_BIT
        known_hand = public.exposed_hand if other == public.premium_seat else None
        known_aside = public.exposed_asides[other]
        hidden.append(HiddenPlace(other, "hand", hand_sizes[other], known_hand or (), excluded))
        hidden.append(HiddenPlace(other, "aside", aside_sizes[other], known_aside or ()))
        seen += [*(known_hand or ()), *(known_aside or ())]
    classic = opts.edition == "classic"
    return information_set_of(
        "ninety-nine",
        seat,
        opts,
        match,
        hand=hand,
        plays=plays,
        shown_out=tuple(out),
        hidden=tuple(hidden),
        unseen=unseen_cards(_CLASSIC_DECK if classic else _REVISED_DECK, seen),
        public=public,
    )


RULES = register(NinetyNine())
