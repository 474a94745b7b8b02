"""Information sets: what one seat knows of a game, and complete states consistent with it.

``Rules.information_set(state, seat)`` gathers what ``seat`` knows; ``Rules.sample_state(info,
rng)`` returns a complete state consistent with it (a determinization, for search bots); and
``Rules.information_set_from(view, events)`` builds the same set from what a client receives:
the seat's current view and its projected events since the deal began.

An :class:`InformationSet` holds only what the seat may know: its own cards, every card played
this deal and by whom (earlier tricks included, even where the view no longer shows them), the
suits each seat has shown out of, the public declarations, the options, the match's public
history, and the hidden places (another seat's hand, bid cards laid aside, the stock, a stacked
pack) with their sizes, the cards known to lie in them and the cards known not to. The game's
own public facts (whose turn, the trick on the table, the auction, …) sit in ``public``, a frozen
dataclass of the game's module, documented there.

Sampling (:func:`deal_hidden`) is exact, not by rejection: every assignment of the unseen cards
to the hidden places that fills each place to its size, puts each known card where it is known to
lie and no card where it is known not to lie, is returned with the same probability. See there
for why.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import comb
from typing import Any

from engine.core.cards import cards_of, mask_of
from engine.core.chance import SEED_BYTES, Chance
from engine.core.events import CardPlayed, DealStarted, Event


@dataclass(frozen=True, slots=True)
class HiddenPlace:
    """A place whose cards the seat cannot see (all of them, or some of them).

    ``owner`` is the seat it belongs to (None: the stock or the pack); ``what`` names it
    (``hand``, ``aside``, ``stock``, ``pack``); ``size`` is how many cards it holds now;
    ``known`` are cards known to lie in it (an exposed hand, a declared marriage's cards not yet
    played, a turn-up taken in exchange); ``excluded`` is the mask of cards known not to lie in
    it (a seat that did not follow suit holds none of that suit, …)."""

    owner: int | None
    what: str
    size: int
    known: tuple[int, ...] = ()
    excluded: int = 0


@dataclass(frozen=True, slots=True)
class InformationSet:
    """Everything seat ``seat`` knows of a game, and nothing else.

    ``hand``: its own cards in hand now, ascending. ``plays``: every card played this deal,
    ``(seat, card)`` in play order (a card as played: the Ninety-Nine Joker is the Joker).
    ``shown_out``: per seat, the suits (bit ``1 << suit``) it has shown out of this deal.
    ``hidden``: the places it cannot see, and ``unseen``: the cards it has not seen, ascending:
    exactly the cards of the hidden places that are not ``known`` there. ``scores``: each seat's
    total. ``public``: the game's own public facts (see the game's module)."""

    game: str
    seat: int
    options: Any
    deal_no: int
    dealer: int
    phase: str
    scores: tuple[int, ...]
    finished: bool
    winners: tuple[int, ...]
    hand: tuple[int, ...]
    plays: tuple[tuple[int, int], ...]
    shown_out: tuple[int, ...]
    hidden: tuple[HiddenPlace, ...]
    unseen: tuple[int, ...]
    public: Any


def unseen_cards(deck: Iterable[int], seen: Iterable[int]) -> tuple[int, ...]:
    """The cards of ``deck`` not in ``seen``, ascending."""
    return tuple(cards_of(mask_of(deck) & ~mask_of(seen)))


def suits_of_mask(suits: int) -> int:
    """The card mask of the suits in ``suits`` (bit ``1 << suit``)."""
    mask = 0
    for suit in range(4):
        if suits >> suit & 1:
            mask |= 0xFFFF << (16 * suit)
    return mask


def deal_events(events: Sequence[Event]) -> list[Event]:
    """The events of the current deal: from the last ``DealStarted`` on."""
    start = max((i for i, e in enumerate(events) if isinstance(e, DealStarted)), default=0)
    return list(events[start:])


def plays_of(events: Iterable[Event]) -> tuple[tuple[int, int], ...]:
    """``(seat, card)`` of every card played in ``events``, in order."""
    return tuple((e.seat, e.card) for e in events if isinstance(e, CardPlayed))


def deal_hidden(
    places: Sequence[HiddenPlace], unseen: Sequence[int], rng: random.Random
) -> list[list[int]]:
    """The cards of each place, drawn uniformly among the consistent assignments.

    A consistent assignment puts each place's ``known`` cards in it and deals the ``unseen``
    cards so that each place gets exactly ``size`` cards in all and none that it ``excluded``.

    Exact counting, not rejection: late in a deal the exclusions (voids) can make a shuffled
    deal almost never consistent. The unseen cards fall into groups by the set of places that
    may take them; cards of one group are interchangeable. The number of consistent assignments
    that put ``k_p`` cards of the first group in each place ``p`` is the multinomial
    ``n! / prod(k_p!)`` times the number of consistent assignments of the other groups to what
    is left of the places (counted by the same recursion, remembered by group and room left).
    Drawing the first group's split with probability proportional to that product, then which
    of its cards go where uniformly (a shuffle), then the next group's split the same way, gives
    each consistent assignment probability 1 / (their number): the product of the steps'
    probabilities telescopes.
    """
    free = [p.size - len(p.known) for p in places]
    if any(n < 0 for n in free):
        raise ValueError("a hidden place holds more known cards than its size")
    if sum(free) != len(unseen):
        raise ValueError(f"{len(unseen)} unseen cards for {sum(free)} hidden places")
    groups: dict[int, list[int]] = {}
    for c in unseen:
        allowed = 0
        for i, p in enumerate(places):
            if free[i] and not p.excluded >> c & 1:
                allowed |= 1 << i
        if not allowed:
            raise ValueError("an unseen card fits no hidden place")
        groups.setdefault(allowed, []).append(c)
    order = sorted(groups)
    sizes = tuple(len(groups[a]) for a in order)
    dealt: list[list[int]] = [list(p.known) for p in places]
    room = tuple(free)
    if _count(tuple(order), sizes, room) == 0:
        raise ValueError("no deal is consistent with this information")
    for i, allowed in enumerate(order):
        splits = _splits(allowed, sizes[i], room)
        weights = [
            _multinomial(split) * _count(tuple(order[i + 1 :]), sizes[i + 1 :], _less(room, split))
            for split in splits
        ]
        pick = rng.randrange(sum(weights))
        chosen = 0
        while pick >= weights[chosen]:
            pick -= weights[chosen]
            chosen += 1
        split = splits[chosen]
        cards = list(groups[allowed])
        rng.shuffle(cards)
        pos = 0
        for place, k in enumerate(split):
            dealt[place].extend(cards[pos : pos + k])
            pos += k
        room = _less(room, split)
    for cards in dealt:
        cards.sort()
    return dealt


def _less(room: tuple[int, ...], split: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(r - k for r, k in zip(room, split, strict=True))


def _multinomial(split: tuple[int, ...]) -> int:
    total, ways = 0, 1
    for k in split:
        total += k
        ways *= comb(total, k)
    return ways


@lru_cache(maxsize=65_536)
def _splits(allowed: int, n: int, room: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Every way to put ``n`` cards in the places of ``allowed`` within their ``room``."""
    places = [i for i in range(len(room)) if allowed >> i & 1]
    out: list[tuple[int, ...]] = []

    def fill(j: int, left: int, split: list[int]) -> None:
        if j == len(places):
            if left == 0:
                out.append(tuple(split))
            return
        p = places[j]
        for k in range(min(left, room[p]) + 1):
            split[p] = k
            fill(j + 1, left - k, split)
        split[p] = 0

    fill(0, n, [0] * len(room))
    return tuple(out)


