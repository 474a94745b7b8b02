"""A thin, typed, synchronous client for Tricktable's ``GameService``.

    with Client("localhost:50051") as client:
        game = client.create("counterpoint", seed=b"my seed")
        me = client.join(game.game_id, player_name="alice")      # keeps the seat token
        state = me.get()                                          # my view and the version
        me.submit(state.view.legal_moves[0])                      # at the version last seen
        for batch in me.stream():                                 # resumes after a dropped link
            ...

What the client takes care of:

* **Seat tokens.** :meth:`Client.join` returns a :class:`Seat` that holds the token and sends it
  as ``authorization: Bearer`` metadata on every call made for the seat.
* **Versions.** A :class:`Seat` remembers the last version it saw and submits at it.
* **Idempotent retries.** A move gets one request id, reused on every retry after UNAVAILABLE or
  a deadline: the server applies it at most once and answers a retry with the first result.
* **Stale moves are not resubmitted.** When the game moved on (ABORTED, ``STALE_VERSION``), the
  client fetches the game as it is now and raises :class:`~tricktable.errors.StaleVersion` with
  it in ``current``: the move may have become illegal, so the caller decides again.
* **Resumable streams.** :meth:`Client.stream` reconnects after a dropped connection from the
  last version it delivered: no batch is missed and none is delivered twice.
* **Errors** are :class:`~tricktable.errors.TricktableError` subclasses with the status code and
  the server's ``ErrorInfo`` reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

import grpc

from tricktable import facts
from tricktable import tls as tls_channels
from tricktable.errors import StaleVersion, TricktableError, from_rpc_error
from tricktable.playstream import PlayStream, new_request_id
from tricktable.v1 import clocks_pb2, game_service_pb2_grpc, game_types_pb2, moves_pb2
from tricktable.v1 import game_service_pb2 as pb

T = TypeVar("T")

OptionValue = bool | int | str

_OVER = (pb.GAME_STATUS_FINISHED, pb.GAME_STATUS_ABANDONED)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently a retryable failure (UNAVAILABLE, DEADLINE_EXCEEDED) is
    retried: ``attempts`` tries in all, sleeping ``initial_s``, doubling up to ``max_s``."""

    attempts: int = 6
    initial_s: float = 0.05
    max_s: float = 1.0

    def delays(self) -> Iterator[float]:
        delay = self.initial_s
        for _ in range(self.attempts - 1):
            yield delay
            delay = min(delay * 2, self.max_s)


def call_with_retry(
    method: Callable[..., T],
    request: Any,
    *,
    retry: RetryPolicy,
    timeout_s: float,
    metadata: Sequence[tuple[str, str]] = (),
    retryable: Callable[[TricktableError], bool] = lambda error: error.retryable,
) -> T:
    """One unary call, retried per ``retry`` while ``retryable`` says the failure allows it;
    otherwise the failure is raised as a :class:`TricktableError`."""
    delays = retry.delays()
    while True:
        try:
            return method(request, metadata=metadata, timeout=timeout_s)
        except grpc.RpcError as err:
            error = from_rpc_error(err)
            delay = next(delays, None) if retryable(error) else None
            if delay is None:
                raise error from None
            time.sleep(error.wait_s(delay))


def bearer(token: str | None) -> list[tuple[str, str]]:
    return [] if token is None else [("authorization", f"Bearer {token}")]


def option_value(value: OptionValue) -> game_types_pb2.OptionValue:
    if isinstance(value, bool):
        return game_types_pb2.OptionValue(bool_value=value)
    if isinstance(value, int):
        return game_types_pb2.OptionValue(int_value=value)
    return game_types_pb2.OptionValue(string_value=value)


