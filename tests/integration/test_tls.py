"""TLS end to end: a throwaway certificate made now (openssl), ``serve`` with --tls-cert and
--tls-key in a process of its own, and the Python client and ``tricktable`` commands connecting
with --tls-ca. A plaintext client, or one that does not trust the certificate, gets nowhere."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from tricktable.client import Client
from tricktable.errors import TricktableError

from service.cli import main
from tests.servers import serve_process


@pytest.fixture(scope="module")
def tls_server(certificate: tuple[Path, Path]) -> Iterator[str]:
    cert, key = certificate
    env = {"TRICKTABLE_TLS_KEY": str(key)}  # one of the two by its variable
    with serve_process("--tls-cert", str(cert), "--grace", "1", env=env, ca=cert) as served:
        yield served.address


def test_the_client_plays_over_tls(tls_server: str, certificate: tuple[Path, Path]) -> None:
    cert, _ = certificate
    with Client(tls_server, ca_file=str(cert)) as client:
        game = client.create("counterpoint")
        me, _ = client.join(game.game_id), client.join(game.game_id)
        assert me.get().view.legal_moves


def test_plaintext_and_untrusted_clients_are_refused(
    tls_server: str, certificate: tuple[Path, Path]
) -> None:
    with Client(tls_server, timeout_s=3) as plain, pytest.raises(TricktableError) as caught:
        plain.create("counterpoint")
    assert caught.value.code == grpc.StatusCode.UNAVAILABLE
    # TLS with the system's roots: the throwaway certificate is trusted by nobody else.
    untrusting = Client(tls_server, tls=True, timeout_s=3)
    with untrusting, pytest.raises(TricktableError) as refused:
        untrusting.create("counterpoint")
    assert refused.value.code == grpc.StatusCode.UNAVAILABLE


def test_commands_connect_with_tls(
    tls_server: str,
    certificate: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    cert, _ = certificate
    assert main(["health", "--address", tls_server, "--tls-ca", str(cert)]) == 0
    assert main(["health", "--address", tls_server, "--timeout", "2"]) == 1  # plaintext
    with Client(tls_server, ca_file=str(cert)) as client:
        game = client.create("counterpoint")
    capsys.readouterr()
    # The game has not ended, so the server refuses its record: an answer that came over TLS.
    code = main(
        ["replay", game.game_id, "--address", tls_server, "--tls-ca", str(cert),
         "-o", str(tmp_path / "r.json")]
    )  # fmt: skip
    said = capsys.readouterr()
    assert code != 0 and "GAME_NOT_FINISHED" in said.out + said.err
