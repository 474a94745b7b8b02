"""Counterpoint (David Parlett), the two-player point-trick version of Ninety-Nine.

Spec: ``shared/rules/counterpoint.md`` (section numbers below refer to it).

32 cards ranking A T K Q J 9 8 7 with card-points 11/10/4/3/2. Each player is dealt 16 and
secretly lays 3 aside; their suits encode a bid in card-points (♦0 ♠10 ♥20 ♣30, so 0–90, and
0/10/20 may be read as 100/110/120). Thirteen tricks: follow suit if you can, but the higher
rank wins whatever its suit. Your error is your opponent's gain; accuracy earns a bonus.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from engine.core import cards as C
from engine.core.events import (
    PLAYED,
    CardsLaidAside,
    CounterpointDealResult,
    DealScored,
    Event,
    TrickWon,
    Viewer,
)
from engine.core.information import (
    HiddenPlace,
    InformationSet,
    Match,
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
from engine.core.moves import LayAside, PlayCard
from engine.core.options import first_dealer_option, option, tie_rule_option
from engine.core.phases import Phase, Plays, Problem, whose_turn
from engine.core.rules import BidCardReading, Rules, register, strongest_first
from engine.core.scoring import final_winners
from engine.core.state import GameState
from engine.core.tricks import follow_mask, play_refusal
from engine.core.view import SeatView, TrickRows, TrickView, View, seat_view, trick_view

_SEATS: Final = 2
_COMPLETED: Final = TrickRows(_SEATS)  # completed tricks' views, by history row
_HAND: Final = 16
_TRICKS: Final = 13
_DECK: Final = C.deck(range(7, 15))  # 32 cards
# Rank strength A > T > K > Q > J > 9 > 8 > 7 (the Ten between Ace and King, §1).
_RANK_STRENGTH: Final = {14: 8, 10: 7, 13: 6, 12: 5, 11: 4, 9: 3, 8: 2, 7: 1}
_RANK_POINTS: Final = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2}
STRENGTH: Final = tuple(_RANK_STRENGTH.get(c & 15, 0) for c in range(64))
#: §3.1: ♦ 0, ♠ 10, ♥ 20, ♣ 30; a raw 0, 10 or 20 may also read 100, 110 or 120.
BID_READING: Final = BidCardReading(
    suit_values={C.DIAMONDS: 0, C.SPADES: 10, C.HEARTS: 20, C.CLUBS: 30},
    cards=3,
    high_reading_max=20,
    high_reading_add=100,
)
POINTS: Final = tuple(_RANK_POINTS.get(c & 15, 0) for c in range(64))
_ACCURACY_BONUS: Final = {0: 30, 1: 20, 2: 10}  # §5
_BATCHES: Final = {"3-3-3-3-4": (3, 3, 3, 3, 4), "ones": (1,) * _HAND}


# The phases of a deal (the game's last phase is the core's OVER).
LAY_ASIDE: Final = "lay_aside"  # both seats lay three bid cards aside, at once
PLAY: Final = "play"  # thirteen tricks


@dataclass(frozen=True, slots=True)
class CounterpointOptions:
    players: int = option(
        2, "number of players (only the two-player game is offered)", minimum=2, maximum=2
    )
    high_readings: bool = option(
        True, "a bid of 0, 10 or 20 may also count as 100, 110 or 120 (whichever is closer)"
    )
    target_score: int = option(99, "score that ends the game", minimum=1, maximum=100_000)
    tie_rule: str = tie_rule_option(
        "equal totals at the end: a draw, or extra deals until they differ"
    )
    deal_batches: str = option(
        "3-3-3-3-4",
        "how the 16 cards are dealt (no effect on play)",
        choices=("3-3-3-3-4", "ones"),
    )
    first_dealer: str = first_dealer_option()
    show_point_tally: bool = option(
        False, "show each player's running card-points during play (a UI aid, not a rule)"
    )


@dataclass(frozen=True, slots=True)
class CounterpointDetail:
    non_dealer: int
    last_deal: DealScored | None = None


class CounterpointState(GameState):
    game = "counterpoint"
    schema = 1
    copied = (
        "scores",
        "winners",
        "hands",
        "aside",
        "trick",
        "tricks_won",
        "points_taken",
        "history",
    )

    options: CounterpointOptions
    scores: list[int]
    winners: list[int]
    hands: list[int]
    aside: list[int]
    leader: int
    turn: int
    trick: list[int]
    tricks_won: list[int]
    points_taken: list[int]
    history: list[list[int]]  # [leader, winner, lead card, follow card]


def bid_readings(aside_cards: list[int] | tuple[int, ...], high_readings: bool) -> tuple[int, ...]:
    """The bids three bid cards may mean (§3.1).

    >>> from engine.core.cards import parse_many
    >>> bid_readings(parse_many("7D 8D 9S"), True)    # ♦ ♦ ♠: 10, or 110
    (10, 110)
    >>> bid_readings(parse_many("7C 8H 9S"), True)    # ♣ ♥ ♠: 30 + 20 + 10
    (60,)
    """
    raw = BID_READING.raw(aside_cards)
    if high_readings and raw <= BID_READING.high_reading_max:
        return (raw, raw + BID_READING.high_reading_add)
    return (raw,)


@cache
def laid_aside(aside: int) -> tuple[tuple[int, ...], int]:
    """A seat's bid cards (a mask) as its own view shows them: the cards, and the bid they make
    (its plain reading). Remembered: the view repeats them on every move of the deal, and a
    hand lays aside one of at most C(16, 3) = 560 sets of its cards (4960 in the pack)."""
    cards = tuple(C.cards_of(aside))
    return cards, bid_readings(cards, False)[0]


def bid_error(readings: tuple[int, ...], taken: int) -> tuple[int, int]:
    """(|taken - bid|, the reading used): the reading closer to what was taken counts."""
    return min((abs(taken - r), r) for r in readings)


def accuracy_bonus(diff: int) -> int:
    return _ACCURACY_BONUS.get(diff, 0)


def trick_winner_index(lead: int, follow: int) -> int:
    """0 if the leader wins, 1 if the follower does (§4): rank decides whatever the suit;
    equal counters go to the leader, equal blanks to the follower."""
    a, b = STRENGTH[lead], STRENGTH[follow]
    if a != b:
        return 0 if a > b else 1
    return 0 if POINTS[lead] else 1


def playable(s: CounterpointState, seat: int) -> int:
    """The cards ``seat`` may play now (§4): on its turn, any to lead; to follow, the suit led
    if it has one, else any (no duty to beat or to trump)."""
    if seat != s.turn:
        return 0
    hand = s.hands[seat]
    if not s.trick:
        return hand
    return follow_mask(hand, s.trick[0] >> 4)


def play_problem(s: CounterpointState, seat: int, card: object) -> Problem:
    return play_refusal(seat, s.turn, s.hands[seat], card, s.trick)


class Counterpoint(Rules[CounterpointState]):
    name = "counterpoint"
    title = "Counterpoint"
    seats = _SEATS
    summary = "Two-player point-trick Ninety-Nine: bid card-points; higher rank wins any suit."
    options_type = CounterpointOptions
    state_type = CounterpointState
    detail_type = CounterpointDetail
    rank_order = strongest_first(_RANK_STRENGTH)
    card_points = _RANK_POINTS
    bid_reading = BID_READING
    move_types = (LayAside, PlayCard)

    def phases(self) -> Sequence[Phase[CounterpointState]]:
        return (
            Phase(LAY_ASIDE, not_laid_aside, (LayAsides(BID_READING.cards, self.lay_aside),)),
            Phase(PLAY, whose_turn, (Plays(playable, play_problem, self.play),)),
        )

    # -- dealing -----------------------------------------------------------------------------

    def begin(self, s: CounterpointState, first_dealer: int) -> None:
        s.dealer = 1 - first_dealer  # deal() passes the deal to ``first_dealer``
        self.deal(s)

    def next_deal(self, s: CounterpointState, events: list[Event]) -> None:
        self.deal(s)
        events.append(self.deal_started(s))

    def deal(self, s: CounterpointState) -> None:
        s.deal_no += 1
        s.dealer = 1 - s.dealer
        non_dealer = 1 - s.dealer
        pack = s.chance.shuffled(f"pack:{s.deal_no}", _DECK)
        s.chance.dealt(s.deal_no, pack)
        hands = [0, 0]
        pos = 0
        for batch in _BATCHES[s.options.deal_batches]:  # alternately, non-dealer first (§2)
            for seat in (non_dealer, s.dealer):
                for c in pack[pos : pos + batch]:
                    hands[seat] |= 1 << c
                pos += batch
        s.hands = hands
        s.phase = LAY_ASIDE
        s.aside = [0, 0]
        s.leader = s.turn = non_dealer  # N leads the first trick (§4)
        s.trick = []
        s.tricks_won = [0, 0]
        s.points_taken = [0, 0]
        s.history = []

    # -- the moves ---------------------------------------------------------------------------

    def lay_aside(
        self, s: CounterpointState, seat: int, move: LayAside, events: list[Event]
    ) -> None:
        mask = C.mask_of(move.cards)
        s.aside[seat] = mask
        s.hands[seat] &= ~mask
        events.append(CardsLaidAside(seat=seat, count=BID_READING.cards, cards=move.cards))
        if s.aside[0] and s.aside[1]:
            s.phase = PLAY

    def play(self, s: CounterpointState, seat: int, move: PlayCard, events: list[Event]) -> None:
        c = move.card
        s.hands[seat] &= ~(1 << c)
        trick = s.trick
        trick.append(c)
        events.append(PLAYED[seat][c])
        if len(trick) == 1:
            s.turn = 1 - seat
            return
        lead, follow = trick
        leader = s.leader
        winner = leader if trick_winner_index(lead, follow) == 0 else 1 - leader
        points = POINTS[lead] + POINTS[follow]
        s.tricks_won[winner] += 1
        s.points_taken[winner] += points
        history = s.history
        history.append([leader, winner, lead, follow])
        events.append(
            TrickWon(
                trick_no=len(history),
                winner=winner,
                leader=leader,
                cards=(lead, follow),
                points=points,
            )
        )
        s.trick = []
        s.leader = s.turn = winner
        if len(history) == _TRICKS:
            self.score_deal(s, events)

    # -- scoring (§5, §6) --------------------------------------------------------------------

    @staticmethod
    def deal_points(
        asides: list[tuple[int, ...]], taken: list[int], high_readings: bool
    ) -> tuple[list[int], list[int], list[int]]:
        """§5: returns (points, diffs, readings used). ``score[X] = diff[Y] + bonus(diff[X])``."""
        errors = [
            bid_error(bid_readings(a, high_readings), t) for a, t in zip(asides, taken, strict=True)
        ]
        diffs = [d for d, _ in errors]
        points = [diffs[1 - x] + accuracy_bonus(diffs[x]) for x in range(_SEATS)]
        return points, diffs, [r for _, r in errors]

    def score_deal(self, s: CounterpointState, events: list[Event]) -> None:
        asides = [tuple(C.cards_of(a)) for a in s.aside]
        points, diffs, readings = self.deal_points(asides, s.points_taken, s.options.high_readings)
        for seat in range(_SEATS):
            s.scores[seat] += points[seat]
        scored = DealScored(
            deal_no=s.deal_no,
            bids=tuple(readings),
            taken=tuple(s.points_taken),
            made=tuple(d == 0 for d in diffs),
            points=tuple(points),
            totals=tuple(s.scores),
            bid_cards=tuple(asides),
            result=CounterpointDealResult(
                bids=tuple(readings),
                bid_cards=tuple(asides),
                card_points=tuple(s.points_taken),
                errors=tuple(diffs),
                bonuses=tuple(accuracy_bonus(d) for d in diffs),
            ),
        )
        self.close_deal(s, scored, events)

    def match_winners(self, s: CounterpointState) -> tuple[int, ...] | None:
        return self.game_winners(s.scores, s.options)

    @staticmethod
    def game_winners(totals: list[int], o: CounterpointOptions) -> tuple[int, ...] | None:
        """§6: the game ends at the end of a deal once anyone has ``target_score``."""
        return final_winners(totals, max(totals) >= o.target_score, o.tie_rule)

    # -- projection --------------------------------------------------------------------------

    def seat_view(self, s: CounterpointState, seat: int, viewer: Viewer) -> SeatView:
        own = seat == viewer
        aside, bid = laid_aside(s.aside[seat]) if own else (None, None)
        return seat_view(
            seat=seat,
            hand_size=C.count(s.hands[seat]),
            hand=tuple(C.cards_of(s.hands[seat])) if own else None,
            aside_count=C.count(s.aside[seat]),
            aside=aside,
            bid=bid if s.aside[seat] else None,
            tricks_won=s.tricks_won[seat],
            points_taken=s.points_taken[seat] if s.options.show_point_tally else None,
            score=s.scores[seat],
        )

    def trick_shown(self, s: CounterpointState) -> TrickView | None:
        return trick_view(s.leader, s.trick, None, _SEATS) if s.phase == PLAY else None

    def tricks_shown(self, s: CounterpointState) -> tuple[TrickView, ...]:
        return _COMPLETED.shown(s.history)

    def detail(self, s: CounterpointState, viewer: Viewer) -> CounterpointDetail:
        return CounterpointDetail(non_dealer=1 - s.dealer, last_deal=s.last_result)

    # -- information sets (engine.core.information) ------------------------------------------

    def seat_information(self, state: CounterpointState, seat: int) -> InformationSet:
        s = state
        public = CounterpointPublic(
            last_deal=s.last_result,
            leader=s.leader,
            trick=tuple(s.trick),
            history=tuple((r[0], r[1], r[2], r[3]) for r in s.history),
            tricks_won=tuple(s.tricks_won),
            laid=tuple(bool(a) for a in s.aside),
            own_aside=tuple(C.cards_of(s.aside[seat])),
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
        opts = options if type(options) is CounterpointOptions else self.options(options)
        history = tuple((t.leader, t.winner, *t.cards) for t in view.tricks)
        trick = view.trick.cards if view.trick is not None else ()
        if view.trick is not None:
            leader = view.trick.leader
        elif history:
            leader = history[-1][1]  # type: ignore[assignment]
        else:
            leader = 1 - view.dealer
        own = view.seats[seat]
        public = CounterpointPublic(
            last_deal=view.detail.last_deal,
            leader=leader,
            trick=tuple(trick),
            history=history,  # type: ignore[arg-type]
            tricks_won=tuple(sv.tricks_won for sv in view.seats),
            laid=tuple(sv.aside_count > 0 for sv in view.seats),
            own_aside=own.aside or (),
        )
        hidden_hand = view.seats[1 - seat].hand_size
        return _information(
            opts, seat, match_of(view), own.hand or (), public, other_hand=hidden_hand
        )

    def sample_state(self, info: InformationSet, rng: random.Random) -> CounterpointState:
        p: CounterpointPublic = info.public
        seat, other = info.seat, 1 - info.seat
        hand, aside = deal_hidden(info.hidden, info.unseen, rng)
        s: CounterpointState = new_state(CounterpointState, info, rng)
        s.last_result = p.last_deal
        s.hands = [0, 0]
        s.hands[seat] = C.mask_of(info.hand)
        s.hands[other] = C.mask_of(hand)
        s.aside = [0, 0]
        s.aside[seat] = C.mask_of(p.own_aside)
        s.aside[other] = C.mask_of(aside)
        s.leader = p.leader
        s.turn = (p.leader + len(p.trick)) % _SEATS
        s.trick = list(p.trick)
        s.tricks_won = list(p.tricks_won)
        points = [0, 0]
        for row in p.history:
            points[row[1]] += POINTS[row[2]] + POINTS[row[3]]
        s.points_taken = points
        s.history = [list(row) for row in p.history]
        return s


@dataclass(frozen=True, slots=True)
class CounterpointPublic:
    """Counterpoint's part of an information set (``InformationSet.public``): the last deal's
    result, who leads the trick on the table and its cards, this deal's completed tricks as
    ``(leader, winner, lead card, follow card)``, each seat's tricks, whether each seat has laid
    its bid cards aside, and the seat's own bid cards."""

    last_deal: DealScored | None
    leader: int
    trick: tuple[int, ...]
    history: tuple[tuple[int, int, int, int], ...]
    tricks_won: tuple[int, ...]
    laid: tuple[bool, ...]
    own_aside: tuple[int, ...]


