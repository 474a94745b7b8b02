"""A rules-aware Ninety-Nine bot: bid cards that fit the hand, then play to hit the bid exactly.

Bidding: of every legal choice of three bid cards, the one whose bid (read as the game type says) is
closest to the tricks the nine kept cards should take (a count of honours and trumps). Premium
calls are passed. Play: while tricks are still needed it wins cheaply (the lowest winning card
when last to play, a sure-looking one otherwise) and leads its best cards; once the bid is
reached it ducks (the highest card that does not win) and leads low.
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
from tricktable.legal import LegalMoves, lay_asides

GAME = "ninety-nine"
_TRUMP_HONOURS = {C.ACE: 1.0, C.KING: 0.85, C.QUEEN: 0.65, C.JACK: 0.45}


def estimate_tricks(cards: Sequence[Card], trump: int) -> float:
    """Tricks a hand should take against two others: honours by suit length, trumps, long
    suits at no trump."""
    total = 0.0
    for suit, group in C.by_suit(cards).items():
        n = len(group)
        for c in group:
            if suit == trump:
                total += _TRUMP_HONOURS.get(c.rank, 0.3)
            elif c.rank == C.ACE:
                total += 0.85
            elif c.rank == C.KING:
                total += 0.5 if n >= 2 else 0.15
            elif c.rank == C.QUEEN:
                total += 0.25 if n >= 3 else 0.05
        if suit == trump:
            total += 0.3 * max(0, n - 3)
        elif trump == C.NO_SUIT:
            total += 0.35 * max(0, n - 3)
    return total


class NinetyNineBot:
    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        if not legal:
            return None
        # A compact lay-aside is one kind, not hundreds of moves to look at.
        kinds = legal.kinds() if isinstance(legal, LegalMoves) else {kind(m) for m in legal}
        if "lay_aside" in kinds:
            return self.bid(view, legal)
        if "play_card" in kinds:
            return self.play(view, legal)
        if "choose_seat" in kinds:  # a revealer names the leader: lead ourselves
            own = [m for m in legal if m.choose_seat.seat == view.viewer]
            return own[0] if own else legal[0]
        return find_call(legal, "pass") or legal[0]

    # -- bidding -------------------------------------------------------------------------------

    def _real(self, view: View, c: Card) -> Card:
        """The Joker is the turn-up card for every purpose (classic)."""
        detail = view.ninety_nine_detail
        if c.rank == C.JOKER and detail.HasField("joker_as"):
            return detail.joker_as
        return c

    def bid(self, view: View, legal: Sequence[Move]) -> Move:
        hand = [self._real(view, c) for c in own_hand(view)]
        best: tuple[float, int] | None = None
        # Every choice is weighed by its cards; only the one chosen is built as a move.
        for index, cards in lay_asides(legal):
            aside = [self._real(view, c) for c in cards]
            bid = facts.of(GAME).bid(aside)
            kept = _without(hand, aside)
            cost = (abs(estimate_tricks(kept, view.trump) - bid), index)
            if best is None or cost < best:
                best = cost
        return legal[best[1]] if best is not None else legal[0]

    # -- play ----------------------------------------------------------------------------------

    def play(self, view: View, legal: Sequence[Move]) -> Move:
        assert view.viewer is not None
        me = view.seats[view.viewer]
        trump = view.trump
        plays = [(self._real(view, c), m) for c, m in card_plays(legal)]
        on_table = [self._real(view, c) for c in view.trick.cards]
        need = (me.bid if me.HasField("bid") else 3) - me.tricks_won
        tricks_left = me.hand_size
        strength = facts.of(GAME).strength
        if not on_table:
            if need <= 0:
                return lowest(plays, strength, trump)
            return highest(plays, strength, trump)
        winner_index = trick_winner(on_table, trump, strength)
        assert winner_index is not None
        winning = on_table[winner_index]
        winners = [p for p in plays if beats(p[0], winning, trump, strength)]
        losers = [p for p in plays if p not in winners]
        if need <= 0:
            if losers:  # duck with the highest card that still loses: it is a danger later
                return max(losers, key=lambda p: (strength(p[0]), p[0].suit != trump))[1]
            return highest(plays, strength, trump)
        if not winners:
            return lowest(plays, strength, trump)
        last_to_play = len(on_table) == len(view.seats) - 1
        if last_to_play or need >= tricks_left:
            return min(winners, key=lambda p: (p[0].suit == trump, strength(p[0])))[1]
        return highest(winners, strength, trump)


def _without(hand: Sequence[Card], removed: Sequence[Card]) -> list[Card]:
    gone = [C.key(c) for c in removed]
    kept: list[Card] = []
    for c in hand:
        k = C.key(c)
        if k in gone:
            gone.remove(k)
        else:
            kept.append(c)
    return kept
