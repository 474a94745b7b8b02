"""The playout policies: how the seats of a sampled world play the rest of a deal, per game.

A playout that plays at random values a bid game by noise: random play rarely makes a bid
exactly, and random bidders bid anything. In Ninety-Nine and Nominations every seat of a
playout instead plays as a sensible player does (the rules the heuristic bots play by, read off
the engine's state): it bids what its hand should take, wins tricks while it needs them and
ducks once it has enough, passes premium calls, and in Nominations names its best suit and calls
the highest trump it lacks. A search over such playouts values a move by what it does against
players of that kind, which a random playout cannot tell.

A policy answers ``policy(state, seat, legal)`` with a move of ``legal``, or None when it has no
opinion (the search then plays at random). It reads the state only; the engine's own helpers say
what a card is worth in the deal (the Ninety-Nine Joker, bid values).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations_with_replacement
from typing import Any, NamedTuple

from engine.core import cards as C
from engine.core.moves import Bid, Call, ChooseSeat, DeclareContract, LayAside, Move, PlayCard
from engine.games import ninety_nine as nn
from engine.games import nominations as nom

Policy = Callable[[Any, int, Sequence[Move]], Move | None]

ACE, KING, QUEEN, JACK = 14, 13, 12, 11


def _suit(c: int) -> int:
    return c >> 4


def _rank(c: int) -> int:
    return c & 15


def _beats(c: int, winning: int, trump: int | None) -> bool:
    """Does ``c``, played now, beat the card winning the trick (of the suit led or a trump)?"""
    if _suit(c) == _suit(winning):
        return _rank(c) > _rank(winning)
    return trump is not None and _suit(c) == trump


def _winner(cards: Sequence[int], trump: int | None) -> int:
    """Index of the card winning a trick so far (suit led, trumps beat it)."""
    best = 0
    for i in range(1, len(cards)):
        if _beats(cards[i], cards[best], trump):
            best = i
    return best


def _cheap(c: int, trump: int | None) -> tuple[bool, int]:
    """A card's worth to keep: trumps above the rest, then by rank."""
    return (trump is not None and _suit(c) == trump, _rank(c))


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


def estimate(cards: Sequence[int], trump: int | None, w: Weights) -> float:
    """Tricks ``cards`` should take with ``trump`` (None: no trump): honours by suit length,
    trumps, long suits."""
    by_suit: dict[int, list[int]] = {}
    for c in cards:
        by_suit.setdefault(_suit(c), []).append(_rank(c))
    total = 0.0
    for suit, ranks in by_suit.items():
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


# -- Ninety-Nine ---------------------------------------------------------------------------------

