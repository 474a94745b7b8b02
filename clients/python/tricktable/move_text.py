"""Moves as people read and type them: a short label for each legal move, and a parser for what a
player types at a prompt.

    describe_move(move)             # "play Q♠", "lay aside 7♣ Q♥ A♠", "bid 10", "trumps ♠, call A♥"
    parse_move("q♠", legal)         # the legal move that plays the Queen of spades

What :func:`parse_move` accepts, case-insensitive:

* the number of a legal move as listed (1 is the first of ``legal``);
* cards: ``QS``, ``Q♠``, ``10h``, ``th``, ``♠Q``, ``Jk`` (the Joker) — several of them for a move
  of several cards (``7c qh as`` lays those three aside);
* words for the other moves: ``pass``, ``declare``, ``reveal``, ``decline``, ``claim``,
  ``close``, ``draw``, ``exchange``, ``marriage hearts``, ``bid 10``, ``misere``,
  ``open misere``, ``cut 12``, ``seat 2``, and a suit (``hearts``, ``h``, ``♥``, ``nt``) with
  a card for a Nominations contract (``spades AH``, ``nt KD``).

The input is read as a set of constraints, and the answer is the one legal move that meets them
all, so ``hearts`` alone declares the heart marriage when that is the only move it can mean.
Anything else raises :class:`MoveInputError` with a message for the player; a single card that
is no legal move now raises :class:`NotLegalNow`, carrying the card play, so a caller can let
the server say why (``MUST_FOLLOW_SUIT``, ``CARD_NOT_IN_HAND``...).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias

from tricktable import cards as C
from tricktable import facts
from tricktable.legal import LegalMoves, lay_aside_move
from tricktable.v1 import cards_pb2, moves_pb2

Move = moves_pb2.Move
Card = cards_pb2.Card
Suit: TypeAlias = cards_pb2.Suit.ValueType

#: How many candidates an "ambiguous" message lists.
_SHOWN_CANDIDATES = 6

SUIT_WORDS: dict[str, Suit] = {
    **{w: C.CLUBS for w in ("c", "club", "clubs", "♣")},
    **{w: C.HEARTS for w in ("h", "heart", "hearts", "♥")},
    **{w: C.SPADES for w in ("s", "spade", "spades", "♠")},
    **{w: C.DIAMONDS for w in ("d", "diamond", "diamonds", "♦")},
    **{w: C.NO_SUIT for w in ("nt", "notrump", "notrumps", "none")},
}

_RANKS = {"t": C.TEN, "10": C.TEN, "j": C.JACK, "q": C.QUEEN, "k": C.KING, "a": C.ACE}
_RANKS.update({str(n): n for n in range(2, 10)})
_SUIT_CHARS = {"c": C.CLUBS, "h": C.HEARTS, "s": C.SPADES, "d": C.DIAMONDS}
_SUIT_CHARS.update({sym: suit for suit, sym in C.SUIT_SYMBOLS.items()})
_RANK_FIRST = re.compile(r"^(10|[2-9tjqka])([chsd♣♥♠♦])$")
_SUIT_FIRST = re.compile(r"^([♣♥♠♦])(10|[2-9tjqka])$")

# Phrases of two words, joined before the input is split, so that each is one word.
_PHRASES = (
    (re.compile(r"\bopen[\s_-]+mis[eè]re\b"), "open_misere"),
    (re.compile(r"\bmisère\b"), "misere"),
    (re.compile(r"\bno[\s_-]*trumps?\b"), "nt"),
)

#: The words that name each kind of move (besides its call, contract, cards, suit or number).
KIND_WORDS: dict[str, frozenset[str]] = {
    "play_card": frozenset({"play"}),
    "lay_aside": frozenset({"lay", "aside", "bid"}),
    "call": frozenset({"call"}),
    "choose_seat": frozenset({"choose", "name", "seat", "lead", "leader"}),
    "exchange_trump": frozenset({"exchange", "swap", "trump"}),
    "declare_marriage": frozenset({"marriage", "marry", "meld", "declare"}),
    "close_stock": frozenset({"close"}),
    "claim": frozenset({"claim", "out"}),
    "draw_cards": frozenset({"draw"}),
    "bid": frozenset({"bid"}),
    "declare_contract": frozenset({"declare", "contract", "trumps", "trump", "call"}),
    "cut": frozenset({"cut"}),
}
_KNOWN_WORDS = frozenset().union(*KIND_WORDS.values()) | {
    "pass",
    "declare",
    "reveal",
    "decline",
    "tricks",
    "misere",
    "open_misere",
}

#: Words that say nothing about which move is meant ("declare the ♥ marriage").
_FILLER = frozenset({"the", "of", "for", "to", "and", "with"})

CONTRACT_NAMES = {"misere": "misère", "open_misere": "open misère"}


class MoveInputError(ValueError):
    """What the player typed is no legal move; the message says why, for the player."""


class NotLegalNow(MoveInputError):
    """A card that is no legal move now; ``move`` plays it anyway, for the server to refuse with
    its reason."""

    def __init__(self, message: str, move: Move) -> None:
        super().__init__(message)
        self.move = move


# -- describing -------------------------------------------------------------------------------


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(C.label(c) for c in cards)


def suit_text(suit: Suit) -> str:
    return C.SUIT_SYMBOLS.get(suit, "no trump")


def contract_text(contract: str, tricks: int | None = None) -> str:
    """``"10 tricks"``, ``"misère"``, ``"open misère"``; a bare number is a number of tricks."""
    if contract == "tricks" and tricks is not None:
        return f"{tricks} tricks"
    if contract.isdigit():
        return f"{contract} tricks"
    return CONTRACT_NAMES.get(contract, contract)


def lay_aside_text(move: Move, game: str, high_readings: bool = True) -> str:
    """Bid cards with the bid they make, as the game reads them (:mod:`tricktable.facts`,
    once learnt): ``"lay aside: 6♣ 10♣ K♣ = bid 9"``, ``"lay aside: 7♦ 8♦ 9♠ = bid 10 or
    110"`` where a high reading applies; without the game's facts, the cards alone."""
    cards = move.lay_aside.cards
    shown = f"lay aside: {cards_text(cards)}"
    if not facts.known(game) or not facts.of(game).bid_suit_values:
        return shown
    f = facts.of(game)
    return f"{shown} = bid {' or '.join(map(str, f.readings(f.bid(cards), high_readings)))}"


