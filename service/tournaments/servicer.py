"""The gRPC servicer of ``TournamentService``: a thin adapter, as :mod:`service.servicer` is
for ``GameService`` (the same call context, so the web door hands it a Connect request's).
Each method checks the request's shape, makes one call into the desk, and converts."""

from __future__ import annotations

from collections.abc import AsyncIterator

from tricktable.tournament import wilson_interval
from tricktable.v1 import tournament_service_pb2 as pb
from tricktable.v1 import tournament_service_pb2_grpc

from service import convert, validate
from service.errors import InvalidRequest
from service.proxies import ClientAddresses
from service.servicer import DEFAULT_PAGE, CallContext, _token
from service.tournaments import convert as tconvert
from service.tournaments.desk import TournamentDesk
from service.tournaments.spec import CALLED, CONNECTED

_KINDS = {pb.BOT_KIND_CALLED: CALLED, pb.BOT_KIND_CONNECTED: CONNECTED}
MAX_ENTRANT_TEXT = 64


def _id(field: str, value: str) -> str:
    try:
        return validate.game_id(value)
    except InvalidRequest:
        raise InvalidRequest(f"{field} must be 1 to 64 letters, digits, '-' or '_'") from None


class TournamentServicer(tournament_service_pb2_grpc.TournamentServiceServicer):
    def __init__(self, desk: TournamentDesk, client_address: ClientAddresses) -> None:
        self._desk = desk
        # The address limits count a client by, as every limit of service.limits does (behind a
        # trusted proxy, the address it forwarded).
        self._client_address = client_address

    async def RegisterBot(
        self, request: pb.RegisterBotRequest, context: CallContext
    ) -> pb.RegisterBotResponse:
        if request.kind not in _KINDS:
            raise InvalidRequest("kind: BOT_KIND_CALLED or BOT_KIND_CONNECTED")
        record, token = await self._desk.register_bot(
            client=self._client_address(context.peer(), context.invocation_metadata()),
            name=request.name,
            game_types=list(request.game_types),
            kind=_KINDS[request.kind],
            endpoint=request.endpoint,
            ladder=request.ladder,
        )
        return pb.RegisterBotResponse(bot_id=record.bot_id, bot_token=token)

    async def CreateTournament(
        self, request: pb.CreateTournamentRequest, context: CallContext
    ) -> pb.CreateTournamentResponse:
        if not request.game_type:
            raise InvalidRequest("game_type is required")
        validate.options(request.options)
        if request.WhichOneof("format") != "round_robin":
            raise InvalidRequest("format: round_robin is required", reason="INVALID_FORMAT")
        for n, entrant in enumerate(request.entrants):
            if not 1 <= len(entrant) <= MAX_ENTRANT_TEXT:
                raise InvalidRequest(f"entrants[{n}]: 1 to {MAX_ENTRANT_TEXT} characters")
        clock = (
            validate.time_control(request.time_control)
            if request.HasField("time_control")
            else None
        )
        state, token = await self._desk.create(
            client=self._client_address(context.peer(), context.invocation_metadata()),
            game_type=request.game_type,
            options=convert.options_from_proto(request.options),
            time_control=clock,
            rounds=request.round_robin.rounds,
            duplicate=request.round_robin.duplicate,
            entrants=list(request.entrants),
            games_at_once=request.games_at_once,
            seed=request.seed,
            name=request.name,
        )
        return pb.CreateTournamentResponse(
            tournament=tconvert.tournament_to_proto(state, self._desk.standings(state)),
            creator_token=token,
        )

    async def GetTournament(
        self, request: pb.GetTournamentRequest, context: CallContext
    ) -> pb.GetTournamentResponse:
        state = await self._desk.get(_id("tournament_id", request.tournament_id))
        return pb.GetTournamentResponse(
            tournament=tconvert.tournament_to_proto(state, self._desk.standings(state)),
            games=tconvert.games_to_proto(state),
        )

    async def ListTournaments(
        self, request: pb.ListTournamentsRequest, context: CallContext
    ) -> pb.ListTournamentsResponse:
        if not 0 <= request.page_size <= 100:
            raise InvalidRequest("page_size must be 0 to 100")
        found, token = await self._desk.page(request.page_size or DEFAULT_PAGE, request.page_token)
        return pb.ListTournamentsResponse(
            tournaments=[tconvert.tournament_to_proto(s, self._desk.standings(s)) for s in found],
            next_page_token=token,
        )

    async def StreamTournament(
        self, request: pb.StreamTournamentRequest, context: CallContext
    ) -> AsyncIterator[pb.StreamTournamentResponse]:
        tid = _id("tournament_id", request.tournament_id)
        if request.from_version < 0:
            raise InvalidRequest("from_version must be 0 or more")
        state = await self._desk.get(tid)
        async for version, data in self._desk.stream(tid, request.from_version):
            yield tconvert.event_to_proto(state, version, data)

    async def CancelTournament(
        self, request: pb.CancelTournamentRequest, context: CallContext
    ) -> pb.CancelTournamentResponse:
        tid = _id("tournament_id", request.tournament_id)
        state = await self._desk.cancel(tid, _token(context))
        return pb.CancelTournamentResponse(
            tournament=tconvert.tournament_to_proto(state, self._desk.standings(state))
        )

    async def GetLadder(
        self, request: pb.GetLadderRequest, context: CallContext
    ) -> pb.GetLadderResponse:
        if not request.game_type:
            raise InvalidRequest("game_type is required")
        rows = await self._desk.ladder(request.game_type)
        out = pb.GetLadderResponse(game_type=request.game_type)
        for rank, (bot, rating, available) in enumerate(rows, start=1):
            low, high = wilson_interval(rating.wins, rating.games)
            out.rows.append(
                pb.LadderRow(
                    rank=rank,
                    bot_id=bot.bot_id,
                    name=bot.name,
                    games=rating.games,
                    mu=rating.mu,
                    sigma=rating.sigma,
                    ordinal=rating.ordinal,
                    win_share=rating.wins / rating.games if rating.games else 0.0,
                    win_share_low=low,
                    win_share_high=high,
                    available=available,
                )
            )
        return out

    async def BotSession(
        self, request: pb.BotSessionRequest, context: CallContext
    ) -> AsyncIterator[pb.BotSessionResponse]:
        async for seat in self._desk.session(_token(context)):
            yield pb.BotSessionResponse(seat_given=pb.SeatGiven(**seat))
