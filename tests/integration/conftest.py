"""Integration tests run on each store: the embedded one, a real Redis, and a real Redis Cluster
(three masters, three replicas); the root conftest's ``served`` server keeps its games there."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module", params=["memory", "redis", "redis-cluster"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)