def time_control(
    move_s: float,
    bank_s: float = 0.0,
    increment_s: float = 0.0,
    *,
    forfeit: bool = False,
    forfeit_after: int = 0,
) -> clocks_pb2.TimeControl:
    """A time control in seconds: ``move_s`` per move, then a ``bank_s`` for the game that each
    move on the clock adds ``increment_s`` to. A seat whose clock runs out gets a move played
    for it (or, with ``forfeit``, resigns; with ``forfeit_after`` n, resigns at its n-th)."""
    return clocks_pb2.TimeControl(
        move_ms=round(move_s * 1000),
        bank_ms=round(bank_s * 1000),
        increment_ms=round(increment_s * 1000),
        on_timeout=clocks_pb2.TIMEOUT_POLICY_FORFEIT
        if forfeit
        else clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE,
        forfeit_after=forfeit_after,
    )


def create_request(
    game_type: str,
    options: Mapping[str, OptionValue] | None,
    seed: bytes,
    clock: clocks_pb2.TimeControl | None = None,
    bot_seats: Mapping[int, str] | None = None,
) -> pb.CreateGameRequest:
    request = pb.CreateGameRequest(
        game_type=game_type, seed=seed, time_control=clock, bot_seats=bot_seats
    )
    for option, value in (options or {}).items():
        request.options[option].CopyFrom(option_value(value))
    return request


def is_last_batch(batch: pb.StreamEventsResponse) -> bool:
    """Whether a stream ends after this batch: a resignation or the game's end."""
    return batch.HasField("resigned_seat") or any(
        e.WhichOneof("kind") in ("game_over", "game_abandoned") for e in batch.events
    )


def stream_lost() -> TricktableError:
    return TricktableError(
        grpc.StatusCode.UNAVAILABLE, "the event stream keeps dropping", "STREAM_LOST"
    )


def ended_before(game: pb.GameSummary, next_version: int) -> bool:
    """Whether ``game`` is over and a stream that reached ``next_version`` delivered it all."""
    return game.status in _OVER and next_version > game.version


