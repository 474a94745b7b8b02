"""Hostile input on the web port is answered as the client's error, in the request's protocol
(issue 25): malformed timeouts, encodings and envelopes, gRPC where HTTP/1.1 cannot carry it,
header bytes that are not UTF-8, WebSocket handshakes, and an answer given before an HTTP/2
request's body was read. Each was an HTTP 500 ``unknown`` (or ``internal``) before, or a
connection torn down (service/web/guard.py names the upstream fault of each)."""

from __future__ import annotations

import gzip
import json
import struct
from collections.abc import Iterator

import httpx
import pytest
from google.protobuf import json_format
from tricktable.v1 import game_service_pb2 as pb

from tests.servers import Served, running_server
from tests.web.support import (
    SERVICE,
    WebClient,
    WebError,
    connect_error,
    envelope,
    envelopes,
    grpc_web_error,
    grpc_web_trailers,
)

MAX_BYTES = 16 * 1024
LIST = f"/{SERVICE}/ListGameTypes"
EVENTS = f"/{SERVICE}/StreamEvents"
LIST_BYTES = pb.ListGameTypesRequest().SerializeToString()


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with running_server(web_port=0, max_message_bytes=MAX_BYTES) as served:
        yield served


@pytest.fixture
def http(served: Served) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.web_url, timeout=30) as client:
        yield client


def grpc_web(reply: httpx.Response) -> WebError | None:
    """The error a gRPC-Web answer ends with (None: OK)."""
    assert reply.status_code == 200, reply.status_code
    assert reply.headers["content-type"].startswith("application/grpc-web")
    frames = list(envelopes(reply.content))
    flags, block = frames[-1]
    assert flags & 0x80, "a gRPC-Web answer ends with its trailers"
    return grpc_web_error(grpc_web_trailers(block), reply.headers)


def connect_unary(reply: httpx.Response) -> WebError | None:
    if reply.status_code == 200:
        return None
    assert reply.headers["content-type"] == "application/json"
    return connect_error(reply.json(), reply.status_code, reply.headers)


def connect_stream(reply: httpx.Response) -> WebError | None:
    assert reply.status_code == 200, reply.status_code
    flags, end = list(envelopes(reply.content))[-1]
    assert flags & 0x02, "a Connect stream ends with its end message"
    data = json.loads(end)
    return connect_error(data["error"], 200, reply.headers) if "error" in data else None


GRPC_WEB = {"content-type": "application/grpc-web+proto", "x-grpc-web": "1"}
CONNECT = {"content-type": "application/proto", "connect-protocol-version": "1"}
CONNECT_STREAM = {"content-type": "application/connect+proto", "connect-protocol-version": "1"}


@pytest.mark.parametrize(
    "timeout", ["abc", "1Z", "99999999999H", "-1S", "1.5S", "S", "123456789S", "\uff11S"]
)
def test_a_malformed_grpc_timeout_is_invalid_argument(http: httpx.Client, timeout: str) -> None:
    headers = {k.encode(): v.encode() for k, v in GRPC_WEB.items()}
    headers[b"grpc-timeout"] = timeout.encode()  # UTF-8 bytes, as a client may send
    error = grpc_web(http.post(LIST, headers=headers, content=envelope(LIST_BYTES)))
    assert error is not None and error.code == 3, error
    assert "grpc-timeout" in error.message
    assert error.info is not None and error.info.reason == "INVALID_REQUEST"


@pytest.mark.parametrize("timeout", ["-5", "+5", "1_000", "abc", "99999999999", "5.0", "1e3"])
def test_a_malformed_connect_timeout_is_invalid_argument(http: httpx.Client, timeout: str) -> None:
    reply = http.post(LIST, headers={**CONNECT, "connect-timeout-ms": timeout}, content=b"")
    error = connect_unary(reply)
    assert error is not None and (error.code, error.http_status) == (3, 400), error
    assert error.info is not None and error.info.reason == "INVALID_REQUEST"


