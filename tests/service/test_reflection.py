"""Server reflection v1 beside v1alpha, asked by a real v1 client (``buf curl``) and by a
v1alpha stub, over a real socket."""

from __future__ import annotations

import subprocess
import sysconfig
from pathlib import Path

import grpc
import pytest
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from tests.servers import Served

BUF = str(Path(sysconfig.get_path("scripts")) / "buf")


@pytest.mark.parametrize("protocol", ["grpc-v1", "grpc-v1alpha"])
def test_buf_curl_lists_and_describes_the_service(served: Served, protocol: str) -> None:
    server, _ = served
    base = ("--protocol", "grpc", "--http2-prior-knowledge", "--reflect-protocol", protocol)
    url = f"http://{server.address}"
    listed = subprocess.run(
        [BUF, "curl", *base, "--list-services", url],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr
    services = set(listed.stdout.split())
    assert "tricktable.v1.GameService" in services
    assert {"grpc.reflection.v1.ServerReflection", "grpc.health.v1.Health"} <= services
    # Describing a method needs the descriptors themselves, over the same protocol.
    called = subprocess.run(
        [BUF, "curl", *base, f"{url}/tricktable.v1.GameService/ListGameTypes"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert called.returncode == 0, called.stderr
    assert "ninety-nine" in called.stdout


def test_the_v1_service_describes_itself(served: Served) -> None:
    _, client = served
    # v1's messages are v1alpha's under another package: the same stub, on the v1 path.
    stub = client.channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    request = reflection_pb2.ServerReflectionRequest(
        file_containing_symbol="grpc.reflection.v1.ServerReflection"
    )
    (reply,) = list(stub(iter([request]), timeout=10))
    assert reply.WhichOneof("message_response") == "file_descriptor_response"
    assert b"grpc.reflection.v1" in reply.file_descriptor_response.file_descriptor_proto[0]


def test_v1alpha_stub_still_lists_both(served: Served) -> None:
    _, client = served
    stub = reflection_pb2_grpc.ServerReflectionStub(client.channel)
    replies = stub.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10
    )
    names = {s.name for r in replies for s in r.list_services_response.service}
    assert {"grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"} <= (
        names
    )
    with pytest.raises(grpc.RpcError) as caught:
        list(
            client.channel.stream_stream(
                "/grpc.reflection.v2.ServerReflection/ServerReflectionInfo"
            )(iter([b""]), timeout=10)
        )
    assert caught.value.code() == grpc.StatusCode.UNIMPLEMENTED
