"""Cards and hands as bit masks.

A card is a small int, the same in every game: ``suit * 16 + rank`` with suits in the order
♣ ♥ ♠ ♦ (0..3) and ranks 2..14 (T = 10, J = 11, Q = 12, K = 13, A = 14); the Joker is 64.
A hand is an int whose bit ``card`` is set for every card held. Each suit then occupies its own
16-bit lane, so "the cards of suit s in this hand" is a single AND with ``SUIT_MASK[s]`` and the
hot paths (legal moves, follow suit, trick winners) allocate nothing.

How strong a card is depends on the game (the Ten is high in Counterpoint and Sixty-Six), so
strength tables live in the games; this module only knows identity, suit and notation.

Notation: rank letter then suit letter, ``"AC" "TH" "9S" "6D"``, and ``"Jk"`` for the Joker.
The parser also accepts the suit symbols used in the rules specs (``"A♣"``, ``"T♥"``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final, TypeGuard

CLUBS: Final = 0
HEARTS: Final = 1
SPADES: Final = 2
DIAMONDS: Final = 3
SUITS: Final = (CLUBS, HEARTS, SPADES, DIAMONDS)

SUIT_LETTERS: Final = "CHSD"
SUIT_SYMBOLS: Final = "♣♥♠♦"
SUIT_NAMES: Final = ("clubs", "hearts", "spades", "diamonds")
RANK_LETTERS: Final = {
    2: "2",
    3: "3",
    4: "4",
    5: "5",
    6: "6",
    7: "7",
    8: "8",
    9: "9",
    10: "T",
    11: "J",
    12: "Q",
    13: "K",
    14: "A",
}
_RANK_BY_LETTER: Final = {v: k for k, v in RANK_LETTERS.items()} | {"10": 10}

JOKER: Final = 64
JOKER_BIT: Final = 1 << JOKER
SUIT_MASK: Final = tuple(0xFFFF << (16 * s) for s in SUITS)

Card = int
Hand = int


def card(rank: int, suit: int) -> Card:
    return suit * 16 + rank


def suit_of(c: Card) -> int:
    """The printed suit (the Joker has none: -1)."""
    return -1 if c == JOKER else c >> 4


def rank_of(c: Card) -> int:
    return 0 if c == JOKER else c & 15


def name(c: Card) -> str:
    if c == JOKER:
        return "Jk"
    return RANK_LETTERS[c & 15] + SUIT_LETTERS[c >> 4]


def symbol(c: Card) -> str:
    """The spec's notation (``A♣``), for humans."""
    if c == JOKER:
        return "Jk"
    return RANK_LETTERS[c & 15] + SUIT_SYMBOLS[c >> 4]


def parse(text: str) -> Card:
    """Parse ``"AC"``, ``"A♣"``, ``"10H"`` or ``"Jk"``; raise ValueError naming the text."""
    t = text.strip()
    if t.lower() in {"jk", "joker"}:
        return JOKER
    if len(t) < 2:
        raise ValueError(f"not a card: {text!r}")
    rank_text, suit_text = t[:-1].upper(), t[-1]
    rank = _RANK_BY_LETTER.get(rank_text)
    suit = SUIT_LETTERS.find(suit_text.upper()) if suit_text.isascii() else -1
    if suit < 0:
        suit = SUIT_SYMBOLS.find(suit_text)
    if rank is None or suit < 0:
        raise ValueError(f"not a card: {text!r}")
    return card(rank, suit)


def is_card(c: object) -> TypeGuard[int]:
    """Whether ``c`` is the id of a real card (any game's): a suit lane with rank 2..14, or
    the Joker. Ids such as 0 or 15 are gaps in the encoding, not cards."""
    return type(c) is int and (c == JOKER or (0 <= c < JOKER and 2 <= c & 15 <= 14))


def describe(c: object) -> str:
    """A card's name for messages, or the repr of whatever was passed instead of a card."""
    return name(c) if is_card(c) else repr(c)


def parse_many(text: str) -> list[Card]:
    return [parse(part) for part in text.split()]


def bit(c: Card) -> Hand:
    return 1 << c


def mask_of(cards: Iterable[Card]) -> Hand:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


class _Lane(dict[int, tuple[Card, ...]]):
    """The cards of one suit's 16-bit lane, by the lane's bits, remembered as they are met:
    hands and tricks are read on every move, and a lane has at most 2**13 values (ranks
    2..14), so a lookup replaces a walk over the bits."""

    __slots__ = ("suit",)

    def __init__(self, suit: int) -> None:
        super().__init__({0: ()})
        self.suit = suit

    def __missing__(self, bits: int) -> tuple[Card, ...]:
        # The lowest card, then the lane without it (met before, or worked out the same way):
        # a lane first met costs a step per card instead of a walk over all 16 bits.
        low = bits & -bits
        cards = self[bits] = (self.suit * 16 + low.bit_length() - 1, *self[bits ^ low])
        return cards


_CLUBS_LANE, _HEARTS_LANE, _SPADES_LANE, _DIAMONDS_LANE = (_Lane(s) for s in SUITS)


def cards_of(mask: Hand) -> list[Card]:
    """The cards of a mask in ascending id order (suit by suit, low rank first)."""
    out = [
        *_CLUBS_LANE[mask & 0xFFFF],
        *_HEARTS_LANE[mask >> 16 & 0xFFFF],
        *_SPADES_LANE[mask >> 32 & 0xFFFF],
        *_DIAMONDS_LANE[mask >> 48 & 0xFFFF],
    ]
    if mask >> JOKER:
        out.append(JOKER)
    return out


def iter_cards(mask: Hand) -> Iterator[Card]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def count(mask: Hand) -> int:
    return mask.bit_count()


def deck(ranks: Iterable[int], joker: bool = False) -> tuple[Card, ...]:
    """A pack in canonical order: suits ♣ ♥ ♠ ♦, ranks ascending, then the Joker."""
    rs = sorted(ranks)
    cards = tuple(card(r, s) for s in SUITS for r in rs)
    return (*cards, JOKER) if joker else cards
