"""The cost of a move through each door: native gRPC beside Connect (binary and JSON) and
gRPC-Web, against one ``tricktable serve --web-port`` in a process of its own.

    python3 dev.py python -m benchmarks.web_doors [--games N] [--seconds S] [--game GAME]

For each door in turn, N tables of random bots (one per seat, in this process) play for S
seconds, a move being one SubmitMove with ``wait_for_turn`` (a finished game is replaced by a new
one). The web doors are called through the Connect client that ``proto/generate.py`` writes
(``tricktable.v1.game_service_connect``). Printed per door, as JSON lines: moves per second and
the server's CPU time per move (``/proc``), and both as a ratio to native gRPC measured in the
same run. The bots share the machine with the server, so compare the ratios, not the absolute
numbers. It prints numbers and asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc
from tricktable.v1.game_service_connect import GameServiceClient

from benchmarks.redis_server import free_port
from benchmarks.service import _process, cpu_seconds

DOORS = ("grpc", "connect-binary", "connect-json", "grpc-web")
_RUN_CLI = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"


class Stale(Exception):
    """Another seat moved first (several seats lay cards aside at once): look again."""


#: One RPC through a door: (method name, request, seat token) → response.
Call = Callable[[str, Any, str | None], Awaitable[Any]]


@contextlib.asynccontextmanager
async def door(name: str, grpc_address: str, web_url: str) -> AsyncIterator[Call]:
    if name == "grpc":
        async with grpc.aio.insecure_channel(grpc_address) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)

            async def native(method: str, request: Any, token: str | None) -> Any:
                metadata = [("authorization", f"Bearer {token}")] if token else []
                try:
                    return await getattr(stub, method)(request, metadata=metadata)
                except grpc.aio.AioRpcError as err:
                    if err.code() == grpc.StatusCode.ABORTED:
                        raise Stale from None
                    raise

            yield native
        return
    protocol = ProtocolType.GRPC_WEB if name == "grpc-web" else ProtocolType.CONNECT
    async with GameServiceClient(
        web_url, protocol=protocol, proto_json=name == "connect-json", send_compression=None
    ) as client:
        methods: dict[str, Callable[..., Awaitable[Any]]] = {
            "CreateGame": client.create_game,
            "JoinGame": client.join_game,
            "GetGame": client.get_game,
            "SubmitMove": client.submit_move,
        }

        async def web(method: str, request: Any, token: str | None) -> Any:
            headers = {"authorization": f"Bearer {token}"} if token else {}
            try:
                return await methods[method](request, headers=headers)
            except ConnectError as err:
                if err.code == Code.ABORTED:
                    raise Stale from None
                raise

        yield web


async def play(call: Call, tables: int, seconds: float, game: str) -> int:
    """Moves made by random bots at ``tables`` tables in ``seconds``."""
    moves = 0
    deadline = time.perf_counter() + seconds

    async def bot(game_id: str, token: str, rng: random.Random) -> None:
        nonlocal moves
        wait = pb.GetGameRequest(game_id=game_id, wait_for_turn=True)
        seen = await call("GetGame", wait, token)
        view, version = seen.view, seen.game.version
        while time.perf_counter() < deadline and not view.finished:
            if view.legal_moves:
                move = view.legal_moves[rng.randrange(len(view.legal_moves))]
                submit = pb.SubmitMoveRequest(
                    game_id=game_id,
                    move=move,
                    expected_version=version,
                    request_id=uuid.uuid4().hex,
                    wait_for_turn=True,
                )
                with contextlib.suppress(Stale):
                    done = await call("SubmitMove", submit, token)
                    moves += 1
                    view, version = done.view, done.view_version
                    continue
            seen = await call("GetGame", wait, token)
            view, version = seen.view, seen.game.version

    async def table(rng: random.Random) -> None:
        while time.perf_counter() < deadline:
            made = await call("CreateGame", pb.CreateGameRequest(game_type=game), None)
            game_id = made.game.game_id
            tokens = []
            for seat in range(len(made.game.seats)):
                joined = await call(
                    "JoinGame", pb.JoinGameRequest(game_id=game_id, seat=seat), None
                )
                tokens.append(joined.seat_token)
            await asyncio.gather(*(bot(game_id, t, random.Random(rng.random())) for t in tokens))

    tasks = [asyncio.create_task(table(random.Random(i))) for i in range(tables)]
    done, pending = await asyncio.wait(tasks, timeout=seconds)
    counted = moves  # calls still waiting for a turn at the deadline are abandoned
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    for task in done:
        task.result()  # a bot's failure is the benchmark's
    return counted


async def measure(
    games: int, seconds: float, game: str, doors: tuple[str, ...]
) -> list[dict[str, Any]]:
    grpc_port, web_port = free_port(), free_port()
    args = ["-c", _RUN_CLI, "serve", "--port", str(grpc_port), "--web-port", str(web_port)]
    args += ["--log-level", "warning"]  # per-move info lines would be what we measure
    results: list[dict[str, Any]] = []
    with _process(args, None, web_port) as pid:
        for name in doors:
            async with door(name, f"127.0.0.1:{grpc_port}", f"http://127.0.0.1:{web_port}") as call:
                await play(call, 1, 0.3, game)  # warm up: connections, caches
                before = cpu_seconds(pid)
                moves = await play(call, games, seconds, game)
                after = cpu_seconds(pid)
            cpu = None if before is None or after is None or not moves else (after - before) / moves
            results.append(
                {
                    "door": name,
                    "game": game,
                    "games": games,
                    "seconds": seconds,
                    "moves": moves,
                    "moves_per_s": round(moves / seconds, 1),
                    "server_cpu_us_per_move": None if cpu is None else round(cpu * 1e6, 1),
                }
            )
    native = results[0] if results and results[0]["door"] == "grpc" else None
    for result in results:
        if native and native["moves"] and result["moves"]:
            result["moves_vs_grpc"] = round(result["moves"] / native["moves"], 3)
            if native["server_cpu_us_per_move"] and result["server_cpu_us_per_move"]:
                ratio = result["server_cpu_us_per_move"] / native["server_cpu_us_per_move"]
                result["cpu_vs_grpc"] = round(ratio, 3)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="tables played at once (default 8)")
    parser.add_argument("--seconds", type=float, default=5.0, help="per door (default 5)")
    parser.add_argument("--game", default="counterpoint")
    parser.add_argument("--door", action="append", choices=DOORS, help="default: all four")
    args = parser.parse_args(argv)
    doors = tuple(args.door or DOORS)
    for result in asyncio.run(measure(args.games, args.seconds, args.game, doors)):
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
