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

Then every game ends (a seat resigns), and on Redis the run reports the deadline index
(``tt:deadlines``, the sorted set every replica sweeps): its size while the games run, at once
when they have all ended, and again a move time later, with how many of its entries are the
ended games' each time. The step that ends a game removes its entries; what may be left at once
are stale hints of commits that lost a race (two replicas firing one clock, a clock against the
resignation), which are dropped when they come due, within a move time. (Issue 25: a finished
game's idle entries used to stay for the idle time, 24 h by default.)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from collections.abc import Iterator
from typing import Any

import grpc
import redis.asyncio as aioredis
from tricktable.v1 import clocks_pb2, game_service_pb2_grpc
from tricktable.v1 import game_service_pb2 as pb

from benchmarks.service import _redis_for, _server_process
from service.logs import configure

#: The Redis store's deadline index (service.store.redis), read from outside the servers.
DEADLINES = "tt:deadlines"
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
        result = asyncio.run(measure(addresses, args.games, args.move_ms, redis_url=url))
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
        if result["index_running"] is not None:
            print(
                f"deadline index: {result['index_running']} entries while the games ran; "
                f"once all had ended {result['index_ended']} "
                f"({result['index_ended_games']} of them the games'), "
                f"{result['index_settled']} a move time later "
                f"({result['index_settled_games']} of them the games')",
                flush=True,
            )
    return 0


#: The run is one client address that creates and joins every game and leaves them all waiting
#: on their clocks: the per-address limits meant for players (100 creates a second, 500 open
#: games) would refuse it before it measured anything.
NO_CLIENT_LIMITS = ("--limit-create-game", "0", "--limit-join-game", "0", "--limit-open-games", "0")


@contextlib.contextmanager
def _replicas(redis_url: str | None, count: int) -> Iterator[list[str]]:
    with contextlib.ExitStack() as stack:
        yield [
            stack.enter_context(_server_process(redis_url, flags=NO_CLIENT_LIMITS))[0]
            for _ in range(count)
        ]


async def measure(
    addresses: list[str], games: int, move_ms: int, *, redis_url: str | None = None
) -> dict[str, Any]:
    """``redis_url``: the Redis the replicas share, whose deadline index is reported."""
    channels = [grpc.aio.insecure_channel(a) for a in addresses]
    stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
    limit = asyncio.Semaphore(64)
    tc = clocks_pb2.TimeControl(move_ms=move_ms, on_timeout=clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE)
    resigners: dict[str, tuple[Any, str]] = {}  # game id -> (its stub, seat 0's token)

    async def one(n: int) -> float | None:
        stub = stubs[n % len(stubs)]
        async with limit:
            created = await stub.CreateGame(pb.CreateGameRequest(game_type=GAME, time_control=tc))
            game_id = created.game.game_id
            for seat in (0, 1):
                joined = await stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=seat))
                if seat == 0:
                    resigners[game_id] = (stub, joined.seat_token)
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

    async def resign(game_id: str, stub: Any, token: str) -> None:
        async with limit:
            for _ in range(20):  # a clock firing meanwhile makes the resignation a stale step
                try:
                    await stub.LeaveGame(
                        pb.LeaveGameRequest(game_id=game_id),
                        metadata=[("authorization", f"Bearer {token}")],
                    )
                    return
                except grpc.aio.AioRpcError as err:
                    if err.code() != grpc.StatusCode.ABORTED:
                        raise

    index = _DeadlineIndex(redis_url)
    try:
        delays = await asyncio.gather(*(one(n) for n in range(games)))
        running = await index.size()
        await asyncio.gather(*(resign(g, *resigner) for g, resigner in resigners.items()))
        ended = await index.size()
        left = await index.entries_of(set(resigners))
        if index.present:
            await asyncio.sleep(move_ms / 1000 + 1)  # stale hints come due and are swept
        settled = await index.size()
        settled_left = await index.entries_of(set(resigners))
    finally:
        await index.close()
        for channel in channels:
            await channel.close()
    measured = sorted(d for d in delays if d is not None)
    return {
        "index_running": running,
        "index_ended": ended,
        "index_ended_games": left,
        "index_settled": settled,
        "index_settled_games": settled_left,
        "games": games,
        "move_ms": move_ms,
        "fired": len(measured),
        "skipped": games - len(measured),
        "early": sum(1 for d in measured if d < 0),
        "p50_ms": _quantile(measured, 0.50),
        "p99_ms": _quantile(measured, 0.99),
        "max_ms": measured[-1] if measured else None,
    }


class _DeadlineIndex:
    """The Redis store's deadline index, read from outside the servers (None without Redis:
    the embedded store's index is in the server process)."""

    def __init__(self, url: str | None) -> None:
        self._r: Any = aioredis.Redis.from_url(url) if url else None
        self.present = self._r is not None

    async def size(self) -> int | None:
        return None if self._r is None else int(await self._r.zcard(DEADLINES))

    async def entries_of(self, game_ids: set[str]) -> int | None:
        """How many entries are these games' (members are ``<game id>|…``)."""
        if self._r is None:
            return None
        members = await self._r.zrange(DEADLINES, 0, -1)
        return sum(1 for m in members if m.decode().split("|", 1)[0] in game_ids)

    async def close(self) -> None:
        if self._r is not None:
            await self._r.aclose()


def _quantile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    return values[min(len(values) - 1, int(q * len(values)))]
