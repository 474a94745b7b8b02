"""Called bots' seats, played by the replicas: when a called bot's seat must act, the replica
that holds its tournament (:mod:`.runner`) sends the bot's ``BotService`` the seat's view and
the game type (``Decide``), within the time the seat's clock leaves it, retrying a transient
failure (UNAVAILABLE) while there is time, and submits the move it answers as the seat, like
any player (the seat's token derives from the bot: :func:`.seating.seat_token`).

A call that fails or answers no legal move counts against the bot in the store; at
:data:`MAX_FAILURES` failures in a row it is unavailable, and each of its seats then resigns
when it must act, so its remaining games are forfeited rather than left waiting. A bot that
does not answer in time loses on the clock like any seat (the tournament's time control: its
auto move or its forfeit), since the seat is an ordinary seat with a clock.

Each seat is played by a task beside the runner's sweep, which waits for the seat's turn on the
replica's one feed of the game (no polling) and calls the bot, so a slow bot holds up nothing
else. A tournament whose lease moves to another replica has its seats played there too; a call
both make is submitted under one request id (``called-<version>``), so it moves once.

A bot's TLS certificate (``grpcs://``, ``https://``) is checked against the usual roots and, with
``serve --bot-ca-file``, that file's CA certificates too (a private CA, or a bot's self-signed
certificate).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import grpc
import structlog
from pyqwest import Client as HTTPClient
from pyqwest import HTTPTransport
from tricktable.v1 import bot_service_pb2 as bpb
from tricktable.v1 import bot_service_pb2_grpc
from tricktable.v1.bot_service_connect import BotServiceClient

from service import convert
from service.errors import GameNotFound, ShuttingDown, TricktableError
from service.game_service import GameService
from service.store.base import ACTIVE, GameRecord
from service.tournaments.bot_store import BotStore
from service.tournaments.seating import seat_token
from service.tournaments.spec import CALLED
from service.tournaments.store import BotRecord

log = structlog.get_logger("tricktable.tournaments")

#: Failed calls in a row after which a bot is unavailable and forfeits its seats.
MAX_FAILURES = 3
#: A call's time without a clock on the seat.
DEFAULT_CALL_S = 10.0
#: Between two tries of a call that met a transient failure, and after a failed decision.
RETRY_PAUSE_S = 0.1
#: How long one wait for the seat's turn is held (then the wait is made again).
TURN_WAIT_S = 30.0


class CalledBots:
    def __init__(self, games: GameService, store: BotStore) -> None:
        self._games = games
        self._store = store
        self._seats: dict[tuple[str, int], asyncio.Task[None]] = {}
        self._channels: dict[str, Any] = {}
        self._ca_pem: bytes | None = None
        self._http: HTTPClient | None = None  # the Connect calls' (https://), made on first use

    def trust(self, ca_file: str | None) -> None:
        """Check bots' TLS certificates against the PEM CA certificates of ``ca_file`` too,
        beside the usual roots (None: the usual roots alone). Before the first call."""
        self._ca_pem = Path(ca_file).read_bytes() if ca_file else None
        self._channels.clear()
        self._http = None

    def play(self, game_id: str, seats: Iterable[tuple[int, BotRecord]]) -> None:
        """Play each called bot's seat of the game until it ends (one task per seat on this
        replica: a seat already played here is left to its task)."""
        for seat, bot in seats:
            key = (game_id, seat)
            if bot.kind != CALLED or key in self._seats:
                continue
            task = asyncio.get_running_loop().create_task(self._seat(bot, game_id, seat))
            self._seats[key] = task
            task.add_done_callback(lambda _, key=key: self._seats.pop(key, None))  # type: ignore[misc]

    async def _seat(self, bot: BotRecord, game_id: str, seat: int) -> None:
        """Wait for the seat's turns (the replica's one feed per game wakes it), and decide
        each; until the game ends."""
        token = seat_token(bot.token_hash, game_id, seat)
        try:
            while True:
                record, view = await self._games.get_game(
                    game_id, token, wait_s=TURN_WAIT_S, wait_for_turn=True
                )
                if record.status != ACTIVE:
                    return
                if seat in view.to_act:
                    await self._decide(bot, record, view, seat, token)
        except (GameNotFound, ShuttingDown):
            return
        except Exception:  # a bug in one seat must not end the others
            log.exception("playing a called bot's seat failed", bot_id=bot.bot_id)

    async def _decide(
        self, bot: BotRecord, record: GameRecord, view: Any, seat: int, token: str
    ) -> None:
        try:
            if await self._store.failures(bot.bot_id) >= MAX_FAILURES:
                await self._games.leave_game(record.game_id, token)  # a full table: resigns
                log.info("unavailable bot forfeits", bot_id=bot.bot_id, game_id=record.game_id)
                return
            move = await self._call(bot, record, view, seat)
            if move is None:
                await self._failed(bot, record)
                return
            await self._games.move(
                record.game_id,
                token,
                convert.move_from_proto(move),
                expected_version=record.version,
                request_id=f"called-{record.version}",
                seat=seat,
            )
            await self._store.succeeded(bot.bot_id)
        except TricktableError as refused:
            # The game moved on (its clock fired, say), or the bot's move was not legal.
            if refused.reason not in ("STALE_VERSION", "GAME_OVER"):
                log.info("called bot's move refused", bot_id=bot.bot_id, why=refused.message)
                await self._failed(bot, record)

    async def _failed(self, bot: BotRecord, record: GameRecord) -> None:
        count = await self._store.failed(bot.bot_id)
        log.info("called bot failed", bot_id=bot.bot_id, game_id=record.game_id, failures=count)
        # Its clock decides this turn; the seat's next turn is waited for as usual. Without a
        # clock nothing moves the game: the seat is asked again once it is this late.
        await asyncio.sleep(RETRY_PAUSE_S)

    async def _call(self, bot: BotRecord, record: GameRecord, view: Any, seat: int) -> Any:
        """The bot's answer (a proto Move), or None when it gave none in time."""
        clocks = self._games.clocks(record)
        rules, _ = await self._games.tables.state(record)
        request = bpb.DecideRequest(game_id=record.game_id)
        convert.fill_view(request.view, view)
        convert.fill_clocks(request.view, clocks)
        request.game_type.CopyFrom(convert.game_type_to_proto(rules.game_type()))
        own = next((c for c in clocks if c.seat == seat and c.deadline_ms), None)
        deadline = own.deadline_ms / 1000 if own is not None else time.time() + DEFAULT_CALL_S
        while (left := deadline - time.time()) > 0:
            try:
                response = await self._send(bot.endpoint, request, left)
            except _Transient:
                await asyncio.sleep(min(RETRY_PAUSE_S, max(0.0, deadline - time.time())))
                continue
            except Exception as failure:
                log.info("called bot failed", bot_id=bot.bot_id, why=str(failure))
                return None
            return response.move if response.HasField("move") else None
        return None

    async def _send(self, endpoint: str, request: bpb.DecideRequest, left_s: float) -> Any:
        if endpoint.startswith("https://"):
            client = self._channels.get(endpoint)
            if client is None:
                if self._http is None:
                    transport = HTTPTransport(
                        tls_ca_cert=self._ca_pem, tls_include_system_certs=True
                    )
                    self._http = HTTPClient(transport)
                client = BotServiceClient(endpoint, http_client=self._http)
                self._channels[endpoint] = client
            try:
                return await client.decide(request, timeout_ms=max(1, int(left_s * 1000)))
            except Exception as failure:
                if "unavailable" in str(getattr(failure, "code", "")).lower():
                    raise _Transient from failure
                raise
        stub = self._channels.get(endpoint)
        if stub is None:
            scheme, _, target = endpoint.partition("://")
            channel = (
                grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(self._grpc_roots()))
                if scheme == "grpcs"
                else grpc.aio.insecure_channel(target)
            )
            stub = self._channels[endpoint] = bot_service_pb2_grpc.BotServiceStub(channel)
        try:
            return await stub.Decide(request, timeout=left_s)
        except grpc.aio.AioRpcError as failure:
            if failure.code() == grpc.StatusCode.UNAVAILABLE:
                raise _Transient from failure
            raise

    def _grpc_roots(self) -> bytes | None:
        """The roots of a grpcs:// call: gRPC's own and the CA file's (None: gRPC's alone).
        Given roots replace gRPC's, so its bundled ones are given with the file's."""
        if self._ca_pem is None:
            return None
        bundled = Path(grpc.__file__).parent / "_cython" / "_credentials" / "roots.pem"
        usual = bundled.read_bytes() if bundled.exists() else b""
        return usual + b"\n" + self._ca_pem

    async def close(self) -> None:
        for task in list(self._seats.values()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


class _Transient(Exception):
    """A failure worth another try within the clock."""
