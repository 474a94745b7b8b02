"""Information sets and the states sampled from them (engine.core.information).

For every seat at every decision of random games of every game and variant: a state sampled from
the seat's information set shows the seat the very same view (its legal moves included), has the
same information set, and plays on alike (the seat's move applied to both keeps the views equal);
the set built from what a client receives (its view, its projected events since the deal began,
the options) is the same set; two games the seat cannot tell apart give it the same set; the
hidden cards vary between samples; and on small positions the sampling is uniform over the
consistent deals, checked against their full enumeration.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

import engine
from engine import get_rules
from engine.core import cards as C
from engine.core.errors import EngineError
from engine.core.events import DealStarted, Event
from engine.core.information import HiddenPlace, count_consistent, deal_hidden
from engine.core.rules import Rules
from tests.engine.test_public_signals import Played, _moves

VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("ninety-nine", {}),
    ("ninety-nine", {"edition": "revised"}),
    ("counterpoint", {}),
    ("sixty-six", {}),
    ("sixty-six", {"preset": "pagat"}),
    ("nominations", {}),
    # the variants that add hidden places or public facts: a cut waiting on its cutter, an
    # open-misère hand face up from the first lead, a revealed hand before the opening lead,
    # the exchange offered at a close, and the strict follow rules in phase two
    ("nominations", {"double_hand_cut": "cutter_chooses", "must_trump_when_void": False}),
    ("nominations", {"open_misere_expose": "before_first_lead", "stop_when_decided": True}),
    ("ninety-nine", {"reveal_expose_timing": "before_opening_lead"}),
    ("sixty-six", {"exchange_on_opponent_close": True, "endgame_follow": "strict"}),
    ("nominations", {"shuffle_between_deals": False}),
]

#: Decisions looked at per game: enough for a few deals of every game (a whole Nominations or
#: Ninety-Nine match is long, and every decision samples once per seat).
_DECISIONS = 160


def test_every_game_is_checked() -> None:
    assert {game for game, _ in VARIANTS} == set(engine.game_names())


def check_game(game: str, options: Mapping[str, object], seed: bytes) -> int:
    """Every check of the module docstring's first paragraph, at each decision; returns the
    number of (decision, seat) pairs checked."""
    rules = get_rules(game)
    rng = random.Random(seed)
    state = rules.new_game(options, seed)
    events: list[list[Event]] = [[] for _ in range(rules.seats)]
    for seat in range(rules.seats):
        events[seat] = [rules.project(e, seat) for e in rules.opening_events(state)]
    checked = forward = moving = 0
    for mover, chosen in _moves(rules, options, seed, random.Random(seed))[:_DECISIONS]:
        for seat in range(rules.seats):
            view = rules.view(state, seat)
            info = rules.information_set(state, seat)
            assert rules.information_set_from(view, events[seat], options) == info, (
                f"{game} seat {seat}: the client's route gives another set in {state.phase}"
            )
            sampled = rules.sample_state(info, rng)
            assert rules.view(sampled, seat) == view, f"{game} seat {seat} in {state.phase}"
            assert rules.information_set(sampled, seat) == info
            legal = rules.legal_moves(state, seat)
            if len(legal):
                moving += 1
                move = legal[rng.randrange(len(legal))]
                real_after, real_events = rules.apply(state, seat, move)
                sampled_after, sampled_events = rules.apply(sampled, seat, move)
                # Unless the move shows the seat cards it had not seen (an exposed hand, the
                # deal's end), both go on alike; a new deal is new in each.
                if [rules.project(e, seat) for e in real_events] == [
                    rules.project(e, seat) for e in sampled_events
                ] and real_after.deal_no == state.deal_no:
                    assert rules.view(sampled_after, seat) == rules.view(real_after, seat)
                    forward += 1
            checked += 1
        state, step = rules.apply(state, mover, chosen)
        for seat in range(rules.seats):  # all of them: a double hand needs the deal before
            events[seat] += [rules.project(event, seat) for event in step]
    assert forward > moving // 4, "the seat's moves were seldom played on in both states"
    return checked


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=str)
def test_sampled_states_show_the_seat_what_it_sees(
    game: str, options: Mapping[str, object]
) -> None:
    games = {"sixty-six": 5}.get(game, 2)
    checked = sum(check_game(game, options, f"infoset-{n}".encode()) for n in range(games))
    assert checked > 300


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=str)
def test_sampled_hidden_cards_vary(game: str, options: Mapping[str, object]) -> None:
    """At every decision of a random game's first moves where the hidden cards may lie in more
    than one way, twenty samples never all lay them the same way: what the other seats know
    (their hands, their bid cards) differs between some of them."""
    rules = get_rules(game)
    rng = random.Random(7)
    state = rules.new_game(options, b"vary")
    checked = 0
    for _ in range(12):
        for seat in range(rules.seats):
            info = rules.information_set(state, seat)
            gathered: tuple[int, ...] = getattr(info.public, "gathered", ())
            if count_consistent(info.hidden, info.unseen) < 2 or gathered:
                continue  # one way only; or a cut of a public pack, which the seat's hand fixes
            layouts = set()
            for _ in range(20):
                sampled = rules.sample_state(info, rng)
                layouts.add(
                    repr(
                        [rules.information_set(sampled, o) for o in range(rules.seats) if o != seat]
                    )
                )
            assert len(layouts) > 1, f"{game}: seat {seat}'s samples all alike in {state.phase}"
            checked += 1
        mover = rng.choice(rules.movers(state))
        legal = rules.legal_moves(state, mover)
        state, _ = rules.apply(state, mover, legal[rng.randrange(len(legal))])
    assert checked >= 8


def _place_owner(state: Any, card: int) -> int:
    """The seat whose hand holds ``card`` in ``state`` (-1: another place)."""
    for seat, mask in enumerate(state.hands):
        if mask >> card & 1:
            return seat
    return -1


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=str)
def test_a_seat_gets_the_same_set_from_games_it_cannot_tell_apart(
    game: str, options: Mapping[str, object]
) -> None:
    """The same moves on twin deals that differ by two cards hidden from the seat (see
    test_public_signals): while everything the seat is shown agrees, so do its sets."""
    rules = get_rules(game)
    compared = 0
    for n in range(3):
        seed = f"twins-{n}".encode()
        rng = random.Random(seed)
        played = Played(rules, options, seed, _moves(rules, options, seed, rng)[:_DECISIONS])
        for seat in range(rules.seats):
            for overrides, start in played.hidden_swaps(seat, rng, 3):
                compared += _compare_twins(rules, played, overrides, start, seat)
    assert compared > 100


def _compare_twins(
    rules: Rules[Any], played: Played, overrides: dict[str, list[int]], start: int, seat: int
) -> int:
    twin = rules.new_game(played.options, played.seed, overrides)
    compared = 0
    for at in range(len(played.states)):
        if at:
            mover, move = played.moves[at - 1]
            try:
                twin, events = rules.apply(twin, mover, move)
            except EngineError:
                return compared
            seen = [rules.project(e, seat) for e in played.events[at]]
            if seen != [rules.project(e, seat) for e in events]:
                return compared
        if at < start:
            continue
        if played.view(at, seat) != rules.view(twin, seat):
            return compared
        real = played.states[at]
        if real.finished:
            return compared
        assert rules.information_set(real, seat) == rules.information_set(twin, seat), (
            f"{rules.name}: seat {seat} is told apart deals differing by {overrides} at {at}"
        )
        compared += 1
    return compared


# -- the distribution ------------------------------------------------------------------------


def _enumerate(places: list[HiddenPlace], unseen: list[int]) -> list[tuple[tuple[int, ...], ...]]:
    """Every consistent assignment, by brute force: each place's cards chosen in turn among
    the unseen cards left, every choice kept that breaks no exclusion."""
    found: list[tuple[tuple[int, ...], ...]] = []

    def fill(i: int, left: tuple[int, ...], dealt: tuple[tuple[int, ...], ...]) -> None:
        if i == len(places):
            found.append(dealt)
            return
        place = places[i]
        for cards in itertools.combinations(left, place.size - len(place.known)):
            if not any(place.excluded >> c & 1 for c in cards):
                rest = tuple(c for c in left if c not in cards)
                fill(i + 1, rest, (*dealt, tuple(sorted((*place.known, *cards)))))

    fill(0, tuple(unseen), ())
    return sorted(found)


def _uniform(places: list[HiddenPlace], unseen: list[int], samples: int, seed: int) -> None:
    deals = _enumerate(places, unseen)
    assert len(deals) == count_consistent(places, unseen)
    rng = random.Random(seed)
    seen = Counter(
        tuple(tuple(cards) for cards in deal_hidden(places, unseen, rng)) for _ in range(samples)
    )
    assert set(seen) <= set(deals), "a sample broke a constraint"
    expected = samples / len(deals)
    chi2 = sum((seen[d] - expected) ** 2 / expected for d in deals)
    # The chi-square statistic has len(deals) - 1 degrees of freedom: mean k, s.d. sqrt(2k).
    # Six standard deviations above the mean fails a fair sampler with negligible probability
    # (fixed seed: the run is reproducible) and any sampler that favours some deals noticeably.
    k = len(deals) - 1
    assert chi2 < k + 6 * (2 * k) ** 0.5, f"chi-square {chi2:.1f} over {k} degrees of freedom"


def test_deal_hidden_is_uniform_with_voids_and_known_cards() -> None:
    """Three hidden places, with voids that make a plain shuffle mostly inconsistent."""
    clubs = 0xFFFF
    places = [
        HiddenPlace(1, "hand", 3, excluded=clubs),
        HiddenPlace(2, "hand", 3, known=(50,)),
        HiddenPlace(1, "aside", 2, excluded=1 << 2),
    ]
    unseen = [2, 3, 4, 18, 19, 34, 35]
    _uniform(places, unseen, 20_000, 1)


def test_the_check_catches_a_biased_sampler() -> None:
    """The chi-square check itself: a sampler that redeals whenever a club reaches the first
    place but keeps a deal of the lowest cards there once in four (a slight lean) fails it."""
    places = [HiddenPlace(1, "hand", 2, excluded=0xFFFF), HiddenPlace(2, "hand", 3)]
    unseen = [2, 3, 18, 19, 34]
    deals = _enumerate(places, unseen)
    rng = random.Random(3)
    seen: Counter[tuple[tuple[int, ...], ...]] = Counter()
    for _ in range(20_000):
        while True:
            cards = list(unseen)
            rng.shuffle(cards)
            if all(c >= 16 for c in cards[:2]):
                break
        first = cards[:2] if rng.random() < 0.75 else [18, 19]
        rest = sorted(c for c in cards if c not in first)
        seen[(tuple(sorted(first)), tuple(rest))] += 1
    expected = 20_000 / len(deals)
    chi2 = sum((seen[d] - expected) ** 2 / expected for d in deals)
    k = len(deals) - 1
    assert chi2 > k + 6 * (2 * k) ** 0.5


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=str)
def test_sampling_is_uniform_late_in_a_deal(game: str, options: Mapping[str, object]) -> None:
    """Late in a deal, few cards are hidden: the consistent deals of the hidden cards to
    places, enumerated in full, come up equally often, both from ``deal_hidden`` and in the
    states ``sample_state`` builds (read back through the other seats' own sets: their hands
    and bid cards, the stock being what is left)."""
    rules = get_rules(game)
    rng = random.Random(11)
    for n in range(20):
        state, seat = _late_position(rules, options, f"late-{n}".encode())
        if state is None:
            continue
        info = rules.information_set(state, seat)
        places, unseen = list(info.hidden), list(info.unseen)
        deals = count_consistent(places, unseen)
        _uniform(places, unseen, 200 * deals, n)
        samples = 200 * deals
        counts: Counter[Any] = Counter()
        for _ in range(samples):
            sampled = rules.sample_state(info, rng)
            counts[
                tuple(
                    (other.hand, getattr(other.public, "own_aside", ()))
                    for other in (
                        rules.information_set(sampled, o) for o in range(rules.seats) if o != seat
                    )
                )
            ] += 1
        assert len(counts) == deals, "the samples' deals are not the consistent ones"
        expected = samples / deals
        chi2 = sum((k - expected) ** 2 / expected for k in counts.values())
        dof = deals - 1
        assert chi2 < dof + 6 * (2 * dof) ** 0.5, f"chi-square {chi2:.1f} over {dof}"
        return
    pytest.fail("no late position with a few hidden cards found")


def _late_position(
    rules: Rules[Any], options: Mapping[str, object], seed: bytes
) -> tuple[Any, int]:
    """A position of a random game where some seat's hidden cards may lie in 2 to 60 ways."""
    for seat, state in _positions(rules, options, seed):
        info = rules.information_set(state, seat)
        if getattr(info.public, "gathered", ()) or (
            getattr(info.public, "own_packet", ()) and state.phase != "cut"
        ):
            continue  # the deal was not shuffled: see the tests of the double hand and cut

        if 2 <= count_consistent(info.hidden, info.unseen) <= 60:
            return state, seat
    return None, 0


