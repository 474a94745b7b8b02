"""The transport-free game service: one replica's rooms, put together, behind the one object the
doors (the gRPC servicer, the web door) call.

No gRPC and no protobuf here (the servicer converts), and no rule of any game (the engine
decides). Each RPC is one call into a room (see service/README.md for the plan):

- :mod:`service.lobby` — game types, CreateGame, ListGames, JoinGame, LeaveGame;
- :mod:`service.moves` — SubmitMove and the play stream's moves: the move path;
- :mod:`service.deadlines` — what a game has scheduled (server bots, clocks, idle games), fired
  by any replica's sweeper (:mod:`service.scheduler`);
- :mod:`service.reads` — GetGame (and its waits), StreamEvents, GetGameRecord, clocks;
- :mod:`service.presence` — who is at the table;
- :mod:`service.matchmaking` — QuickPlay, its queue in the store; :mod:`service.rematch` —
  Rematch of an ended game.

Every step a game takes after its opening (a move of any kind, a forfeit, an idle game's end, a
resignation) is written by the one commit builder, :mod:`service.commit`. Everyone on this
replica who waits on a game (event and play streams, ``wait_for_turn``, ``after_version``)
waits in its one feed, :mod:`service.feed`. A seat's play stream (:mod:`service.play`) sees
this object only through its port, :class:`service.play.SeatDesk`.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from service.commit import Committer
from service.deadlines import Deadlines
from service.errors import ShuttingDown, Unauthenticated
from service.feed import GameFeed
from service.identity import Identity
from service.lobby import Lobby
from service.matchmaking import Matchmaking
from service.metrics import Metrics
from service.moves import Moved, Moves
from service.play import News
from service.presence import PRESENCE_WINDOW_MS, Presence
from service.reads import Reads
from service.rematch import Rematches
from service.results import (
    MoveResult,
    ProjectedBatch,
    SeatPresenceView,
    project_batch,
    project_events,
    view_of,
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
    "view_of",
]

#: How often a quiet game's waiters have its version read (once for all of them, by the
#: GameFeed), only to notice a game that expired (a commit's notification wakes them
#: otherwise): rare, so idle streams cost Redis next to nothing.
DEFAULT_STREAM_RECHECK_S = 600.0


def new_game_id() -> str:
    return secrets.token_hex(8)


class GameService:
    """One replica's game service: its rooms (``lobby``, ``moves``, ``deadlines``, ``reads``,
    ``presence``) over what they share (``tables``, ``feed``). Each RPC's entry point is its
    room's own method, named here (``create_game`` is ``lobby.create_game``, and so on), so a
    door calls one object and a room's signature is written once."""

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
        queue_grace_s: float = 10.0,
        queue_poll_s: float = 0.5,
        identity: Identity | None = None,
    ) -> None:
        self.store = store
        self.cache = StateCache(cache_games)
        self.metrics = metrics or Metrics()
        self.tables = tables = Tables(store, self.cache, self.metrics, clock)
        #: The replica's one wait per game, for every stream and call that waits on one.
        self.feed = feed = GameFeed(store, stream_recheck_s)
        #: Writes every step of this replica's games (the service's own ends included:
        #: service.tournaments abandons a cancelled tournament's games through it).
        self.committer = committer = Committer(tables, feed, bot_delay_ms=int(bot_delay_s * 1000))
        here = Presence(tables)
        self.reads = reads = Reads(
            tables, here, feed, stream_wait_s=stream_wait_s, turn_wait_s=turn_wait_s
        )
        self.moves = moves = Moves(tables, committer, here, reads)
        self.deadlines = deadlines = Deadlines(
            tables, committer, bot_delay_ms=int(bot_delay_s * 1000), idle_ms=int(idle_ttl_s * 1000)
        )
        self.lobby = lobby = Lobby(tables, committer, deadlines, new_seed=new_seed, new_id=new_id)
        # The lobby.
        self.game_types = lobby.game_types
        self.create_game = lobby.create_game
        self.create_table = lobby.create_table
        self.revoke_invite = lobby.revoke_invite
        # Finding a game: quick play, a rematch of an ended game (issue 29).
        self.matchmaking = matchmaking = Matchmaking(
            tables, lobby, new_id=new_id, grace_s=queue_grace_s, poll_s=queue_poll_s
        )
        self.quick_play = matchmaking.quick_play
        self.cancel_quick_play = matchmaking.cancel
        self.rematch = Rematches(tables, committer, lobby).rematch
        self.my_games = lobby.my_games
        #: The operator's player tokens' verifier (service.identity); None: no identity.
        self.identity = identity
        self.list_games = lobby.list_games
        self.join_game = lobby.join_game
        self.leave_game = lobby.leave_game
        # Moves, and what the games have scheduled (fired by service.scheduler).
        self.submit_move = moves.submit_move
        self.move = moves.move
        self.fire_due = deadlines.fire_due
        self.end_if_idle = deadlines.end_if_idle
        # Reads.
        self.turn_wait = reads.turn_wait
        self.get_game = reads.get_game
        self.stream_events = reads.stream_events
        self.game_record = reads.game_record
        self.presence = here.of
        self.clocks = reads.clocks
        self._state = tables.state
        # A seat's play stream (service.play.SeatDesk), with open_seat below.
        self.game_at = tables.at
        self.batches = reads.batches

    def player_of(self, token: str | None, *, needed: bool = False) -> str:
        """The player id of a call's player token ("" : none, or no identity on this server,
        where the header is ignored); with ``needed``, none is UNAUTHENTICATED."""
        if self.identity is None:
            if needed:
                raise Unauthenticated(
                    "this server verifies no player tokens (--auth-jwt-secret, --auth-jwks)",
                    reason="MISSING_PLAYER_TOKEN",
                )
            return ""
        if token is None:
            if needed:
                raise Unauthenticated(
                    "this call needs a player token (x-player-token)",
                    reason="MISSING_PLAYER_TOKEN",
                )
            return ""
        return self.identity.player_of(token)

    def close_streams(self) -> None:
        """Ask every open stream and wait to end cleanly (graceful shutdown)."""
        self.tables.close()  # play streams are told, and end
        self.feed.close()  # the waiting streams and calls wake, see the server closing and end

    async def open_seat(
        self, game_id: str, token: str | None, news: News
    ) -> tuple[GameRecord, Any, int, Callable[[], None]]:
        """A seat's play stream opens (see service.play.SeatDesk.open_seat)."""
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
