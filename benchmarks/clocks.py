"""``tricktable bench clocks``: how late the store-held scheduler fires clocks, with many games.

N deserted Sixty-Six games with a time control (``--move-ms``, no bank, AUTO_MOVE) are created
on ``--replicas`` ``tricktable serve`` processes (round robin; on Redis they share it, and every
replica sweeps every game's deadline). For each game it reads the running clock's deadline D
right after the table fills, then waits (GetGame with after_version) for the first timeout. The
firing's server time comes back in the view: with no bank, the clock the timeout starts runs
out at its start plus the move time, so start = new deadline - move_ms. The delay is start - D:
from the deadline to the commit that fired it, measured on the servers' own clock (one machine).

A negative delay would be a clock fired early: it is counted and printed, never hidden. It prints
numbers and asserts nothing (DESIGN.md: benchmarks are never timed tests).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

import grpc
from tricktable.v1 import clocks_pb2, game_service_pb2_grpc
from tricktable.v1 import game_service_pb2 as pb

from benchmarks.service import _redis_for, _server_process
from service.logs import configure

GAME = "sixty-six"  # one clock runs at a time, so the clock a timeout starts tells its time


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", choices=("memory", "redis"), default="memory")
    p.add_argument("--redis-url", default=None, help="as for bench service")
    p.add_argument("--games", type=int, default=1000, help="clocked games (default 1000)")
    p.add_argument(
        "--replicas", type=int, default=1, help="server processes (more than 1 needs Redis)"
    )
    p.add_argument("--move-ms", type=int, default=5000, help="each game's move time (default 5000)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    if args.replicas > 1 and args.store != "redis":
        raise SystemExit("tricktable bench clocks: several replicas share a Redis (--store redis)")
    configure(json=True, level="warning")
    with _redis_for(args) as (url, _), _replicas(url, args.replicas) as addresses:
        result = asyncio.run(measure(addresses, args.games, args.move_ms))
    result.update(store=args.store, replicas=args.replicas)
    if args.json:
        print(json.dumps(result), flush=True)
    else:
        print(
            f"{result['store']}, {result['replicas']} replica(s): {result['fired']} of "
            f"{result['games']} clocks fired; deadline to commit p50 {result['p50_ms']} ms, "
            f"p99 {result['p99_ms']} ms, max {result['max_ms']} ms; "
            f"{result['early']} early, {result['skipped']} not measured",
            flush=True,
        )
    return 0


@contextlib.contextmanager
def _replicas(redis_url: str | None, count: int) -> Iterator[list[str]]:
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(_server_process(redis_url))[0] for _ in range(count)]


async def measure(addresses: list[str], games: int, move_ms: int) -> dict[str, Any]:
    channels = [grpc.aio.insecure_channel(a) for a in addresses]
    stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
    limit = asyncio.Semaphore(64)
    tc = clocks_pb2.TimeControl(move_ms=move_ms, on_timeout=clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE)

    async def one(n: int) -> float | None:
        stub = stubs[n % len(stubs)]
        async with limit:
            created = await stub.CreateGame(pb.CreateGameRequest(game_type=GAME, time_control=tc))
            game_id = created.game.game_id
            for seat in (0, 1):
                await stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=seat))
            start = await stub.GetGame(pb.GetGameRequest(game_id=game_id))
        if start.game.version != 0:
            return None  # fired before we looked: not measured
        (deadline,) = [c.deadline_ms for c in start.view.clocks if c.running]
        fired = await stub.GetGame(
            pb.GetGameRequest(game_id=game_id, after_version=0), timeout=move_ms / 1000 + 60
        )
        if fired.game.version != 1:
            return None
        (follows,) = [c.deadline_ms for c in fired.view.clocks if c.running]
        return float(follows - move_ms - deadline)

    try:
        delays = await asyncio.gather(*(one(n) for n in range(games)))
    finally:
        for channel in channels:
            await channel.close()
    measured = sorted(d for d in delays if d is not None)
    return {
        "games": games,
        "move_ms": move_ms,
        "fired": len(measured),
        "skipped": games - len(measured),
        "early": sum(1 for d in measured if d < 0),
        "p50_ms": _quantile(measured, 0.50),
        "p99_ms": _quantile(measured, 0.99),
        "max_ms": measured[-1] if measured else None,
    }


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    return values[min(len(values) - 1, int(q * len(values)))]
