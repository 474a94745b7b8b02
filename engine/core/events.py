"""Events: what happened, in order. The engine emits full events; viewers get projections.

Every event type implements ``visible_to(viewer)`` (a seat, or None for a spectator). Public
events return themselves; events that hold secrets return a copy with the secrets removed.
Secrets sit only in card fields (see :mod:`engine.core.fields`), so the leak tests can check
every projected event mechanically.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core.codec import from_data, to_data
from engine.core.fields import card_field, cards_field, per_seat_cards_field

Viewer = int | None


class _Public:
    """Mixin for events every viewer may see in full."""

    __slots__ = ()

    def visible_to(self, viewer: Viewer) -> Any:
        return self


@dataclass(frozen=True, slots=True)
class DealStarted:
    """A new deal: who deals, and each seat's cards (each seat sees only its own)."""

    kind: ClassVar[str] = "deal_started"
    deal_no: int
    dealer: int
    hand_sizes: tuple[int, ...]
    hands: tuple[tuple[int, ...] | None, ...] = per_seat_cards_field()
    turn_up: int | None = card_field(default=None)
    trump: int | None = None  # suit, or None for no trump / not yet known

    def visible_to(self, viewer: Viewer) -> DealStarted:
        hands = tuple(h if seat == viewer else None for seat, h in enumerate(self.hands))
        return dataclasses.replace(self, hands=hands)


@dataclass(frozen=True, slots=True)
class CardsLaidAside:
    """A seat laid cards aside face down; only that seat sees which."""

    kind: ClassVar[str] = "cards_laid_aside"
    seat: int
    count: int
    cards: tuple[int, ...] | None = cards_field()

    def visible_to(self, viewer: Viewer) -> CardsLaidAside:
        return self if viewer == self.seat else dataclasses.replace(self, cards=None)


@dataclass(frozen=True, slots=True)
class Called(_Public):
    """A public call (premium pass / declare / reveal, …). ``automatic`` when the rules spoke."""

    kind: ClassVar[str] = "called"
    seat: int
    call: str
    automatic: bool = False


@dataclass(frozen=True, slots=True)
class SeatChosen(_Public):
    """A seat named another seat for a role (``leader``: who leads the first trick)."""

    kind: ClassVar[str] = "seat_chosen"
    seat: int
    chosen: int
    role: str


@dataclass(frozen=True, slots=True)
class CardsExposed(_Public):
    """Cards turned face up for everyone (``what``: ``bid_cards`` or ``hand``)."""

    kind: ClassVar[str] = "cards_exposed"
    seat: int
    what: str
    cards: tuple[int, ...] = cards_field()


@dataclass(frozen=True, slots=True)
class CardPlayed(_Public):
    """A card played to the trick. ``as_card`` is what it stands for (the Ninety-Nine Joker)."""

    kind: ClassVar[str] = "card_played"
    seat: int
    card: int = card_field()
    as_card: int | None = card_field(default=None)


#: Events are immutable, so an ordinary card play (no stand-in) is one shared object per seat
#: and card: ``PLAYED[seat][card]``, the commonest event, costs no allocation and, read from the
#: table where a card is played, not even a call.
PLAYED: tuple[tuple[CardPlayed, ...], ...] = tuple(
    tuple(CardPlayed(seat, c) for c in range(65)) for seat in range(4)
)


def card_played(seat: int, card: int) -> CardPlayed:
    """The event of ``seat`` playing ``card`` as itself (``PLAYED[seat][card]``)."""
    return PLAYED[seat][card]


@dataclass(frozen=True, slots=True)
class TrickWon(_Public):
    kind: ClassVar[str] = "trick_won"
    trick_no: int
    winner: int
    leader: int
    cards: tuple[int, ...] = cards_field()  # in play order from the leader
    points: int = 0  # card points in the trick, for point-trick games


# -- a deal's result, in each game's own terms -------------------------------------------------
# Each game fills its own result where it scores a deal; ``DealScored.result`` carries it. The
# rules each field follows are in the game's module and in proto/tricktable/v1/events.proto.


@dataclass(frozen=True, slots=True)
class NinetyNineDealResult:
    """A Ninety-Nine deal (§7). ``bids``/``bid_cards`` hold None where the bid stays hidden."""

    kind: ClassVar[str] = "ninety_nine"
    bids: tuple[int | None, ...]
    tricks: tuple[int, ...]
    made: tuple[bool, ...]
    contract_bonus: int  # to each seat that made its bid
    premium_seat: int | None
    premium: str | None  # "declare" or "reveal"
    premium_value: int
    bid_cards: tuple[tuple[int, ...] | None, ...] = per_seat_cards_field()


