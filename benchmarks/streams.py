"""``tricktable bench streams``: many idle event streams on one replica.

N spectators' ``StreamEvents`` on one game, spread over M client connections (each channel with
its own subchannel pool, so M really is M TCP connections: grpc otherwise shares one connection
between channels of the same target and options), opened by C client processes, against
``tricktable serve`` in a process of its own on a Redis this run starts (or ``--redis-url``). It
reports:

- the time until every stream has its first batch (the game's opening);
- the Redis commands run while every stream sits idle for ``--idle`` seconds (INFO
  commandstats before and after; the INFO calls themselves excluded), and the server's memory
  per idle stream (its resident set after the streams opened, less before, over N);
- the time from one new move's commit (the SubmitMove reply) until every stream has it.

It prints numbers and asserts nothing (DESIGN.md: benchmarks are never timed tests).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import grpc
import redis
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc

from benchmarks.redis_server import free_port
from benchmarks.service import _RUN_CLI, _process, _temporary_redis, cpu_seconds
from service.logs import configure

#: Limits raised for the run: the benchmark deliberately opens far more streams from one
#: address, and faster, than a client should.
#: Per-move log lines off (they would be what we measure), and the stream limits raised: the
#: benchmark deliberately opens far more streams from one address, and faster, than a client
#: should.
_SERVER_FLAGS = [
    "--log-level",
    "warning",
    "--limit-stream-events",
    "0",
    "--limit-streams-per-connection",
    "0",
    "--limit-streams-per-replica",
    "0",
]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--streams", type=int, default=10_000, help="idle streams (default 10000)")
    p.add_argument("--connections", type=int, default=100, help="client connections (default 100)")
    p.add_argument(
        "--clients", type=int, default=2, help="client processes opening them (default 2)"
    )
    p.add_argument("--idle", type=float, default=5.0, help="seconds of idleness (default 5)")
    p.add_argument(
        "--redis-url",
        default=None,
        help="Redis to use (default: a temporary redis-server started for the run)",
    )
    p.add_argument(
        "--timeout", type=float, default=120.0, help="give up waiting after (default 120 s)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    configure(json=True, level="warning")
    if args.redis_url:
        result = measure(args, args.redis_url)
    else:
        with _temporary_redis() as (url, _):
            result = measure(args, url)
    if args.json:
        print(json.dumps(result), flush=True)
    else:
        print(
            f"{result['streams']:,} idle streams over {result['connections']} connections "
            f"({result['clients']} client processes):\n"
            f"  first batch: {result['first_batches']:,} streams, all within "
            f"{_s(result['all_first_batch_s'])}\n"
            f"  idle {result['idle_s']} s: {result['idle_redis_commands']} Redis commands "
            f"{result['idle_redis_by_command']}\n"
            f"  server memory: {_kib(result['server_kib_per_stream'])} per idle stream "
            f"({_kib(result['server_rss_before_kib'])} → {_kib(result['server_rss_after_kib'])})\n"
            f"  one move reached {result['move_reached']:,} streams, all within "
            f"{_s(result['move_to_all_s'])} (CPU: server {result['move_server_cpu_s']} s, "
            f"clients {result['move_clients_cpu_s']} s)"
            + (
                f"\n  failed streams: {result['failed_streams']}"
                if result["failed_streams"]
                else ""
            ),
            flush=True,
        )
    return 0


def _merged(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for one in counts:
        total.update(one)
    return dict(total)


def _s(value: float | None) -> str:
    return "n/a (not all)" if value is None else f"{value:.3f} s"


def _kib(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.1f} KiB"


def rss_kib(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return None


def commandstats(client: redis.Redis) -> dict[str, int]:
    """Calls of each command Redis has run since its start (INFO commandstats)."""
    stats: dict[str, Any] = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def measure(args: argparse.Namespace, redis_url: str) -> dict[str, Any]:
    streams, connections, clients = args.streams, args.connections, max(1, args.clients)
    port = free_port()
    serve = ["-c", _RUN_CLI, "serve", "--port", str(port), *_SERVER_FLAGS]
    inspector = redis.Redis.from_url(redis_url)
    with _process(serve, redis_url, port) as server_pid:
        address = f"127.0.0.1:{port}"
        channel = grpc.insecure_channel(address)
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        game = stub.CreateGame(pb.CreateGameRequest(game_type="counterpoint")).game
        tokens = [
            stub.JoinGame(pb.JoinGameRequest(game_id=game.game_id, seat=s)).seat_token
            for s in range(len(game.seats))
        ]
        time.sleep(0.5)
        rss_before = rss_kib(server_pid)
        whole = _Share(address, game.game_id, streams, connections, args.timeout)
        with _workers(whole, clients) as pipes:
            firsts = [pipe.recv() for pipe in pipes]
            first_count = sum(f["count"] for f in firsts)
            all_first = max(f["all_s"] for f in firsts) if first_count == streams else None
            time.sleep(1.0)  # let the last replies' work settle before the idle window
            rss_after = rss_kib(server_pid)
            before = commandstats(inspector)
            time.sleep(args.idle)
            after = commandstats(inspector)
            idle = {
                name: calls - before.get(name, 0)
                for name, calls in after.items()
                if calls != before.get(name, 0) and name != "info"
            }
            server_cpu = cpu_seconds(server_pid)
            me = stub.GetGame(
                pb.GetGameRequest(game_id=game.game_id),
                metadata=[("authorization", f"Bearer {tokens[0]}")],
            )
            stub.SubmitMove(
                pb.SubmitMoveRequest(
                    game_id=game.game_id,
                    move=me.view.legal_moves[0],
                    expected_version=me.game.version,
                    request_id="bench-streams-move",
                ),
                metadata=[("authorization", f"Bearer {tokens[0]}")],
            )
            committed = time.time()
            for pipe in pipes:
                pipe.send(committed)
            moved = [pipe.recv() for pipe in pipes]
            server_cpu_after = cpu_seconds(server_pid)
            for pipe in pipes:
                pipe.send(None)  # measured: the clients may close their streams now
        channel.close()
    inspector.close()
    reached = sum(m["count"] for m in moved)
    per_stream = (
        (rss_after - rss_before) / streams
        if rss_after is not None and rss_before is not None and streams
        else None
    )
    return {
        "streams": streams,
        "connections": connections,
        "clients": clients,
        "first_batches": first_count,
        "all_first_batch_s": None if all_first is None else round(all_first, 3),
        "idle_s": args.idle,
        "idle_redis_commands": sum(idle.values()),
        "idle_redis_by_command": idle,
        "server_rss_before_kib": rss_before,
        "server_rss_after_kib": rss_after,
        "server_kib_per_stream": None if per_stream is None else round(per_stream, 2),
        "move_reached": reached,
        "move_to_all_s": (
            round(max(m["last_at"] for m in moved) - committed, 3) if reached == streams else None
        ),
        "move_server_cpu_s": (
            None
            if server_cpu is None or server_cpu_after is None
            else round(server_cpu_after - server_cpu, 3)
        ),
        "move_clients_cpu_s": round(sum(m["cpu_s"] for m in moved), 3),
        "failed_streams": _merged(m["failed"] for m in moved),
    }


@dataclass(frozen=True)
class _Share:
    """One client process's part of the run."""

    address: str
    game_id: str
    streams: int
    connections: int
    timeout_s: float


