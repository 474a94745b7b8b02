"""All-bot games on two ``tricktable serve`` replicas sharing one Redis, bots moving at once
(``--bot-delay 0``): both replicas find every bot turn due and race to make it. The deadline
index must hold about one timing entry per game throughout (a stale entry never fires, so
stale entries cannot breed more), no game loses its entry (an entry indexed for a commit still
in flight is kept, not dropped as stale), and each turn is made once.

Before the fix the index grew to thousands of entries for a few dozen games (every stale entry
fired again, and every firing, won or lost, indexed one more), and dropping an in-flight entry
left games without one, carried along only by stale entries."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import redis
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_types_pb2

from engine.record import verify
from service.config import REDIS_URL_ENV
from tests.integration.test_clocks import record_of, watch_until
from tests.servers import serve_process

GAMES = 8
#: Timing entries one game may hold at a time: its own, and those the two replicas' firings in
#: flight indexed before their commits (a refused one's is dropped right after), with a wide
#: margin for a loaded machine. The bug made hundreds per game.
MOST_PER_GAME = 8


def timing_entries(r: Any, games: set[str]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for member in r.zrange("tt:deadlines", 0, -1):
        game_id, kind, *_ = bytes(member).decode().split("|")
        if game_id in games and kind != "idle":
            counts[game_id] += 1
    return counts


def test_two_replicas_keep_one_timing_entry_per_bot_game(redis_url: str) -> None:
    env = {REDIS_URL_ENV: redis_url}
    flags = ("--bot-delay", "0", "--limit-create-game", "0", "--limit-open-games", "0")
    r: Any = redis.Redis.from_url(redis_url)
    with serve_process(*flags, env=env) as one, serve_process(*flags, env=env):
        client = one.client
        games = set()
        for n in range(GAMES):
            request = pb.CreateGameRequest(
                game_type="counterpoint",
                seed=f"replicas:{n}".encode(),
                options={"target_score": game_types_pb2.OptionValue(int_value=30)},
                bot_seats={0: "heuristic", 1: "random"},
            )
            games.add(client.stub.CreateGame(request).game.game_id)
        most: Counter[str] = Counter()
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                for game_id, count in timing_entries(r, games).items():
                    most[game_id] = max(most[game_id], count)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        try:
            ended = [watch_until(client, g, 10**9, limit_s=120) for g in sorted(games)]
        finally:
            done.set()
            sampler.join(10)
        assert all(e.game.status == pb.GAME_STATUS_FINISHED for e in ended)
        assert most and max(most.values()) <= MOST_PER_GAME, most
        assert not timing_entries(r, games)  # ended games leave the index
        for game_id in games:  # every turn made once, each by the seat's bot
            record = record_of(client, game_id)
            assert verify(record) == record.outcome
