"""A rules-aware Ninety-Nine bot: bid cards that fit the hand, then play to hit the bid exactly.

Bidding: of every legal choice of three bid cards, the one whose bid (read as the game type says) is
closest to the tricks the nine kept cards should take (a count of honours and trumps). Premium
calls are passed. Play: while tricks are still needed it wins cheaply (the lowest winning card
when last to play, a sure-looking one otherwise) and leads its best cards; once the bid is
reached it ducks (the highest card that does not win) and leads low. The estimate and the play
rule are :mod:`tricktable.bots.judgement`'s, which the expert's playouts play by too.
"""

from __future__ import annotations

from collections.abc import Sequence

from tricktable import cards as C
from tricktable import facts
from tricktable.bots import judgement
from tricktable.bots.base import Move, View, kind
from tricktable.bots.tricks import (
    Card,
    by_suit_order,
    card_plays,
    find_call,
    own_hand,
    plain,
    trump_of,
)
from tricktable.legal import LegalMoves, lay_asides

GAME = "ninety-nine"


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
        trump = trump_of(view.trump)
        best: tuple[float, int] | None = None
        # Every choice is weighed by its cards; only the one chosen is built as a move.
        for index, cards in lay_asides(legal):
            aside = [self._real(view, c) for c in cards]
            bid = facts.of(GAME).bid(aside)
            kept = _without(hand, aside)
            cost = (judgement.ninety_nine_bid_gap(by_suit_order(kept), trump, bid), index)
            if best is None or cost < best:
                best = cost
        return legal[best[1]] if best is not None else legal[0]

    # -- play ----------------------------------------------------------------------------------

    def play(self, view: View, legal: Sequence[Move]) -> Move:
        assert view.viewer is not None
        me = view.seats[view.viewer]
        strength = facts.of(GAME).strength
        plays = [(plain(self._real(view, c), strength), m) for c, m in card_plays(legal)]
        table = [plain(self._real(view, c), strength) for c in view.trick.cards]
        return judgement.ninety_nine_play(
            plays,
            table,
            trump_of(view.trump),
            need=(me.bid if me.HasField("bid") else 3) - me.tricks_won,
            tricks_left=me.hand_size,
            last=len(table) == len(view.seats) - 1,
        )


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
