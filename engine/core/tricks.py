"""Trick helpers shared by the games that use ordinary follow-suit trick rules."""

from __future__ import annotations

from collections.abc import Sequence

from engine.core.cards import SUIT_MASK, Hand, describe, is_card
from engine.core.errors import Reason
from engine.core.phases import Problem


def follow_mask(hand: Hand, led_suit: int) -> Hand:
    """The cards a player may play to a trick led in ``led_suit``: that suit if held, else any."""
    same = hand & SUIT_MASK[led_suit]
    return same or hand


def standard_winner(cards: Sequence[int], strength: Sequence[int], trump: int | None) -> int:
    """Index of the winning card: the highest trump if any, else the highest of the suit led.

    ``cards`` are ordinary card ids in play order (a game maps stand-ins such as the Ninety-Nine
    Joker to the card they represent first); ``strength`` orders ranks within a suit.
    """
    led = cards[0] >> 4
    best = 0
    best_suit = led
    best_strength = strength[cards[0]]
    for i in range(1, len(cards)):
        c = cards[i]
        s = c >> 4
        if s == best_suit:
            if strength[c] > best_strength:
                best, best_strength = i, strength[c]
        elif s == trump:
            best, best_suit, best_strength = i, s, strength[c]
    return best


def play_refusal(seat: int, turn: int, hand: Hand, card: object) -> Problem:
    """Why a card outside the playable mask is refused, in order: not this seat's turn, a card
    not in hand, else the duty to follow suit. Games whose rules add other duties (trumping,
    beating) name those themselves."""
    if seat != turn:
        return (Reason.NOT_YOUR_TURN, f"it is seat {turn}'s turn to play")
    if not is_card(card) or not hand >> card & 1:
        return (Reason.CARD_NOT_IN_HAND, f"{describe(card)} is not in your hand")
    return _MUST_FOLLOW


_MUST_FOLLOW: Problem = (Reason.MUST_FOLLOW_SUIT, "you must follow the suit led")
