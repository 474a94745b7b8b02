"""One conformance suite over every registered game (OpenSpiel's games_sim_test, for us).

Random legal playouts with hypothesis-drawn options and seeds must end, and along the way:
- ``apply`` never changes the state it is given, and the seats to act are exactly the seats with
  legal moves;
- ``validate`` is the single gate: a candidate move is accepted exactly when ``legal_moves``
  lists it, and a rejected move raises with a reason and changes nothing;
- snapshots restore to an equal state; replaying the seed and the moves rebuilds the game and
  its events exactly; moves and events round-trip through their data form;
- totals never go down;
- projections are consistent between viewers: a seat sees nothing beyond the public (spectator)
  picture plus its own hand and laid-aside cards, and whatever the spectator sees, every seat
  sees. This catches a card shown to the wrong seat, but not a card shown to everyone: that is
  what the per-game visibility oracles in each game's own tests are for (they state, from the
  spec's visibility table, exactly which cards each viewer may see).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import get_rules
from engine.core.codec import to_data
from engine.core.errors import EngineError
from engine.core.events import DealScored, event_from_data, event_to_data
from engine.core.fields import cards_in
from engine.core.moves import Call, ChooseSeat, LayAside, PlayCard, move_from_data, move_to_data
from engine.core.options import OptionSpec
from engine.core.rules import Rules
from tests.engine.helpers import Step, random_steps

GAMES = engine.game_names()


def option_values(spec: OptionSpec) -> st.SearchStrategy[object]:
    if spec.kind == "bool":
        return st.booleans()
    if spec.kind == "choice":
        return st.sampled_from(spec.choices)
    # Integers: the default, or the smallest allowed value (which keeps games short).
    low = spec.minimum if spec.minimum is not None else spec.default
    return st.sampled_from(sorted({spec.default, low}))


def options_for(game: str) -> st.SearchStrategy[dict[str, object]]:
    specs = get_rules(game).game_type().options
    return st.fixed_dictionaries({s.name: option_values(s) for s in specs})


def _view_cards(rules: Rules[Any], state: Any, viewer: int | None) -> set[int]:
    return cards_in(rules.view(state, viewer))


def _private(rules: Rules[Any], state: Any, seat: int) -> set[int]:
    own = rules.view(state, seat).seats[seat]
    return set(own.hand or ()) | set(own.aside or ())


def check_view_consistency(rules: Rules[Any], state: Any) -> None:
    public = _view_cards(rules, state, None)
    for seat in range(rules.seats):
        seen = _view_cards(rules, state, seat)
        assert public <= seen, f"seat {seat} misses public cards {public - seen}"
        extra = seen - public - _private(rules, state, seat)
        assert not extra, f"seat {seat} sees cards that are neither public nor its own: {extra}"


def check_event_consistency(rules: Rules[Any], step: Step) -> None:
    for event in step.events:
        public_event = cards_in(rules.project(event, None))
        for seat in range(rules.seats):
            mine = _private(rules, step.before, seat) | _private(rules, step.after, seat)
            extra = cards_in(rules.project(event, seat)) - public_event - mine
            assert not extra, f"{event.kind} shows seat {seat} cards {extra}"


def candidate_moves(rules: Rules[Any], state: Any, pool: list[Any]) -> list[Any]:
    """Moves worth trying against the gate: every seat's legal moves (wrong seat), moves that
    were legal earlier in the game, every card as a play, and malformed variants."""
    out: list[Any] = list(pool)
    for seat in range(rules.seats):
        legal = rules.legal_moves(state, seat)
        out.extend(legal[i] for i in range(min(len(legal), 40)))
        lay = next((m for m in legal if isinstance(m, LayAside)), None)
        if lay is not None:
            c = lay.cards
            out += [LayAside(c[:-1]), LayAside((*c, 0)), LayAside((c[0], c[0], *c[2:]))]
            # not card numbers at all: refused as malformed, never a TypeError
            out += [LayAside(x) for x in (None, 3, "abc", ([1], [2], [3]), (1.0, 2.0, 3.0))]  # type: ignore[arg-type]
    out += [PlayCard(c) for c in range(65)]
    out += [ChooseSeat(x) for x in (-1, 0, 1, rules.seats)]
    out += [Call("bogus")]
    return out


def check_gate(rules: Rules[Any], state: Any, pool: list[Any]) -> None:
    before = rules.snapshot(state)
    for seat in range(rules.seats):
        legal = rules.legal_moves(state, seat)
        for move in candidate_moves(rules, state, pool):
            is_legal = move in legal
            try:
                rules.apply(state, seat, move)
            except EngineError as err:
                assert not is_legal, f"legal {move} for seat {seat} rejected: {err!r}"
                assert err.reason and err.message
            else:
                assert is_legal, f"seat {seat} may make unlisted move {move}"
    assert rules.snapshot(state) == before, "a rejected move changed the state"


def run_conformance(game: str, options: dict[str, object], seed: bytes, bot: int) -> None:
    rules = get_rules(game)
    rng = random.Random(bot)
    check_every = rng.randrange(15, 40)
    pool: list[Any] = []
    moves: list[tuple[int, Any]] = []
    events: list[Any] = list(rules.opening_events(rules.new_game(options, seed)))
    last_totals = [0] * rules.seats
    snapshot_before = rules.snapshot(rules.new_game(options, seed))
    for n, step in enumerate(random_steps(rules, options, seed, rng)):
        # purity: apply left the state it was given exactly as it was
        assert rules.snapshot(step.before) == snapshot_before, "apply changed its input state"
        snapshot_before = rules.snapshot(step.after)
        # data forms round-trip
        assert move_from_data(move_to_data(step.move)) == step.move
        for e in step.events:
            assert event_from_data(event_to_data(e)) == e
            assert to_data(rules.project(e, None))["type"] == e.kind
            if isinstance(e, DealScored):
                assert all(t >= p for t, p in zip(e.totals, last_totals, strict=True))
                last_totals = list(e.totals)
        check_event_consistency(rules, step)
        if n % check_every == 0 or step.after.finished:
            # movers: exactly the seats with legal moves; may act (public): some of them; must
            # act: some of those, never none
            acting = set(rules.movers(step.after))
            for seat in range(rules.seats):
                has_moves = len(rules.legal_moves(step.after, seat)) > 0
                assert has_moves == (seat in acting), f"seat {seat}: movers and legal moves differ"
            public = rules.may_act(step.after)
            assert set(public) <= acting and list(public) == sorted(public)
            must = rules.to_act(step.after)
            assert set(must) <= set(public) and list(must) == sorted(must)
            assert bool(must) != step.after.finished, "a running game waits on some seat"
            check_view_consistency(rules, step.after)
            assert rules.restore(snapshot_before) == step.after
            if not step.after.finished:
                check_gate(rules, step.after, pool[-30:])
        if len(pool) < 200 and not isinstance(step.move, PlayCard):
            pool.append(step.move)
        moves.append((step.seat, step.move))
        events.extend(step.events)
        final = step.after
    assert final.finished and rules.outcome(final) is not None
    assert rules.to_act(final) == () and rules.may_act(final) == () and rules.movers(final) == ()
    replayed, replay_events = rules.replay(options, seed, moves)
    assert rules.snapshot(replayed) == snapshot_before
    assert replay_events == events


@pytest.mark.parametrize("game", GAMES)
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(data=st.data())
def test_random_playouts_conform(game: str, data: st.DataObject) -> None:
    options = data.draw(options_for(game), label="options")
    seed = data.draw(st.binary(min_size=1, max_size=16), label="seed")
    bot = data.draw(st.integers(0, 2**32), label="bot")
    run_conformance(game, options, seed, bot)


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_and_moves_give_the_same_game(game: str) -> None:
    rules = get_rules(game)
    a = list(random_steps(rules, {}, b"same", random.Random(1)))
    b = list(random_steps(rules, {}, b"same", random.Random(1)))
    assert [s.events for s in a] == [s.events for s in b]
    assert rules.snapshot(a[-1].after) == rules.snapshot(b[-1].after)
    other = rules.new_game({}, b"other")
    assert rules.snapshot(other) != rules.snapshot(rules.new_game({}, b"same"))


@pytest.mark.parametrize("game", GAMES)
def test_game_type_is_published_with_options_and_move_kinds(game: str) -> None:
    rules = get_rules(game)
    gt = rules.game_type()
    assert gt.name == game and gt.seats == rules.seats and gt.move_kinds
    for spec in gt.options:
        assert spec.description
        assert spec.coerce(spec.default, game) == spec.default
    # every option round-trips as a string, as the CLI and the protocol send it
    defaults = {
        s.name: str(s.default).lower() if s.kind == "bool" else str(s.default) for s in gt.options
    }
    assert rules.options(defaults) == rules.options({})


@pytest.mark.parametrize("game", GAMES)
def test_an_unreadable_snapshot_is_refused(game: str) -> None:
    from engine.core.errors import BadSnapshot

    rules = get_rules(game)
    blob = rules.snapshot(rules.new_game({}, b"x"))
    with pytest.raises(BadSnapshot):
        rules.restore(blob[:-5])
    with pytest.raises(BadSnapshot):
        rules.restore(blob.replace(b'"schema":', b'"schema":9', 1))
