"""Honest players' moves while another client abuses the server within its limits.

    python3 dev.py python -m benchmarks.abuse [--tables N] [--seconds S] [--flooders N]
    tricktable bench abuse ...

One ``tricktable serve --web-port`` in a process of its own, on 127.0.0.1. In this process, N
honest tables (two seats, Counterpoint) play over native gRPC from 127.0.0.1, each making a move
every ``--pace-ms``: a GetGame of the seat to act, then the timed SubmitMove. Meanwhile, in a
process of its own, an abuser runs one phase after another, each for S seconds, with
``--flooders`` calls in flight at every moment and no pause after a refusal. Its connections
come from 127.0.0.2 (through a relay in its process that binds that source address: grpc's
client cannot choose one), so that per-address limits tell the two clients apart while every
packet stays on loopback:

- ``quiet``: no abuse (the same run's baseline);
- ``create-join``: CreateGame then JoinGame, over and over, natively, then over the web port
  (Connect, binary) as ``create-join-web``;
- ``move-flood``: SubmitMove on one seat of the abuser's own game, over and over (most are
  refused: not its turn, a stale version), natively, then over the web as ``move-flood-web``;
- ``seat-flood``: the same on many seats from the one address (both seats of 50 games), each
  seat within its own move rate, together bounded by the address' limits (its refused moves'
  budget, ``--limit-refused-moves``);
- ``bot-runner``: no abuse, a heavy honest client: 32 tables played at once from the one
  address, both seats, each move made as soon as the last is answered (a GetGame, then a legal
  SubmitMove), a new game when one ends; its moves a second (``abuser_moves_per_s``) say whether
  a limit slows a legitimate bot runner, its cost to the others what it takes of one process.

A flood phase is timed from the abuser's first call (it says when, on the system's monotonic
clock) until its calls in flight are answered (it floods for S seconds; calls a server holds in
the abuser's own queue are answered later); its p99 is also given without the flood's first
second (``p99_settled_ms``), when its calls all arrive at once.

Every phase runs under two settings of the server (``--setting``, default both), each its own
server, taking turns ``--rounds`` times: ``before``, the limits as they were before issue 25's
fairness (a seat's moves at 500/s, every call refused at once past its rate, no read rates, no
process-wide share of calls in progress, the open games re-read at every create at the cap, no
budget of refused moves), and ``after``, the defaults (a seat's moves at 20/s; a unary call over
its rate waits its turn in its own client's queue, up to ``--limit-rate-wait``; reads rated; the
process' calls in progress shared between addresses; the open games re-read at most once a
second; an address' refused moves at 100/s).
``--store redis`` gives each server a fresh redis-server (its calls then await the store, and
overlap).

Printed as JSON lines: per phase and setting the honest moves' count and latency (p50, p99,
max, in ms), the abuser's calls by status and the server's CPU; then per setting a summary of
each phase's p99 per round beside the quiet phase's. Extra ``serve`` flags
(``--serve-arg=--limit-calls-per-address=0``) apply to both settings. The clients share the
machine with the server: compare the phases of one run, not machines. It prints numbers and
asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc

from benchmarks.redis_server import free_port, redis_server
from benchmarks.service import _process, cpu_seconds

PHASES = (
    "quiet",
    "create-join",
    "create-join-web",
    "move-flood",
    "move-flood-web",
    "seat-flood",
    "bot-runner",
)
#: The seat flood's games: the abuser takes both seats of each, from its one address.
SEAT_FLOOD_GAMES = 50
#: The bot runner's tables played at once from its one address (``tricktable tournament
#: --parallel 32``'s load, without its bots' thinking).
BOT_RUNNER_TABLES = 32
#: Games made for it: more than its tables can finish in a phase.
BOT_RUNNER_GAMES = 4 * BOT_RUNNER_TABLES
SERVICE = "tricktable.v1.GameService"
_RUN_CLI = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"


#: The abuser's own address: loopback too, but not the honest players' 127.0.0.1.
ABUSER_ADDRESS = "127.0.0.2"


async def _relay(target_port: int, source: str, stack: contextlib.AsyncExitStack) -> int:
    """A TCP relay on 127.0.0.1 to ``target_port`` whose connections to the server come from
    ``source`` (a client library that cannot bind a source address connects to it): its port."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(
                "127.0.0.1", target_port, local_addr=(source, 0)
            )
        except OSError:
            writer.close()
            return
        try:
            await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        except asyncio.CancelledError:
            # The abuser's run is over and its loop closes: asyncio's stream server reports a
            # handler cancelled then as an error, though nothing went wrong.
            writer.close()
            up_writer.close()

    server = await asyncio.start_server(connected, "127.0.0.1", 0)
    stack.push_async_callback(server.wait_closed)
    stack.callback(server.close)
    port: int = server.sockets[0].getsockname()[1]
    return port


