"""The playout policies: how the seats of a sampled world play the rest of a deal, per game.

A playout that plays at random values a bid game by noise: random play rarely makes a bid
exactly, and random bidders bid anything. In Ninety-Nine and Nominations every seat of a
playout instead plays as a sensible player does (the rules the heuristic bots play by, the one
copy of them in :mod:`tricktable.bots.judgement`, read off the engine's state): it bids what its
hand should take, wins tricks while it needs them and ducks once it has enough, passes premium
calls, and in Nominations names its best suit and calls the highest trump it lacks. A search over
such playouts values a move by what it does against players of that kind, which a random playout
cannot tell.

A policy answers ``policy(state, seat, legal)`` with a move of ``legal``, or None when it has no
opinion (the search then plays at random). It reads the state only; the engine's own helpers say
what a card is worth in the deal (the Ninety-Nine Joker, bid values).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations_with_replacement
from typing import Any

from engine.core import cards as C
from engine.core.moves import Bid, Call, ChooseSeat, DeclareContract, LayAside, Move, PlayCard
from engine.games import ninety_nine as nn
from engine.games import nominations as nom
from tricktable.bots import judgement
from tricktable.bots.judgement import ACE, Plain

Policy = Callable[[Any, int, Sequence[Move]], Move | None]

#: Each engine card (and the Joker, 64) as the shared judgement reads it: its strength in its
#: suit is its rank.
_PLAIN: tuple[Plain, ...] = tuple(Plain(c >> 4, c & 15, c & 15) for c in range(C.JOKER + 1))


def _suit(c: int) -> int:
    return c >> 4


def _rank(c: int) -> int:
    return c & 15


def _plains(cards: Sequence[int]) -> list[Plain]:
    return [_PLAIN[c] for c in cards]


# -- Ninety-Nine ---------------------------------------------------------------------------------


def nn_estimate(cards: Sequence[int], trump: int | None) -> float:
    """Tricks nine Ninety-Nine cards should take against two others (effective cards: the
    Joker read as the turn-up)."""
    return judgement.estimate(_plains(cards), trump, judgement.NINETY_NINE)


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
            out.append((judgement.ninety_nine_bid_gap(_plains(kept), trump, bid), aside))
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
    """The heuristic Ninety-Nine play (:func:`judgement.ninety_nine_play`) on the engine's
    state: the Joker plays as the turn-up (the engine's ``effective``)."""
    joker_as = s.turn_up
    plays = [
        (_PLAIN[m.card if m.card != C.JOKER else joker_as], m) for m in legal if type(m) is PlayCard
    ]
    return judgement.ninety_nine_play(
        plays,
        [_PLAIN[c if c != C.JOKER else joker_as] for c in s.trick],
        s.trump,
        need=_bid(s, s.aside[seat]) - s.tricks_won[seat],
        tricks_left=C.count(s.hands[seat]),
        last=len(s.trick) == 2,
    )


# -- Nominations ---------------------------------------------------------------------------------


def nom_estimate(cards: Sequence[int], trump: int | None) -> float:
    """Tricks a Nominations hand should take with ``trump`` (None: no trump)."""
    return judgement.estimate(_plains(cards), trump, judgement.NOMINATIONS)


def nom_best_trump(cards: Sequence[int]) -> tuple[int | None, float]:
    """The trump (None: no trump) under which the hand should take most, and that many."""
    return judgement.best_trump(_plains(cards), range(4))


def nom_call_for(cards: Sequence[int], trump: int | None) -> int | None:
    """The card to call with ``trump`` (:func:`judgement.called_card`)."""
    called = judgement.called_card({(_suit(c), _rank(c)) for c in cards}, trump, range(4))
    return None if called is None else C.card(called[1], called[0])


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
    bids = [m for m in legal if isinstance(m, Bid)]
    misere = next((m for m in bids if m.contract == nom.MISERE), None)
    numbers = {m.tricks or 0: m for m in reversed(bids) if m.contract == nom.TRICKS}
    choice = judgement.nominations_bid(
        _plains(C.cards_of(s.hands[seat])), range(4), misere=misere is not None, numbers=numbers
    )
    if choice == "misere" and misere is not None:
        return misere
    if isinstance(choice, int):
        return numbers[choice]
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
    """The heuristic Nominations play (:func:`judgement.nominations_play`) on the engine's
    state."""
    table = s.trick
    return judgement.nominations_play(
        [(_PLAIN[m.card], m) for m in legal if isinstance(m, PlayCard)],
        _plains(table),
        s.trump,
        table_seats=[(s.leader + i) % 4 for i in range(len(table))],
        misere=s.contract in (nom.MISERE, nom.OPEN_MISERE),
        side=_nom_side(s, seat) if table else (),
        last=len(table) == 3,
    )


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
