"""``tricktable bench engine``: random-playout throughput per game and variant (``service``,
``cluster-client``, ``abuse`` and ``tournament`` are in :mod:`benchmarks.service`,
:mod:`benchmarks.cluster_client`, :mod:`benchmarks.abuse` and :mod:`benchmarks.tournament`;
``fuzz``, hostile input through every door, in :mod:`benchmarks.fuzz`).

It prints numbers; it never asserts on them (machines are shared and noisy). Each line of
``--json`` output is one measurement with ``game``, ``variant``, ``moves_per_s``, ``deals_per_s``
(per wall second) and ``moves_per_cpu_s`` (per CPU second of this process, the figure that
compares across a shared machine's load). ``--against-openspiel`` adds OpenSpiel's ``oh_hell``
(4 players) measured the same way in the same run (:mod:`benchmarks.openspiel_oh_hell`), before
the engine and after it, and gives each line its ``vs_openspiel``: its moves per CPU second over
OpenSpiel's first line's (the last line's says how far the machine drifted meanwhile).
Each variant, and OpenSpiel's line, runs for ``--seconds`` of this process's CPU time.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

import engine
from benchmarks import abuse as benchmark_abuse
from benchmarks import bots_strength as benchmark_strength
from benchmarks import clocks as benchmark_clocks
from benchmarks import cluster_client as bench_cluster_client
from benchmarks import fuzz as benchmark_fuzz
from benchmarks import openspiel_oh_hell
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
    e.add_argument("--seconds", type=float, default=2.0, help="CPU time per variant (default 2)")
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
    e.add_argument(
        "--against-openspiel",
        action="store_true",
        help="also measure OpenSpiel's oh_hell (4 players) in the same run (needs open-spiel)",
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
    b = target.add_parser(
        "strength", help="the expert bot vs the heuristic bot: duplicate tournaments per game"
    )
    benchmark_strength.add_arguments(b)
    b.set_defaults(run=benchmark_strength.run)
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
    cpu_start = time.process_time()
    # Timed in CPU seconds, as OpenSpiel's line is: on a loaded machine a wall-clock budget
    # gives a variant a fraction of a CPU second, mostly the engine's warm-up (its lane
    # tables fill as hands are met), and the figures would not compare.
    deadline = cpu_start + seconds
    while True:
        seed = derive_seed("bench", game, variant, games)
        result = random_playout(rules, options, seed, rng, in_place=in_place)
        moves += result.moves
        deals += result.deals
        games += 1
        cpu_now = time.process_time()
        if cpu_now >= deadline:
            break
    cpu = max(cpu_now - cpu_start, 1e-9)
    elapsed = max(time.perf_counter() - start, 1e-9)
    return {
        "game": game,
        "variant": variant,
        "apply": "in_place" if in_place else "copy",
        "games": games,
        "moves": moves,
        "deals": deals,
        "seconds": round(elapsed, 3),
        "cpu_seconds": round(cpu, 3),
        "moves_per_s": round(moves / elapsed),
        "moves_per_cpu_s": round(moves / cpu),
        "deals_per_s": round(deals / elapsed, 1),
    }


def run_engine(args: argparse.Namespace) -> int:
    if args.against_openspiel and (missing := openspiel_oh_hell.available()) is not None:
        print(f"tricktable: --against-openspiel: {missing}", flush=True)
        return 2
    # OpenSpiel is measured before the engine and after it: each engine line is compared with
    # the first (``vs_openspiel``), and the second shows how far the machine's speed drifted
    # meanwhile (a shared machine's load varies within a run too).
    reference = None
    if args.against_openspiel:
        first = openspiel_oh_hell.measure(args.seconds)
        reference = first["moves_per_cpu_s"]
        _print(first, args.json)
    for game in args.game or engine.game_names():
        for variant, options in variants(get_rules(game)):
            for in_place in (True, False) if args.copy else (True,):
                row = measure(game, variant, options, args.seconds, in_place=in_place)
                if reference:
                    row["vs_openspiel"] = round(row["moves_per_cpu_s"] / reference, 3)
                _print(row, args.json)
    if reference:
        last = openspiel_oh_hell.measure(args.seconds)
        last["vs_openspiel"] = round(last["moves_per_cpu_s"] / reference, 3)
        _print(last, args.json)
    return 0


def _print(row: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(row), flush=True)
        return
    print(
        f"{row['game']:<18} {row['variant']:<10} {row['apply']:<9}"
        f"{row['moves_per_cpu_s']:>10,} moves/CPU-s {row['moves_per_s']:>10,} moves/s "
        f"{row['deals_per_s']:>9,} deals/s  ({row['games']} games)"
        + (f"  {row['vs_openspiel']:.2f}× OpenSpiel" if "vs_openspiel" in row else ""),
        flush=True,
    )