@lru_cache(maxsize=65_536)
def _count(order: tuple[int, ...], sizes: tuple[int, ...], room: tuple[int, ...]) -> int:
    """Consistent assignments of the groups (``order``: their allowed places, ``sizes``: their
    card counts) that fill ``room`` exactly."""
    if not order:
        return 1 if not any(room) else 0
    return sum(
        _multinomial(split) * _count(order[1:], sizes[1:], _less(room, split))
        for split in _splits(order[0], sizes[0], room)
    )


def count_consistent(places: Sequence[HiddenPlace], unseen: Sequence[int]) -> int:
    """How many consistent assignments there are (see :func:`deal_hidden`), for tests."""
    free = tuple(p.size - len(p.known) for p in places)
    groups: dict[int, int] = {}
    for c in unseen:
        allowed = sum(1 << i for i, p in enumerate(places) if free[i] and not p.excluded >> c & 1)
        groups[allowed] = groups.get(allowed, 0) + 1
    order = tuple(sorted(groups))
    return _count(order, tuple(groups[a] for a in order), free)


def shown_out(tricks: Iterable[tuple[int, Sequence[int]]], seats: int, suit: Any) -> list[int]:
    """Per seat, the suits (bit ``1 << suit``) it has shown out of: a card of another suit
    played to a trick led in a suit. ``tricks`` are ``(leader, cards in play order)``;
    ``suit(card)`` is the suit a card belongs to in the game (the Joker: its stand-in's)."""
    out = [0] * seats
    for leader, cards in tricks:
        if not cards:
            continue
        led = suit(cards[0])
        for i in range(1, len(cards)):
            if suit(cards[i]) != led:
                out[(leader + i) % seats] |= 1 << led
    return out


def new_state(state_type: type[Any], info: InformationSet, rng: random.Random) -> Any:
    """A state of ``state_type`` with the match bookkeeping every game shares taken from
    ``info`` and a fresh secret seed drawn from ``rng`` (the real seed is never known to a
    seat; the deals after this one are then new ones). The game fills in the rest."""
    s = object.__new__(state_type)
    s.options = info.options
    s.chance = Chance(rng.randbytes(SEED_BYTES))
    s.deal_no = info.deal_no
    s.dealer = info.dealer
    s.scores = list(info.scores)
    s.finished = info.finished
    s.winners = list(info.winners)
    s.phase = info.phase
    return s


def seat_of(view: Any) -> int:
    """The seat a view was made for (a spectator has no information set)."""
    seat = view.viewer
    if seat is None:
        raise ValueError("an information set is a seat's: a spectator's view has none")
    return int(seat)


#: The match's public facts: (deal_no, dealer, phase, scores, finished, winners).
Match = tuple[int, int, str, tuple[int, ...], bool, tuple[int, ...]]


def match_of(view: Any) -> Match:
    """The match's facts as a view shows them."""
    return (
        view.deal_no,
        view.dealer,
        view.phase,
        tuple(sv.score for sv in view.seats),
        view.finished,
        tuple(view.winners),
    )


def match_of_state(s: Any) -> Match:
    """The match's facts as a state holds them (the bookkeeping every game shares)."""
    return (s.deal_no, s.dealer, s.phase, tuple(s.scores), s.finished, tuple(s.winners))


def information_set_of(
    game: str, seat: int, options: Any, match: Match, **facts: Any
) -> InformationSet:
    """An information set of ``game`` with the match's facts filled in from ``match``; the
    game's own gathering gives the rest (``facts``: hand, plays, hidden places, public)."""
    deal_no, dealer, phase, scores, finished, winners = match
    return InformationSet(
        game=game,
        seat=seat,
        options=options,
        deal_no=deal_no,
        dealer=dealer,
        phase=phase,
        scores=scores,
        finished=finished,
        winners=winners,
        **facts,
    )
