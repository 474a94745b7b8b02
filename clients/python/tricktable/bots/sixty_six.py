"""A rules-aware Sixty-Six bot.

* It keeps its own count: the card points of each trick it wins (it is always the next to act
  after winning one, so it sees that trick) plus its marriages once they count, plus the last
  trick's 10. It claims only when that count reaches 66, and otherwise lets the chance pass.
* It exchanges the trump nine whenever it may, declares every marriage (trumps first) and
  leads from it, always draws, and never closes.
* While the stock is open it leads a cheap card (not a trump, not half of a marriage), takes a
  trick when that brings in ten points or more (same suit, or a low trump on an Ace or Ten), and
  otherwise throws its cheapest card. Once the stock is gone it wins as cheaply as it can and
  leads its highest trumps and Aces.
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
    find,
    find_call,
    own_hand,
    trick_winner,
)

CLAIM_AT = 66
LAST_TRICK_BONUS = 10


class SixtySixBot:
    def __init__(self) -> None:
        # (deal number, tricks played when it was won) → card points, for each trick this seat
        # won: a trick is on view only until the next lead, so the count is kept here.
        self.won: dict[tuple[int, int], int] = {}

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        self._remember_last_trick(view)
        if not legal:
            return None
        kinds = {kind(m) for m in legal}
        if "claim" in kinds and self.count(view) >= CLAIM_AT:
            return find(legal, "claim")
        if "exchange_trump" in kinds:
            return find(legal, "exchange_trump")
        if "declare_marriage" in kinds:
            marriages = [m for m in legal if kind(m) == "declare_marriage"]
            return max(marriages, key=lambda m: m.declare_marriage.suit == view.trump)
        if "draw_cards" in kinds:
            return find(legal, "draw_cards")
        plays = card_plays(legal)
        if plays:
            return self.play(view, plays)
        # the end window without 66, or a close offering the exchange we cannot make
        return find_call(legal, "pass") or find_call(legal, "decline")

    # -- the count -------------------------------------------------------------------------------

    def _remember_last_trick(self, view: View) -> None:
        f = facts.of(view.game)
        if view.viewer is None or not view.tricks:
            return
        last = view.tricks[-1]
        if last.HasField("winner") and last.winner == view.viewer:
            played = sum(s.tricks_won for s in view.seats)
            self.won[(view.deal_no, played)] = sum(f.points(c) for c in last.cards)

    def count(self, view: View) -> int:
        """This seat's count as far as it saw it (never more than the truth)."""
        assert view.viewer is not None
        self._remember_last_trick(view)
        me = view.viewer
        detail = view.sixty_six_detail
        total = sum(p for (deal, _), p in self.won.items() if deal == view.deal_no)
        if view.seats[me].tricks_won:
            total += sum(m.points for m in detail.marriages if m.seat == me)
        everything_played = all(s.hand_size == 0 for s in view.seats)
        if everything_played and detail.stock_state != "closed" and view.tricks:
            last = view.tricks[-1]
            if last.HasField("winner") and last.winner == me:
                total += LAST_TRICK_BONUS
        return total

    # -- play ------------------------------------------------------------------------------------

    def play(self, view: View, plays: Sequence[tuple[Card, Move]]) -> Move:
        f = facts.of(view.game)
        trump = view.trump
        hand = own_hand(view)
        held = {C.key(c) for c in hand}
        married = {
            (c.suit, c.rank)
            for c in hand
            if c.rank in (C.KING, C.QUEEN)
            and (c.suit, C.QUEEN if c.rank == C.KING else C.KING) in held
        }

        def cheap(cm: tuple[Card, Move]) -> tuple[bool, bool, int, int]:
            c = cm[0]
            return (c.suit == trump, C.key(c) in married, f.points(c), f.strength(c))

        open_stock = view.sixty_six_detail.stock_state == "open"
        on_table = list(view.trick.cards)
        if not on_table:
            if view.sixty_six_detail.marriage_suit != C.NO_SUIT:
                return min(plays, key=lambda cm: cm[0].rank)[1]  # the Queen, keeping the King
            if open_stock:
                return min(plays, key=cheap)[1]
            return max(
                plays,
                key=lambda cm: (
                    cm[0].suit == trump and cm[0].rank in (C.ACE, C.TEN),
                    cm[0].rank == C.ACE,
                    cm[0].suit == trump,
                    f.strength(cm[0]),
                ),
            )[1]
        lead = on_table[0]
        winner = trick_winner(on_table, trump, f.strength)
        assert winner is not None
        winning = on_table[winner]
        winners = [cm for cm in plays if beats(cm[0], winning, trump, f.strength)]
        if not open_stock:
            if winners:
                return min(winners, key=cheap)[1]
            return min(plays, key=cheap)[1]
        same_suit = [cm for cm in winners if cm[0].suit == lead.suit]
        rich = [cm for cm in same_suit if f.points(lead) + f.points(cm[0]) >= 10]
        if rich:
            return min(rich, key=lambda cm: f.strength(cm[0]))[1]
        trumps = [cm for cm in winners if cm[0].suit == trump and lead.suit != trump]
        if trumps and f.points(lead) >= 10:
            return min(trumps, key=cheap)[1]
        return min(plays, key=cheap)[1]