def _positions(
    rules: Rules[Any], options: Mapping[str, object], seed: bytes
) -> Iterator[tuple[int, Any]]:
    """Every (seat, position) of a random game (a claim drawn again nine times in ten)."""
    state = rules.new_game(options, seed)
    for mover, move in _moves(rules, options, seed, random.Random(seed)):
        for seat in range(rules.seats):
            yield seat, state
        state, _ = rules.apply(state, mover, move)


def test_a_double_hand_waiting_for_its_cut() -> None:
    """Nominations: all four pass, and the stacked pack waits for the cutter's choice. Every
    seat's set (its own packet known, the other packets hidden) samples states it cannot tell
    from the real one, by either route, and the cut plays on alike in the sample."""
    rules = get_rules("nominations")
    options = {"double_hand_cut": "cutter_chooses"}
    state = rules.new_game(options, b"cut")
    events = [[rules.project(e, seat) for e in rules.opening_events(state)] for seat in range(4)]
    while state.phase != "cut":
        (seat,) = rules.to_act(state)
        state, step = rules.apply(state, seat, rules.legal_moves(state, seat)[0])  # a pass
        for viewer in range(4):
            events[viewer] += [rules.project(e, viewer) for e in step]
    rng = random.Random(5)
    (cutter,) = rules.to_act(state)
    for seat in range(4):
        info = rules.information_set(state, seat)
        assert len(info.public.own_packet) == 13 and info.hand == ()
        assert [p.what for p in info.hidden] == ["packet"] * 3 and len(info.unseen) == 39
        assert rules.information_set_from(rules.view(state, seat), events[seat], options) == info
        packs = set()
        for _ in range(10):
            sampled = rules.sample_state(info, rng)
            assert rules.view(sampled, seat) == rules.view(state, seat)
            packs.add(tuple(sampled.pack))
            if seat == cutter:
                move = rules.legal_moves(state, seat)[20]
                after, _ = rules.apply(sampled, seat, move)
                real, _ = rules.apply(state, seat, move)
                assert rules.view(after, seat).seats[seat].hand is not None
                assert after.phase == real.phase == "auction"
        assert len(packs) > 1


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=str)
def test_a_finished_game_has_sets_too(game: str, options: Mapping[str, object]) -> None:
    """At the end of a random game (no decision left, the last deal's tricks kept) both routes
    still give the same set, and a sample shows the same view."""
    rules = get_rules(game)
    rng = random.Random(3)
    state = rules.new_game(options, b"finished")
    events = [[rules.project(e, seat) for e in rules.opening_events(state)] for seat in range(4)]
    while not state.finished:
        mover = rng.choice(rules.movers(state))
        legal = rules.legal_moves(state, mover)
        state, step = rules.apply(state, mover, legal[rng.randrange(len(legal))])
        for seat in range(rules.seats):
            for event in step:
                if isinstance(event, DealStarted):
                    events[seat] = []
                events[seat].append(rules.project(event, seat))
    for seat in range(rules.seats):
        info = rules.information_set(state, seat)
        view = rules.view(state, seat)
        assert rules.information_set_from(view, events[seat], options) == info
        assert rules.view(rules.sample_state(info, rng), seat) == view


