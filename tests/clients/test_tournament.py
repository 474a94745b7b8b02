"""Tournaments (:mod:`tricktable.tournament`) and ``tricktable tournament``: the schedule, the
standings' arithmetic, and small runs against a real server: reproducible for a seed, the same
at any parallelism, with remote (BotService) and imported entrants, exported as JSON and CSV."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
from rich.console import Console
from tricktable.bots import RandomBot, make_bot, serve_bot
from tricktable.bots.base import Move, View, may_wait
from tricktable.bots.runner import BotError
from tricktable.bots.service import BotServer
from tricktable.cli import main
from tricktable.cli.tournament import _seconds
from tricktable.client import Client
from tricktable.tournament import (
    Entrant,
    GameRecord,
    TournamentConfig,
    TournamentResult,
    progress_bar,
    rotations,
    run_tournament,
    schedule,
    standings,
    tables,
    wilson_interval,
)
from tricktable.v1 import moves_pb2

from service.running import ServerThread
from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
SHORT_COUNTERPOINT = {"target_score": 60}
SHORT_SIXTY_SIX = {"target_game_points": 4}
HEURISTIC_VS_RANDOM = (Entrant("heuristic", "heuristic"), Entrant("random", "random"))


class FirstLegal:
    """An imported entrant: a bot class whose constructor takes the game and the seed."""

    made: ClassVar[list[tuple[str, object]]] = []

    def __init__(self, game: str, seed: object = None) -> None:
        self.game = game
        self.seed = seed
        FirstLegal.made.append((game, seed))

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        return None if not legal or may_wait(view, legal) else legal[0]


class Factories:
    @staticmethod
    def first(game: str) -> FirstLegal:
        return FirstLegal(game)


def keyword_factory(**given: Any) -> FirstLegal:
    return FirstLegal(given["game"], given["seed"])


def needs_a_view(view: View, legal: Sequence[Move]) -> Move | None:
    return legal[0]


def makes_nothing() -> int:
    return 7


NOT_CALLABLE = 3
IMPORTED = f"{__name__}:FirstLegal"


def without_game_ids(result: TournamentResult) -> list[GameRecord]:
    return [replace(game, game_id="") for game in result.games]


# -- the schedule (no server) -----------------------------------------------------------------


def test_tables_are_every_combination_of_distinct_entrants() -> None:
    assert tables(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert len(tables(["a", "b", "c", "d", "e"], 3)) == math.comb(5, 3)


@pytest.mark.parametrize(("names", "seats"), [("ab", 3), ("ab", 4), ("abc", 4)])
def test_fewer_entrants_than_seats_fill_several_seats_and_none_is_favoured(
    names: str, seats: int
) -> None:
    found = tables(list(names), seats)
    assert found and all(set(table) == set(names) and len(table) == seats for table in found)
    assert len(set(found)) == len(found) == math.comb(seats - 1, len(names) - 1)
    places = Counter(name for table in found for name in table)
    assert len(set(places.values())) == 1  # every entrant fills as many seats in all
    assert tables(["a", "b"], 3) == [("a", "a", "b"), ("a", "b", "b")]


@pytest.mark.parametrize("table", [("a", "b", "c"), ("a", "a", "b"), ("a", "b")])
def test_rotations_seat_each_member_of_a_table_in_each_seat(table: tuple[str, ...]) -> None:
    seatings = rotations(table)
    assert len(seatings) == len(table) and len(set(seatings)) == len(table)
    for seat in range(len(table)):
        assert Counter(s[seat] for s in seatings) == Counter(table)
    assert seatings[0] == table and seatings[1] == (table[-1], *table[:-1])


def test_a_duplicate_set_deals_the_same_cards_to_every_rotation() -> None:
    games = schedule(["h", "r", "x"], 2, 2, duplicate=True, seed="s")
    assert len(games) == 3 * 2 * 2  # tables × rotations × rounds
    assert [g.number for g in games] == list(range(12))
    by_set: dict[int, list[Any]] = {}
    for game in games:
        by_set.setdefault(game.set, []).append(game)
    assert sorted(by_set) == list(range(6))
    for members in by_set.values():
        assert len({g.seed for g in members}) == 1 and len({g.seed_id for g in members}) == 1
        assert len({g.table for g in members}) == 1 and len({g.round for g in members}) == 1
        assert [g.seats for g in members] == rotations(members[0].seats)
    assert len({members[0].seed for members in by_set.values()}) == 6  # each set its own deal
    assert [g.round for g in games] == [0] * 6 + [1] * 6


def test_without_duplicate_every_game_has_its_own_deal() -> None:
    games = schedule(["h", "r"], 3, 2, duplicate=False, seed="s")
    assert len(games) == 2 * 3 * 2  # tables (h h r, h r r) × rotations × rounds
    assert len({g.seed for g in games}) == len(games)
    assert len({g.set for g in games}) == 4


def test_every_seed_derives_from_the_tournament_seed() -> None:
    def seeds(seed: str, duplicate: bool) -> list[bytes]:
        return [g.seed for g in schedule(["a", "b"], 2, 3, duplicate=duplicate, seed=seed)]

    assert seeds("one", True) == seeds("one", True)
    assert not set(seeds("one", True)) & set(seeds("two", True))
    assert not set(seeds("one", False)) & set(seeds("two", False))
    assert all(len(s) == 32 for s in seeds("one", False))


def test_a_configuration_needs_two_distinctly_named_entrants_and_a_round() -> None:
    with pytest.raises(ValueError, match="at least two"):
        TournamentConfig("counterpoint", (Entrant("a", "random"),))
    with pytest.raises(ValueError, match="must differ"):
        TournamentConfig("counterpoint", (Entrant("a", "random"), Entrant("a", "heuristic")))
    with pytest.raises(ValueError, match="rounds"):
        TournamentConfig("counterpoint", HEURISTIC_VS_RANDOM, rounds=0)
    with pytest.raises(ValueError, match="longer than 64"):
        TournamentConfig("counterpoint", (Entrant("a" * 65, "random"), Entrant("b", "random")))
    assert Entrant.parse("best=pkg.mod:Bot") == Entrant("best", "pkg.mod:Bot")
    assert Entrant.parse("grpc://host:1") == Entrant("grpc://host:1", "grpc://host:1")
    with pytest.raises(ValueError, match="NAME=SPEC"):
        Entrant.parse("name=")


# -- bots from import paths -------------------------------------------------------------------


def test_an_import_path_makes_a_bot_from_a_class_or_a_factory() -> None:
    bot = make_bot(IMPORTED, "counterpoint", "seed-1")
    assert isinstance(bot, FirstLegal) and (bot.game, bot.seed) == ("counterpoint", "seed-1")
    by_keywords = make_bot(f"{__name__}:keyword_factory", "sixty-six", 4)
    assert isinstance(by_keywords, FirstLegal) and by_keywords.seed == 4
    nothing_needed = make_bot("tricktable.bots:CounterpointBot", "counterpoint", "ignored")
    assert type(nothing_needed).__name__ == "CounterpointBot"
    random_bot = make_bot("tricktable.bots.random_bot:RandomBot", "counterpoint", 9)
    assert isinstance(random_bot, RandomBot)
    assert random_bot.rng.random() == RandomBot(9).rng.random()  # it was given the seed
    dotted = make_bot(f"{__name__}:Factories.first", "nominations")
    assert isinstance(dotted, FirstLegal) and (dotted.game, dotted.seed) == ("nominations", None)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_here:Bot", "cannot import 'no_such_module_here'"),
        (f"{__name__}:NoSuchBot", "has no attribute 'NoSuchBot'"),
        (f"{__name__}:NOT_CALLABLE", "is not a class or a factory"),
        (f"{__name__}:needs_a_view", "parameter 'view'"),
        (f"{__name__}:makes_nothing", "not a bot"),
        (":Bot", "package.module:attr"),
        ("module:", "package.module:attr"),
        ("cleverest", "unknown bot 'cleverest'"),
    ],
)
def test_a_bad_bot_spec_is_refused_with_a_message_that_says_why(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_bot(spec, "counterpoint")


def test_the_tournament_module_needs_only_the_client_package() -> None:
    code = (
        "import sys, tricktable.tournament\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT / "clients" / "python",
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    assert {"tricktable", "openskill", "rich"} <= loaded
    assert not loaded & {"engine", "service", "redis", "structlog"}


# -- standings arithmetic (no server) ---------------------------------------------------------


def test_the_wilson_interval_matches_known_values_and_contains_the_rate() -> None:
    low, high = wilson_interval(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert wilson_interval(0, 10)[0] == 0.0 and round(wilson_interval(0, 10)[1], 4) == 0.2775
    assert round(wilson_interval(10, 10)[0], 4) == 0.7225 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for trials in (1, 7, 40, 300):
        for wins in (0, 0.5, trials / 3, trials - 0.5, trials):
            low, high = wilson_interval(wins, trials)
            assert 0 <= low <= wins / trials <= high <= 1
    assert wilson_interval(30, 100)[1] - wilson_interval(30, 100)[0] < (
        wilson_interval(3, 10)[1] - wilson_interval(3, 10)[0]
    )


def record(seats: tuple[str, ...], scores: tuple[int, ...], winners: tuple[int, ...]) -> GameRecord:
    return GameRecord(0, 0, 0, 0, 0, seats, "id", "game", scores, winners, 10)


def test_a_games_ranking_puts_winners_first_then_scores_and_ties_share() -> None:
    game = record(("a", "b", "c"), (50, 70, 70), (1, 2))
    assert game.ranks == (3, 1, 1) and game.shares == (0.0, 0.5, 0.5)
    tie_broken = record(("a", "b"), (60, 60), (1,))  # a tie-break gave it to seat 1
    assert tie_broken.ranks == (2, 1) and tie_broken.shares == (0.0, 1.0)
    assert record(("a", "b", "c"), (90, 40, 40), (0,)).ranks == (1, 2, 2)


def test_standings_count_seat_games_shares_and_rate_the_winner_up() -> None:
    entrants = (Entrant("a", "heuristic"), Entrant("b", "random"), Entrant("c", "random"))
    games = [
        record(("a", "b"), (80, 40), (0,)),
        record(("b", "a"), (30, 90), (1,)),
        record(("a", "b", "b"), (70, 70, 20), (0, 1)),  # a shared win; b fills two seats
    ]
    rows = {s.name: s for s in standings(entrants, games)}
    assert (rows["a"].games, rows["a"].wins) == (3, 2.5)
    assert (rows["b"].games, rows["b"].wins) == (4, 0.5)
    assert (rows["c"].games, rows["c"].wins, rows["c"].win_rate) == (0, 0.0, 0.0)
    assert rows["a"].mean_score == pytest.approx(80) and rows["b"].mean_score == 40
    assert rows["a"].mu > rows["c"].mu > rows["b"].mu  # c has not played: still the default
    assert rows["c"].mu == pytest.approx(25) and rows["a"].sigma < rows["c"].sigma
    for row in rows.values():
        assert row.ordinal == pytest.approx(row.mu - 3 * row.sigma)
    assert [s.rank for s in standings(entrants, games)] == [1, 2, 3]
    assert [s.name for s in standings(entrants, games)] == ["a", "c", "b"]


def test_a_drawn_game_leaves_equal_players_equal() -> None:
    rows = standings(HEURISTIC_VS_RANDOM, [record(("heuristic", "random"), (50, 50), (0, 1))])
    assert rows[0].mu == pytest.approx(rows[1].mu) == pytest.approx(25)
    assert rows[0].wins == rows[1].wins == 0.5


# -- small runs against a real server ---------------------------------------------------------


@pytest.fixture(scope="module")
def module_client(server: ServerThread) -> Iterator[Client]:
    with Client(server.address, timeout_s=30.0) as client:
        yield client


CUP = TournamentConfig(
    "counterpoint",
    HEURISTIC_VS_RANDOM,
    rounds=3,
    duplicate=True,
    seed="cup",
    options=SHORT_COUNTERPOINT,
)


@pytest.fixture(scope="module")
def cup(module_client: Client) -> TournamentResult:
    return run_tournament(module_client, CUP, parallel=1)


def test_a_run_plays_the_whole_schedule(cup: TournamentResult) -> None:
    planned = schedule(["heuristic", "random"], 2, 3, duplicate=True, seed="cup")
    assert [(g.number, g.seats, g.seed_id) for g in cup.games] == [
        (g.number, g.seats, g.seed_id) for g in planned
    ]
    assert cup.seats == 2 and len({g.game_id for g in cup.games}) == 6
    for game in cup.games:
        assert game.winners and game.moves > 0
        assert max(game.scores) == max(game.scores[w] for w in game.winners)
    first, second = cup.games[0], cup.games[1]  # one duplicate set: same cards, seats swapped
    assert first.seed_id == second.seed_id and first.seats == second.seats[::-1]


def test_the_stronger_bot_is_rated_above_the_weaker(module_client: Client) -> None:
    config = TournamentConfig(
        "sixty-six",
        HEURISTIC_VS_RANDOM,
        rounds=10,
        duplicate=True,
        seed="strength",
        options=SHORT_SIXTY_SIX,
    )
    result = run_tournament(module_client, config, parallel=2)
    best, worst = result.standings
    assert best.name == "heuristic" and best.rank == 1 and worst.rank == 2
    assert best.mu > worst.mu and best.ordinal > worst.ordinal
    assert best.wins + worst.wins == len(result.games) and best.games == worst.games == 20
    assert best.ci_low > 0.5  # the interval excludes a coin toss
    for row in result.standings:
        assert row.ci_low <= row.win_rate <= row.ci_high


def test_the_same_seed_gives_the_same_tournament(
    module_client: Client, cup: TournamentResult
) -> None:
    again = run_tournament(module_client, CUP, parallel=1)
    assert without_game_ids(again) == without_game_ids(cup)
    assert again.standings == cup.standings
    other = run_tournament(module_client, replace(CUP, seed="other cup", rounds=1), parallel=1)
    assert {g.seed_id for g in other.games}.isdisjoint({g.seed_id for g in cup.games})


def test_a_parallel_run_gives_the_serial_results(
    module_client: Client, cup: TournamentResult
) -> None:
    ended: list[int] = []
    parallel = run_tournament(
        module_client, CUP, parallel=4, on_game=lambda game: ended.append(game.number)
    )
    assert without_game_ids(parallel) == without_game_ids(cup)
    assert parallel.standings == cup.standings
    assert sorted(ended) == list(range(len(cup.games)))


def test_fewer_entrants_than_seats_share_a_table(module_client: Client) -> None:
    config = TournamentConfig(
        "ninety-nine",
        HEURISTIC_VS_RANDOM,
        seed="three seats",
        options={"game_length_deals": 1},
    )
    result = run_tournament(module_client, config, parallel=2)
    assert [g.seats for g in result.games] == [
        *rotations(("heuristic", "heuristic", "random")),
        *rotations(("heuristic", "random", "random")),
    ]
    rows = {s.name: s for s in result.standings}
    assert rows["heuristic"].games == rows["random"].games == 9  # 6 games × 3 seats, halved
    assert rows["heuristic"].wins + rows["random"].wins == pytest.approx(6)


@pytest.fixture
def hosted_heuristic() -> Iterator[tuple[BotServer, list[str]]]:
    made: list[str] = []

    def factory(game: str) -> Any:
        made.append(game)
        return make_bot("heuristic", game)

    hosted = serve_bot(factory, name="heuristic", games=["sixty-six"])
    try:
        yield hosted, made
    finally:
        hosted.stop()


def test_remote_and_imported_entrants_play_their_seats(
    module_client: Client, hosted_heuristic: tuple[BotServer, list[str]]
) -> None:
    hosted, made = hosted_heuristic
    FirstLegal.made.clear()
    config = TournamentConfig(
        "sixty-six",
        (
            Entrant("remote", f"grpc://{hosted.address}"),
            Entrant("first", IMPORTED),
            Entrant("random", "random"),
        ),
        seed="mixed",
        options=SHORT_SIXTY_SIX,
    )
    result = run_tournament(module_client, config, parallel=3)
    assert len(result.games) == 6 and all(g.winners for g in result.games)
    assert made == ["sixty-six"] * 4  # one remote bot per seat the remote entrant played
    seats_of_first = [
        (g.number, seat)
        for g in result.games
        for seat, name in enumerate(g.seats)
        if name == "first"
    ]
    assert sorted(map(str, FirstLegal.made)) == sorted(
        str(("sixty-six", seed))
        for seed in ["check", *(f"mixed:bot:{number}:{seat}" for number, seat in seats_of_first)]
    )
    assert {s.name: s.games for s in result.standings} == {"remote": 4, "first": 4, "random": 4}


class CountingClient(Client):
    """Counts the games it creates."""

    created = 0

    def create(self, *args: Any, **kwargs: Any) -> Any:
        self.created += 1
        return super().create(*args, **kwargs)


def test_a_bad_entrant_fails_before_any_game_is_created(
    server: ServerThread, hosted_heuristic: tuple[BotServer, list[str]]
) -> None:
    hosted, _ = hosted_heuristic
    counting = CountingClient(server.address)
    bad = [
        ("no_such_module_here:Bot", "entrant 'bad': bot 'no_such_module_here:Bot'"),
        (f"grpc://127.0.0.1:{free_port()}", "entrant 'bad': grpc://127.0.0.1:.*UNAVAILABLE"),
        (f"grpc://{hosted.address}", "plays sixty-six, not counterpoint"),
    ]
    for spec, message in bad:
        config = TournamentConfig("counterpoint", (Entrant("bad", spec), Entrant("r", "random")))
        with pytest.raises(ValueError, match=message):
            run_tournament(counting, config)
    with pytest.raises(ValueError, match="offers no game 'euchre'"):
        run_tournament(counting, replace(CUP, game="euchre"))
    assert counting.created == 0
    run_tournament(counting, replace(CUP, rounds=1))  # the counting client does count
    assert counting.created == 2
    counting.close()


class Cheater:
    """An imported entrant that makes an illegal move when it first acts."""

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        return Move(claim=moves_pb2.Claim())


def test_the_first_failing_game_stops_the_tournament(server: ServerThread) -> None:
    counting = CountingClient(server.address)
    cheat = (Entrant("cheat", f"{__name__}:Cheater"), Entrant("random", "random"))
    config = TournamentConfig("counterpoint", cheat, rounds=10, seed="cheat")
    with pytest.raises(BotError, match="is not a legal move"):
        run_tournament(counting, config, parallel=2)
    assert 1 <= counting.created < 20  # of the 20 scheduled, those not started were dropped
    counting.close()


def test_the_progress_bar_shows_on_a_terminal_and_not_otherwise(module_client: Client) -> None:
    config = TournamentConfig("sixty-six", HEURISTIC_VS_RANDOM, options=SHORT_SIXTY_SIX)
    shown: dict[str, str] = {}
    for case, terminal, quiet in [
        ("tty", True, False),
        ("quiet", True, True),
        ("pipe", False, False),
    ]:
        out = io.StringIO()
        console = Console(file=out, force_terminal=terminal, width=100)
        with progress_bar(console, quiet=quiet) as hooks:
            run_tournament(
                module_client, config, on_schedule=hooks.on_schedule, on_game=hooks.on_game
            )
        shown[case] = out.getvalue()
    assert "2/2" in shown["tty"] and "games" in shown["tty"]
    assert shown["quiet"] == shown["pipe"] == ""


# -- exports ----------------------------------------------------------------------------------


def test_the_json_export_holds_the_config_every_game_and_the_standings(
    cup: TournamentResult, tmp_path: Path
) -> None:
    path = tmp_path / "cup.json"
    cup.write_json(path)
    data = json.loads(path.read_text())
    assert data["format"] == "tricktable-tournament/1"
    assert data["config"] == {
        "game": "counterpoint",
        "seats": 2,
        "entrants": [
            {"name": "heuristic", "spec": "heuristic"},
            {"name": "random", "spec": "random"},
        ],
        "rounds": 3,
        "duplicate": True,
        "seed": "cup",
        "options": {"target_score": 60},
    }
    assert len(data["games"]) == 6
    for exported, game in zip(data["games"], cup.games, strict=True):
        assert exported["number"] == game.number and exported["seats"] == list(game.seats)
        assert exported["scores"] == list(game.scores) and exported["moves"] == game.moves
        assert exported["winner_entrants"] == [game.seats[w] for w in game.winners]
        assert exported["ranks"] == list(game.ranks) and exported["seed_id"] == game.seed_id
    assert [row["name"] for row in data["standings"]] == ["heuristic", "random"]
    assert data["standings"][0]["mu"] == cup.standings[0].mu
    assert data["standings"][0]["ci_low"] == cup.standings[0].ci_low


def test_the_csv_exports_hold_the_standings_and_each_seat_of_each_game(
    cup: TournamentResult, tmp_path: Path
) -> None:
    cup.write_standings_csv(tmp_path / "standings.csv")
    cup.write_games_csv(tmp_path / "games.csv")
    with (tmp_path / "standings.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["rank"], r["name"]) for r in rows] == [("1", "heuristic"), ("2", "random")]
    for row, standing in zip(rows, cup.standings, strict=True):
        assert int(row["games"]) == standing.games and float(row["wins"]) == standing.wins
        assert float(row["ordinal"]) == standing.ordinal
        assert float(row["ci_low"]) <= float(row["win_rate"]) <= float(row["ci_high"])
    with (tmp_path / "games.csv").open() as f:
        seats = list(csv.DictReader(f))
    assert len(seats) == 6 * 2
    for game in cup.games:
        mine = [s for s in seats if int(s["game"]) == game.number]
        assert [s["entrant"] for s in mine] == list(game.seats)
        assert [int(s["score"]) for s in mine] == list(game.scores)
        assert sum(float(s["win_share"]) for s in mine) == 1.0
        assert {s["seed_id"] for s in mine} == {game.seed_id}


# -- the command ------------------------------------------------------------------------------


def test_the_command_runs_a_tournament_on_its_own_server_and_writes_the_files(
    module_client: Client, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {name: tmp_path / name for name in ("all.json", "standings.csv", "games.csv")}
    args = ["tournament", "sixty-six", "-o", "target_game_points=4", "--rounds", "2"]
    args += ["--entrant", "best=heuristic", "--entrant", "random", "--duplicate"]
    args += ["--seed", "cli", "--parallel", "2", "--quiet", "--json", str(files["all.json"])]
    args += ["--csv", str(files["standings.csv"]), "--games-csv", str(files["games.csv"])]
    assert main(args) == 0  # no --address: a server of its own, in this process
    out = capsys.readouterr().out
    assert "sixty-six: 4 games, duplicate deals, seed 'cli'" in out
    assert "best" in out and "random" in out and "95% CI" in out
    data = json.loads(files["all.json"].read_text())
    assert data["config"]["options"] == {"target_game_points": 4}  # typed, not "4"
    # The same configuration through the library, on another server, plays the same games.
    config = TournamentConfig(
        "sixty-six",
        (Entrant("best", "heuristic"), Entrant("random", "random")),
        rounds=2,
        duplicate=True,
        seed="cli",
        options=SHORT_SIXTY_SIX,
    )
    library = json.loads(json.dumps(run_tournament(module_client, config).to_data()))
    for game in data["games"] + library["games"]:
        game.pop("game_id")
    assert data == library
    assert len(files["standings.csv"].read_text().splitlines()) == 3
    assert len(files["games.csv"].read_text().splitlines()) == 1 + 4 * 2


def test_the_command_uses_a_running_server_when_given_its_address(
    server: ServerThread, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["tournament", "counterpoint", "--address", server.address, "--rounds", "1"]
    assert main([*args, "-o", "target_score=60", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "counterpoint: 2 games, a deal per game" in out
    assert "heuristic" in out and "random" in out  # the default entrants


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-e", "random", "-e", "x=no_such_module_here:Bot"], "entrant 'x': bot 'no_such_"),
        (["-e", "random", "-e", "x=cleverest"], "unknown bot 'cleverest'"),
        (["-e", "random", "-e", "=random"], "expected NAME=SPEC"),
        (["-e", "random", "-e", "r=random"], None),  # well formed: only the address is bad
        (["--entrant", "random"], "at least two entrants"),
        (["--parallel", "0"], "--parallel must be at least 1"),
    ],
)
def test_the_command_refuses_bad_entrants_before_playing(
    extra: list[str], message: str | None
) -> None:
    unreachable = f"127.0.0.1:{free_port()}"
    with pytest.raises(SystemExit, match=message or "tricktable: UNAVAILABLE"):
        main(["tournament", "counterpoint", "--address", unreachable, "--quiet", *extra])


def test_the_command_refuses_a_bad_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "counterpoint", "-o", "target_scor=60"]) == 2
    assert "target_scor" in capsys.readouterr().out


# -- clocks -----------------------------------------------------------------------------------


class NeverAnswers:
    """An entrant that hangs: it never returns a move."""

    def __init__(self, game: str, seed: object = None) -> None:
        self.wait = threading.Event()

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        self.wait.wait()  # never set
        return None


class Crashes:
    """An entrant that fails on every call."""

    def __init__(self, game: str, seed: object = None) -> None:
        return

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        raise RuntimeError("this bot is broken")


def test_a_clocked_tournament_with_a_hung_and_a_crashing_bot_finishes(
    module_client: Client,
) -> None:
    config = TournamentConfig(
        "counterpoint",
        (
            Entrant("heuristic", "heuristic"),
            Entrant("stuck", "tests.clients.test_tournament:NeverAnswers"),
            Entrant("broken", "tests.clients.test_tournament:Crashes"),
        ),
        options=SHORT_COUNTERPOINT,
        seed="clocked",
        move_time_s=1.0,  # the heuristic bot needs ms; 0.3 s lost turns at load 10-18
        forfeit_after=2,
    )
    result = run_tournament(module_client, config, parallel=3)
    assert len(result.games) == 6  # three tables, two rotations each: every game ended
    by_name = {s.name: s for s in result.standings}
    assert by_name["heuristic"].wins == 4 and by_name["heuristic"].timeouts == 0
    assert by_name["stuck"].timeouts >= 2 and by_name["broken"].timeouts >= 2
    assert result.standings[0].name == "heuristic"
    for game in result.games:
        if "heuristic" in game.seats:
            assert [game.seats[w] for w in game.winners] == ["heuristic"]
    data = result.to_data()
    assert data["config"]["clock"] == {"move_time_s": 1.0, "bank_s": 0.0, "forfeit_after": 2}
    assert [s["timeouts"] for s in data["standings"]] == [s.timeouts for s in result.standings]


def test_the_command_reads_durations_for_the_clock() -> None:
    assert (_seconds("2s"), _seconds("500ms"), _seconds("1.5")) == (2.0, 0.5, 1.5)
    with pytest.raises(argparse.ArgumentTypeError):
        _seconds("soon")


# -- Ctrl-C -----------------------------------------------------------------------------------


class MarksItsGames:
    """An entrant (random play) that counts the bots made in a file named by $TT_MARKER: one
    per seat as each game begins, so a test knows how far a tournament in another process is."""

    def __init__(self, game: str, seed: int | str | None = None) -> None:
        marker = Path(os.environ["TT_MARKER"])
        with marker.open("a") as out:
            out.write("x")
        self.bot = RandomBot(seed=seed)

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        return self.bot(view, legal)


@pytest.mark.parametrize("whom", ["group", "process"])
def test_ctrl_c_stops_a_tournament_cleanly_and_says_what_finished(
    server: ServerThread, tmp_path: Path, whom: str
) -> None:
    """SIGINT to a real ``tricktable tournament``: to its process group with a server of its
    own (a terminal's Ctrl-C reaches both), or to it alone, playing on a server elsewhere. It
    stops, prints the finished games' standings, writes no file and exits 130: no traceback.
    One game at a time, so once the 4th game's bots are made the first 3 have finished."""
    marker = tmp_path / "bots-made"
    marker.touch()
    entrant = f"marked={__name__}:MarksItsGames"
    args = [sys.executable, "-m", "tricktable.cli", "tournament", "counterpoint"]
    args += ["-e", entrant, "-e", "random", "--rounds", "500", "--parallel", "1", "--quiet"]
    args += ["--json", str(tmp_path / "all.json")]
    if whom == "process":
        args += ["--address", server.address]
    env = {**os.environ, "TT_MARKER": str(marker)}
    playing = subprocess.Popen(
        args,
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a process group of its own, as a terminal's job has
    )
    try:
        deadline = time.monotonic() + 120
        while len(marker.read_text()) < 7 and playing.poll() is None:
            assert time.monotonic() < deadline, "the tournament did not get to its 4th game"
            time.sleep(0.05)
        if whom == "group":
            os.killpg(playing.pid, signal.SIGINT)
        else:
            playing.send_signal(signal.SIGINT)
        out, err = playing.communicate(timeout=60)
    finally:
        if playing.poll() is None:
            playing.kill()
            playing.communicate()
    assert playing.returncode == 130, err
    assert "Traceback" not in err and "Traceback" not in out
    said = re.search(r"interrupted: (\d+) of 1000 games finished", err)
    assert said is not None, err
    finished = int(said.group(1))
    assert finished >= 3 and "no files written" in err
    assert "Standings of the finished games only" in out
    assert f"counterpoint: {finished} games, a deal per game" in out
    assert not (tmp_path / "all.json").exists()
