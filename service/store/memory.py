"""``MemoryStore``: the embedded default. One process, no persistence, the full contract.

Every method runs without awaiting between its reads and writes, so on one event loop each call
is atomic, which is all the compare-and-set needs. Games expire like in Redis: a finished or
abandoned game is dropped ``finished_ttl_s`` seconds after its last step, and with ``open_ttl_s``
a game whose seats never all fill is dropped that long after its creation (checked lazily).

The deadline index is the games' own deadlines, kept by the same step that writes a game's
timing and dropped by the step that ends it, so it is never stale: :meth:`MemoryStore.done`
only forgets the games that are gone.
"""

from __future__ import annotations

import asyncio
import dataclasses
import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from service.errors import GameNotFound, VersionConflict
from service.store.base import (
    ACTIVE,
    IDLE,
    Commit,
    Due,
    EventBatch,
    Filled,
    GameExists,
    GameRecord,
    GameStore,
    LobbyPosition,
    MoveRecord,
    RequestSeen,
    SeatRecord,
    Timing,
)


@dataclass
class _Game:
    record: GameRecord
    moves: list[MoveRecord] = field(default_factory=list)
    batches: list[EventBatch] = field(default_factory=list)
    requests: dict[str, int] = field(default_factory=dict)
    seen: dict[int, int] = field(default_factory=dict)  # seat -> last seen (presence)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    expires_at: float | None = None