class Client:
    """One connection to a Tricktable server. ``target`` is an address (``host:port``) or a
    ready ``grpc.Channel`` (interceptors); ``timeout_s`` is every unary call's deadline; ``tls``
    and ``ca_file`` connect over TLS (:mod:`tricktable.tls`)."""

    def __init__(
        self,
        target: str | grpc.Channel,
        *,
        timeout_s: float = 10.0,
        retry: RetryPolicy | None = None,
        tls: bool = False,
        ca_file: str | None = None,
    ) -> None:
        self._owns_channel = isinstance(target, str)
        self.channel: grpc.Channel = (
            tls_channels.channel(target, tls=tls, ca_file=ca_file)
            if isinstance(target, str)
            else target
        )
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()

    def close(self) -> None:
        if self._owns_channel:
            self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- calls -----------------------------------------------------------------------------

    def _call(self, method: Callable[..., T], request: Any, token: str | None = None) -> T:
        """One unary call, retried while the failure is retryable. Only idempotent requests
        come here (reads, and moves with a fixed request id)."""
        return call_with_retry(
            method, request, retry=self.retry, timeout_s=self.timeout_s, metadata=bearer(token)
        )

    def game_types(self) -> list[game_types_pb2.GameType]:
        """The games the server offers; their facts (:mod:`tricktable.facts`) are learnt."""
        response = self._call(self.stub.ListGameTypes, pb.ListGameTypesRequest())
        facts.learn(response.game_types)
        return list(response.game_types)

    def create(
        self,
        game_type: str,
        options: Mapping[str, OptionValue] | None = None,
        seed: bytes = b"",
        *,
        clock: clocks_pb2.TimeControl | None = None,
        bot_seats: Mapping[int, str] | None = None,
    ) -> pb.GameSummary:
        """Create a game (not retried: a lost answer would create a second game). ``clock``:
        a time control (see :func:`time_control`); ``bot_seats``: seats the server's own
        bots play (seat -> "random" or "heuristic"), taken at once."""
        request = create_request(game_type, options, seed, clock, bot_seats)
        try:
            response: pb.CreateGameResponse = self.stub.CreateGame(request, timeout=self.timeout_s)
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None
        return response.game

    def list_games(self, game_type: str = "", page_size: int = 0) -> Iterator[pb.GameSummary]:
        """Every game of the lobby (one type, or all), page after page."""
        token = ""
        while True:
            request = pb.ListGamesRequest(
                game_type=game_type, page_size=page_size, page_token=token
            )
            response = self._call(self.stub.ListGames, request)
            yield from response.games
            token = response.next_page_token
            if not token:
                return

    def join(self, game_id: str, seat: int | None = None, player_name: str = "") -> Seat:
        """Take a seat (the first open one when ``seat`` is None). Not retried: the token is
        shown only once, so a lost answer cannot be asked for again."""
        request = pb.JoinGameRequest(game_id=game_id, seat=seat, player_name=player_name)
        try:
            response: pb.JoinGameResponse = self.stub.JoinGame(request, timeout=self.timeout_s)
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None
        return Seat(self, game_id, response.seat, response.seat_token)

    def seat(self, game_id: str, seat: int, token: str) -> Seat:
        """A seat joined earlier, from its saved token."""
        return Seat(self, game_id, seat, token)

    def get(
        self,
        game_id: str,
        token: str | None = None,
        *,
        wait_for_turn: bool = False,
        after_version: int | None = None,
        compact_lay_aside: bool = False,
    ) -> pb.GetGameResponse:
        """The game as the token's seat sees it (no token: the public view). ``wait_for_turn``
        holds the answer until the seat must act or the game ends; ``after_version`` (anyone,
        spectators too) until the game's version is later than it or the game ends. Either
        wait ends at the server's wait limit or this call's deadline if that comes first.
        ``compact_lay_aside``: a lay-aside comes as one ``view.lay_aside_choice``, not hundreds
        of ``legal_moves`` (read both forms with :func:`tricktable.legal.legal_moves`)."""
        request = pb.GetGameRequest(
            game_id=game_id,
            wait_for_turn=wait_for_turn,
            after_version=after_version,
            compact_lay_aside=compact_lay_aside,
        )
        response: pb.GetGameResponse = self._call(self.stub.GetGame, request, token)
        return response

    def submit(
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
        """Make a move at ``expected_version``. Retries reuse one request id. A stale version
        raises :class:`StaleVersion` with the game as it is now in ``current``.
        ``wait_for_turn``: after the move, hold the answer until the seat is to act again (its
        ``view`` is then at ``view_version``)."""
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
            response: pb.SubmitMoveResponse = self._call(self.stub.SubmitMove, request, token)
        except StaleVersion as stale:
            stale.current = self.get(game_id, token, compact_lay_aside=compact_lay_aside)
            raise
        return response

    def leave(self, game_id: str, token: str) -> pb.GameSummary:
        """Free the seat before the game starts; resign (ending the game) after."""
        try:
            response: pb.LeaveGameResponse = self.stub.LeaveGame(
                pb.LeaveGameRequest(game_id=game_id), metadata=bearer(token), timeout=self.timeout_s
            )
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None
        return response.game

    def record(self, game_id: str) -> pb.GameRecord:
        """An ended game told in full: options, what chance dealt, every move and event, the
        result. Fails with FAILED_PRECONDITION (GAME_NOT_FINISHED) while the game runs."""
        response: pb.GetGameRecordResponse = self._call(
            self.stub.GetGameRecord, pb.GetGameRecordRequest(game_id=game_id)
        )
        return response.record

    def stream(
        self, game_id: str, token: str | None = None, from_version: int = 0
    ) -> Iterator[pb.StreamEventsResponse]:
        """The game's event batches from ``from_version`` on, then live, until the game ends.

        A dropped connection (or a server that restarts) is reconnected from the version after
        the last one delivered, so each version arrives exactly once and in order. Gives up
        after :attr:`retry` attempts in a row that deliver nothing."""
        next_version = from_version
        delays = self.retry.delays()
        while True:
            hold = 0.0  # what the server asked to wait (a limit's RetryInfo)
            request = pb.StreamEventsRequest(game_id=game_id, from_version=next_version)
            call = self.stub.StreamEvents(request, metadata=bearer(token))
            try:
                for batch in call:
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
            # The stream ended without the game's last batch: a server going away. Unless the
            # game is over and everything was delivered, reconnect.
            if self._delivered_all(game_id, token, next_version):
                return
            delay = next(delays, None)
            if delay is None:
                raise stream_lost()
            time.sleep(max(delay, hold))

    def _delivered_all(self, game_id: str, token: str | None, next_version: int) -> bool:
        try:
            game = self.get(game_id, token).game
        except TricktableError as error:
            if error.retryable:
                return False
            raise
        return ended_before(game, next_version)


class SeatBase:
    """What a seat holds, for the synchronous and the asyncio client alike: the game's id, the
    seat's number and secret token, and the last version it saw."""

    def __init__(self, game_id: str, seat: int, token: str) -> None:
        self.game_id = game_id
        self.seat = seat
        self.token = token
        self.version: int | None = None

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(game_id={self.game_id!r}, seat={self.seat}, "
            f"version={self.version})"
        )

    def _saw_stale(self, stale: StaleVersion) -> None:
        if stale.current is not None:
            self.version = stale.current.game.version

    def _saw_answer(self, response: pb.SubmitMoveResponse) -> pb.SubmitMoveResponse:
        self.version = max(response.version, response.view_version)
        return response


class Seat(SeatBase):
    """A seat at a game: its id, number and secret token, and the last version it saw.

    Calls made through it are authenticated as the seat. :meth:`submit` uses the version of the
    last :meth:`get` or :meth:`submit` unless told otherwise."""

    def __init__(self, client: Client, game_id: str, seat: int, token: str) -> None:
        super().__init__(game_id, seat, token)
        self.client = client

    def get(
        self,
        *,
        wait_for_turn: bool = False,
        after_version: int | None = None,
        compact_lay_aside: bool = False,
    ) -> pb.GetGameResponse:
        state = self.client.get(
            self.game_id,
            self.token,
            wait_for_turn=wait_for_turn,
            after_version=after_version,
            compact_lay_aside=compact_lay_aside,
        )
        self.version = state.game.version
        return state

    def submit(
        self,
        move: moves_pb2.Move,
        expected_version: int | None = None,
        *,
        request_id: str | None = None,
        wait_for_turn: bool = False,
        compact_lay_aside: bool = False,
    ) -> pb.SubmitMoveResponse:
        """Make a move for this seat, at ``expected_version`` or the last version seen. On a
        stale version the fresh game is in the :class:`StaleVersion`'s ``current``."""
        if expected_version is None:
            expected_version = self.version if self.version is not None else self.get().game.version
        try:
            response = self.client.submit(
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

    def stream(self, from_version: int = 0) -> Iterator[pb.StreamEventsResponse]:
        return self.client.stream(self.game_id, self.token, from_version)

    def play(
        self,
        from_version: int = 0,
        *,
        compact_lay_aside: bool = False,
        wait_for_turn: bool = False,
    ) -> PlayStream:
        """This seat's play stream (:mod:`tricktable.playstream`): moves up; events from
        ``from_version`` on, move results and the seat's view whenever it is to act, down. The
        table must be full. ``compact_lay_aside``: views carry a lay-aside as one choice
        (:mod:`tricktable.legal`). ``wait_for_turn``: a move is answered with the seat's next
        turn, so :meth:`PlayStream.move` returns when the seat may act again (a bot's way)."""
        return PlayStream(
            self, from_version, compact_lay_aside=compact_lay_aside, wait_for_turn=wait_for_turn
        )

    def leave(self) -> pb.GameSummary:
        return self.client.leave(self.game_id, self.token)
