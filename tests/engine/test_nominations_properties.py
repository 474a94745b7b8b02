"""Nominations properties over random legal playouts, for the flags that change play.

- invariants: the 52 cards are conserved, a deal has 13 tricks unless a misère (or
  ``stop_when_decided``) ends it early, scores never decrease, the game ends;
- the gate: a move is accepted exactly when ``legal_moves`` lists it, and a rejected move
  raises a specific reason and changes nothing;
- determinism: the same seed and moves give the same states and events;
- projections: no view or projected event shows a viewer a card outside an independent oracle
  of what the spec (§12) lets it know, for every seat and the spectator;
- the secret partner: before the called card is played, a viewer cannot tell two games apart
  whose only difference is who holds the called card.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import get_rules
from engine.core import cards as C
from engine.core.errors import IllegalMove, Reason
from engine.core.events import (
    AuctionWon,
    CardPlayed,
    CardsExposed,
    ContractDeclared,
    DealScored,
    DealStarted,
    Event,
    NominationsDealResult,
    PartnerNotice,
    PartnerRevealed,
    TrickWon,
)
from engine.core.fields import cards_in
from engine.core.moves import Bid, Call, Cut, DeclareContract, Move, PlayCard
from engine.games.nominations import Nominations, NominationsState, ladder
from tests.engine.helpers import Step

R: Nominations = get_rules("nominations")  # type: ignore[assignment]
DECK = frozenset(C.deck(range(2, 15)))
VIEWERS: tuple[int | None, ...] = (0, 1, 2, 3, None)

# Flags that change play, each in at least one preset. Short targets keep the games quick.
PRESETS: dict[str, dict[str, object]] = {
    "default": {},
    "must_trump_off": {"must_trump_when_void": False, "target_score": 40},
    "stop_when_decided": {"stop_when_decided": True, "target_score": 40},
    "expose_before_lead": {"open_misere_expose": "before_first_lead", "target_score": 40},
    "cutter_chooses": {
        "double_hand_cut": "cutter_chooses",
        "double_hand_stacking": True,
        "target_score": 40,
    },
    "no_cut": {"double_hand_cut": "none", "target_score": 40},
    "no_shuffle": {
        "shuffle_between_deals": False,
        "deal_batches": "rotating",
        "target_score": 40,
    },
    "dealer_forced": {"all_pass": "dealer_forced", "deal_batches": "5-5-3", "target_score": 40},
    "redeal": {"all_pass": "redeal", "target_score": 40},
    "low_ladder": {
        "min_bid": 7,
        "misere_rank": "between_10_and_11",
        "open_misere": False,
        "auto_end_on_top_bid": False,
        "target_score": 40,
    },
    "opponent_tricks": {
        "opponent_trick_points": True,
        "bid13_points": 26,
        "stop_when_decided": True,
        "target_score": 40,
    },
    "deals_extra": {
        "end_mode": "deals",
        "deal_count": 3,
        "tie_rule": "extra_deal",
        "review_last_trick": False,
    },
}


def choose(state: NominationsState, legal: Any, rng: random.Random) -> Move:
    """A random bot that passes half the time in the auction and otherwise makes one of the
    three cheapest bids, so numeric contracts (and their secret partners) are common."""
    if state.phase == "auction":
        bids = [m for m in legal if isinstance(m, Bid)]
        if not bids or (len(bids) < len(legal) and rng.random() < 0.5):
            return PASS
        return rng.choice(bids[:3])
    move: Move = legal[rng.randrange(len(legal))]
    return move


PASS = Call("pass")


def playout(
    options: dict[str, object], seed: bytes, rng: random.Random, max_moves: int = 20_000
) -> Iterator[Step]:
    state = R.new_game(options, seed)
    for _ in range(max_moves):
        if state.finished:
            return
        (seat,) = R.to_act(state)
        move = choose(state, R.legal_moves(state, seat), rng)
        after, events = R.apply(state, seat, move)
        yield Step(state, seat, move, after, events)
        state = after
    raise AssertionError("the game did not end")


presets = st.sampled_from(sorted(PRESETS))
seeds = st.binary(min_size=1, max_size=8)
bots = st.integers(0, 2**32)


# -- invariants --------------------------------------------------------------------------------


def check_cards_conserved(s: NominationsState) -> None:
    if s.finished:
        return
    if s.phase == "cut":
        assert not any(s.hands) and sorted(s.pack) == sorted(DECK)
        return
    played = [c for h in s.history for c in h[2:]] + list(s.trick)
    held = [c for h in s.hands for c in C.cards_of(h)]
    assert len(played) + len(held) == 52 and set(played) | set(held) == DECK
    sizes = sorted(C.count(h) for h in s.hands)
    assert sizes[-1] - sizes[0] <= 1  # everyone has played to every completed trick


def played_deal(event: object) -> bool:
    """A deal's result, other than an abandoned (all-pass) deal's."""
    if not isinstance(event, DealScored):
        return False
    assert isinstance(event.result, NominationsDealResult)
    return not event.result.all_passed


def check_deal_length(step: Step) -> None:
    for event in step.events:
        if not played_deal(event):
            continue
        assert isinstance(event, DealScored)
        before = step.before
        if before.contract != "tricks":
            # a misère ends with the declarer's first trick, or after 13 without one
            won = event.taken[before.declarer]
            (last,) = [e for e in step.events if isinstance(e, TrickWon)]
            assert (won == 1 and last.winner == before.declarer) or (
                won == 0 and sum(event.taken) == 13
            ), "a misère went on after the declarer's trick, or stopped without one"
        elif sum(event.taken) < 13:
            o = before.options
            assert o.stop_when_decided and not o.opponent_trick_points, "numeric deal cut short"


@settings(max_examples=24, deadline=None, derandomize=True)
@given(preset=presets, seed=seeds, bot=bots)
def test_random_playouts_keep_the_invariants_and_end(preset: str, seed: bytes, bot: int) -> None:
    options = PRESETS[preset]
    rng = random.Random(bot)
    deals = 0
    for step in playout(options, seed, rng):
        check_cards_conserved(step.after)
        check_deal_length(step)
        assert all(a >= b for a, b in zip(step.after.scores, step.before.scores, strict=True))
        deals += sum(played_deal(e) for e in step.events)
        last = step.after
    assert last.finished and R.outcome(last) is not None
    assert deals == last.played_deals
    winners = R.outcome(last).winners  # type: ignore[union-attr]
    assert all(last.scores[w] == max(last.scores) for w in winners)


# -- the gate ----------------------------------------------------------------------------------

_BAD_BIDS = (Bid("tricks", 6), Bid("tricks", 14), Bid("grand"), Bid("misere", 3))


def candidates(s: NominationsState, rng: random.Random) -> list[Any]:
    o = s.options
    out: list[Any] = [PlayCard(c) for c in range(-1, 66)]
    out += [PASS, Call("double"), *ladder(o.min_bid, o.misere_rank, o.open_misere), *_BAD_BIDS]
    out += [Bid("open_misere"), Bid("misere")]
    out += [Cut(k) for k in (-1, 0, 1, 26, 51, 52)]
    out += [DeclareContract(rng.choice((0, 1, 2, 3, None)), rng.randrange(66)) for _ in range(8)]
    out += [DeclareContract(5, 14), DeclareContract(None, 1)]
    return out


def check_gate(s: NominationsState, rng: random.Random) -> None:
    before = R.snapshot(s)
    for seat in range(4):
        legal = list(R.legal_moves(s, seat))
        for move in candidates(s, rng):
            try:
                R.apply(s, seat, move)
            except IllegalMove as err:
                assert move not in legal, f"legal {move} rejected: {err!r}"
                assert isinstance(err.reason, Reason) and err.message
            else:
                assert move in legal, f"seat {seat} may make unlisted {move}"
        for move in legal[:12]:
            R.apply(s, seat, move)  # every listed move is accepted
    assert R.snapshot(s) == before, "a rejected move changed the state"


@settings(max_examples=12, deadline=None, derandomize=True)
@given(preset=presets, seed=seeds, bot=bots)
def test_a_move_is_accepted_exactly_when_listed(preset: str, seed: bytes, bot: int) -> None:
    rng = random.Random(bot)
    for n, step in enumerate(playout(PRESETS[preset], seed, rng)):
        if n % 7 == 0 or step.after.phase in ("declare", "cut"):
            check_gate(step.after, rng)


# -- determinism -------------------------------------------------------------------------------


@settings(max_examples=8, deadline=None, derandomize=True)
@given(preset=presets, seed=seeds, bot=bots)
def test_the_same_seed_and_moves_replay_the_same_game(preset: str, seed: bytes, bot: int) -> None:
    options = PRESETS[preset]
    steps = list(playout(options, seed, random.Random(bot)))
    again = list(playout(options, seed, random.Random(bot)))
    assert [s.events for s in steps] == [s.events for s in again]
    assert [s.after for s in steps] == [s.after for s in again]
    state, events = R.replay(options, seed, [(s.seat, s.move) for s in steps])
    assert state == steps[-1].after
    assert events == R.opening_events(steps[0].before) + [e for s in steps for e in s.events]
    restored = R.restore(R.snapshot(steps[len(steps) // 2].after))
    assert restored == steps[len(steps) // 2].after


# -- projections: an oracle of what each viewer may know (§12) ----------------------------------


class Oracle:
    """What each viewer may know of the cards, built from the full events and the spec: its
    own dealt hand, every card played, the called card, and the exposures the spec allows
    (an open-misère hand; every remaining card when a deal ends early)."""

    def __init__(self, opening: list[Event]) -> None:
        self.known: dict[int | None, set[int]] = {v: set() for v in VIEWERS}
        for event in opening:
            self.learn(event, None, [])

    def learn(self, event: Event, before: NominationsState | None, step: list[Event]) -> None:
        if isinstance(event, DealStarted):
            for v in VIEWERS:
                self.known[v] = set(event.hands[v] or ()) if v is not None else set()
            return
        public: set[int] = set()
        if isinstance(event, CardPlayed):
            public = {event.card}
        elif isinstance(event, ContractDeclared | PartnerNotice):
            public = {event.called}
        elif isinstance(event, CardsExposed):
            assert before is not None
            if event.what == "hand":
                if before.options.open_misere_expose == "after_first_trick":
                    assert before.contract == "open_misere" and event.seat == before.declarer
                    assert len(before.history) == 0 and len(before.trick) == 3
                else:  # the bid that won the auction exposes the hand at once
                    (won,) = [e for e in step if isinstance(e, AuctionWon)]
                    assert won.contract == "open_misere" and event.seat == won.declarer
            else:
                assert event.what == "remaining"
                (result,) = [e for e in step if isinstance(e, DealScored)]
                assert sum(result.taken) < 13
            public = set(event.cards)
        for v in VIEWERS:
            self.known[v] |= public


def view_cards(s: NominationsState, viewer: int | None) -> set[int]:
    view = R.view(s, viewer)
    for move in view.legal_moves:
        if isinstance(move, PlayCard):
            assert viewer is not None and s.hands[viewer] >> move.card & 1
    # The declarer may call any card: his declarations name the whole pack whatever the deal,
    # so they say nothing about hidden cards and are left out of the comparison.
    if s.phase == "declare":
        assert set(view.legal_moves) <= set(R.legal_moves(s, s.turn))
    return cards_in(dataclasses.replace(view, legal_moves=()))


@settings(max_examples=14, deadline=None, derandomize=True)
@given(preset=presets, seed=seeds, bot=bots)
def test_no_projection_shows_a_card_the_viewer_may_not_know(
    preset: str, seed: bytes, bot: int
) -> None:
    options = PRESETS[preset]
    oracle = Oracle(R.opening_events(R.new_game(options, seed)))
    for step in playout(options, seed, random.Random(bot)):
        for event in step.events:
            oracle.learn(event, step.before, step.events)
            for v in VIEWERS:
                seen = cards_in(R.project(event, v))
                assert seen <= oracle.known[v], f"{event.kind} shows {v} {seen - oracle.known[v]}"
        for v in VIEWERS:
            seen = view_cards(step.after, v)
            assert seen <= oracle.known[v], f"view of {v} shows {seen - oracle.known[v]}"


# -- the secret partner ------------------------------------------------------------------------


def check_partner_hidden(s: NominationsState, events: list[Event]) -> None:
    """Before the called card is played, only its holder is told anything."""
    for v in VIEWERS:
        detail = R.view(s, v).detail
        if s.called is None or s.revealed:
            continue
        assert detail.partner is None and detail.side_tricks is None
        if v != s.holder:
            assert detail.partner_status == "unknown"
    for event in events:
        for v in VIEWERS:
            seen = R.project(event, v)
            if isinstance(seen, PartnerNotice) and v != event.holder:  # type: ignore[union-attr]
                assert seen.holder is None
            if isinstance(event, PartnerRevealed):
                assert any(isinstance(e, CardPlayed) and e.card == s.called for e in events) or any(
                    isinstance(e, DealScored) for e in events
                )


def twins(
    s: NominationsState, viewer: int | None, rng: random.Random
) -> tuple[NominationsState, int, int]:
    """A copy of a game waiting for its declaration in which two seats other than ``viewer``
    have swapped one card each, ``x`` and ``y``: the viewer cannot see either."""
    a, b = rng.sample([seat for seat in range(4) if seat != viewer], 2)
    x = rng.choice(C.cards_of(s.hands[a]))
    y = rng.choice(C.cards_of(s.hands[b]))
    twin = s.clone()
    twin.hands = list(s.hands)
    twin.hands[a] ^= (1 << x) | (1 << y)
    twin.hands[b] ^= (1 << x) | (1 << y)
    return twin, x, y


def same_for(
    viewer: int | None, s: NominationsState, t: NominationsState, es: list[Event], et: list[Event]
) -> None:
    assert [R.project(e, viewer) for e in es] == [R.project(e, viewer) for e in et]
    assert R.view(s, viewer) == R.view(t, viewer)


def declarations(
    options: dict[str, object], seed: bytes, rng: random.Random
) -> Iterator[NominationsState]:
    for step in playout(options, seed, rng):
        if step.after.phase == "declare":
            yield step.after


@settings(max_examples=16, deadline=None, derandomize=True)
@given(
    preset=st.sampled_from(["default", "stop_when_decided", "must_trump_off", "no_shuffle"]),
    seed=seeds,
    bot=bots,
)
def test_nobody_can_tell_who_holds_the_called_card_before_it_is_played(
    preset: str, seed: bytes, bot: int
) -> None:
    """The called card ``x`` is with seat a in one game and with seat b in its twin (which
    holds a's card ``y`` instead). Until x or y is played, a viewer other than a and b (the
    declarer included, unless he is a or b) sees exactly the same views and events in both."""
    options = PRESETS[preset]
    rng = random.Random(bot)
    for n, waiting in enumerate(declarations(options, seed, rng)):
        if n >= 3:
            break
        viewer = rng.choice(VIEWERS)
        twin, x, y = twins(waiting, viewer, rng)
        declare = DeclareContract(rng.choice((0, 1, 2, 3, None)), x)
        s, es = R.apply(waiting, waiting.turn, declare)
        t, et = R.apply(twin, twin.turn, declare)
        same_for(viewer, s, t, es, et)
        check_partner_hidden(s, es)
        while True:
            (seat,) = R.to_act(s)
            common = [
                m
                for m in R.legal_moves(s, seat)
                if m in R.legal_moves(t, seat) and isinstance(m, PlayCard) and m.card not in (x, y)
            ]
            if not common:
                break
            move = rng.choice(common)
            s, es = R.apply(s, seat, move)
            t, et = R.apply(t, seat, move)
            ended = [any(isinstance(e, DealScored) for e in events) for events in (es, et)]
            # the deal ends at the same moment in both: stopping early may not depend on him
            assert ended[0] == ended[1]
            if ended[0]:
                break
            same_for(viewer, s, t, es, et)
            check_partner_hidden(s, es)