def _information(
    opts: CounterpointOptions,
    seat: int,
    match: Match,
    hand: tuple[int, ...],
    public: CounterpointPublic,
    *,
    other_hand: int,
) -> InformationSet:
    """The information set from the facts both routes gather: the opponent's hand and bid
    cards are the hidden places; a seat that did not follow the suit led holds none of it."""
    tricks: list[tuple[int, Sequence[int]]] = [(row[0], row[2:]) for row in public.history]
    tricks.append((public.leader, public.trick))
    out = shown_out(tricks, _SEATS, lambda c: c >> 4)
    other = 1 - seat
    plays = tuple(
        ((leader + i) % _SEATS, c) for leader, cards in tricks for i, c in enumerate(cards)
    )
    hidden = (
        HiddenPlace(other, "hand", other_hand, excluded=suits_of_mask(out[other])),
        HiddenPlace(other, "aside", BID_READING.cards if public.laid[other] else 0),
    )
    seen = [*hand, *public.own_aside, *(c for _, c in plays)]
    return information_set_of(
        "counterpoint",
        seat,
        opts,
        match,
        hand=hand,
        plays=plays,
        shown_out=tuple(out),
        hidden=hidden,
        unseen=unseen_cards(_DECK, seen),
        public=public,
    )


RULES = register(Counterpoint())
