"""Random bytes as requests, through a real server over a real socket, on every method the
server offers (the game service, health checking, reflection): never UNKNOWN or INTERNAL, and
bytes that are not a request message are INVALID_ARGUMENT with a message that says so.

``TRICKTABLE_FUZZ_BYTES=N`` sends N requests per method (default 150) and the counts per method
and code are printed (``pytest -s``)."""

from __future__ import annotations

import os
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import message
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2
from tricktable.v1 import game_service_pb2 as pb

from service.limits import LimitsConfig, Rate
from tests.servers import Served, running_server
from tests.service.support import Client

COUNT = int(os.environ.get("TRICKTABLE_FUZZ_BYTES", "150"))
TIMEOUT_S = 5.0


def _methods() -> list[tuple[str, str, type[message.Message]]]:
    """(path, kind, request class) of every method the server serves."""
    out: list[tuple[str, str, type[message.Message]]] = []
    service = pb.DESCRIPTOR.services_by_name["GameService"]
    for method in service.methods:
        kind = "unary_stream" if method.server_streaming else "unary_unary"
        request = getattr(pb, method.input_type.name)
        out.append((f"/{service.full_name}/{method.name}", kind, request))
    out.append(("/grpc.health.v1.Health/Check", "unary_unary", health_pb2.HealthCheckRequest))
    out.append(("/grpc.health.v1.Health/Watch", "unary_stream", health_pb2.HealthCheckRequest))
    for version in ("v1alpha", "v1"):
        out.append(
            (
                f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
                "stream_stream",
                reflection_pb2.ServerReflectionRequest,  # v1 has the same wire format
            )
        )
    return out


METHODS = _methods()


def _samples(request: type[message.Message], rng: random.Random) -> Iterator[bytes]:
    """Random bytes, valid requests with bytes flipped, and valid requests cut short."""
    valid = _plausible(request).SerializeToString()
    for i in range(COUNT):
        kind = i % 3
        if kind == 0 or not valid:
            yield rng.randbytes(rng.randrange(0, 120))
        elif kind == 1:
            data = bytearray(valid)
            for _ in range(rng.randrange(1, 4)):
                data[rng.randrange(len(data))] = rng.randrange(256)
            yield bytes(data)
        else:
            yield valid[: rng.randrange(len(valid))] + rng.randbytes(rng.randrange(0, 3))


def _plausible(request: type[message.Message]) -> message.Message:
    """A request with every string field set, so mutations hit lengths and UTF-8."""
    msg = request()
    for field in msg.DESCRIPTOR.fields:
        if field.type == field.TYPE_STRING and not field.is_repeated:
            setattr(msg, field.name, "0123456789abcdef")
    if isinstance(msg, reflection_pb2.ServerReflectionRequest):
        msg.list_services = "*"
    return msg


def _decodes(request: type[message.Message], data: bytes) -> bool:
    try:
        request.FromString(data)
    except message.DecodeError:
        return False
    return True


def _call(channel: grpc.Channel, path: str, kind: str) -> Callable[[bytes], tuple[Any, str]]:
    """Send raw bytes, return (code, details) of the call."""
    if kind == "unary_unary":
        unary = channel.unary_unary(path)

        def call_unary(data: bytes) -> tuple[Any, str]:
            try:
                unary(data, timeout=TIMEOUT_S)
            except grpc.RpcError as err:
                return err.code(), err.details() or ""
            return grpc.StatusCode.OK, ""

        return call_unary
    if kind == "unary_stream":
        stream = channel.unary_stream(path)

        def call_stream(data: bytes) -> tuple[Any, str]:
            # A well-formed request may open a stream that stays open (a game's live events,
            # health's Watch): the first reply is enough to know the request was accepted.
            responses = stream(data, timeout=TIMEOUT_S)
            try:
                next(responses)
            except StopIteration:
                pass
            except grpc.RpcError as err:
                return err.code(), err.details() or ""
            finally:
                responses.cancel()
            return grpc.StatusCode.OK, ""

        return call_stream
    duplex = channel.stream_stream(path)

    def call_duplex(data: bytes) -> tuple[Any, str]:
        try:
            list(duplex(iter([data]), timeout=TIMEOUT_S))
        except grpc.RpcError as err:
            return err.code(), err.details() or ""
        return grpc.StatusCode.OK, ""

    return call_duplex


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    # This test floods on purpose: the call rates are not what it checks.
    unlimited = LimitsConfig(
        create_game=Rate(0, 1),
        join_game=Rate(0, 1),
        submit_move=Rate(0, 1),
        stream_events=Rate(0, 1),
    )
    with running_server(limits=unlimited) as served:
        yield served


@pytest.mark.parametrize(("path", "kind", "request_class"), METHODS, ids=[m[0] for m in METHODS])
def test_random_bytes_get_a_clear_status(
    client: Client, path: str, kind: str, request_class: type[message.Message]
) -> None:
    rng = random.Random(path)
    call = _call(client.channel, path, kind)
    codes: Counter[str] = Counter()
    malformed = 0
    for data in _samples(request_class, rng):
        code, details = call(data)
        codes[code.name] += 1
        assert code not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL), (
            f"{path}: {code.name} {details!r} for {data!r}"
        )
        if not _decodes(request_class, data):
            malformed += 1
            assert code == grpc.StatusCode.INVALID_ARGUMENT, f"{path}: {code.name} for {data!r}"
            assert "malformed request" in details and request_class.DESCRIPTOR.name in details
    print(f"\n{path}: {COUNT} requests, {malformed} not decodable; codes {dict(codes)}")
    assert malformed > 0, "the samples must include bytes that are not a request"
