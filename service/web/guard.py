"""Hostile input on the web port is the client's error (issue 25), where connect-python 0.9 and
Hypercorn 0.18 would answer it as the server's.

Each check below names the upstream behaviour it covers; refusals leave through the one error
path (:func:`service.interceptors.reject`: counted, logged, with ``ErrorInfo``), answered in the
request's own protocol. What the libraries already answer well is left to them.

- A header value that is not UTF-8 (connect-python decodes every header as UTF-8 and answers the
  ``UnicodeDecodeError`` as ``unknown``, HTTP 500): INVALID_ARGUMENT.
- ``application/grpc[+codec]`` where the connection cannot carry trailers, HTTP/1.1
  (connect-python raises a ``RuntimeError``, answered as ``unknown``, HTTP 500): HTTP 415 with
  ``grpc-status`` UNIMPLEMENTED; gRPC is served over HTTP/2, gRPC-Web and Connect over both.
- A malformed ``grpc-timeout`` (connect-python raises ``ValueError``: ``unknown``, HTTP 500) or
  ``connect-timeout-ms`` (connect-python accepts what Python's ``int`` does: ``-5``, ``+5``,
  ``1_000``, other scripts' digits): INVALID_ARGUMENT, by the protocols' grammar (1 to 8 ASCII
  digits and a unit; 1 to 10 ASCII digits).
- An unknown ``connect-content-encoding`` on a Connect stream (connect-python falls back to
  identity, then answers a compressed envelope ``internal``): UNIMPLEMENTED, as the Connect
  protocol says.
- Envelopes (Connect streams, gRPC-Web, gRPC), read as they arrive: one flagged compressed with
  no encoding agreed (connect-python: ``internal``), with flags the request side never sets (end
  of stream, trailers: connect-python reads them as data), or cut short at the end of the body
  (connect-python drops the partial envelope, then answers "zero messages" as
  ``unimplemented``, or accepts the request) is INVALID_ARGUMENT; one that declares more than
  the message limit is RESOURCE_EXHAUSTED at once (connect-python buffers the declared length
  first). A Connect unary body past the limit likewise (connect-python buffers all of it).
- gzip that is not gzip (``gzip.decompress``'s error: ``unknown``, HTTP 500): INVALID_ARGUMENT;
  and what gzip inflates past the message limit is RESOURCE_EXHAUSTED as it inflates, not after
  (:class:`StrictGzip`, the one compression offered besides identity).
- A WebSocket handshake (connect-python raises ``RuntimeError``: HTTP 500 and a traceback):
  refused (HTTP 403).
- On HTTP/2 an answer sent before the request body was read ends the stream while the client
  may still send it; Hypercorn then fails the whole connection on the next DATA frame
  (``KeyError`` in ``H2Protocol._handle_events``), every call on it with it, and logs the
  traceback. :func:`drained` reads what is left of the body (bounded) before the answer's last
  message.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gzip
import json
import re
import struct
import urllib.parse
import zlib
from dataclasses import dataclass
from typing import Any

import structlog
from connectrpc._gen.status_pb2 import Status
from connectrpc._protocol import ConnectWireError
from connectrpc._protocol_grpc import _connect_status_to_grpc
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.errors import InvalidRequest, rejection
from service.interceptors import reject
from service.metrics import Metrics
from service.web.adapter import connect_error

log = structlog.get_logger("tricktable.rpc")

_GRPC_TIMEOUT = re.compile(r"[0-9]{1,8}[HMSmun]")
_CONNECT_TIMEOUT = re.compile(r"[0-9]{1,10}")
#: The request encodings offered (StrictGzip, and identity which is always there).
ENCODINGS = ("gzip", "identity")
#: How much of an unread request body :func:`drained` reads before answering, and how long.
DRAIN_BYTES = 1 << 20
DRAIN_S = 1.0


@dataclass(frozen=True, slots=True)
class Protocol:
    """What a request's content type says: its protocol, whether its messages are enveloped,
    and the codec name (for the answer's content type)."""

    name: str  # "connect", "connect-stream", "grpc-web", "grpc"
    codec: str

    @property
    def enveloped(self) -> bool:
        return self.name != "connect"

    @property
    def encoding_header(self) -> str:
        return {
            "connect": "content-encoding",
            "connect-stream": "connect-content-encoding",
        }.get(self.name, "grpc-encoding")


def protocol_of(content_type: str) -> Protocol:
    """As connect-python tells them apart (``negotiate_server_protocol``: by prefix, parameters
    included), so that the guard reads the headers connect-python will."""
    for prefix, name in (("application/grpc-web", "grpc-web"), ("application/grpc", "grpc")):
        if content_type == prefix:
            return Protocol(name, "proto")
        if content_type.startswith(prefix + "+"):
            return Protocol(name, content_type.removeprefix(prefix + "+"))
    if content_type.startswith("application/connect+"):
        return Protocol("connect-stream", content_type.removeprefix("application/connect+"))
    return Protocol("connect", content_type.removeprefix("application/"))


class Refused(Exception):
    """A request the guard answers itself: the error, and the HTTP status when not the
    protocol's own."""

    def __init__(self, error: ConnectError, http_status: int | None = None) -> None:
        super().__init__(error.message)
        self.error = error
        self.http_status = http_status


class Guard:
    """Checks a call to the RPC application before and while it is read (module docstring)."""

    def __init__(self, paths: frozenset[str], max_message_bytes: int, metrics: Metrics) -> None:
        self._paths = paths
        self._max = max_message_bytes
        self._metrics = metrics

    def _refusal(self, method: str, exc: Exception, http_status: int | None = None) -> Refused:
        """``exc`` as its Connect error: one of ours through the one error path; a protocol's
        own code (UNIMPLEMENTED, RESOURCE_EXHAUSTED without RetryInfo), which our error table
        does not hold, counted and logged alike."""
        if isinstance(exc, ConnectError):
            self._metrics.rpc_handled(method, exc.code.name)
            log.debug("request rejected", method=method, code=exc.code.name, message=exc.message)
            return Refused(exc, http_status)
        return Refused(connect_error(reject(method, exc, self._metrics)), http_status)

    async def __call__(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        method = scope["path"]
        if method not in self._paths or scope["method"] not in ("POST", "GET"):
            await app(scope, receive, send)  # connect-python's 404 and 405 are right
            return
        headers = scope.get("headers", ())
        content_type = _header(headers, b"content-type").decode("latin-1")
        protocol = protocol_of(content_type)
        try:
            encoding = self._check(method, scope, headers, protocol)
        except Refused as refused:
            await answer(send, protocol, refused)
            return
        if scope["method"] == "POST":
            receive = self._read(method, receive, protocol, encoding)
        await app(scope, receive, send)

    def _check(self, method: str, scope: Scope, headers: Any, protocol: Protocol) -> str:
        """Refuses what the request's head already shows; the request encoding agreed."""
        for name, value in headers:
            try:
                name.decode()
                value.decode()
            except UnicodeDecodeError:
                shown = name.decode("latin-1")
                raise self._refusal(
                    method, InvalidRequest(f"the header {shown!r} is not UTF-8")
                ) from None
        if protocol.name == "grpc" and "http.response.trailers" not in scope.get("extensions", {}):
            raise self._refusal(
                method,
                _unimplemented(
                    "gRPC needs HTTP/2 (trailers): this port speaks gRPC-Web and Connect over "
                    "HTTP/1.1, or use the gRPC port"
                ),
                415,
            )
        if protocol.name in ("grpc", "grpc-web"):
            timeout = _header(headers, b"grpc-timeout").decode()
            if timeout and not _GRPC_TIMEOUT.fullmatch(timeout):
                raise self._refusal(
                    method,
                    InvalidRequest(
                        f"grpc-timeout {timeout[:40]!r} is not 1 to 8 digits and a unit (HMSmun)"
                    ),
                )
        else:
            timeout = _header(headers, b"connect-timeout-ms").decode()
            if timeout and not _CONNECT_TIMEOUT.fullmatch(timeout):
                raise self._refusal(
                    method,
                    InvalidRequest(f"connect-timeout-ms {timeout[:40]!r} is not 1 to 10 digits"),
                )
        encoding = _header(headers, protocol.encoding_header.encode()).decode() or "identity"
        if protocol.name == "connect-stream" and encoding not in ENCODINGS:
            raise self._refusal(
                method,
                _unimplemented(
                    f"unknown compression {encoding[:40]!r}: supported are {', '.join(ENCODINGS)}"
                ),
            )
        return encoding

    def _read(self, method: str, receive: Receive, protocol: Protocol, encoding: str) -> Receive:
        """``receive`` with the body's framing checked as it arrives."""
        limit = self._max
        compressed_ok = encoding != "identity"
        if not protocol.enveloped:
            received = 0
            # A compressed body may be a little larger than the message it holds.
            wire_limit = limit + (1024 if compressed_ok else 0)

            async def read_unary() -> Message:
                nonlocal received
                message = await receive()
                if message["type"] == "http.request":
                    received += len(message.get("body", b""))
                    if received > wire_limit:
                        raise self._refusal(method, _too_large(limit)).error
                return message

            return read_unary

        head = bytearray()  # the head (flags, length) of the envelope being read
        left = 0  # bytes of its message still to come once its head is whole

        async def read_enveloped() -> Message:
            nonlocal left
            message = await receive()
            if message["type"] != "http.request":
                return message
            data = message.get("body", b"")
            at = 0
            while at < len(data):
                if len(head) < 5:
                    take = min(5 - len(head), len(data) - at)
                    head.extend(data[at : at + take])
                    if len(head) == 5:
                        left = int.from_bytes(head[1:5], "big")
                        self._check_envelope(method, head[0], left, compressed_ok, limit)
                else:
                    take = min(left, len(data) - at)
                    left -= take
                at += take
                if len(head) == 5 and left == 0:
                    head.clear()  # a whole envelope: the next one's head comes next
            if not message.get("more_body", False) and head:
                raise self._refusal(
                    method,
                    InvalidRequest("the request ends inside an envelope (it was cut short)"),
                ).error
            return message

        return read_enveloped

    def _check_envelope(
        self, method: str, flags: int, size: int, compressed_ok: bool, limit: int
    ) -> None:
        if flags & ~0x01:
            raise self._refusal(
                method, InvalidRequest(f"a request envelope with flags {flags:#04x}")
            ).error
        if flags & 0x01 and not compressed_ok:
            raise self._refusal(
                method,
                InvalidRequest("an envelope flagged compressed, but no request encoding was sent"),
            ).error
        if size > limit + (1024 if flags & 0x01 else 0):
            raise self._refusal(method, _too_large(limit)).error


def _header(headers: Any, name: bytes) -> bytes:
    for key, value in headers:
        if key == name:
            return bytes(value)
    return b""


def _unimplemented(message: str) -> ConnectError:
    return ConnectError(Code.UNIMPLEMENTED, message)


def _too_large(limit: int) -> ConnectError:
    # RESOURCE_EXHAUSTED, as grpc answers an oversized message: and, like grpc's, not retryable
    # (no RetryInfo), since the same message would be refused again.
    return ConnectError(Code.RESOURCE_EXHAUSTED, f"message is larger than the limit ({limit})")


async def answer(send: Send, protocol: Protocol, refused: Refused) -> None:
    """``refused`` in the request's protocol, as connect-python answers its own errors."""
    wire = ConnectWireError.from_exception(refused.error)
    status = _grpc_code(refused.error)
    if protocol.name == "connect":
        body = wire.to_json_bytes()
        http = refused.http_status or wire.to_http_status().code
        headers = [(b"content-type", b"application/json")]
    elif protocol.name == "connect-stream":
        end = json.dumps({"error": wire.to_dict()}).encode()
        body = struct.pack(">BI", 0x02, len(end)) + end
        http = refused.http_status or 200
        headers = [(b"content-type", f"application/connect+{protocol.codec}".encode())]
    else:
        trailers = _grpc_trailers(refused.error, status)
        if protocol.name == "grpc-web":
            block = "".join(f"{k}: {v}\r\n" for k, v in trailers).encode()
            body = bytes([0x80]) + len(block).to_bytes(4, "big") + block
            headers = [(b"content-type", f"application/grpc-web+{protocol.codec}".encode())]
        else:  # gRPC: a trailers-only answer, its status in the headers
            body = b""
            headers = [(b"content-type", f"application/grpc+{protocol.codec}".encode())]
            headers += [(k.encode(), v.encode()) for k, v in trailers]
        http = refused.http_status or 200
    await send({"type": "http.response.start", "status": http, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def _grpc_code(error: ConnectError) -> int:
    return int(_connect_status_to_grpc[error.code])


def _grpc_trailers(error: ConnectError, status: int) -> list[tuple[str, str]]:
    trailers = [("grpc-status", str(status))]
    if error.message:
        trailers.append(("grpc-message", urllib.parse.quote(error.message, safe="")))
    if error.details:
        packed = Status(code=status, message=error.message, details=error.details)
        encoded = base64.b64encode(packed.SerializeToString()).decode().rstrip("=")
        trailers.append(("grpc-status-details-bin", encoded))
    return trailers


class StrictGzip:
    """gzip for requests and answers; a request that is not gzip is the client's error, and one
    that inflates past the message limit is refused as it inflates (no zip bomb is inflated
    whole). connect-python's ``GzipCompression`` lets ``gzip.decompress``'s error out as an
    exception it answers ``unknown`` (HTTP 500), after inflating all of it."""

    def __init__(self, max_bytes: int, level: int = 6) -> None:
        self._max = max_bytes
        self._level = level

    def name(self) -> str:
        return "gzip"

    def compress(self, data: bytes | bytearray | memoryview) -> bytes:
        return gzip.compress(data, compresslevel=self._level)

    def decompress(self, data: bytes | bytearray | memoryview) -> bytes:
        if not data:
            return b""
        out = bytearray()
        rest = bytes(data)
        try:
            while rest:  # gzip allows members one after another
                inflater = zlib.decompressobj(wbits=31)
                out += inflater.decompress(rest, self._max + 1 - len(out))
                if len(out) > self._max:
                    raise ConnectError(
                        Code.RESOURCE_EXHAUSTED,
                        f"message is larger than the limit ({self._max}) once inflated",
                    )
                if not inflater.eof:
                    if inflater.unconsumed_tail:
                        raise ConnectError(
                            Code.RESOURCE_EXHAUSTED,
                            f"message is larger than the limit ({self._max}) once inflated",
                        )
                    raise zlib.error("the gzip stream is cut short")
                rest = inflater.unused_data
        except zlib.error:
            refused = InvalidRequest(
                "the request is not valid gzip (its encoding says it is)",
                reason="MALFORMED_REQUEST",
            )
            raise connect_error(rejection(refused)) from None
        return bytes(out)


def drained(receive: Receive, send: Send) -> tuple[Receive, Send]:
    """``receive`` and ``send`` such that the answer's last message waits until the request
    body has been read (at most :data:`DRAIN_BYTES`, for :data:`DRAIN_S`): see the module
    docstring (Hypercorn's HTTP/2 ``KeyError``)."""
    complete = False

    async def watched() -> Message:
        nonlocal complete
        message = await receive()
        if message["type"] == "http.disconnect" or not message.get("more_body", False):
            complete = True
        return message

    async def drain() -> None:
        read = 0
        while not complete and read < DRAIN_BYTES:
            message = await watched()
            read += len(message.get("body", b""))

    async def sending(message: Message) -> None:
        last = (
            message["type"] == "http.response.body" and not message.get("more_body", False)
        ) or message["type"] == "http.response.trailers"
        if last and not complete:
            # A client that keeps sending past the bound is answered all the same.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(drain(), DRAIN_S)
        await send(message)

    return watched, sending