# -- the honest players -------------------------------------------------------------------------


async def _table(
    stub: Any, pace_s: float, stop: asyncio.Event, moves: list[tuple[float, float]]
) -> None:
    """One table's two seats, a move every ``pace_s``; each SubmitMove's (start, seconds)."""
    while not stop.is_set():
        made = await stub.CreateGame(pb.CreateGameRequest(game_type="counterpoint"))
        game_id = made.game.game_id
        tokens = []
        for seat in range(len(made.game.seats)):
            joined = await stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=seat))
            tokens.append([("authorization", f"Bearer {joined.seat_token}")])
        seat = 0
        while not stop.is_set():
            next_move = time.monotonic() + pace_s
            seen = await stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=tokens[seat])
            if seen.view.finished:
                break
            if not seen.view.legal_moves:
                seat = seen.view.to_act[0] if seen.view.to_act else 1 - seat
                continue
            request = pb.SubmitMoveRequest(
                game_id=game_id,
                move=seen.view.legal_moves[0],
                expected_version=seen.game.version,
                request_id=uuid.uuid4().hex,
            )
            started = time.monotonic()
            with contextlib.suppress(grpc.aio.AioRpcError):  # another seat moved first
                await stub.SubmitMove(request, metadata=tokens[seat])
                moves.append((started, time.monotonic() - started))
            seat = 1 - seat
            await asyncio.sleep(max(0.0, next_move - time.monotonic()))


def _quantile_ms(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2)


# -- the abuser (a process of its own) ----------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """One phase of abuse: what, at which doors, how hard, how long, the move flood's game."""

    phase: str
    grpc_port: int
    web_port: int
    flooders: int
    seconds: float
    flood_game: str


