"""A rules-aware Nominations bot.

* Auction: it counts the tricks its hand should take with its best trump suit (honours by suit
  length, trump length), adds what a called partner usually brings, and bids the lowest number
  it can afford, or passes. It bids misère with a hand that has a low card under every high one.
* Contract: trumps are that best suit; the called card is the highest trump it lacks (else a
  missing Ace), so the partner brings a sure trick.
* Play in a number contract: it does not overtake a known side-mate who is winning, wins as
  cheaply as it can when last to play and with its best card otherwise, throws its cheapest card
  when it cannot win, cashes Aces and draws trumps when leading. Against (or in) a misère it
  ducks: the highest card that does not win, low leads.
"""

from __future__ import annotations

from collections.abc import Sequence

from tricktable import cards as C
from tricktable import facts
from tricktable.bots.base import Move, View, kind
from tricktable.bots.tricks import (
    Card,
    beats,
    card_plays,
    find_call,
    highest,
    lowest,
    own_hand,
    trick_winner,
)

#: What a partner holding the called card usually adds to the declarer's tricks.
PARTNER_TRICKS = 3.0
GAME = "nominations"
MISERES = {"misere", "open_misere"}


def hand_tricks(hand: Sequence[Card], trump: int) -> float:
    total = 0.0
    for suit, group in C.by_suit(hand).items():
        n = len(group)
        for c in group:
            if c.rank == C.ACE:
                total += 1.0
            elif c.rank == C.KING:
                total += 0.7 if n >= 2 else 0.3
            elif c.rank == C.QUEEN:
                total += 0.4 if n >= 3 else 0.1
        if suit == trump:
            total += 0.9 * max(0, n - 3)
        elif trump == C.NO_SUIT:
            total += 0.4 * max(0, n - 4)
    return total


def misere_danger(hand: Sequence[Card]) -> int:
    """Cards that may be forced to win a trick: in each suit, a card is safe while enough lower
    cards of its own suit are held to play under the others (2 safe alone, 5 with one lower...)."""
    danger = 0
    for group in C.by_suit(hand).values():
        for lower, c in enumerate(sorted(group, key=lambda x: x.rank)):
            if c.rank > 6 + 3 * lower:
                danger += 1
    return danger


def best_trump(hand: Sequence[Card]) -> tuple[int, float]:
    options = [(suit, hand_tricks(hand, suit)) for suit in (*C.SUITS, C.NO_SUIT)]
    return max(options, key=lambda o: (o[1], o[0] != C.NO_SUIT))


class NominationsBot:
    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        if not legal:
            return None
        kinds = {kind(m) for m in legal}
        if "play_card" in kinds:
            return self.play(view, legal)
        if "declare_contract" in kinds:
            return self.declare(view, legal)
        if "bid" in kinds:
            return self.bid(view, legal)
        return find_call(legal, "pass") or legal[0]

    def bid(self, view: View, legal: Sequence[Move]) -> Move:
        hand = own_hand(view)
        misere = next((m for m in legal if kind(m) == "bid" and m.bid.contract == "misere"), None)
        if misere is not None and misere_danger(hand) == 0:
            return misere
        _, mine = best_trump(hand)
        affordable = int(mine + PARTNER_TRICKS)
        numbers = [
            m
            for m in legal
            if kind(m) == "bid" and m.bid.contract == "tricks" and m.bid.tricks <= affordable
        ]
        if numbers:
            return min(numbers, key=lambda m: m.bid.tricks)
        return find_call(legal, "pass") or min(
            (m for m in legal if kind(m) == "bid"), key=lambda m: m.bid.tricks or 99
        )

    def declare(self, view: View, legal: Sequence[Move]) -> Move:
        hand = own_hand(view)
        trump, _ = best_trump(hand)
        held = {C.key(c) for c in hand}
        wanted: list[tuple[int, int]] = []
        if trump != C.NO_SUIT:
            wanted += [(trump, r) for r in range(C.ACE, 1, -1)]
        wanted += [(s, C.ACE) for s in C.SUITS] + [(s, C.KING) for s in C.SUITS]
        called = next((w for w in wanted if w not in held), None)
        for move in legal:
            if kind(move) != "declare_contract":
                continue
            d = move.declare_contract
            if d.trump == trump and (called is None or C.key(d.called) == called):
                return move
        return next(m for m in legal if kind(m) == "declare_contract")

    # -- play ----------------------------------------------------------------------------------

    def _side(self, view: View) -> set[int]:
        """The seats known to play on this seat's side (itself included)."""
        d = view.nominations_detail
        me = view.viewer
        assert me is not None
        side = {me}
        if not d.HasField("declarer"):
            return side
        team = {d.declarer}
        if d.HasField("partner"):
            team.add(d.partner)
        elif d.partner_status == "you_are_partner":
            team.add(me)
        if me in team:
            return team
        if d.HasField("partner") or d.partner_status == "solo":
            return set(range(len(view.seats))) - team
        return side

    def play(self, view: View, legal: Sequence[Move]) -> Move:
        trump = view.trump
        strength = facts.of(GAME).strength
        plays = card_plays(legal)
        d = view.nominations_detail
        on_table = list(view.trick.cards)
        misere = d.HasField("contract") and d.contract in MISERES
        if misere:
            if not on_table:
                return lowest(plays, strength, trump)
            index = trick_winner(on_table, trump, strength)
            assert index is not None
            losers = [cm for cm in plays if not beats(cm[0], on_table[index], trump, strength)]
            if losers:
                return max(losers, key=lambda cm: strength(cm[0]))[1]
            return lowest(plays, strength, trump)
        if not on_table:
            aces = [cm for cm in plays if cm[0].rank == C.ACE and cm[0].suit != trump]
            if aces:
                return aces[0][1]
            mine = [cm for cm in plays if cm[0].suit == trump]
            if trump != C.NO_SUIT and len(mine) >= 3:
                return highest(mine, strength, trump)
            return lowest(plays, strength, trump)
        index = trick_winner(on_table, trump, strength)
        assert index is not None
        winning_seat = view.trick.seats[index]
        winning = on_table[index]
        last_to_play = len(on_table) == len(view.seats) - 1
        if winning_seat in self._side(view) and (last_to_play or winning.rank >= C.KING):
            return lowest(plays, strength, trump)
        winners = [cm for cm in plays if beats(cm[0], winning, trump, strength)]
        if not winners:
            return lowest(plays, strength, trump)
        if last_to_play:
            return min(winners, key=lambda cm: (cm[0].suit == trump, strength(cm[0])))[1]
        return highest(winners, strength, trump)
