"""The transport-free game service: what every RPC does, in engine and store terms.

No gRPC and no protobuf here (the servicer converts), and no rule of any game (the engine decides).
A move goes through the checks in a fixed order (STYLE.md §7): load → authenticate the seat →
seen request id → expected version → the game accepts moves → the engine's phase, turn and
legality → compare-and-set commit (which also publishes the events). Every rejection raises
before the commit, so a rejected request changes nothing.

Everything that leaves is projected for its viewer by :meth:`GameService.project`: a seat, or
None for a spectator. The seed never leaves.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import structlog

from engine import game_names, get_rules
from engine.core.errors import BadSnapshot
from engine.core.events import Event, GameOver, event_from_data, event_to_data
from engine.core.moves import Move, move_from_data, move_to_data
from engine.core.options import OptionValue, options_to_data
from engine.core.rules import GameType, Rules
from engine.core.view import View
from service.auth import new_token, seat_of, token_hash
from service.errors import (
    GameNotPlayable,
    InvalidRequest,
    PermissionDenied,
    SeatUnavailable,
    Unauthenticated,
    VersionConflict,
)
from service.store.base import (
    ABANDONED,
    ACTIVE,
    FINISHED,
    Commit,
    EventBatch,
    GameRecord,
    GameStore,
    LobbyPosition,
    MoveRecord,
    SeatRecord,
)

log = structlog.get_logger("tricktable.games")


@dataclass(frozen=True, slots=True)
class MoveResult:
    version: int
    events: list[Event]  # projected for the mover
    view: View


@dataclass(frozen=True, slots=True)
class ProjectedBatch:
    version: int
    seat: int | None
    events: list[Event]
    resigned_seat: int | None


def new_game_id() -> str:
    return secrets.token_hex(8)


class GameService:
    def __init__(
        self,
        store: GameStore,
        *,
        stream_wait_s: float = 1.0,
        clock: Callable[[], float] = time.time,
        new_seed: Callable[[], bytes] = lambda: secrets.token_bytes(32),
        new_id: Callable[[], str] = new_game_id,
    ) -> None:
        self.store = store
        self._stream_wait_s = stream_wait_s
        self._clock = clock
        self._new_seed = new_seed
        self._new_id = new_id
        self._closing = asyncio.Event()

    def close_streams(self) -> None:
        """Ask every open event stream to end cleanly (graceful shutdown)."""
        self._closing.set()

    # -- game types and the lobby ------------------------------------------------------------

    @staticmethod
    def game_types() -> list[GameType]:
        return [get_rules(name).game_type() for name in game_names()]

    async def create_game(
        self, game_type: str, options: Mapping[str, OptionValue], seed: bytes | None
    ) -> GameRecord:
        rules = get_rules(game_type)
        resolved = options_to_data(rules.options(options))
        seed = seed or self._new_seed()
        state = rules.new_game(resolved, seed)
        record = GameRecord(
            game_id=self._new_id(),
            game_type=game_type,
            options=resolved,
            seed=seed,
            seat_count=rules.seats,
            created_at_ms=int(self._clock() * 1000),
            seats=(None,) * rules.seats,
            snapshot=rules.snapshot(state),
        )
        opening = EventBatch(
            version=0,
            seat=None,
            events=tuple(event_to_data(e) for e in rules.opening_events(state)),
        )
        await self.store.create(record, opening)
        log.info("game created", game_id=record.game_id, game_type=game_type)
        return record

    async def list_games(
        self, game_type: str, limit: int, page_token: str
    ) -> tuple[list[GameRecord], str]:
        """A lobby page and the token of the next one ("" when there is none)."""
        if game_type:
            get_rules(game_type)
        games = await self.store.list_open(game_type, limit + 1, _read_page_token(page_token))
        more = len(games) > limit
        games = games[:limit]
        last = games[-1] if more else None
        return games, f"{last.created_at_ms}-{last.game_id}" if last else ""

    async def join_game(
        self, game_id: str, seat: int | None, player_name: str
    ) -> tuple[int, str, GameRecord]:
        record = await self.store.load(game_id)
        if record.status != ACTIVE:
            raise SeatUnavailable("the game is over", reason="GAME_OVER")
        if seat is not None and not 0 <= seat < record.seat_count:
            raise InvalidRequest(
                f"{record.game_type} has seats 0..{record.seat_count - 1}", reason="UNKNOWN_SEAT"
            )
        wanted = (
            [seat]
            if seat is not None
            else [i for i, taken in enumerate(record.seats) if taken is None]
        )
        token = new_token()
        claim = SeatRecord(token_hash=token_hash(token), player_name=player_name)
        for candidate in wanted:
            if await self.store.take_seat(game_id, candidate, claim):
                log.info("seat taken", game_id=game_id, seat=candidate)
                return candidate, token, await self.store.load(game_id)
        if seat is not None:
            raise SeatUnavailable(f"seat {seat} is taken")
        raise SeatUnavailable("no seat is open", reason="NO_OPEN_SEAT")

    # -- reading and playing -----------------------------------------------------------------

    async def _state(self, record: GameRecord) -> tuple[Rules[Any], Any]:
        rules = get_rules(record.game_type)
        try:
            return rules, rules.restore(record.snapshot)
        except BadSnapshot as exc:
            # The snapshot is a cache; the moves are the truth (DESIGN.md decision 1).
            log.warning("snapshot unreadable; replaying", game_id=record.game_id, why=exc.message)
            moves = [
                (m.seat, move_from_data(m.move)) for m in await self.store.moves(record.game_id)
            ]
            state, _ = rules.replay(record.options, record.seed, moves)
            return rules, state

    @staticmethod
    def _seat(record: GameRecord, token: str | None) -> int | None:
        """The token's seat (None without a token); a token that is no seat's is refused."""
        if token is None:
            return None
        seat = seat_of(token, record.seats)
        if seat is None:
            raise Unauthenticated("the token is not a seat's token at this game")
        return seat

    @classmethod
    def _viewer(cls, record: GameRecord, token: str | None) -> int | None:
        """Whom to project for. A seat sees its cards only once every seat is taken: before
        that a seat can still be left and taken again, and seat-hopping would show one player
        several hands of the same deal. Once full, a table stays full (leaving is resigning)."""
        seat = cls._seat(record, token)
        return seat if record.full else None

    async def get_game(self, game_id: str, token: str | None) -> tuple[GameRecord, View]:
        record = await self.store.load(game_id)
        viewer = self._viewer(record, token)
        rules, state = await self._state(record)
        return record, rules.view(state, viewer)

    async def submit_move(
        self,
        game_id: str,
        token: str | None,
        move: Move,
        *,
        expected_version: int,
        request_id: str,
        seat: int | None = None,
    ) -> MoveResult:
        bound = log.bind(game_id=game_id, request_id=request_id)
        # One round trip for both reads; the request id is only consulted after authentication.
        record, seen = await asyncio.gather(
            self.store.load(game_id), self.store.request_version(game_id, request_id)
        )
        if token is None:
            raise Unauthenticated("a move needs a seat token", reason="MISSING_TOKEN")
        mover = self._seat(record, token)
        assert mover is not None
        bound = bound.bind(seat=mover)
        if seat is not None and seat != mover:
            raise PermissionDenied(f"your token is seat {mover}'s, not seat {seat}'s")
        if seen is not None:
            bound.info("move retried", version=seen)
            return await self._first_result(record, mover, seen)
        if record.version != expected_version:
            raise VersionConflict(record.version)
        if record.status == ABANDONED:
            raise GameNotPlayable("the game was abandoned", reason="GAME_ABANDONED")
        if not record.full:
            raise GameNotPlayable("the game waits for players to take every seat")
        rules, state = await self._state(record)
        new_state, events = rules.apply(state, mover, move)
        version = await self.store.commit(
            game_id,
            Commit(
                expected_version=record.version,
                snapshot=rules.snapshot(new_state),
                batch=EventBatch(
                    version=record.version + 1,
                    seat=mover,
                    events=tuple(event_to_data(e) for e in events),
                    request_id=request_id,
                ),
                status=FINISHED if new_state.finished else ACTIVE,
                move=MoveRecord(seat=mover, move=move_to_data(move), request_id=request_id),
            ),
        )
        bound.info("move accepted", version=version, move=move.kind)
        return MoveResult(
            version=version,
            events=[rules.project(e, mover) for e in events],
            view=rules.view(new_state, mover),
        )

    async def _first_result(self, record: GameRecord, mover: int, version: int) -> MoveResult:
        batch = next(b for b in await self.store.read_events(record.game_id, version))
        if batch.seat != mover:
            raise InvalidRequest(
                "the request id was used by another seat", reason="REQUEST_ID_REUSED"
            )
        rules, state = await self._state(record)
        return MoveResult(
            version=version,
            events=[rules.project(event_from_data(e), mover) for e in batch.events],
            view=rules.view(state, mover),
        )

    async def stream_events(
        self, game_id: str, token: str | None, from_version: int
    ) -> AsyncIterator[ProjectedBatch]:
        """Batches from ``from_version`` on, projected, then live ones as they are committed.
        Ends after the game's last batch, or when the server shuts down."""
        record = await self.store.load(game_id)
        seat = self._seat(record, token)
        viewer = self._viewer(record, token)
        rules = get_rules(record.game_type)
        next_version = from_version
        while not self._closing.is_set():
            batches = await self.store.read_events(game_id, next_version, self._stream_wait_s)
            ended = False
            for batch in batches:
                if batch.version < next_version:
                    continue
                if batch.version > 0:  # moves are made only at a full table
                    viewer = seat
                events = [rules.project(event_from_data(e), viewer) for e in batch.events]
                yield ProjectedBatch(batch.version, batch.seat, events, batch.resigned_seat)
                next_version = batch.version + 1
                ended = batch.resigned_seat is not None or any(type(e) is GameOver for e in events)
            if ended:
                return
            if not batches:
                record = await self.store.load(game_id)
                if record.status != ACTIVE and next_version > record.version:
                    return

    async def leave_game(self, game_id: str, token: str | None) -> GameRecord:
        record = await self.store.load(game_id)
        if token is None:
            raise Unauthenticated("leaving needs a seat token", reason="MISSING_TOKEN")
        seat = self._seat(record, token)
        assert seat is not None
        if record.status != ACTIVE:
            raise GameNotPlayable("the game is over", reason="GAME_OVER")
        if await self.store.free_seat(game_id, seat, token_hash(token)):
            log.info("seat freed", game_id=game_id, seat=seat)
            return await self.store.load(game_id)
        await self.store.commit(
            game_id,
            Commit(
                expected_version=record.version,
                snapshot=record.snapshot,
                batch=EventBatch(version=record.version + 1, seat=seat, resigned_seat=seat),
                status=ABANDONED,
                resigned_seat=seat,
            ),
        )
        log.info("seat resigned", game_id=game_id, seat=seat)
        return await self.store.load(game_id)


def _read_page_token(token: str) -> LobbyPosition | None:
    if not token:
        return None
    created, _, game_id = token.partition("-")
    if not created.isdigit() or not game_id:
        raise InvalidRequest("malformed page_token", reason="INVALID_PAGE_TOKEN")
    return int(created), game_id
