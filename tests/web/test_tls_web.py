"""HTTPS on the web port: with ``--tls-cert/--tls-key`` the web door serves TLS with the gRPC
port's certificate (HTTP/2 by ALPN, HTTP/1.1 otherwise), through a real socket and a throwaway
certificate (the shared ``certificate`` fixture); plain HTTP to that port gets no answer."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.servers import running_server
from tests.web.support import SERVICE


@pytest.fixture(scope="module")
def tls_web(certificate: tuple[Path, Path]) -> Iterator[int]:
    cert, key = certificate
    with running_server(web_port=0, tls_cert=str(cert), tls_key=str(key)) as served:
        yield served.web_port


def _list_game_types(client: httpx.Client, base: str) -> httpx.Response:
    return client.post(
        f"{base}/{SERVICE}/ListGameTypes",
        content=b"{}",
        headers={"content-type": "application/json", "connect-protocol-version": "1"},
    )


@pytest.mark.parametrize("http2", [False, True], ids=["http1.1", "http2"])
def test_a_connect_call_over_https_trusting_the_throwaway_ca(
    tls_web: int, certificate: tuple[Path, Path], http2: bool
) -> None:
    cert, _ = certificate
    trusted = ssl.create_default_context(cafile=str(cert))
    with httpx.Client(verify=trusted, http2=http2, timeout=30) as client:
        reply = _list_game_types(client, f"https://localhost:{tls_web}")
    assert reply.status_code == 200, reply.text
    assert reply.http_version == ("HTTP/2" if http2 else "HTTP/1.1")
    names = {t["name"] for t in reply.json()["gameTypes"]}
    assert "counterpoint" in names


def test_plain_http_to_the_tls_port_fails(tls_web: int) -> None:
    with httpx.Client(timeout=10) as client, pytest.raises(httpx.TransportError):
        _list_game_types(client, f"http://127.0.0.1:{tls_web}")


def test_a_client_that_does_not_trust_the_certificate_is_refused(tls_web: int) -> None:
    # The system's roots: the throwaway certificate is trusted by nobody else.
    with httpx.Client(timeout=10) as client, pytest.raises(httpx.ConnectError):
        _list_game_types(client, f"https://localhost:{tls_web}")
