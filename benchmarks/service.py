"""``tricktable bench service``: games played by bots through gRPC, against a same-run floor.

N concurrent games, each played by one random bot per seat that knows only the protocol: it
waits for its turn (GetGame with wait_for_turn once, then each SubmitMove with wait_for_turn
answers when the seat is to act again), and plays one of the legal moves its view lists; a
finished game is replaced by a new one. So a move costs one RPC, as it does for a real bot.

The server runs as ``tricktable serve`` in a process of its own, as it is deployed; the bots run
in this process. It reports moves per second and SubmitMove p50/p99 latency, read from the
server's own request-to-commit histogram (its /metrics endpoint; a client-side clock would count
the wait for the other seats' moves). The floor is measured in the same run and the same layout:
a bare gRPC unary call whose handler, in a process of its own, does one round trip to the store
(the Redis store's PING, on the connection the server's moves use; nothing for the memory
store), from N concurrent callers. The issue's goal is moves/s with Redis at least 60% of the
floor's calls/s at 32 games.

Between the two stands the *bound* (:mod:`benchmarks.bound`), also in a process of its
own: N tables of two seats doing only a move's I/O (real messages, the store's commit and the
wait for the other seat's commit, payloads recorded from real games beforehand) with no game
logic. ``moves/bound`` is the share of the bound the real server reaches; ``bound/floor`` is the
most any server of this design could reach against the floor.

To show where the time goes it also reports CPU time per move, read from ``/proc/<pid>/stat``
over the measured interval: the server's, the bots' (this process) and, when the benchmark
started the redis-server itself, Redis'; and the same per call of the floor. On a machine
without ``/proc`` these are None.

The phases are taken in turn, ``--rounds`` times (unary, stream, floor, bound; again), each
round ``--seconds / --rounds`` long against fresh servers, and the totals summed: a shared
machine's speed drifts within a minute, and a ratio between phases measured a minute apart
would measure the drift.

It prints numbers and asserts nothing (DESIGN.md: benchmarks are never timed tests).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import grpc
import redis
from tricktable.legal import legal_moves
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc

from benchmarks.bound import bound_table_ids, play_bound, redis_store
from benchmarks.redis_server import NoRedisServer, free_port, redis_server, redis_server_binary
from benchmarks.single_method import serve_method
from service import event_loop
from service.config import REDIS_CLUSTER_ENV, REDIS_URL_ENV, ServerConfig
from service.logs import configure

_FLOOR_METHOD = "/tricktable.bench.Floor/Ping"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", choices=("memory", "redis", "redis-cluster"), default="memory")
    p.add_argument(
        "--redis-url",
        default=None,
        help="Redis to use with --store redis (default $TRICKTABLE_REDIS_URL, else a "
        "temporary redis-server started for the run); with --store redis-cluster, a seed "
        "node of a running Redis Cluster (required)",
    )
    p.add_argument("--games", type=int, default=32, help="concurrent games (default 32)")
    p.add_argument(
        "--seconds", type=float, default=6.0, help="time per measurement, in all (default 6)"
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="take the measurements in turn this many times, seconds/rounds each, so a drift "
        "of the machine's speed reaches them all alike (default 2)",
    )
    p.add_argument("--game", default="counterpoint", help="game type (default counterpoint)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    if args.rounds < 1:
        raise SystemExit("tricktable: --rounds must be at least 1")
    configure(json=True, level="warning")  # per-move info lines would be what we measure
    with _redis_for(args) as (url, redis_pid):
        result = asyncio.run(
            measure(
                args.store,
                url,
                args.games,
                args.seconds,
                args.game,
                redis_pid=redis_pid,
                cluster=args.store == "redis-cluster",
                rounds=args.rounds,
            )
        )
    if args.json:
        print(json.dumps(result), flush=True)
    else:
        print(
            f"{result['store']}: {result['games']} games, {result['moves_per_s']:,} moves/s, "
            f"SubmitMove p50 {result['submit_p50_ms']} ms p99 {result['submit_p99_ms']} ms; "
            f"floor {result['floor_calls_per_s']:,} calls/s "
            f"(moves/floor {result['moves_to_floor']:.0%}); {result['aborted']} moves aborted\n"
            f"  play stream: {result['stream_moves_per_s']:,} moves/s "
            f"(stream/floor {result['stream_moves_to_floor']:.0%}; by round "
            f"{', '.join(f'{r:.0%}' for r in result['stream_moves_to_floor_by_round'] if r)}), "
            f"p50 {result['stream_submit_p50_ms']} ms p99 {result['stream_submit_p99_ms']} ms; "
            f"CPU per move: server {_us(result['stream_server_cpu_us_per_move'])}, "
            f"bots {_us(result['stream_bots_cpu_us_per_move'])}, "
            f"redis {_us(result['stream_redis_cpu_us_per_move'])}\n"
            f"  bound (a move's I/O, no game logic): {result['bound_moves_per_s']:,} moves/s "
            f"(moves/bound {result['moves_to_bound']:.0%}, bound/floor "
            f"{result['bound_to_floor']:.0%})\n"
            f"  CPU per move: server {_us(result['server_cpu_us_per_move'])}, "
            f"bots {_us(result['bots_cpu_us_per_move'])}, "
            f"redis {_us(result['redis_cpu_us_per_move'])}; per floor call: "
            f"server {_us(result['floor_server_cpu_us_per_call'])}, "
            f"redis {_us(result['floor_redis_cpu_us_per_call'])}; per bound move: "
            f"server {_us(result['bound_server_cpu_us_per_move'])}\n"
            f"  layout: {result['layout']}",
            flush=True,
        )
    return 0


def _us(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f} µs"


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time a process has used so far (None without /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces; utime and stime are
    # fields 14 and 15, so the 12th and 13th after it.
    fields = stat.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: Processes measured as one (a cluster's masters); None: not measured.
Pids = int | tuple[int, ...] | None


class _CpuMeter:
    """CPU seconds used by some processes between :meth:`start` and :meth:`stop`."""

    def __init__(self, **pids: Pids) -> None:
        self._pids = pids
        self._start: dict[str, float | None] = {}
        self.used: dict[str, float | None] = dict.fromkeys(pids)

    @staticmethod
    def _read(pids: Pids) -> float | None:
        if pids is None:
            return None
        used = [cpu_seconds(pid) for pid in ((pids,) if isinstance(pids, int) else pids)]
        return None if None in used else sum(u for u in used if u is not None)

    def start(self) -> None:
        self._start = {name: self._read(pid) for name, pid in self._pids.items()}

    def stop(self) -> None:
        for name, pid in self._pids.items():
            before, after = self._start.get(name), self._read(pid)
            self.used[name] = None if before is None or after is None else after - before


@contextlib.contextmanager
def _redis_for(args: argparse.Namespace) -> Iterator[tuple[str | None, Pids]]:
    """The Redis URL to use and the redis-server processes to measure: the one this run
    started, or those a given Redis (every master of a cluster) says it runs as, when they are
    on this machine."""
    if args.store == "memory":
        yield None, None
        return
    url = ServerConfig.redis_url_from(args.redis_url)
    if args.store == "redis-cluster" and not url:
        raise SystemExit("tricktable: --store redis-cluster needs --redis-url (a seed node)")
    if url:
        yield url, _local_redis_pids(url, cluster=args.store == "redis-cluster")
        return
    with _temporary_redis() as started:
        yield started


def _local_redis_pids(url: str, *, cluster: bool) -> Pids:
    """The ``process_id`` of the Redis at ``url`` (of each master, on a cluster), kept only
    if that process runs here as a redis-server; None when one is not."""
    client: Any = redis.RedisCluster.from_url(url) if cluster else redis.Redis.from_url(url)
    try:
        if cluster:
            replies = client.info("server", target_nodes=redis.RedisCluster.PRIMARIES)
            pids = tuple(int(info["process_id"]) for info in replies.values())
        else:
            pids = (int(client.info("server")["process_id"]),)
    finally:
        client.close()
    for pid in pids:
        try:
            if not Path(f"/proc/{pid}/comm").read_text().startswith("redis-server"):
                return None
        except OSError:
            return None
    return pids


@contextlib.contextmanager
def _temporary_redis() -> Iterator[tuple[str, int]]:
    """A redis-server of this run's own (:mod:`benchmarks.redis_server`): its URL and pid."""
    try:
        binary = redis_server_binary()
    except NoRedisServer:
        raise SystemExit("tricktable: no redis-server found; pass --redis-url") from None
    with redis_server(binary=binary) as (url, proc):
        yield url, proc.pid


