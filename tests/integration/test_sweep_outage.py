"""While Redis is down, a replica's deadline sweep logs the outage once, not once a sweep, and
then its end once Redis answers again (issue 30): a real ``tricktable serve`` process on a real
``redis-server`` that the test stops and starts again on the same port."""

from __future__ import annotations

import time
from collections.abc import Callable

from service.config import REDIS_URL_ENV
from tests.conftest import redis_server
from tests.servers import ServerProcess, serve_process

DOWN = "store unreachable: deadline sweeps fail until it answers"
BACK = "store reachable again: deadline sweeps resumed"


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 60  # only keeps a broken build from hanging
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def sweep_lines(served: ServerProcess) -> list[dict[str, object]]:
    return [line for line in served.log_lines() if "deadline sweep" in str(line["event"])]


def events(served: ServerProcess) -> list[object]:
    return [line["event"] for line in sweep_lines(served)]


def test_a_redis_outage_is_logged_once_then_its_end() -> None:
    with redis_server() as (url, redis_proc):
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        with serve_process(env={REDIS_URL_ENV: url}) as served:
            redis_proc.terminate()
            redis_proc.wait(10)
            wait_for(lambda: DOWN in events(served), "the outage's warning")
            # Many sweeps fail meanwhile (20 a second when Redis is up): one line says so.
            time.sleep(2)
            assert events(served) == [DOWN]
            with redis_server(port):
                wait_for(lambda: BACK in events(served), "the end of the outage")
                assert events(served) == [DOWN, BACK]
                down, back = sweep_lines(served)
                assert down["level"] == "warning" and back["level"] == "info"
                assert isinstance(back["failed_sweeps"], int) and back["failed_sweeps"] > 1
                assert isinstance(back["down_s"], float)
