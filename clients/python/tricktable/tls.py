"""Channels to a Tricktable server, in the clear or over TLS.

``tls=True`` verifies the server's certificate against the system's trusted roots, or against
``ca_file`` (a PEM file: a private CA, a self-signed certificate) when it is given; a CA file
alone means TLS. Without either, the channel is plaintext, as to a server without
``--tls-cert``.
"""

from __future__ import annotations

from pathlib import Path

import grpc


def credentials(ca_file: str | None = None) -> grpc.ChannelCredentials:
    roots = Path(ca_file).read_bytes() if ca_file else None
    return grpc.ssl_channel_credentials(root_certificates=roots)


def channel(target: str, *, tls: bool = False, ca_file: str | None = None) -> grpc.Channel:
    if tls or ca_file:
        return grpc.secure_channel(target, credentials(ca_file))
    return grpc.insecure_channel(target)


def aio_channel(target: str, *, tls: bool = False, ca_file: str | None = None) -> grpc.aio.Channel:
    if tls or ca_file:
        return grpc.aio.secure_channel(target, credentials(ca_file))
    return grpc.aio.insecure_channel(target)