@pytest.mark.parametrize("cut", ["random", "cutter_chooses", "none"])
def test_a_double_hand_is_sampled_from_the_deal_all_passed(cut: str) -> None:
    """Nominations: all four pass, and the next deal is the stacked pack cut and dealt without
    a shuffle. Each seat remembers its hand of the deal all passed, so the sampled worlds are
    (the other seats' old hands, the depth) that deal the seat its new hand: restacked and
    cut, a sample's pack deals its hands, the seat's own packet is its old hand, and a seat
    that knows the depth (it chose it, or the pack is not cut) gets that depth, so its old
    cards lie in the same seats' hands as in the real deal. Both routes give one set, and the
    view is the seat's."""
    rules = get_rules("nominations")
    options = {"double_hand_cut": cut}
    rng = random.Random(cut)
    checked = 0
    for n in range(4):
        state = rules.new_game(options, f"double-{cut}-{n}".encode())
        events = [
            [rules.project(e, seat) for e in rules.opening_events(state)] for seat in range(4)
        ]
        while not state.finished and checked < 40:
            (mover,) = rules.to_act(state)
            legal = rules.legal_moves(state, mover)
            if state.deal_no == 1:
                move = legal[0] if state.phase == "auction" else legal[rng.randrange(len(legal))]
            else:
                move = legal[rng.randrange(len(legal))]
            if state.deal_no == 2 and state.phase != "cut":
                checked += 1
                _check_double_hand(rules, state, events, options, rng)
            state, step = rules.apply(state, mover, move)
            for seat in range(4):
                events[seat] += [rules.project(e, seat) for e in step]
            if state.deal_no > 2:
                break
    assert checked > 15


