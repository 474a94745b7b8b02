"""The rated ladder across replicas: two ``tricktable serve`` processes on one real Redis (and on a
real Redis Cluster). The replica that advances the ladder (the holder of its lease) is SIGKILLed
while rated games are under way; the other takes the ladder up once the lease runs out, rates the
games that end and starts more. Each game is rated exactly once: every bot's rating counts as
many games as the ladder has rated games with the bot in them.

The bots are connected bots (``BotSession`` on the surviving replica), so once the test ends
they are offline and no later server on the same Redis matches them again."""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import redis
from tricktable.bots import make_bot
from tricktable.bots.connected import register, run_connected
from tricktable.client import Client
from tricktable.v1 import tournament_service_pb2 as tpb

from service.config import REDIS_CLUSTER_ENV, REDIS_URL_ENV
from service.tournaments.redis_bots import redis_stores
from service.tournaments.store import LadderState
from tests.servers import ServerProcess, serve_process
from tests.tournaments.support import stub

GAME = "counterpoint"
LEASE_KEY = f"tt:lease:{{ladder.{GAME}}}"
#: Rated games wanted before the kill, and after it.
BEFORE, AFTER = 2, 3
FLAGS = ("--bot-delay", "0", "--ladder-games-at-once", "2")


def _until(condition: Any, what: str) -> None:
    deadline = time.monotonic() + 120  # a bound on a hang, not a timed assertion
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.1)


def _ladder_state(url: str, cluster: bool) -> LadderState:
    async def read() -> LadderState:
        stores = redis_stores(url, cluster=cluster)
        try:
            return await stores.ladders.ladder(GAME)
        finally:
            await stores.close()

    return asyncio.run(read())


@contextmanager
def _sessions(client: Client, tokens: list[tuple[str, str]]) -> Iterator[None]:
    """Each bot's session held open on a thread, until the block ends."""
    stop = threading.Event()
    threads = [
        threading.Thread(
            target=run_connected,
            args=(client, token, lambda game, kind=kind: make_bot(kind, game, 7)),
            kwargs={"stop": stop},
            daemon=True,
        )
        for kind, token in tokens
    ]
    for thread in threads:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)


def _rated(state: LadderState, bot_ids: set[str]) -> list[int]:
    return sorted(n for n in state.rated if set(state.games[n][1]) <= bot_ids)


def _started_here(replica: ServerProcess) -> int:
    return sum(1 for line in replica.log_lines() if line.get("event") == "ladder game started")


@pytest.mark.parametrize("store", ["redis", "redis-cluster"])
def test_a_killed_ladder_holder_leaves_the_ladder_to_the_other_replica_rating_once(
    request: pytest.FixtureRequest, store: str
) -> None:
    cluster = store == "redis-cluster"
    url = request.getfixturevalue("redis_cluster_url" if cluster else "redis_url")
    env = {REDIS_URL_ENV: url, **({REDIS_CLUSTER_ENV: "1"} if cluster else {})}
    r: Any = redis.RedisCluster.from_url(url) if cluster else redis.Redis.from_url(url)
    r.delete(LEASE_KEY)  # (a lease left by an earlier test's server, killed: not this one's)
    with serve_process(*FLAGS, env=env) as holder:
        with Client(holder.address) as client:
            kinds = ["heuristic", "random", "heuristic", "random"]
            made = [
                register(client, f"{kind}-{n}", [GAME], ladder=True) for n, kind in enumerate(kinds)
            ]
        bot_ids = {m.bot_id for m in made}
        _until(lambda: r.exists(LEASE_KEY), "the first replica to hold the ladder")
        with (
            serve_process(*FLAGS, env=env) as other,
            Client(other.address) as client,
            _sessions(client, [(k, m.bot_token) for k, m in zip(kinds, made, strict=True)]),
        ):
            _until(lambda: len(_rated(_ladder_state(url, cluster), bot_ids)) >= BEFORE, "games")
            assert _started_here(holder) > 0  # the replica killed was advancing the ladder
            holder.proc.send_signal(signal.SIGKILL)
            holder.proc.wait(10)
            rated_then = len(_rated(_ladder_state(url, cluster), bot_ids))
            _until(
                lambda: len(_rated(_ladder_state(url, cluster), bot_ids)) >= rated_then + AFTER,
                "games rated by the other replica",
            )
            channel, tournaments = stub(other.address)
            with channel:
                ladder = tournaments.GetLadder(tpb.GetLadderRequest(game_type=GAME))
            state = _ladder_state(url, cluster)
            assert _started_here(other) > 0  # it went on starting rated games
    rated = _rated(state, bot_ids)
    assert len(rated) >= rated_then + AFTER
    for bot_id in bot_ids:  # each rated game counted once in each of its bots' ratings
        in_games = sum(1 for n in rated if bot_id in state.games[n][1])
        assert state.ratings[bot_id].games == in_games > 0
    rows = {row.bot_id: row for row in ladder.rows if row.bot_id in bot_ids}
    assert set(rows) == bot_ids
    assert all(row.games <= state.ratings[b].games for b, row in rows.items())
