"""Nominations ("Noms", partner-calling Nomination Whist), four players each scoring alone.

Spec: ``shared/rules/nominations.md`` (section numbers below refer to it).

Thirteen cards each. An auction of trick bids (10–13 by default), misère and open misère; the
highest bidder names trumps and calls a card, and whoever holds it is his partner for the deal,
known only to himself until the card is played (a card of the declarer's own hand means a secret
solo). If all four pass, the hands are sorted, stacked, cut and dealt again without a shuffle:
the double hand, scored double. Scores only ever go up; the game runs to a target or a number of
deals.
"""

from __future__ import annotations

import itertools
import operator
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, TypeGuard

from engine.core import cards as C
from engine.core.cards import SUIT_MASK
from engine.core.chance import Chance
from engine.core.errors import InvalidOptions, Reason
from engine.core.events import (
    PLAYED,
    AllPassed,
    AuctionWon,
    BidMade,
    Called,
    CardPlayed,
    CardsExposed,
    ContractDeclared,
    DealScored,
    DealStarted,
    Event,
    NominationsDealResult,
    PackCut,
    PartnerNotice,
    PartnerRevealed,
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
from engine.core.moves import Bid, Call, Cut, DeclareContract, PlayCard
from engine.core.options import first_dealer_option, option, tie_rule_option
from engine.core.phases import Choice, Phase, Plays, Problem, whose_turn
from engine.core.rules import Rules, register
from engine.core.scoring import final_winners
from engine.core.state import GameState
from engine.core.tricks import beaters, follow_mask, play_refusal, trick_winner
from engine.core.view import SeatView, TrickView, View, seat_view, trick_view

_SEATS: Final = 4
_HAND: Final = 13
_TRICKS: Final = 13
_RANKS: Final = range(2, 15)  # 2 to Ace, in their natural order
_DECK: Final = C.deck(_RANKS)  # 52 cards, no Joker
_STRENGTH: Final = tuple(c & 15 for c in range(64))  # A high, no suit above another
_BEATERS: Final = beaters(_DECK, _STRENGTH)  # by trump
_BITS: Final = tuple(1 << c for c in range(64))  # a card's bit, by card id
_TRUMP_CHOICES: Final = (C.CLUBS, C.HEARTS, C.SPADES, C.DIAMONDS, None)  # None: no trump

# §4 step 2: the double-hand sort, suits ♥ ♣ ♦ ♠ from the left, high cards first in each.
_DOUBLE_HAND_SUITS: Final = (C.HEARTS, C.CLUBS, C.DIAMONDS, C.SPADES)
# §10 shuffle_between_deals = false: unplayed cards are gathered S H D C, high to low.
_GATHER_SUITS: Final = (C.SPADES, C.HEARTS, C.DIAMONDS, C.CLUBS)

# §2: cards per seat in each round, in the order served (dealer's left first, dealer last).
_BATCHES: Final[dict[str, tuple[tuple[int, ...], ...]]] = {
    "3-3-3-4": ((3,) * 4, (3,) * 4, (3,) * 4, (4,) * 4),
    "3-4-3-3": ((3,) * 4, (4,) * 4, (3,) * 4, (3,) * 4),
    "3-3-4-3": ((3,) * 4, (3,) * 4, (4,) * 4, (3,) * 4),
    "4-3-3-3": ((4,) * 4, (3,) * 4, (3,) * 4, (3,) * 4),
    "5-5-3": ((5,) * 4, (5,) * 4, (3,) * 4),
    "rotating": ((4, 3, 3, 3), (3, 4, 3, 3), (3, 3, 4, 3), (3, 3, 3, 4)),
}

TRICKS: Final = "tricks"
MISERE: Final = "misere"
OPEN_MISERE: Final = "open_misere"

PASS: Final = Call("pass")
# Each seat's pass as an event, built once: events are immutable (as ``PLAYED``), and a pass
# is most calls of an auction.
_PASSED: Final = tuple(Called(seat=seat, call="pass") for seat in range(_SEATS))

# The phases of a deal (the game's last phase is the core's OVER).
AUCTION: Final = "auction"  # from the dealer's left: pass, or bid higher (§3)
CUT: Final = "cut"  # a double hand's pack, cut by the dealer's right when he chooses (§4)
DECLARE: Final = "declare"  # the auction winner names trumps and calls a card (§5)
PLAY: Final = "play"  # thirteen tricks, or fewer when a misère or a decided contract ends (§6)

# Every declaration the auction winner may make (§5: any trump or none, any of the 52 cards),
# built once: the declarer's legal moves are this tuple, with no allocation.
_DECLARATIONS: Final = tuple(DeclareContract(t, c) for t in _TRUMP_CHOICES for c in _DECK)
_CUTS: Final = tuple(Cut(k) for k in range(1, 52))


@dataclass(frozen=True, slots=True)
class NominationsOptions:
    deal_batches: str = option(
        "3-3-3-4",
        "cards per player in each round of the deal (4-card batch last, first or in the "
        "middle; 5-5-3; or rotating: one player per round gets 4)",
        choices=tuple(_BATCHES),
    )
    shuffle_between_deals: bool = option(
        True,
        "shuffle before every deal; else the played tricks are gathered, cut and dealt",
    )
    min_bid: int = option(10, "lowest number bid", minimum=7, maximum=10)
    misere_rank: str = option(
        "above_13",
        "where misère sits on the bid ladder (open misère is always the top bid)",
        choices=("above_13", "between_10_and_11"),
        sets={"between_10_and_11": {"misere_points": 10}},
    )
    misere_points: int = option(
        13,
        "value of misère (default 10 when it ranks between 10 and 11)",
        minimum=0,
        maximum=1000,
    )
    open_misere: bool = option(True, "open misère may be bid")
    open_misere_points: int = option(26, "value of open misère", minimum=0, maximum=1000)
    open_misere_expose: str = option(
        "after_first_trick",
        "when the open-misère declarer's hand is laid face up",
        choices=("after_first_trick", "before_first_lead"),
    )
    bid13_points: int = option(13, "value of a bid of 13: 13 or 26", minimum=13, maximum=26)
    opponent_trick_points: bool = option(
        False, "each opponent also scores his own tricks, whatever the result"
    )
    must_trump_when_void: bool = option(
        True, "a player who cannot follow suit must trump if he can"
    )
    all_pass: str = option(
        "double_hand",
        "when all four pass: a double hand, the dealer must bid, or a plain redeal",
        choices=("double_hand", "dealer_forced", "redeal"),
    )
    double_hand_multiplier: int = option(
        2, "score multiplier of a double hand", minimum=1, maximum=100
    )
    double_hand_stacking: bool = option(
        False, "each further double hand in a row multiplies again (×4, ×8, …)"
    )
    double_hand_cut: str = option(
        "random",
        "the double-hand cut by the dealer's right: a random depth, his choice, or no cut",
        choices=("random", "cutter_chooses", "none"),
    )
    auto_end_on_top_bid: bool = option(
        True, "the auction ends at once when the top bid of the ladder is made"
    )
    stop_when_decided: bool = option(
        False, "stop a numeric contract as soon as its result can no longer change"
    )
    end_mode: str = option(
        "target",
        "end at a target score or after a number of played deals",
        choices=("target", "deals"),
    )
    target_score: int = option(101, "score that ends a target game", minimum=1, maximum=100_000)
    deal_count: int = option(
        12,
        "played deals in a fixed-length game (a multiple of 4 keeps dealing fair)",
        minimum=1,
        maximum=999,
    )
    tie_rule: str = tie_rule_option(
        "tied leaders at the end share the win, or play further deals until one leads"
    )
    review_last_trick: bool = option(True, "the last trick may be reviewed until the next lead")
    first_dealer: str = first_dealer_option()


@dataclass(frozen=True, slots=True)
class NominationsDetail:
    """Game-specific public state, as one viewer sees it.

    ``partner_status`` is per viewer: ``none`` (no partner contract), ``unknown``,
    ``you_are_partner`` or ``you_hold_called_card`` (only to the holder), ``revealed`` or
    ``solo`` (after the called card is played). ``side_tricks`` appears only once the partner
    is public: before that a combined count would give him away (§12).
    """

    ladder: tuple[str, ...]
    first_caller: int
    auction: tuple[str, ...]  # every call so far, clockwise from ``first_caller``
    high_bid: str | None
    high_bidder: int | None
    declarer: int | None
    contract: str | None  # "10" … "13", "misere", "open_misere"
    no_trump: bool
    partner: int | None
    partner_status: str
    side_tricks: int | None
    multiplier: int
    double_hand: bool
    cutter: int | None
    hand_exposed: bool
    played_deals: int
    called: int | None = card_field(default=None)
    last_deal: DealScored | None = None


class NominationsState(GameState):
    game = "nominations"
    schema = 3  # 2: last_result holds the DealScored event; 3: a deal keeps an unshuffled pack
    copied = ("scores", "winners", "hands", "pack", "calls", "trick", "tricks_won", "history")

    options: NominationsOptions
    # match (``deal_no`` counts deals dealt, abandoned ones included: chance labels use it)
    played_deals: int  # deals that reached a result (§9)
    scores: list[int]
    winners: list[int]
    double_run: int  # double hands in a row, 0 in a normal deal
    multiplier: int
    # deal
    hands: list[int]
    #: the stacked double-hand pack (secret): while the cutter chooses, and through the double
    #: hand dealt from it (with ``depth``, its cut), for the information sets: the packets are
    #: the last deal's hands, which each seat remembers its own of; or the gathered pack a
    #: deal was cut from and dealt without a shuffle (§10), all of whose cards were public
    pack: list[int]
    depth: int
    turn: int
    # auction
    calls: list[str]  # labels, clockwise from the dealer's left
    high: int  # ladder index of the highest bid, -1 before any
    high_bidder: int | None
    passes: int
    # contract
    declarer: int | None
    contract: str | None  # TRICKS, MISERE or OPEN_MISERE
    bid_tricks: int  # n of a numeric contract, 0 for misère
    trump: int | None
    called: int | None
    holder: int | None  # who held the called card: a secret until it is played
    revealed: bool
    exposed: bool  # the open-misère hand lies face up
    # play
    leader: int
    trick: list[int]
    tricks_won: list[int]
    history: list[list[int]]  # completed tricks: [leader, winner, *cards]


# -- the bid ladder (§3.1) ----------------------------------------------------------------------


@lru_cache(maxsize=64)
def ladder(min_bid: int, misere_rank: str, open_misere: bool) -> tuple[Bid, ...]:
    """The bids from lowest to highest.

    >>> [bid_label(b) for b in ladder(7, "between_10_and_11", True)]
    ['7', '8', '9', '10', 'misere', '11', '12', '13', 'open_misere']
    >>> [bid_label(b) for b in ladder(10, "above_13", False)]
    ['10', '11', '12', '13', 'misere']
    """
    bids = []
    for n in range(min_bid, 14):
        bids.append(Bid(TRICKS, n))
        if n == 10 and misere_rank == "between_10_and_11":
            bids.append(Bid(MISERE))
    if misere_rank == "above_13":
        bids.append(Bid(MISERE))
    if open_misere:
        bids.append(Bid(OPEN_MISERE))
    return tuple(bids)


@lru_cache(maxsize=64)
def _ladder_index(
    min_bid: int, misere_rank: str, open_misere: bool
) -> dict[tuple[str, int | None], int]:
    """Each bid's place on the ladder, by its fields: a tuple hashes in C, a ``Bid`` by its
    dataclass ``__hash__`` in Python, and the auction's listing asks about every bid of the
    ladder at every turn."""
    return {
        (b.contract, b.tricks): i for i, b in enumerate(ladder(min_bid, misere_rank, open_misere))
    }


def _in_pack(c: object) -> TypeGuard[int]:
    """One of the 52 cards (the Joker is a card id, but not in this game)."""
    return C.is_card(c) and c != C.JOKER


def bid_label(bid: Bid) -> str:
    return str(bid.tricks) if bid.contract == TRICKS else bid.contract


def _options_ladder(o: NominationsOptions) -> tuple[Bid, ...]:
    return ladder(o.min_bid, o.misere_rank, o.open_misere)


@lru_cache(maxsize=64)
def ladder_labels(min_bid: int, misere_rank: str, open_misere: bool) -> tuple[str, ...]:
    """The ladder's bids by label, as every view's detail lists them: made once per ladder."""
    return tuple(bid_label(b) for b in ladder(min_bid, misere_rank, open_misere))


# -- dealing (§2, §4) ---------------------------------------------------------------------------


def deal_cards(pack: Sequence[int], batches: str, dealer: int) -> list[list[int]]:
    """Deal ``pack`` (index 0 = top) in rounds of batches, clockwise from the dealer's left;
    each seat's cards in ascending id order."""
    return [sorted(take(pack)) for take in _dealt_positions(batches, dealer)]


def dealt_hands(pack: Sequence[int], batches: str, dealer: int) -> list[int]:
    """``deal_cards`` as masks, for a pack of distinct cards (a real one): each hand is the sum
    of its cards' bits, added in C, instead of a sort and a loop over 13 cards a seat."""
    return [sum(map(_BITS.__getitem__, take(pack))) for take in _dealt_positions(batches, dealer)]


@lru_cache(maxsize=64)
def _dealt_positions(
    batches: str, dealer: int
) -> tuple[Callable[[Sequence[int]], Sequence[int]], ...]:
    """Each seat's places in the pack (index 0 = top) when dealt in rounds of ``batches``
    clockwise from ``dealer``'s left, as a getter of those cards: the same few layouts serve
    every deal, so they are worked out once, not card by card on each deal."""
    places: list[list[int]] = [[], [], [], []]
    pos = 0
    for sizes in _BATCHES[batches]:
        for i, n in enumerate(sizes):
            places[(dealer + 1 + i) % _SEATS].extend(range(pos, pos + n))
            pos += n
    return tuple(operator.itemgetter(*p) for p in places)


def sorted_hand(hand: int, suits: Sequence[int]) -> list[int]:
    """A hand as fanned: ``suits`` from left to right, high to low within each."""
    out: list[int] = []
    for s in suits:
        out.extend(reversed(C.cards_of(hand & SUIT_MASK[s])))
    return out


def stacked_pack(hands: Sequence[int], dealer: int) -> list[int]:
    """§4 steps 2–4: each sorted hand is a face-down packet (leftmost card on top), put down
    from the dealer's left, each on top of the pile; so the dealer's packet ends on top."""
    pack: list[int] = []
    for k in (0, 3, 2, 1):  # dealer, right, opposite, left
        pack.extend(sorted_hand(hands[(dealer + k) % _SEATS], _DOUBLE_HAND_SUITS))
    return pack


def cut(pack: Sequence[int], depth: int) -> list[int]:
    """The top ``depth`` cards go under the rest."""
    return [*pack[depth:], *pack[:depth]]


def gathered_pack(
    history: Sequence[Sequence[int]], hands: Sequence[int], old_dealer: int
) -> list[int]:
    """§10 ``shuffle_between_deals = false``: the tricks in play order (trick 1 on top), then
    any unplayed cards seat by seat from the old dealer's left, each S H D C, high to low."""
    pack = [c for h in history for c in h[2:]]
    for k in range(1, _SEATS + 1):
        pack.extend(sorted_hand(hands[(old_dealer + k) % _SEATS], _GATHER_SUITS))
    return pack


# -- scoring (§7, §8) ---------------------------------------------------------------------------


def contract_value(o: NominationsOptions, contract: str, tricks: int) -> int:
    if contract == MISERE:
        return o.misere_points
    if contract == OPEN_MISERE:
        return o.open_misere_points
    return o.bid13_points if tricks == 13 else tricks


def deal_points(
    value: int,
    made: bool,
    declarer: int,
    partner: int | None,
    tricks_won: Sequence[int],
    *,
    multiplier: int = 1,
    opponent_trick_points: bool = False,
) -> list[int]:
    """§8: a made contract pays declarer and partner the value; a failed one pays each
    opponent. With ``opponent_trick_points`` each opponent also scores his own tricks.

    >>> deal_points(10, True, 2, 3, [2, 1, 5, 5], opponent_trick_points=True)  # §8.1 #11
    [2, 1, 10, 10]
    >>> deal_points(11, False, 2, None, [2, 1, 10, 0], multiplier=2, opponent_trick_points=True)
    [26, 24, 0, 22]
    """
    points = [0] * _SEATS
    for seat in range(_SEATS):
        on_side = seat in (declarer, partner)
        if on_side == made:
            points[seat] = value * multiplier
        if not on_side and opponent_trick_points:
            points[seat] += tricks_won[seat] * multiplier
    return points


# -- named rules (§3, §5, §6) -------------------------------------------------------------------


def turn_gate(what: str) -> Callable[[NominationsState, int], Problem | None]:
    """The rule that only ``s.turn`` may act now (``what`` says whose turn it is)."""

    def gate(s: NominationsState, seat: int) -> Problem | None:
        if seat != s.turn:
            return (Reason.NOT_YOUR_TURN, what.format(turn=s.turn))
        return None

    return gate


auction_turn = turn_gate("it is seat {turn}'s turn to call")


def dealer_must_bid(s: NominationsState) -> bool:
    """``all_pass = dealer_forced``: the first three passed, so the dealer may not (§3.3)."""
    return s.options.all_pass == "dealer_forced" and s.high < 0 and s.passes == 3


def pass_problem(s: NominationsState, seat: int, move: Call) -> Problem | None:
    if move.call != "pass":
        return (Reason.CALL_NOT_ALLOWED, f"{move.call!r}: pass, or make a bid")
    if dealer_must_bid(s):
        return (Reason.MUST_BID, "the others passed: the dealer must bid")
    return None


def ladder_bids(s: NominationsState) -> tuple[Bid, ...]:
    """The candidate bids: the game's whole ladder (bid_problem keeps the higher ones)."""
    return _options_ladder(s.options)


def bid_problem(s: NominationsState, seat: int, move: Bid) -> Problem | None:
    """§3.1: a bid of the ladder, higher than the highest so far."""
    o = s.options
    index = None
    if type(move.contract) is str and (move.tricks is None or type(move.tricks) is int):
        index = _ladder_index(o.min_bid, o.misere_rank, o.open_misere).get(
            (move.contract, move.tricks)
        )
    if index is None:
        if move.contract == TRICKS and type(move.tricks) is int and move.tricks < o.min_bid:
            return (Reason.BID_TOO_LOW, f"the lowest bid is {o.min_bid}")
        bids = ", ".join(bid_label(b) for b in _options_ladder(o))
        return (
            Reason.CALL_NOT_ALLOWED,
            f"{move.contract} {move.tricks!r} is not a bid of this game; bids: {bids}",
        )
    if index <= s.high:
        return _bid_too_low(o.min_bid, o.misere_rank, o.open_misere, s.high)
    return None


@lru_cache(maxsize=256)
def _bid_too_low(min_bid: int, misere_rank: str, open_misere: bool, high: int) -> Problem:
    """BID_TOO_LOW, naming the highest bid so far: made once per ladder and bid, as the
    auction's listing asks ``bid_problem`` about every bid of the ladder at every turn."""
    label = bid_label(ladder(min_bid, misere_rank, open_misere)[high])
    return (Reason.BID_TOO_LOW, f"a bid must be higher than {label}")


def declaration_problem(s: NominationsState, seat: int, move: DeclareContract) -> Problem | None:
    """§5: trumps are a suit or none; the called card is any card of the pack."""
    t, c = move.trump, move.called
    if not (t is None or (type(t) is int and 0 <= t < 4)):
        return (Reason.INVALID_CONTRACT, f"no suit {t!r}: 0–3, or None")
    if not _in_pack(c):
        return (Reason.INVALID_CONTRACT, f"{C.describe(c)} is not a card")
    return None


def cut_problem(s: NominationsState, seat: int, move: Cut) -> Problem | None:
    if type(move.depth) is int and 1 <= move.depth <= 51:
        return None
    return (Reason.INVALID_CUT, f"cut 1 to 51 cards (got {move.depth!r})")


def playable(s: NominationsState, seat: int) -> int:
    """Mask of the cards ``seat`` may play now (§6.2): on its turn, follow suit; if void, trump
    when ``must_trump_when_void`` and a trump is held; otherwise anything."""
    if seat != s.turn:
        return 0
    hand = s.hands[seat]
    if not s.trick:
        return hand
    trump = s.trump if s.options.must_trump_when_void else None
    return follow_mask(hand, s.trick[0] >> 4, trump)


def play_problem(s: NominationsState, seat: int, card: object) -> Problem:
    """Why a card is refused: turn, card held, follow suit, and a void player's duty to trump."""
    return play_refusal(seat, s.turn, s.hands[seat], card, s.trick)


def partner_of(s: NominationsState) -> int | None:
    """The declarer's partner: the holder of the called card, None in a solo or misère."""
    return s.holder if s.holder != s.declarer else None


def publicly_decided(s: NominationsState) -> bool | None:
    """§6.5 ``stop_when_decided``: made (True) or failed (False) once no play can change
    the result, else None.

    Before the called card is played the test is made for every seat that might be the
    partner (and for a solo) and the deal stops only when all agree: deciding with the
    true partner would let everyone read his identity from the deal *not* stopping (§12).
    """
    n = s.bid_tricks
    declarer = s.declarer
    assert declarer is not None
    left = _TRICKS - len(s.history)
    won = s.tricks_won
    if s.revealed:
        partner = partner_of(s)
        candidates: tuple[int | None, ...] = (partner,)
    else:
        candidates = (None, *(p for p in range(_SEATS) if p != declarer))
    verdict: bool | None = None
    for p in candidates:
        side = won[declarer] + (won[p] if p is not None else 0)
        if side >= n:
            this = True
        elif side + left < n:
            this = False
        else:
            return None
        if verdict is None:
            verdict = this
        elif verdict != this:
            return None
    return verdict


class Nominations(Rules[NominationsState]):
    name = "nominations"
    title = "Nominations"
    seats = _SEATS
    summary = (
        "Auction for tricks, misère or open misère; the declarer calls a card and its holder "
        "is his secret partner. All pass: a double hand, sorted and dealt unshuffled, ×2."
    )
    options_type = NominationsOptions
    state_type = NominationsState
    detail_type = NominationsDetail
    rank_order = tuple(reversed(_RANKS))
    move_types = (Call, Bid, Cut, DeclareContract, PlayCard)

    def check_options(self, opts: NominationsOptions) -> None:
        if opts.bid13_points not in (13, 26):
            raise InvalidOptions(
                Reason.INVALID_OPTION_VALUE,
                f"nominations option 'bid13_points': expected 13 or 26 (got {opts.bid13_points})",
            )

    def phases(self) -> Sequence[Phase[NominationsState]]:
        return (
            Phase(
                AUCTION,
                whose_turn,
                (
                    Choice(Call, (PASS,), pass_problem, self.pass_, gate=auction_turn),
                    Choice(Bid, ladder_bids, bid_problem, self.bid, gate=auction_turn),
                ),
            ),
            Phase(
                CUT,
                whose_turn,
                (
                    Choice(
                        Cut,
                        _CUTS,
                        cut_problem,
                        self.cut,
                        gate=turn_gate("the dealer's right cuts"),
                        by_form=True,
                    ),
                ),
            ),
            Phase(
                DECLARE,
                whose_turn,
                (
                    Choice(
                        DeclareContract,
                        _DECLARATIONS,
                        declaration_problem,
                        self.declare,
                        gate=turn_gate("only the declarer names the contract"),
                        by_form=True,
                    ),
                ),
            ),
            Phase(PLAY, whose_turn, (Plays(playable, play_problem, self.play),)),
        )

    # -- dealing (§2, §4) --------------------------------------------------------------------

    def begin(self, s: NominationsState, first_dealer: int) -> None:
        s.played_deals = 0
        s.dealer = first_dealer
        s.double_run = 0
        s.multiplier = 1
        s.deal_no = 1
        self.deal(s, s.chance.shuffled("pack:1", _DECK), [])

    def deal(
        self,
        s: NominationsState,
        pack: Sequence[int],
        events: list[Event],
        stacked: Sequence[int] = (),
        depth: int = 0,
    ) -> None:
        """Deal deal number ``s.deal_no`` from ``pack`` and open its auction; a double hand
        keeps the ``stacked`` pack it was cut from at ``depth``."""
        s.chance.dealt(s.deal_no, pack)
        s.hands = dealt_hands(pack, s.options.deal_batches, s.dealer)
        s.pack = list(stacked)
        s.depth = depth
        s.phase = AUCTION
        s.turn = (s.dealer + 1) % _SEATS
        s.calls = []
        s.high = -1
        s.high_bidder = None
        s.passes = 0
        s.declarer = None
        s.contract = None
        s.bid_tricks = 0
        s.trump = None
        s.called = None
        s.holder = None
        s.revealed = False
        s.exposed = False
        s.leader = s.turn
        s.trick = []
        s.tricks_won = [0] * _SEATS
        s.history = []
        events.append(self.deal_started(s))

    def next_deal(self, s: NominationsState, events: list[Event]) -> None:
        """After a played deal the deal passes left (§2)."""
        old_dealer = s.dealer
        s.dealer = (s.dealer + 1) % _SEATS
        s.double_run = 0
        s.multiplier = 1
        s.deal_no += 1
        if s.options.shuffle_between_deals:
            pack = s.chance.shuffled(f"pack:{s.deal_no}", _DECK)
        else:
            gathered = gathered_pack(s.history, s.hands, old_dealer)
            depth = s.chance.randint(f"cut:{s.deal_no}", 1, 51)
            events.append(PackCut(seat=(s.dealer + 3) % _SEATS, chosen=False, depth=depth))
            self.deal(s, cut(gathered, depth), events, gathered, depth)
            return
        self.deal(s, pack, events)

    # -- the moves: the auction (§3) ---------------------------------------------------------

    def timeout_move(self, s: NominationsState, seat: int) -> Call | Bid | Cut | None:
        """The least harmful move for a seat whose clock ran out (proposed wording in
        docs/proposed-rules-timeout.md): in the auction ``pass``, or, for a dealer who must bid
        (§3.3), the lowest bid of the ladder (a number, never a misère); a cutter cuts at a
        secret depth, as the default random cut does. None for the declaration and the play:
        the service's policy chooses (the reference bot, cards only)."""
        if seat != s.turn:
            return None
        if s.phase == AUCTION:
            return _options_ladder(s.options)[0] if dealer_must_bid(s) else PASS
        if s.phase == CUT:  # a secret depth, as the default ``double_hand_cut: random`` draws
            # A fresh Chance of the seed: the draw is no part of the deal's chance log.
            return Cut(Chance(s.chance.seed).randint(f"timeout:cut:{s.deal_no}", 1, 51))
        return None

    def pass_(self, s: NominationsState, seat: int, move: Call, events: list[Event]) -> None:
        s.calls.append("pass")
        events.append(_PASSED[seat])
        s.passes += 1
        if s.high >= 0 and s.passes == 3:
            self._auction_won(s, events)
        elif s.high < 0 and s.passes == _SEATS:
            self._all_passed(s, events)
        else:
            s.turn = (seat + 1) % _SEATS

    def bid(self, s: NominationsState, seat: int, bid: Bid, events: list[Event]) -> None:
        o = s.options
        s.high = _ladder_index(o.min_bid, o.misere_rank, o.open_misere)[(bid.contract, bid.tricks)]
        s.high_bidder = seat
        s.passes = 0
        s.calls.append(bid_label(bid))
        events.append(BidMade(seat=seat, contract=bid.contract, tricks=bid.tricks))
        if o.auto_end_on_top_bid and s.high == len(_options_ladder(o)) - 1:
            self._auction_won(s, events)
        else:
            s.turn = (seat + 1) % _SEATS

    def _auction_won(self, s: NominationsState, events: list[Event]) -> None:
        bid = _options_ladder(s.options)[s.high]
        declarer = s.high_bidder
        assert declarer is not None
        s.declarer = declarer
        s.contract = bid.contract
        s.bid_tricks = bid.tricks or 0
        events.append(AuctionWon(declarer=declarer, contract=bid.contract, tricks=bid.tricks))
        s.turn = s.leader = declarer  # the declarer leads, in every contract (§6.1)
        if bid.contract == TRICKS:
            s.phase = DECLARE
            return
        s.phase = PLAY
        if bid.contract == OPEN_MISERE and s.options.open_misere_expose == "before_first_lead":
            self._expose(s, events)

    def _all_passed(self, s: NominationsState, events: list[Event]) -> None:
        """§3.2 / §4: nobody bid. The deal is abandoned and scores nothing (it is not a played
        deal, so the game's end is not checked); the dealer stays and deals again."""
        o = s.options
        abandoned_multiplier = s.multiplier
        if o.all_pass == "redeal":  # §16.3: a fresh shuffle, no multiplier, not counted
            s.double_run = 0
            s.multiplier = 1
        else:
            assert o.all_pass == "double_hand"  # dealer_forced never lets the fourth pass
            s.double_run += 1
            m = o.double_hand_multiplier
            s.multiplier = m**s.double_run if o.double_hand_stacking else m
        events.append(AllPassed(s.deal_no, s.dealer, o.all_pass, s.multiplier))
        s.last_result = DealScored(
            deal_no=s.deal_no,
            bids=(None,) * _SEATS,
            taken=(0,) * _SEATS,
            made=(None,) * _SEATS,
            points=(0,) * _SEATS,
            totals=tuple(s.scores),
            bid_cards=(None,) * _SEATS,
            note="all passed",
            result=NominationsDealResult(
                all_passed=True,
                declarer=None,
                contract=None,
                bid_tricks=None,
                partner=None,
                made=False,
                value=0,
                multiplier=abandoned_multiplier,
                tricks=(0,) * _SEATS,
            ),
        )
        events.append(s.last_result)
        s.deal_no += 1
        if o.all_pass == "redeal":
            self.deal(s, s.chance.shuffled(f"pack:{s.deal_no}", _DECK), events)
            return
        pack = stacked_pack(s.hands, s.dealer)
        if o.double_hand_cut == "none":
            self.deal(s, pack, events, pack, 0)
        elif o.double_hand_cut == "random":
            s.pack = pack
            self._cut_and_deal(s, s.chance.randint(f"cut:{s.deal_no}", 1, 51), False, events)
        else:
            s.pack = pack
            s.hands = [0] * _SEATS  # the packets are on the table now
            s.phase = CUT
            s.turn = (s.dealer + 3) % _SEATS

    def cut(self, s: NominationsState, seat: int, move: Cut, events: list[Event]) -> None:
        self._cut_and_deal(s, move.depth, True, events)

    def _cut_and_deal(
        self, s: NominationsState, depth: int, chosen: bool, events: list[Event]
    ) -> None:
        events.append(PackCut(seat=(s.dealer + 3) % _SEATS, chosen=chosen, depth=depth))
        self.deal(s, cut(s.pack, depth), events, s.pack, depth)

    # -- the contract (§5) and play (§6) -----------------------------------------------------

    def declare(
        self, s: NominationsState, seat: int, move: DeclareContract, events: list[Event]
    ) -> None:
        s.trump = move.trump
        s.called = move.called
        s.holder = next(p for p in range(_SEATS) if s.hands[p] >> move.called & 1)
        events.append(ContractDeclared(declarer=seat, trump=move.trump, called=move.called))
        events.append(PartnerNotice(holder=s.holder, called=move.called))
        s.phase = PLAY

    def _expose(self, s: NominationsState, events: list[Event]) -> None:
        declarer = s.declarer
        assert declarer is not None
        s.exposed = True
        events.append(
            CardsExposed(seat=declarer, what="hand", cards=tuple(C.cards_of(s.hands[declarer])))
        )

    def play(self, s: NominationsState, seat: int, move: PlayCard, events: list[Event]) -> None:
        c = move.card
        s.hands[seat] &= ~(1 << c)
        trick = s.trick
        trick.append(c)
        events.append(PLAYED[seat][c])
        if c == s.called:
            s.revealed = True
            declarer = s.declarer
            assert declarer is not None
            events.append(PartnerRevealed(declarer=declarer, partner=partner_of(s)))
        if len(trick) < _SEATS:
            s.turn = (seat + 1) % _SEATS
            return
        leader = s.leader
        winner = (leader + trick_winner(trick, _BEATERS[s.trump])) % _SEATS
        s.tricks_won[winner] += 1
        s.history.append([leader, winner, *trick])
        events.append(
            TrickWon(trick_no=len(s.history), winner=winner, leader=leader, cards=tuple(trick))
        )
        s.trick = []
        s.leader = s.turn = winner
        if s.contract != TRICKS:
            if winner == s.declarer:  # §6.5: a misère declarer's first trick ends the deal
                self.score_deal(s, events, made=False)
                return
            if len(s.history) == 1 and s.contract == OPEN_MISERE and not s.exposed:
                self._expose(s, events)
        elif s.options.stop_when_decided and not s.options.opponent_trick_points:
            verdict = publicly_decided(s)
            if verdict is not None:
                self.score_deal(s, events, made=verdict)
                return
        if len(s.history) == _TRICKS:
            self.score_deal(s, events, made=self._made(s))

    def _made(self, s: NominationsState) -> bool:
        """§7, after the last trick."""
        declarer = s.declarer
        assert declarer is not None
        if s.contract != TRICKS:
            return s.tricks_won[declarer] == 0
        partner = partner_of(s)
        side = s.tricks_won[declarer] + (s.tricks_won[partner] if partner is not None else 0)
        return side >= s.bid_tricks

    # -- scoring and the end -----------------------------------------------------------------

    def score_deal(self, s: NominationsState, events: list[Event], made: bool) -> None:
        o = s.options
        declarer = s.declarer
        contract = s.contract
        assert declarer is not None and contract is not None
        if len(s.history) < _TRICKS:  # an early end shows every remaining card (§12)
            for seat in range(_SEATS):
                if s.hands[seat] and not (s.exposed and seat == declarer):
                    events.append(
                        CardsExposed(
                            seat=seat, what="remaining", cards=tuple(C.cards_of(s.hands[seat]))
                        )
                    )
        partner = partner_of(s)
        if contract == TRICKS and not s.revealed:
            s.revealed = True
            events.append(PartnerRevealed(declarer=declarer, partner=partner))
        value = contract_value(o, contract, s.bid_tricks)
        points = deal_points(
            value,
            made,
            declarer,
            partner,
            s.tricks_won,
            multiplier=s.multiplier,
            opponent_trick_points=o.opponent_trick_points,
        )
        for seat in range(_SEATS):
            s.scores[seat] += points[seat]
        s.played_deals += 1
        label = str(s.bid_tricks) if contract == TRICKS else contract
        note = []
        if contract == TRICKS:
            note.append("solo" if partner is None else f"partner {partner}")
        if s.multiplier != 1:
            note.append(f"x{s.multiplier}")
        # The declarer's bid, and made or not for the declarer's side; None for the others
        # (filled by index: two generator expressions cost more than the rest of the event).
        bids: list[int | None] = [None] * _SEATS
        bids[declarer] = s.bid_tricks
        side_made: list[bool | None] = [None] * _SEATS
        side_made[declarer] = made
        if partner is not None:
            side_made[partner] = made
        scored = DealScored(
            deal_no=s.deal_no,
            bids=tuple(bids),
            taken=tuple(s.tricks_won),
            made=tuple(side_made),
            points=tuple(points),
            totals=tuple(s.scores),
            bid_cards=(None,) * _SEATS,
            premium_seat=declarer,
            premium=label,
            note="; ".join(note),
            result=NominationsDealResult(
                all_passed=False,
                declarer=declarer,
                contract=contract,
                bid_tricks=s.bid_tricks if contract == TRICKS else None,
                partner=partner,
                made=made,
                value=value,
                multiplier=s.multiplier,
                tricks=tuple(s.tricks_won),
            ),
        )
        self.close_deal(s, scored, events)

    def match_winners(self, s: NominationsState) -> tuple[int, ...] | None:
        return self.game_winners(s.scores, s.played_deals, s.options)

    @staticmethod
    def game_winners(
        totals: list[int], played_deals: int, o: NominationsOptions
    ) -> tuple[int, ...] | None:
        """§9 and §16.6: the winners once the game is over, None while it goes on."""
        if o.end_mode == "deals":
            reached = played_deals >= o.deal_count
        else:
            reached = max(totals) >= o.target_score
        return final_winners(totals, reached, o.tie_rule)

    # -- projection (§12) --------------------------------------------------------------------

    def seat_view(self, s: NominationsState, seat: int, viewer: Viewer) -> SeatView:
        numeric = s.contract == TRICKS
        return seat_view(
            seat=seat,
            hand_size=C.count(s.hands[seat]),
            hand=(
                tuple(C.cards_of(s.hands[seat]))
                if seat == viewer or (s.exposed and seat == s.declarer)
                else None
            ),
            bid=s.bid_tricks if numeric and seat == s.declarer else None,
            tricks_won=s.tricks_won[seat],
            score=s.scores[seat],
        )

    def trick_shown(self, s: NominationsState) -> TrickView | None:
        return trick_view(s.leader, s.trick, None, _SEATS) if s.phase == PLAY else None

    def tricks_shown(self, s: NominationsState) -> tuple[TrickView, ...]:
        """The last trick, while it may be reviewed (until the next lead)."""
        if s.options.review_last_trick and s.history and not s.trick and s.phase == PLAY:
            leader, winner, *cards = s.history[-1]
            return (trick_view(leader, cards, winner, _SEATS),)
        return ()

    def trump_shown(self, s: NominationsState) -> int | None:
        return s.trump

    def detail(self, s: NominationsState, viewer: Viewer) -> NominationsDetail:
        declarer = s.declarer
        numeric = s.contract == TRICKS
        partner: int | None = None
        side: int | None = None
        if not numeric or s.called is None:
            status = "none"
        elif s.revealed:
            assert declarer is not None
            partner = partner_of(s)
            status = "solo" if partner is None else "revealed"
            side = s.tricks_won[declarer] + (s.tricks_won[partner] if partner is not None else 0)
        elif viewer is not None and viewer == s.holder:
            status = "you_hold_called_card" if viewer == declarer else "you_are_partner"
        else:
            status = "unknown"
        o = s.options
        high = _options_ladder(o)[s.high] if s.high >= 0 else None
        return NominationsDetail(
            ladder=ladder_labels(o.min_bid, o.misere_rank, o.open_misere),
            first_caller=(s.dealer + 1) % _SEATS,
            auction=tuple(s.calls),
            high_bid=bid_label(high) if high is not None else None,
            high_bidder=s.high_bidder,
            declarer=declarer,
            contract=(None if s.contract is None else str(s.bid_tricks) if numeric else s.contract),
            no_trump=numeric and s.called is not None and s.trump is None,
            partner=partner,
            partner_status=status,
            side_tricks=side,
            multiplier=s.multiplier,
            double_hand=s.double_run > 0,
            cutter=s.turn if s.phase == CUT else None,
            hand_exposed=s.exposed,
            played_deals=s.played_deals,
            called=s.called,
            last_deal=s.last_result,
        )

    # -- information sets (engine.core.information) ------------------------------------------

    def seat_information(self, state: NominationsState, seat: int) -> InformationSet:
        s = state
        known_holder = s.holder is not None and (s.revealed or s.holder == seat)
        packet: tuple[int, ...] = ()
        depth: int | None = None
        gathered: tuple[int, ...] = ()
        if s.finished:
            pass  # the match is over: no deal to sample (its last deal's cards are all shown)
        elif s.pack and not (s.double_run or s.phase == CUT):
            gathered = tuple(s.pack)
        elif s.pack:  # the seat's own packet of the stacked pack: its last hand
            at = (0, 3, 2, 1).index((seat - s.dealer) % _SEATS) * _HAND
            packet = tuple(sorted(s.pack[at : at + _HAND]))
            if s.phase != CUT and _knows_depth(s.options, seat, s.dealer):
                depth = s.depth
        public = NominationsPublic(
            last_deal=s.last_result,
            played_deals=s.played_deals,
            double_run=_double_run(s.options, s.double_run > 0, s.multiplier),
            multiplier=s.multiplier,
            turn=s.turn,
            calls=tuple(s.calls),
            high=s.high,
            high_bidder=s.high_bidder,
            declarer=s.declarer,
            contract=s.contract,
            bid_tricks=s.bid_tricks,
            trump=s.trump,
            called=s.called,
            holder=s.holder if known_holder else None,
            revealed=s.revealed,
            exposed=s.exposed,
            leader=s.leader,
            trick=tuple(s.trick),
            tricks_won=tuple(s.tricks_won),
            history=tuple(map(tuple, s.history)),
            own_packet=packet,
            cut_depth=depth,
            gathered=gathered,
            exposed_hand=(
                tuple(C.cards_of(s.hands[s.declarer]))
                if s.exposed and s.declarer is not None and s.declarer != seat
                else None
            ),
        )
        match = match_of_state(s)
        hand = tuple(C.cards_of(s.hands[seat]))
        sizes = tuple(C.count(h) for h in s.hands)
        return _information(s.options, seat, match, hand, public, hand_sizes=sizes)

    def information_set_from(
        self, view: View, events: Sequence[Event], options: Mapping[str, object] | Any = None
    ) -> InformationSet:
        seat = seat_of(view)
        o = options if type(options) is NominationsOptions else self.options(options)
        d: NominationsDetail = view.detail
        history = [
            (e.leader, e.winner, *e.cards) for e in deal_events(events) if isinstance(e, TrickWon)
        ]
        starts = [i for i, e in enumerate(events) if isinstance(e, DealStarted)]
        packet: tuple[int, ...] = ()
        depth: int | None = None
        if view.finished:
            pass  # as information_set: no deal to sample
        elif view.phase == CUT or d.double_hand:
            # The packets are the hands of the deal all passed: while the cut waits, the deal
            # whose events come last; in the double hand, the one before it.
            back = 1 if view.phase == CUT else 2
            if len(starts) < back:
                raise ValueError(
                    "a double hand's information set needs the events since the deal it "
                    "redeals began"
                )
            started = events[starts[-back]]
            assert isinstance(started, DealStarted)
            packet = started.hands[seat] or ()
            if view.phase != CUT and _knows_depth(o, seat, view.dealer):
                depth = 0
                for e in events[starts[-2] : starts[-1]]:
                    if isinstance(e, PackCut) and e.depth is not None:
                        depth = e.depth
        gathered: tuple[int, ...] = ()
        last = d.last_deal.result if d.last_deal is not None else None
        if (
            not o.shuffle_between_deals
            and not view.finished
            and not d.double_hand
            and isinstance(last, NominationsDealResult)
            and not last.all_passed
        ):
            if len(starts) < 2:
                raise ValueError(
                    "a gathered deal's information set needs the events since the deal before began"
                )
            gathered = _gathered_from(events[starts[-2] : starts[-1]])
        calls = d.auction
        contract: str | None = None
        bid_tricks = 0
        if d.contract in (MISERE, OPEN_MISERE):
            contract = d.contract
        elif d.contract is not None:
            contract, bid_tricks = TRICKS, int(d.contract)
        revealed = d.partner_status in ("solo", "revealed")
        if d.partner_status in ("you_are_partner", "you_hold_called_card"):
            holder: int | None = seat
        elif revealed:
            holder = d.partner if d.partner is not None else d.declarer
        else:
            holder = None
        trick = view.trick
        if trick is not None:
            leader = trick.leader
        elif d.declarer is not None:
            leader = d.declarer
        else:
            leader = (view.dealer + 1) % _SEATS
        public = NominationsPublic(
            last_deal=d.last_deal,
            played_deals=d.played_deals,
            double_run=_double_run(o, d.double_hand, d.multiplier),
            multiplier=d.multiplier,
            turn=view.to_act[0] if view.to_act else leader,
            calls=calls,
            high=d.ladder.index(d.high_bid) if d.high_bid is not None else -1,
            high_bidder=d.high_bidder,
            declarer=d.declarer,
            contract=contract,
            bid_tricks=bid_tricks,
            trump=view.trump,
            called=d.called,
            holder=holder,
            revealed=revealed,
            exposed=d.hand_exposed,
            leader=leader,
            trick=trick.cards if trick is not None else (),
            tricks_won=tuple(sv.tricks_won for sv in view.seats),
            history=tuple(history),
            own_packet=tuple(sorted(packet)),
            cut_depth=depth,
            gathered=gathered,
            exposed_hand=(
                view.seats[d.declarer].hand
                if d.hand_exposed and d.declarer is not None and d.declarer != seat
                else None
            ),
        )
        hand = view.seats[seat].hand or ()
        sizes = tuple(sv.hand_size for sv in view.seats)
        return _information(o, seat, match_of(view), hand, public, hand_sizes=sizes)

    def sample_state(self, info: InformationSet, rng: random.Random) -> NominationsState:
        p: NominationsPublic = info.public
        seat = info.seat
        dealt = deal_hidden(info.hidden, info.unseen, rng)
        s: NominationsState = new_state(NominationsState, info, rng)
        s.last_result = p.last_deal
        s.played_deals = p.played_deals
        s.double_run = p.double_run
        s.multiplier = p.multiplier
        s.hands = [0] * _SEATS
        s.pack = []
        s.depth = 0
        if p.gathered:
            s.hands, s.depth = _gathered_deal(info, rng)
            s.pack = list(p.gathered)
        elif p.own_packet and info.phase != CUT:
            s.hands, s.pack, s.depth = _double_hand(info, rng)
        elif info.phase == CUT:
            packets = [0] * _SEATS
            packets[seat] = C.mask_of(p.own_packet)
            for place, cards in zip(info.hidden, dealt, strict=True):
                assert place.owner is not None
                packets[place.owner] = C.mask_of(cards)
            s.pack = stacked_pack(packets, info.dealer)
        else:
            s.hands[seat] = C.mask_of(info.hand)
            for place, cards in zip(info.hidden, dealt, strict=True):
                assert place.owner is not None
                s.hands[place.owner] = C.mask_of(cards)
        s.turn = p.turn
        s.calls = list(p.calls)
        s.high = p.high
        s.high_bidder = p.high_bidder
        s.passes = sum(1 for _ in itertools.takewhile("pass".__eq__, reversed(p.calls)))
        s.declarer = p.declarer
        s.contract = p.contract
        s.bid_tricks = p.bid_tricks
        s.trump = p.trump
        s.called = p.called
        s.holder = p.holder
        if p.called is not None and p.holder is None:
            # The called card lies in a hidden hand (it is unplayed): its holder is whoever
            # this sample dealt it to.
            s.holder = next(o for o in range(_SEATS) if s.hands[o] >> p.called & 1)
        s.revealed = p.revealed
        s.exposed = p.exposed
        s.leader = p.leader
        s.trick = list(p.trick)
        s.tricks_won = list(p.tricks_won)
        s.history = [list(row) for row in p.history]
        return s


def _double_run(o: NominationsOptions, double_hand: bool, multiplier: int) -> int:
    """Double hands in a row, as far as the rules use the number: the multiplier grows with it
    only under ``double_hand_stacking`` (then ``multiplier = m ** run``, so the run is public);
    otherwise only whether a double hand is on matters, and 1 stands for any run."""
    if not double_hand:
        return 0
    m = o.double_hand_multiplier
    if not o.double_hand_stacking or m == 1:
        return 1
    run = 0
    while multiplier > 1:
        multiplier //= m
        run += 1
    return run


def _allowed_seats(info: InformationSet) -> list[int]:
    """Per card, the seats (a bit each) whose hand of this deal it may have been dealt to: the
    seat that played it; the seat itself for its own cards; the seat known to hold it; else any
    other seat not known to lack it."""
    allowed = [0] * 64
    for player, c in info.plays:
        allowed[c] = 1 << player
    for c in info.hand:
        allowed[c] = 1 << info.seat
    for place in info.hidden:
        assert place.owner is not None
        for c in place.known:
            allowed[c] = 1 << place.owner
        for c in info.unseen:
            if not place.excluded >> c & 1:
                allowed[c] |= 1 << place.owner
    return allowed


def _gathered_from(events: Sequence[Event]) -> tuple[int, ...]:
    """The gathered pack (§10) of the deal whose events these are: its tricks in play order,
    then each seat's unplayed cards, which an early end shows (the open-misère hand lay face
    up already: what it did not play)."""
    started = events[0]
    assert isinstance(started, DealStarted)
    history: list[list[int]] = []
    remaining = [0] * _SEATS
    for e in events:
        if isinstance(e, TrickWon):
            history.append([e.leader, e.winner, *e.cards])
        elif isinstance(e, CardsExposed):
            remaining[e.seat] = C.mask_of(e.cards)
        elif isinstance(e, CardPlayed):
            remaining[e.seat] &= ~(1 << e.card)
    return tuple(gathered_pack(history, remaining, started.dealer))


def _gathered_deal(info: InformationSet, rng: random.Random) -> tuple[list[int], int]:
    """A deal dealt without a shuffle from a public gathered pack: the hands are fixed by the
    cut's depth, hidden from everyone; each depth that deals hands consistent with the set (the
    seat's own hand, every card played and by whom, the voids, the known holdings) is drawn
    with equal probability (a random depth is uniform, and a depth is the whole deal).
    Returns (current hands, depth)."""
    p: NominationsPublic = info.public
    o: NominationsOptions = info.options
    allowed = _allowed_seats(info)
    fits = []
    for depth in range(1, 52):
        dealt = deal_cards(cut(p.gathered, depth), o.deal_batches, info.dealer)
        if all(allowed[c] >> player & 1 for player, cards in enumerate(dealt) for c in cards):
            fits.append((depth, dealt))
    if not fits:
        raise ValueError("no cut of the gathered pack is consistent with this information")
    depth, dealt = fits[rng.randrange(len(fits))]
    played = C.mask_of(c for _, c in info.plays)
    return [C.mask_of(h) & ~played for h in dealt], depth


def _knows_depth(o: NominationsOptions, seat: int, dealer: int) -> bool:
    """Whether ``seat`` knows the depth of a double hand's cut: it is not cut, or the seat is
    the cutter (the dealer's right) and chose it (§4; a random depth is shown to nobody)."""
    if o.double_hand_cut == "none":
        return True
    return o.double_hand_cut == "cutter_chooses" and seat == (dealer + 3) % _SEATS


def _double_hand(info: InformationSet, rng: random.Random) -> tuple[list[int], list[int], int]:
    """A double hand's hidden cards, drawn uniformly among its consistent worlds: the other
    seats' hands of the deal all passed and the cut's depth, which together fix the new hands
    (the stacked, cut pack dealt without a shuffle). The seat's own packet and new hand, every
    card played and by whom, the voids and the known holdings constrain them.

    Exact counting: the stacked pack is four packets, each its hand sorted in one fixed card
    order, so dealing the other 39 cards in that order, each to one of the three other packets,
    puts it at the next place of that packet, hence at a known place of the cut pack, hence in
    a known seat's new hand. The number of ways to finish from (cards dealt, places filled in
    each packet) is counted once per depth (remembered), and each card's packet is drawn with
    probability proportional to the ways that follow: every consistent (hands, depth) comes out
    equally likely, a depth the seat does not know taken as uniform over 1..51 (the random cut;
    a chosen cut the seat did not see, too). Returns (current hands, stacked pack, depth).

    The deal all passed counts as shuffled: after double hands in a row, its own stacking is
    not used (a limit, rare: all four must pass twice running)."""
    p: NominationsPublic = info.public
    o: NominationsOptions = info.options
    seat, dealer = info.seat, info.dealer
    allowed = _allowed_seats(info)
    depths = (p.cut_depth,) if p.cut_depth is not None else tuple(range(1, 52))
    table = _double_hand_table(
        seat,
        dealer,
        o.deal_batches,
        own_packet=p.own_packet,
        depths=depths,
        allowed=tuple(allowed),
    )
    weights = [ways(0, (0, 0, 0)) for _, ways, _ in table]
    pick = rng.randrange(sum(weights))
    k = 0
    while pick >= weights[k]:
        pick -= weights[k]
        k += 1
    depth, ways, step = table[k]
    order = _stack_order(p.own_packet)
    others = _stack_others(seat, dealer)
    packets = [0] * _SEATS
    packets[seat] = C.mask_of(p.own_packet)
    filled = (0, 0, 0)
    for t, c in enumerate(order):
        moves = [(q, nxt, ways(t + 1, nxt)) for q, nxt in step(t, filled, c)]
        pick = rng.randrange(sum(w for _, _, w in moves))
        k = 0
        while pick >= moves[k][2]:
            pick -= moves[k][2]
            k += 1
        q, filled, _ = moves[k]
        packets[others[q]] |= 1 << c
    stacked = stacked_pack(packets, dealer)
    played = C.mask_of(c for _, c in info.plays)
    new_hands = deal_cards(cut(stacked, depth), o.deal_batches, dealer)
    return [C.mask_of(h) & ~played for h in new_hands], stacked, depth


def _stack_others(seat: int, dealer: int) -> list[int]:
    """The other seats, in the order their packets lie in the stacked pack."""
    return [(dealer + k) % _SEATS for k in (0, 3, 2, 1) if (dealer + k) % _SEATS != seat]


def _stack_order(own_packet: Sequence[int]) -> list[int]:
    """The other 39 cards in the order every packet is sorted in."""
    return sorted_hand(C.mask_of(_DECK) & ~C.mask_of(own_packet), _DOUBLE_HAND_SUITS)


Filled = tuple[int, int, int]
Ways = Callable[[int, Filled], int]
Step = Callable[[int, Filled, int], list[tuple[int, Filled]]]


@lru_cache(maxsize=64)
def _double_hand_table(
    seat: int,
    dealer: int,
    batches: str,
    *,
    own_packet: tuple[int, ...],
    depths: tuple[int, ...],
    allowed: tuple[int, ...],
) -> tuple[tuple[int, Ways, Step], ...]:
    """Per consistent depth: (depth, the ways to finish from a point, the moves from it)."""
    owner = [0] * 52
    for player, places in enumerate(deal_cards(list(range(52)), batches, dealer)):
        for place in places:
            owner[place] = player
    stack = [(dealer + k) % _SEATS for k in (0, 3, 2, 1)]
    offset = {player: _HAND * i for i, player in enumerate(stack)}
    others = _stack_others(seat, dealer)
    mine = sorted_hand(C.mask_of(own_packet), _DOUBLE_HAND_SUITS)
    order = _stack_order(own_packet)
    out: list[tuple[int, Ways, Step]] = []
    for depth in depths:
        # The seat's own packet lies where it lies: each of its cards must suit its new seat.
        if any(
            not allowed[c] >> owner[(offset[seat] + i - depth) % 52] & 1 for i, c in enumerate(mine)
        ):
            continue
        bases = [offset[player] - depth for player in others]

        def step(
            t: int, filled: Filled, c: int, bases: list[int] = bases
        ) -> list[tuple[int, Filled]]:
            moves: list[tuple[int, Filled]] = []
            for q in range(3):
                n = filled[q]
                if n < _HAND and allowed[c] >> owner[(bases[q] + n) % 52] & 1:
                    nxt = (filled[0] + (q == 0), filled[1] + (q == 1), filled[2] + (q == 2))
                    moves.append((q, nxt))
            return moves

        memo: dict[Filled, int] = {}

        def ways(t: int, filled: Filled, step: Step = step, memo: dict[Filled, int] = memo) -> int:
            if t == len(order):
                return 1
            held = memo.get(filled)
            if held is None:
                held = memo[filled] = sum(
                    ways(t + 1, nxt, step, memo) for _, nxt in step(t, filled, order[t])
                )
            return held

        if ways(0, (0, 0, 0)):
            out.append((depth, ways, step))
    if not out:
        raise ValueError("no double hand is consistent with this information")
    return tuple(out)


@dataclass(frozen=True, slots=True)
class NominationsPublic:
    """Nominations' part of an information set (``InformationSet.public``): the last deal's
    result, the played deals, the double hands in a row (see ``_double_run``) and the
    multiplier; whose turn it is; the auction (its calls, the ladder index of the highest bid,
    its bidder, the passes since); the contract (declarer, ``tricks``/``misere``/
    ``open_misere``, the tricks bid, trumps, the called card, and its holder when the seat
    knows it: its own, or once played), whether the partner is public and whether the
    open-misère hand lies face up; who leads the trick on the table and its cards, each seat's
    tricks, this deal's tricks as ``(leader, winner, *cards)``; the open-misère hand while it
    lies face up (None if not, or if it is the seat's own); and in a double hand, and while its
    pack waits for the cut, the seat's own packet (its hand in the deal all passed), with the
    depth of the cut when the seat knows it (it chose it, or the pack is not cut); and in a deal
    dealt without a shuffle (§10), the gathered pack it was cut from, whose every card was
    public (played, or shown at an early end)."""

    last_deal: DealScored | None
    played_deals: int
    double_run: int
    multiplier: int
    turn: int
    calls: tuple[str, ...]
    high: int
    high_bidder: int | None
    declarer: int | None
    contract: str | None
    bid_tricks: int
    trump: int | None
    called: int | None
    holder: int | None
    revealed: bool
    exposed: bool
    leader: int
    trick: tuple[int, ...]
    tricks_won: tuple[int, ...]
    history: tuple[tuple[int, ...], ...]
    own_packet: tuple[int, ...]
    cut_depth: int | None
    gathered: tuple[int, ...]
    exposed_hand: tuple[int, ...] | None


def _information(
    o: NominationsOptions,
    seat: int,
    match: Match,
    hand: tuple[int, ...],
    public: NominationsPublic,
    *,
    hand_sizes: tuple[int, ...],
) -> InformationSet:
    """The information set from the facts both routes gather. The hidden places are the other
    seats' hands (the open-misère hand face up is known, and so is the holder of the unplayed
    called card when the seat knows it), or while a double hand waits for its cut, the other
    seats' packets of the stacked pack (their last hands). A seat that did not follow the suit
    led holds none of it, nor, under ``must_trump_when_void``, a trump if it did not trump."""
    tricks: list[tuple[int, Sequence[int]]] = [(row[0], row[2:]) for row in public.history]
    tricks.append((public.leader, public.trick))
    out = shown_out(tricks, _SEATS, lambda c: c >> 4)
    trumps = [0] * _SEATS
    if public.trump is not None and o.must_trump_when_void:
        for leader, cards in tricks:
            for i in range(1, len(cards)):
                led, suit = cards[0] >> 4, cards[i] >> 4
                if suit not in (led, public.trump):
                    trumps[(leader + i) % _SEATS] = 1 << public.trump
    plays = tuple(
        ((leader + i) % _SEATS, c) for leader, cards in tricks for i, c in enumerate(cards)
    )
    played = C.mask_of(c for _, c in plays)
    cut = match[2] == CUT
    # While the cut waits the seat holds no cards, but it has seen its packet; in the double
    # hand dealt from it, its old cards are spread over the new hands (see ``_double_hand``).
    seen = [*hand, *(public.own_packet if cut else ()), *(c for _, c in plays)]
    hidden: list[HiddenPlace] = []
    for other in range(_SEATS):
        if other == seat:
            continue
        if cut:
            hidden.append(HiddenPlace(other, "packet", _HAND))
            continue
        known: tuple[int, ...] = ()
        if public.exposed_hand is not None and other == public.declarer:
            known = public.exposed_hand
        elif (
            public.called is not None and public.holder == other and not played >> public.called & 1
        ):
            known = (public.called,)
        excluded = suits_of_mask(out[other] | trumps[other])
        hidden.append(HiddenPlace(other, "hand", hand_sizes[other], known, excluded))
        seen += known
    return information_set_of(
        "nominations",
        seat,
        o,
        match,
        hand=hand,
        plays=plays,
        shown_out=tuple(m | t for m, t in zip(out, trumps, strict=True)),
        hidden=tuple(hidden),
        unseen=unseen_cards(_DECK, seen),
        public=public,
    )


RULES = register(Nominations())
