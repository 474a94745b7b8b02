"""A benchmark's reference server: one gRPC method in a process of its own, as the floor and the
bound of ``tricktable bench service`` run (see :mod:`benchmarks.service`)."""

from __future__ import annotations

import asyncio
import signal

import grpc

from service.store.base import GameStore


async def serve_method(
    port: int, method: str, handler: grpc.RpcMethodHandler, store: GameStore | None
) -> None:
    """Serve ``handler`` as ``method`` (its full path, ``/package.Service/Method``) on
    127.0.0.1:``port`` until SIGTERM or SIGINT; then stop at once and close ``store``. No
    interceptor, health or reflection: the reference is the bare call."""
    service, _, name = method.strip("/").partition("/")
    server = grpc.aio.server()
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(service, {name: handler}),)
    )
    server.add_insecure_port(f"127.0.0.1:{port}")
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await server.start()
    await stopping.wait()
    await server.stop(None)
    if store is not None:
        await store.close()
