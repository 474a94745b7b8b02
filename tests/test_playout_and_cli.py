"""Random playouts and the engine commands: tricktable simulate and tricktable bench engine."""

from __future__ import annotations

import json
import random

import pytest

import engine
from engine import get_rules
from engine.core.errors import InvalidOptions
from engine.core.events import DealScored
from engine.playout import random_move, random_playout, variants
from service.cli import main
from tests.engine.helpers import random_steps


@pytest.mark.parametrize("game", engine.game_names())
def test_a_random_playout_ends_and_counts_its_moves_and_deals(game: str) -> None:
    rules = get_rules(game)
    result = random_playout(rules, {}, b"p", random.Random(3))
    again = random_playout(rules, {}, b"p", random.Random(3), in_place=False)
    assert result == again  # applying in place and through the pure apply agree
    assert result.moves > 0 and result.deals >= 1
    assert len(result.outcome.totals) == rules.seats and result.outcome.winners
    # the same game through the pure API, counted independently
    steps = list(random_steps(rules, {}, b"p", random.Random(99)))
    deals = sum(isinstance(e, DealScored) for s in steps for e in s.events)
    assert deals >= 1 and steps[-1].after.finished


@pytest.mark.parametrize(
    ("game", "options"),
    [(game, options) for game in engine.game_names() for _, options in variants(get_rules(game))],
)
def test_a_random_playout_draws_as_random_move_and_apply_in_place(
    game: str, options: dict[str, object]
) -> None:
    # The playout reads the phase tables itself (its draw for one and two seats inline): it
    # must play the very game that random_move and the checked apply_in_place play.
    rules = get_rules(game)
    for n in range(3):
        seed = b"same %d" % n
        result = random_playout(rules, options, seed, random.Random(n))
        state = rules.new_game(options, seed)
        rng = random.Random(n)
        moves = deals = 0
        while not state.finished:
            seat, move = random_move(rules, state, rng.randrange)
            events = rules.apply_in_place(state, seat, move)
            moves += 1
            deals += sum(type(e) is DealScored for e in events)
        assert (result.moves, result.deals) == (moves, deals)
        assert result.outcome == rules.outcome(state)


def test_random_move_draws_from_every_seat_that_may_act() -> None:
    rules = get_rules("ninety-nine")
    state = rules.new_game({}, b"m")
    rng = random.Random(0)
    seats = {random_move(rules, state, rng.randrange)[0] for _ in range(60)}
    assert seats == {0, 1, 2}  # all three lay aside at once: no seat is favoured


def test_options_are_validated_once_per_values_and_types() -> None:
    rules = get_rules("sixty-six")
    first = rules.options({"preset": "pagat", "target_game_points": 1})
    assert first is rules.options({"preset": "pagat", "target_game_points": 1})
    assert first == rules._validate_options({"preset": "pagat", "target_game_points": 1})
    # True == 1 and they hash alike, but True is no integer option value: not the cached one.
    for _ in range(2):
        with pytest.raises(InvalidOptions):
            rules.options({"preset": "pagat", "target_game_points": True})
    # An unhashable value is validated (and rejected) without the cache.
    with pytest.raises(InvalidOptions):
        rules.options({"target_game_points": [1]})
    assert rules.options(None) is rules.options({}) == rules._validate_options(None)


def test_random_move_with_two_seats_draws_as_the_general_rule() -> None:
    # Sixty-Six's gamefarm preset offers both seats a move between tricks (either may claim:
    # the leader must lead, the other may claim), so a random playout draws from both.
    rules = get_rules("sixty-six")
    state = rules.new_game({}, b"two")
    rng, ref = random.Random(5), random.Random(5)
    seen = set()
    while not state.finished:
        acting = rules.may_act(state)
        pool = [(seat, m) for seat in acting for m in rules.legal_moves(state, seat)]
        expected = pool[ref.randrange(len(pool))]
        seat, move = random_move(rules, state, rng.randrange)
        assert (seat, move) == expected
        seen.add((len(acting), seat))
        rules.apply_in_place(state, seat, move)
    assert any(n == 2 for n, _ in seen)  # the two-seat path ran


class _Stuck:
    """Rules whose seats are to act but have no legal move: a rules bug a playout reports."""

    name = "stuck"

    def __init__(self, acting: tuple[int, ...]) -> None:
        self.acting = acting

    def to_act(self, state: object) -> tuple[int, ...]:
        return self.acting

    def may_act(self, state: object) -> tuple[int, ...]:
        return self.acting

    def movers(self, state: object) -> tuple[int, ...]:
        return self.acting

    def legal_moves(self, state: object, seat: int) -> list[object]:
        return []


@pytest.mark.parametrize("acting", [(0,), (0, 1), (0, 1, 2), ()])
def test_random_move_reports_seats_with_no_legal_move(acting: tuple[int, ...]) -> None:
    rng = random.Random(0)
    with pytest.raises(RuntimeError, match="no legal move"):
        random_move(_Stuck(acting), None, rng.randrange)  # type: ignore[arg-type]


def test_variants_are_editions_and_presets() -> None:
    assert [v for v, _ in variants(get_rules("ninety-nine"))] == ["classic", "revised"]
    assert variants(get_rules("sixty-six")) == [
        ("gamefarm", {"preset": "gamefarm"}),
        ("pagat", {"preset": "pagat"}),
    ]
    assert variants(get_rules("counterpoint")) == [("default", {})]
    assert variants(get_rules("nominations")) == [("default", {})]  # no edition or preset


