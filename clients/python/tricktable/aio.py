"""The client for asyncio programs (web frontends, async bots): :class:`AsyncClient` and
:class:`AsyncSeat` do what :mod:`tricktable.client` does, over ``grpc.aio``, with ``await``.

    async with AsyncClient("localhost:50051") as client:
        game = await client.create("counterpoint")
        me = await client.join(game.game_id, player_name="alice")
        state = await me.get()
        await me.submit(state.view.legal_moves[0])
        async for batch in me.stream():                           # resumes after a dropped link
            ...

The same guarantees as the synchronous client: seat tokens sent as bearer metadata, the last
version seen remembered per seat, one request id per move reused on every retry (applied at most
once), a stale move reported with the fresh game rather than resubmitted, event streams resumed
after a dropped connection with no batch missed or repeated, errors as
:class:`~tricktable.errors.TricktableError` subclasses with the code and the ``ErrorInfo`` reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

import grpc
import grpc.aio

from tricktable import tls as tls_channels
from tricktable.client import (
    OptionValue,
    RetryPolicy,
    SeatBase,
    bearer,
    create_request,
    ended_before,
    is_last_batch,
    stream_lost,
)
from tricktable.errors import StaleVersion, TricktableError, from_rpc_error
from tricktable.playstream import PlayState, new_request_id
from tricktable.v1 import clocks_pb2, game_service_pb2_grpc, game_types_pb2, moves_pb2
from tricktable.v1 import game_service_pb2 as pb

T = TypeVar("T")


async def call_with_retry(
    method: Callable[..., Awaitable[T]],
    request: Any,
    *,
    retry: RetryPolicy,
    timeout_s: float,
    metadata: Sequence[tuple[str, str]] = (),
) -> T:
    """One unary call, retried per ``retry`` while the failure is retryable; otherwise raised
    as a :class:`TricktableError`. Only idempotent requests may come here."""
    delays = retry.delays()
    while True:
        try:
            return await method(request, metadata=tuple(metadata), timeout=timeout_s)
        except grpc.RpcError as err:
            error = from_rpc_error(err)
            delay = next(delays, None) if error.retryable else None
            if delay is None:
                raise error from None
            await asyncio.sleep(error.wait_s(delay))


class AsyncClient:
    """One ``grpc.aio`` channel to a Tricktable server. ``target`` is an address or a ready
    ``grpc.aio.Channel``; ``timeout_s`` is every unary call's deadline. Create it inside the
    event loop that uses it (grpc.aio channels belong to one loop)."""

    def __init__(
        self,
        target: str | grpc.aio.Channel,
        *,
        timeout_s: float = 10.0,
        retry: RetryPolicy | None = None,
        tls: bool = False,
        ca_file: str | None = None,
    ) -> None:
        self._owns_channel = isinstance(target, str)
        self.channel: grpc.aio.Channel = (
            tls_channels.aio_channel(target, tls=tls, ca_file=ca_file)
            if isinstance(target, str)
            else target
        )
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()

    async def close(self) -> None:
        if self._owns_channel:
            await self.channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def _call(
        self, method: Callable[..., Awaitable[T]], request: Any, token: str | None = None
    ) -> T:
        return await call_with_retry(
            method, request, retry=self.retry, timeout_s=self.timeout_s, metadata=bearer(token)
        )

    async def _once(
        self, method: Callable[..., Awaitable[T]], request: Any, token: str | None = None
    ) -> T:
        """A call that must not be repeated blindly (create, join, leave): no retry."""
        try:
            return await method(request, metadata=tuple(bearer(token)), timeout=self.timeout_s)
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None

    async def game_types(self) -> list[game_types_pb2.GameType]:
        response: pb.ListGameTypesResponse = await self._call(
            self.stub.ListGameTypes, pb.ListGameTypesRequest()
        )
        return list(response.game_types)

    async def create(
        self,
        game_type: str,
        options: Mapping[str, OptionValue] | None = None,
        seed: bytes = b"",
        *,
        clock: clocks_pb2.TimeControl | None = None,
        bot_seats: Mapping[int, str] | None = None,
    ) -> pb.GameSummary:
        """Create a game (not retried: a lost answer would create a second game); ``clock``
        and ``bot_seats`` as for :meth:`tricktable.client.Client.create`."""
        response: pb.CreateGameResponse = await self._once(
            self.stub.CreateGame, create_request(game_type, options, seed, clock, bot_seats)
        )
        return response.game

    async def list_games(
        self, game_type: str = "", page_size: int = 0
    ) -> AsyncIterator[pb.GameSummary]:
        """Every game of the lobby (one type, or all), page after page."""
        token = ""
        while True:
            request = pb.ListGamesRequest(
                game_type=game_type, page_size=page_size, page_token=token
            )
            response: pb.ListGamesResponse = await self._call(self.stub.ListGames, request)
            for game in response.games:
                yield game
            token = response.next_page_token
            if not token:
                return

    async def join(self, game_id: str, seat: int | None = None, player_name: str = "") -> AsyncSeat:
        """Take a seat (the first open one when ``seat`` is None); not retried, as the token is
        shown only once."""
        request = pb.JoinGameRequest(game_id=game_id, seat=seat, player_name=player_name)
        response: pb.JoinGameResponse = await self._once(self.stub.JoinGame, request)
        return AsyncSeat(self, game_id, response.seat, response.seat_token)

    def seat(self, game_id: str, seat: int, token: str) -> AsyncSeat:
        """A seat joined earlier, from its saved token."""
        return AsyncSeat(self, game_id, seat, token)

    async def get(
        self,
        game_id: str,
        token: str | None = None,
        *,
        wait_for_turn: bool = False,
        after_version: int | None = None,
        compact_lay_aside: bool = False,
    ) -> pb.GetGameResponse:
        """The game as the token's seat sees it (no token: the public view); ``wait_for_turn``
        holds the answer until the seat must act or the game ends, ``after_version`` until the
        game's version is later than it or the game ends (anyone may wait so).
        ``compact_lay_aside``: a lay-aside comes as one ``view.lay_aside_choice``, not hundreds
        of ``legal_moves`` (read both forms with :func:`tricktable.legal.legal_moves`)."""
        request = pb.GetGameRequest(
            game_id=game_id,
            wait_for_turn=wait_for_turn,
            after_version=after_version,
            compact_lay_aside=compact_lay_aside,
        )
        response: pb.GetGameResponse = await self._call(self.stub.GetGame, request, token)
        return response

    async def submit(
        self,
        game_id: str,
        token: str,
        move: moves_pb2.Move,
        expected_version: int,
        *,
        request_id: str | None = None,
        seat: int | None = None,
        wait_for_turn: bool = False,
        compact_lay_aside: bool = False,
    ) -> pb.SubmitMoveResponse:
        """Make a move at ``expected_version``; retries reuse one request id. A stale version
        raises :class:`StaleVersion` with the game as it is now in ``current``."""
        request = pb.SubmitMoveRequest(
            game_id=game_id,
            move=move,
            expected_version=expected_version,
            request_id=request_id or new_request_id(),
            seat=seat,
            wait_for_turn=wait_for_turn,
            compact_lay_aside=compact_lay_aside,
        )
        try:
            response: pb.SubmitMoveResponse = await self._call(self.stub.SubmitMove, request, token)
        except StaleVersion as stale:
            stale.current = await self.get(game_id, token, compact_lay_aside=compact_lay_aside)
            raise
        return response

    async def leave(self, game_id: str, token: str) -> pb.GameSummary:
        """Free the seat before the game starts; resign (ending the game) after."""
        response: pb.LeaveGameResponse = await self._once(
            self.stub.LeaveGame, pb.LeaveGameRequest(game_id=game_id), token
        )
        return response.game

    async def record(self, game_id: str) -> pb.GameRecord:
        """An ended game told in full; FAILED_PRECONDITION (GAME_NOT_FINISHED) while it runs."""
        response: pb.GetGameRecordResponse = await self._call(
            self.stub.GetGameRecord, pb.GetGameRecordRequest(game_id=game_id)
        )
        return response.record

    async def stream(
        self, game_id: str, token: str | None = None, from_version: int = 0
    ) -> AsyncIterator[pb.StreamEventsResponse]:
        """The game's event batches from ``from_version`` on, then live, until the game ends;
        reconnected after a dropped connection from the version after the last one delivered.
        Gives up after :attr:`retry` attempts in a row that deliver nothing."""
        next_version = from_version
        delays = self.retry.delays()
        while True:
            hold = 0.0  # what the server asked to wait (a limit's RetryInfo)
            request = pb.StreamEventsRequest(game_id=game_id, from_version=next_version)
            call = self.stub.StreamEvents(request, metadata=tuple(bearer(token)))
            try:
                async for batch in call:
                    if batch.version < next_version:
                        continue  # never twice, whatever the server resends
                    next_version = batch.version + 1
                    delays = self.retry.delays()  # progress: the patience starts again
                    yield batch
                    if is_last_batch(batch):
                        return
            except grpc.RpcError as err:
                error = from_rpc_error(err)
                if not error.retryable and error.code != grpc.StatusCode.CANCELLED:
                    raise error from None
                hold = error.retry_after_s or 0.0
            finally:
                call.cancel()
            if await self._delivered_all(game_id, token, next_version):
                return
            delay = next(delays, None)
            if delay is None:
                raise stream_lost()
            await asyncio.sleep(max(delay, hold))

    async def _delivered_all(self, game_id: str, token: str | None, next_version: int) -> bool:
        try:
            game = (await self.get(game_id, token)).game
        except TricktableError as error:
            if error.retryable:
                return False
            raise
        return ended_before(game, next_version)


class AsyncSeat(SeatBase):
    """A seat at a game for asyncio code: id, number, secret token and the last version seen;
    :meth:`submit` uses that version unless told otherwise."""

    def __init__(self, client: AsyncClient, game_id: str, seat: int, token: str) -> None:
        super().__init__(game_id, seat, token)
        self.client = client

    async def get(
        self,
        *,
        wait_for_turn: bool = False,
        after_version: int | None = None,
        compact_lay_aside: bool = False,
    ) -> pb.GetGameResponse:
        state = await self.client.get(
            self.game_id,
            self.token,
            wait_for_turn=wait_for_turn,
            after_version=after_version,
            compact_lay_aside=compact_lay_aside,
        )
        self.version = state.game.version
        return state

    async def submit(
        self,
        move: moves_pb2.Move,
        expected_version: int | None = None,
        *,
        request_id: str | None = None,
        wait_for_turn: bool = False,
        compact_lay_aside: bool = False,
    ) -> pb.SubmitMoveResponse:
        """Make a move for this seat, at ``expected_version`` or the last version seen."""
        if expected_version is None:
            expected_version = (
                self.version if self.version is not None else (await self.get()).game.version
            )
        try:
            response = await self.client.submit(
                self.game_id,
                self.token,
                move,
                expected_version,
                request_id=request_id,
                seat=self.seat,
                wait_for_turn=wait_for_turn,
                compact_lay_aside=compact_lay_aside,
            )
        except StaleVersion as stale:
            self._saw_stale(stale)
            raise
        return self._saw_answer(response)

    def stream(self, from_version: int = 0) -> AsyncIterator[pb.StreamEventsResponse]:
        return self.client.stream(self.game_id, self.token, from_version)

    async def play(
        self,
        from_version: int = 0,
        *,
        compact_lay_aside: bool = False,
        wait_for_turn: bool = False,
    ) -> AsyncPlayStream:
        """This seat's play stream (:mod:`tricktable.playstream`), opened: moves up; events from
        ``from_version`` on, move results and the seat's view whenever it is to act, down. The
        table must be full. ``wait_for_turn``: as for :meth:`tricktable.client.Seat.play`."""
        stream = AsyncPlayStream(
            self, from_version, compact_lay_aside=compact_lay_aside, wait_for_turn=wait_for_turn
        )
        await stream.open()
        return stream

    async def leave(self) -> pb.GameSummary:
        return await self.client.leave(self.game_id, self.token)


class AsyncPlayStream(PlayState):
    """A seat's play stream for asyncio code, as :class:`tricktable.playstream.PlayStream` is for
    synchronous code: ``await turn()``, ``await move(...)``, ``events()``. Made (and opened) by
    :meth:`AsyncSeat.play`; close it, or use it with ``async with``."""

    def __init__(
        self,
        seat: AsyncSeat,
        from_version: int = 0,
        *,
        compact_lay_aside: bool = False,
        wait_for_turn: bool = False,
    ) -> None:
        super().__init__(seat.game_id, seat.seat, from_version, compact_lay_aside, wait_for_turn)
        self._seat = seat
        self._call: Any = None
        self._delays = seat.client.retry.delays()

    async def open(self) -> None:
        self._call = self._seat.client.stub.Play(metadata=tuple(bearer(self._seat.token)))
        for request in self._opening():
            await self._call.write(request)

    async def receive(self) -> None:
        """Take one message from the server (see PlayStream.receive)."""
        try:
            response = await self._call.read()
        except grpc.RpcError as err:
            error = from_rpc_error(err)
            delay = next(self._delays, None) if error.retryable else None
            if delay is None:
                raise error from None
            self._call.cancel()
            await asyncio.sleep(error.wait_s(delay))  # a limit's RetryInfo, if longer
            await self.open()
            return
        if response is grpc.aio.EOF:
            self.ended = True
            return
        self._delays = self._seat.client.retry.delays()
        self._take(response)

    async def turn(self, since: int = 0) -> pb.PlayView:
        """The newest view at which the seat is to act and has not acted yet (at version
        ``since`` or later); waits for it, or for the stream's end: then the last view, with
        ``ended`` set."""
        while not self._turn_ready(since):
            await self.receive()
        assert self.view is not None
        return self.view

    async def move(
        self,
        move: moves_pb2.Move,
        expected_version: int | None = None,
        *,
        request_id: str | None = None,
    ) -> int:
        """Make a move at ``expected_version`` (default: the latest view's) and wait for its
        answer: as :meth:`tricktable.playstream.PlayStream.move`."""
        if expected_version is None:
            expected_version = (await self.turn()).version
        request_id = request_id or new_request_id()
        request = self._ask(move, expected_version, request_id)
        try:
            await self._call.write(request)
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            if not self._call.done():
                raise
            # The server ended the stream (the game's end) before the move went out: what it
            # said is read below, and the move, unanswered, then raises game_over().
        while (version := self._answer(request_id, expected_version)) is None:
            await self.receive()
        return version

    async def close(self) -> None:
        if self._call is not None:
            self._call.cancel()

    async def __aenter__(self) -> AsyncPlayStream:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