def describe_move(move: Move) -> str:
    """A short label: ``"play Q♠"``, ``"pass"``, ``"declare the ♥ marriage"``..."""
    kind = move.WhichOneof("kind")
    if kind == "play_card":
        return f"play {C.label(move.play_card.card)}"
    if kind == "lay_aside":
        return f"lay aside {cards_text(move.lay_aside.cards)}"
    if kind == "call":
        return move.call.call
    if kind == "choose_seat":
        return f"choose seat {move.choose_seat.seat}"
    if kind == "exchange_trump":
        return "exchange the trump nine for the turn-up"
    if kind == "declare_marriage":
        return f"declare the {suit_text(move.declare_marriage.suit)} marriage"
    if kind == "close_stock":
        return "close the stock"
    if kind == "claim":
        return "claim (declare out)"
    if kind == "draw_cards":
        return "draw"
    if kind == "bid":
        tricks = move.bid.tricks if move.bid.HasField("tricks") else None
        return f"bid {contract_text(move.bid.contract, tricks)}"
    if kind == "declare_contract":
        contract = move.declare_contract
        trumps = (
            "no trump" if contract.trump == C.NO_SUIT else f"trumps {suit_text(contract.trump)}"
        )
        return f"{trumps}, call {C.label(contract.called)}"
    if kind == "cut":
        return f"cut {move.cut.depth}"
    return kind or "(empty move)"


# -- parsing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Features:
    """What a move can be called by: its words, its cards, a suit and a number."""

    words: frozenset[str]
    cards: tuple[tuple[int, int], ...]
    suit: Suit | None = None
    number: int | None = None


def _features(move: Move) -> _Features:
    kind = move.WhichOneof("kind") or ""
    words = KIND_WORDS.get(kind, frozenset())
    if kind == "play_card":
        return _Features(words, (C.key(move.play_card.card),))
    if kind == "lay_aside":
        return _Features(words, tuple(sorted(C.key(c) for c in move.lay_aside.cards)))
    if kind == "call":
        return _Features(words | {move.call.call}, ())
    if kind == "choose_seat":
        return _Features(words, (), number=move.choose_seat.seat)
    if kind == "declare_marriage":
        return _Features(words, (), suit=move.declare_marriage.suit)
    if kind == "bid":
        tricks = move.bid.tricks if move.bid.HasField("tricks") else None
        return _Features(words | {move.bid.contract}, (), number=tricks)
    if kind == "declare_contract":
        contract = move.declare_contract
        return _Features(words, (C.key(contract.called),), suit=contract.trump)
    if kind == "cut":
        return _Features(words, (), number=move.cut.depth)
    return _Features(words, ())


def parse_card(token: str) -> Card | None:
    """A card from ``QS``, ``q♠``, ``10h``, ``th``, ``♠Q``, ``jk``/``joker``; None if not one."""
    token = token.lower()
    if token in {"jk", "joker"}:
        return Card(suit=C.NO_SUIT, rank=cards_pb2.RANK_JOKER)
    found = _RANK_FIRST.match(token)
    if found:
        rank, suit = found.group(1), found.group(2)
    else:
        found = _SUIT_FIRST.match(token)
        if not found:
            return None
        suit, rank = found.group(1), found.group(2)
    return Card(suit=_SUIT_CHARS[suit], rank=_RANKS[rank])  # type: ignore[arg-type]


