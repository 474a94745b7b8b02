"""A hosted bot's ``BotService`` over Connect (HTTP/1.1), over TLS when given a certificate: what a
server calls at an ``https://`` address (a called bot of a hosted tournament, like a webhook).
The same :class:`~tricktable.bots.service.BotServicer` answers as on the gRPC port, so the bot
keeps one memory per seat whichever door a call comes through. Needs the ``connect`` extra.

    tricktable bot --bot heuristic --port 50061 --connect-port 8443 \\
        --tls-cert cert.pem --tls-key key.pem        # also https://HOST:8443
"""

from __future__ import annotations

import socket
import ssl
import threading
from socketserver import ThreadingMixIn
from typing import Any, NoReturn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError

from tricktable.bots.service import BotServicer
from tricktable.v1 import bot_service_pb2 as pb
from tricktable.v1.bot_service_connect import BotServiceWSGIApplication

#: How long a connection may take over its TLS handshake (on its own thread).
HANDSHAKE_S = 10.0


class _Context:
    """What :class:`BotServicer` uses of a gRPC context: its refusal, as a Connect error."""

    def abort(self, code: grpc.StatusCode, details: str) -> NoReturn:
        raise ConnectError(Code[code.name], details)


class ConnectBotService:
    """The ``BotServiceSync`` of the generated Connect code, answered by a :class:`BotServicer`."""

    def __init__(self, servicer: BotServicer) -> None:
        self._servicer = servicer

    def describe_bot(self, request: pb.DescribeBotRequest, ctx: Any) -> pb.DescribeBotResponse:
        return self._servicer.DescribeBot(request, _Context())

    def decide(self, request: pb.DecideRequest, ctx: Any) -> pb.DecideResponse:
        return self._servicer.Decide(request, _Context())


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return  # a line per decision would drown the bot's own output


class _Server(ThreadingMixIn, WSGIServer):
    """One thread per connection; with ``tls``, its handshake is made on that thread (a slow
    or broken client holds up no other)."""

    daemon_threads = True
    tls: ssl.SSLContext | None = None

    def finish_request(self, request: Any, client_address: Any) -> None:
        if self.tls is not None:
            request.settimeout(HANDSHAKE_S)
            try:
                request = self.tls.wrap_socket(request, server_side=True)
            except (OSError, ssl.SSLError):
                return  # not a TLS client, or it went away
            request.settimeout(None)
        super().finish_request(request, client_address)


class ConnectBotHost:
    """A running Connect door of a bot (a thread of its own). ``url``: what a server calls."""

    def __init__(
        self,
        servicer: BotServicer,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        tls_cert: str | None = None,
        tls_key: str | None = None,
    ) -> None:
        app = BotServiceWSGIApplication(ConnectBotService(servicer))
        self._server = make_server(host, port, app, server_class=_Server, handler_class=_Quiet)
        if tls_cert is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(tls_cert, tls_key)
            self._server.tls = context
        self.port: int = self._server.server_address[1]
        scheme = "https" if tls_cert is not None else "http"
        self.url = f"{scheme}://{_url_host(host)}:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="bot-connect", daemon=True
        )

    def start(self) -> ConnectBotHost:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def _url_host(host: str) -> str:
    if host in ("", "0.0.0.0"):
        return socket.gethostname()
    return f"[{host}]" if ":" in host else host
