"""The gRPC servicer: a thin adapter (STYLE.md §8). Each method validates the request's shape,
reads the caller's seat token, makes one call into :class:`GameService` and converts the result.
No try/except (the interceptor maps errors) and no rule of any game.

A method reads only three things of its call (:class:`CallContext`): the metadata, for the seat
token, the time left, and the peer (grpc's form, for per-client limits). ``grpc.aio``'s context
has them all; the web door (service/web) hands the same methods an adapter of a Connect request,
so each RPC is written once for every door."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from functools import partial
from typing import Protocol

import structlog
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc

from service import convert, records, validate
from service.auth import bearer_token
from service.errors import InvalidRequest, LimitExceeded
from service.game_service import GameService
from service.identity import player_token
from service.limits import Limits, LimitsConfig
from service.matchmaking import Matched
from service.play import Incoming, MoveAsk, PlaySession, Settle

DEFAULT_PAGE = 50


class CallContext(Protocol):
    def invocation_metadata(self) -> Iterable[tuple[str, str | bytes]] | None: ...

    def time_remaining(self) -> float | None: ...

    def peer(self) -> str: ...


def _token(context: CallContext) -> str | None:
    return bearer_token(context.invocation_metadata())


def _player_token(context: CallContext) -> str | None:
    return player_token(context.invocation_metadata())


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    def __init__(self, games: GameService, limits: Limits | None = None) -> None:
        self._games = games
        self._limits = limits or Limits(LimitsConfig(open_games=0))
        self._paced = limits is not None  # a play stream's moves count against the limits given

    async def ListGameTypes(
        self, request: pb.ListGameTypesRequest, context: CallContext
    ) -> pb.ListGameTypesResponse:
        types = self._games.game_types()
        return pb.ListGameTypesResponse(game_types=[convert.game_type_to_proto(t) for t in types])

    async def CreateGame(
        self, request: pb.CreateGameRequest, context: CallContext
    ) -> pb.CreateGameResponse:
        validate.create_game(request)
        options = convert.options_from_proto(request.options)
        clock = (
            validate.time_control(request.time_control)
            if request.HasField("time_control")
            else None
        )
        # The open-games place is taken before the create awaits anything, and given back if
        # it fails: racing creates cannot pass the cap together.
        metadata = context.invocation_metadata()
        load = self._games.store.load
        with await self._limits.reserve_game(context.peer(), load, metadata) as place:
            created = await self._games.create_table(
                request.game_type,
                options,
                request.seed or None,
                time_control=clock,
                bot_seats=dict(request.bot_seats),
                unlisted=validate.unlisted(request),
                reserved=[(r.seat, r.player_id) for r in request.reserved_seats],
            )
            place.created(created.record.game_id)
        invitations = created.invitations
        return pb.CreateGameResponse(
            game=convert.summary_to_proto(created.record),
            invite_code=invitations.invite_code,
            seat_invite_codes=invitations.seat_codes or {},
        )

    async def ListGames(
        self, request: pb.ListGamesRequest, context: CallContext
    ) -> pb.ListGamesResponse:
        validate.list_games(request)
        limit = request.page_size or DEFAULT_PAGE
        playing = request.status == pb.GAME_STATUS_PLAYING
        games, token = await self._games.list_games(
            request.game_type, limit, request.page_token, playing=playing
        )
        summaries = [convert.summary_to_proto(g) for g in games]
        return pb.ListGamesResponse(games=summaries, next_page_token=token)

    async def JoinGame(
        self, request: pb.JoinGameRequest, context: CallContext
    ) -> pb.JoinGameResponse:
        validate.join_game(request)
        wanted = request.seat if request.HasField("seat") else None
        player = self._games.player_of(_player_token(context))
        seat, token, record = await self._games.join_game(
            request.game_id, wanted, request.player_name, request.invite_code, player
        )
        return pb.JoinGameResponse(
            seat=seat, seat_token=token, game=convert.summary_to_proto(record)
        )

    async def GetGame(self, request: pb.GetGameRequest, context: CallContext) -> pb.GetGameResponse:
        validate.get_game(request)
        after = request.after_version if request.HasField("after_version") else None
        waits = request.wait_for_turn or after is not None
        wait = self._games.turn_wait(context.time_remaining()) if waits else 0.0
        record, view = await self._games.get_game(
            request.game_id,
            _token(context),
            wait_s=wait,
            wait_for_turn=request.wait_for_turn,
            after_version=after,
        )
        presence = await self._games.presence(record)
        return convert.get_game_response(
            record, view, self._games.clocks(record), presence, request.compact_lay_aside
        )

    async def SubmitMove(
        self, request: pb.SubmitMoveRequest, context: CallContext
    ) -> pb.SubmitMoveResponse:
        validate.submit_move(request)
        structlog.contextvars.bind_contextvars(
            game_id=request.game_id, request_id=request.request_id
        )
        result = await self._games.submit_move(
            request.game_id,
            _token(context),
            convert.move_from_proto(request.move),
            expected_version=request.expected_version,
            request_id=request.request_id,
            seat=request.seat if request.HasField("seat") else None,
            wait_s=self._games.turn_wait(context.time_remaining()) if request.wait_for_turn else 0,
        )
        return convert.submit_move_response(result, request.compact_lay_aside)

    async def StreamEvents(
        self, request: pb.StreamEventsRequest, context: CallContext
    ) -> AsyncIterator[pb.StreamEventsResponse]:
        validate.stream_events(request)
        batches = self._games.stream_events(
            request.game_id, _token(context), request.from_version, request.follow_rematch
        )
        async for batch in batches:
            # One commit's batch reaches every watcher as the same object: converted once.
            message = batch.encoded.get("proto")
            if message is None:
                message = batch.encoded["proto"] = convert.batch_to_proto(batch)
            yield message

    async def LeaveGame(
        self, request: pb.LeaveGameRequest, context: CallContext
    ) -> pb.LeaveGameResponse:
        validate.game_id(request.game_id)
        record = await self._games.leave_game(request.game_id, _token(context))
        return pb.LeaveGameResponse(game=convert.summary_to_proto(record))

    async def GetGameRecord(
        self, request: pb.GetGameRecordRequest, context: CallContext
    ) -> pb.GetGameRecordResponse:
        validate.game_id(request.game_id)
        game, record = await self._games.game_record(request.game_id)
        return pb.GetGameRecordResponse(record=records.record_to_proto(game, record))

    async def RevokeInvite(
        self, request: pb.RevokeInviteRequest, context: CallContext
    ) -> pb.RevokeInviteResponse:
        validate.game_id(request.game_id)
        code = validate.invite_code(request.invite_code)
        fresh = await self._games.revoke_invite(request.game_id, code, request.reissue)
        return pb.RevokeInviteResponse(invite_code=fresh)

    async def QuickPlay(
        self, request: pb.QuickPlayRequest, context: CallContext
    ) -> AsyncIterator[pb.QuickPlayResponse]:
        clock = validate.quick_play(request)
        player = self._games.player_of(_player_token(context))
        news = self._games.quick_play(
            request.game_type,
            convert.options_from_proto(request.options),
            clock,
            request.player_name,
            ticket=request.ticket,
            bot_wait_ms=request.bot_wait_ms,
            player_id=player,
        )
        async for item in news:
            if isinstance(item, Matched):
                matched = pb.QuickPlayMatched(
                    game_id=item.game_id, seat=item.seat, seat_token=item.seat_token
                )
                yield pb.QuickPlayResponse(matched=matched)
            else:
                queued = pb.QuickPlayQueued(ticket=item.ticket, waiting=item.waiting)
                yield pb.QuickPlayResponse(queued=queued)

    async def CancelQuickPlay(
        self, request: pb.CancelQuickPlayRequest, context: CallContext
    ) -> pb.CancelQuickPlayResponse:
        validate.ticket(request.ticket)
        cancelled = await self._games.cancel_quick_play(request.ticket)
        return pb.CancelQuickPlayResponse(cancelled=cancelled)

    async def Rematch(self, request: pb.RematchRequest, context: CallContext) -> pb.RematchResponse:
        validate.game_id(request.game_id)
        offer = await self._games.rematch(request.game_id, _token(context))
        return pb.RematchResponse(rematch=convert.rematch_to_proto(offer))

    async def ListMyGames(
        self, request: pb.ListMyGamesRequest, context: CallContext
    ) -> pb.ListMyGamesResponse:
        limit = validate.page_size(request.page_size) or DEFAULT_PAGE
        player = self._games.player_of(_player_token(context), needed=True)
        mine = await self._games.my_games(player, limit)
        return pb.ListMyGamesResponse(
            games=[pb.MyGame(game=convert.summary_to_proto(g), seat=s) for g, s in mine]
        )

    async def Play(
        self, requests: AsyncIterator[pb.PlayRequest], context: CallContext
    ) -> AsyncIterator[pb.PlayResponse]:
        token = _token(context)
        opening = validate.play_open(await anext(aiter(requests), None))
        structlog.contextvars.bind_contextvars(game_id=opening.game_id)
        session = PlaySession(
            self._games,
            opening.game_id,
            token,
            opening.from_version,
            wait_for_turn=opening.wait_for_turn,
        )
        paced = None
        if self._paced:
            paced = partial(self._limits.move, context.peer(), context.invocation_metadata())
        async for item in session.items(_moves(requests, paced)):
            yield convert.play_response(item, opening.compact_lay_aside)


async def _moves(
    requests: AsyncIterator[pb.PlayRequest], paced: Callable[[], Awaitable[Settle | None]] | None
) -> AsyncIterator[Incoming]:
    """The stream's moves as they arrive; each first waits for its turn under the seat's and
    the address' move rates and its address' refused-moves budget (``paced``), as a SubmitMove
    would, before anything reads it: one over them is answered with that refusal
    (RESOURCE_EXHAUSTED, RetryInfo) in its turn. A move admitted carries its settle, which the
    session calls with the move's answer (the budget's token kept only for a client's
    mistake)."""
    async for request in requests:
        if request.WhichOneof("kind") != "move":
            raise InvalidRequest("a play stream is opened once; then it carries moves")
        settle = None
        if paced is not None:
            try:
                settle = await paced()
            except LimitExceeded as refused:
                yield request.move.request_id, partial(_refused, refused), None
                continue
        yield request.move.request_id, partial(_move_ask, request.move), settle


def _refused(error: LimitExceeded) -> MoveAsk:
    raise error


def _move_ask(request: pb.PlayMove) -> MoveAsk:
    validate.play_move(request)
    return MoveAsk(
        convert.move_from_proto(request.move), request.expected_version, request.request_id
    )
