"""The one exception-to-status interceptor (STYLE.md §9).

Every RPC runs inside it. An exception listed in :data:`service.errors.STATUS_CODES` becomes its
status code with a ``google.rpc.ErrorInfo`` (domain ``tricktable``, the error's reason and
metadata) in the status details; anything else is logged with its traceback and becomes
INTERNAL with a generic message, so no internals leak. The servicer therefore holds no try/except.
:func:`reject` is that mapping, with its count and log line; the web door (service/web) answers
through it too.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import structlog
from grpc_status import rpc_status

from service.errors import InvalidRequest, Rejection, StoreUnavailable, rejection
from service.limits import Limits
from service.metrics import Metrics

log = structlog.get_logger("tricktable.rpc")


def reject(method: str, exc: Exception, metrics: Metrics) -> Rejection:
    """The one error path of every door: map the exception, count it and log it."""
    refused = rejection(exc)
    metrics.rpc_handled(method, refused.code.name)
    if isinstance(exc, StoreUnavailable):
        metrics.store_error(method)
    if refused.code == grpc.StatusCode.INTERNAL:
        log.error("unexpected error", method=method, exc_info=exc)
    else:
        # Debug, like a move: a hostile client's refused calls must not flood the logs.
        log.debug(
            "request rejected", method=method, code=refused.code.name, message=refused.message
        )
    return refused


def _status(refused: Rejection) -> grpc.Status:
    return rpc_status.to_status(refused.status())


async def _abort(
    context: grpc.aio.ServicerContext, method: str, exc: Exception, metrics: Metrics
) -> None:
    await context.abort_with_status(_status(reject(method, exc, metrics)))


def _own_code(context: grpc.aio.ServicerContext) -> str:
    """The code a handler chose itself (health checking aborts with NOT_FOUND)."""
    code = context.code()
    return code.name if isinstance(code, grpc.StatusCode) else "UNKNOWN"


class ErrorInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Maps errors to statuses, and counts every RPC our handlers finish by its status code."""

    def __init__(self, metrics: Metrics | None = None, limits: Limits | None = None) -> None:
        self._metrics = metrics or Metrics()
        self._limits = limits
        # grpc.aio asks the interceptor on every call; the servicer's handler for a method is
        # the same object each time, so it is wrapped once and the wrapper reused.
        self._wrapped: dict[str, tuple[grpc.RpcMethodHandler, grpc.RpcMethodHandler]] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None:
            return handler
        method = details.method
        held = self._wrapped.get(method)
        if held is not None and held[0] is handler:
            return held[1]
        wrapped = self._wrap(method, handler)
        self._wrapped[method] = (handler, wrapped)
        return wrapped

    def _wrap(self, method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        """The handler with our error mapping, taking the request's raw bytes: it decodes them
        itself, so malformed bytes become INVALID_ARGUMENT like any bad request (a deserializer
        that raises inside grpc gives UNKNOWN before any interceptor code runs)."""
        metrics, limits = self._metrics, self._limits
        decode = _decoder(method, handler.request_deserializer)
        serializer = handler.response_serializer
        if handler.unary_unary is not None:
            inner_unary = handler.unary_unary

            async def unary(raw: bytes, context: grpc.aio.ServicerContext) -> Any:
                structlog.contextvars.clear_contextvars()
                place = None
                try:
                    if limits is not None:  # before decoding: a flood costs the least
                        # Its place, then its rates: a client's calls, refused ones too, come
                        # one after another, behind its own (service.limits).
                        place = await limits.enter(
                            method, context.peer(), context.invocation_metadata()
                        )
                    response = await inner_unary(decode(raw), context)
                except grpc.aio.AbortError:
                    metrics.rpc_handled(method, _own_code(context))
                    raise  # a handler (health checking) already chose its status
                except Exception as exc:  # the one place errors become statuses
                    if place is not None:  # a move refused for the client's mistake counts
                        place.settle(exc)
                    await _abort(context, method, exc, metrics)
                finally:
                    if place is not None:
                        place.leave()
                if place is not None:
                    place.settle(None)
                metrics.rpc_handled(method, "OK")
                return response

            return grpc.unary_unary_rpc_method_handler(unary, response_serializer=serializer)
        if handler.unary_stream is not None and inspect.isasyncgenfunction(handler.unary_stream):
            inner_stream = handler.unary_stream

            async def stream(raw: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                structlog.contextvars.clear_contextvars()
                release = None
                metrics.stream_opened(method)
                try:
                    if limits is not None:
                        release = limits.admit(
                            method, context.peer(), context.invocation_metadata()
                        )
                    async for item in inner_stream(decode(raw), context):
                        yield item
                except grpc.aio.AbortError:
                    metrics.rpc_handled(method, _own_code(context))
                    raise
                except Exception as exc:
                    await _abort(context, method, exc, metrics)
                finally:
                    metrics.stream_closed(method)
                    if release is not None:
                        release()
                metrics.rpc_handled(method, "OK")

            return grpc.unary_stream_rpc_method_handler(stream, response_serializer=serializer)
        if handler.unary_stream is not None:
            # Streams written with context.write (health's Watch) keep their own error handling;
            # only their request is decoded here.
            inner_writer = handler.unary_stream

            async def writer(raw: bytes, context: grpc.aio.ServicerContext) -> None:
                try:
                    request = decode(raw)
                except InvalidRequest as exc:
                    await _abort(context, method, exc, metrics)
                await inner_writer(request, context)

            return grpc.unary_stream_rpc_method_handler(writer, response_serializer=serializer)
        if handler.stream_stream is not None and inspect.isasyncgenfunction(handler.stream_stream):
            # Request streams (the play stream, reflection): each message is decoded as the
            # handler reads it.
            inner_duplex = handler.stream_stream

            async def duplex(
                raws: AsyncIterator[bytes], context: grpc.aio.ServicerContext
            ) -> AsyncIterator[Any]:
                structlog.contextvars.clear_contextvars()
                requests = _decoded(raws, decode)
                metrics.stream_opened(method)
                release = None
                try:
                    if limits is not None:  # the play stream: an open stream, counted
                        release = limits.admit(
                            method, context.peer(), context.invocation_metadata()
                        )
                    async for item in inner_duplex(requests, context):
                        yield item
                except grpc.aio.AbortError:
                    metrics.rpc_handled(method, _own_code(context))
                    raise
                except Exception as exc:
                    await _abort(context, method, exc, metrics)
                finally:
                    metrics.stream_closed(method)
                    if release is not None:
                        release()
                metrics.rpc_handled(method, "OK")

            return grpc.stream_stream_rpc_method_handler(duplex, response_serializer=serializer)
        return handler


def _decoder(method: str, deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any]:
    """Bytes → request message, or InvalidRequest naming what was expected."""
    if deserializer is None:
        return lambda raw: raw
    message = getattr(getattr(deserializer, "__self__", None), "DESCRIPTOR", None)
    expected = message.full_name if message is not None else "request"

    def decode(raw: bytes) -> Any:
        try:
            return deserializer(raw)
        except Exception as exc:  # protobuf's DecodeError, whatever the bytes were
            raise InvalidRequest(
                f"malformed request: {len(raw)} bytes that are not a {expected} message ({method})",
                reason="MALFORMED_REQUEST",
            ) from exc

    return decode


async def _decoded(
    raws: AsyncIterator[bytes], decode: Callable[[bytes], Any]
) -> AsyncIterator[Any]:
    """The stream's requests, decoded as the handler reads them; a malformed one raises
    InvalidRequest to whoever reads it, and never aborts the call here.

    The reader may be a task of the handler's own (the play stream reads moves in one while it
    sends steps in another). An abort from that task races grpc's write of a response ("too many
    operations"): grpc refused it, the server logged an unexpected error and the client waited
    for its deadline. Raised instead, the error reaches the handler's writing side (the play
    session ends its stream with it), and ``duplex`` aborts from there, where nothing else is
    being written."""
    async for raw in raws:
        yield decode(raw)
