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

The estimates, the bid, the call and the play rule are :mod:`tricktable.bots.judgement`'s, which
the expert's playouts play by too.
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
    plain_plays,
    trump_of,
)

GAME = "nominations"
MISERES = {"misere", "open_misere"}


def best_trump(hand: Sequence[Card]) -> tuple[int, float]:
    """The trump (``NO_SUIT``: no trump) under which the hand should take most, and that many."""
    trump, tricks = judgement.best_trump(by_suit_order(hand), C.SUITS)
    return (C.NO_SUIT if trump is None else trump), tricks


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
        bids = [m for m in legal if kind(m) == "bid"]
        misere = next((m for m in bids if m.bid.contract == "misere"), None)
        numbers = {m.bid.tricks: m for m in reversed(bids) if m.bid.contract == "tricks"}
        choice = judgement.nominations_bid(
            by_suit_order(own_hand(view)), C.SUITS, misere=misere is not None, numbers=numbers
        )
        if choice == "misere" and misere is not None:
            return misere
        if isinstance(choice, int):
            return numbers[choice]
        return find_call(legal, "pass") or min(bids, key=lambda m: m.bid.tricks or 99)

    def declare(self, view: View, legal: Sequence[Move]) -> Move:
        hand = own_hand(view)
        trump, _ = best_trump(hand)
        called = judgement.called_card({C.key(c) for c in hand}, trump_of(trump), C.SUITS)
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
        strength = facts.of(GAME).strength
        d = view.nominations_detail
        table = [plain(c, strength) for c in view.trick.cards]
        return judgement.nominations_play(
            plain_plays(card_plays(legal), strength),
            table,
            trump_of(view.trump),
            table_seats=view.trick.seats,
            misere=d.HasField("contract") and d.contract in MISERES,
            side=self._side(view),
            last=len(table) == len(view.seats) - 1,
        )
