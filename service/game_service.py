"""The transport-free game service: what every RPC does, in engine and store terms.

No gRPC and no protobuf here (the servicer converts), and no rule of any game (the engine decides).
A move goes through the checks in a fixed order (STYLE.md §7): load → authenticate the seat →
seen request id → expected version → the game accepts moves → the engine's phase, turn and
legality → compare-and-set commit (which also publishes the events). Every rejection raises
before the commit, so a rejected request changes nothing.

A replica keeps decoded copies of the games it serves (:class:`StateCache`). A move that its copy
at the expected version accepts is committed straight away: the store's compare-and-set checks
the request id and the version in the same atomic step, so a copy that is behind costs a refused
commit and a fall back to the full path above, never a wrong answer. Anything unusual (no copy, a
refusal, a retry) takes the full path, which answers as if there were no copy.

``wait_for_turn`` (GetGame and SubmitMove) holds the answer until the caller's seat is to act,
woken when the game's version moves (``GameStore.wait_for_version``), so a bot needs one call
per move.

Everything that leaves is projected for its viewer by :meth:`GameService.project`: a seat, or
None for a spectator. The seed never leaves.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import structlog

from engine import game_names, get_rules
from engine.core.errors import BadSnapshot, EngineError
from engine.core.events import Event, GameOver, event_from_data, event_to_data
from engine.core.moves import Move, move_from_data, move_to_data
from engine.core.options import OptionValue, options_to_data
from engine.core.rules import GameType, Rules
from engine.core.view import View
from engine.record import Record, Step, replay_logged
from service.auth import new_token, seat_of, token_hash
from service.errors import (
    GameNotPlayable,
    InvalidRequest,
    PermissionDenied,
    SeatUnavailable,
    Unauthenticated,
    VersionConflict,
)
from service.metrics import Metrics
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
    RequestSeen,
    SeatRecord,
)

log = structlog.get_logger("tricktable.games")

#: How many games' latest states a replica keeps decoded (see :class:`StateCache`).
DEFAULT_CACHE_GAMES = 4096
#: Event-loop turns a woken waiter gives this replica's committing call (see ``_cached_soon``).
_CACHE_PATIENCE = 4


@dataclass(frozen=True, slots=True)
class MoveResult:
    version: int  # the game's version after the move
    events: list[Event]  # projected for the mover
    view: View
    view_version: int = -1  # the version ``view`` shows (-1: ``version``)

    def __post_init__(self) -> None:
        if self.view_version < 0:
            object.__setattr__(self, "view_version", self.version)


class StateCache:
    """A replica's decoded copies of recently played games: a game's record and engine state
    *at one version*.

    Versions are history: the state at version v is the same on every replica forever (one
    compare-and-set history per game), so an entry is never wrong, only possibly not the latest.
    Only full tables are kept, whose seats can no longer change. A move decided on a cached
    version is committed with the store's compare-and-set on that version, so an entry that is
    behind costs a reload (the commit is refused), never a wrong result.
    """

    def __init__(self, max_games: int = DEFAULT_CACHE_GAMES) -> None:
        self._max = max_games
        self._games: OrderedDict[str, tuple[GameRecord, Any]] = OrderedDict()
        # The move that made a cached version, when this replica committed it: its mover and
        # full events, so play streams on this replica need not read them back from the store.
        self._made: dict[str, tuple[int, int, list[Event]]] = {}

    def get(self, game_id: str, version: int) -> tuple[GameRecord, Any] | None:
        entry = self._games.get(game_id)
        if entry is None or entry[0].version != version:
            return None
        self._games.move_to_end(game_id)
        return entry

    def made(self, game_id: str, version: int) -> tuple[int, list[Event]] | None:
        """The mover and full events of the move that made ``version``, if it is cached."""
        made = self._made.get(game_id)
        if made is None or made[0] != version:
            return None
        return made[1], made[2]

    def put(
        self, record: GameRecord, state: Any, made: tuple[int, list[Event]] | None = None
    ) -> None:
        """Keep the game at ``record``'s version; ``made``: the mover and full events of the
        move this replica committed to reach it."""
        if self._max <= 0 or not record.full:
            return
        held = self._games.get(record.game_id)
        if held is not None and held[0].version > record.version:
            return  # a slower request must not replace a newer entry
        self._games[record.game_id] = (record, state)
        self._games.move_to_end(record.game_id)
        if made is not None:
            self._made[record.game_id] = (record.version, *made)
        while len(self._games) > self._max:
            dropped, _ = self._games.popitem(last=False)
            self._made.pop(dropped, None)

    def drop(self, game_id: str) -> None:
        self._games.pop(game_id, None)
        self._made.pop(game_id, None)


@dataclass(frozen=True, slots=True)
class ProjectedBatch:
    version: int
    seat: int | None
    events: list[Event]
    resigned_seat: int | None

    @property
    def last(self) -> bool:
        """Whether the game ends with this batch: a resignation or the game's end."""
        return self.resigned_seat is not None or any(type(e) is GameOver for e in self.events)


