"""The tests' servers: one way to run a real server in this process, one way to run it as a
process of its own. Both listen on free ports; clients reach them over real sockets.

- :func:`running_server`: a :class:`~service.running.ServerThread` (the server on its own event
  loop in a background thread) with a test client. Every option is a ``ServerConfig`` field:
  ``web_port=0`` opens the web door, ``metrics_port=0`` the metrics endpoint, ``limits=``,
  ``tls_cert=``/``tls_key=``, ``idle_ttl_s=``, ``bot_delay_s=`` and so on; the store is named by
  :func:`store_fields` (memory, the session's Redis, its Redis Cluster), or built by the test
  (``store_factory``) when it is a test's own. The ``served`` and ``client`` fixtures
  (``tests/conftest.py``) are one of these per module.
- :func:`serve_process`: ``tricktable serve`` as an operator runs it, for what only a process of
  its own shows: signals and exit status, SIGKILL, ``--workers``, its logs, settings from the
  environment, several replicas.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from benchmarks.redis_server import free_port
from service.config import ServerConfig
from service.running import ServerThread
from service.store.base import GameStore
from tests.service.support import Client

ROOT = Path(__file__).resolve().parents[1]

#: The ``tricktable`` command of this checkout, whatever else is installed.
SERVE = (sys.executable, "-c", "import sys; from service.cli import main; sys.exit(main())")

#: What the tests change from the defaults: any free port, a short grace period and stream
#: wait, so that servers stop quickly.
TEST_DEFAULTS: dict[str, Any] = {"port": 0, "grace_s": 1.0, "stream_wait_s": 0.2}


class Served(NamedTuple):
    """A server running in this process and a test client of it."""

    server: ServerThread
    client: Client

    @property
    def address(self) -> str:
        return self.server.address

    @property
    def web_port(self) -> int:
        running = self.server.server
        assert running is not None and running.web_port, "no web door (web_port=0 opens one)"
        return running.web_port

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"


def store_fields(request: pytest.FixtureRequest, store: str) -> dict[str, Any]:
    """The ``ServerConfig`` fields of a store by name: "memory" (the embedded store), "redis"
    (the session's redis-server) or "redis-cluster" (the session's Redis Cluster)."""
    if store == "memory":
        return {}
    if store == "redis":
        return {"redis_url": request.getfixturevalue("redis_url")}
    if store == "redis-cluster":
        return {"redis_url": request.getfixturevalue("redis_cluster_url"), "redis_cluster": True}
    raise ValueError(f"no store called {store!r}")


@contextmanager
def running_server(
    store_factory: Callable[[], GameStore] | None = None, **config_fields: Any
) -> Iterator[Served]:
    """A real server in this process on a free port, and a test client of it: the tests'
    defaults with ``config_fields`` set; its store built on the server's own loop, from the
    configuration or by ``store_factory``. A test may stop the server early
    (``served.server.stop()``)."""
    config = ServerConfig(**{**TEST_DEFAULTS, **config_fields})
    with ServerThread(config, store_factory) as server:
        client = Client(server.address)
        try:
            yield Served(server, client)
        finally:
            client.close()


def is_serving(address: str, service: str = "", ca: Path | None = None) -> bool:
    """Whether the server at ``address`` answers a health check SERVING for ``service`` (""
    is readiness); over TLS trusting ``ca`` when given."""
    if ca is None:
        channel = grpc.insecure_channel(address)
    else:
        channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(ca.read_bytes()))
    with channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=0.5
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


@dataclass
class ServerProcess:
    """``tricktable serve`` in a process of its own: the process (a test may signal it), its
    address, and what it wrote to stderr (a file, so that no pipe fills and stalls it)."""

    proc: subprocess.Popen[bytes]
    address: str
    stderr: Path
    _client: Client | None = field(default=None, repr=False)

    @property
    def client(self) -> Client:
        """A test client of it (plaintext), made on first use."""
        if self._client is None:
            self._client = Client(self.address)
        return self._client

    def log(self) -> str:
        """What it has written to stderr so far."""
        return self.stderr.read_text(errors="replace")

    def log_lines(self) -> list[dict[str, object]]:
        """Its log so far, one JSON object a line (as it logs when stderr is no terminal)."""
        return [json.loads(line) for line in self.log().splitlines() if line.strip()]


@contextmanager
def serve_process(
    *args: str,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] = SERVE,
    ca: Path | None = None,
) -> Iterator[ServerProcess]:
    """``command serve`` (``tricktable serve``) with ``--port`` a free port, ``--grace 2`` and
    ``args`` (later flags win), from the repository root, with ``env`` added to this
    environment; yielded once its health check answers SERVING (over TLS trusting ``ca`` when
    given). Afterwards its whole process group (workers too) is killed if it still runs."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="tricktable-serve-") as where:
        stderr = Path(where) / "stderr"
        with stderr.open("ab") as sink:  # appends: reading the log moves no write offset
            proc = subprocess.Popen(
                [*command, "serve", "--port", str(port), "--grace", "2", *args],
                cwd=ROOT,
                env={**os.environ, **(env or {})},
                stdout=subprocess.DEVNULL,
                stderr=sink,
                start_new_session=True,  # a group of its own, to end its workers with it
            )
        served = ServerProcess(proc, f"127.0.0.1:{port}", stderr)
        try:
            deadline = time.monotonic() + 60
            while not is_serving(served.address, ca=ca):
                assert proc.poll() is None, f"the server exited: {served.log()}"
                assert time.monotonic() < deadline, "the server did not become healthy"
                time.sleep(0.1)
            yield served
        finally:
            if served._client is not None:
                served._client.close()
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