async def _abuse(plan: Plan) -> Counter[str]:
    outcomes: Counter[str] = Counter()
    phase, flooders, flood_game = plan.phase, plan.flooders, plan.flood_game
    deadline = time.monotonic() + plan.seconds  # set again when the flood begins
    web = phase.endswith("-web")
    async with contextlib.AsyncExitStack() as stack:
        grpc_port = await _relay(plan.grpc_port, ABUSER_ADDRESS, stack)
        web_port = await _relay(plan.web_port, ABUSER_ADDRESS, stack)
        channel = await stack.enter_async_context(
            grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}")
        )
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        pool = httpx.Limits(max_connections=flooders, max_keepalive_connections=flooders)
        http = await stack.enter_async_context(
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{web_port}", timeout=60, limits=pool)
        )

        async def call(method: str, request: Any, reply: type[Any], token: str | None) -> Any:
            if web:
                headers = {"content-type": "application/proto", "connect-protocol-version": "1"}
                if token:
                    headers["authorization"] = f"Bearer {token}"
                try:
                    answer = await http.post(
                        f"/{SERVICE}/{method}", content=request.SerializeToString(), headers=headers
                    )
                except httpx.TransportError as error:  # 200 connections at once: some refused
                    outcomes[type(error).__name__] += 1
                    return None
                if answer.status_code != 200:
                    outcomes[str(answer.json().get("code", answer.status_code))] += 1
                    return None
                outcomes["ok"] += 1
                return reply.FromString(answer.content)
            metadata = [("authorization", f"Bearer {token}")] if token else []
            try:
                answered = await getattr(stub, method)(request, metadata=metadata)
            except grpc.aio.AioRpcError as err:
                outcomes[err.code().name.lower()] += 1
                return None
            outcomes["ok"] += 1
            return answered

        if phase.startswith("create-join"):

            async def flooder(number: int) -> None:
                while time.monotonic() < deadline:
                    made = await call(
                        "CreateGame",
                        pb.CreateGameRequest(game_type="counterpoint"),
                        pb.CreateGameResponse,
                        None,
                    )
                    if made is not None:
                        join = pb.JoinGameRequest(game_id=made.game.game_id)
                        await call("JoinGame", join, pb.JoinGameResponse, None)

        elif phase == "bot-runner":
            # Its games are made for it, as the seat flood's (its address may be at its
            # open-games cap after a create/join flood); a table takes the next when one ends.
            games = iter(flood_game.split(","))

            async def flooder(number: int) -> None:
                if number >= BOT_RUNNER_TABLES:
                    return
                while time.monotonic() < deadline:
                    game_id = next(games, None)
                    if game_id is None:
                        return
                    seats = []
                    for seat in range(2):
                        join = pb.JoinGameRequest(game_id=game_id, seat=seat)
                        joined = await stub.JoinGame(join)
                        seats.append(joined.seat_token)
                    seat = 0
                    while time.monotonic() < deadline:
                        request = pb.GetGameRequest(game_id=game_id)
                        seen = await call("GetGame", request, pb.GetGameResponse, seats[seat])
                        if seen is None or seen.view.finished:
                            break
                        if not seen.view.legal_moves:
                            seat = seen.view.to_act[0] if seen.view.to_act else 1 - seat
                            continue
                        move = pb.SubmitMoveRequest(
                            game_id=game_id,
                            move=seen.view.legal_moves[0],
                            expected_version=seen.game.version,
                            request_id=uuid.uuid4().hex,
                        )
                        if await call("SubmitMove", move, pb.SubmitMoveResponse, seats[seat]):
                            outcomes["moves_played"] += 1
                        seat = 1 - seat

        elif phase == "seat-flood":
            # Many seats from one address, each within its own move rate: together bounded
            # by the address' rate and its share of the process.
            targets = []
            for game_id in flood_game.split(","):
                for seat in range(2):
                    joined = await stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=seat))
                    bearer = [("authorization", f"Bearer {joined.seat_token}")]
                    view = await stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=bearer)
                    if view.view.legal_moves:
                        targets.append((game_id, joined.seat_token, view))

            async def flooder(number: int) -> None:
                game_id, token, seen = targets[number % len(targets)]
                while time.monotonic() < deadline:
                    request = pb.SubmitMoveRequest(
                        game_id=game_id,
                        move=seen.view.legal_moves[0],
                        expected_version=seen.game.version,
                        request_id=uuid.uuid4().hex,
                    )
                    await call("SubmitMove", request, pb.SubmitMoveResponse, token)

        else:
            # The game is made for it (its own address may be at its open-games cap by now).
            game_id = flood_game
            seats = []
            for seat in range(2):
                joined = await stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=seat))
                bearer = [("authorization", f"Bearer {joined.seat_token}")]
                view = await stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=bearer)
                seats.append((joined.seat_token, view))
            # The flood's seat: one with a move to make, so that its calls are real moves.
            token, seen = next(((t, v) for t, v in seats if v.view.legal_moves), seats[0])

            async def flooder(number: int) -> None:
                move = seen.view.legal_moves[0] if seen.view.legal_moves else None
                while time.monotonic() < deadline:
                    request = pb.SubmitMoveRequest(
                        game_id=game_id,
                        move=move,
                        expected_version=seen.game.version,
                        request_id=uuid.uuid4().hex,
                    )
                    await call("SubmitMove", request, pb.SubmitMoveResponse, token)

        # When the flood begins (the clock is the system's monotonic one, which the honest
        # players' process reads too): the measured window starts here.
        print(json.dumps({"flood_started": time.monotonic()}), flush=True)
        deadline = time.monotonic() + plan.seconds
        await asyncio.gather(*(flooder(number) for number in range(flooders)))
    return outcomes