def _check_double_hand(
    rules: Rules[Any],
    state: Any,
    events: list[list[Event]],
    options: Mapping[str, object],
    rng: random.Random,
) -> None:
    from engine.games.nominations import cut, deal_cards

    assert state.pack, "a double hand keeps the pack it was dealt from"
    played = {c: seat for seat, c in rules.information_set(state, 0).plays}
    for seat in range(4):
        info = rules.information_set(state, seat)
        assert rules.information_set_from(rules.view(state, seat), events[seat], options) == info
        assert info.public.own_packet
        for _ in range(5):
            sampled = rules.sample_state(info, rng)
            assert rules.view(sampled, seat) == rules.view(state, seat)
            dealt = deal_cards(
                cut(sampled.pack, sampled.depth), sampled.options.deal_batches, sampled.dealer
            )
            for other in range(4):
                held = {c for c in dealt[other] if c not in played}
                assert held == set(C.cards_of(sampled.hands[other]))
            assert all(dealt[played[c]].count(c) for c in played)
            if info.public.cut_depth is not None:
                assert sampled.depth == state.depth
                real = deal_cards(
                    cut(state.pack, state.depth), state.options.deal_batches, state.dealer
                )
                for c in info.public.own_packet:
                    assert [c in h for h in dealt] == [c in h for h in real]


