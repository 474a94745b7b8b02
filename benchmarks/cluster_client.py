"""``tricktable bench cluster-client``: the client's CPU per hot call on a Redis Cluster, for
redis-py's ``RedisCluster`` and for the store's slot-routed pipelined client
(:class:`service.store.redis_cluster.ClusterPipelinedRedis`), in one run.

The call is the store's own game load (:data:`service.store.redis._LOAD_SCRIPT`, EVALSHA on
three keys of one slot) of games spread over every master, from ``--callers`` concurrent
callers, as a server's hot path makes them. CPU is this process's (``time.process_time``):
only the client runs here. It prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis

from service.store.redis import _LOAD_SCRIPT, _keys
from service.store.redis_cluster import ClusterPipelinedRedis

Call = Callable[[list[str]], Awaitable[Any]]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--redis-url", required=True, help="a seed node of a running Redis Cluster")
    p.add_argument("--seconds", type=float, default=3.0, help="time per client (default 3)")
    p.add_argument("--callers", type=int, default=64, help="concurrent callers (default 64)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    result = asyncio.run(measure(args.redis_url, args.seconds, args.callers))
    if args.json:
        print(json.dumps(result), flush=True)
    else:
        for name in ("redis_py_cluster", "pipelined_cluster"):
            r = result[name]
            print(
                f"{name}: {r['calls_per_s']:,} calls/s, client CPU {r['cpu_us_per_call']} µs/call",
                flush=True,
            )
        print(f"redis-py / pipelined CPU per call: {result['cpu_ratio']}x", flush=True)
    return 0


async def measure(url: str, seconds: float, callers: int) -> dict[str, Any]:
    games = [uuid.uuid4().hex for _ in range(256)]  # every master holds some
    redis_py = aioredis.RedisCluster.from_url(url)
    pipelined = ClusterPipelinedRedis.from_url(url)
    try:
        for game in games:
            await redis_py.hset(_keys(game)[0], mapping={"version": 0})
        script: Any = redis_py.register_script(_LOAD_SCRIPT.source)

        async def by_redis_py(keys: list[str]) -> Any:
            return await script(keys=keys)

        async def by_pipelined(keys: list[str]) -> Any:
            return await pipelined.evalsha(_LOAD_SCRIPT, keys, [])

        out = {
            "redis_py_cluster": await _calls(by_redis_py, games, seconds, callers),
            "pipelined_cluster": await _calls(by_pipelined, games, seconds, callers),
        }
        slow, fast = (out[k]["cpu_us_per_call"] for k in ("redis_py_cluster", "pipelined_cluster"))
        return {**out, "callers": callers, "cpu_ratio": round(slow / fast, 2) if fast else None}
    finally:
        for game in games:
            await redis_py.delete(_keys(game)[0])
        await redis_py.aclose()
        await pipelined.close()


async def _calls(call: Call, games: list[str], seconds: float, callers: int) -> dict[str, float]:
    await call(_keys(games[0])[:3])  # connected and the script cached before the clock
    count = 0
    deadline = time.perf_counter() + seconds

    async def caller(offset: int) -> None:
        nonlocal count
        i = offset
        while time.perf_counter() < deadline:
            await call(_keys(games[i % len(games)])[:3])
            count += 1
            i += callers

    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*(caller(i) for i in range(callers)))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {
        "calls": count,
        "calls_per_s": round(count / wall),
        "cpu_us_per_call": round(cpu / count * 1e6, 1),
    }
