"""A rules-aware Counterpoint bot: bid near the card-points the hand should take, then steer.

The bot values each card by the chance it wins its trick (the Ace always wins when led, a
Seven never does) times the points it would bring in (its own and an average card of the
opponent's). Card points, the rank order and how bid cards read come from the game type
(:mod:`tricktable.facts`). Bidding: of every legal choice of three bid cards, the one whose bid
(each of its readings) is closest to what the thirteen kept cards should take. Play: each card
is judged by how close "points taken so far + what this trick brings + what the rest of the
hand should bring" lands to the bid; as follower the trick's result is known exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

from tricktable import cards as C
from tricktable import facts
from tricktable.bots.base import Move, View, kind
from tricktable.bots.tricks import Card, card_plays, own_hand
from tricktable.facts import GameFacts
from tricktable.legal import lay_asides

GAME = "counterpoint"
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


def expected_points(f: GameFacts, cards: Sequence[Card], other_card: float) -> float:
    return sum(WIN_CHANCE.get(c.rank, 0.0) * (f.points(c) + other_card) for c in cards)


def follower_wins(f: GameFacts, lead: Card, reply: Card) -> bool:
    """The higher rank wins whatever the suit; equal ranks: counters to the leader, blanks to
    the follower."""
    a, b = f.strength(lead), f.strength(reply)
    if a != b:
        return b > a
    return f.points(lead) == 0


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

    def _other_card(self, f: GameFacts, hand: Sequence[Card]) -> float:
        """The average points of a card the opponent holds or laid aside."""
        return (f.pack_points - sum(f.points(c) for c in hand)) / 16

    def bid(self, view: View, legal: Sequence[Move]) -> Move:
        f = facts.of(GAME)
        hand = own_hand(view)
        other = self._other_card(f, hand)
        total = expected_points(f, hand, other)
        best: tuple[float, int, int] | None = None
        # Every choice is weighed by its cards; only the one chosen is built as a move.
        for index, aside in lay_asides(legal):
            kept = total - expected_points(f, aside, other)
            for reading in f.readings(f.bid(aside)):
                cost = (abs(kept - reading), index, reading)
                if best is None or cost < best:
                    best = cost
        assert best is not None
        self.targets[view.deal_no] = best[2]
        return legal[best[1]]

    def _taken(self, view: View) -> int:
        me = view.viewer
        return sum(
            facts.of(GAME).points(c)
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
        f = facts.of(GAME)
        likely = taken + expected_points(f, hand, other)
        return min(f.readings(raw), key=lambda r: abs(likely - r))

    def play(self, view: View, plays: Sequence[tuple[Card, Move]]) -> Move:
        f = facts.of(GAME)
        hand = own_hand(view)
        other = self._other_card(f, hand)
        taken = self._taken(view)
        need = self._target(view, taken, hand, other) - taken
        lead = view.trick.cards[0] if view.trick.cards else None

        def cost(play: tuple[Card, Move]) -> tuple[float, int]:
            card = play[0]
            if lead is None:
                gain = LEAD_WIN_CHANCE.get(card.rank, 0.0) * (f.points(card) + other)
            else:
                gain = f.points(lead) + f.points(card) if follower_wins(f, lead, card) else 0.0
            rest = [c for c in hand if C.key(c) != C.key(card)]
            return (abs(need - gain - expected_points(f, rest, other)), f.strength(card))

        return min(plays, key=cost)[1]
