"""The moves of every game, one small frozen dataclass per kind.

Moves are shared across games where the act is the same (playing a card, laying cards aside),
so the protocol has one ``Move`` message with one case per kind. A game says which kinds it
accepts; anything else is rejected as ``MOVE_NOT_ALLOWED``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.core.codec import from_data, to_data
from engine.core.fields import card_field, cards_field, named_card_field


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play a card to the current trick."""

    kind: ClassVar[str] = "play_card"
    card: int = card_field()


@dataclass(frozen=True, slots=True)
class LayAside:
    """Lay cards aside face down (Ninety-Nine and Counterpoint bid cards). Cards are sorted."""

    kind: ClassVar[str] = "lay_aside"
    cards: tuple[int, ...] = cards_field()

    @classmethod
    def of(cls, cards: Iterable[int]) -> LayAside:
        """The canonical form (ascending cards), as ``legal_moves`` lists it."""
        return cls(tuple(sorted(cards)))


@dataclass(frozen=True, slots=True)
class Call:
    """A spoken call: a premium call (``pass``, ``declare``, ``reveal``) and the like."""

    kind: ClassVar[str] = "call"
    call: str


@dataclass(frozen=True, slots=True)
class ChooseSeat:
    """Name a seat (a Ninety-Nine revealer names who leads the first trick)."""

    kind: ClassVar[str] = "choose_seat"
    seat: int


@dataclass(frozen=True, slots=True)
class ExchangeTrump:
    """Swap the trump nine in hand for the turn-up under the stock (Sixty-Six).

    The seat is the mover; the cards are implied (the nine of trumps and the current turn-up),
    so a bot only asks "is it legal now?". Also the answer "exchange" at the opponent's close.
    """

    kind: ClassVar[str] = "exchange_trump"


@dataclass(frozen=True, slots=True)
class DeclareMarriage:
    """Show the King and Queen of ``suit`` before leading (Sixty-Six: 20, or 40 in trumps).

    A move of its own, not a field of the lead, because the declarer may claim right after it
    without leading; the lead that follows must then be one of the two cards.
    """

    kind: ClassVar[str] = "declare_marriage"
    suit: int


@dataclass(frozen=True, slots=True)
class CloseStock:
    """Close the stock (Sixty-Six): no more drawing; strict end-game play from now on."""

    kind: ClassVar[str] = "close_stock"


@dataclass(frozen=True, slots=True)
class Claim:
    """Declare out: "I have enough" (Sixty-Six: 66 card points). The engine checks and scores."""

    kind: ClassVar[str] = "claim"


@dataclass(frozen=True, slots=True)
class DrawCards:
    """Draw from the stock after a trick (Sixty-Six: the winner draws first, then the loser)."""

    kind: ClassVar[str] = "draw_cards"


@dataclass(frozen=True, slots=True)
class Bid:
    """An auction bid (Nominations): ``tricks`` to win, or a named contract.

    ``contract`` is ``"tricks"`` (with ``tricks`` = the number), ``"misere"`` or
    ``"open_misere"`` (``tricks`` None). Passing is ``Call("pass")``.
    """

    kind: ClassVar[str] = "bid"
    contract: str
    tricks: int | None = None


@dataclass(frozen=True, slots=True)
class DeclareContract:
    """The auction winner names trumps (a suit, or None for no trump) and calls a card whose
    holder becomes his secret partner (Nominations)."""

    kind: ClassVar[str] = "declare_contract"
    trump: int | None
    called: int = named_card_field()


@dataclass(frozen=True, slots=True)
class Cut:
    """Cut the pack: the top ``depth`` cards go under the rest (Nominations double hand)."""

    kind: ClassVar[str] = "cut"
    depth: int


Move = (
    PlayCard
    | LayAside
    | Call
    | ChooseSeat
    | ExchangeTrump
    | DeclareMarriage
    | CloseStock
    | Claim
    | DrawCards
    | Bid
    | DeclareContract
    | Cut
)

MOVE_TYPES: dict[str, type[Any]] = {
    cls.kind: cls
    for cls in (
        PlayCard,
        LayAside,
        Call,
        ChooseSeat,
        ExchangeTrump,
        DeclareMarriage,
        CloseStock,
        Claim,
        DrawCards,
        Bid,
        DeclareContract,
        Cut,
    )
}


# Moves are immutable, so the card plays are built once and shared: listing legal plays in the
# hot path then allocates nothing but the list.
_PLAYS: tuple[PlayCard, ...] = tuple(PlayCard(c) for c in range(65))


class _PlayLane(dict[int, tuple[PlayCard, ...]]):
    """The plays of one suit's 16-bit lane of a hand, by the lane's bits, remembered as they
    are met (at most 2**13 values): a hand's plays are then four lookups, not a bit walk."""

    __slots__ = ("suit",)

    def __init__(self, suit: int) -> None:
        super().__init__({0: ()})
        self.suit = suit

    def __missing__(self, bits: int) -> tuple[PlayCard, ...]:
        # As cards' lanes: the lowest card's play, then the lane without it.
        low = bits & -bits
        plays = self[bits] = (_PLAYS[self.suit * 16 + low.bit_length() - 1], *self[bits ^ low])
        return plays


_LANE0, _LANE1, _LANE2, _LANE3 = (_PlayLane(suit) for suit in range(4))


def plays_of(playable: Callable[[Any, int], int]) -> Callable[[Any, int], Sequence[PlayCard]]:
    """The legal card plays of a seat, from the rule ``playable(s, seat)`` that gives the mask
    of the cards it may play now: a ``PlayCard`` for every card of the mask, in ascending card
    order (empty when the mask is). One function from the rule to the plays: a seat's plays
    are listed on every move, and a call between the mask and its plays would cost as much as
    the lookups."""

    def legal(s: Any, seat: int) -> Sequence[PlayCard]:
        mask = playable(s, seat)
        if not mask:
            return ()
        plays = [
            *_LANE0[mask & 0xFFFF],
            *_LANE1[mask >> 16 & 0xFFFF],
            *_LANE2[mask >> 32 & 0xFFFF],
            *_LANE3[mask >> 48 & 0xFFFF],
        ]
        if mask >> 64:  # the Joker
            plays.append(_PLAYS[64])
        return plays

    return legal


def move_to_data(move: Move) -> dict[str, Any]:
    return to_data(move)


def move_from_data(data: Any) -> Move:
    move: Move = from_data(data, MOVE_TYPES)
    return move
