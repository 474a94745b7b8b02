"""The Connect adapter: each RPC of the generated ``GameService`` protocol is the native
servicer's method, called with an adapter of the Connect request's context, and every error
leaves through the one error path (:func:`service.interceptors.reject`): the same status code,
``ErrorInfo`` in the error details, count and log line as over native gRPC."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, ItemsView
from typing import Any

import structlog
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from tricktable.v1 import game_service_pb2 as pb

from service.errors import Rejection
from service.interceptors import reject
from service.limits import Limits
from service.metrics import Metrics
from service.servicer import GameServicer

#: gRPC's one status name Connect spells differently.
_CONNECT_NAMES = {"CANCELLED": "CANCELED"}


def connect_error(refused: Rejection) -> ConnectError:
    code = Code[_CONNECT_NAMES.get(refused.code.name, refused.code.name)]
    return ConnectError(code, refused.message, details=refused.details)


class ConnectCall:
    """What the servicer reads of a call (:class:`service.servicer.CallContext`)."""

    __slots__ = ("_ctx",)

    def __init__(self, ctx: RequestContext[Any, Any]) -> None:
        self._ctx = ctx

    def invocation_metadata(self) -> ItemsView[str, str]:
        return self._ctx.request_headers().allitems()

    def time_remaining(self) -> float | None:
        left_ms = self._ctx.timeout_ms()
        return None if left_ms is None else left_ms / 1000

    def peer(self) -> str:
        """The client's address in grpc's form (``ipv4:1.2.3.4:5678``, ``ipv6:[::1]:5678``), so
        per-client limits count a browser as they count a native client."""
        address = self._ctx.client_address() or ""
        host, _, port = address.rpartition(":")
        if not host:
            return "unknown"
        return f"ipv6:[{host.strip('[]')}]:{port}" if ":" in host else f"ipv4:{host}:{port}"


def _method(ctx: RequestContext[Any, Any]) -> str:
    info = ctx.method()
    return f"/{info.service_name}/{info.name}"  # as grpc names it, for one set of metrics


class ErrorsToConnect:
    """A connect-python interceptor: what ``ErrorInterceptor`` is to grpc.aio, the per-client
    limits included (the gRPC door's ``Limits``, asked before each call with the client's
    address and headers, and a unary call's place among its client's calls in progress; a
    refusal leaves through the one error path with its RetryInfo)."""

    def __init__(self, metrics: Metrics, limits: Limits | None = None) -> None:
        self._metrics = metrics
        self._limits = limits

    def _admit(self, method: str, ctx: RequestContext[Any, Any]) -> Callable[[], None] | None:
        if self._limits is None:
            return None
        call = ConnectCall(ctx)
        return self._limits.admit(method, call.peer(), call.invocation_metadata())

    async def intercept_unary(
        self,
        call_next: Callable[[Any, RequestContext[Any, Any]], Awaitable[Any]],
        request: Any,
        ctx: RequestContext[Any, Any],
    ) -> Any:
        structlog.contextvars.clear_contextvars()
        method = _method(ctx)
        place = None
        try:
            if self._limits is not None:  # its place, then its rates, as over gRPC
                call = ConnectCall(ctx)
                place = await self._limits.enter(method, call.peer(), call.invocation_metadata())
            response = await call_next(request, ctx)
        except Exception as exc:  # the one place errors become statuses, as over gRPC
            if place is not None:  # a move refused for the client's mistake counts
                place.settle(exc)
            raise connect_error(reject(method, exc, self._metrics)) from None
        finally:
            if place is not None:
                place.leave()
        if place is not None:
            place.settle(None)
        self._metrics.rpc_handled(method, "OK")
        return response

    async def intercept_server_stream(
        self,
        call_next: Callable[[Any, RequestContext[Any, Any]], AsyncIterator[Any]],
        request: Any,
        ctx: RequestContext[Any, Any],
    ) -> AsyncIterator[Any]:
        structlog.contextvars.clear_contextvars()
        method = _method(ctx)
        release = None
        self._metrics.stream_opened(method)
        try:
            release = self._admit(method, ctx)  # an open stream counted until it ends
            async for item in call_next(request, ctx):
                yield item
        except ConnectError as chosen:  # a handler of this door chose its status itself
            self._metrics.rpc_handled(method, chosen.code.name)
            raise
        except Exception as exc:
            raise connect_error(reject(method, exc, self._metrics)) from None
        finally:
            self._metrics.stream_closed(method)
            if release is not None:
                release()
        self._metrics.rpc_handled(method, "OK")

    # A bidirectional stream is handled alike: its first argument is the requests' iterator.
    intercept_bidi_stream = intercept_server_stream


class ConnectGameService:
    """The generated ``tricktable.v1.game_service_connect.GameService``, by delegation."""

    def __init__(self, servicer: GameServicer) -> None:
        self._rpc = servicer

    async def list_game_types(
        self, request: pb.ListGameTypesRequest, ctx: RequestContext[Any, Any]
    ) -> pb.ListGameTypesResponse:
        return await self._rpc.ListGameTypes(request, ConnectCall(ctx))

    async def create_game(
        self, request: pb.CreateGameRequest, ctx: RequestContext[Any, Any]
    ) -> pb.CreateGameResponse:
        return await self._rpc.CreateGame(request, ConnectCall(ctx))

    async def list_games(
        self, request: pb.ListGamesRequest, ctx: RequestContext[Any, Any]
    ) -> pb.ListGamesResponse:
        return await self._rpc.ListGames(request, ConnectCall(ctx))

    async def join_game(
        self, request: pb.JoinGameRequest, ctx: RequestContext[Any, Any]
    ) -> pb.JoinGameResponse:
        return await self._rpc.JoinGame(request, ConnectCall(ctx))

    async def get_game(
        self, request: pb.GetGameRequest, ctx: RequestContext[Any, Any]
    ) -> pb.GetGameResponse:
        return await self._rpc.GetGame(request, ConnectCall(ctx))

    async def submit_move(
        self, request: pb.SubmitMoveRequest, ctx: RequestContext[Any, Any]
    ) -> pb.SubmitMoveResponse:
        return await self._rpc.SubmitMove(request, ConnectCall(ctx))

    def stream_events(
        self, request: pb.StreamEventsRequest, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[pb.StreamEventsResponse]:
        return self._rpc.StreamEvents(request, ConnectCall(ctx))

    async def leave_game(
        self, request: pb.LeaveGameRequest, ctx: RequestContext[Any, Any]
    ) -> pb.LeaveGameResponse:
        return await self._rpc.LeaveGame(request, ConnectCall(ctx))

    async def get_game_record(
        self, request: pb.GetGameRecordRequest, ctx: RequestContext[Any, Any]
    ) -> pb.GetGameRecordResponse:
        return await self._rpc.GetGameRecord(request, ConnectCall(ctx))

    def quick_play(
        self, request: pb.QuickPlayRequest, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[pb.QuickPlayResponse]:
        return self._rpc.QuickPlay(request, ConnectCall(ctx))

    async def cancel_quick_play(
        self, request: pb.CancelQuickPlayRequest, ctx: RequestContext[Any, Any]
    ) -> pb.CancelQuickPlayResponse:
        return await self._rpc.CancelQuickPlay(request, ConnectCall(ctx))

    async def revoke_invite(
        self, request: pb.RevokeInviteRequest, ctx: RequestContext[Any, Any]
    ) -> pb.RevokeInviteResponse:
        return await self._rpc.RevokeInvite(request, ConnectCall(ctx))

    async def rematch(
        self, request: pb.RematchRequest, ctx: RequestContext[Any, Any]
    ) -> pb.RematchResponse:
        return await self._rpc.Rematch(request, ConnectCall(ctx))

    async def list_my_games(
        self, request: pb.ListMyGamesRequest, ctx: RequestContext[Any, Any]
    ) -> pb.ListMyGamesResponse:
        return await self._rpc.ListMyGames(request, ConnectCall(ctx))

    async def play(
        self, request: AsyncIterator[pb.PlayRequest], ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[pb.PlayResponse]:
        """Not served here: a browser cannot stream both ways over HTTP/1.1, and the play
        stream exists to make a bot's move cheap, which the native gRPC port does best."""
        raise ConnectError(
            Code.UNIMPLEMENTED,
            "the play stream is served on the gRPC port; over the web, play with SubmitMove "
            "(wait_for_turn) and StreamEvents",
        )
        yield  # an async generator, as the protocol's bidirectional stream wants
