"""Counterpoint (David Parlett), the two-player point-trick version of Ninety-Nine.

Spec: ``shared/rules/counterpoint.md`` (section numbers below refer to it).

32 cards ranking A T K Q J 9 8 7 with card-points 11/10/4/3/2. Each player is dealt 16 and
secretly lays 3 aside; their suits encode a bid in card-points (♦0 ♠10 ♥20 ♣30, so 0–90, and
0/10/20 may be read as 100/110/120). Thirteen tricks: follow suit if you can, but the higher
rank wins whatever its suit. Your error is your opponent's gain; accuracy earns a bonus.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from engine.core import cards as C
from engine.core.cards import SUIT_MASK
from engine.core.chance import Chance
from engine.core.errors import IllegalMove, Reason
from engine.core.events import (
    CardsLaidAside,
    DealScored,
    DealStarted,
    Event,
    GameOver,
    TrickWon,
    Viewer,
    card_played,
)
from engine.core.laying_aside import LayAsideChoices, check_lay_aside
from engine.core.moves import LayAside, Move, PlayCard, play_moves
from engine.core.options import first_dealer_option, option, tie_rule_option
from engine.core.rules import Outcome, Rules, register
from engine.core.scoring import final_winners
from engine.core.state import GameState
from engine.core.tricks import check_card_play
from engine.core.view import SeatView, View, trick_view

_SEATS: Final = 2
_HAND: Final = 16
_BID_CARDS: Final = 3
_TRICKS: Final = 13
_DECK: Final = C.deck(range(7, 15))  # 32 cards
# Rank strength A > T > K > Q > J > 9 > 8 > 7 (the Ten between Ace and King, §1).
_RANK_STRENGTH: Final = {14: 8, 10: 7, 13: 6, 12: 5, 11: 4, 9: 3, 8: 2, 7: 1}
_RANK_POINTS: Final = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2}
STRENGTH: Final = tuple(_RANK_STRENGTH.get(c & 15, 0) for c in range(64))
POINTS: Final = tuple(_RANK_POINTS.get(c & 15, 0) for c in range(64))
_ACCURACY_BONUS: Final = {0: 30, 1: 20, 2: 10}  # §5
_BATCHES: Final = {"3-3-3-3-4": (3, 3, 3, 3, 4), "ones": (1,) * _HAND}


class Phase(StrEnum):
    LAY_ASIDE = "lay_aside"
    PLAY = "play"
    OVER = "over"


# Enum member lookups cost ~90 ns each; the hot paths compare against these plain aliases.
_LAY_ASIDE: Final = Phase.LAY_ASIDE
_PLAY: Final = Phase.PLAY
_OVER: Final = Phase.OVER


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
    _event_fields = frozenset({"last_result"})

    options: CounterpointOptions
    deal_no: int
    dealer: int
    scores: list[int]
    finished: bool
    winners: list[int]
    last_result: DealScored | None  # the last deal's result, for views
    phase: str
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
    raw = sum(10 * (3 - (c >> 4)) for c in aside_cards)
    return (raw, raw + 100) if high_readings and raw <= 20 else (raw,)


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


class Counterpoint(Rules[CounterpointState]):
    name = "counterpoint"
    title = "Counterpoint"
    seats = _SEATS
    summary = "Two-player point-trick Ninety-Nine: bid card-points; higher rank wins any suit."
    options_type = CounterpointOptions
    state_type = CounterpointState
    detail_type = CounterpointDetail
    move_types = (LayAside, PlayCard)

    def _new(self, opts: CounterpointOptions, chance: Chance) -> CounterpointState:
        s = CounterpointState()
        s.options = opts
        s.chance = chance
        s.deal_no = 0
        first = 0 if opts.first_dealer == "seat0" else chance.randint("first_dealer", 0, 1)
        s.dealer = 1 - first  # _start_deal swaps it to ``first``
        s.scores = [0, 0]
        s.finished = False
        s.winners = []
        s.last_result = None
        self._start_deal(s)  # its DealStarted is the opening event
        return s

    def opening_events(self, state: CounterpointState) -> list[Event]:
        return [self._deal_event(state)]

    def _start_deal(self, s: CounterpointState) -> None:
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
        s.phase = _LAY_ASIDE
        s.aside = [0, 0]
        s.leader = s.turn = non_dealer  # N leads the first trick (§4)
        s.trick = []
        s.tricks_won = [0, 0]
        s.points_taken = [0, 0]
        s.history = []

    def _deal_event(self, s: CounterpointState) -> DealStarted:
        return DealStarted(
            deal_no=s.deal_no,
            dealer=s.dealer,
            hand_sizes=(_HAND, _HAND),
            hands=tuple(tuple(C.cards_of(h)) for h in s.hands),
        )

    def playable(self, s: CounterpointState, seat: int) -> int:
        hand = s.hands[seat]
        if not s.trick:
            return hand
        return (hand & SUIT_MASK[s.trick[0] >> 4]) or hand

    def to_act(self, s: CounterpointState) -> tuple[int, ...]:
        if s.finished:
            return ()
        if s.phase == _LAY_ASIDE:
            return tuple(seat for seat in range(_SEATS) if not s.aside[seat])
        return (s.turn,)

    def legal_moves(self, s: CounterpointState, seat: int) -> Sequence[Move]:
        if s.finished:
            return []
        if s.phase == _PLAY:
            if seat != s.turn:
                return []
            return play_moves(self.playable(s, seat))
        return [] if s.aside[seat] else LayAsideChoices(s.hands[seat], _BID_CARDS)

    def validate(self, s: CounterpointState, seat: int, move: Move) -> None:
        if type(move) is PlayCard:
            if s.phase != _PLAY:
                raise IllegalMove(Reason.WRONG_PHASE, f"cards are not played now ({s.phase})")
            check_card_play(seat, s.turn, s.hands[seat], self.playable(s, seat), move.card)
        elif type(move) is LayAside:
            if s.phase != _LAY_ASIDE:
                raise IllegalMove(Reason.WRONG_PHASE, "bid cards are laid aside only after a deal")
            check_lay_aside(s.hands[seat], s.aside[seat], move, _BID_CARDS)

    def _apply(self, s: CounterpointState, seat: int, move: Move, events: list[Event]) -> None:
        if type(move) is LayAside:
            mask = C.mask_of(move.cards)
            s.aside[seat] = mask
            s.hands[seat] &= ~mask
            events.append(CardsLaidAside(seat=seat, count=_BID_CARDS, cards=move.cards))
            if s.aside[0] and s.aside[1]:
                s.phase = _PLAY
            return
        assert type(move) is PlayCard
        c = move.card
        s.hands[seat] &= ~(1 << c)
        s.trick.append(c)
        events.append(card_played(seat, c))
        if len(s.trick) == 1:
            s.turn = 1 - seat
            return
        lead, follow = s.trick
        winner = s.leader if trick_winner_index(lead, follow) == 0 else 1 - s.leader
        points = POINTS[lead] + POINTS[follow]
        s.tricks_won[winner] += 1
        s.points_taken[winner] += points
        s.history.append([s.leader, winner, lead, follow])
        events.append(
            TrickWon(
                trick_no=len(s.history),
                winner=winner,
                leader=s.leader,
                cards=(lead, follow),
                points=points,
            )
        )
        s.trick = []
        s.leader = s.turn = winner
        if len(s.history) == _TRICKS:
            self._score_deal(s, events)

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

    def _score_deal(self, s: CounterpointState, events: list[Event]) -> None:
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
        )
        events.append(scored)
        s.last_result = scored
        winners = self.game_winners(s.scores, s.options)
        if winners is None:
            self._start_deal(s)
            events.append(self._deal_event(s))
            return
        s.winners = list(winners)
        s.finished = True
        s.phase = _OVER
        events.append(GameOver(totals=tuple(s.scores), winners=winners))

    @staticmethod
    def game_winners(totals: list[int], o: CounterpointOptions) -> tuple[int, ...] | None:
        """§6: the game ends at the end of a deal once anyone has ``target_score``."""
        return final_winners(totals, max(totals) >= o.target_score, o.tie_rule)

    def outcome(self, s: CounterpointState) -> Outcome | None:
        if not s.finished:
            return None
        return Outcome(totals=tuple(s.scores), winners=tuple(s.winners))

    def view(self, s: CounterpointState, viewer: Viewer) -> View:
        tally = s.options.show_point_tally
        seats = tuple(
            SeatView(
                seat=seat,
                hand_size=C.count(s.hands[seat]),
                hand=tuple(C.cards_of(s.hands[seat])) if seat == viewer else None,
                aside_count=C.count(s.aside[seat]),
                aside=tuple(C.cards_of(s.aside[seat])) if seat == viewer else None,
                bid=(
                    bid_readings(C.cards_of(s.aside[seat]), False)[0]
                    if seat == viewer and s.aside[seat]
                    else None
                ),
                tricks_won=s.tricks_won[seat],
                points_taken=s.points_taken[seat] if tally else None,
                score=s.scores[seat],
            )
            for seat in range(_SEATS)
        )
        return View(
            game=self.name,
            viewer=viewer,
            phase=str(s.phase),
            deal_no=s.deal_no,
            dealer=s.dealer,
            to_act=self.to_act(s),
            may_act=self.may_act(s),
            seats=seats,
            trick=trick_view(s.leader, s.trick, None, _SEATS) if s.phase == _PLAY else None,
            tricks=tuple(trick_view(h[0], h[2:], h[1], _SEATS) for h in s.history),
            trump=None,
            legal_moves=tuple(self.legal_moves(s, viewer)) if viewer is not None else (),
            detail=CounterpointDetail(
                non_dealer=1 - s.dealer,
                last_deal=s.last_result,
            ),
            finished=s.finished,
            winners=tuple(s.winners),
        )


RULES = register(Counterpoint())
