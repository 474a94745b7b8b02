"""The shared trick rules (engine/core/tricks.py): following, beating, trumping, the order a
refusal names them in, and who wins a trick, each checked against the rules as the specs word
them (shared/rules: Ninety-Nine §6, Nominations §6.2-6.3, Sixty-Six §4.1-4.2)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from engine.core import cards as C
from engine.core.errors import Reason
from engine.core.tricks import REASONS, beaters, follow_mask, play_refusal, trick_winner
from tests.engine.helpers import cards, hand

_NATURAL = tuple(c & 15 for c in range(64))  # A high: Ninety-Nine, Nominations
_DECK_52 = C.deck(range(2, 15))
_BEATERS_52 = beaters(_DECK_52, _NATURAL)
# Sixty-Six's order A > T > K > Q > J > 9: the Ten between Ace and King.
_TEN_HIGH = tuple({14: 6, 10: 5, 13: 4, 12: 3, 11: 2, 9: 1}.get(c & 15, 0) for c in range(64))
_DECK_24 = C.deck(range(9, 15))
_BEATERS_24 = beaters(_DECK_24, _TEN_HIGH)
_NO_TRUMP = None


def test_a_card_is_beaten_by_the_stronger_cards_of_its_suit_and_by_trumps() -> None:
    no_trump, hearts = _BEATERS_24[_NO_TRUMP], _BEATERS_24[C.HEARTS]
    assert no_trump[C.parse("KS")] == hand("TS AS")
    assert no_trump[C.parse("TS")] == hand("AS")
    assert no_trump[C.parse("AS")] == 0
    assert hearts[C.parse("AS")] == hand("9H JH QH KH TH AH")
    assert hearts[C.parse("9H")] == hand("JH QH KH TH AH")  # a trump: only higher trumps
    spades = C.mask_of(_DECK_52) & C.SUIT_MASK[C.SPADES]
    assert _BEATERS_52[C.SPADES][C.parse("9H")] == hand("TH JH QH KH AH") | spades
    for trump, c in itertools.product([*C.SUITS, _NO_TRUMP], _DECK_24):
        assert _BEATERS_24[trump][c] & ~C.mask_of(_DECK_24) == 0  # never a card outside the deck


def _spec_winner(trick: list[int], strength: tuple[int, ...], trump: int | None) -> int:
    """NN §6 / Nominations §6.3: the highest trump if any was played, else the highest card of
    the suit led; a card of another suit never wins."""
    trumps = [i for i, c in enumerate(trick) if c >> 4 == trump]
    contenders = trumps or [i for i, c in enumerate(trick) if c >> 4 == trick[0] >> 4]
    return max(contenders, key=lambda i: strength[trick[i]])


@given(
    st.lists(st.sampled_from(_DECK_52), min_size=2, max_size=4, unique=True),
    st.sampled_from([*C.SUITS, _NO_TRUMP]),
)
def test_the_highest_trump_else_the_highest_card_of_the_suit_led_wins(
    trick: list[int], trump: int | None
) -> None:
    assert trick_winner(trick, _BEATERS_52[trump]) == _spec_winner(trick, _NATURAL, trump)


@pytest.mark.parametrize(
    ("trick", "trump", "winner"),
    [
        ("9S AH KS", C.CLUBS, 2),  # an off-suit ace never wins
        ("9S AH 6C", C.CLUBS, 2),  # a trump takes the trick
        ("9S 7C 6C", C.CLUBS, 1),  # the higher of two trumps
        ("6C AS KS", C.CLUBS, 0),  # a trump lead holds against higher plain cards
        ("9S AS TS", _NO_TRUMP, 1),
    ],
)
def test_trick_winners(trick: str, trump: int | None, winner: int) -> None:
    assert trick_winner(cards(trick), _BEATERS_52[trump]) == winner


def test_two_cards_go_as_sixty_six_says() -> None:
    """Sixty-Six §4.1 for every pair of cards and every trump suit: the same suit goes to the
    higher rank; a trump on a non-trump lead wins; anything else goes to the leader."""
    for trump, (lead, follow) in itertools.product(C.SUITS, itertools.permutations(_DECK_24, 2)):
        if lead >> 4 == follow >> 4:
            leader_wins = _TEN_HIGH[lead] > _TEN_HIGH[follow]
        else:
            leader_wins = follow >> 4 != trump
        assert (trick_winner((lead, follow), _BEATERS_24[trump]) == 0) is leader_wins


@pytest.mark.parametrize(
    ("held", "lead", "trump", "must_beat", "allowed"),
    [
        # following alone (Ninety-Nine, Counterpoint, Sixty-Six's follow_suit)
        ("KS 9H AD", "AS", _NO_TRUMP, False, "KS"),
        ("9H AD TD", "AS", _NO_TRUMP, False, "9H AD TD"),
        # and trumping when void (Nominations)
        ("9H AD TD", "AS", C.HEARTS, False, "9H"),
        ("QC AD TS", "JH", C.HEARTS, False, "QC AD TS"),  # void, and no trump held
        ("KS 9H", "AS", C.HEARTS, False, "KS"),  # following comes before trumping
        # and beating first (Sixty-Six's strict endgame)
        ("KS 9S 9H", "QS", C.HEARTS, True, "KS"),
        ("9S JS AD", "QS", C.HEARTS, True, "9S JS"),  # none beats the Q: any of the suit
        ("9H AH AS", "QH", C.HEARTS, True, "AH"),  # a trump lead: a higher trump
    ],
)
def test_follow_then_beat_else_trump(
    held: str, lead: str, trump: int | None, must_beat: bool, allowed: str
) -> None:
    led = C.parse(lead)
    beat = _BEATERS_24[trump][led] if must_beat else 0
    assert follow_mask(hand(held), led >> 4, trump, beat) == hand(allowed)


def _joker_in_hearts() -> tuple[int, ...]:
    """The suits of a classic Ninety-Nine deal with a heart turned up (§3.2)."""
    lanes = tuple(m | C.JOKER_BIT if s == C.HEARTS else m for s, m in enumerate(C.SUIT_MASK))
    return (*lanes, lanes[C.HEARTS])


def test_a_game_may_say_which_cards_belong_to_a_suit() -> None:
    """Ninety-Nine's Joker belongs to the turn-up's suit: it follows it, and led, leads it."""
    suits = _joker_in_hearts()
    held = hand("Jk QD")
    assert follow_mask(held, C.HEARTS, None, 0, suits) == hand("Jk")
    assert follow_mask(held, C.SPADES, None, 0, suits) == held
    assert follow_mask(hand("6H QD"), C.JOKER >> 4, None, 0, suits) == hand("6H")
    problem = play_refusal(1, 1, held, C.parse("QD"), cards("AH"), suits=suits)
    assert problem[0] is Reason.MUST_FOLLOW_SUIT


def test_a_refusal_names_the_turn_then_the_hand_then_the_first_duty_broken() -> None:
    held, trick = hand("KS 9H AD"), cards("QS")
    assert play_refusal(0, 1, held, C.parse("AC"), trick) == (
        Reason.NOT_YOUR_TURN,
        "it is seat 1's turn to play",
    )
    assert play_refusal(1, 1, held, C.parse("AC"), trick)[0] is Reason.CARD_NOT_IN_HAND
    assert play_refusal(1, 1, held, 15, trick) == (
        Reason.CARD_NOT_IN_HAND,
        "15 is not in your hand",
    )
    assert play_refusal(1, 1, held, "AD", trick)[0] is Reason.CARD_NOT_IN_HAND
    assert play_refusal(1, 1, held, C.parse("AD"), trick) == REASONS.follow
    assert play_refusal(1, 1, hand("9S KS AD"), C.parse("9S"), trick) == REASONS.beat
    assert play_refusal(1, 1, hand("9H AD"), C.parse("AD"), trick) == REASONS.trump


def test_each_game_words_its_own_reasons() -> None:
    own = REASONS._replace(
        trump=(Reason.MUST_TRUMP, "with no card of the suit led, you must trump")
    )
    problem = play_refusal(0, 0, hand("9H AD"), C.parse("AD"), cards("QS"), reasons=own)
    assert problem == own.trump
    assert problem[0] is Reason.MUST_TRUMP


@given(
    st.sets(st.sampled_from(_DECK_24), min_size=1, max_size=8),
    st.sampled_from(_DECK_24),
    st.sampled_from([*C.SUITS, _NO_TRUMP]),
    st.booleans(),
)
def test_every_card_refused_breaks_the_duty_its_refusal_names(
    held_cards: set[int], lead: int, trump: int | None, must_beat: bool
) -> None:
    """For any hand, lead and duties: a held card outside ``follow_mask`` is refused for the
    first duty (in the order follow, beat, trump) that playing it would break."""
    held_cards.discard(lead)
    assume(held_cards)
    held = C.mask_of(held_cards)
    led_suit = C.SUIT_MASK[lead >> 4]
    beat = _BEATERS_24[trump][lead] if must_beat else 0
    allowed = follow_mask(held, lead >> 4, trump, beat)
    assert allowed and allowed & ~held == 0
    for c in held_cards:
        if allowed >> c & 1:
            continue
        reason = play_refusal(0, 0, held, c, (lead,))
        if held & led_suit and not led_suit >> c & 1:
            assert reason == REASONS.follow
        elif held & led_suit:
            assert must_beat and held & led_suit & beat and not beat >> c & 1
            assert reason == REASONS.beat
        else:
            assert trump is not None and held & C.SUIT_MASK[trump] and c >> 4 != trump
            assert reason == REASONS.trump
