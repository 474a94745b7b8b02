"""``tricktable simulate``: play whole games in-process with random legal moves."""

from __future__ import annotations

import argparse
import json
import random
from typing import Any

from tricktable.cli.common import add_option_argument, parse_options

from engine import get_rules
from engine.core.errors import EngineError
from engine.core.options import options_to_data
from engine.playout import random_playout
from service.cli.common import add_game_argument, derive_seed, fail


def register(sub: Any) -> None:
    p = sub.add_parser("simulate", help="play N games with random legal moves and summarise")
    add_game_argument(p)
    add_option_argument(p)
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--seed", default="1", help="seed for the deals and the random moves")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise SystemExit("tricktable: --games must be at least 1")
    rules = get_rules(args.game)
    try:
        options = rules.options(parse_options(args.option))
    except EngineError as exc:
        return fail(exc)
    given = options_to_data(options)
    seats = rules.seats
    total = [0] * seats
    wins = [0.0] * seats
    moves = deals = 0
    for i in range(args.games):
        result = random_playout(
            rules, given, derive_seed(args.seed, "deals", i), random.Random(f"{args.seed}:{i}")
        )
        moves += result.moves
        deals += result.deals
        for seat in range(seats):
            total[seat] += result.outcome.totals[seat]
        for seat in result.outcome.winners:  # a shared win counts as a fraction
            wins[seat] += 1 / len(result.outcome.winners)
    n = args.games
    summary = {
        "game": rules.name,
        "options": given,
        "games": n,
        "seed": args.seed,
        "average_score": [round(t / n, 2) for t in total],
        "win_share": [round(w / n, 4) for w in wins],
        "deals_per_game": round(deals / n, 2),
        "moves_per_game": round(moves / n, 2),
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    print(f"{rules.title}: {n} games, seed {args.seed}")
    print(f"  deals per game  {summary['deals_per_game']}")
    print(f"  moves per game  {summary['moves_per_game']}")
    for seat in range(seats):
        print(
            f"  seat {seat}: average score {summary['average_score'][seat]:>8}"
            f"   win share {summary['win_share'][seat]:.3f}"
        )
    return 0
