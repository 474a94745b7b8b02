"""The web door's listener: Hypercorn serving the web application on its own port, in the
event loop of the ``grpc.aio`` server (HTTP/1.1, and HTTP/2 for clients that speak it).

With a certificate and key (``serve --tls-cert/--tls-key``, the gRPC port's pair) the port
speaks HTTPS only, offering HTTP/2 and HTTP/1.1 by ALPN; a plain-HTTP request there fails."""

from __future__ import annotations

import asyncio
import logging
import socket

from hypercorn.asyncio import serve
from hypercorn.config import Config
from starlette.types import ASGIApp


class WebServer:
    def __init__(
        self,
        app: ASGIApp,
        host: str,
        port: int,
        grace_s: float,
        *,
        reuse_port: bool = False,
        tls: tuple[str, str] | None = None,
    ) -> None:
        self._app = app
        self._tls = tls  # (certificate file, key file)
        self._reuse_port = reuse_port  # worker processes of one server share the port
        self._host = host
        self._port = port
        self._grace_s = grace_s
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> int:
        """Bind (a taken port is an error here, not later) and serve; the port bound."""
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        # ``::`` is every address, IPv4's too, as the gRPC port serves it (Python's
        # create_server would otherwise make an IPv6 socket IPv6-only).
        dual = self._host.strip("[]") == "::" and socket.has_dualstack_ipv6()
        sock = socket.create_server(
            (self._host.strip("[]"), self._port),
            family=family,
            reuse_port=self._reuse_port,
            dualstack_ipv6=dual,
        )
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        port: int = sock.getsockname()[1]
        config = Config()
        config.bind = [f"fd://{sock.detach()}"]  # Hypercorn owns the socket from here
        config.graceful_timeout = self._grace_s
        config.accesslog = None
        # Hypercorn's own lines (warnings and errors only) through the standard logging.
        config.errorlog = logging.getLogger("tricktable.web")
        config.include_server_header = False
        if self._tls is not None:
            config.certfile, config.keyfile = self._tls
            config.alpn_protocols = ["h2", "http/1.1"]
        self._task = asyncio.create_task(
            serve(self._app, config, shutdown_trigger=self._stopping.wait)  # type: ignore[arg-type]
        )
        return port

    async def stop(self) -> None:
        self._stopping.set()
        if self._task is not None:
            await self._task
            self._task = None