async def measure(
    store: str,
    redis_url: str | None,
    games: int,
    seconds: float,
    game: str,
    *,
    redis_pid: Pids = None,
    cluster: bool = False,
    rounds: int = 1,
) -> dict[str, Any]:
    """One run: the bots against the server (unary calls, then play streams), the floor and
    the bound, each for ``seconds`` in all, split into ``rounds`` rounds that take them in turn.
    ``redis_pid``: the redis-server process(es), when known, to report their CPU time too.
    ``cluster``: ``redis_url`` is a seed node of a Redis Cluster (the floor then PINGs every
    master).

    Rounds: a shared machine's speed drifts over a minute (seen here: 30% between runs minutes
    apart), so a phase measured a minute after another compares two machines. Taking the phases
    in turn, ``seconds / rounds`` each, puts every phase in every part of the run; the totals
    are summed over the rounds, and each round's stream/floor is reported beside them."""
    slice_s = seconds / rounds
    unary, streamed, floored, bounded = _Tally(), _Tally(), _Tally(), _Tally()
    latency: list[tuple[float, float]] = []
    stream_latency: list[tuple[float, float]] = []
    by_round: list[float | None] = []
    for _ in range(rounds):
        with _server_process(redis_url, cluster) as (address, metrics_url, server_pid):
            cpu = _CpuMeter(server=server_pid, bots=os.getpid(), redis=redis_pid)
            unary.add(cpu, *await _play(address, games, slice_s, game, cpu))
            latency = _merged(latency, _histogram(_read_url(metrics_url)))
        # The same bots on play streams, against a fresh server (its histogram theirs alone).
        with _server_process(redis_url, cluster) as (address, metrics_url, server_pid):
            cpu = _CpuMeter(server=server_pid, bots=os.getpid(), redis=redis_pid)
            stream = await _play(address, games, slice_s, game, cpu, seat_bot=_stream_seat_bot)
            streamed.add(cpu, *stream)
            stream_latency = _merged(stream_latency, _histogram(_read_url(metrics_url)))
        with _floor_process(redis_url, cluster) as (address, floor_pid):
            cpu = _CpuMeter(server=floor_pid, redis=redis_pid)
            calls, floor_elapsed = await _floor(address, games, slice_s, cpu)
            floored.add(cpu, calls, 0, floor_elapsed)
        floor = calls / floor_elapsed
        by_round.append(round(stream[0] / stream[2] / floor, 4) if floor else None)
        with _bound_process(redis_url, game, games, cluster) as (address, ids, bound_pid):
            cpu = _CpuMeter(server=bound_pid, redis=redis_pid)
            async with _channel(address) as channel:
                bound_moves, bound_elapsed = await play_bound(
                    channel, ids, slice_s, cpu.start, cpu.stop
                )
            bounded.add(cpu, bound_moves, 0, bound_elapsed)
    rate, stream_rate = unary.rate, streamed.rate
    floor, bound = floored.rate, bounded.rate
    return {
        "store": store,
        "game": game,
        "games": games,
        "seconds": seconds,
        "rounds": rounds,
        "layout": LAYOUT,
        "event_loop": event_loop.from_environment(),  # the servers' (TRICKTABLE_EVENT_LOOP)
        "moves": unary.moves,
        "aborted": unary.aborted,
        "moves_per_s": round(rate),
        "submit_p50_ms": _quantile_ms(latency, 0.50),
        "submit_p99_ms": _quantile_ms(latency, 0.99),
        "floor_calls_per_s": round(floor),
        "moves_to_floor": round(rate / floor, 4) if floor else None,
        "bound_moves_per_s": round(bound),
        "moves_to_bound": round(rate / bound, 4) if bound else None,
        "bound_to_floor": round(bound / floor, 4) if floor else None,
        "server_cpu_us_per_move": unary.per("server"),
        "bots_cpu_us_per_move": unary.per("bots"),
        "redis_cpu_us_per_move": unary.per("redis"),
        "floor_server_cpu_us_per_call": floored.per("server"),
        "floor_redis_cpu_us_per_call": floored.per("redis"),
        "bound_server_cpu_us_per_move": bounded.per("server"),
        # The play stream: the same bots, one Play call per seat instead of a call per move.
        "stream_moves": streamed.moves,
        "stream_aborted": streamed.aborted,
        "stream_moves_per_s": round(stream_rate),
        "stream_submit_p50_ms": _quantile_ms(stream_latency, 0.50),
        "stream_submit_p99_ms": _quantile_ms(stream_latency, 0.99),
        "stream_moves_to_floor": round(stream_rate / floor, 4) if floor else None,
        "stream_moves_to_floor_by_round": by_round,
        "stream_server_cpu_us_per_move": streamed.per("server"),
        "stream_bots_cpu_us_per_move": streamed.per("bots"),
        "stream_redis_cpu_us_per_move": streamed.per("redis"),
    }


