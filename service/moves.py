"""The move path: a seat's move decided and committed (SubmitMove and the play stream).

A move goes through the checks in a fixed order (STYLE.md §7), written once
(:meth:`Moves._decide`): load → authenticate the seat → seen request id → expected version →
the game accepts moves → the engine's phase, turn and legality → compare-and-set commit (by
:class:`~service.commit.Committer`, the one commit builder, which also publishes the events).
Every rejection raises before the commit, so a rejected request changes nothing. SubmitMove and
the play stream (:mod:`service.play`) both make their moves through :meth:`Moves.move`.

A replica keeps decoded copies of the games it serves (:class:`~service.tables.StateCache`). A
move that its copy at the expected version accepts is committed straight away: the same
decision, with the request id left to the store's compare-and-set, which checks it and the
version in the same atomic step, so a copy that is behind costs a refused commit and a fall back
to the full path above, never a wrong answer. Anything unusual (no copy, a refusal, a retry)
takes the full path, which answers as if there were no copy.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import structlog

from engine import get_rules
from engine.core.errors import EngineError
from engine.core.events import Event, event_from_data
from engine.core.moves import Move
from engine.core.rules import Rules
from service.commit import Committer, GameStep, played
from service.errors import (
    GameNotPlayable,
    InvalidRequest,
    PermissionDenied,
    TricktableError,
    Unauthenticated,
    VersionConflict,
)
from service.presence import Presence
from service.reads import Reads
from service.results import MoveResult, project_events
from service.store.base import ABANDONED, GameRecord, RequestSeen
from service.tables import Tables, seat_of_token

log = structlog.get_logger("tricktable.games")


@dataclass(frozen=True, slots=True)
class _MoveRequest:
    game_id: str
    token: str | None
    move: Move
    expected_version: int
    request_id: str
    seat: int | None


@dataclass(frozen=True, slots=True)
class Moved:
    """A move the game accepted and committed: the ``version`` it made, its ``mover`` and full
    ``events`` (not projected), and the game it made (``record``, ``rules``, ``state``). A
    ``retried`` request's is what its first try made, with the game as it is now."""

    version: int
    mover: int
    events: list[Event]
    record: GameRecord
    rules: Rules[Any]
    state: Any
    retried: bool = False


@dataclass(frozen=True, slots=True)
class _Seen:
    """A request id the store has seen: the version its first try made, by ``mover``."""

    mover: int
    version: int


