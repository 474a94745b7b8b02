"""Server reflection, both versions: ``grpc.reflection.v1`` beside ``grpc.reflection.v1alpha``.

grpcio-reflection ships only v1alpha, while current tools (``buf curl``, grpcurl, Postman) ask
v1 first or only. The two protocols are the same messages under another package name, so the
v1 service is the v1alpha servicer behind a second name, and its descriptor (made from v1alpha's
with the package renamed) is added to the pool, so v1 itself can be described by reflection.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2

V1ALPHA = reflection.SERVICE_NAME  # grpc.reflection.v1alpha.ServerReflection
V1 = "grpc.reflection.v1.ServerReflection"
_OLD_PACKAGE = "grpc.reflection.v1alpha"
_NEW_PACKAGE = "grpc.reflection.v1"


def _add_v1_descriptor() -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindServiceByName(V1)
        return  # already there (another server in this process, or the official module)
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = "grpc/reflection/v1/reflection.proto"
    proto.package = _NEW_PACKAGE
    old, new = f".{_OLD_PACKAGE}.", f".{_NEW_PACKAGE}."
    for msg in proto.message_type:
        for field in msg.field:
            if field.type_name.startswith(old):
                field.type_name = new + field.type_name[len(old) :]
    for service in proto.service:
        for method in service.method:
            method.input_type = new + method.input_type[len(old) :]
            method.output_type = new + method.output_type[len(old) :]
    proto.options.Clear()  # language package options name the v1alpha modules
    pool.Add(proto)


def enable(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Reflection v1 and v1alpha on ``server``, both listing ``service_names`` and themselves."""
    _add_v1_descriptor()
    names = (*service_names, V1ALPHA, V1)
    servicer = reflection.aio.ReflectionServicer(names)
    reflection.enable_server_reflection(names, server)  # v1alpha, as grpcio-reflection ships it
    v1 = grpc.method_handlers_generic_handler(
        V1,
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
                response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((v1,))
