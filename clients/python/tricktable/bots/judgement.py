"""The heuristic players' judgement, in one place: what a hand should take, which suit to name
and which card to call, what to bid, and when to win or duck a trick. The heuristic bots
(:mod:`tricktable.bots.ninety_nine`, :mod:`tricktable.bots.nominations`) play by it on the
protocol's cards, and the expert's playout policies (:mod:`tricktable.bots.expert.policies`)
on the engine's: each side reads its cards into :class:`Plain` values and hands the choice back.

Written over plain values only (suits and ranks as numbers, a trump suit or None for no trump,
any suit numbering the caller likes), so the client imports no engine through it. Sums are taken
in the order the caller gives the cards, so a caller's estimates come out to the last bit as
they always have.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Literal, NamedTuple, Protocol, TypeVar

ACE, KING, QUEEN, JACK = 14, 13, 12, 11

M = TypeVar("M")


class SuitRank(Protocol):
    """A card as far as a hand's estimate reads it (a protocol ``Card`` is one)."""

    @property
    def suit(self) -> int: ...

    @property
    def rank(self) -> int: ...


class Plain(NamedTuple):
    """A card in play: its suit, its rank (2 .. 14 = Ace) and its strength in its suit (the
    game's rank order: higher beats lower)."""

    suit: int
    rank: int
    strength: int


Play = tuple[Plain, M]


# -- tricks --------------------------------------------------------------------------------------


def beats(c: Plain, winning: Plain, trump: int | None) -> bool:
    """Does ``c``, played now, beat the card winning the trick? The winning card is always of
    the suit led or a trump, so a card of another suit never beats it."""
    if c.suit == winning.suit:
        return c.strength > winning.strength
    return trump is not None and c.suit == trump


def winner(table: Sequence[Plain], trump: int | None) -> int:
    """Index of the card winning a (non-empty) trick so far: the highest trump, else the highest
    card of the suit led."""
    best = 0
    for i in range(1, len(table)):
        if beats(table[i], table[best], trump):
            best = i
    return best


def cheap(c: Plain, trump: int | None) -> tuple[bool, int]:
    """A card's worth to keep: trumps above the rest, then by strength."""
    return (trump is not None and c.suit == trump, c.strength)


def lowest(plays: Sequence[Play[M]], trump: int | None) -> M:
    """The cheapest card to give away: the weakest, keeping trumps."""
    return min(plays, key=lambda p: cheap(p[0], trump))[1]


def highest(plays: Sequence[Play[M]], trump: int | None) -> M:
    """The best card: the strongest trump, else the strongest card."""
    return max(plays, key=lambda p: cheap(p[0], trump))[1]


# -- what a hand should take ---------------------------------------------------------------------


class Weights(NamedTuple):
    """What a hand's cards are worth in tricks, by game: an Ace; a King with a guard and bare;
    a Queen with two guards and less; trumps by rank (None: trumps count as other cards); and
    each trump past ``long_from`` and, at no trump, each card of a suit past ``no_trump_from``."""

    ace: float
    king: tuple[float, float]
    queen: tuple[float, float]
    trumps: dict[int, float] | None
    trump_default: float
    per_long_trump: float
    long_from: int
    per_long_card: float
    no_trump_from: int


#: Ninety-Nine: against two others, with nine cards.
NINETY_NINE = Weights(
    ace=0.85,
    king=(0.5, 0.15),
    queen=(0.25, 0.05),
    trumps={ACE: 1.0, KING: 0.85, QUEEN: 0.65, JACK: 0.45},
    trump_default=0.3,
    per_long_trump=0.3,
    long_from=3,
    per_long_card=0.35,
    no_trump_from=3,
)

#: Nominations: against three others, with thirteen cards.
NOMINATIONS = Weights(
    ace=1.0,
    king=(0.7, 0.3),
    queen=(0.4, 0.1),
    trumps=None,
    trump_default=0.0,
    per_long_trump=0.9,
    long_from=3,
    per_long_card=0.4,
    no_trump_from=4,
)


def _ranks_by_suit(cards: Iterable[SuitRank]) -> dict[int, list[int]]:
    """The ranks of each suit, suits and ranks in the order the cards come."""
    by_suit: dict[int, list[int]] = {}
    for c in cards:
        by_suit.setdefault(c.suit, []).append(c.rank)
    return by_suit


def estimate(cards: Iterable[SuitRank], trump: int | None, w: Weights) -> float:
    """Tricks ``cards`` should take with ``trump`` (None: no trump): honours by suit length,
    trumps, long suits."""
    total = 0.0
    for suit, ranks in _ranks_by_suit(cards).items():
        n = len(ranks)
        for r in ranks:
            if suit == trump and w.trumps is not None:
                total += w.trumps.get(r, w.trump_default)
            elif r == ACE:
                total += w.ace
            elif r == KING:
                total += w.king[0] if n >= 2 else w.king[1]
            elif r == QUEEN:
                total += w.queen[0] if n >= 3 else w.queen[1]
        if suit == trump:
            total += w.per_long_trump * max(0, n - w.long_from)
        elif trump is None:
            total += w.per_long_card * max(0, n - w.no_trump_from)
    return total


def ninety_nine_bid_gap(kept: Iterable[SuitRank], trump: int | None, bid: int) -> float:
    """How far a Ninety-Nine bid is from what the nine ``kept`` cards should take: the bid
    cards laid aside are those with the smallest gap."""
    return abs(estimate(kept, trump, NINETY_NINE) - bid)