@dataclass(frozen=True, slots=True)
class CounterpointDealResult:
    """A Counterpoint deal (§5): ``bids`` are the readings scored."""

    kind: ClassVar[str] = "counterpoint"
    bids: tuple[int, ...]
    card_points: tuple[int, ...]
    errors: tuple[int, ...]
    bonuses: tuple[int, ...]
    bid_cards: tuple[tuple[int, ...] | None, ...] = per_seat_cards_field()


@dataclass(frozen=True, slots=True)
class SixtySixDealResult:
    """A Sixty-Six deal (§8, §9): ``reason`` names the row of the scoring table that applied
    (``out``, ``false_out``, ``closer_judged_out``, ``closer_judged_false_out``,
    ``closer_failed``, ``false_out_by_closer``, ``out_after_close``, ``no_claim``,
    ``higher_total``, ``drawn``)."""

    kind: ClassVar[str] = "sixty_six"
    reason: str
    counts: tuple[int, ...]
    tricks: tuple[int, ...]
    claimant: int | None
    closer: int | None
    scorer: int | None
    award: int  # game points by the table, before the carry
    carry_taken: int  # the carry the scorer took with the award
    carry: int  # the carry after this deal


@dataclass(frozen=True, slots=True)
class NominationsDealResult:
    """A Nominations deal (§7, §8), or one everybody passed (§4: abandoned, scores nothing)."""

    kind: ClassVar[str] = "nominations"
    all_passed: bool
    declarer: int | None
    contract: str | None  # "tricks", "misere" or "open_misere"
    bid_tricks: int | None
    partner: int | None
    made: bool
    value: int  # the contract's value before the multiplier
    multiplier: int
    tricks: tuple[int, ...]


DealResult = (
    NinetyNineDealResult | CounterpointDealResult | SixtySixDealResult | NominationsDealResult
)


@dataclass(frozen=True, slots=True)
class DealScored(_Public):
    """The end of a deal: everything here is public by the rules of every game.

    ``points`` are what each seat scored in the deal and ``totals`` the totals after it;
    ``result`` is the deal's result in the game's own terms. The other fields are the protocol's
    older, per-game-ambiguous form, still filled for existing clients: ``bids``/``bid_cards``
    hold None for a seat whose bid stays hidden; ``taken`` is tricks or card points, per game.
    """

    kind: ClassVar[str] = "deal_scored"
    deal_no: int
    bids: tuple[int | None, ...]
    taken: tuple[int, ...]
    made: tuple[bool | None, ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]
    bid_cards: tuple[tuple[int, ...] | None, ...] = per_seat_cards_field()
    premium_seat: int | None = None
    premium: str | None = None
    note: str = ""
    result: DealResult | None = None


@dataclass(frozen=True, slots=True)
class GameOver(_Public):
    kind: ClassVar[str] = "game_over"
    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """A seat drew a card from a stock. Only that seat sees which card, unless it was face up
    (the Sixty-Six turn-up, taken last), which everyone saw."""

    kind: ClassVar[str] = "card_drawn"
    seat: int
    stock_left: int  # cards left in the stock after this draw
    face_up: bool = False
    card: int | None = card_field(default=None)

    def visible_to(self, viewer: Viewer) -> CardDrawn:
        if self.face_up or viewer == self.seat:
            return self
        return dataclasses.replace(self, card=None)


@dataclass(frozen=True, slots=True)
class TrumpExchanged(_Public):
    """The trump nine went under the stock in place of the turn-up, which the seat took.

    ``at_close``: the exchange offered at the opponent's close (the nine then lies face down).
    """

    kind: ClassVar[str] = "trump_exchanged"
    seat: int
    given: int = card_field()
    taken: int = card_field()
    at_close: bool = False


@dataclass(frozen=True, slots=True)
class MarriageDeclared(_Public):
    """A King and Queen of one suit shown before a lead; ``points`` is what it is worth."""

    kind: ClassVar[str] = "marriage_declared"
    seat: int
    suit: int
    points: int
    cards: tuple[int, ...] = cards_field()


@dataclass(frozen=True, slots=True)
class StockClosed(_Public):
    """The stock was closed. ``opponent_tricks``: the other seat's tricks at that moment."""

    kind: ClassVar[str] = "stock_closed"
    seat: int
    before_draw: bool
    opponent_tricks: int


