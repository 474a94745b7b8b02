"""The transport-free game service: what every RPC does, in engine and store terms.

No gRPC and no protobuf here (the servicer converts), and no rule of any game (the engine decides).
A move goes through the checks in a fixed order (STYLE.md §7), written once
(:meth:`GameService._decide`): load → authenticate the seat → seen request id → expected
version → the game accepts moves → the engine's phase, turn and legality → compare-and-set
commit (which also publishes the events). Every rejection raises before the commit, so a
rejected request changes nothing. SubmitMove and the play stream (:mod:`service.play`) both make
their moves through :meth:`GameService.move`.

A replica keeps decoded copies of the games it serves (:class:`StateCache`). A move that its copy
at the expected version accepts is committed straight away: the same decision, with the request
id left to the store's compare-and-set, which checks it and the version in the same atomic step,
so a copy that is behind costs a refused commit and a fall back to the full path above, never a
wrong answer. Anything unusual (no copy, a refusal, a retry) takes the full path, which answers
as if there were no copy.

``wait_for_turn`` (GetGame and SubmitMove) holds the answer until the caller's seat is to act,
woken when the game's version moves (``GameStore.wait_for_version``), so a bot needs one call
per move.

Everything that leaves is projected for its viewer, a seat or None for a spectator, by the
game's rules: events by :func:`project_events` (``Rules.project``), the game by ``Rules.view``.
The seed never leaves.

Clocks and server bots (:mod:`service.clocks`, :mod:`service.turns`): in a game with a time
control or bot seats every commit also writes what the game has scheduled (its clocks and next
deadline), in the same compare-and-set step (DESIGN.md decision 9). A deadline that comes (a
clock running out, a bot's turn) is fired by :meth:`GameService.fire_due`, called by any
replica's sweeper (:mod:`service.scheduler`): an ordinary commit on the version, so it happens
once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import structlog

from engine import game_names, get_rules
from engine.core.errors import BadSnapshot, EngineError
from engine.core.events import (
    Event,
    GameAbandoned,
    GameOver,
    event_from_data,
    event_to_data,
)
from engine.core.moves import Move, move_from_data
from engine.core.options import OptionValue, options_to_data
from engine.core.rules import GameType, Rules
from engine.core.view import View
from engine.record import Record, Step, replay_logged
from service import clocks as clock_rules
from service import turns
from service.auth import new_token, seat_of, token_hash
from service.clocks import SeatClockView, TimeControl
from service.commit import Committer, GameStep, idle_ended, played, resigned
from service.errors import (
    GameNotPlayable,
    InvalidRequest,
    PermissionDenied,
    SeatUnavailable,
    TricktableError,
    Unauthenticated,
    VersionAhead,
    VersionConflict,
)
from service.event_feed import DecodedBatch, EventFeed
from service.game_watch import GameWatch
from service.metrics import Metrics
from service.store.base import (
    ABANDONED,
    ACTIVE,
    EventBatch,
    Filled,
    GameRecord,
    GameStore,
    LobbyPosition,
    RequestSeen,
    SeatRecord,
    Timing,
)
from service.tables import DEFAULT_CACHE_GAMES, StateCache, Tables

__all__ = [
    "PRESENCE_WINDOW_MS",
    "GameService",
    "MoveResult",
    "Moved",
    "ProjectedBatch",
    "SeatPresenceView",
    "StateCache",
    "project_batch",
    "project_events",
]

log = structlog.get_logger("tricktable.games")

#: How often a game's idle event streams have its version read (once for all of them, by the
#: EventFeed), only to notice a game that expired (a commit's notification wakes them
#: otherwise): rare, so idle streams cost Redis next to nothing.
DEFAULT_STREAM_RECHECK_S = 600.0
#: A seat counts as connected this long after it was last seen (a call, or an open stream).
PRESENCE_WINDOW_MS = 5000
#: A replica notes a seat as seen at most this often (presence is a store write).
_TOUCH_EVERY_MS = 1000
_TOUCHED_MAX = 65_536


@dataclass(frozen=True, slots=True)
class SeatPresenceView:
    seat: int
    connected: bool
    last_seen_ms: int


@dataclass(frozen=True, slots=True)
class MoveResult:
    version: int  # the game's version after the move
    events: list[Event]  # projected for the mover
    view: View
    view_version: int = -1  # the version ``view`` shows (-1: ``version``)
    clocks: tuple[SeatClockView, ...] = ()  # at the version ``view`` shows (clocked games)

    def __post_init__(self) -> None:
        if self.view_version < 0:
            object.__setattr__(self, "view_version", self.version)


@dataclass(frozen=True, slots=True)
class ProjectedBatch:
    version: int
    seat: int | None
    events: list[Event]
    resigned_seat: int | None
    # The transport's encoding of this batch, made once: every stream woken by one commit that
    # projects for the same viewer receives this very object (see stream_events).
    encoded: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False)

    @property
    def last(self) -> bool:
        """Whether the game ends with this batch: a resignation, an abandonment (a forfeit on
        the clock, an idle game) or the game's end."""
        return self.resigned_seat is not None or any(
            type(e) is GameOver or type(e) is GameAbandoned for e in self.events
        )


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
    """A move the game accepted: the ``version`` it makes, its ``mover`` and full ``events``
    (not projected), and the game after it (``record``, ``rules``, ``state``). Decided, the
    record is still the game the move was decided on; committed, the game the move made. A
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


def project_events(rules: Rules[Any], events: list[Event], viewer: int | None) -> list[Event]:
    """``events`` as ``viewer`` (a seat, or None for a spectator) may see them."""
    return [rules.project(e, viewer) for e in events]


def project_batch(rules: Rules[Any], batch: EventBatch, viewer: int | None) -> ProjectedBatch:
    """A stored batch as ``viewer`` may see it."""
    events = project_events(rules, [event_from_data(e) for e in batch.events], viewer)
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
        stream_recheck_s: float = DEFAULT_STREAM_RECHECK_S,
        bot_delay_s: float = 0.5,
        idle_ttl_s: float = 86400.0,
    ) -> None:
        self.store = store
        self.cache = StateCache(cache_games)
        self.metrics = metrics or Metrics()
        self._turn_wait_s = turn_wait_s
        self._bot_delay_ms = int(bot_delay_s * 1000)  # before a server bot moves
        self._idle_ms = int(idle_ttl_s * 1000)  # a full game with no step this long ends (0: never)
        self._stream_wait_s = stream_wait_s
        self._clock = clock
        self._new_seed = new_seed
        self._new_id = new_id
        self._closing = asyncio.Event()
        self._on_close: set[Callable[[], None]] = set()
        self._feed = EventFeed(store, stream_recheck_s)
        #: The play streams' one wait per game (see service.game_watch).
        self.watch = GameWatch(store, stream_wait_s)
        self._touched: dict[tuple[str, int], int] = {}  # (game, seat) -> when this replica noted it
        self.tables = Tables(store, self.cache, self.metrics, clock)
        self._committer = Committer(self.tables, bot_delay_ms=self._bot_delay_ms)

    def close_streams(self) -> None:
        """Ask every open event stream to end cleanly (graceful shutdown)."""
        self._closing.set()
        for hook in list(self._on_close):
            hook()
        self._feed.close()  # the waiting streams wake, see the server closing and end
        self.watch.close()

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
        self,
        game_type: str,
        options: Mapping[str, OptionValue],
        seed: bytes | None,
        *,
        time_control: TimeControl | None = None,
        bot_seats: Mapping[int, str] | None = None,
    ) -> GameRecord:
        """A new game. ``bot_seats`` (seat -> "random" or "heuristic") are taken at once by the
        server's reference bots, which play them with no token (see service.turns)."""
        rules = get_rules(game_type)
        resolved = options_to_data(rules.options(options))
        try:
            bots = turns.bot_kinds(bot_seats or {}, rules.seats)
        except ValueError as bad:
            raise InvalidRequest(str(bad), reason="INVALID_BOT_SEATS") from None
        seed = seed or self._new_seed()
        state = rules.new_game(resolved, seed)
        record = GameRecord(
            game_id=self._new_id(),
            game_type=game_type,
            options=resolved,
            seed=seed,
            seat_count=rules.seats,
            created_at_ms=int(self._clock() * 1000),
            seats=tuple(
                SeatRecord(token_hash="", player_name=bots[n], bot=bots[n]) if n in bots else None
                for n in range(rules.seats)
            ),
            snapshot=rules.snapshot(state),
            time_control=time_control.to_data() if time_control is not None else None,
        )
        if record.full:  # bots in every seat: play begins now
            record = dataclasses.replace(
                record,
                timing=self._timing(record, rules.to_act(state)),
                moved_at_ms=self._now_ms(),
            )
            idle = self._idle_deadline(record.moved_at_ms)
            if idle is not None:
                await self.store.watch_idle(record.game_id, idle)
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
        # Written only by the take that fills the table: the clocks start when play can.
        filled = Filled(
            at_ms=self._now_ms(),
            timing=await self._first_timing(record),
            idle_deadline_ms=self._idle_deadline(self._now_ms()),
        )
        for candidate in wanted:
            if await self.store.take_seat(game_id, candidate, claim, filled):
                log.info("seat taken", game_id=game_id, seat=candidate)
                return candidate, token, await self.store.load(game_id)
        if seat is not None:
            raise SeatUnavailable(f"seat {seat} is taken")
        raise SeatUnavailable("no seat is open", reason="NO_OPEN_SEAT")

    # -- clocks and server bots ---------------------------------------------------------------

    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def _timing(
        self,
        record: GameRecord,
        must_act: tuple[int, ...],
        *,
        mover: int | None = None,
        timed_out: int | None = None,
    ) -> Timing | None:
        """The game's timing after a step (see service.turns.next_timing)."""
        return turns.next_timing(
            record,
            must_act,
            self._now_ms(),
            bot_delay_ms=self._bot_delay_ms,
            mover=mover,
            timed_out=timed_out,
        )

    async def _first_timing(self, record: GameRecord) -> Timing | None:
        """The timing of a game whose table fills now (None if it schedules nothing)."""
        if not turns.scheduled(record):
            return None
        rules, state = await self._state(record)
        return self._timing(dataclasses.replace(record, timing=None), rules.to_act(state))

    def _idle_deadline(self, moved_at_ms: int) -> int | None:
        return moved_at_ms + self._idle_ms if self._idle_ms > 0 else None

    async def end_if_idle(self, game_id: str) -> int | None:
        """End the game as abandoned if every seat is taken and no step has come for the idle
        time (a ``GameAbandoned("idle")`` version, by compare-and-set: a racing move wins or
        loses it whole). Returns the later deadline to watch when the game has moved since,
        else None (ended now, already over, not full, or gone)."""
        record = await self.store.load(game_id)
        deadline = self._idle_deadline(record.moved_at_ms)
        if record.status != ACTIVE or not record.full or deadline is None:
            return None
        if deadline > self._now_ms():
            return deadline
        try:
            await self._committer.commit(idle_ended(record))
        except VersionConflict:
            return self._idle_deadline(self._now_ms())  # it moved: look again that much later
        log.info("idle game ended", game_id=game_id, version=record.version + 1)
        return None

    async def _touch(self, game_id: str, seat: int | None) -> None:
        """Note the seat as present (throttled: a store write at most every second or so)."""
        if seat is None:
            return
        now = self._now_ms()
        key = (game_id, seat)
        if now - self._touched.get(key, -_TOUCH_EVERY_MS) < _TOUCH_EVERY_MS:
            return
        if len(self._touched) >= _TOUCHED_MAX:
            self._touched.clear()  # only a throttle: forgetting costs one more write each
        self._touched[key] = now
        await self.store.touch(game_id, seat, now)

    async def presence(self, record: GameRecord) -> tuple[SeatPresenceView, ...]:
        """Each seat's presence now: a seat seen in the last few seconds (by any replica) is
        connected; a server bot's seat always is."""
        seen = await self.store.seen(record.game_id)
        now = self._now_ms()
        return tuple(
            SeatPresenceView(
                seat=n,
                connected=bool(s is not None and s.bot)
                or now - seen.get(n, -PRESENCE_WINDOW_MS - 1) <= PRESENCE_WINDOW_MS,
                last_seen_ms=seen.get(n, 0),
            )
            for n, s in enumerate(record.seats)
        )

    def clocks(self, record: GameRecord) -> tuple[SeatClockView, ...]:
        """Every seat's clock now, as anyone may see it (empty in a game without a clock)."""
        held = turns.clocks_of(record)
        if held is None:
            return ()
        return clock_rules.views(*held, self._now_ms())

    async def fire_due(self, game_id: str) -> GameRecord | None:
        """Do what the game has scheduled, if it has come: a server bot's move when a bot seat
        must act, else the clock that ran out (with AUTO_MOVE the move the policy picks, after
        a ``TimedOut`` event; with FORFEIT, or at the ``forfeit_after``-th timeout, the seat's
        resignation). One compare-and-set commit on the version read, so a racing move or
        another replica's firing wins or loses it whole. Returns the game after the step, or
        None when nothing was due (the game moved on or ended) or the commit lost the race."""
        record = await self.store.load(game_id)
        now = self._now_ms()
        timing = record.timing
        if (
            record.status != ACTIVE
            or timing is None
            or timing.deadline_ms is None
            or timing.deadline_ms > now
        ):
            return None
        rules, state = await self._state(record)
        version = record.version + 1
        bot = turns.bot_to_move(record, rules.to_act(state))
        seat: int
        if bot is not None:
            seat = bot
            kind = record.seats[seat].bot  # type: ignore[union-attr]
            move = turns.bot_move(kind, rules, state, seat, seed=record.seed, version=version)
            step = played(record, rules, state, seat, move)
        else:
            held = turns.clocks_of(record)
            due = clock_rules.next_timeout(*held) if held is not None else None
            if held is None or due is None or due[0] > now:
                return None
            tc, clocks = held
            seat = due[1]
            if clock_rules.policy_for(tc, clocks, seat) == clock_rules.FORFEIT:
                step = resigned(record, seat, on_time=True)
            else:
                move = turns.auto_move(rules, state, seat, record.seed, version)
                step = played(record, rules, state, seat, move, on_time=True)
        try:
            fired = (await self._committer.commit(step)).record
        except VersionConflict:
            return None  # a move, or another replica's firing, came first
        late_s = (self._now_ms() - timing.deadline_ms) / 1000
        self.metrics.deadline_fired("bot" if bot is not None else "timeout", late_s)
        log.info(
            "server moved" if bot is not None else "clock ran out",
            game_id=game_id,
            seat=seat,
            version=version,
            status=fired.status,
        )
        return fired

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
        self,
        game_id: str,
        token: str | None,
        *,
        wait_s: float = 0.0,
        wait_for_turn: bool | None = None,
        after_version: int | None = None,
    ) -> tuple[GameRecord, View]:
        """The caller's view. Within ``wait_s``: with ``after_version`` (anyone, spectators
        too), once the game's version is later than it or the game has ended; with
        ``wait_for_turn`` (a seat's token needed; the default when ``wait_s`` is given without
        ``after_version``), once the seat must act or the game has ended. Both: the one, then
        the other."""
        if wait_for_turn is None:
            wait_for_turn = wait_s > 0 and after_version is None
        record = await self.store.load(game_id)
        viewer = self._viewer(record, token)
        await self._touch(game_id, self._seat(record, token))
        if wait_for_turn and token is None:
            raise Unauthenticated("waiting for a turn needs a seat token", reason="MISSING_TOKEN")
        rules, state = await self._state(record)
        self.cache.put(record, state)
        deadline = time.monotonic() + wait_s
        if wait_s > 0 and after_version is not None:
            record, state = await self._wait_for_change(
                record, rules, state, after_version, wait_s, seat=self._seat(record, token)
            )
            viewer = self._viewer(record, token)
        if wait_for_turn and viewer is not None:
            left = deadline - time.monotonic()
            record, state = await self._wait_for_turn(record, rules, state, viewer, left)
        return record, rules.view(state, viewer)

    async def _wait_for_change(
        self,
        record: GameRecord,
        rules: Rules[Any],
        state: Any,
        after: int,
        wait_s: float,
        *,
        seat: int | None = None,
    ) -> tuple[GameRecord, Any]:
        """The game once its version is later than ``after`` or it has ended; the latest seen
        after ``wait_s``. A waiting seat stays present."""
        return await self._wait_until(
            record, state, lambda r, _: r.version > after, wait_s, seat=seat
        )

    def turn_wait(self, remaining_s: float | None) -> float:
        """How long a wait_for_turn call may wait: the server's limit, within the deadline."""
        if remaining_s is None:
            return self._turn_wait_s
        return max(0.0, min(self._turn_wait_s, remaining_s - 0.05))

    async def _wait_for_turn(
        self, record: GameRecord, rules: Rules[Any], state: Any, seat: int, wait_s: float
    ) -> tuple[GameRecord, Any]:
        """The game once ``seat`` must act or it has ended; the latest seen after ``wait_s``.
        A seat offered only optional moves (``may_act``) is not woken for them. A waiting seat
        stays present."""
        return await self._wait_until(
            record, state, lambda _, st: st.finished or seat in rules.to_act(st), wait_s, seat=seat
        )

    async def _wait_until(
        self,
        record: GameRecord,
        state: Any,
        done: Callable[[GameRecord, Any], bool],
        wait_s: float,
        *,
        seat: int | None,
    ) -> tuple[GameRecord, Any]:
        """The one way a call waits on a game: until ``done`` (or the game has ended, or the
        server shuts down), woken by the store's notification of each new version; the latest
        seen after ``wait_s``. A waiting seat stays present."""
        deadline = time.monotonic() + wait_s
        while record.status == ACTIVE and not done(record, state) and not self._closing.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            await self._touch(record.game_id, seat)
            wait = min(remaining, self._stream_wait_s)
            version = await self.store.wait_for_version(record.game_id, record.version, wait)
            if version is not None:
                record, state = await self.game_at(record.game_id, version)
        return record, state

    async def game_at(self, game_id: str, version: int) -> tuple[GameRecord, Any]:
        """The game at ``version`` (just notified) or later: this replica's copy when it holds
        that version or a later one (a seat's next move may be committed before the stream that
        waits on this one runs: a restore from the store then costs more than reading the
        versions in between), else the store's latest, then kept. A move this replica committed
        is in its copy before any waiter hears of it: the store wakes this process's waiters
        when the commit returns, and the committing call keeps the new state before it next
        awaits."""
        cached = self.cache.at_least(game_id, version)
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
            record, state = await self._wait_for_turn(record, rules, state, mover, wait_s)
        return MoveResult(
            version=moved.version,
            events=project_events(rules, moved.events, mover),
            view=rules.view(state, mover),
            view_version=record.version,
            clocks=self.clocks(record),
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
        record = moved.record
        self.metrics.move_committed(time.perf_counter() - started)
        # No bound logger per move: binding copies the context even when debug is filtered out.
        log.debug(
            "move accepted",
            game_id=game_id,
            request_id=request_id,
            seat=moved.mover,
            version=record.version,
            move=move.kind,
        )
        await self._touch(game_id, moved.mover)
        return moved

    def _decide(
        self,
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
        if asked.token is None:
            raise Unauthenticated("a move needs a seat token", reason="MISSING_TOKEN")
        mover = self._seat(record, asked.token)
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
        return played(record, rules, state, mover, asked.move, request_id=asked.request_id)

    async def _move_on_copy(self, asked: _MoveRequest) -> Moved | None:
        """The fast path: the move decided on this replica's copy of the game at
        ``expected_version`` and committed, with no read from the store. The request id is left
        to the commit, which checks it first. None when anything is not plainly fine (no copy,
        a refusal of any kind, a retried request): the full path then decides, and answers
        exactly as if there had been no copy. A lost compare-and-set is ABORTED here, as the
        full path would answer it (this token's seat at this full table, a request id the store
        has not seen, another version)."""
        cached = self.cache.get(asked.game_id, asked.expected_version)
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
            self.cache.drop(asked.game_id)
            return None

    async def _move_on_stored(self, asked: _MoveRequest) -> Moved:
        """The full path: the move decided on the game as the store has it now."""
        # One round trip for both reads; the request id is only consulted after authentication.
        record, seen = await asyncio.gather(
            self.store.load(asked.game_id),
            self.store.request_version(asked.game_id, asked.request_id),
        )
        rules, state = await self._state(record)
        decided = self._decide(record, rules, state, asked, seen)
        if isinstance(decided, _Seen):
            log.info(
                "move retried",
                game_id=asked.game_id,
                request_id=asked.request_id,
                seat=decided.mover,
                version=decided.version,
            )
            return await self._first_result(record, rules, state, decided)
        self.cache.put(record, state)
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
            current = await self.store.load(asked.game_id)
            rules, state = await self._state(current)
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
        batch = next(b for b in await self.store.read_events(record.game_id, seen.version))
        if batch.seat != seen.mover:
            raise InvalidRequest(
                "the request id was used by another seat", reason="REQUEST_ID_REUSED"
            )
        events = [event_from_data(e) for e in batch.events]
        return Moved(seen.version, seen.mover, events, record, rules, state, retried=True)

    async def stream_events(
        self, game_id: str, token: str | None, from_version: int
    ) -> AsyncIterator[ProjectedBatch]:
        """Batches from ``from_version`` on, projected, then live ones as they are committed.
        Ends after the game's last batch, or when the server shuts down. A start beyond the
        next version is refused: that version may never come, and holding the stream until its
        deadline would only hide the client's mistake.

        An idle stream costs the store nothing: it waits in the replica's :class:`EventFeed`,
        whose one watch per game waits on the replica's one subscription
        (``wait_for_version``) until a commit's notification, a resubscription (after which the
        store re-reads the version, so a notification lost meanwhile delays a batch but never
        drops it) or, every ``stream_recheck_s``, one version read that ends the streams of a
        game that has expired. The streams woken by one commit share one read and are each
        handed its batches.
        """
        record = await self.store.load(game_id)
        seat = self._seat(record, token)
        viewer = self._viewer(record, token)
        if from_version > record.version + 1:
            raise VersionAhead(record.version, from_version)
        if record.status != ACTIVE and from_version > record.version:
            return  # an ended game has nothing after its last batch
        rules = get_rules(record.game_type)
        next_version = from_version
        # A seat's stream keeps its seat present, looking again every stream_wait_s (a store
        # write at most about every second, and a look at the game's version); a spectator's,
        # the many idle streams, costs the store nothing until the game moves.
        wait_s = self._stream_wait_s if seat is not None else math.inf
        if self._closing.is_set():
            return
        if seat is not None:
            await self._touch(game_id, seat)
        batches: list[DecodedBatch] | None = await self._feed.read(game_id, next_version)
        while True:
            for decoded in batches or ():
                batch = decoded.batch
                if batch.version < next_version:
                    continue
                if batch.version > 0:  # moves are made only at a full table
                    viewer = seat
                # The first stream for this viewer projects for all of them.
                projected, last = decoded.projected.get(viewer) or self._project(
                    rules, decoded, viewer
                )
                yield projected
                next_version = batch.version + 1
                if last:
                    return
            if self._closing.is_set():
                return
            if seat is not None:
                await self._touch(game_id, seat)
            batches = await self._feed.after(game_id, next_version, wait_s)
            if batches is not None or self._closing.is_set():
                continue
            # A seat's wait ran out: it looks at the game's version (GameNotFound, the game
            # expired, ends the stream), as the feed's watch does for spectators, rarely.
            if await self.store.wait_for_version(game_id, next_version - 1, 0) is not None:
                batches = await self._feed.read(game_id, next_version)

    @staticmethod
    def _project(
        rules: Rules[Any], decoded: DecodedBatch, viewer: int | None
    ) -> tuple[ProjectedBatch, bool]:
        """A shared read's batch as ``viewer`` may see it, and whether it ends the game: made
        once for every stream of that viewer the read woke."""
        batch = decoded.batch
        events = [rules.project(e, viewer) for e in decoded.events]
        projected = ProjectedBatch(batch.version, batch.seat, events, batch.resigned_seat)
        decoded.projected[viewer] = made = (projected, projected.last)
        return made

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
        await self._committer.commit(resigned(record, seat))
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
            # No move: the opening, a resignation, or an end by the service (no seat).
            if batch.seat is None or batch.resigned_seat is not None:
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
