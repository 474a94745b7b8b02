"""Health follows the store: a real redis-server is stopped and started again on its port."""

from __future__ import annotations

import time
from collections.abc import Callable

from grpc_health.v1 import health_pb2, health_pb2_grpc

from service.readiness import LIVENESS
from tests.conftest import redis_server
from tests.servers import running_server

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _eventually(check: Callable[[], bool], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        assert time.monotonic() < deadline, "the health status did not change in time"
        time.sleep(0.05)


def test_readiness_follows_redis_and_liveness_does_not() -> None:
    with (
        redis_server() as (url, redis_proc),
        running_server(redis_url=url, health_interval_s=0.1) as served,
    ):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        health = health_pb2_grpc.HealthStub(served.client.channel)

        def status(name: str) -> int:
            reply = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5)
            return int(reply.status)

        def readiness(wanted: int) -> bool:
            return all(status(n) == wanted for n in ("", "tricktable.v1.GameService"))

        assert readiness(SERVING) and status(LIVENESS) == SERVING
        redis_proc.terminate()
        redis_proc.wait(10)
        _eventually(lambda: readiness(NOT_SERVING))
        assert status(LIVENESS) == SERVING  # a liveness probe must not restart the replica
        with redis_server(port):
            _eventually(lambda: readiness(SERVING))
            assert status(LIVENESS) == SERVING