class Moves:
    def __init__(
        self, tables: Tables, committer: Committer, presence: Presence, reads: Reads
    ) -> None:
        self._tables = tables
        self._committer = committer
        self._presence = presence
        self._reads = reads

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
        """Apply one move (:meth:`move`) and answer as SubmitMove does. With ``wait_s``, the view
        returned is the game once the mover is to act again or it has ended (or when ``wait_s``
        has passed); the move is committed first."""
        moved = await self.move(
            game_id,
            token,
            move,
            expected_version=expected_version,
            request_id=request_id,
            seat=seat,
        )
        rules, mover, record, state = moved.rules, moved.mover, moved.record, moved.state
        if wait_s > 0 and not moved.retried:
            record, state = await self._reads.wait_for_turn(record, rules, state, mover, wait_s)
        return MoveResult(
            version=moved.version,
            events=project_events(rules, moved.events, mover),
            view=rules.view(state, mover),
            view_version=record.version,
            clocks=self._reads.clocks(record),
        )

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
        """Decide and commit one move: the one way a player's move is made (SubmitMove and the
        play stream). A request id seen before is answered with what its first try made."""
        started = time.perf_counter()
        asked = _MoveRequest(game_id, token, move, expected_version, request_id, seat)
        moved = await self._move_on_copy(asked) or await self._move_on_stored(asked)
        if moved.retried:
            return moved
        self._tables.metrics.move_committed(time.perf_counter() - started)
        # No bound logger per move: binding copies the context even when debug is filtered out.
        log.debug(
            "move accepted",
            game_id=game_id,
            request_id=request_id,
            seat=moved.mover,
            version=moved.version,
            move=move.kind,
        )
        await self._presence.touch(game_id, moved.mover)
        return moved

    @classmethod
    def _decide(
        cls,
        record: GameRecord,
        rules: Rules[Any],
        state: Any,
        asked: _MoveRequest,
        seen: int | None,
    ) -> GameStep | _Seen:
        """The move's checks, in the order of the module docstring, on ``state`` (the game at
        ``record``'s version): the first refusal raises. ``seen``: the version the request id
        made, if the store has seen it (then that is the answer, ``_Seen``). Else the move
        applied, to be committed on ``record``'s version."""
        checked = cls._checked(record, asked, seen)
        if isinstance(checked, _Seen):
            return checked
        return played(record, rules, state, checked, asked.move, request_id=asked.request_id)

    @staticmethod
    def _checked(record: GameRecord, asked: _MoveRequest, seen: int | None) -> int | _Seen:
        """The checks that read the record alone, the first of :meth:`_decide`'s: the mover's
        seat, or the request id's answer (``_Seen``), or the refusal raised."""
        if asked.token is None:
            raise Unauthenticated("a move needs a seat token", reason="MISSING_TOKEN")
        mover = seat_of_token(record, asked.token)
        assert mover is not None
        if asked.seat is not None and asked.seat != mover:
            raise PermissionDenied(f"your token is seat {mover}'s, not seat {asked.seat}'s")
        if seen is not None:
            return _Seen(mover, seen)
        if record.version != asked.expected_version:
            raise VersionConflict(record.version)
        if record.status == ABANDONED:
            raise GameNotPlayable("the game was abandoned", reason="GAME_ABANDONED")
        if not record.full:
            raise GameNotPlayable("the game waits for players to take every seat")
        return mover

    async def _move_on_copy(self, asked: _MoveRequest) -> Moved | None:
        """The fast path: the move decided on this replica's copy of the game at
        ``expected_version`` and committed, with no read from the store. The request id is left
        to the commit, which checks it first. None when anything is not plainly fine (no copy,
        a refusal of any kind, a retried request): the full path then decides, and answers
        exactly as if there had been no copy. A lost compare-and-set is ABORTED here, as the
        full path would answer it (this token's seat at this full table, a request id the store
        has not seen, another version)."""
        cached = self._tables.cache.get(asked.game_id, asked.expected_version)
        if cached is None:
            return None
        record, state = cached
        try:
            decided = self._decide(record, get_rules(record.game_type), state, asked, None)
        except (TricktableError, EngineError):
            return None  # refused in the full path's order (the request may be a retry)
        assert isinstance(decided, GameStep)
        # A lost compare-and-set (VersionConflict) is raised and keeps the copy: a copy is never
        # wrong, only behind, and the move that won may be this replica's, kept there already
        # (seats laying aside at once race so: dropping it made the other seat's stream restore
        # the game from the store).
        try:
            return await self._commit(decided)
        except RequestSeen:
            self._tables.cache.drop(asked.game_id)
            return None

    async def _move_on_stored(self, asked: _MoveRequest) -> Moved:
        """The full path: the move decided on the game as the store has it now."""
        tables = self._tables
        # One round trip for both reads; the request id is only consulted after authentication.
        record, seen = await asyncio.gather(
            tables.store.load(asked.game_id),
            tables.store.request_version(asked.game_id, asked.request_id),
        )
        # The record's checks before the game is restored from its snapshot (what most of a
        # refused move cost: a stale version, another seat's token, a game not under way), in
        # the same order: issue 25's flood of stale moves restored a game for each.
        checked = self._checked(record, asked, seen)
        rules, state = await tables.state(record)
        decided = (
            checked
            if isinstance(checked, _Seen)
            else played(record, rules, state, checked, asked.move, request_id=asked.request_id)
        )
        if isinstance(decided, _Seen):
            log.info(
                "move retried",
                game_id=asked.game_id,
                request_id=asked.request_id,
                seat=decided.mover,
                version=decided.version,
            )
            return await self._first_result(record, rules, state, decided)
        tables.cache.put(record, state)
        try:
            return await self._commit(decided)
        except RequestSeen as retried:  # the same request, committed by a racing call
            log.info(
                "move retried",
                game_id=asked.game_id,
                request_id=asked.request_id,
                seat=decided.seat,
                version=retried.version,
            )
            assert decided.seat is not None
            current = await tables.store.load(asked.game_id)
            rules, state = await tables.state(current)
            return await self._first_result(
                current, rules, state, _Seen(decided.seat, retried.version)
            )

    async def _commit(self, step: GameStep) -> Moved:
        """Commit a decided move on the version it was decided on (compare-and-set); the
        committed move, whose record is the game it made."""
        made = await self._committer.commit(step)
        assert step.seat is not None and step.rules is not None
        return Moved(made.version, step.seat, step.events, made.record, step.rules, made.state)

    async def _first_result(
        self, record: GameRecord, rules: Rules[Any], state: Any, seen: _Seen
    ) -> Moved:
        """A retried request's answer: what its first try made (its events, as stored), with
        the game as it is now."""
        batch = next(b for b in await self._tables.store.read_events(record.game_id, seen.version))
        if batch.seat != seen.mover:
            raise InvalidRequest(
                "the request id was used by another seat", reason="REQUEST_ID_REUSED"
            )
        events = [event_from_data(e) for e in batch.events]
        return Moved(seen.version, seen.mover, events, record, rules, state, retried=True)
