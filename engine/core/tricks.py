"""The trick rules the games share, each written once: following, beating and trumping, the order
in which a refused card's reason names them, and who wins a trick.

- **Following**: a player who holds a card of the suit led must play one.
- **Beating**: of those, a card that beats the trick, if he has one (Sixty-Six's strict endgame).
  Within a suit a card beats the cards ranked below it; across suits only a trump beats, and
  any trump beats a card of another suit (a game's :func:`beaters` table).
- **Trumping**: a player with no card of the suit led must play a trump, if he has one
  (Nominations; Sixty-Six's strict endgame).
- Otherwise any card.

A game states only what is its own: which duties apply and when, the cards of each suit (the
Ninety-Nine Joker belongs to the turn-up's suit), its strength of ranks, and the wording of its
reasons; Counterpoint's winner (the higher rank, whatever its suit) is its own too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from engine.core.cards import SUIT_MASK, SUITS, Card, Hand, describe, is_card, mask_of
from engine.core.errors import Reason
from engine.core.phases import Problem


def beaters(deck: Iterable[Card], strength: Sequence[int]) -> dict[int | None, tuple[Hand, ...]]:
    """By trump suit (None: no trump), then by card id (0..63): the cards of ``deck`` that beat
    that card, that is, take a trick from it when it is the trick's best card so far: the
    cards of its suit that ``strength`` ranks above it and, unless it is a trump, every trump.
    Who wins a trick and the duty to beat both read this one table.

    >>> from engine.core.cards import HEARTS, parse, parse_many, mask_of, deck
    >>> table = beaters(deck(range(12, 15)), [c & 15 for c in range(64)])
    >>> table[HEARTS][parse("QS")] == mask_of(parse_many("KS AS QH KH AH"))
    True
    >>> table[None][parse("QS")] == mask_of(parse_many("KS AS"))
    True
    >>> table[HEARTS][parse("QH")] == mask_of(parse_many("KH AH"))
    True
    """
    cards = tuple(deck)
    above = [
        sum(1 << d for d in cards if d >> 4 == c >> 4 and strength[d] > strength[c])
        for c in range(64)
    ]
    in_deck = mask_of(cards)
    table: dict[int | None, tuple[Hand, ...]] = {None: tuple(above)}
    for trump in SUITS:
        trumps = in_deck & SUIT_MASK[trump]
        table[trump] = tuple(a if c >> 4 == trump else a | trumps for c, a in enumerate(above))
    return table


def trick_winner(cards: Sequence[Card], beaters: Sequence[Hand]) -> int:
    """Index of the card that wins the trick ``cards`` (in play order), given what beats each
    card under this deal's trump (a row of :func:`beaters`): the highest trump if any was
    played, else the highest card of the suit led; a card of another suit never wins.

    ``cards`` are ordinary card ids: a game maps stand-ins (the Ninety-Nine Joker) to the card
    they represent first.
    """
    best = 0
    top = cards[0]
    for i in range(1, len(cards)):
        c = cards[i]
        if beaters[top] >> c & 1:
            best, top = i, c
    return best


def follow_mask(
    hand: Hand,
    led_suit: int,
    trump: int | None = None,
    beat: Hand = 0,
    suits: Sequence[Hand] = SUIT_MASK,
) -> Hand:
    """The cards of ``hand`` that may be played to a trick led in ``led_suit``, by the duties in
    order: follow (the cards of the suit led, if any), then beat (of those, the ones in
    ``beat``, if any), else trump (of suit ``trump``, if any), else any card.

    ``trump`` is None where a void player need not trump; ``beat`` holds the cards that beat the
    trick where the rules oblige beating it (0: no such duty; only those of the suit led
    count). ``suits[s]`` are the cards of suit ``s``: the printed suits unless a game says
    otherwise.
    """
    same = hand & suits[led_suit]
    if same:
        if beat:  # mostly no duty to beat; an AND of two hands (ints past 2**30) is not free
            return (same & beat) or same
        return same
    if trump is not None:
        return (hand & suits[trump]) or hand
    return hand


class Reasons(NamedTuple):
    """What a refused follower is told, by the duty he broke: a game's own wording."""

    follow: Problem
    beat: Problem
    trump: Problem


#: The usual wording; a game words its own where it differs (Sixty-Six's duty to trump).
REASONS = Reasons(
    follow=(Reason.MUST_FOLLOW_SUIT, "you must follow the suit led"),
    beat=(Reason.MUST_BEAT, "you must beat the card led if you can"),
    trump=(Reason.MUST_TRUMP, "you cannot follow suit, so you must trump"),
)


def play_refusal(
    seat: int,
    turn: int,
    hand: Hand,
    card: object,
    trick: Sequence[Card],
    *,
    suits: Sequence[Hand] = SUIT_MASK,
    reasons: Reasons = REASONS,
) -> Problem:
    """Why a card outside the playable mask (:func:`follow_mask`, or a whole hand to lead) is
    refused, in order: not this seat's turn; a card not in hand; else the first duty it breaks,
    follow, beat, trump. Asked only about such a card, so the trick has been led: a player who
    holds the suit led broke the duty to follow, or else the one to beat; a void one, to trump.
    ``suits`` are the cards of each suit as for :func:`follow_mask`; ``reasons``, the game's.
    """
    if seat != turn:
        return (Reason.NOT_YOUR_TURN, f"it is seat {turn}'s turn to play")
    if not is_card(card) or not hand >> card & 1:
        return (Reason.CARD_NOT_IN_HAND, f"{describe(card)} is not in your hand")
    led = suits[trick[0] >> 4]
    if hand & led:
        return reasons.beat if led >> card & 1 else reasons.follow
    return reasons.trump
