"""``tricktable bench tournament``: a hosted tournament between reference bots (the servers
play every seat and advance the tournament) on one replica and on two sharing a Redis, beside
the same games played by today's client-side ``tricktable tournament`` (this process seats
every bot and sends every move over gRPC). Prints games per second and server CPU per game
(and, for the client-side run, this process' CPU per game); asserts nothing (DESIGN.md:
benchmarks are never timed tests).

The games: a round robin of ``heuristic`` and ``random`` (two seats: one table, two rotations a
round), ``--games`` of them, ``--at-once`` at a time, with ``--option`` game options (default
``target_score=30`` for Counterpoint: short matches, so the run measures the machinery more
than the bots).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

from tricktable.client import Client
from tricktable.hosted import create_hosted, follow
from tricktable.tournament import Entrant, TournamentConfig, run_tournament

from benchmarks.service import _server_process, _temporary_redis, cpu_seconds
from service.logs import configure

GAME = "counterpoint"
ENTRANTS = ("heuristic", "random")
#: Servers as a benchmark runs them: one client address may create every game (the
#: per-address limits are for players), no ladder; the server bots' delay is --bot-delay.
FLAGS = (
    "--ladder-games-at-once", "0",
    "--limit-create-game", "0", "--limit-join-game", "0", "--limit-open-games", "0",
)  # fmt: skip


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--games", type=int, default=1000, help="games per run (default 1000)")
    p.add_argument("--at-once", type=int, default=32, help="games at once (default 32)")
    p.add_argument(
        "--bot-delay",
        default="0.01",
        help="the servers' --bot-delay in hosted runs (default 0.01 s; each bot move is "
        "computed by the one replica whose deadline sweep claims it)",
    )
    p.add_argument(
        "--option", "-o", action="append", default=[], metavar="NAME=INT",
        help=f"a {GAME} option (default target_score=30)",
    )  # fmt: skip
    p.add_argument(
        "--runs",
        default="hosted-1,hosted-2,client",
        help="which runs, comma separated: hosted-1, hosted-2 (two replicas on a Redis of this "
        "run's own), client (the client-side tournament on one replica)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per run")


def run(args: argparse.Namespace) -> int:
    configure(json=True, level="warning")
    options = dict(_option(text) for text in args.option) or {"target_score": 30}
    rounds = max(1, args.games // 2)
    for name in args.runs.split(","):
        if name == "client":
            result = _client_side(rounds, args.at_once, options)
        elif name in ("hosted-1", "hosted-2"):
            result = _hosted(int(name[-1]), rounds, args.at_once, options, args.bot_delay)
        else:
            raise SystemExit(f"tricktable bench tournament: no run {name!r}")
        result.update(run=name, at_once=args.at_once, options=options)
        if name != "client":
            result["bot_delay_s"] = float(args.bot_delay)
        if args.json:
            print(json.dumps(result), flush=True)
        else:
            client = (
                f", client CPU {result['client_cpu_ms_per_game']} ms/game"
                if "client_cpu_ms_per_game" in result
                else ""
            )
            print(
                f"{name}: {result['games']} games in {result['seconds']} s: "
                f"{result['games_per_s']} games/s, server CPU "
                f"{result['server_cpu_ms_per_game']} ms/game{client}",
                flush=True,
            )
    return 0


def _option(text: str) -> tuple[str, int]:
    name, _, value = text.partition("=")
    return name, int(value)


@contextlib.contextmanager
def _servers(replicas: int, bot_delay: str = "0") -> Iterator[list[tuple[str, int]]]:
    flags = (*FLAGS, "--bot-delay", bot_delay)
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(_temporary_redis())[0] if replicas > 1 else None
        yield [
            (address, pid)
            for address, _, pid in (
                stack.enter_context(_server_process(url, flags=flags)) for _ in range(replicas)
            )
        ]


def _cpu(pids: Sequence[int]) -> float:
    return sum(cpu_seconds(pid) or 0.0 for pid in pids)


def _hosted(
    replicas: int, rounds: int, at_once: int, options: dict[str, Any], bot_delay: str
) -> dict[str, Any]:
    with _servers(replicas, bot_delay) as servers, Client(servers[0][0], timeout_s=30.0) as client:
        pids = [pid for _, pid in servers]
        cpu0, t0 = _cpu(pids), time.perf_counter()
        made = create_hosted(
            client, GAME, list(ENTRANTS), rounds=rounds, games_at_once=at_once,
            seed=b"bench", options=options,
        )  # fmt: skip
        for _ in follow(client, made.tournament.tournament_id):
            pass
        seconds, cpu = time.perf_counter() - t0, _cpu(pids) - cpu0
    return _figures(made.tournament.games_total, seconds, cpu)


def _client_side(rounds: int, at_once: int, options: dict[str, Any]) -> dict[str, Any]:
    config = TournamentConfig(
        game=GAME,
        entrants=tuple(Entrant(e, e) for e in ENTRANTS),
        rounds=rounds,
        seed="bench",
        options=options,
    )
    with _servers(1) as servers, Client(servers[0][0], timeout_s=30.0) as client:
        pids = [pid for _, pid in servers]
        cpu0, mine0, t0 = _cpu(pids), time.process_time(), time.perf_counter()
        result = run_tournament(client, config, parallel=at_once)
        seconds = time.perf_counter() - t0
        cpu, mine = _cpu(pids) - cpu0, time.process_time() - mine0
    figures = _figures(len(result.games), seconds, cpu)
    figures["client_cpu_ms_per_game"] = round(1000 * mine / max(1, len(result.games)), 2)
    return figures


def _figures(games: int, seconds: float, cpu: float) -> dict[str, Any]:
    return {
        "games": games,
        "seconds": round(seconds, 2),
        "games_per_s": round(games / seconds, 2),
        "server_cpu_ms_per_game": round(1000 * cpu / max(1, games), 2),
    }