@dataclass
class _Wanted:
    """The constraints read from the input."""

    words: set[str]
    cards: list[Card]
    suit: Suit | None = None
    number: int | None = None

    def matches(self, f: _Features) -> bool:
        if not self.words <= f.words:
            return False
        if self.cards and tuple(sorted(C.key(c) for c in self.cards)) != f.cards:
            return False
        if self.suit is not None and self.suit != f.suit:
            return False
        return self.number is None or self.number == f.number


def _normalise(text: str) -> list[str]:
    text = text.strip().lower()
    for pattern, word in _PHRASES:
        text = pattern.sub(word, text)
    return text.replace(",", " ").split()


def _read(tokens: Sequence[str]) -> _Wanted:
    wanted = _Wanted(set(), [])
    for token in tokens:
        card = parse_card(token)
        if token in _FILLER:
            continue
        if card is not None:
            wanted.cards.append(card)
        elif token in _KNOWN_WORDS:
            wanted.words.add(token)
        elif token in SUIT_WORDS:
            if wanted.suit is not None:
                raise MoveInputError(f"{token!r}: name one suit only")
            wanted.suit = SUIT_WORDS[token]
        elif token.isdigit():
            if wanted.number is not None:
                raise MoveInputError(f"{token!r}: give one number only")
            wanted.number = int(token)
        else:
            raise MoveInputError(
                f"I don't understand {token!r}: type a move's number, a card (QS, Q♠, 10h) "
                "or a word such as pass, claim, close, draw"
            )
    return wanted


def parse_move(text: str, legal: Sequence[Move]) -> Move:
    """The legal move that ``text`` names (see the module's docstring), or
    :class:`MoveInputError` saying why there is none (or more than one)."""
    if not legal:
        raise MoveInputError("you have no move to make now")
    tokens = _normalise(text)
    if not tokens:
        raise MoveInputError("type a move: its number, a card, or a word such as pass")
    if len(tokens) == 1 and tokens[0].isdigit():
        index = int(tokens[0])
        if not 1 <= index <= len(legal):
            raise MoveInputError(f"there is no move {index}: choose 1 to {len(legal)}")
        return legal[index - 1]
    wanted = _read(tokens)
    listed = _listed(legal)
    matches = [(i, m) for i, m in enumerate(listed, start=1) if wanted.matches(_features(m))]
    chosen = _chosen(wanted, legal)
    if chosen is not None:
        matches.append(chosen)
    if len(matches) == 1:
        return matches[0][1]
    if matches:
        shown = "; ".join(f"{i}. {describe_move(m)}" for i, m in matches[:_SHOWN_CANDIDATES])
        extra = len(matches) - _SHOWN_CANDIDATES
        more = f" and {extra} more" if extra > 0 else ""
        raise MoveInputError(f"{text.strip()!r} could be {len(matches)} moves: {shown}{more}")
    is_card_play = (
        len(wanted.cards) == 1
        and not wanted.words - {"play"}
        and wanted.suit is None
        and wanted.number is None
    )
    if is_card_play and any(m.WhichOneof("kind") == "play_card" for m in listed):
        card = wanted.cards[0]
        play = Move(play_card=moves_pb2.PlayCard(card=card))
        raise NotLegalNow(f"{C.label(card)} is not a legal play now", play)
    raise MoveInputError(f"no legal move matches {text.strip()!r}")


def _listed(legal: Sequence[Move]) -> Sequence[Move]:
    """The moves listed one by one (a compact lay-aside choice's are not among them)."""
    return legal.listed if isinstance(legal, LegalMoves) else legal


def _chosen(wanted: _Wanted, legal: Sequence[Move]) -> tuple[int, Move] | None:
    """The lay-aside of a compact choice that ``wanted`` names, with its number: the typed
    cards, in the choice's order (the order the server would list them in), when they are
    ``choose`` distinct cards of it. Found without building the choice's hundreds of moves."""
    if not isinstance(legal, LegalMoves) or not legal.choice_size or not wanted.cards:
        return None
    position = {C.key(c): i for i, c in enumerate(legal.cards)}
    places = sorted({position.get(C.key(c), -1) for c in wanted.cards})
    if len(places) != len(wanted.cards) or len(places) != legal.choose or places[0] < 0:
        return None
    move = lay_aside_move([legal.cards[i] for i in places])
    if not wanted.matches(_features(move)):
        return None
    return len(legal.listed) + 1 + legal.choice_index(places), move