@pytest.mark.parametrize(
    ("name", "value", "protocol"),
    [
        ("grpc-timeout", "1S", GRPC_WEB),
        ("grpc-timeout", "99999999H", GRPC_WEB),
        ("grpc-timeout", "250m", GRPC_WEB),
        ("connect-timeout-ms", "5000", CONNECT),
        ("connect-timeout-ms", "9999999999", CONNECT),
    ],
)
def test_well_formed_timeouts_are_served(
    http: httpx.Client, name: str, value: str, protocol: dict[str, str]
) -> None:
    body = envelope(LIST_BYTES) if protocol is GRPC_WEB else LIST_BYTES
    reply = http.post(LIST, headers={**protocol, name: value}, content=body)
    assert (grpc_web(reply) if protocol is GRPC_WEB else connect_unary(reply)) is None


def test_gzip_is_served_in_every_web_protocol(http: httpx.Client, served: Served) -> None:
    native = served.client.stub.ListGameTypes(pb.ListGameTypesRequest())
    squeezed = gzip.compress(LIST_BYTES)
    reply = http.post(LIST, headers={**CONNECT, "content-encoding": "gzip"}, content=squeezed)
    assert connect_unary(reply) is None
    assert pb.ListGameTypesResponse.FromString(reply.content) == native
    reply = http.post(
        LIST,
        headers={**GRPC_WEB, "grpc-encoding": "gzip"},
        content=envelope(squeezed, flags=1),
    )
    assert grpc_web(reply) is None
    table = served.client.table("ninety-nine", seed=b"gzip stream")
    opening = pb.StreamEventsRequest(game_id=table.game_id, from_version=0)
    # A finished stream is needed to read its end: a game's record stream ends at its end, so
    # here one version's events are read and the stream left (StreamEvents stays open).
    with http.stream(
        "POST",
        EVENTS,
        headers={**CONNECT_STREAM, "connect-content-encoding": "gzip"},
        content=envelope(gzip.compress(opening.SerializeToString()), flags=1),
    ) as streamed:
        assert streamed.status_code == 200
        first = next(streamed.iter_raw())
        flags = first[0]
        assert not flags & 0x02, f"the stream ended at once: {first!r}"


@pytest.mark.parametrize(
    ("headers", "body", "read"),
    [
        ({**CONNECT, "content-encoding": "gzip"}, b"not gzip at all", connect_unary),
        ({**CONNECT, "content-encoding": "gzip"}, gzip.compress(LIST_BYTES)[:-6], connect_unary),
        ({**GRPC_WEB, "grpc-encoding": "gzip"}, envelope(b"not gzip", flags=1), grpc_web),
    ],
    ids=["connect-not-gzip", "connect-cut-gzip", "grpc-web-not-gzip"],
)
def test_gzip_that_is_not_gzip_is_invalid_argument(
    http: httpx.Client, headers: dict[str, str], body: bytes, read: object
) -> None:
    error = read(http.post(LIST, headers=headers, content=body))  # type: ignore[operator]
    assert error is not None and error.code == 3, error
    assert "gzip" in error.message


def test_gzip_that_inflates_past_the_limit_is_refused_as_it_inflates(http: httpx.Client) -> None:
    bomb = gzip.compress(b"\x00" * (MAX_BYTES * 200))  # 3 MB of zeros in a few kB
    for headers, body, read in (
        ({**CONNECT, "content-encoding": "gzip"}, bomb, connect_unary),
        ({**GRPC_WEB, "grpc-encoding": "gzip"}, envelope(bomb, flags=1), grpc_web),
    ):
        error = read(http.post(LIST, headers=headers, content=body))
        assert error is not None and error.code == 8, error  # RESOURCE_EXHAUSTED
        assert error.retry is None, "the same message would be refused again"


def test_an_unknown_encoding_is_unimplemented_as_the_protocols_say(http: httpx.Client) -> None:
    error = connect_stream(
        http.post(
            EVENTS,
            headers={**CONNECT_STREAM, "connect-content-encoding": "br"},
            content=envelope(b"x", flags=1),
        )
    )
    assert error is not None and error.code == 12, error
    error = grpc_web(
        http.post(LIST, headers={**GRPC_WEB, "grpc-encoding": "br"}, content=envelope(b""))
    )
    assert error is not None and error.code == 12, error