def _abuser_process(plan: Plan) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "benchmarks.abuse", "--abuser", plan.phase]
    args += ["--grpc-port", str(plan.grpc_port), "--web-port", str(plan.web_port)]
    args += ["--flood-game", plan.flood_game]
    args += ["--flooders", str(plan.flooders), "--seconds", str(plan.seconds)]
    return subprocess.Popen(args, stdout=subprocess.PIPE, text=True)


# -- the run ------------------------------------------------------------------------------------


#: The server's settings compared in one run: the limits as they were before issue 25's
#: fairness (a seat's moves at 500/s and refused at once past the rate), and as they are.
SETTINGS: dict[str, tuple[str, ...]] = {
    "before": (
        "--limit-seat-submit-move=500/1000",
        "--limit-rate-wait=0",
        "--limit-read-calls=0",
        "--limit-seat-read-calls=0",
        "--limit-calls-in-progress=0",
        "--limit-open-games-recount=0",
        "--limit-refused-moves=0",
    ),
    "after": (),
}
#: The flood's first second is reported apart: the abuser's calls arriving all at once.
SETTLE_S = 1.0


@dataclass(frozen=True)
class _Served:
    """The server under test and the honest players' moves so far ((start, seconds) each)."""

    stub: Any
    ports: tuple[int, int]  # gRPC, web
    pid: int
    moves: list[tuple[float, float]]


async def _phase(args: argparse.Namespace, served: _Served, phase: str) -> dict[str, Any]:
    stub, ports, pid, moves = served.stub, served.ports, served.pid, served.moves
    abuser = None
    abused: dict[str, Any] = {}
    started, cpu_before = time.monotonic(), cpu_seconds(pid)
    if phase == "quiet":
        await asyncio.sleep(args.seconds)
    else:
        # The games are made for it (its own address may be at its open-games cap by now).
        count = {"seat-flood": SEAT_FLOOD_GAMES, "bot-runner": BOT_RUNNER_GAMES}.get(phase, 1)
        request = pb.CreateGameRequest(game_type="counterpoint")
        made = [(await stub.CreateGame(request)).game.game_id for _ in range(count)]
        plan = Plan(phase, *ports, args.flooders, args.seconds, ",".join(made))
        abuser = _abuser_process(plan)
        assert abuser.stdout is not None
        first = await asyncio.to_thread(abuser.stdout.readline)
        if first:
            started, cpu_before = json.loads(first)["flood_started"], cpu_seconds(pid)
        rest, _ = await asyncio.to_thread(abuser.communicate)
        lines = rest.strip().splitlines()
        # An abuser that failed (its traceback is on stderr) is reported so.
        abused = json.loads(lines[-1]) if lines else {"failed": abuser.returncode}
    ended, cpu_after = time.monotonic(), cpu_seconds(pid)
    busy = None
    if cpu_before is not None and cpu_after is not None:
        busy = round((cpu_after - cpu_before) / (ended - started), 2)
    took = [s for at, s in moves if started <= at < ended]
    settled = [s for at, s in moves if started + SETTLE_S <= at < ended]
    return {
        "phase": phase,
        "honest_tables": args.tables,
        "honest_moves": len(took),
        "p50_ms": _quantile_ms(took, 0.50),
        "p99_ms": _quantile_ms(took, 0.99),
        "max_ms": _quantile_ms(took, 1.0),
        "mean_ms": round(statistics.fmean(took) * 1000, 2) if took else None,
        # the same after the flood's first second (its calls all arriving at once)
        "p99_settled_ms": _quantile_ms(settled, 0.99),
        "abuser_calls": abused,
        # a bot runner's moves played a second (the bot-runner phase)
        "abuser_moves_per_s": round(abused.get("moves_played", 0) / (ended - started))
        if abused.get("moves_played")
        else None,
        # the server's CPU seconds per second (1.0: one core, its most)
        "server_cpu": busy,
        "abuser_address": ABUSER_ADDRESS if abuser else None,
    }