# -- Nominations: the auction and the contract ---------------------------------------------------

#: What a partner holding the called card usually adds to the declarer's tricks.
PARTNER_TRICKS = 3.0


def best_trump(cards: Sequence[SuitRank], suits: Iterable[int]) -> tuple[int | None, float]:
    """The trump of ``suits`` (None: no trump) under which a Nominations hand should take most,
    and that many; a suit before no trump on a tie, else the first of ``suits``."""
    options: list[tuple[int | None, float]] = [(s, estimate(cards, s, NOMINATIONS)) for s in suits]
    options.append((None, estimate(cards, None, NOMINATIONS)))
    return max(options, key=lambda o: (o[1], o[0] is not None))


def affordable(cards: Sequence[SuitRank], suits: Iterable[int]) -> int:
    """The most tricks a Nominations hand bids: its best trump's and a called partner's."""
    _, mine = best_trump(cards, suits)
    return int(mine + PARTNER_TRICKS)


def nominations_bid(
    cards: Sequence[SuitRank], suits: Iterable[int], *, misere: bool, numbers: Iterable[int]
) -> int | Literal["misere"] | None:
    """What a Nominations hand bids: the misère (when ``misere`` may be bid) with a hand that
    has no dangerous card, else the lowest of the ``numbers`` on offer that the hand and a called
    partner can make, else nothing (None: pass)."""
    if misere and misere_danger(cards) == 0:
        return "misere"
    most = affordable(cards, suits)
    fits = [n for n in numbers if n <= most]
    return min(fits) if fits else None


def misere_danger(cards: Iterable[SuitRank]) -> int:
    """Cards that may be forced to win a trick at misère: in each suit, a card is safe while
    enough lower cards of its own suit are held to play under the others (2 safe alone, 5 with
    one lower...)."""
    danger = 0
    for ranks in _ranks_by_suit(cards).values():
        for lower, r in enumerate(sorted(ranks)):
            if r > 6 + 3 * lower:
                danger += 1
    return danger


def called_card(
    held: Collection[tuple[int, int]], trump: int | None, suits: Sequence[int]
) -> tuple[int, int] | None:
    """The card to call, as (suit, rank), for a hand holding ``held`` ((suit, rank) pairs) with
    ``trump``: the highest trump not held, so the partner brings a sure trick, else a missing
    Ace, else a missing King."""
    wanted: list[tuple[int, int]] = []
    if trump is not None:
        wanted += [(trump, r) for r in range(ACE, 1, -1)]
    wanted += [(s, ACE) for s in suits] + [(s, KING) for s in suits]
    return next((w for w in wanted if w not in held), None)


# -- play ----------------------------------------------------------------------------------------


def ninety_nine_play(
    plays: Sequence[Play[M]],
    table: Sequence[Plain],
    trump: int | None,
    *,
    need: int,
    tricks_left: int,
    last: bool,
) -> M:
    """Ninety-Nine's card: while ``need`` tricks are still wanted, win (the cheapest winner when
    ``last`` to play or when every trick left is needed, else the best) and lead high; once the
    bid is made, duck with the highest card that does not win (it is a danger later) and lead
    low."""
    if not table:
        return lowest(plays, trump) if need <= 0 else highest(plays, trump)
    winning = table[winner(table, trump)]
    winners = [p for p in plays if beats(p[0], winning, trump)]
    if need <= 0:
        losers = [p for p in plays if not beats(p[0], winning, trump)]
        if losers:
            return max(losers, key=lambda p: (p[0].strength, p[0].suit != trump))[1]
        return highest(plays, trump)
    if not winners:
        return lowest(plays, trump)
    if last or need >= tricks_left:
        return lowest(winners, trump)
    return highest(winners, trump)


def nominations_play(
    plays: Sequence[Play[M]],
    table: Sequence[Plain],
    trump: int | None,
    *,
    table_seats: Sequence[int],
    misere: bool,
    side: Collection[int],
    last: bool,
) -> M:
    """Nominations' card: in (and against) a misère, duck with the highest card that does not
    win and lead low; else cash an Ace and draw trumps (three or more) when leading, let a
    side-mate's winning card stand (``side``: the seats known to be on this seat's side), win
    cheaply when ``last`` to play and with the best card otherwise, and throw the cheapest card
    when it cannot win."""
    if misere:
        if not table:
            return lowest(plays, trump)
        winning = table[winner(table, trump)]
        losers = [p for p in plays if not beats(p[0], winning, trump)]
        if losers:
            return max(losers, key=lambda p: p[0].strength)[1]
        return lowest(plays, trump)
    if not table:
        aces = [p for p in plays if p[0].rank == ACE and p[0].suit != trump]
        if aces:
            return aces[0][1]
        mine = [p for p in plays if p[0].suit == trump]
        if trump is not None and len(mine) >= 3:
            return highest(mine, trump)
        return lowest(plays, trump)
    index = winner(table, trump)
    winning = table[index]
    if table_seats[index] in side and (last or winning.rank >= KING):
        return lowest(plays, trump)
    winners = [p for p in plays if beats(p[0], winning, trump)]
    if not winners:
        return lowest(plays, trump)
    if last:
        return lowest(winners, trump)
    return highest(winners, trump)
