"""A client command that cannot reach its server says why in one line on stderr, with what to
try, instead of a traceback: nothing listening at the address, a plaintext client at a TLS
port (add --tls), a TLS client that does not trust a self-signed certificate (--tls-ca)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from tests.servers import running_server

ROOT = Path(__file__).resolve().parents[2]


def closed_port() -> int:
    """A port nothing listens on: bound for a moment by this process, then let go."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def tricktable(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tricktable.cli", *argv],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_play_and_watch_at_a_closed_port_say_so_in_one_line() -> None:
    address = f"127.0.0.1:{closed_port()}"
    line = one_line(tricktable("play", "counterpoint", "--address", address))
    assert line == f"tricktable: nothing is listening at {address} (is the server running there?)"
    watched = tricktable("watch", "0123456789abcdef", "--address", address)
    assert watched.returncode == 1 and f"nothing is listening at {address}" in watched.stdout


def test_a_plaintext_client_at_a_tls_port_is_told_of_tls(certificate: tuple[Path, Path]) -> None:
    cert, key = certificate
    with running_server(tls_cert=str(cert), tls_key=str(key)) as served:
        address = served.address
        plain = one_line(tricktable("play", "counterpoint", "--address", address))
        assert "if it serves TLS, add --tls" in plain
        untrusted = one_line(tricktable("play", "counterpoint", "--address", address, "--tls"))
        assert "--tls-ca FILE" in untrusted and "not trusted" in untrusted