@dataclass(frozen=True, slots=True)
class _MoveRequest:
    game_id: str
    token: str | None
    move: Move
    expected_version: int
    request_id: str
    seat: int | None


#: A committed move: the game's new record, its rules, new state, full events and the mover.
_Committed = tuple[GameRecord, Rules[Any], Any, list[Event], int]


def project_batch(rules: Rules[Any], batch: EventBatch, viewer: int | None) -> ProjectedBatch:
    """A stored batch as ``viewer`` (a seat, or None for a spectator) may see it."""
    events = [rules.project(event_from_data(e), viewer) for e in batch.events]
    return ProjectedBatch(batch.version, batch.seat, events, batch.resigned_seat)


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
        cache_games: int = DEFAULT_CACHE_GAMES,
        turn_wait_s: float = 30.0,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        self.cache = StateCache(cache_games)
        self.metrics = metrics or Metrics()
        self._turn_wait_s = turn_wait_s
        self._stream_wait_s = stream_wait_s
        self._clock = clock
        self._new_seed = new_seed
        self._new_id = new_id
        self._closing = asyncio.Event()
        self._on_close: set[Callable[[], None]] = set()

    def close_streams(self) -> None:
        """Ask every open event stream to end cleanly (graceful shutdown)."""
        self._closing.set()
        for hook in list(self._on_close):
            hook()

    @property
    def stream_wait_s(self) -> float:
        """How long a stream waits for a commit before it looks at the store again."""
        return self._stream_wait_s

    @property
    def closing(self) -> bool:
        return self._closing.is_set()

    def on_close(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Call ``hook`` when the server shuts down (a play stream ends itself then); returns
        what unregisters it."""
        self._on_close.add(hook)
        return lambda: self._on_close.discard(hook)

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
        self.metrics.game_created(game_type)
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

    async def get_game(
        self, game_id: str, token: str | None, *, wait_s: float = 0.0
    ) -> tuple[GameRecord, View]:
        """The caller's view; with ``wait_s`` (a seat's token needed), once the seat is to act
        or the game has ended, or when ``wait_s`` has passed."""
        record = await self.store.load(game_id)
        viewer = self._viewer(record, token)
        if wait_s > 0 and token is None:
            raise Unauthenticated("waiting for a turn needs a seat token", reason="MISSING_TOKEN")
        rules, state = await self._state(record)
        self.cache.put(record, state)
        if wait_s > 0 and viewer is not None:
            record, state = await self._wait_for_turn(record, rules, state, viewer, wait_s)
        return record, rules.view(state, viewer)

    def turn_wait(self, remaining_s: float | None) -> float:
        """How long a wait_for_turn call may wait: the server's limit, within the deadline."""
        if remaining_s is None:
            return self._turn_wait_s
        return max(0.0, min(self._turn_wait_s, remaining_s - 0.05))

    async def _wait_for_turn(
        self, record: GameRecord, rules: Rules[Any], state: Any, seat: int, wait_s: float
    ) -> tuple[GameRecord, Any]:
        """The game once ``seat`` is to act or it has ended; the latest seen after ``wait_s``."""
        deadline = time.monotonic() + wait_s
        while (
            record.status == ACTIVE
            and not state.finished
            and seat not in rules.to_act(state)
            and not self._closing.is_set()
        ):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            wait = min(remaining, self._stream_wait_s)
            version = await self.store.wait_for_version(record.game_id, record.version, wait)
            if version is None:
                continue
            record, state = await self.game_at(record.game_id, version)
        return record, state

    async def game_at(self, game_id: str, version: int) -> tuple[GameRecord, Any]:
        """The game at ``version`` (just notified) or later: this replica's copy when it holds
        that version, else the store's latest, then kept."""
        cached = await self._cached_soon(game_id, version)
        if cached is not None:
            return cached
        record = await self.store.load(game_id)
        _, state = await self._state(record)
        self.cache.put(record, state)
        return record, state

    async def seat_game(self, game_id: str, token: str | None) -> tuple[GameRecord, Any, int]:
        """The game as the store has it now and the token's seat, for that seat's play stream:
        a seat token is needed and the table must be full (before that, the seat's cards are
        not yet its to see)."""
        record = await self.store.load(game_id)
        if token is None:
            raise Unauthenticated("a play stream needs a seat token", reason="MISSING_TOKEN")
        seat = self._seat(record, token)
        assert seat is not None
        if not record.full:
            raise GameNotPlayable("the game waits for players to take every seat")
        _, state = await self._state(record)
        self.cache.put(record, state)
        return record, state, seat

    async def _cached_soon(self, game_id: str, version: int) -> tuple[GameRecord, Any] | None:
        """The cached game at ``version``. Usually this replica committed that move itself, and
        the store's reply to the commit is just behind the event that woke us: a few turns of the
        event loop let that call put its state in the cache, which spares a load."""
        for _ in range(_CACHE_PATIENCE):
            cached = self.cache.get(game_id, version)
            if cached is not None:
                return cached
            await asyncio.sleep(0)
        return self.cache.get(game_id, version)

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
        """Apply one move. With ``wait_s``, the view returned is the game once the mover is to
        act again or it has ended (or when ``wait_s`` has passed); the move is committed first.
        """
        started = time.perf_counter()
        asked = _MoveRequest(game_id, token, move, expected_version, request_id, seat)
        committed: _Committed | MoveResult | None = await self._commit_from_cache(asked)
        if committed is None:
            committed = await self._commit_fresh(asked)
        if isinstance(committed, MoveResult):  # a retried request: the first result
            return committed
        record, rules, new_state, events, mover = committed
        version = record.version
        self.metrics.move_committed(time.perf_counter() - started)
        if record.status != ACTIVE:
            self.metrics.game_ended(record.game_type, record.status)
        # No bound logger per move: binding copies the context even when info is filtered out.
        log.info(
            "move accepted",
            game_id=game_id,
            request_id=request_id,
            seat=mover,
            version=record.version,
            move=move.kind,
        )
        projected = [rules.project(e, mover) for e in events]
        if wait_s > 0:
            record, new_state = await self._wait_for_turn(record, rules, new_state, mover, wait_s)
        return MoveResult(
            version=version,
            events=projected,
            view=rules.view(new_state, mover),
            view_version=record.version,
        )

    async def _commit_from_cache(self, asked: _MoveRequest) -> _Committed | None:
        """The fast path: the move decided and committed on this replica's copy of the game at
        ``expected_version``, with no read from the store. None when anything is not plainly
        fine (no copy, a refusal of any kind, a retried request): the full path then decides,
        and answers exactly as if there had been no copy. A lost compare-and-set is ABORTED
        here, as the full path would answer it."""
        cached = self.cache.get(asked.game_id, asked.expected_version)
        if cached is None or asked.token is None:
            return None
        record, state = cached
        mover = seat_of(asked.token, record.seats)
        if mover is None or asked.seat not in (None, mover) or record.status != ACTIVE:
            return None
        rules = get_rules(record.game_type)
        try:
            new_state, events = rules.apply(state, mover, asked.move)
        except EngineError:
            return None
        try:
            new_record = await self._commit(
                record, rules=rules, new_state=new_state, events=events, mover=mover, asked=asked
            )
        except RequestSeen:
            self.cache.drop(asked.game_id)
            return None
        except VersionConflict:
            # The full path would answer the same: this token's seat at this full table, a
            # request id the store has not seen (it checks that first), another version.
            self.cache.drop(asked.game_id)
            raise
        return new_record, rules, new_state, events, mover

    async def _commit_fresh(self, asked: _MoveRequest) -> _Committed | MoveResult:
        """The full path: every check in order, on the game as the store has it now."""
        game_id, token, move, expected_version, request_id, seat = (
            asked.game_id,
            asked.token,
            asked.move,
            asked.expected_version,
            asked.request_id,
            asked.seat,
        )
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
        self.cache.put(record, state)
        new_state, events = rules.apply(state, mover, move)
        try:
            new_record = await self._commit(
                record, rules=rules, new_state=new_state, events=events, mover=mover, asked=asked
            )
        except RequestSeen as retried:  # the same request, committed by a racing call
            bound.info("move retried", version=retried.version)
            current = await self.store.load(game_id)
            return await self._first_result(current, mover, retried.version)
        return new_record, rules, new_state, events, mover

    async def _commit(
        self,
        record: GameRecord,
        *,
        rules: Rules[Any],
        new_state: Any,
        events: list[Event],
        mover: int,
        asked: _MoveRequest,
    ) -> GameRecord:
        move, request_id = asked.move, asked.request_id
        status = FINISHED if new_state.finished else ACTIVE
        snapshot = rules.snapshot(new_state)
        version = await self.store.commit(
            record.game_id,
            Commit(
                expected_version=record.version,
                snapshot=snapshot,
                batch=EventBatch(
                    version=record.version + 1,
                    seat=mover,
                    events=tuple(event_to_data(e) for e in events),
                    request_id=request_id,
                ),
                status=status,
                move=MoveRecord(seat=mover, move=move_to_data(move), request_id=request_id),
            ),
        )
        new_record = dataclasses.replace(record, version=version, status=status, snapshot=snapshot)
        self.cache.put(new_record, new_state, (mover, events))
        return new_record

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
            view_version=record.version,
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
            batches = await self.store.read_events(game_id, next_version)
            if not batches:
                # Nothing new: wait for a commit the way turn waiters do (with Redis, woken by
                # the replica's one subscription, not a blocking read holding a connection per
                # open stream), then read what it added.
                woken = await self.store.wait_for_version(
                    game_id, next_version - 1, self._stream_wait_s
                )
                if woken is not None:
                    continue
            ended = False
            for batch in batches:
                if batch.version < next_version:
                    continue
                if batch.version > 0:  # moves are made only at a full table
                    viewer = seat
                projected = project_batch(rules, batch, viewer)
                yield projected
                next_version = batch.version + 1
                ended = projected.last
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
        self.cache.drop(game_id)
        self.metrics.game_ended(record.game_type, ABANDONED)
        log.info("seat resigned", game_id=game_id, seat=seat)
        return await self.store.load(game_id)

    async def game_record(self, game_id: str) -> tuple[GameRecord, Record]:
        """An ended game told in full (see engine.record). Refused while the game runs: the
        record shows every hand. The events are the ones stored as the game was played; what
        chance gave is learnt by re-playing the moves from the secret seed, which stays here."""
        game = await self.store.load(game_id)
        if game.status == ACTIVE:
            raise GameNotPlayable(
                "the game has not ended: its record is given once it has",
                reason="GAME_NOT_FINISHED",
            )
        rules = get_rules(game.game_type)
        moves = [(m.seat, move_from_data(m.move)) for m in await self.store.moves(game_id)]
        state, log = replay_logged(rules, game.options, game.seed, moves)
        made = iter(moves)
        steps = []
        for batch in await self.store.read_events(game_id, 0):
            events = tuple(event_from_data(e) for e in batch.events)
            if batch.version == 0 or batch.resigned_seat is not None:
                steps.append(Step(batch.version, batch.seat, None, events, batch.resigned_seat))
            else:
                seat, move = next(made)
                steps.append(Step(batch.version, seat, move, events))
        record = Record(
            game_type=game.game_type,
            options=game.options,
            chance=log.draws,
            deals=log.deals,
            steps=steps,
            outcome=rules.outcome(state),
            resigned_seat=game.resigned_seat,
        )
        return game, record


def _read_page_token(token: str) -> LobbyPosition | None:
    if not token:
        return None
    created, _, game_id = token.partition("-")
    if not created.isdigit() or not game_id:
        raise InvalidRequest("malformed page_token", reason="INVALID_PAGE_TOKEN")
    return int(created), game_id
