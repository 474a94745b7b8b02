"""A called bot at an ``https://`` Connect address: a ``tricktable bot`` process serving its
``BotService`` over Connect on TLS, with a certificate made now by a throwaway CA. The server
trusts that CA through ``--bot-ca-file`` (config ``bot_ca_file``), calls the bot for each of its
decisions and the tournament ends with no forfeit; a server that does not trust the CA cannot
call it, so the bot loses on the clock and forfeits."""

from __future__ import annotations

import datetime
import ipaddress
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from tricktable.bots.connected import register
from tricktable.client import Client
from tricktable.v1 import clocks_pb2
from tricktable.v1 import tournament_service_pb2 as tpb

from benchmarks.redis_server import free_port
from service.cli import main
from tests.servers import ROOT, running_server
from tests.tournaments.support import create_request, stub, wait_ended

GAME = "counterpoint"
BOT = (sys.executable, "-c", "import sys; from tricktable.cli import main; sys.exit(main())")


#: What the CA's key may do: sign certificates (and their revocation lists).
_CA_USAGE = x509.KeyUsage(
    digital_signature=True,
    key_cert_sign=True,
    crl_sign=True,
    content_commitment=False,
    key_encipherment=False,
    data_encipherment=False,
    key_agreement=False,
    encipher_only=False,
    decipher_only=False,
)


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def make_tls(where: Path) -> tuple[Path, Path, Path]:
    """A throwaway CA and a certificate it signs for localhost and 127.0.0.1: (CA file,
    certificate file, key file)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("tricktable test CA"))
        .issuer_name(_name("tricktable test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_CA_USAGE, critical=True)
        .add_extension(
            x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (
        x509.CertificateBuilder()
        .subject_name(_name("localhost"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    ca_file, cert_file, key_file = where / "ca.pem", where / "cert.pem", where / "key.pem"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return ca_file, cert_file, key_file


@contextmanager
def https_bot(cert: Path, key: Path, out: Path) -> Iterator[str]:
    """``tricktable bot`` serving the heuristic bot over Connect on TLS: its https:// URL."""
    grpc_port, connect_port = free_port(), free_port()
    with out.open("wb") as sink:
        proc = subprocess.Popen(
            [
                *BOT, "bot", "--bot", "heuristic", "--name", "webhook", "--game", GAME,
                "--port", str(grpc_port), "--connect-port", str(connect_port),
                "--tls-cert", str(cert), "--tls-key", str(key),
            ],
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60  # only keeps a broken build from hanging
        while not (said := re.search(r"over Connect at (https://\S+)", out.read_text())):
            assert proc.poll() is None, out.read_text()
            assert time.monotonic() < deadline, "the bot did not start"
            time.sleep(0.1)
        yield said.group(1)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def _play(bot_url: str, bot_ca_file: str | None = None) -> tpb.Tournament:
    """A clocked tournament of the https:// bot and the random bot on a server of its own."""
    with (
        running_server(bot_delay_s=0, bot_ca_file=bot_ca_file) as served,
        Client(served.address) as client,
    ):
        bot_id = register(client, "webhook", [GAME], endpoint=bot_url).bot_id
        request = create_request([bot_id, "random"], options={"target_score": 20})
        request.time_control.CopyFrom(
            clocks_pb2.TimeControl(move_ms=1500, on_timeout=clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE)
        )
        channel, tournaments = stub(served.address)
        with channel:
            made = tournaments.CreateTournament(request)
            ended: tpb.Tournament = wait_ended(
                tournaments, made.tournament.tournament_id, timeout_s=120
            ).tournament
    return ended


def test_a_called_bot_at_an_https_connect_address_plays_when_its_ca_is_trusted(
    tmp_path: Path,
) -> None:
    ca, cert, key = make_tls(tmp_path)
    with https_bot(cert, key, tmp_path / "bot.out") as url:
        assert url.startswith("https://")
        trusted = _play(url, bot_ca_file=str(ca))
        untrusted = _play(url)
    for ended in (trusted, untrusted):
        assert ended.status == tpb.TOURNAMENT_STATUS_FINISHED and ended.games_ended == 2
    rows = {r.name: r for r in trusted.standings}
    assert rows["webhook"].games == 2 and rows["webhook"].forfeits == 0
    # Not trusting its CA, the server cannot call it: the bot is unavailable and forfeits.
    assert {r.name: r for r in untrusted.standings}["webhook"].forfeits > 0


def test_serve_refuses_a_bot_ca_file_without_a_certificate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.pem"
    empty.write_text("not a certificate\n")
    for given in (empty, tmp_path / "missing.pem"):
        with pytest.raises(SystemExit) as refused:
            main(["serve", "--port", "0", "--bot-ca-file", str(given)])
        assert refused.value.code == 2
        assert "--bot-ca-file" in capsys.readouterr().err
