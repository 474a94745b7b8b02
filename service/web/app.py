"""The web door's ASGI application: the Connect/gRPC-Web service, CORS, and the reference web
table (``clients/web``, built into ``service/web/static``) at ``/``.

CORS (Starlette's middleware): only the ``--web-origin`` origins may call from another site. A
preflight is answered with the asking origin itself when it is listed (never the Host header,
and never ``*`` unless ``*`` was listed), and refused (400) otherwise; credentials are never
allowed, since the seat token travels in the ``Authorization`` header, not in a cookie. The page
the server serves itself is same-origin and needs none of this.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path

from connectrpc.errors import ConnectError
from starlette.datastructures import MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import PlainTextResponse
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1.game_service_connect import GameServiceASGIApplication
from tricktable.v1.tournament_service_connect import TournamentServiceASGIApplication

from service.limits import Limits
from service.metrics import Metrics
from service.servicer import GameServicer
from service.tournaments import web as tournament_web
from service.tournaments.servicer import TournamentServicer
from service.web import codecs
from service.web.adapter import ConnectGameService, ErrorsToConnect
from service.web.guard import Guard, StrictGzip, drained

STATIC = Path(__file__).resolve().parent / "static"
#: A file asked for by its content's hash (``app.js?v=<hash>``, as the built index.html names
#: it) never changes: a browser keeps it a year without asking again.
KEEP_VERSIONED = "public, max-age=31536000, immutable"
#: Anything else (index.html above all) may change with a new build: a browser keeps it but
#: asks each time, and an unchanged file is answered 304 by its ETag.
REVALIDATE = "no-cache"
#: Smaller answers gain nothing from gzip.
GZIP_MIN_BYTES = 1024

#: What a Connect or gRPC-Web client sends (besides the CORS-safelisted headers).
ALLOWED_HEADERS = (
    "Authorization",
    "X-Player-Token",  # a player identity (service.identity)
    "Connect-Protocol-Version",
    "Connect-Timeout-Ms",
    "Connect-Accept-Encoding",
    "Connect-Content-Encoding",
    "Content-Encoding",
    "Accept-Encoding",
    "Grpc-Timeout",
    "Grpc-Accept-Encoding",
    "X-Grpc-Web",
    "X-User-Agent",
)
#: What a browser client must be able to read of a response.
EXPOSED_HEADERS = (
    "Grpc-Status",
    "Grpc-Message",
    "Grpc-Status-Details-Bin",
    "Grpc-Encoding",
    "Grpc-Accept-Encoding",
    "Connect-Content-Encoding",
    "Connect-Accept-Encoding",
    "Content-Encoding",
)


class WebApp:
    """Routes RPC paths to the Connect application and everything else to the static files."""

    def __init__(
        self,
        rpc: GameServiceASGIApplication,
        guard: Guard,
        static: Path = STATIC,
        tournaments: TournamentServiceASGIApplication | None = None,
    ) -> None:
        self._rpc = rpc
        self._guard = guard
        self._prefix = rpc.path + "/"
        self._stream = f"{rpc.path}/StreamEvents"
        self._tournaments = tournaments
        self._t_prefix = tournaments.path + "/" if tournaments is not None else None
        self._t_streams = frozenset(
            f"{tournaments.path}/{name}" for name in tournament_web.STREAMS if tournaments
        )
        self._files: ASGIApp = (
            # The middleware answers StaticFiles' "not found" (an exception) with a 404.
            GZipMiddleware(
                _Cached(ExceptionMiddleware(StaticFiles(directory=static, html=True))),
                minimum_size=GZIP_MIN_BYTES,
            )
            if (static / "index.html").exists()
            else PlainTextResponse("the web table is not built (npm run build)", 404)
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._rpc(scope, receive, send)
            return
        if scope["type"] == "websocket":
            # Not served (connect-python raises on it: HTTP 500 and a traceback): refusing the
            # handshake is answered 403.
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return
        receive, send = drained(receive, send)
        if scope["path"] == self._stream:
            await self._guard(self._events, scope, receive, send)
        elif scope["path"].startswith(self._prefix):
            await self._guard(self._rpc, scope, receive, send)
        elif self._t_prefix is not None and scope["path"].startswith(self._t_prefix):
            await self._tournament(scope, receive, send)
        else:
            await self._files(scope, receive, send)

    async def _events(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _ended_by_disconnect(self._rpc, scope, receive, send)

    async def _tournament(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self._tournaments
        assert app is not None
        if scope["path"] in self._t_streams:

            async def streamed(scope: Scope, receive: Receive, send: Send) -> None:
                await _ended_by_disconnect(app, scope, receive, send)

            await self._guard(streamed, scope, receive, send)
        else:
            await self._guard(app, scope, receive, send)


class _Cached:
    """The table's files with their Cache-Control: kept for good when asked for by their hash,
    revalidated otherwise (StaticFiles answers an unchanged file's ETag with 304)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        versioned = any(
            part.startswith(b"v=") for part in scope.get("query_string", b"").split(b"&")
        )

        async def with_cache_control(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (200, 304):
                headers = MutableHeaders(scope=message)
                headers["cache-control"] = KEEP_VERSIONED if versioned else REVALIDATE
            await send(message)

        await self._app(scope, receive, with_cache_control)


async def _ended_by_disconnect(app: object, scope: Scope, receive: Receive, send: Send) -> None:
    """Run a server stream until it ends or its client goes away.

    connect-python notices a departed client only when the stream has its next message to send;
    a watcher of an idle game would hold its task and its store wait until the next move. Here
    the disconnect (which connect-python's own monitor reads through this ``receive``) cancels
    the call at once.
    """
    gone = asyncio.Event()

    async def watched() -> Message:
        message = await receive()
        if message["type"] == "http.disconnect":
            gone.set()
        return message

    call = asyncio.ensure_future(app(scope, watched, send))  # type: ignore[operator]
    departure = asyncio.ensure_future(gone.wait())
    try:
        await asyncio.wait((call, departure), return_when=asyncio.FIRST_COMPLETED)
    finally:
        departure.cancel()
        if not call.done():
            call.cancel()
    # A cancelled call answers CANCELED to nobody: the client has gone.
    with contextlib.suppress(asyncio.CancelledError, ConnectError):
        await call


def web_app(
    servicer: GameServicer,
    metrics: Metrics,
    *,
    origins: Sequence[str],
    max_message_bytes: int,
    limits: Limits | None = None,
    static: Path = STATIC,
    tournaments: TournamentServicer | None = None,
) -> ASGIApp:
    codecs.install()
    rpc = GameServiceASGIApplication(
        ConnectGameService(servicer),
        interceptors=[ErrorsToConnect(metrics, limits)],
        read_max_bytes=max_message_bytes,
        # gzip, as Connect and gRPC-Web allow, refusing what is not gzip or inflates too far.
        compressions=[StrictGzip(max_message_bytes)],
    )
    service = pb.DESCRIPTOR.services_by_name["GameService"]
    paths = frozenset(f"{rpc.path}/{method.name}" for method in service.methods)
    t_app = None
    if tournaments is not None:  # TournamentService (issue 27), beside GameService
        t_app = tournament_web.tournament_app(
            tournaments, metrics, max_message_bytes=max_message_bytes, limits=limits
        )
        paths |= tournament_web.paths(t_app)
    return CORSMiddleware(
        WebApp(rpc, Guard(paths, max_message_bytes, metrics), static, t_app),
        allow_origins=tuple(origins),
        allow_methods=("GET", "POST"),
        allow_headers=ALLOWED_HEADERS,
        expose_headers=EXPOSED_HEADERS,
        allow_credentials=False,
        max_age=7200,
    )
