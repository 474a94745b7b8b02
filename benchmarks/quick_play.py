"""The quick play queue's atomic step (issue 29), measured on a real Redis: what one look at a
queue costs (a waiting player's stream looks every ``poll_s``), and how long a crowd arriving at
once takes to be seated, every player exactly once.

Run: ``python -m benchmarks.quick_play [--players N] [--seats S]`` (a throwaway redis-server
on a free port). It prints numbers; nothing is asserted of them.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid

from benchmarks.redis_server import redis_server
from service.store.base import GameStore, Ticket
from service.store.redis import RedisStore

GRACE_MS = 10_000


async def _look(store: GameStore, pool: str, n: int, now: int, seats: int, *, new: bool) -> str:
    ticket = Ticket(f"seat-{n}", f"p{n}", now) if new else None
    step = await store.queues.queue_step(
        pool,
        f"t-{n}",
        ticket,
        now_ms=now,
        grace_ms=GRACE_MS,
        seats=seats,
        game_id=uuid.uuid4().hex[:16],
        definition="{}",
    )
    assert step.ticket is not None
    return step.ticket.game_id


async def measure(url: str, players: int, seats: int) -> dict[str, float]:
    store = RedisStore.from_url(url)
    try:
        now = int(time.time() * 1000)
        # One look at a queue holding seats - 1 waiting players (as full as a queue stays).
        pool = uuid.uuid4().hex[:16] + f"s{seats}"
        for n in range(seats - 1):
            await _look(store, pool, n, now, seats, new=True)
        looks = 2000
        started = time.perf_counter()
        for _ in range(looks):
            await _look(store, pool, 0, now, seats, new=False)
        look_us = (time.perf_counter() - started) / looks * 1e6
        # A crowd arriving at once, then every player looking until seated.
        pool = uuid.uuid4().hex[:16] + f"s{seats}"
        started = time.perf_counter()
        seated = await asyncio.gather(
            *(_look(store, pool, n, now, seats, new=True) for n in range(players))
        )
        while not all(seated):
            waiting = [n for n, g in enumerate(seated) if not g]
            again = await asyncio.gather(
                *(_look(store, pool, n, now, seats, new=False) for n in waiting)
            )
            for n, game in zip(waiting, again, strict=True):
                seated[n] = game
        crowd_s = time.perf_counter() - started
        games: dict[str, int] = {}
        for game in seated:
            games[game] = games.get(game, 0) + 1
        assert all(count == seats for count in games.values())
        return {
            "look_us": look_us,
            "crowd_players": players,
            "crowd_s": crowd_s,
            "players_per_s": players / crowd_s,
            "games": len(games),
        }
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4000)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()
    with redis_server() as (url, _):
        result = asyncio.run(measure(url, args.players, args.seats))
    for key, value in result.items():
        print(f"{key}: {value:.1f}" if isinstance(value, float) else f"{key}: {value}")


if __name__ == "__main__":
    main()