@contextlib.contextmanager
def _workers(whole: _Share, clients: int) -> Iterator[list[Connection]]:
    """Client processes, each with its share of connections and streams; their pipes."""
    address, game_id, streams = whole.address, whole.game_id, whole.streams
    connections, timeout_s = whole.connections, whole.timeout_s
    context = multiprocessing.get_context("spawn")  # no inherited grpc state
    pipes: list[Connection] = []
    procs = []
    for i in range(clients):
        mine = streams // clients + (1 if i < streams % clients else 0)
        conns = max(1, connections // clients + (1 if i < connections % clients else 0))
        share = _Share(address, game_id, mine, conns, timeout_s)
        here, there = context.Pipe()
        proc = context.Process(target=_worker, args=(there, share), daemon=True)
        proc.start()
        pipes.append(here)
        procs.append(proc)
    try:
        yield pipes
    finally:
        for proc in procs:
            proc.join(30)
            if proc.is_alive():
                proc.kill()


def _worker(pipe: Connection, share: _Share) -> None:
    asyncio.run(_watch(pipe, share))


async def _watch(pipe: Connection, share: _Share) -> None:
    address, game_id, streams = share.address, share.game_id, share.streams
    connections, timeout_s = share.connections, share.timeout_s
    # A local subchannel pool per channel: otherwise channels to one address share a connection.
    channels = [
        grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        for _ in range(connections)
    ]
    stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
    loop = asyncio.get_running_loop()
    firsts: list[float] = []
    seconds: list[float] = []
    failed: Counter[str] = Counter()
    all_first = asyncio.Event()
    all_second = asyncio.Event()

    async def watch(stub: Any) -> None:
        call = stub.StreamEvents(pb.StreamEventsRequest(game_id=game_id))
        try:
            async for batch in call:
                if batch.version == 0:
                    firsts.append(time.time())
                    if len(firsts) == streams:
                        all_first.set()
                elif batch.version == 1:
                    seconds.append(time.time())
                    if len(seconds) == streams:
                        all_second.set()
                    # The stream stays open until the report: a cancellation now would be
                    # work for this client and the server while the move still fans out.
        except grpc.RpcError as err:
            failed[f"{err.code().name}: {err.details()}"[:120]] += 1
        finally:
            call.cancel()

    started = time.time()
    tasks = [loop.create_task(watch(stubs[i % connections])) for i in range(streams)]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(all_first.wait(), timeout_s)
    pipe.send(
        {
            "count": len(firsts),
            "all_s": (max(firsts) - started) if firsts else None,
            "failed": dict(failed),
        }
    )
    await loop.run_in_executor(None, pipe.recv)  # the move was committed
    cpu = time.process_time()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(all_second.wait(), timeout_s / 2)
    pipe.send(
        {
            "count": len(seconds),
            "last_at": max(seconds) if seconds else None,
            "cpu_s": time.process_time() - cpu,
            "failed": dict(failed),
        }
    )
    # Closing 10,000 streams is work for the server too: not before its CPU has been read.
    await loop.run_in_executor(None, pipe.recv)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for channel in channels:
        await channel.close()
