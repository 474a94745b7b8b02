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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, TypeGuard

from engine.core import cards as C
from engine.core.cards import SUIT_MASK
from engine.core.errors import InvalidOptions, Reason
from engine.core.events import (
    AllPassed,
    AuctionWon,
    BidMade,
    Called,
    CardsExposed,
    ContractDeclared,
    DealScored,
    Event,
    NominationsDealResult,
    PackCut,
    PartnerNotice,
    PartnerRevealed,
    TrickWon,
    Viewer,
    card_played,
)
from engine.core.fields import card_field
from engine.core.moves import Bid, Call, Cut, DeclareContract, PlayCard
from engine.core.options import first_dealer_option, option, tie_rule_option
from engine.core.phases import Choice, Phase, Plays, Problem, whose_turn
from engine.core.rules import Rules, register
from engine.core.scoring import final_winners
from engine.core.state import GameState
from engine.core.tricks import beaters, follow_mask, play_refusal, trick_winner
from engine.core.view import SeatView, TrickView, seat_view, trick_view

_SEATS: Final = 4
_HAND: Final = 13
_TRICKS: Final = 13
_RANKS: Final = range(2, 15)  # 2 to Ace, in their natural order
_DECK: Final = C.deck(_RANKS)  # 52 cards, no Joker
_STRENGTH: Final = tuple(c & 15 for c in range(64))  # A high, no suit above another
_BEATERS: Final = beaters(_DECK, _STRENGTH)  # by trump
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
    schema = 2  # 2: last_result holds the DealScored event
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
    pack: list[int]  # the stacked double-hand pack while the cutter chooses (secret)
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
def _ladder_index(min_bid: int, misere_rank: str, open_misere: bool) -> dict[Bid, int]:
    return {b: i for i, b in enumerate(ladder(min_bid, misere_rank, open_misere))}


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
    hands: list[list[int]] = [[], [], [], []]
    pos = 0
    for sizes in _BATCHES[batches]:
        for i, n in enumerate(sizes):
            hands[(dealer + 1 + i) % _SEATS].extend(pack[pos : pos + n])
            pos += n
    for h in hands:
        h.sort()
    return hands


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
        index = _ladder_index(o.min_bid, o.misere_rank, o.open_misere).get(move)
    if index is None:
        if move.contract == TRICKS and type(move.tricks) is int and move.tricks < o.min_bid:
            return (Reason.BID_TOO_LOW, f"the lowest bid is {o.min_bid}")
        bids = ", ".join(bid_label(b) for b in _options_ladder(o))
        return (
            Reason.CALL_NOT_ALLOWED,
            f"{move.contract} {move.tricks!r} is not a bid of this game; bids: {bids}",
        )
    if index <= s.high:
        high = bid_label(_options_ladder(o)[s.high])
        return (Reason.BID_TOO_LOW, f"a bid must be higher than {high}")
    return None


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

    def deal(self, s: NominationsState, pack: Sequence[int], events: list[Event]) -> None:
        """Deal deal number ``s.deal_no`` from ``pack`` and open its auction."""
        s.chance.dealt(s.deal_no, pack)
        s.hands = [C.mask_of(h) for h in deal_cards(pack, s.options.deal_batches, s.dealer)]
        s.pack = []
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
            pack = gathered_pack(s.history, s.hands, old_dealer)
            depth = s.chance.randint(f"cut:{s.deal_no}", 1, 51)
            events.append(PackCut(seat=(s.dealer + 3) % _SEATS, chosen=False, depth=depth))
            pack = cut(pack, depth)
        self.deal(s, pack, events)

    # -- the moves: the auction (§3) ---------------------------------------------------------

    def pass_(self, s: NominationsState, seat: int, move: Call, events: list[Event]) -> None:
        s.calls.append("pass")
        events.append(Called(seat=seat, call="pass"))
        s.passes += 1
        if s.high >= 0 and s.passes == 3:
            self._auction_won(s, events)
        elif s.high < 0 and s.passes == _SEATS:
            self._all_passed(s, events)
        else:
            s.turn = (seat + 1) % _SEATS

    def bid(self, s: NominationsState, seat: int, bid: Bid, events: list[Event]) -> None:
        o = s.options
        s.high = _ladder_index(o.min_bid, o.misere_rank, o.open_misere)[bid]
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
            self.deal(s, pack, events)
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
        self.deal(s, cut(s.pack, depth), events)

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
        events.append(card_played(seat, c))
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
        scored = DealScored(
            deal_no=s.deal_no,
            bids=tuple(s.bid_tricks if seat == declarer else None for seat in range(_SEATS)),
            taken=tuple(s.tricks_won),
            made=tuple(made if seat in (declarer, partner) else None for seat in range(_SEATS)),
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


RULES = register(Nominations())
