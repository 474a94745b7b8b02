"""Idle event streams on Redis: they cost no Redis command while nothing moves, and no move is
missed when the replica's subscription drops and comes back."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from tricktable.v1 import game_service_pb2 as pb

from benchmarks.streams import commandstats
from tests.conftest import redis_server
from tests.servers import Served, running_server
from tests.service.support import Client

#: Commands a replica sends on its own whatever its streams do: readiness' PING, the deadline
#: sweeper's look at the store's deadline index (service.scheduler: ZRANGE for the next
#: deadline, ZRANGEBYSCORE for those due), and the inspector's own INFO.
_NOT_STREAMS = {"ping", "zrange", "zrangebyscore", "info"}


@pytest.fixture
def own_redis_url() -> Iterator[str]:
    """A Redis of this test's own: the session's holds other tests' games, whose clocks and
    bots any replica's sweeper serves (real work, but not what an idle stream costs)."""
    with redis_server() as (url, _):
        yield url


@pytest.fixture
def inspector(own_redis_url: str) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(own_redis_url)
    yield client
    client.close()


@pytest.fixture
def replica(own_redis_url: str) -> Iterator[Served]:
    # stream_recheck_s is the default (minutes), as deployed: the test must not rely on it.
    with running_server(redis_url=own_redis_url) as served:
        yield served


def _open(client: Client, game_id: str, count: int) -> list[Any]:
    request = pb.StreamEventsRequest(game_id=game_id)
    streams = [client.stub.StreamEvents(request, timeout=60) for _ in range(count)]
    assert [next(s).version for s in streams] == [0] * count
    return streams


def test_idle_streams_cost_no_redis_command(replica: Served, inspector: redis.Redis) -> None:
    _, client = replica
    table = client.table("counterpoint", seed=b"idle")
    streams = _open(client, table.game_id, 30)
    try:
        time.sleep(0.5)  # the streams are waiting now
        before = commandstats(inspector)
        time.sleep(2.5)  # more than the old 1 s re-read period, twice
        after = commandstats(inspector)
        spent = {
            name: calls - before.get(name, 0)
            for name, calls in after.items()
            if calls != before.get(name, 0) and name not in _NOT_STREAMS
        }
        assert spent == {}
        client.play_first(table.game_id, table.tokens[0], 0)
        assert [next(s).version for s in streams] == [1] * 30
    finally:
        for s in streams:
            s.cancel()


def test_no_move_is_missed_across_a_dropped_subscription(
    replica: Served, inspector: redis.Redis
) -> None:
    _, client = replica
    table = client.table("counterpoint", seed=b"resubscribe")
    streams = _open(client, table.game_id, 10)
    try:
        for version in (1, 2):
            # Drop the replica's subscription and commit a move at once, while it may still be
            # down: its notification can be lost, and the streams must then learn of the move
            # by the read every waiter makes once the subscription is back.
            # The replica's own streams may learn of the last move before it has resubscribed
            # (its commit wakes them): wait for the subscription to be back before dropping it.
            deadline = time.monotonic() + 10
            while inspector.client_kill_filter(_type="pubsub") < 1:
                assert time.monotonic() < deadline, "the replica did not resubscribe"
                time.sleep(0.02)
            token = table.tokens[version - 1]
            client.play_first(table.game_id, token, version - 1)
            assert [next(s).version for s in streams] == [version] * 10
    finally:
        for s in streams:
            s.cancel()
