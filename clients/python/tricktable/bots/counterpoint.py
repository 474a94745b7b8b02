"""A rules-aware Counterpoint bot: bid near the card-points the hand should take, then steer.

The bot values each card by the chance it wins its trick (the Ace always wins when led, a
Seven never does) times the points it would bring in (its own and an average card of the
opponent's). Bidding: of every legal choice of three bid cards, the one whose bid (♦ 0, ♠ 10,
♥ 20, ♣ 30; 0/10/20 may also read 100/110/120) is closest to what the thirteen kept cards should
take. Play: each card is judged by how close "points taken so far + what this trick brings +
what the rest of the hand should bring" lands to the bid; as follower the trick's result is
known exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

from tricktable import cards as C
from tricktable.bots.base import Move, View, kind
from tricktable.bots.tricks import Card, card_plays, own_hand, ten_high_strength

SUIT_VALUE = {C.DIAMONDS: 0, C.SPADES: 10, C.HEARTS: 20, C.CLUBS: 30}
PACK_POINTS = 120
#: The chance a card wins its trick, leading or following, against an unknown hand.
WIN_CHANCE = {C.ACE: 0.95, C.TEN: 0.8, C.KING: 0.6, C.QUEEN: 0.45, C.JACK: 0.35, 9: 0.25, 8: 0.15}
#: ... and when it is led: an Ace led always wins (equal counters go to the leader), a blank
#: led loses to any higher card and to an equal blank.
LEAD_WIN_CHANCE = {
    C.ACE: 1.0,
    C.TEN: 0.75,
    C.KING: 0.55,
    C.QUEEN: 0.4,
    C.JACK: 0.3,
    9: 0.15,
    8: 0.05,
}


def readings(raw: int) -> list[int]:
    """A raw bid and, for 0, 10 and 20, its high reading (100, 110, 120)."""
    return [raw, raw + 100] if raw <= 20 else [raw]


def expected_points(cards: Sequence[Card], other_card: float) -> float:
    return sum(WIN_CHANCE.get(c.rank, 0.0) * (C.points(c) + other_card) for c in cards)


def follower_wins(lead: Card, reply: Card) -> bool:
    """The higher rank wins whatever the suit; equal ranks: counters to the leader, blanks to
    the follower."""
    a, b = ten_high_strength(lead), ten_high_strength(reply)
    if a != b:
        return b > a
    return C.points(lead) == 0


class CounterpointBot:
    def __init__(self) -> None:
        self.targets: dict[int, int] = {}  # deal number → the bid reading aimed at

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        if not legal:
            return None
        if kind(legal[0]) == "lay_aside":
            return self.bid(view, legal)
        plays = card_plays(legal)
        return self.play(view, plays) if plays else legal[0]

    def _other_card(self, hand: Sequence[Card]) -> float:
        """The average points of a card the opponent holds or laid aside."""
        return (PACK_POINTS - sum(C.points(c) for c in hand)) / 16

    def bid(self, view: View, legal: Sequence[Move]) -> Move:
        hand = own_hand(view)
        other = self._other_card(hand)
        total = expected_points(hand, other)
        best: tuple[float, int, int] | None = None
        choice = legal[0]
        for index, move in enumerate(legal):
            aside = list(move.lay_aside.cards)
            raw = sum(SUIT_VALUE.get(c.suit, 0) for c in aside)
            kept = total - expected_points(aside, other)
            for reading in readings(raw):
                cost = (abs(kept - reading), index, reading)
                if best is None or cost < best:
                    best, choice = cost, move
        assert best is not None
        self.targets[view.deal_no] = best[2]
        return choice

    def _taken(self, view: View) -> int:
        me = view.viewer
        return sum(
            C.points(c)
            for t in view.tricks
            if t.HasField("winner") and t.winner == me
            for c in t.cards
        )

    def _target(self, view: View, taken: int, hand: Sequence[Card], other: float) -> int:
        if view.deal_no in self.targets:
            return self.targets[view.deal_no]
        assert view.viewer is not None
        me = view.seats[view.viewer]
        raw = me.bid if me.HasField("bid") else 50
        likely = taken + expected_points(hand, other)
        return min(readings(raw), key=lambda r: abs(likely - r))

    def play(self, view: View, plays: Sequence[tuple[Card, Move]]) -> Move:
        hand = own_hand(view)
        other = self._other_card(hand)
        taken = self._taken(view)
        need = self._target(view, taken, hand, other) - taken
        lead = view.trick.cards[0] if view.trick.cards else None

        def cost(play: tuple[Card, Move]) -> tuple[float, int]:
            card = play[0]
            if lead is None:
                gain = LEAD_WIN_CHANCE.get(card.rank, 0.0) * (C.points(card) + other)
            else:
                gain = C.points(lead) + C.points(card) if follower_wins(lead, card) else 0.0
            rest = [c for c in hand if C.key(c) != C.key(card)]
            return (abs(need - gain - expected_points(rest, other)), ten_high_strength(card))

        return min(plays, key=cost)[1]