@dataclass(frozen=True, slots=True)
class BidMade(_Public):
    """An auction bid (Nominations): ``contract`` ``tricks``/``misere``/``open_misere``."""

    kind: ClassVar[str] = "bid_made"
    seat: int
    contract: str
    tricks: int | None = None


@dataclass(frozen=True, slots=True)
class AuctionWon(_Public):
    """The auction is over and ``declarer`` holds the highest bid."""

    kind: ClassVar[str] = "auction_won"
    declarer: int
    contract: str
    tricks: int | None = None


@dataclass(frozen=True, slots=True)
class AllPassed(_Public):
    """Nobody bid: the deal is abandoned. ``next_deal``: ``double_hand`` or ``redeal``;
    ``multiplier`` applies to the scores of the deal that follows."""

    kind: ClassVar[str] = "all_passed"
    deal_no: int
    dealer: int
    next_deal: str
    multiplier: int


@dataclass(frozen=True, slots=True)
class PackCut:
    """``seat`` cut the pack. The depth is shown only to a cutter who chose it: with the
    stacking order known, a depth would tell others where the old hands went."""

    kind: ClassVar[str] = "pack_cut"
    seat: int
    chosen: bool
    depth: int | None = None

    def visible_to(self, viewer: Viewer) -> PackCut:
        if self.chosen and viewer == self.seat:
            return self
        return dataclasses.replace(self, depth=None)


@dataclass(frozen=True, slots=True)
class ContractDeclared(_Public):
    """Trumps (a suit, or None for no trump) and the called card, announced to all."""

    kind: ClassVar[str] = "contract_declared"
    declarer: int
    trump: int | None
    called: int = card_field()


@dataclass(frozen=True, slots=True)
class PartnerNotice:
    """Private notice to the holder of the called card (the secret partner, or the declarer
    in a solo). Every viewer receives the event, so its arrival says nothing; only the holder
    sees ``holder`` filled in."""

    kind: ClassVar[str] = "partner_notice"
    holder: int | None
    called: int = card_field()

    def visible_to(self, viewer: Viewer) -> PartnerNotice:
        return self if viewer == self.holder else dataclasses.replace(self, holder=None)


@dataclass(frozen=True, slots=True)
class PartnerRevealed(_Public):
    """The called card was played (or the deal ended): ``partner`` is public now; None when
    the declarer held the card and played alone."""

    kind: ClassVar[str] = "partner_revealed"
    declarer: int
    partner: int | None


@dataclass(frozen=True, slots=True)
class GameAbandoned(_Public):
    """The game ended with no result and no seat resigning. The rules never emit it: the
    service does, as the whole of that version (``reason``: "idle", no move for too long)."""

    kind: ClassVar[str] = "game_abandoned"
    reason: str


@dataclass(frozen=True, slots=True)
class TimedOut(_Public):
    """A seat's clock ran out. The rules never emit it: the service's clock does, first in the
    version it makes, before the events of the move it played for the seat (``auto_move``) or
    as the whole of the seat's forfeit (a resignation). A record re-plays it as the clock's."""

    kind: ClassVar[str] = "timed_out"
    seat: int
    auto_move: bool


Event = (
    DealStarted
    | CardsLaidAside
    | Called
    | SeatChosen
    | CardsExposed
    | CardPlayed
    | TrickWon
    | DealScored
    | GameOver
    | CardDrawn
    | TrumpExchanged
    | MarriageDeclared
    | StockClosed
    | BidMade
    | AuctionWon
    | AllPassed
    | PackCut
    | ContractDeclared
    | PartnerNotice
    | PartnerRevealed
    | TimedOut
    | GameAbandoned
)

EVENT_TYPES: dict[str, type[Any]] = {
    cls.kind: cls
    for cls in (
        DealStarted,
        CardsLaidAside,
        Called,
        SeatChosen,
        CardsExposed,
        CardPlayed,
        TrickWon,
        DealScored,
        GameOver,
        CardDrawn,
        TrumpExchanged,
        MarriageDeclared,
        StockClosed,
        BidMade,
        AuctionWon,
        AllPassed,
        PackCut,
        ContractDeclared,
        PartnerNotice,
        PartnerRevealed,
        TimedOut,
        GameAbandoned,
    )
}


def event_to_data(event: Event) -> dict[str, Any]:
    return to_data(event)


def event_from_data(data: Any) -> Event:
    event: Event = from_data(data, EVENT_TYPES)
    return event
