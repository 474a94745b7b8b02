"""What a client needs to know about a game's cards and bids, read from the server's
``GameType`` (``ListGameTypes``): the rank order, the card points, how bid cards read as a bid.

The renderer and the bots take these facts from here, never from a copy of the rules of their
own. :meth:`tricktable.client.Client.game_types` learns every game the server offers; the bot
runners ask for them before a game starts, and a ``BotService`` learns them from the requests.

    from tricktable import facts
    facts.learn(client.game_types())
    facts.of("counterpoint").points(card)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tricktable.v1 import cards_pb2, game_types_pb2


@dataclass(frozen=True)
class GameFacts:
    game: str
    rank_order: tuple[int, ...]  # strongest first
    card_points: Mapping[int, int]  # by rank; ranks not listed are worth 0
    bid_suit_values: Mapping[int, int]  # by suit (proto Suit values); empty: no bid cards
    bid_cards: int
    high_reading_max: int
    high_reading_add: int

    @classmethod
    def of(cls, game_type: game_types_pb2.GameType) -> GameFacts:
        reading = game_type.bid_reading
        return cls(
            game=game_type.name,
            rank_order=tuple(game_type.rank_order),
            card_points={p.rank: p.value for p in game_type.card_points},
            bid_suit_values={v.suit: v.value for v in reading.suit_values},
            bid_cards=reading.cards,
            high_reading_max=reading.high_reading_max,
            high_reading_add=reading.high_reading_add,
        )

    @property
    def counts_points(self) -> bool:
        """Whether tricks are counted in card points (else in tricks)."""
        return bool(self.card_points)

    @property
    def pack_points(self) -> int:
        """The card points in the whole pack (every rank in each of the four suits)."""
        return 4 * sum(self.card_points.get(r, 0) for r in self.rank_order)

    def strength(self, card: cards_pb2.Card) -> int:
        """Higher for a stronger card of its suit; 0 for a rank outside the order (the Joker)."""
        order = self.rank_order
        return len(order) - order.index(card.rank) if card.rank in order else 0

    def points(self, card: cards_pb2.Card) -> int:
        return self.card_points.get(card.rank, 0)

    def bid(self, cards: Iterable[cards_pb2.Card]) -> int:
        """The bid that bid cards make, read plainly (the sum of their suit values)."""
        return sum(self.bid_suit_values.get(c.suit, 0) for c in cards)

    def readings(self, raw: int, high_readings: bool = True) -> list[int]:
        """Every bid a plain reading may mean: itself, and the high reading where it applies
        (with the game's ``high_readings`` option on)."""
        if high_readings and self.high_reading_add and raw <= self.high_reading_max:
            return [raw, raw + self.high_reading_add]
        return [raw]


_KNOWN: dict[str, GameFacts] = {}
_TYPES: dict[str, game_types_pb2.GameType] = {}


def learn(game_types: Iterable[game_types_pb2.GameType]) -> None:
    """Remember the facts of these games (a server's ``ListGameTypes``)."""
    for game_type in game_types:
        _KNOWN[game_type.name] = GameFacts.of(game_type)
        _TYPES[game_type.name] = game_type


def game_type(game: str) -> game_types_pb2.GameType | None:
    """The game type the facts of ``game`` were learnt from (None: not learnt)."""
    return _TYPES.get(game)


def known(game: str) -> bool:
    return game in _KNOWN


def of(game: str) -> GameFacts:
    """The facts of ``game``, once learnt (LookupError otherwise)."""
    try:
        return _KNOWN[game]
    except KeyError:
        raise LookupError(
            f"the facts of {game!r} are not known: learn them from the server's game types "
            "first (tricktable.facts.learn(client.game_types()))"
        ) from None
