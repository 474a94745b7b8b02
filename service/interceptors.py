"""The one exception-to-status interceptor (STYLE.md §9).

Every RPC runs inside it. An exception listed in :data:`service.errors.STATUS_CODES` becomes its
status code with a ``google.rpc.ErrorInfo`` (domain ``tricktable``, the error's reason and
metadata) in the status details; anything else is logged with its traceback and becomes
INTERNAL with a generic message, so no internals leak. The servicer therefore holds no try/except.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import structlog
from grpc_status import rpc_status

from service.errors import StoreUnavailable, status_proto
from service.metrics import Metrics

log = structlog.get_logger("tricktable.rpc")


def error_status(exc: BaseException) -> grpc.Status:
    return rpc_status.to_status(status_proto(exc))


async def _abort(
    context: grpc.aio.ServicerContext, method: str, exc: Exception, metrics: Metrics
) -> None:
    status = error_status(exc)
    metrics.rpc_handled(method, status.code.name)
    if isinstance(exc, StoreUnavailable):
        metrics.store_error(method)
    if status.code == grpc.StatusCode.INTERNAL:
        log.error("unexpected error", method=method, exc_info=exc)
    else:
        log.info("request rejected", method=method, code=status.code.name, message=status.details)
    await context.abort_with_status(status)


def _own_code(context: grpc.aio.ServicerContext) -> str:
    """The code a handler chose itself (health checking aborts with NOT_FOUND)."""
    code = context.code()
    return code.name if isinstance(code, grpc.StatusCode) else "UNKNOWN"


class ErrorInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Maps errors to statuses, and counts every RPC our handlers finish by its status code."""

    def __init__(self, metrics: Metrics | None = None) -> None:
        self._metrics = metrics or Metrics()
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
        metrics = self._metrics
        if handler.unary_unary is not None:
            inner_unary = handler.unary_unary

            async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
                structlog.contextvars.clear_contextvars()
                try:
                    response = await inner_unary(request, context)
                except grpc.aio.AbortError:
                    metrics.rpc_handled(method, _own_code(context))
                    raise  # a handler (health checking) already chose its status
                except Exception as exc:  # the one place errors become statuses
                    await _abort(context, method, exc, metrics)
                metrics.rpc_handled(method, "OK")
                return response

            return grpc.unary_unary_rpc_method_handler(
                unary,
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        # Server streams and the play stream (both ways) are async generators, handled alike:
        # their first argument is the request, or the iterator of requests.
        for kind, make in (
            ("unary_stream", grpc.unary_stream_rpc_method_handler),
            ("stream_stream", grpc.stream_stream_rpc_method_handler),
        ):
            inner = getattr(handler, kind)
            if inner is not None and inspect.isasyncgenfunction(inner):
                return make(
                    _streaming(inner, method, metrics),
                    request_deserializer=handler.request_deserializer,
                    response_serializer=handler.response_serializer,
                )
        # Streams written with context.write (health's Watch) are not ours; they keep their own
        # error handling.
        return handler


def _streaming(
    inner: Callable[[Any, grpc.aio.ServicerContext], AsyncIterator[Any]],
    method: str,
    metrics: Metrics,
) -> Callable[[Any, grpc.aio.ServicerContext], AsyncIterator[Any]]:
    async def stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        structlog.contextvars.clear_contextvars()
        try:
            async for item in inner(request, context):
                yield item
        except grpc.aio.AbortError:
            metrics.rpc_handled(method, _own_code(context))
            raise
        except Exception as exc:
            await _abort(context, method, exc, metrics)
        metrics.rpc_handled(method, "OK")

    return stream
