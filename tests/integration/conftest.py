"""A real server per test module: on the embedded store, on a real Redis, and on a real Redis
Cluster (three masters, three replicas)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from service.running import ServerThread
from service.store.base import GameStore
from service.store.redis import RedisStore
from tests.service.support import Client, running_server


@pytest.fixture(scope="module", params=["memory", "redis", "redis-cluster"])
def served(request: pytest.FixtureRequest) -> Iterator[tuple[ServerThread, Client]]:
    factory: Callable[[], GameStore] | None = None
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        factory = lambda: RedisStore.from_url(url)  # noqa: E731
    if request.param == "redis-cluster":
        seed = request.getfixturevalue("redis_cluster_url")
        factory = lambda: RedisStore.from_url(seed, cluster=True)  # noqa: E731
    with running_server(factory) as pair:
        yield pair


@pytest.fixture
def client(served: tuple[ServerThread, Client]) -> Client:
    return served[1]
