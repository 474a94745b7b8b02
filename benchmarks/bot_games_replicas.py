"""All-bot games on one and on two ``tricktable serve`` replicas sharing one Redis: games per
second, and the largest the deadline index (``tt:deadlines``) grew meanwhile. Prints numbers,
asserts nothing (DESIGN.md: benchmarks are never timed tests).

    python3 dev.py python -m benchmarks.bot_games_replicas --games 32 --bot-delay 0
"""

from __future__ import annotations

import argparse
import contextlib
import time

import redis
from tricktable.client import Client
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_types_pb2

from benchmarks.service import _server_process, _temporary_redis

OVER = (pb.GAME_STATUS_FINISHED, pb.GAME_STATUS_ABANDONED)
FLAGS = ("--limit-create-game", "0", "--limit-open-games", "0", "--ladder-games-at-once", "0")


def one_run(replicas: int, games: int, bot_delay: str, target: int) -> tuple[float, int]:
    """Seconds for ``games`` all-bot counterpoint games to end, and the index's largest size."""
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(_temporary_redis())[0]
        flags = (*FLAGS, "--bot-delay", bot_delay)
        servers = [stack.enter_context(_server_process(url, flags=flags)) for _ in range(replicas)]
        r = stack.enter_context(contextlib.closing(redis.Redis.from_url(url)))
        client = stack.enter_context(Client(servers[0][0], timeout_s=30.0))
        t0 = time.perf_counter()
        ids = []
        for n in range(games):
            request = pb.CreateGameRequest(
                game_type="counterpoint",
                seed=f"bench:{n}".encode(),
                options={"target_score": game_types_pb2.OptionValue(int_value=target)},
                bot_seats={0: "heuristic", 1: "random"},
            )
            ids.append(client.stub.CreateGame(request).game.game_id)
        biggest = 0
        running = set(ids)
        while running:
            biggest = max(biggest, int(r.zcard("tt:deadlines")))
            for game_id in list(running):
                if client.get(game_id).game.status in OVER:
                    running.discard(game_id)
            time.sleep(0.02)
        return time.perf_counter() - t0, biggest


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=32)
    p.add_argument("--bot-delay", default="0")
    p.add_argument("--target-score", type=int, default=30)
    p.add_argument("--replicas", default="1,2")
    args = p.parse_args()
    for replicas in (int(x) for x in args.replicas.split(",")):
        seconds, biggest = one_run(replicas, args.games, args.bot_delay, args.target_score)
        print(
            f"{replicas} replica(s), bot delay {args.bot_delay} s: {args.games} games in "
            f"{seconds:.2f} s = {args.games / seconds:.2f} games/s; "
            f"deadline index at most {biggest} entries",
            flush=True,
        )


if __name__ == "__main__":
    main()
