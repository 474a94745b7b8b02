"""``tricktable bench engine``: random-playout throughput per game and variant (``service``,
``cluster-client``, ``abuse`` and ``tournament`` are in :mod:`benchmarks.service`,
:mod:`benchmarks.cluster_client`, :mod:`benchmarks.abuse` and :mod:`benchmarks.tournament`;
``fuzz``, hostile input through every door, in :mod:`benchmarks.fuzz`).

It prints numbers; it never asserts on them (machines are shared and noisy). Each line of
``--json`` output is one measurement with ``game``, ``variant``, ``moves_per_s``, ``deals_per_s``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

import engine
from benchmarks import abuse as benchmark_abuse
from benchmarks import clocks as benchmark_clocks
from benchmarks import cluster_client as bench_cluster_client
from benchmarks import fuzz as benchmark_fuzz
from benchmarks import service as benchmark
from benchmarks import streams as benchmark_streams
from benchmarks import tournament as benchmark_tournament
from engine import get_rules
from engine.playout import random_playout, variants
from service.cli.common import derive_seed


def register(sub: Any) -> None:
    p = sub.add_parser("bench", help="measure performance (prints numbers, asserts nothing)")
    target = p.add_subparsers(dest="target", required=True, metavar="TARGET")
    e = target.add_parser("engine", help="random playouts per game and variant")
    e.add_argument("--seconds", type=float, default=2.0, help="time per variant (default 2)")
    e.add_argument(
        "--game",
        action="append",
        choices=engine.game_names(),
        help="only these games (repeatable; default all)",
    )
    e.add_argument("--json", action="store_true", help="one JSON object per line")
    e.add_argument(
        "--copy",
        action="store_true",
        help="also measure the pure apply (a new state per move) beside the in-place playout",
    )
    e.set_defaults(run=run_engine)
    s = target.add_parser("service", help="bots playing through gRPC, with a same-run floor")
    benchmark.add_arguments(s)
    s.set_defaults(run=benchmark.run)
    w = target.add_parser("streams", help="many idle event streams on one replica (Redis)")
    benchmark_streams.add_arguments(w)
    w.set_defaults(run=benchmark_streams.run)
    c = target.add_parser(
        "cluster-client", help="client CPU per hot call on a Redis Cluster: redis-py vs pipelined"
    )
    bench_cluster_client.add_arguments(c)
    c.set_defaults(run=bench_cluster_client.run)
    c = target.add_parser(
        "clocks", help="many deserted clocked games: deadline to commit of the timeouts"
    )
    benchmark_clocks.add_arguments(c)
    c.set_defaults(run=benchmark_clocks.run)
    f = target.add_parser(
        "fuzz",
        help="hostile input through every door of a serve process: counts per door and status",
    )
    benchmark_fuzz.add_arguments(f)
    f.set_defaults(run=benchmark_fuzz.run)
    a = target.add_parser(
        "abuse", help="honest players' move latency beside an abusive client, in one run"
    )
    benchmark_abuse.add_arguments(a)
    a.set_defaults(run=benchmark_abuse.run)
    t = target.add_parser(
        "tournament",
        help="a hosted tournament on one replica and on two, beside the client-side one",
    )
    benchmark_tournament.add_arguments(t)
    t.set_defaults(run=benchmark_tournament.run)


def measure(
    game: str, variant: str, options: dict[str, object], seconds: float, *, in_place: bool = True
) -> dict[str, Any]:
    rules = get_rules(game)
    rng = random.Random(0)
    moves = deals = games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        seed = derive_seed("bench", game, variant, games)
        result = random_playout(rules, options, seed, rng, in_place=in_place)
        moves += result.moves
        deals += result.deals
        games += 1
        now = time.perf_counter()
        if now >= deadline:
            break
    elapsed = now - start
    return {
        "game": game,
        "variant": variant,
        "apply": "in_place" if in_place else "copy",
        "games": games,
        "moves": moves,
        "deals": deals,
        "seconds": round(elapsed, 3),
        "moves_per_s": round(moves / elapsed),
        "deals_per_s": round(deals / elapsed, 1),
    }


def run_engine(args: argparse.Namespace) -> int:
    for game in args.game or engine.game_names():
        for variant, options in variants(get_rules(game)):
            for in_place in (True, False) if args.copy else (True,):
                row = measure(game, variant, options, args.seconds, in_place=in_place)
                if args.json:
                    print(json.dumps(row), flush=True)
                else:
                    print(
                        f"{game:<14} {variant:<10} {row['apply']:<9}"
                        f"{row['moves_per_s']:>10,} moves/s "
                        f"{row['deals_per_s']:>9,} deals/s  ({row['games']} games)",
                        flush=True,
                    )
    return 0