async def _measure_setting(args: argparse.Namespace, setting: str) -> list[dict[str, Any]]:
    grpc_port, web_port = free_port(), free_port()
    serve = ["-c", _RUN_CLI, "serve", "--host", "127.0.0.1", "--port", str(grpc_port)]
    serve += ["--web-port", str(web_port), "--log-level", "warning"]
    serve += [*SETTINGS[setting], *args.serve_arg]
    results: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        redis_url = None
        if args.store == "redis":  # a fresh one per server: no games left from the last
            redis_url, _ = stack.enter_context(redis_server())
        pid = stack.enter_context(_process(serve, redis_url, grpc_port))
        async with grpc.aio.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)
            stop = asyncio.Event()
            moves: list[tuple[float, float]] = []
            tables = [
                asyncio.create_task(_table(stub, args.pace_ms / 1000, stop, moves))
                for _ in range(args.tables)
            ]
            try:
                await asyncio.sleep(1.0)  # warm up: connections, caches
                for phase in args.phase or PHASES:
                    served = _Served(stub, (grpc_port, web_port), pid, moves)
                    result = await _phase(args, served, phase)
                    results.append({"setting": setting, **result})
                    await asyncio.sleep(1.0)  # the server's queue drains
            finally:
                stop.set()
                await asyncio.gather(*tables, return_exceptions=True)
    return results


async def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each setting's phases, one server each, the settings taking turns ``--rounds`` times (a
    shared machine's speed drifts within a minute: each setting meets the drift alike); then a
    summary per setting of the p99 per phase and round beside its quiet phase's."""
    settings = args.setting or list(SETTINGS)
    results: list[dict[str, Any]] = []
    for number in range(args.rounds):
        for setting in settings:
            for result in await _measure_setting(args, setting):
                results.append({"round": number, **result})
    summaries = []
    for setting in settings:
        mine = [r for r in results if r["setting"] == setting]
        summary: dict[str, Any] = {
            "summary": "honest move p99 (ms) per phase, a value per round; flood phases: "
            "all / after the flood's first second",
            "setting": setting,
            "serve_args": [*SETTINGS[setting], *args.serve_arg],
        }
        for phase in args.phase or PHASES:
            rows = [r for r in mine if r["phase"] == phase]
            if phase == "quiet":
                summary[phase] = [r["p99_ms"] for r in rows]
            else:
                summary[phase] = [[r["p99_ms"], r["p99_settled_ms"]] for r in rows]
            if phase == "bot-runner":
                summary["bot-runner moves/s"] = [r["abuser_moves_per_s"] for r in rows]
        summaries.append(summary)
    return results + summaries


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", type=int, default=8, help="honest tables (default 8)")
    p.add_argument(
        "--pace-ms", type=float, default=25.0, help="an honest table's move every (default 25)"
    )
    p.add_argument("--seconds", type=float, default=6.0, help="per phase (default 6)")
    p.add_argument("--flooders", type=int, default=200, help="abuser's calls in flight (200)")
    p.add_argument("--phase", action="append", choices=PHASES, help="default: all, in order")
    p.add_argument(
        "--rounds", type=int, default=1, help="the settings take turns this often (default 1)"
    )
    p.add_argument(
        "--setting",
        action="append",
        choices=tuple(SETTINGS),
        help="the server's limits: before (issue 25's fairness off) or after; default: both",
    )
    p.add_argument(
        "--serve-arg", action="append", default=[], help="an extra serve flag (repeatable)"
    )
    p.add_argument(
        "--store",
        choices=("memory", "redis"),
        default="memory",
        help="the server's store (redis: a fresh redis-server per server; default memory)",
    )


def run(args: argparse.Namespace) -> int:
    for result in asyncio.run(measure(args)):
        print(json.dumps(result), flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    parser.add_argument("--abuser", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("--grpc-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--web-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--flood-game", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.abuser:  # the abuser's own process: its outcomes as one JSON line
        plan = Plan(
            args.abuser,
            args.grpc_port,
            args.web_port,
            args.flooders,
            args.seconds,
            args.flood_game,
        )
        counts = asyncio.run(_abuse(plan))
        print(json.dumps(dict(counts)), flush=True)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