def test_simulate_prints_a_reproducible_json_summary(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "counterpoint", "--games", "3", "--seed", "7", "--json"]
    assert main([*args, "--option", "target_score=40"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main([*args, "--option", "target_score=40"]) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert first["games"] == 3 and first["options"]["target_score"] == 40
    assert len(first["average_score"]) == 2 and abs(sum(first["win_share"]) - 1) < 1e-9
    assert first["deals_per_game"] >= 1 and first["moves_per_game"] > 0


@pytest.mark.parametrize(
    ("preset", "next_dealer"), [("gamefarm", "alternate"), ("pagat", "winner")]
)
def test_simulate_sixty_six_under_each_preset(
    capsys: pytest.CaptureFixture[str], preset: str, next_dealer: str
) -> None:
    args = ["simulate", "sixty-six", "--games", "3", "--seed", "7", "--json"]
    assert main([*args, "--option", f"preset={preset}"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["game"] == "sixty-six" and summary["games"] == 3
    # the preset sets the other flags' defaults (§11)
    assert summary["options"]["preset"] == preset
    assert summary["options"]["next_dealer"] == next_dealer
    assert summary["options"]["target_game_points"] == 7
    assert len(summary["average_score"]) == 2 and abs(sum(summary["win_share"]) - 1) < 1e-9
    # Every match ends with a player on 7 or more (§9.6), and a deal pays at most 3 plus the
    # carry, which grows by 1 per deal that paid nothing: at least 3 deals per match.
    assert sum(summary["average_score"]) >= 7 - 0.01
    assert summary["deals_per_game"] >= 3 and summary["moves_per_game"] > 0


def test_simulate_nominations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "nominations", "--games", "2", "--seed", "7", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["game"] == "nominations" and summary["games"] == 2
    assert summary["options"]["target_score"] == 101
    assert summary["options"]["all_pass"] == "double_hand"
    assert len(summary["average_score"]) == 4 and abs(sum(summary["win_share"]) - 1) < 1e-9
    # A game ends once someone has 101 (§9); one deal pays a seat at most 26 x 2 (an open
    # misère in a double hand, §8), so a game has at least 2 played deals.
    assert sum(summary["average_score"]) >= 101 - 0.02
    assert summary["deals_per_game"] >= 2 and summary["moves_per_game"] > 0
    assert main(["simulate", "nominations", "--games", "1"]) == 0
    out = capsys.readouterr().out
    assert "Nominations: 1 games" in out and "seat 3:" in out


def test_simulate_prints_a_table_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "ninety-nine", "--games", "1", "--option", "game_length_deals=1"]) == 0
    out = capsys.readouterr().out
    assert "Ninety-Nine: 1 games" in out and "seat 2:" in out


def test_simulate_names_a_bad_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "ninety-nine", "--games", "1", "--option", "edtion=revised"]) == 2
    assert "edtion" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["simulate", "ninety-nine", "--option", "no-equals-sign"])


def test_bench_engine_prints_one_json_object_per_variant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "engine", "--seconds", "0.05", "--game", "ninety-nine", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["variant"] for r in rows] == ["classic", "revised"]
    for row in rows:
        assert row["game"] == "ninety-nine" and row["apply"] == "in_place"
        assert row["moves_per_s"] > 0 and row["deals_per_s"] >= 0 and row["games"] >= 1


@pytest.mark.parametrize(
    ("game", "names", "min_deals"),
    [("sixty-six", ["gamefarm", "pagat"], 3), ("nominations", ["default"], 2)],
)
def test_bench_engine_measures_every_variant_of_sixty_six_and_nominations(
    capsys: pytest.CaptureFixture[str], game: str, names: list[str], min_deals: int
) -> None:
    assert main(["bench", "engine", "--seconds", "0.02", "--game", game, "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["variant"] for r in rows] == names
    for row in rows:
        assert row["game"] == game and row["apply"] == "in_place"
        assert row["games"] >= 1 and row["moves"] > 0 and row["seconds"] > 0
        # every game is played to its end: at least min_deals scored deals each (see the
        # simulate tests above for why)
        assert row["deals"] >= min_deals * row["games"]
        assert row["moves_per_s"] > 0 and row["deals_per_s"] > 0


def test_bench_engine_can_also_measure_the_pure_apply(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--seconds", "0.05", "--game", "counterpoint", "--copy"]) == 0
    out = capsys.readouterr().out
    assert "in_place" in out and "copy" in out


def test_bench_engine_measures_openspiel_oh_hell_in_the_same_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed: pip install open-spiel")
    args = ["bench", "engine", "--seconds", "0.05", "--game", "counterpoint", "--json"]
    assert main([*args, "--against-openspiel"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # OpenSpiel before the engine and after it (the drift within the run)
    assert [r["game"] for r in rows] == ["openspiel:oh_hell", "counterpoint", "openspiel:oh_hell"]
    for row in rows:  # the figure that compares: moves per CPU second of this process
        assert row["moves_per_cpu_s"] > 0 and row["cpu_seconds"] > 0 and row["games"] >= 1
    assert rows[0]["variant"] == "players=4" and rows[0]["chance_moves"] > 0
    reference = rows[0]["moves_per_cpu_s"]
    assert "vs_openspiel" not in rows[0]
    for row in rows[1:]:  # each line over the first OpenSpiel line's figure
        assert row["vs_openspiel"] == round(row["moves_per_cpu_s"] / reference, 3)
