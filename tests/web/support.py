"""A test's own client of the web door, written from the protocols' specifications over plain
HTTP (httpx), so the server is checked by code that shares nothing with connect-python:

- Connect unary: ``POST /pkg.Service/Method`` with ``application/json`` or ``application/proto``;
  an error is a JSON body ``{code, message, details: [{type, value}]}`` and an HTTP status.
- Connect server stream: ``application/connect+json|proto``; the request and every response
  message in an envelope (flags byte, 4-byte big-endian length); the last envelope (flag 0x02)
  holds ``{"error": ...}`` or ``{}``.
- gRPC-Web: ``application/grpc-web+proto``; envelopes, then a trailer envelope (flag 0x80) of
  ``grpc-status``, ``grpc-message`` (percent-encoded) and ``grpc-status-details-bin`` (base64
  ``google.rpc.Status``) lines.
"""

from __future__ import annotations

import base64
import json
import struct
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

SERVICE = "tricktable.v1.GameService"
PROTOCOLS = ("connect-json", "connect-proto", "grpc-web")

M = TypeVar("M", bound=Message)

#: Connect's codes by gRPC's numbers (google.rpc.Code), to compare the doors.
GRPC_CODES = {
    "canceled": 1,
    "unknown": 2,
    "invalid_argument": 3,
    "deadline_exceeded": 4,
    "not_found": 5,
    "already_exists": 6,
    "permission_denied": 7,
    "resource_exhausted": 8,
    "failed_precondition": 9,
    "aborted": 10,
    "out_of_range": 11,
    "unimplemented": 12,
    "internal": 13,
    "unavailable": 14,
    "data_loss": 15,
    "unauthenticated": 16,
}


@dataclass
class WebError(Exception):
    """A failed call: its gRPC code number, message and ErrorInfo, however it was carried."""

    code: int
    message: str
    info: error_details_pb2.ErrorInfo | None
    http_status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    retry: error_details_pb2.RetryInfo | None = None  # a google.rpc.RetryInfo detail


def envelope(data: bytes, flags: int = 0) -> bytes:
    return struct.pack(">BI", flags, len(data)) + data


def envelopes(body: bytes) -> Iterator[tuple[int, bytes]]:
    at = 0
    while at < len(body):
        flags, size = struct.unpack(">BI", body[at : at + 5])
        yield flags, body[at + 5 : at + 5 + size]
        at += 5 + size
    assert at == len(body), "a truncated envelope"


def _unpadded_b64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def _detail(details: list[Any], into: M) -> M | None:
    """The Connect error detail of ``into``'s type, parsed into it; None when there is none."""
    for detail in details:
        if detail.get("type") == into.DESCRIPTOR.full_name:
            into.ParseFromString(_unpadded_b64(detail["value"]))
            return into
    return None


def connect_error(data: dict[str, Any], http_status: int, headers: httpx.Headers) -> WebError:
    return WebError(
        GRPC_CODES[data["code"]],
        data.get("message", ""),
        _detail(data.get("details", []), error_details_pb2.ErrorInfo()),
        http_status,
        dict(headers),
        _detail(data.get("details", []), error_details_pb2.RetryInfo()),
    )


def grpc_web_trailers(block: bytes) -> dict[str, str]:
    trailers = {}
    for line in block.decode().split("\r\n"):
        if line:
            name, _, value = line.partition(":")
            trailers[name.strip().lower()] = value.strip()
    return trailers


def grpc_web_error(trailers: dict[str, str], headers: httpx.Headers) -> WebError | None:
    code = int(trailers["grpc-status"])
    if code == 0:
        return None
    info, retry = None, None
    if "grpc-status-details-bin" in trailers:
        status = status_pb2.Status()
        status.ParseFromString(_unpadded_b64(trailers["grpc-status-details-bin"]))
        assert status.code == code
        for detail in status.details:
            unpacked = error_details_pb2.ErrorInfo()
            if detail.Unpack(unpacked):
                info = unpacked
            delay = error_details_pb2.RetryInfo()
            if detail.Unpack(delay):
                retry = delay
    message = urllib.parse.unquote(trailers.get("grpc-message", ""))
    return WebError(code, message, info, 200, dict(headers), retry)


