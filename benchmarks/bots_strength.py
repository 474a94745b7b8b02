"""``tricktable bench strength``: the expert bot against the heuristic bot, in duplicate
tournaments (:mod:`tricktable.tournament`) on a server of its own or one at ``--address``.

Per game: the expert's share of the wins over its seat-games with the 95% Wilson interval, par
(1 / seats: what an equal bot wins), the share less par in points, the issue's target (70% in
the two-seat games, par + 15 points in Ninety-Nine and Nominations), the expert's timeouts, and
its time per decision searched (p50, p99; a forced move is not searched and not counted).
Prints numbers and asserts nothing: a run is a measurement, at the budget it is given.

At the larger tables two entrants fill every mix of seats (:func:`tricktable.tournament.tables`):
Ninety-Nine plays expert-expert-heuristic and expert-heuristic-heuristic, Nominations 3-1, 2-2 and
1-3; where experts share a table they share its wins, so even an expert that always beats the
heuristic wins at most 2/3 of its Ninety-Nine seat-games and 1/2 of its Nominations ones. Par
(1 / seats) is what an equal bot wins at every mix.

    tricktable bench strength --games 40 --ms 50
    tricktable bench strength --game nominations --games 20 --ms 50 --move-time-s 5
"""

from __future__ import annotations

import argparse
import json
import math
import threading
import time
from dataclasses import dataclass

from tricktable.bots import HEURISTIC
from tricktable.bots.expert import DEFAULT_MS, ExpertBot
from tricktable.cli.local_server import local_server
from tricktable.client import Client
from tricktable.tournament import (
    Entrant,
    TournamentConfig,
    run_tournament,
    seat_count,
    tables,
    wilson_interval,
)

GAMES = tuple(sorted(HEURISTIC))
#: The issue's targets: the expert's share of wins at least this (two-seat games) ...
TWO_SEAT_TARGET = 0.70
#: ... or at least par plus this (the larger tables).
ABOVE_PAR_TARGET = 0.15

#: The budget the experts of this run are made with (set by ``run``), and every expert made,
#: so their times per decision can be read after the games.
_settings: dict[str, float] = {"ms": float(DEFAULT_MS)}
_experts: list[ExpertBot] = []
_lock = threading.Lock()


def timed_expert(game: str, seed: int | str | None = None) -> ExpertBot:
    """An entrant's factory (``benchmarks.bots_strength:timed_expert``): the expert, kept so
    that its time per decision is counted."""
    bot = ExpertBot(game, ms=_settings["ms"], seed=seed)
    with _lock:
        _experts.append(bot)
    return bot


@dataclass(frozen=True)
class Strength:
    game: str
    seats: int
    games: int
    seat_games: int
    share: float
    ci_low: float
    ci_high: float
    par: float
    above_par_points: float
    target: str
    met: bool
    timeouts: int
    decisions: int
    p50_ms: float
    p99_ms: float
    seconds: float


def percentile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rounds_for(games: int, seats: int) -> int:
    """Rounds of a two-entrant duplicate tournament that play about ``games`` games."""
    per_round = sum(len(table) for table in tables(["expert", "heuristic"], seats))
    return max(1, round(games / per_round))


def measure(
    client: Client, game: str, games: int, *, seed: str, move_time_s: float | None, parallel: int
) -> Strength:
    seats = seat_count(client, game)
    config = TournamentConfig(
        game=game,
        entrants=(
            Entrant("expert", "benchmarks.bots_strength:timed_expert"),
            Entrant("heuristic", "heuristic"),
        ),
        rounds=rounds_for(games, seats),
        duplicate=True,
        seed=seed,
        move_time_s=move_time_s,
    )
    with _lock:
        _experts.clear()
    started = time.perf_counter()
    result = run_tournament(client, config, parallel=parallel)
    elapsed = time.perf_counter() - started
    (expert,) = [s for s in result.standings if s.name == "expert"]
    with _lock:
        times = [t for bot in _experts for t in bot.times]
    par = 1 / seats
    if seats == 2:
        target, met = f">= {TWO_SEAT_TARGET:.0%}", expert.win_rate >= TWO_SEAT_TARGET
    else:
        target = f">= par + {ABOVE_PAR_TARGET * 100:.0f} points"
        met = expert.win_rate - par >= ABOVE_PAR_TARGET
    low, high = wilson_interval(expert.wins, expert.games)
    return Strength(
        game=game,
        seats=seats,
        games=len(result.games),
        seat_games=expert.games,
        share=expert.win_rate,
        ci_low=low,
        ci_high=high,
        par=par,
        above_par_points=(expert.win_rate - par) * 100,
        target=target,
        met=met,
        timeouts=expert.timeouts,
        decisions=len(times),
        p50_ms=percentile(times, 0.50) * 1000,
        p99_ms=percentile(times, 0.99) * 1000,
        seconds=elapsed,
    )


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--address", help="a running server (default: start one)")
    p.add_argument("--game", action="append", choices=GAMES, help="(repeatable; default all)")
    p.add_argument("--games", type=int, default=40, help="games per game type (about; default 40)")
    p.add_argument(
        "--ms", type=float, default=DEFAULT_MS, help=f"the expert's budget (default {DEFAULT_MS})"
    )
    p.add_argument(
        "--move-time-s",
        type=float,
        default=None,
        help="a clock for every seat (seconds a move): timeouts are then counted",
    )
    p.add_argument("--parallel", type=int, default=1, help="games at once (default 1)")
    p.add_argument("--seed", default="strength")
    p.add_argument("--json", action="store_true", help="one JSON object per game type")


def run(args: argparse.Namespace) -> int:
    if args.ms <= 0 or args.games < 1 or args.parallel < 1:
        raise SystemExit("--ms, --games and --parallel must be positive")
    _settings["ms"] = args.ms
    games = args.game or list(GAMES)

    def play(address: str) -> None:
        with Client(address, timeout_s=60.0) as client:
            rows = []
            for game in games:
                row = measure(
                    client,
                    game,
                    args.games,
                    seed=args.seed,
                    move_time_s=args.move_time_s,
                    parallel=args.parallel,
                )
                rows.append(row)
                if args.json:
                    print(json.dumps(row.__dict__), flush=True)
            if not args.json:
                print_table(rows, args)

    if args.address:
        play(args.address)
    else:
        with local_server("bench strength") as address:
            play(address)
    return 0


def print_table(rows: list[Strength], args: argparse.Namespace) -> None:
    clock = f"{args.move_time_s} s a move" if args.move_time_s else "none"
    print(f"expert (ms={args.ms:g}) vs heuristic, duplicate deals; clock: {clock}")
    header = (
        f"{'game':<13}{'games':>6}{'seat-games':>11}{'share':>8}{'95% interval':>16}"
        f"{'par':>6}{'vs par':>8}  {'target':<24}{'met':<5}{'timeouts':>9}"
        f"{'p50 ms':>8}{'p99 ms':>8}{'s':>7}"
    )
    print(header)
    for r in rows:
        print(
            f"{r.game:<13}{r.games:>6}{r.seat_games:>11}{r.share:>8.3f}"
            f"{f'[{r.ci_low:.3f}, {r.ci_high:.3f}]':>16}{r.par:>6.3f}{r.above_par_points:>+8.1f}  "
            f"{r.target:<24}{'yes' if r.met else 'no':<5}{r.timeouts:>9}"
            f"{r.p50_ms:>8.1f}{r.p99_ms:>8.1f}{r.seconds:>7.0f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