@pytest.mark.parametrize("content_type", ["application/grpc", "application/grpc+proto"])
def test_grpc_over_http1_is_415_unimplemented(http: httpx.Client, content_type: str) -> None:
    reply = http.post(LIST, headers={"content-type": content_type}, content=envelope(LIST_BYTES))
    assert reply.status_code == 415
    assert reply.headers["grpc-status"] == "12"
    assert "HTTP/2" in reply.headers["grpc-message"].replace("%2F", "/")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (envelope(LIST_BYTES, flags=1), "compressed"),  # no encoding was agreed
        (envelope(LIST_BYTES, flags=0x80), "flags"),  # a trailer flag, on a request
        (envelope(LIST_BYTES, flags=0x02), "flags"),  # Connect's end of stream, on a request
        (envelope(LIST_BYTES)[:-1], "cut short"),
        (envelope(LIST_BYTES) + b"\x00\x00", "cut short"),
        (envelope(b"x" * 10, flags=0)[:3], "cut short"),
    ],
    ids=["compressed-flag", "trailer-flag", "end-flag", "cut", "trailing", "head-cut"],
)
def test_misframed_envelopes_are_invalid_argument(
    http: httpx.Client, body: bytes, words: str
) -> None:
    error = grpc_web(http.post(LIST, headers=GRPC_WEB, content=body))
    assert error is not None and error.code == 3, error
    assert words in error.message
    error = connect_stream(http.post(EVENTS, headers=CONNECT_STREAM, content=body))
    assert error is not None and error.code == 3, error


def test_an_envelope_declaring_more_than_the_limit_is_refused_at_once(
    http: httpx.Client,
) -> None:
    # The envelope claims 4 GB; only its head is sent. Refused before any of it is buffered.
    error = grpc_web(http.post(LIST, headers=GRPC_WEB, content=struct.pack(">BI", 0, 2**32 - 1)))
    assert error is not None and error.code == 8, error
    reply = http.post(LIST, headers=CONNECT, content=b"\x0a" * (MAX_BYTES + 1))
    error = connect_unary(reply)
    assert error is not None and (error.code, error.http_status) == (8, 429), error


def test_a_header_that_is_not_utf8_is_invalid_argument(http: httpx.Client) -> None:
    for headers, body, read in (
        ({**CONNECT, "authorization": b"Bearer \xff\xfe"}, LIST_BYTES, connect_unary),
        ({**GRPC_WEB, "x-anything": b"\xc3\x28"}, envelope(LIST_BYTES), grpc_web),
    ):
        error = read(http.post(LIST, headers=headers, content=body))  # type: ignore[arg-type]
        assert error is not None and error.code == 3, error
        assert "not UTF-8" in error.message


@pytest.mark.parametrize("path", [LIST, "/", "/nope"])
def test_a_websocket_handshake_is_refused(http: httpx.Client, path: str) -> None:
    reply = http.get(
        path,
        headers={
            "connection": "Upgrade",
            "upgrade": "websocket",
            "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
            "sec-websocket-version": "13",
        },
    )
    assert reply.status_code == 403


def test_an_early_answer_on_http2_leaves_the_connection_serving(served: Served) -> None:
    """Refused before its body is read (a malformed timeout), a request's remaining DATA
    frames used to make Hypercorn fail the whole connection: the next call on it too."""
    with httpx.Client(base_url=served.web_url, http1=False, http2=True, timeout=30) as h2:
        body = envelope(pb.CreateGameRequest(seed=b"x" * 12_000).SerializeToString())
        for _ in range(3):
            refused = h2.post(LIST, headers={**GRPC_WEB, "grpc-timeout": "abc"}, content=body)
            assert refused.http_version == "HTTP/2"
            error = grpc_web(refused)
            assert error is not None and error.code == 3
            served_reply = h2.post(LIST, headers=GRPC_WEB, content=envelope(LIST_BYTES))
            assert grpc_web(served_reply) is None


def test_connect_json_requests_still_parse_as_before(http: httpx.Client) -> None:
    """The guard reads framing only: a JSON unary request's body goes to connect-python as is."""
    web = WebClient(str(http.base_url), "connect-json")
    try:
        types = web.call("ListGameTypes", pb.ListGameTypesRequest(), pb.ListGameTypesResponse)
    finally:
        web.close()
    assert json_format.MessageToDict(types)["gameTypes"]