class WebClient:
    """Calls GameService on a web port in one protocol (one of :data:`PROTOCOLS`)."""

    def __init__(self, base_url: str, protocol: str, origin: str | None = None) -> None:
        assert protocol in PROTOCOLS
        self.protocol = protocol
        self.http = httpx.Client(base_url=base_url, timeout=60)
        self.origin = origin
        self.last_headers: httpx.Headers = httpx.Headers()

    def close(self) -> None:
        self.http.close()

    def _headers(
        self, token: str | None, content_type: str, timeout_ms: int | None
    ) -> dict[str, str]:
        headers = {"content-type": content_type}
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        if self.origin is not None:
            headers["origin"] = self.origin
        if self.protocol == "grpc-web":
            headers["x-grpc-web"] = "1"
            if timeout_ms is not None:
                headers["grpc-timeout"] = f"{timeout_ms}m"
        else:
            headers["connect-protocol-version"] = "1"
            if timeout_ms is not None:
                headers["connect-timeout-ms"] = str(timeout_ms)
        return headers

    def _content_type(self, streaming: bool) -> str:
        """gRPC-Web's one type; Connect's codec, enveloped (``connect+``) on a stream."""
        if self.protocol == "grpc-web":
            return "application/grpc-web+proto"
        codec = self.protocol.removeprefix("connect-")
        return f"application/connect+{codec}" if streaming else f"application/{codec}"

    def _encode(self, request: Message) -> bytes:
        if self.protocol == "connect-json":
            return json_format.MessageToJson(request).encode()
        return request.SerializeToString()

    def _decode(self, data: bytes, into: M) -> M:
        if self.protocol == "connect-json":
            json_format.Parse(data, into)
        else:
            into.ParseFromString(data)
        return into

    def call_raw(
        self,
        method: str,
        body: bytes,
        response: type[M],
        token: str | None = None,
        timeout_ms: int | None = None,
    ) -> M:
        """A unary call with ``body`` sent as it is (already encoded; enveloped for gRPC-Web)."""
        content_type = self._content_type(streaming=False)
        reply = self.http.post(
            f"/{SERVICE}/{method}",
            content=body,
            headers=self._headers(token, content_type, timeout_ms),
        )
        self.last_headers = reply.headers
        if self.protocol == "grpc-web":
            assert reply.status_code == 200, reply.status_code
            assert reply.headers["content-type"] == "application/grpc-web+proto"
            messages, trailers = self._grpc_web_frames(reply.content)
            error = grpc_web_error(trailers, reply.headers)
            if error is not None:
                raise error
            assert len(messages) == 1
            return self._decode(messages[0], response())
        if reply.status_code != 200:
            assert reply.headers["content-type"] == "application/json"
            raise connect_error(reply.json(), reply.status_code, reply.headers)
        assert reply.headers["content-type"] == content_type
        return self._decode(reply.content, response())

    def call(
        self,
        method: str,
        request: Message,
        response: type[M],
        token: str | None = None,
        timeout_ms: int | None = None,
    ) -> M:
        body = self._encode(request)
        if self.protocol == "grpc-web":
            body = envelope(body)
        return self.call_raw(method, body, response, token, timeout_ms)

    @staticmethod
    def _grpc_web_frames(body: bytes) -> tuple[list[bytes], dict[str, str]]:
        messages: list[bytes] = []
        trailers: dict[str, str] | None = None
        for flags, data in envelopes(body):
            assert trailers is None, "nothing may follow the trailers"
            if flags & 0x80:
                trailers = grpc_web_trailers(data)
            else:
                assert flags == 0
                messages.append(data)
        assert trailers is not None, "a gRPC-Web response ends with its trailers"
        return messages, trailers

    def stream(
        self,
        method: str,
        request: Message,
        response: type[M],
        token: str | None = None,
    ) -> Iterator[M]:
        """A server stream's messages as they arrive; a failed end raises :class:`WebError`."""
        body = envelope(self._encode(request))
        content_type = self._content_type(streaming=True)
        with self.http.stream(
            "POST",
            f"/{SERVICE}/{method}",
            content=body,
            headers=self._headers(token, content_type, None),
        ) as reply:
            self.last_headers = reply.headers
            assert reply.status_code == 200, reply.status_code
            assert reply.headers["content-type"] == content_type
            buffer = b""
            for chunk in reply.iter_raw():
                buffer += chunk
                while len(buffer) >= 5:
                    flags, size = struct.unpack(">BI", buffer[:5])
                    if len(buffer) < 5 + size:
                        break
                    data, buffer = buffer[5 : 5 + size], buffer[5 + size :]
                    if self.protocol == "grpc-web" and flags & 0x80:
                        error = grpc_web_error(grpc_web_trailers(data), reply.headers)
                        if error is not None:
                            raise error
                        return
                    if self.protocol != "grpc-web" and flags & 0x02:
                        end = json.loads(data)
                        if "error" in end:
                            raise connect_error(end["error"], reply.status_code, reply.headers)
                        return
                    yield self._decode(data, response())
            raise AssertionError("the stream ended without its end message")
