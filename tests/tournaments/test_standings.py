"""The schedule and the standings, pure: every table in every rotation, deals shared by a
duplicate set, standings a function of the results (not of the order they were counted in),
Wilson intervals, duplicate scores."""

from __future__ import annotations

import random

from tricktable.tournament import wilson_interval

from service.tournaments.schedule import game_count, slots
from service.tournaments.spec import Entrant, TournamentSpec
from service.tournaments.standings import Folds, Result, duplicate_scores, standings


def spec(
    entrants: int, seats: int, rounds: int, duplicate: bool, seed: bytes = b"s"
) -> TournamentSpec:
    return TournamentSpec(
        tournament_id="t",
        name="",
        game_type="x",
        seats=seats,
        options={},
        time_control=None,
        rounds=rounds,
        duplicate=duplicate,
        entrants=tuple(Entrant(n, "random", f"e{n}") for n in range(entrants)),
        games_at_once=1,
        seed=seed,
        creator_hash="",
        created_at_ms=0,
    )


def test_every_table_in_every_rotation_every_round() -> None:
    games = slots(spec(4, 3, 2, False))
    assert len(games) == game_count(4, 3, 2) == 4 * 3 * 2
    for entrant in range(4):
        seats = [g.seats.index(entrant) for g in games if entrant in g.seats]
        assert sorted(set(seats)) == [0, 1, 2]  # every seat
    assert len({g.seed for g in games}) == len(games)  # a deal per game
    assert game_count(2, 3, 1) == len(slots(spec(2, 3, 1, False)))


def test_duplicate_sets_share_deals_and_seeds_come_from_the_tournament_seed() -> None:
    games = slots(spec(3, 2, 2, True))
    for g in games:
        same = [h for h in games if (h.table, h.round) == (g.table, g.round)]
        assert {h.seed for h in same} == {g.seed} and len(same) == 2
    assert [g.seed for g in games] == [g.seed for g in slots(spec(3, 2, 2, True))]
    assert [g.seed for g in games] != [g.seed for g in slots(spec(3, 2, 2, True, b"other"))]


def _results(games: int) -> dict[int, Result]:
    rng = random.Random(7)
    out = {}
    for n in range(games):
        scores = (rng.randint(0, 99), rng.randint(0, 99))
        winners = (0,) if scores[0] > scores[1] else (1,) if scores[1] > scores[0] else (0, 1)
        out[n] = Result(n, f"g{n}", scores, winners)
    return out


def test_standings_do_not_depend_on_the_order_results_were_counted() -> None:
    s = spec(3, 2, 2, True)
    games = slots(s)
    results = _results(len(games))
    shuffled = dict(sorted(results.items(), key=lambda kv: random.Random(1).random()))
    assert standings(s.entrants, games, results, duplicate=True) == standings(
        s.entrants, games, shuffled, duplicate=True
    )
    rows = standings(s.entrants, games, results, duplicate=True)
    assert [r.rank for r in rows] == [1, 2, 3]
    assert sum(r.games for r in rows) == 2 * len(games)
    assert abs(sum(r.wins for r in rows) - len(games)) < 1e-9
    for r in rows:
        assert (r.win_share_low, r.win_share_high) == wilson_interval(r.wins, r.games)
        assert r.win_share_low <= r.win_share <= r.win_share_high
        assert r.ordinal == r.mu - 3 * r.sigma


def test_duplicate_score_compares_holders_of_the_same_cards() -> None:
    s = spec(2, 2, 1, True)
    games = slots(s)  # one table, two rotations, one deal
    # rotation 0: entrant 0 at seat 0 scores 30; rotation 1: entrant 1 at seat 0 scores 10
    by_rotation = {g.rotation: g for g in games}
    a, b = by_rotation[0], by_rotation[1]
    assert a.seats[0] == 0 and b.seats[0] == 1
    results = {
        a.number: Result(a.number, "a", (30, 5), (0,)),
        b.number: Result(b.number, "b", (10, 20), (1,)),
    }
    dup = duplicate_scores([(a, results[a.number]), (b, results[b.number])])
    # entrant 0: seat 0 30 - 10, seat 1 20 - 5; entrant 1: the opposite
    assert dup == {0: 17.5, 1: -17.5}
    rows = {r.entrant: r for r in standings(s.entrants, games, results, duplicate=True)}
    assert rows[0].duplicate_score == 17.5
    assert standings(s.entrants, games, results, duplicate=False)[0].duplicate_score == 0.0


def test_kept_folds_give_the_standings_of_a_fold_from_scratch() -> None:
    s = spec(3, 2, 4, True)
    games = slots(s)
    results = _results(len(games))
    order = list(results)
    random.Random(3).shuffle(order[: len(order) // 2])  # counted partly out of order
    folds = Folds()
    counted: dict[int, Result] = {}
    for number in order:
        counted[number] = results[number]
        kept = standings(s.entrants, games, counted, duplicate=True, folds=folds, key="t")
        assert kept == standings(s.entrants, games, counted, duplicate=True)
    # a stale read (fewer results than the fold has seen) is folded from scratch
    fewer = {n: results[n] for n in list(results)[:3]}
    assert standings(s.entrants, games, fewer, duplicate=True, folds=folds, key="t") == standings(
        s.entrants, games, fewer, duplicate=True
    )