def test_a_deal_cut_from_the_gathered_pack() -> None:
    """Nominations without a shuffle between deals (§10): every card of the gathered pack was
    public, so only the cut's depth is hidden, and a seat's own hand nearly always tells it.
    Each sample is a cut of that pack dealing the seat its hand (the real depth among them),
    and both routes give one set."""
    rules = get_rules("nominations")
    options = {"shuffle_between_deals": False}
    rng = random.Random(2)
    checked = 0
    for n in range(3):
        state = rules.new_game(options, f"gathered-{n}".encode())
        events = [
            [rules.project(e, seat) for e in rules.opening_events(state)] for seat in range(4)
        ]
        while not state.finished and state.deal_no < 4:
            if state.pack and not state.double_run:
                from engine.games.nominations import cut, deal_cards

                played = {c for c in range(64) if not any(h >> c & 1 for h in state.hands)}
                for seat in range(4):
                    info = rules.information_set(state, seat)
                    assert info.public.gathered == tuple(state.pack)
                    view = rules.view(state, seat)
                    assert rules.information_set_from(view, events[seat], options) == info
                    depths = set()
                    for _ in range(5):
                        sampled = rules.sample_state(info, rng)
                        assert rules.view(sampled, seat) == view
                        dealt = deal_cards(cut(state.pack, sampled.depth), "3-3-3-4", state.dealer)
                        assert [C.mask_of(h) & ~C.mask_of(played) for h in dealt] == sampled.hands
                        depths.add(sampled.depth)
                    checked += 1
            mover = rng.choice(rules.movers(state))
            legal = rules.legal_moves(state, mover)
            state, step = rules.apply(state, mover, legal[rng.randrange(len(legal))])
            for seat in range(4):
                events[seat] += [rules.project(e, seat) for e in step]
    assert checked > 50