class MemoryStore(GameStore):
    def __init__(
        self,
        finished_ttl_s: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
        open_ttl_s: float = 0.0,
    ) -> None:
        self._games: dict[str, _Game] = {}
        self._deadlines: dict[str, int] = {}  # game id -> its timing's deadline
        self._idle: dict[str, int] = {}  # game id -> when it counts as deserted, as indexed
        self._ttl = finished_ttl_s
        self._open_ttl = open_ttl_s  # 0: a game waiting for players never expires
        self._clock = clock

    def _get(self, game_id: str) -> _Game:
        game = self._games.get(game_id)
        if game is not None and game.expires_at is not None and self._clock() >= game.expires_at:
            del self._games[game_id]
            self._deadlines.pop(game_id, None)
            self._idle.pop(game_id, None)
            game = None
        if game is None:
            raise GameNotFound(game_id)
        return game

    async def create(self, game: GameRecord, opening: EventBatch) -> None:
        if game.game_id in self._games:
            raise GameExists(game.game_id)
        expires = self._clock() + self._open_ttl if self._open_ttl > 0 and not game.full else None
        self._games[game.game_id] = _Game(record=game, batches=[opening], expires_at=expires)
        if game.timing is not None:
            self._schedule(game.game_id, game.timing)

    async def load(self, game_id: str) -> GameRecord:
        return self._get(game_id).record

    async def moves(self, game_id: str) -> list[MoveRecord]:
        return list(self._get(game_id).moves)

    async def commit(self, game_id: str, step: Commit) -> int:
        game = self._get(game_id)
        seen = game.requests.get(step.batch.request_id) if step.batch.request_id else None
        if seen is not None:
            raise RequestSeen(seen)
        current = game.record.version
        if current != step.expected_version:
            raise VersionConflict(current)
        version = current + 1
        game.record = dataclasses.replace(
            game.record,
            version=version,
            snapshot=step.snapshot,
            status=step.status,
            resigned_seat=step.resigned_seat
            if step.resigned_seat is not None
            else game.record.resigned_seat,
            timing=step.timing if step.timing is not None else game.record.timing,
            moved_at_ms=step.at_ms or game.record.moved_at_ms,
        )
        if step.timing is not None:
            self._schedule(game_id, step.timing)
        if step.move is not None:
            game.moves.append(step.move)
        if step.batch.request_id:
            game.requests[step.batch.request_id] = version
        game.batches.append(dataclasses.replace(step.batch, version=version))
        if step.status != ACTIVE:
            game.expires_at = self._clock() + self._ttl
            self._deadlines.pop(game_id, None)  # an ended game has nothing left to fire
            self._idle.pop(game_id, None)
        self._wake(game)
        return version

    @staticmethod
    def _wake(game: _Game) -> None:
        # Waiters hold the old event; a fresh one is armed for the next step.
        game.changed.set()
        game.changed = asyncio.Event()

    async def request_version(self, game_id: str, request_id: str) -> int | None:
        return self._get(game_id).requests.get(request_id)

    async def take_seat(
        self, game_id: str, seat: int, record: SeatRecord, filled: Filled | None = None
    ) -> bool:
        game = self._get(game_id)
        seats = list(game.record.seats)
        if seats[seat] is not None:
            return False
        seats[seat] = record
        game.record = dataclasses.replace(game.record, seats=tuple(seats))
        if game.record.full and game.record.status == ACTIVE:
            game.expires_at = None  # a full table is kept until it finishes
            if filled is not None:
                game.record = dataclasses.replace(
                    game.record, timing=filled.timing, moved_at_ms=filled.at_ms
                )
                if filled.timing is not None:
                    self._schedule(game_id, filled.timing)
                if filled.idle_deadline_ms is not None:
                    self._idle[game_id] = filled.idle_deadline_ms
        return True

    def _schedule(self, game_id: str, timing: Timing) -> None:
        if timing.deadline_ms is None:
            self._deadlines.pop(game_id, None)
        else:
            self._deadlines[game_id] = timing.deadline_ms

    async def due(self, now_ms: int, limit: int) -> list[Due]:
        ready = [(d, g, "") for g, d in self._deadlines.items() if d <= now_ms]
        ready += [(d, g, IDLE) for g, d in self._idle.items() if d <= now_ms]
        return [
            Due(g, d, kind=kind) if kind else Due(g, d)
            for d, g, kind in heapq.nsmallest(limit, ready)
        ]

    async def done(self, entry: Due, later_ms: int | None = None) -> None:
        if entry.kind == IDLE:
            watched = self._idle.get(entry.game_id)
            if watched is not None and later_ms is not None:  # still indexed: not ended since
                self._idle[entry.game_id] = max(watched, later_ms)
            elif watched == entry.deadline_ms:  # not watched again since
                del self._idle[entry.game_id]
            return
        # The index is the games' own deadlines, so only a game that is gone leaves one behind.
        try:
            self._get(entry.game_id)
        except GameNotFound:
            self._deadlines.pop(entry.game_id, None)

    async def touch(self, game_id: str, seat: int, now_ms: int) -> None:
        self._get(game_id).seen[seat] = now_ms

    async def seen(self, game_id: str) -> dict[int, int]:
        return dict(self._get(game_id).seen)

    async def watch_idle(self, game_id: str, deadline_ms: int) -> None:
        self._idle[game_id] = max(self._idle.get(game_id, deadline_ms), deadline_ms)

    async def next_deadline(self) -> int | None:
        return min((*self._deadlines.values(), *self._idle.values()), default=None)

    async def free_seat(self, game_id: str, seat: int, token_hash: str) -> bool:
        game = self._get(game_id)
        record = game.record
        taken = record.seats[seat]
        if record.full or record.version != 0 or taken is None or taken.token_hash != token_hash:
            return False
        seats = list(record.seats)
        seats[seat] = None
        game.record = dataclasses.replace(record, seats=tuple(seats))
        return True

    async def read_events(self, game_id: str, from_version: int) -> list[EventBatch]:
        return self._get(game_id).batches[max(from_version, 0) :]

    async def wait_for_version(self, game_id: str, after: int, wait_s: float) -> int | None:
        game = self._get(game_id)
        if game.record.version <= after and wait_s > 0:
            changed = game.changed  # set, and replaced, by the next commit
            try:
                await asyncio.wait_for(changed.wait(), wait_s if math.isfinite(wait_s) else None)
            except TimeoutError:
                return None
            game = self._get(game_id)
        latest = game.record.version
        return latest if latest > after else None

    async def list_open(
        self, game_type: str, limit: int, after: LobbyPosition | None = None
    ) -> list[GameRecord]:
        records = []
        for game_id in list(self._games):
            try:
                records.append(self._get(game_id).record)
            except GameNotFound:  # expired just now
                continue
        out = [
            r
            for r in sorted(records, key=lambda r: (r.created_at_ms, r.game_id))
            if not r.full
            and r.status == ACTIVE
            and (not game_type or r.game_type == game_type)
            and (after is None or (r.created_at_ms, r.game_id) > after)
        ]
        return out[:limit]