@dataclass
class _Tally:
    """One phase's moves (or calls), time and CPU, summed over the rounds."""

    moves: int = 0
    aborted: int = 0
    elapsed: float = 0.0
    cpu: dict[str, float | None] = field(default_factory=dict)

    def add(self, meter: _CpuMeter, moves: int, aborted: int, elapsed: float) -> None:
        self.moves += moves
        self.aborted += aborted
        self.elapsed += elapsed
        for name, used in meter.used.items():
            before = self.cpu.get(name, 0.0)
            self.cpu[name] = None if used is None or before is None else before + used

    @property
    def rate(self) -> float:
        return self.moves / self.elapsed if self.elapsed else 0.0

    def per(self, name: str) -> float | None:
        used = self.cpu.get(name)
        return None if used is None or self.moves <= 0 else round(used / self.moves * 1e6, 1)


def _read_url(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as reply:
        body: bytes = reply.read()
    return body.decode()


def _merged(
    first: list[tuple[float, float]], second: list[tuple[float, float]]
) -> list[tuple[float, float]]:
    """Two cumulative histograms of the same buckets, added (an empty one adds nothing)."""
    if not first:
        return second
    if not second:
        return first
    return [(bound, a + b) for (bound, a), (_, b) in zip(first, second, strict=True)]


#: How the run is laid out, printed with every result.
LAYOUT = (
    "server, floor and bound each in a process of their own (as deployed); bots in the benchmark's "
    "process, one per seat, one SubmitMove(wait_for_turn) per move, then (stream_*) one Play "
    "stream per seat (wait_for_turn) against a fresh server; SubmitMove latency is the server's "
    "request-to-commit histogram; the phases (unary, stream, floor, bound) taken in turn, each "
    "round against fresh servers, totals summed over the rounds"
)


def _child_env(redis_url: str | None, cluster: bool) -> dict[str, str]:
    env = dict(os.environ)
    env.pop(REDIS_URL_ENV, None)  # the memory store must not pick up a Redis from the shell
    env.pop(REDIS_CLUSTER_ENV, None)
    if redis_url:
        env[REDIS_URL_ENV] = redis_url
        if cluster:  # a seed node: the children are told by the environment, as serve is
            env[REDIS_CLUSTER_ENV] = "1"
    return env


@contextlib.contextmanager
def _process(
    args: list[str], redis_url: str | None, port: int, cluster: bool = False
) -> Iterator[int]:
    """A child process serving gRPC on ``port`` (its pid), stopped (SIGTERM) on exit. Its
    stderr goes to a file (a pipe nobody reads could fill and stall it) and is shown if it fails
    to start."""
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(
            [sys.executable, *args],
            env=_child_env(redis_url, cluster),
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
        try:
            _wait_for_port(proc, port, errors)
            yield proc.pid
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_for_port(
    proc: subprocess.Popen[bytes], port: int, errors: IO[bytes], timeout_s: float = 60.0
) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            errors.seek(0)
            err = errors.read().decode(errors="replace")
            raise RuntimeError(f"benchmark server exited with {proc.returncode}: {err[-2000:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"benchmark server did not listen on port {port}")


_RUN_CLI = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"


@contextlib.contextmanager
def _server_process(
    redis_url: str | None, cluster: bool = False, flags: tuple[str, ...] = ()
) -> Iterator[tuple[str, str, int]]:
    """``tricktable serve`` as an operator runs it (with ``flags``); its gRPC address, metrics
    URL and pid."""
    port, metrics = free_port(), free_port()
    args = ["-c", _RUN_CLI, "serve", "--port", str(port), "--metrics-port", str(metrics), *flags]
    args += ["--log-level", "warning"]  # per-move info lines would be what we measure
    with _process(args, redis_url, port, cluster) as pid:
        _wait_for_port_only(metrics)
        yield f"127.0.0.1:{port}", f"http://127.0.0.1:{metrics}/metrics", pid


def _wait_for_port_only(port: int, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


@contextlib.contextmanager
def _floor_process(redis_url: str | None, cluster: bool) -> Iterator[tuple[str, int]]:
    port = free_port()
    args = ["-m", "benchmarks.service", "floor", str(port)]
    with _process(args, redis_url, port, cluster) as pid:
        yield f"127.0.0.1:{port}", pid


@contextlib.contextmanager
def _bound_process(
    redis_url: str | None, game: str, tables: int, cluster: bool
) -> Iterator[tuple[str, list[str], int]]:
    """The bound's server (:mod:`benchmarks.bound`): its address, its tables' game ids
    (fresh ones, so a Redis given by URL holds no earlier run's games under them) and pid."""
    port, prefix = free_port(), f"bound-{uuid.uuid4().hex[:12]}"
    args = ["-m", "benchmarks.bound", str(port), game, prefix, str(tables)]
    with _process(args, redis_url, port, cluster) as pid:
        yield f"127.0.0.1:{port}", bound_table_ids(prefix, tables), pid


@dataclass(frozen=True, slots=True)
class _Seating:
    """One seat of one benchmark game, for its bot: the counts all bots share (moves, aborted),
    the stub, the game, the seat and its token, and when to stop."""

    counts: dict[str, int]
    stub: Any
    game_id: str
    seat: int
    token: str
    deadline: float


#: A seat's bot: plays its game to the end (or the deadline) with its random numbers.
SeatBot = Callable[[_Seating, random.Random], Awaitable[None]]


async def _unary_seat_bot(at: _Seating, rng: random.Random) -> None:
    """One SubmitMove(wait_for_turn) per move."""
    counts, stub, game_id, deadline = at.counts, at.stub, at.game_id, at.deadline
    auth = [("authorization", f"Bearer {at.token}")]
    wait = pb.GetGameRequest(game_id=game_id, wait_for_turn=True)
    mine = await stub.GetGame(wait, metadata=auth)
    view, version = mine.view, mine.game.version
    while time.perf_counter() < deadline and not view.finished:
        if not view.legal_moves:  # the wait ran out before our turn came
            mine = await stub.GetGame(wait, metadata=auth)
            view, version = mine.view, mine.game.version
            continue
        request = pb.SubmitMoveRequest(
            game_id=game_id,
            move=view.legal_moves[rng.randrange(len(view.legal_moves))],
            expected_version=version,
            request_id=uuid.uuid4().hex,
            wait_for_turn=True,
        )
        try:
            result = await stub.SubmitMove(request, metadata=auth)
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.ABORTED:
                raise
            # Several seats act at once (bid cards laid aside) and another was first.
            counts["aborted"] += 1
            mine = await stub.GetGame(wait, metadata=auth)
            view, version = mine.view, mine.game.version
            continue
        counts["moves"] += 1
        view, version = result.view, result.view_version


async def _stream_seat_bot(at: _Seating, rng: random.Random) -> None:
    """One Play stream for the whole game: a move whenever a view says the seat is to act and
    no move of its is unanswered. As a bot on the stream would (BotRunner does), it asks for
    lay-asides as one choice (compact_lay_aside) and picks a uniformly random one, and for each
    move's answer with its next turn (wait_for_turn)."""
    counts, seat = at.counts, at.seat
    call = at.stub.Play(metadata=[("authorization", f"Bearer {at.token}")])
    opening = pb.PlayOpen(
        game_id=at.game_id, from_version=1, compact_lay_aside=True, wait_for_turn=True
    )
    await call.write(pb.PlayRequest(open=opening))
    latest: pb.PlayView | None = None
    acted, pending = -1, False
    try:
        while time.perf_counter() < at.deadline:
            response = await call.read()
            if response is grpc.aio.EOF:
                return  # the game is over
            step = response.step
            if step.HasField("view"):
                latest = step.view
            if step.HasField("result"):
                pending = False
                if not step.result.HasField("error"):
                    counts["moves"] += 1
                elif step.result.error.code == grpc.StatusCode.ABORTED.value[0]:
                    counts["aborted"] += 1  # another seat laying aside at once was first
                else:
                    raise RuntimeError(f"move refused: {step.result.error.message}")
            if pending or latest is None or latest.version <= acted:
                continue
            view = latest.view
            legal = legal_moves(view)
            if view.finished or seat not in view.to_act or not legal:
                continue
            move = legal[rng.randrange(len(legal))]
            play = pb.PlayMove(
                move=move, expected_version=latest.version, request_id=uuid.uuid4().hex
            )
            await call.write(pb.PlayRequest(move=play))
            acted, pending = latest.version, True
    finally:
        call.cancel()


async def _play(
    address: str,
    games: int,
    seconds: float,
    game: str,
    cpu: _CpuMeter,
    *,
    seat_bot: SeatBot = _unary_seat_bot,
) -> tuple[int, int, float]:
    """(moves, aborted moves, elapsed seconds) of ``games`` tables of bots playing for
    ``seconds``, each finished game replaced by a new one; ``cpu`` measures the same interval."""
    counts = {"moves": 0, "aborted": 0}
    deadline = time.perf_counter() + seconds

    async def table(index: int, stub: Any) -> None:
        rng = random.Random(index)
        while time.perf_counter() < deadline:
            created = await stub.CreateGame(pb.CreateGameRequest(game_type=game))
            game_id = created.game.game_id
            tokens = []
            for seat in range(len(created.game.seats)):
                joined = await stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=seat))
                tokens.append(joined.seat_token)
            await asyncio.gather(
                *(
                    seat_bot(
                        _Seating(counts, stub, game_id, n, t, deadline),
                        random.Random(rng.random()),
                    )
                    for n, t in enumerate(tokens)
                )
            )

    async with _channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        tables = [asyncio.create_task(table(i, stub)) for i in range(games)]
        started = time.perf_counter()
        cpu.start()
        # At the deadline the count stops; calls still waiting for a turn are abandoned.
        done, pending = await asyncio.wait(tables, timeout=deadline - started)
        moves, aborted, elapsed = counts["moves"], counts["aborted"], time.perf_counter() - started
        cpu.stop()
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            task.result()  # a bot's failure is the benchmark's
    return moves, aborted, elapsed


def _histogram(exposition: str) -> list[tuple[float, float]]:
    """The SubmitMove histogram's (upper bound, cumulative count) from a /metrics page."""
    buckets = []
    for line in exposition.splitlines():
        if line.startswith("tricktable_submit_move_seconds_bucket{"):
            labels, _, value = line.rpartition(" ")
            bound = labels.split('le="', 1)[1].split('"', 1)[0]
            buckets.append((float(bound), float(value)))
    return sorted(buckets)


def _quantile_ms(buckets: list[tuple[float, float]], q: float) -> float | None:
    """A quantile of a cumulative histogram, interpolated linearly inside its bucket (as
    Prometheus' histogram_quantile does)."""
    if not buckets or buckets[-1][1] == 0:
        return None
    rank = q * buckets[-1][1]
    lower, below = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if bound == float("inf"):
                return round(lower * 1000, 3)
            share = (rank - below) / (count - below) if count > below else 1.0
            return round((lower + (bound - lower) * share) * 1000, 3)
        lower, below = bound, count
    return round(lower * 1000, 3)


async def _floor(address: str, callers: int, seconds: float, cpu: _CpuMeter) -> tuple[int, float]:
    """(calls, elapsed seconds) of a bare unary RPC whose handler does one store round trip; ``cpu``
    measures the same interval."""
    calls = 0
    deadline = time.perf_counter() + seconds
    async with _channel(address) as channel:
        ping: Callable[[bytes], Awaitable[bytes]] = channel.unary_unary(_FLOOR_METHOD)
        await ping(b"x")  # connected before the clock starts, like the bots' channel

        async def caller() -> None:
            nonlocal calls
            while time.perf_counter() < deadline:
                await ping(b"x")
                calls += 1

        started = time.perf_counter()
        cpu.start()
        await asyncio.gather(*(caller() for _ in range(callers)))
        elapsed = time.perf_counter() - started
        cpu.stop()
    return calls, elapsed


async def serve_floor(port: int, redis_url: str | None) -> None:
    """The floor's server: one unary method doing one Redis round trip (a PING), nothing else
    (with the memory store: nothing at all). Runs until SIGTERM.

    The PING is the store's own (``RedisStore.ping``), on the same client and connection the
    server's moves use, so the ratio compares the service with the cheapest call that client
    can make, not with a dearer one."""
    store = redis_store(redis_url) if redis_url else None

    async def handler(request: bytes, context: Any) -> bytes:
        if store is not None:
            await store.ping()
        return request

    await serve_method(port, _FLOOR_METHOD, grpc.unary_unary_rpc_method_handler(handler), store)


@contextlib.asynccontextmanager
async def _channel(address: str) -> AsyncIterator[grpc.aio.Channel]:
    channel = grpc.aio.insecure_channel(address)
    try:
        yield channel
    finally:
        await channel.close()


if __name__ == "__main__":  # python -m benchmarks.service floor PORT  (the floor's own process)
    if len(sys.argv) != 3 or sys.argv[1] != "floor":
        raise SystemExit("usage: python -m benchmarks.service floor PORT")
    event_loop.run(  # the loop of the server it is compared with
        serve_floor(int(sys.argv[2]), os.environ.get(REDIS_URL_ENV) or None),
        event_loop.from_environment(),
    )
