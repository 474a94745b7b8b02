"""The four games as OpenSpiel games (engine/openspiel_games.py): OpenSpiel's own random-simulation
checks on each game and variant, the action numbering, and one game of each played by OpenSpiel's
IS-MCTS bot, which resamples states from information sets (``sample_state``).

OpenSpiel is the engine's optional ``[openspiel]`` extra and a dev dependency (CI runs these);
without it installed this file is skipped, saying so.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed: pip install './engine[openspiel]'"
)

import numpy as np  # noqa: E402  (OpenSpiel's own dependency: present when pyspiel is)
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import engine  # noqa: E402
from engine.openspiel_games import SHORT_NAMES, ActionCodec  # noqa: E402
from engine.playout import variants  # noqa: E402

#: Short matches, so that a search bot plays a whole one in a test: one deal or a low target.
SHORT: dict[str, dict[str, Any]] = {
    "counterpoint": {"target_score": 1},
    "ninety-nine": {"game_length_deals": 1},
    "nominations": {"end_mode": "deals", "deal_count": 1},
    "sixty-six": {"target_game_points": 1},
}

VARIANTS = [
    (name, variant, options)
    for name in engine.game_names()
    for variant, options in variants(engine.get_rules(name))
]


@pytest.mark.parametrize(("name", "variant", "options"), VARIANTS)
def test_openspiel_random_simulation_checks_pass(
    name: str, variant: str, options: dict[str, Any]
) -> None:
    """OpenSpiel's own consistency checks over random whole matches (legal actions, clones,
    returns, information-state and observation strings for every player)."""
    game = pyspiel.load_game(SHORT_NAMES[name], {**options, "rng_seed": 7})
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


@pytest.mark.parametrize("name", engine.game_names())
def test_a_parameter_sets_the_engine_option_and_a_preset_still_sets_its_defaults(
    name: str,
) -> None:
    rules = engine.get_rules(name)
    game = pyspiel.load_game(SHORT_NAMES[name], SHORT[name])
    assert game.options == rules.options(SHORT[name])
    assert game.num_players() == rules.seats
    for variant, options in variants(rules):
        preset = pyspiel.load_game(SHORT_NAMES[name], options)
        assert preset.options == rules.options(options), variant


@pytest.mark.parametrize("name", engine.game_names())
def test_every_legal_move_numbers_and_reads_back_as_itself(name: str) -> None:
    rules = engine.get_rules(name)
    codec = ActionCodec(rules)
    rng = random.Random(3)
    state = rules.new_game(SHORT[name], seed=b"codec:" + name.encode())
    seen = 0
    while not state.finished:
        for seat in rules.movers(state):
            legal = rules.legal_moves(state, seat)
            actions = [codec.encode(move) for move in legal]
            assert len(set(actions)) == len(actions)
            assert all(0 <= a < codec.size for a in actions)
            assert [codec.decode(a) for a in actions] == list(legal)
            seen += len(actions)
        seat = rng.choice(rules.to_act(state))
        legal = rules.legal_moves(state, seat)
        rules.apply_in_place(state, seat, legal[rng.randrange(len(legal))])
    assert seen > 0
    with pytest.raises(ValueError):
        codec.decode(codec.size)


@pytest.mark.parametrize("name", engine.game_names())
def test_information_state_strings_are_the_information_sets_and_resampling_keeps_them(
    name: str,
) -> None:
    rules = engine.get_rules(name)
    game = pyspiel.load_game(SHORT_NAMES[name], {**SHORT[name], "rng_seed": 1})
    state = game.new_initial_state()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    rng = random.Random(5)
    hands = set()
    while not state.is_terminal():
        player = state.current_player()
        info = rules.information_set(state.engine_state, player)
        assert state.information_state_string(player) == repr(info)
        assert state.observation_string(player) == repr(rules.view(state.engine_state, player))
        sample = state.resample_from_infostate(player, sampler)
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.legal_actions() == state.legal_actions()
        hands.add(tuple(sample.engine_state.hands))
        state.apply_action(rng.choice(state.legal_actions()))
    assert len(hands) > 1  # the hidden cards vary between samples
    assert sum(state.returns()) == pytest.approx(1.0)


@pytest.mark.parametrize("name", engine.game_names())
def test_openspiel_ismcts_plays_a_whole_match(name: str) -> None:
    """OpenSpiel's IS-MCTS bot in seat 0 against its uniform random bots: every decision of the
    bot resamples worlds from its information set (and asserts that each has the same
    information state string) and plays them out with random rollouts."""
    game = pyspiel.load_game(SHORT_NAMES[name], {**SHORT[name], "rng_seed": 11})
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    searcher = ismcts.ISMCTSBot(
        game,
        evaluator,
        uct_c=2.0,
        max_simulations=20,
        random_state=np.random.RandomState(2),
        child_selection_policy=ismcts.ChildSelectionPolicy.PUCT,
    )
    bots = [searcher] + [
        pyspiel.make_uniform_random_bot(seat, 100 + seat) for seat in range(1, game.num_players())
    ]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert len(returns) == game.num_players() and sum(returns) == pytest.approx(1.0)


def test_openspiel_mcts_plays_a_sampled_world_to_the_end() -> None:
    """OpenSpiel's (perfect-information) MCTS bot over a state sampled from seat 0's
    information set: the other route a search bot takes, determinizing once."""
    rules = engine.get_rules("counterpoint")
    game = pyspiel.load_game(SHORT_NAMES["counterpoint"], {**SHORT["counterpoint"], "rng_seed": 3})
    state = game.new_initial_state()
    world = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(4))
    bot = mcts.MCTSBot(game, 2.0, 8, evaluator, random_state=np.random.RandomState(5))
    while not world.is_terminal():
        world.apply_action(bot.step(world))
    assert rules.outcome(world.engine_state) is not None
