"""The web door's ``TournamentService`` (Connect and gRPC-Web): each RPC is the native
servicer's method called with the Connect request's context adapter, as
:class:`service.web.adapter.ConnectGameService` does for ``GameService``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from connectrpc.request import RequestContext
from tricktable.v1 import tournament_service_pb2 as pb
from tricktable.v1.tournament_service_connect import TournamentServiceASGIApplication

from service.limits import Limits
from service.metrics import Metrics
from service.tournaments.servicer import TournamentServicer
from service.web.adapter import ConnectCall, ErrorsToConnect
from service.web.guard import StrictGzip

#: Its server streams, which end when their client goes (service.web.app).
STREAMS = ("StreamTournament", "BotSession")


class ConnectTournamentService:
    def __init__(self, servicer: TournamentServicer) -> None:
        self._rpc = servicer

    async def register_bot(
        self, request: pb.RegisterBotRequest, ctx: RequestContext[Any, Any]
    ) -> pb.RegisterBotResponse:
        return await self._rpc.RegisterBot(request, ConnectCall(ctx))

    async def create_tournament(
        self, request: pb.CreateTournamentRequest, ctx: RequestContext[Any, Any]
    ) -> pb.CreateTournamentResponse:
        return await self._rpc.CreateTournament(request, ConnectCall(ctx))

    async def get_tournament(
        self, request: pb.GetTournamentRequest, ctx: RequestContext[Any, Any]
    ) -> pb.GetTournamentResponse:
        return await self._rpc.GetTournament(request, ConnectCall(ctx))

    async def list_tournaments(
        self, request: pb.ListTournamentsRequest, ctx: RequestContext[Any, Any]
    ) -> pb.ListTournamentsResponse:
        return await self._rpc.ListTournaments(request, ConnectCall(ctx))

    def stream_tournament(
        self, request: pb.StreamTournamentRequest, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[pb.StreamTournamentResponse]:
        return self._rpc.StreamTournament(request, ConnectCall(ctx))

    async def cancel_tournament(
        self, request: pb.CancelTournamentRequest, ctx: RequestContext[Any, Any]
    ) -> pb.CancelTournamentResponse:
        return await self._rpc.CancelTournament(request, ConnectCall(ctx))

    async def get_ladder(
        self, request: pb.GetLadderRequest, ctx: RequestContext[Any, Any]
    ) -> pb.GetLadderResponse:
        return await self._rpc.GetLadder(request, ConnectCall(ctx))

    def bot_session(
        self, request: pb.BotSessionRequest, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[pb.BotSessionResponse]:
        return self._rpc.BotSession(request, ConnectCall(ctx))


def tournament_app(
    servicer: TournamentServicer,
    metrics: Metrics,
    *,
    max_message_bytes: int,
    limits: Limits | None = None,
) -> TournamentServiceASGIApplication:
    return TournamentServiceASGIApplication(
        ConnectTournamentService(servicer),
        interceptors=[ErrorsToConnect(metrics, limits)],
        read_max_bytes=max_message_bytes,
        compressions=[StrictGzip(max_message_bytes)],
    )


def paths(app: TournamentServiceASGIApplication) -> frozenset[str]:
    service = pb.DESCRIPTOR.services_by_name["TournamentService"]
    return frozenset(f"{app.path}/{method.name}" for method in service.methods)
