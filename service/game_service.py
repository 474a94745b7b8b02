"""The transport-free game service: one replica's rooms, put together, behind the one object the
doors (the gRPC servicer, the web door) call.

No gRPC and no protobuf here (the servicer converts), and no rule of any game (the engine
decides). Each RPC is one call into a room (see service/README.md for the plan):

- :mod:`service.lobby` — game types, CreateGame, ListGames, JoinGame, LeaveGame;
- :mod:`service.moves` — SubmitMove and the play stream's moves: the move path;
- :mod:`service.deadlines` — what a game has scheduled (server bots, clocks, idle games), fired
  by any replica's sweeper (:mod:`service.scheduler`);
- :mod:`service.reads` — GetGame (and its waits), StreamEvents, GetGameRecord, clocks;
- :mod:`service.presence` — who is at the table.

Every step a game takes after its opening (a move of any kind, a forfeit, an idle game's end, a
resignation) is written by the one commit builder, :mod:`service.commit`. Everyone on this
replica who waits on a game (event and play streams, ``wait_for_turn``, ``after_version``)
waits in its one feed, :mod:`service.feed`. A seat's play stream (:mod:`service.play`) sees
this object only through its port, :class:`service.play.SeatDesk`.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from engine.core.moves import Move
from engine.core.options import OptionValue
from engine.core.rules import GameType, Rules
from engine.core.view import View
from engine.record import Record
from service.clocks import SeatClockView, TimeControl
from service.commit import Committer
from service.deadlines import Deadlines
from service.errors import ShuttingDown
from service.feed import GameFeed
from service.lobby import Lobby
from service.metrics import Metrics
from service.moves import Moved, Moves
from service.play import News
from service.presence import PRESENCE_WINDOW_MS, Presence
from service.reads import Reads
from service.results import (
    MoveResult,
    ProjectedBatch,
    SeatPresenceView,
    project_batch,
    project_events,
)
from service.store.base import GameRecord, GameStore
from service.tables import DEFAULT_CACHE_GAMES, StateCache, Tables

__all__ = [
    "PRESENCE_WINDOW_MS",
    "GameService",
    "MoveResult",
    "Moved",
    "ProjectedBatch",
    "SeatPresenceView",
    "StateCache",
    "new_game_id",
    "project_batch",
    "project_events",
]

#: How often a quiet game's waiters have its version read (once for all of them, by the
#: GameFeed), only to notice a game that expired (a commit's notification wakes them
#: otherwise): rare, so idle streams cost Redis next to nothing.
DEFAULT_STREAM_RECHECK_S = 600.0


def new_game_id() -> str:
    return secrets.token_hex(8)


class GameService:
    """One replica's game service: its rooms (``lobby``, ``moves``, ``deadlines``, ``reads``,
    ``presence``) over what they share (``tables``), and each RPC's entry point."""

    def __init__(
        self,
        store: GameStore,
        *,
        stream_wait_s: float = 1.0,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], bytes] = lambda: secrets.token_bytes(32),
        new_id: Callable[[], str] = new_game_id,
        cache_games: int = DEFAULT_CACHE_GAMES,
        turn_wait_s: float = 30.0,
        metrics: Metrics | None = None,
        stream_recheck_s: float = DEFAULT_STREAM_RECHECK_S,
        bot_delay_s: float = 0.5,
        idle_ttl_s: float = 86400.0,
    ) -> None:
        self.store = store
        self.cache = StateCache(cache_games)
        self.metrics = metrics or Metrics()
        self.tables = tables = Tables(store, self.cache, self.metrics, clock)
        #: The replica's one wait per game, for every stream and call that waits on one.
        self.feed = GameFeed(store, stream_recheck_s)
        committer = Committer(tables, self.feed, bot_delay_ms=int(bot_delay_s * 1000))
        self.presence_of = Presence(tables)
        self.reads = Reads(
            tables,
            self.presence_of,
            self.feed,
            stream_wait_s=stream_wait_s,
            turn_wait_s=turn_wait_s,
        )
        self.moves = Moves(tables, committer, self.presence_of, self.reads)
        self.deadlines = Deadlines(
            tables, committer, bot_delay_ms=int(bot_delay_s * 1000), idle_ms=int(idle_ttl_s * 1000)
        )
        self.lobby = Lobby(tables, committer, self.deadlines, new_seed=new_seed, new_id=new_id)

    def close_streams(self) -> None:
        """Ask every open stream and wait to end cleanly (graceful shutdown)."""
        self.tables.close()  # play streams are told, and end
        self.feed.close()  # the waiting streams and calls wake, see the server closing and end

    # -- the lobby ----------------------------------------------------------------------------

    @staticmethod
    def game_types() -> list[GameType]:
        return Lobby.game_types()

    async def create_game(
        self,
        game_type: str,
        options: Mapping[str, OptionValue],
        seed: bytes | None,
        *,
        time_control: TimeControl | None = None,
        bot_seats: Mapping[int, str] | None = None,
    ) -> GameRecord:
        return await self.lobby.create_game(
            game_type, options, seed, time_control=time_control, bot_seats=bot_seats
        )

    async def list_games(
        self, game_type: str, limit: int, page_token: str
    ) -> tuple[list[GameRecord], str]:
        return await self.lobby.list_games(game_type, limit, page_token)

    async def join_game(
        self, game_id: str, seat: int | None, player_name: str
    ) -> tuple[int, str, GameRecord]:
        return await self.lobby.join_game(game_id, seat, player_name)

    async def leave_game(self, game_id: str, token: str | None) -> GameRecord:
        return await self.lobby.leave_game(game_id, token)

    # -- moves and what the game has scheduled ------------------------------------------------

    async def submit_move(
        self,
        game_id: str,
        token: str | None,
        move: Move,
        *,
        expected_version: int,
        request_id: str,
        seat: int | None = None,
        wait_s: float = 0.0,
    ) -> MoveResult:
        return await self.moves.submit_move(
            game_id,
            token,
            move,
            expected_version=expected_version,
            request_id=request_id,
            seat=seat,
            wait_s=wait_s,
        )

    async def fire_due(self, game_id: str) -> GameRecord | None:
        return await self.deadlines.fire_due(game_id)

    async def end_if_idle(self, game_id: str) -> int | None:
        return await self.deadlines.end_if_idle(game_id)

    # -- reads --------------------------------------------------------------------------------

    def turn_wait(self, remaining_s: float | None) -> float:
        return self.reads.turn_wait(remaining_s)

    async def get_game(
        self,
        game_id: str,
        token: str | None,
        *,
        wait_s: float = 0.0,
        wait_for_turn: bool | None = None,
        after_version: int | None = None,
    ) -> tuple[GameRecord, View]:
        return await self.reads.get_game(
            game_id, token, wait_s=wait_s, wait_for_turn=wait_for_turn, after_version=after_version
        )

    def stream_events(
        self, game_id: str, token: str | None, from_version: int
    ) -> AsyncIterator[ProjectedBatch]:
        return self.reads.stream_events(game_id, token, from_version)

    async def game_record(self, game_id: str) -> tuple[GameRecord, Record]:
        return await self.reads.game_record(game_id)

    async def presence(self, record: GameRecord) -> tuple[SeatPresenceView, ...]:
        return await self.presence_of.of(record)

    def clocks(self, record: GameRecord) -> tuple[SeatClockView, ...]:
        return self.reads.clocks(record)

    async def _state(self, record: GameRecord) -> tuple[Rules[Any], Any]:
        return await self.tables.state(record)

    # -- a seat's play stream (service.play.SeatDesk) ----------------------------------------

    async def open_seat(
        self, game_id: str, token: str | None, news: News
    ) -> tuple[GameRecord, Any, int, Callable[[], None]]:
        if self.tables.closing:
            raise ShuttingDown("the server is shutting down: reconnect")
        record, state, seat = await self.reads.seat_game(game_id, token)
        unfollow = self.feed.follow(game_id, record.version, news)
        unregister = self.tables.on_close(
            lambda: news(ShuttingDown("the server is shutting down: reconnect"))
        )

        def leave() -> None:
            unfollow()
            unregister()

        return record, state, seat, leave

    async def game_at(self, game_id: str, version: int) -> tuple[GameRecord, Any]:
        return await self.tables.at(game_id, version)

    async def batches(self, record: GameRecord, viewer: int, after: int) -> list[ProjectedBatch]:
        return await self.reads.batches(record, viewer, after)

    async def move(
        self,
        game_id: str,
        token: str | None,
        move: Move,
        *,
        expected_version: int,
        request_id: str,
        seat: int | None = None,
    ) -> Moved:
        return await self.moves.move(
            game_id,
            token,
            move,
            expected_version=expected_version,
            request_id=request_id,
            seat=seat,
        )