#: Against two others, with nine cards (the heuristic bot's figures).
NN_WEIGHTS = Weights(
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


def nn_estimate(cards: Sequence[int], trump: int | None) -> float:
    """Tricks nine Ninety-Nine cards should take against two others (effective cards: the
    Joker read as the turn-up)."""
    return estimate(cards, trump, NN_WEIGHTS)


def nn_lay_asides(s: Any, cards: Sequence[int], pool: int | None = None) -> list[tuple[float, int]]:
    """Lay-asides of three of ``cards`` (engine cards, the Joker as itself), one per choice
    of three suits: the lowest cards of those suits, each with how far its bid is from what the
    nine kept cards should take (smaller is better), best first. ``pool``: a mask the three must
    come from (cards already played are no longer in it)."""
    trump = s.trump
    real = {c: nn.effective(s, c) for c in cards}
    by_suit: dict[int, list[int]] = {}
    for c in sorted(cards, key=lambda c: _rank(real[c])):
        if pool is None or pool >> c & 1:
            by_suit.setdefault(_suit(real[c]), []).append(c)
    out: list[tuple[float, int]] = []
    for suits in combinations_with_replacement(sorted(by_suit), 3):
        picked: list[int] = []
        for suit in set(suits):
            want = suits.count(suit)
            if len(by_suit[suit]) < want:
                break
            picked += by_suit[suit][:want]
        else:
            aside = C.mask_of(picked)
            bid = sum(3 - suit for suit in suits)  # ♣3 ♥2 ♠1 ♦0
            kept = [real[c] for c in cards if not aside >> c & 1]
            out.append((abs(nn_estimate(kept, trump) - bid), aside))
    out.sort()
    return out


def _nn_played(s: Any, seat: int) -> list[int]:
    """The cards ``seat`` has played this deal."""
    played = []
    for row in s.history:
        leader = row[0]
        for i, c in enumerate(row[2:]):
            if (leader + i) % 3 == seat:
                played.append(c)
    for i, c in enumerate(s.trick):
        if (s.leader + i) % 3 == seat:
            played.append(c)
    return played


def nn_model_asides(s: Any, seat: int) -> None:
    """Give every other seat of a sampled world the bid cards a sensible bidder lays aside
    from its twelve (in place). The sampler draws hidden bid cards at random, so the others'
    bids come out anything from 0 to 9; a seat bids what its hand should take. Only hidden bid
    cards are redrawn, each from its seat's own unplayed cards, so the world stays consistent
    with everything ``seat`` has seen."""
    for other in range(3):
        if other == seat or not s.aside[other] or s.aside_exposed[other]:
            continue
        pool = s.hands[other] | s.aside[other]
        twelve = C.cards_of(pool) + _nn_played(s, other)
        choices = nn_lay_asides(s, twelve, pool)
        if choices:
            aside = choices[0][1]
            s.aside[other] = aside
            s.hands[other] = pool & ~aside


#: Memos of the policies' pure functions (a decision's moves are searched in the same worlds,
#: and the bid cards of a deal are read at every card): cleared when they grow past this.
_MEMO_SIZE = 50_000
_bids: dict[tuple[int | None, int], int] = {}
_asides: dict[tuple[int | None, int | None, int], LayAside | None] = {}


def _bid(s: Any, aside: int) -> int:
    key = (s.turn_up, aside)
    bid = _bids.get(key)
    if bid is None:
        if len(_bids) > _MEMO_SIZE:
            _bids.clear()
        bid = _bids[key] = nn.bid_value(s, aside)
    return bid


def _nn_lay_aside(s: Any, hand: int) -> LayAside | None:
    key = (s.trump, s.turn_up, hand)
    if key not in _asides:
        if len(_asides) > _MEMO_SIZE:
            _asides.clear()
        choices = nn_lay_asides(s, C.cards_of(hand))
        _asides[key] = LayAside.of(C.cards_of(choices[0][1])) if choices else None
    return _asides[key]


def nn_policy(s: Any, seat: int, legal: Sequence[Move]) -> Move | None:
    first = legal[0]
    if isinstance(first, PlayCard):
        return _nn_play(s, seat, legal)
    if isinstance(first, LayAside):
        return _nn_lay_aside(s, s.hands[seat])
    if isinstance(first, Call):
        return Call("pass") if Call("pass") in legal else None
    if isinstance(first, ChooseSeat):
        return ChooseSeat(seat)
    return None


def _nn_play(s: Any, seat: int, legal: Sequence[Move]) -> Move:
    """Win while the bid needs tricks (cheaply when last, else the best card), duck with the
    highest losing card once it has enough, lead high or low the same way."""
    trump = s.trump
    joker_as = s.turn_up  # the Joker plays as the turn-up (the engine's ``effective``)
    plays = [(m.card if m.card != C.JOKER else joker_as, m) for m in legal if type(m) is PlayCard]
    need = _bid(s, s.aside[seat]) - s.tricks_won[seat]
    if not s.trick:
        if need <= 0:
            return min(plays, key=lambda p: _cheap(p[0], trump))[1]
        return max(plays, key=lambda p: _cheap(p[0], trump))[1]
    table = [c if c != C.JOKER else joker_as for c in s.trick]
    winning = table[_winner(table, trump)]
    winners = [p for p in plays if _beats(p[0], winning, trump)]
    if need <= 0:
        losers = [p for p in plays if not _beats(p[0], winning, trump)]
        if losers:
            return max(losers, key=lambda p: (_rank(p[0]), _suit(p[0]) != trump))[1]
        return max(plays, key=lambda p: _cheap(p[0], trump))[1]
    if not winners:
        return min(plays, key=lambda p: _cheap(p[0], trump))[1]
    if len(s.trick) == 2 or need >= C.count(s.hands[seat]):
        return min(winners, key=lambda p: _cheap(p[0], trump))[1]
    return max(winners, key=lambda p: _cheap(p[0], trump))[1]


# -- Nominations ---------------------------------------------------------------------------------

#: What a partner holding the called card usually adds to the declarer's tricks.
NOM_PARTNER_TRICKS = 3.0


#: Against three others, with thirteen cards (the heuristic bot's figures).
NOM_WEIGHTS = Weights(
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


def nom_estimate(cards: Sequence[int], trump: int | None) -> float:
    """Tricks a Nominations hand should take with ``trump`` (None: no trump)."""
    return estimate(cards, trump, NOM_WEIGHTS)


def nom_best_trump(cards: Sequence[int]) -> tuple[int | None, float]:
    """The trump (None: no trump) under which the hand should take most, and that many."""
    options: list[tuple[int | None, float]] = [(s, nom_estimate(cards, s)) for s in range(4)]
    options.append((None, nom_estimate(cards, None)))
    return max(options, key=lambda o: (o[1], o[0] is not None))


def nom_misere_danger(cards: Sequence[int]) -> int:
    """Cards that may be forced to win a trick at misère (a card is safe while enough lower
    cards of its suit are held to play under the others)."""
    by_suit: dict[int, list[int]] = {}
    for c in cards:
        by_suit.setdefault(_suit(c), []).append(_rank(c))
    danger = 0
    for ranks in by_suit.values():
        for lower, r in enumerate(sorted(ranks)):
            if r > 6 + 3 * lower:
                danger += 1
    return danger


def nom_call_for(cards: Sequence[int], trump: int | None) -> int | None:
    """The card to call with ``trump``: the highest trump not held, else a missing Ace, else a
    missing King."""
    held = set(cards)
    wanted: list[int] = []
    if trump is not None:
        wanted += [C.card(r, trump) for r in range(ACE, 1, -1)]
    wanted += [C.card(ACE, s) for s in range(4)] + [C.card(KING, s) for s in range(4)]
    return next((w for w in wanted if w not in held), None)


def nom_policy(s: Any, seat: int, legal: Sequence[Move]) -> Move | None:
    first = legal[0]
    if isinstance(first, PlayCard):
        return _nom_play(s, seat, legal)
    kinds = {type(m) for m in legal}
    if DeclareContract in kinds:
        cards = C.cards_of(s.hands[seat])
        trump, _ = nom_best_trump(cards)
        wanted = DeclareContract(trump, called) if (called := nom_call_for(cards, trump)) else None
        if wanted is not None and wanted in legal:
            return wanted
        return next((m for m in legal if isinstance(m, DeclareContract) and m.trump == trump), None)
    if Bid in kinds:
        return _nom_bid(s, seat, legal)
    return Call("pass") if Call("pass") in legal else None


def _nom_bid(s: Any, seat: int, legal: Sequence[Move]) -> Move | None:
    """The misère with a safe hand, else the lowest number the hand and a partner can make,
    else pass."""
    cards = C.cards_of(s.hands[seat])
    bids = [m for m in legal if isinstance(m, Bid)]
    misere = next((m for m in bids if m.contract == nom.MISERE), None)
    if misere is not None and nom_misere_danger(cards) == 0:
        return misere
    _, mine = nom_best_trump(cards)
    affordable = int(mine + NOM_PARTNER_TRICKS)
    numbers = [m for m in bids if m.contract == nom.TRICKS and (m.tricks or 0) <= affordable]
    if numbers:
        return min(numbers, key=lambda m: m.tricks or 0)
    if Call("pass") in legal:
        return Call("pass")
    return min(bids, key=lambda m: m.tricks or 99) if bids else None


def _nom_side(s: Any, seat: int) -> set[int]:
    """The seats ``seat`` knows to be on its side (itself included), as a player at the table
    knows them: the partner is a secret to the others until the called card is played."""
    side = {seat}
    if s.declarer is None:
        return side
    team = {s.declarer}
    if s.holder is not None and (s.revealed or seat == s.holder):
        team.add(s.holder)
    if seat in team:
        return team
    if s.revealed:
        return set(range(4)) - team
    return side


def _nom_play(s: Any, seat: int, legal: Sequence[Move]) -> Move:
    """Ducks in (and against) a misère; else cashes Aces and draws trumps when leading, lets a
    side-mate's winning card stand, wins cheaply last and with its best card otherwise, and
    throws its cheapest card when it cannot win."""
    trump = s.trump
    plays = [(m.card, m) for m in legal if isinstance(m, PlayCard)]
    table = s.trick
    if s.contract in (nom.MISERE, nom.OPEN_MISERE):
        if not table:
            return min(plays, key=lambda p: _cheap(p[0], trump))[1]
        winning = table[_winner(table, trump)]
        losers = [p for p in plays if not _beats(p[0], winning, trump)]
        if losers:
            return max(losers, key=lambda p: _rank(p[0]))[1]
        return min(plays, key=lambda p: _cheap(p[0], trump))[1]
    if not table:
        aces = [p for p in plays if _rank(p[0]) == ACE and _suit(p[0]) != trump]
        if aces:
            return aces[0][1]
        mine = [p for p in plays if _suit(p[0]) == trump]
        if trump is not None and len(mine) >= 3:
            return max(mine, key=lambda p: _rank(p[0]))[1]
        return min(plays, key=lambda p: _cheap(p[0], trump))[1]
    index = _winner(table, trump)
    winning = table[index]
    winning_seat = (s.leader + index) % 4
    last = len(table) == 3
    if winning_seat in _nom_side(s, seat) and (last or _rank(winning) >= KING):
        return min(plays, key=lambda p: _cheap(p[0], trump))[1]
    winners = [p for p in plays if _beats(p[0], winning, trump)]
    if not winners:
        return min(plays, key=lambda p: _cheap(p[0], trump))[1]
    if last:
        return min(winners, key=lambda p: _cheap(p[0], trump))[1]
    return max(winners, key=lambda p: _cheap(p[0], trump))[1]


def nn_candidates(s: Any, seat: int, first: Move) -> list[Move]:
    """Lay-asides worth searching: one per choice of three suits (the lowest cards of
    each), those whose bid fits the hand best first."""
    if not isinstance(first, LayAside):
        return []
    return [LayAside.of(C.cards_of(a)) for _, a in nn_lay_asides(s, C.cards_of(s.hands[seat]))]


def nom_candidates(s: Any, seat: int, first: Move) -> list[Move]:
    """Contracts worth searching: each trump (and no trump) with the card a sensible declarer
    calls under it, the hand's best trump first; then, under the best trump, other missing
    trumps and missing Aces as the called card."""
    if not isinstance(first, DeclareContract):
        return []
    cards = C.cards_of(s.hands[seat])
    trumps: list[int | None] = [0, 1, 2, 3, None]
    trumps.sort(key=lambda t: -nom_estimate(cards, t))
    out: list[Move] = []
    for trump in trumps:
        called = nom_call_for(cards, trump)
        if called is not None:
            out.append(DeclareContract(trump, called))
    best = trumps[0]
    held = set(cards)
    others = [C.card(r, best) for r in range(ACE, 1, -1)] if best is not None else []
    others += [C.card(ACE, suit) for suit in range(4)]
    out += [DeclareContract(best, c) for c in others if c not in held][:8]
    return list(dict.fromkeys(out))


#: The playout policy of each game that has one.
POLICIES: dict[str, Policy] = {"ninety-nine": nn_policy, "nominations": nom_policy}
#: What is done to each sampled world before it is searched, per game (in place).
WORLD_MODELS: dict[str, Callable[[Any, int], None]] = {"ninety-nine": nn_model_asides}
#: Each game's short list of moves to search where the legal moves are many.
CANDIDATES: dict[str, Callable[[Any, int, Move], list[Move]]] = {
    "ninety-nine": nn_candidates,
    "nominations": nom_candidates,
}
