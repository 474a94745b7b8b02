"""Ninety-Nine (David Parlett), three players, classic and revised editions.

Spec: ``shared/rules/ninety-nine.md`` (section numbers below refer to it).

Each player is dealt 12 cards and secretly lays 3 aside; their suits encode a bid of 0–9 tricks
(♣3 ♥2 ♠1 ♦0). One round of premium calls (declare: bid cards face up, +30; reveal: the hand is
played face up too, +60) precedes nine tricks of ordinary follow-suit play. Classic: 37 cards, the
turn-up sets trumps and the Joker stands for it. Revised: 36 cards, trumps follow how many players
made their bid in the previous deal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from engine.core import cards as C
from engine.core.cards import JOKER, JOKER_BIT, SUIT_MASK
from engine.core.chance import Chance
from engine.core.errors import IllegalMove, Reason
from engine.core.events import (
    Called,
    CardPlayed,
    CardsExposed,
    CardsLaidAside,
    DealScored,
    DealStarted,
    Event,
    GameOver,
    SeatChosen,
    TrickWon,
    Viewer,
    card_played,
)
from engine.core.fields import card_field
from engine.core.laying_aside import LayAsideChoices, check_lay_aside
from engine.core.moves import Call, ChooseSeat, LayAside, Move, PlayCard, play_moves
from engine.core.options import first_dealer_option, option, tie_rule_option
from engine.core.rules import Outcome, Rules, register
from engine.core.scoring import final_winners
from engine.core.state import GameState
from engine.core.tricks import check_card_play, standard_winner
from engine.core.view import SeatView, View, trick_view

_SEATS: Final = 3
_HAND: Final = 12
_BID_CARDS: Final = 3
_TRICKS: Final = 9
_CLASSIC_DECK: Final = C.deck(range(6, 15), joker=True)  # 37 cards
_REVISED_DECK: Final = C.deck(range(6, 15))  # 36 cards
_STRENGTH: Final = tuple(c & 15 for c in range(64))  # A K Q J T 9 8 7 6: the natural order
_CONTRACT_BONUS: Final = {1: 30, 2: 20, 3: 10}  # by how many seats made their bid (§7)
_PREMIUM_VALUE: Final = {"declare": 30, "reveal": 60}
_TRUMP_BY_SUCCESSES: Final = {3: C.CLUBS, 2: C.HEARTS, 1: C.SPADES, 0: C.DIAMONDS}  # §3.3


class Phase(StrEnum):
    LAY_ASIDE = "lay_aside"
    PREMIUM = "premium"
    NAME_LEADER = "name_leader"
    PLAY = "play"
    OVER = "over"


# Enum member lookups cost ~90 ns each; the hot paths compare against these plain aliases.
_LAY_ASIDE: Final = Phase.LAY_ASIDE
_PREMIUM: Final = Phase.PREMIUM
_NAME_LEADER: Final = Phase.NAME_LEADER
_PLAY: Final = Phase.PLAY
_OVER: Final = Phase.OVER


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
    _event_fields = frozenset({"last_result"})

    options: NinetyNineOptions
    # game
    deal_no: int
    dealer: int
    scores: list[int]
    prev_successes: int  # k of the previous deal, for revised trumps
    finished: bool
    winners: list[int]
    last_result: DealScored | None  # the last deal's result, for views
    # deal
    phase: str
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
    move_types = (LayAside, Call, ChooseSeat, PlayCard)

    # -- setup -------------------------------------------------------------------------------

    def _new(self, opts: NinetyNineOptions, chance: Chance) -> NinetyNineState:
        s = NinetyNineState()
        s.options = opts
        s.chance = chance
        s.deal_no = 0
        first = 0 if opts.first_dealer == "seat0" else chance.randint("first_dealer", 0, 2)
        s.dealer = (first - 1) % _SEATS  # _start_deal moves the deal on to ``first``
        s.scores = [0] * _SEATS
        s.prev_successes = -1
        s.finished = False
        s.winners = []
        s.last_result = None
        self._start_deal(s)  # its DealStarted is the opening event
        return s

    def opening_events(self, state: NinetyNineState) -> list[Event]:
        return [self._deal_event(state)]

    def _start_deal(self, s: NinetyNineState) -> None:
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
            s.trump = self.revised_trump(s.deal_no, s.prev_successes, o)
        s.phase = _LAY_ASIDE
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

    def _deal_event(self, s: NinetyNineState) -> DealStarted:
        return DealStarted(
            deal_no=s.deal_no,
            dealer=s.dealer,
            hand_sizes=(_HAND,) * _SEATS,
            hands=tuple(tuple(C.cards_of(h)) for h in s.hands),
            turn_up=s.turn_up,
            trump=s.trump,
        )

    # -- named rules -------------------------------------------------------------------------

    @staticmethod
    def revised_trump(deal_no: int, prev_successes: int, o: NinetyNineOptions) -> int | None:
        """§3.3: the first deal per ``first_deal_trump``; later deals by last deal's successes
        (3 ♣, 2 ♥, 1 ♠, 0 ♦)."""
        if deal_no == 1:
            return C.DIAMONDS if o.first_deal_trump == "diamonds" else None
        return _TRUMP_BY_SUCCESSES[prev_successes]

    @staticmethod
    def joker_card(s: NinetyNineState) -> int | None:
        """The card the Joker stands for this deal (§3.2): the turn-up, classic only."""
        return s.turn_up if s.turn_up is not None and s.turn_up != JOKER else None

    @staticmethod
    def effective(s: NinetyNineState, c: int) -> int:
        return s.turn_up if c == JOKER and s.turn_up is not None else c

    @classmethod
    def bid_value(cls, s: NinetyNineState, aside: int) -> int:
        """♣3 ♥2 ♠1 ♦0 summed over the bid cards; the Joker counts as the turn-up (§4.1)."""
        return sum(3 - (cls.effective(s, c) >> 4) for c in C.iter_cards(aside))

    @staticmethod
    def allowed_calls(s: NinetyNineState) -> tuple[str, ...]:
        """§5.2: none standing → pass/declare/reveal; a declare → pass/reveal."""
        if s.premium is None:
            return ("pass", "declare", "reveal")
        if s.premium == "declare":
            return ("pass", "reveal")
        return ("pass",)

    def playable(self, s: NinetyNineState, seat: int) -> int:
        """Mask of the cards ``seat`` may play now: follow the suit led if possible (§6)."""
        hand = s.hands[seat]
        if not s.trick:
            return hand
        led = self.effective(s, s.trick[0]) >> 4
        same = hand & SUIT_MASK[led]
        if hand & JOKER_BIT and s.turn_up is not None and s.turn_up >> 4 == led:
            same |= JOKER_BIT  # the Joker belongs to the turn-up's suit
        return same or hand

    # -- turn and legal moves ----------------------------------------------------------------

    def to_act(self, s: NinetyNineState) -> tuple[int, ...]:
        if s.phase == _PLAY:
            return (s.turn,)
        if s.finished:
            return ()
        if s.phase == _LAY_ASIDE:
            return tuple(seat for seat in range(_SEATS) if not s.aside[seat])
        if s.phase == _PREMIUM:
            return (s.caller,) if s.caller is not None else ()
        if s.phase == _NAME_LEADER:
            return (s.premium_seat,) if s.premium_seat is not None else ()
        return (s.turn,)

    def legal_moves(self, s: NinetyNineState, seat: int) -> Sequence[Move]:
        if s.finished:
            return []
        phase = s.phase
        if phase == _PLAY:
            if seat != s.turn:
                return []
            return play_moves(self.playable(s, seat))
        if phase == _LAY_ASIDE:
            return [] if s.aside[seat] else LayAsideChoices(s.hands[seat], _BID_CARDS)
        if phase == _PREMIUM:
            return [Call(c) for c in self.allowed_calls(s)] if seat == s.caller else []
        if phase == _NAME_LEADER and seat == s.premium_seat:
            return [ChooseSeat(x) for x in range(_SEATS)]
        return []

    def validate(self, s: NinetyNineState, seat: int, move: Move) -> None:
        phase = s.phase
        if type(move) is PlayCard:
            if phase != _PLAY:
                raise IllegalMove(Reason.WRONG_PHASE, f"cards are not played now ({phase})")
            check_card_play(seat, s.turn, s.hands[seat], self.playable(s, seat), move.card)
        elif type(move) is LayAside:
            if phase != _LAY_ASIDE:
                raise IllegalMove(Reason.WRONG_PHASE, "bid cards are laid aside only after a deal")
            check_lay_aside(s.hands[seat], s.aside[seat], move, _BID_CARDS)
        elif type(move) is Call:
            if phase != _PREMIUM:
                raise IllegalMove(Reason.WRONG_PHASE, "premium calls are not made now")
            if seat != s.caller:
                raise IllegalMove(Reason.NOT_YOUR_TURN, f"it is seat {s.caller}'s turn to call")
            if move.call not in self.allowed_calls(s):
                raise IllegalMove(
                    Reason.CALL_NOT_ALLOWED,
                    f"{move.call!r} is not allowed now; allowed: "
                    + ", ".join(self.allowed_calls(s)),
                )
        elif type(move) is ChooseSeat:
            if phase != _NAME_LEADER:
                raise IllegalMove(Reason.WRONG_PHASE, "no leader is being named now")
            if seat != s.premium_seat:
                raise IllegalMove(Reason.NOT_YOUR_TURN, "only the revealer names the leader")
            if not (type(move.seat) is int and 0 <= move.seat < _SEATS):
                raise IllegalMove(Reason.INVALID_SEAT_CHOICE, f"no seat {move.seat!r}")

    # -- applying moves ----------------------------------------------------------------------

    def _apply(self, s: NinetyNineState, seat: int, move: Move, events: list[Event]) -> None:
        if type(move) is PlayCard:
            self._play(s, seat, move.card, events)
        elif type(move) is LayAside:
            self._lay_aside(s, seat, move, events)
        elif type(move) is Call:
            self._call(s, seat, move.call, events)
        elif type(move) is ChooseSeat:
            events.append(SeatChosen(seat=seat, chosen=move.seat, role="leader"))
            s.leader = s.turn = move.seat
            self._begin_play(s, events)

    def _lay_aside(
        self, s: NinetyNineState, seat: int, move: LayAside, events: list[Event]
    ) -> None:
        mask = C.mask_of(move.cards)
        s.aside[seat] = mask
        s.hands[seat] &= ~mask
        events.append(CardsLaidAside(seat=seat, count=_BID_CARDS, cards=move.cards))
        if all(s.aside):
            if s.options.premium_bids:
                s.phase = _PREMIUM
                s.caller = (s.dealer + 1) % _SEATS
            else:
                self._begin_play(s, events)

    def _call(self, s: NinetyNineState, seat: int, call: str, events: list[Event]) -> None:
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
                s.phase = _NAME_LEADER
                return
        self._begin_play(s, events)

    def _begin_play(self, s: NinetyNineState, events: list[Event]) -> None:
        s.phase = _PLAY
        if s.premium == "reveal" and s.options.reveal_expose_timing == "before_opening_lead":
            self._expose_hand(s, events)

    def _expose_hand(self, s: NinetyNineState, events: list[Event]) -> None:
        p = s.premium_seat
        assert p is not None
        s.hand_exposed = True
        events.append(CardsExposed(seat=p, what="hand", cards=tuple(C.cards_of(s.hands[p]))))

    def _play(self, s: NinetyNineState, seat: int, c: int, events: list[Event]) -> None:
        s.hands[seat] &= ~(1 << c)
        s.trick.append(c)
        events.append(CardPlayed(seat, c, s.turn_up) if c == JOKER else card_played(seat, c))
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
            trick = [self.effective(s, x) for x in trick]
        winner = (s.leader + standard_winner(trick, _STRENGTH, s.trump)) % _SEATS
        s.tricks_won[winner] += 1
        s.history.append([s.leader, winner, *s.trick])
        events.append(TrickWon(len(s.history), winner, s.leader, tuple(s.trick)))
        s.trick = []
        s.leader = s.turn = winner
        if len(s.history) == _TRICKS:
            self._score_deal(s, events)

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
        k = sum(made)
        points = [t + (_CONTRACT_BONUS[k] if m else 0) for t, m in zip(tricks, made, strict=True)]
        if premium_seat is not None and premium is not None:
            value = _PREMIUM_VALUE[premium]
            if made[premium_seat]:
                points[premium_seat] += value
            elif fail_award == "opponents":
                for seat in range(len(points)):
                    if seat != premium_seat:
                        points[seat] += value
        return points, made

    def _score_deal(self, s: NinetyNineState, events: list[Event]) -> None:
        o = s.options
        bids = [self.bid_value(s, a) for a in s.aside]
        points, made = self.deal_points(
            bids, s.tricks_won, s.premium_seat, s.premium, o.premium_fail_award
        )
        for seat in range(_SEATS):
            s.scores[seat] += points[seat]
        shown = [
            o.show_all_bids_at_end or made[seat] or seat == s.premium_seat for seat in range(_SEATS)
        ]
        scored = DealScored(
            deal_no=s.deal_no,
            bids=tuple(b if shown[i] else None for i, b in enumerate(bids)),
            taken=tuple(s.tricks_won),
            made=tuple(made),
            points=tuple(points),
            totals=tuple(s.scores),
            bid_cards=tuple(
                tuple(C.cards_of(a)) if shown[i] else None for i, a in enumerate(s.aside)
            ),
            premium_seat=s.premium_seat,
            premium=s.premium,
        )
        events.append(scored)
        s.last_result = scored
        s.prev_successes = sum(made)
        winners = self.game_winners(s.scores, s.deal_no, s.options)
        if winners is None:
            self._start_deal(s)
            events.append(self._deal_event(s))
            return
        s.winners = list(winners)
        s.scores = self.final_totals(s.scores, winners, s.options)
        s.finished = True
        s.phase = _OVER
        events.append(GameOver(totals=tuple(s.scores), winners=winners))

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

    @staticmethod
    def final_totals(
        totals: list[int], winners: tuple[int, ...], o: NinetyNineOptions
    ) -> list[int]:
        """§8.2 ``game_bonus_100``: the winner(s), and anyone who reached the target, add 100."""
        if not o.game_bonus_100:
            return list(totals)
        return [
            t + 100 if seat in winners or t >= o.target_score else t
            for seat, t in enumerate(totals)
        ]

    def outcome(self, s: NinetyNineState) -> Outcome | None:
        if not s.finished:
            return None
        return Outcome(totals=tuple(s.scores), winners=tuple(s.winners))

    # -- projection (§11) --------------------------------------------------------------------

    def view(self, s: NinetyNineState, viewer: Viewer) -> View:
        seats = []
        for seat in range(_SEATS):
            own = seat == viewer
            hand_public = s.hand_exposed and seat == s.premium_seat
            aside_visible = own or s.aside_exposed[seat]
            seats.append(
                SeatView(
                    seat=seat,
                    hand_size=C.count(s.hands[seat]),
                    hand=tuple(C.cards_of(s.hands[seat])) if own or hand_public else None,
                    aside_count=C.count(s.aside[seat]),
                    aside=tuple(C.cards_of(s.aside[seat])) if aside_visible else None,
                    bid=self.bid_value(s, s.aside[seat])
                    if aside_visible and s.aside[seat]
                    else None,
                    tricks_won=s.tricks_won[seat],
                    score=s.scores[seat],
                )
            )
        detail = NinetyNineDetail(
            edition=s.options.edition,
            eldest=(s.dealer + 1) % _SEATS,
            caller=s.caller,
            calls=tuple(s.calls),
            premium_seat=s.premium_seat,
            premium=s.premium,
            revealer_hand_exposed=s.hand_exposed,
            joker_as=self.joker_card(s),
            last_deal=s.last_result,
        )
        return View(
            game=self.name,
            viewer=viewer,
            phase=str(s.phase),
            deal_no=s.deal_no,
            dealer=s.dealer,
            to_act=self.to_act(s),
            may_act=self.may_act(s),
            seats=tuple(seats),
            trick=trick_view(s.leader, s.trick, None, _SEATS) if s.phase == _PLAY else None,
            tricks=tuple(trick_view(h[0], h[2:], h[1], _SEATS) for h in s.history),
            trump=s.trump,
            legal_moves=tuple(self.legal_moves(s, viewer)) if viewer is not None else (),
            detail=detail,
            finished=s.finished,
            winners=tuple(s.winners),
            turn_up=s.turn_up,
        )


RULES = register(NinetyNine())
