"""The ``GameStore`` port: what the service needs from wherever games are kept.

A game is stored as its record (type, options, secret seed, seats, version, status), a snapshot of
the engine state (a cache), the log of accepted moves (the truth, DESIGN.md decision 1) and one
batch of full, unprojected events per version (version 0 is the opening deal). Projection happens
at the service's exit, never in a store.

Every write that advances a game is one atomic compare-and-set (:meth:`GameStore.commit`): the
version check, the new snapshot, the appended move, the request id and the event batch succeed or
fail together. The contract is the test suite in ``tests/store/test_contract.py``, run against
every adapter.

Time is in the store (DESIGN.md decision 9): a clocked game's clocks and its next deadline
(:class:`Timing`) are written by the same atomic step as the commit (or the seat taken) that
changes them, and every store keeps an index of deadlines that any replica sweeps
(:meth:`GameStore.due`). The index may hold stale or early entries, never a late one: a sweeper
checks the game's own timing and fires through an ordinary compare-and-set commit, so a deadline
fires exactly once whichever replica gets there first.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.codec import json_encoder
from engine.core.options import OptionValue

#: json.dumps's encoding, as one encoder kept for the records every move writes: dumps goes
#: through its keyword checks each call, and its check for circular references costs a dict
#: insert and delete per object and list (these hold plain data, never themselves).
_encode = json_encoder(check_circular=False)

ACTIVE = "active"
FINISHED = "finished"
ABANDONED = "abandoned"


#: Where a lobby page ends: (created_at_ms, game_id) of its last game.
LobbyPosition = tuple[int, str]


@dataclass(frozen=True, slots=True)
class SeatRecord:
    token_hash: str  # sha-256 of the seat token; the token itself is never stored
    player_name: str
    #: a seat the server's reference bot plays ("random", "heuristic"): it has no token (an
    #: empty token_hash, which no token hashes to)
    bot: str = ""

    def to_json(self) -> str:
        data = {"token_hash": self.token_hash, "player_name": self.player_name}
        if self.bot:
            data["bot"] = self.bot
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str | bytes) -> SeatRecord:
        data = json.loads(text)
        return cls(
            token_hash=data["token_hash"], player_name=data["player_name"], bot=data.get("bot", "")
        )


@dataclass(frozen=True, slots=True)
class Timing:
    """What a game has scheduled: a clocked game's clocks (``service.clocks.Clocks`` data; None
    in a game without a clock) and its next deadline (server time in ms since the epoch: a clock
    running out, or a server bot's turn; None when nothing is scheduled)."""

    clocks: Mapping[str, Any] | None
    deadline_ms: int | None

    def to_json(self) -> str:
        return json.dumps({"clocks": self.clocks, "deadline_ms": self.deadline_ms})

    @classmethod
    def from_json(cls, text: str | bytes) -> Timing:
        data = json.loads(text)
        return cls(clocks=data["clocks"], deadline_ms=data["deadline_ms"])


#: The kinds of deadline index entries: a game's timing (clocks, server bots), its idleness.
TIMING = "timing"
IDLE = "idle"


@dataclass(frozen=True, slots=True)
class Due:
    """An entry of the deadline index that has come due: a game to look at. ``key`` is the
    store's own handle on the entry (given back to :meth:`GameStore.done`)."""

    game_id: str
    deadline_ms: int
    key: str = ""
    kind: str = TIMING  # TIMING or IDLE


@dataclass(frozen=True, slots=True)
class Filled:
    """What is written, with the seat taken, when it fills the table: play begins."""

    at_ms: int  # the game's ``moved_at_ms`` from now on
    timing: Timing | None = None
    idle_deadline_ms: int | None = None  # indexed (IDLE): when the game counts as deserted


@dataclass(frozen=True, slots=True)
class GameRecord:
    game_id: str
    game_type: str
    options: Mapping[str, OptionValue]  # every option, defaults filled in
    seed: bytes  # secret: never leaves the service
    seat_count: int
    created_at_ms: int
    version: int = 0
    status: str = ACTIVE  # ACTIVE, FINISHED or ABANDONED
    seats: tuple[SeatRecord | None, ...] = ()
    resigned_seat: int | None = None
    snapshot: bytes = b""
    time_control: Mapping[str, Any] | None = None  # service.clocks.TimeControl data; None: no clock
    timing: Timing | None = None  # once play has begun, in a game with clocks or server bots
    moved_at_ms: int = 0  # when play began or the last step was committed (0: not yet)

    @property
    def full(self) -> bool:
        return all(s is not None for s in self.seats)


@dataclass(frozen=True, slots=True)
class MoveRecord:
    seat: int
    move: Mapping[str, Any]  # engine.core.moves.move_to_data
    request_id: str = ""

    def to_json(self) -> str:
        return _encode({"seat": self.seat, "move": self.move, "request_id": self.request_id})

    @classmethod
    def from_json(cls, text: str | bytes) -> MoveRecord:
        data = json.loads(text)
        return cls(seat=data["seat"], move=data["move"], request_id=data["request_id"])


@dataclass(frozen=True, slots=True)
class EventBatch:
    """The full events of one version (engine.core.events.event_to_data form)."""

    version: int
    seat: int | None  # who moved; None for the opening
    events: tuple[Mapping[str, Any], ...] = ()
    resigned_seat: int | None = None
    request_id: str = ""

    def to_json(self) -> str:
        return _encode(
            {
                "version": self.version,
                "seat": self.seat,
                "events": list(self.events),
                "resigned_seat": self.resigned_seat,
                "request_id": self.request_id,
            }
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> EventBatch:
        data = json.loads(text)
        return cls(
            version=data["version"],
            seat=data["seat"],
            events=tuple(data["events"]),
            resigned_seat=data["resigned_seat"],
            request_id=data["request_id"],
        )


@dataclass(frozen=True, slots=True)
class Commit:
    """One step of a game, written atomically if the game is still at ``expected_version``."""

    expected_version: int
    snapshot: bytes
    batch: EventBatch  # its version is expected_version + 1
    status: str = ACTIVE
    move: MoveRecord | None = None  # None for a resignation
    resigned_seat: int | None = None
    timing: Timing | None = None  # the game's timing after this step; None: nothing scheduled
    at_ms: int = 0  # when the step is made: the game's moved_at_ms after it (0: unchanged)


class RequestSeen(Exception):  # a signal from store to service, never shown to a client
    """A commit's request id was accepted before (at ``version``): nothing was written."""

    def __init__(self, version: int) -> None:
        super().__init__(f"request accepted before, at version {version}")
        self.version = version


class GameExists(ValueError):  # a signal from store to service, never shown to a client
    """A game with this id exists: :meth:`GameStore.create` never writes over one (a
    tournament's game, whose id is fixed by its schedule, is created once by whichever replica
    gets there first)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} exists")
        self.game_id = game_id


class GameStore(ABC):
    """Where games live. Every method is a coroutine; adapters must be safe to share between
    concurrent requests (and, for Redis, between server replicas)."""

    @abstractmethod
    async def create(self, game: GameRecord, opening: EventBatch) -> None:
        """Store a new game (version 0) and its opening events, with the seats already taken
        (server bots) and, when those fill the table, its timing. Raise GameExists (nothing
        written) if a game with its id exists."""

    @abstractmethod
    async def load(self, game_id: str) -> GameRecord:
        """The game's record and snapshot; raise GameNotFound if there is none (or it expired)."""

    @abstractmethod
    async def moves(self, game_id: str) -> list[MoveRecord]:
        """Every accepted move in order: what a game is rebuilt from."""

    @abstractmethod
    async def commit(self, game_id: str, step: Commit) -> int:
        """Apply ``step`` atomically if the game is at ``step.expected_version``; return the new
        version. Raise RequestSeen if the batch's request id was accepted before (checked
        first), VersionConflict with the current version if the game is at another version;
        either way nothing is written."""

    @abstractmethod
    async def request_version(self, game_id: str, request_id: str) -> int | None:
        """The version a request id produced, if that request was accepted before."""

    @abstractmethod
    async def take_seat(
        self, game_id: str, seat: int, record: SeatRecord, filled: Filled | None = None
    ) -> bool:
        """Give an open seat to a player; False (nothing written) if it is taken. ``filled``
        is written with it, in the same atomic step, if this seat fills the table (play, and
        a clocked game's clocks, begin then), and its idle deadline indexed."""

    @abstractmethod
    async def free_seat(self, game_id: str, seat: int, token_hash: str) -> bool:
        """Free a seat while the game waits for players (some seat open, no move made);
        False (nothing written) otherwise."""

    @abstractmethod
    async def read_events(self, game_id: str, from_version: int) -> list[EventBatch]:
        """Batches with version >= ``from_version``, in order (none yet: an empty list)."""

    @abstractmethod
    async def wait_for_version(self, game_id: str, after: int, wait_s: float) -> int | None:
        """Wait up to ``wait_s`` seconds (``math.inf``: for as long as it takes, at no cost to the
        store while nothing happens) for the game to pass version ``after``: then a version
        later than ``after`` (not necessarily the latest), else None. Raise GameNotFound if there
        is no such game. The one way to wait for a commit (turn waiters, event streams)."""

    @abstractmethod
    async def list_open(
        self, game_type: str, limit: int, after: LobbyPosition | None = None
    ) -> list[GameRecord]:
        """Games with an open seat of ``game_type`` (empty: any), ordered by (creation time,
        game id), strictly after ``after`` (None: from the start); at most ``limit``. A position
        stays valid when the game at it fills or ends, so pages never repeat or skip."""

    @abstractmethod
    async def due(self, now_ms: int, limit: int) -> list[Due]:
        """Up to ``limit`` deadline index entries due at ``now_ms``, earliest first. Entries are
        hints: the game's own timing is the truth (an entry may be stale, never late)."""

    @abstractmethod
    async def done(self, entry: Due, later_ms: int | None = None) -> None:
        """Drop an index entry that was handled (fired, stale, or its game gone). An IDLE entry
        is dropped only if no one has moved it later since; with ``later_ms`` (the game moved
        since: its later idle deadline) it is moved there instead, unless the game has left the
        index meanwhile (it ended)."""

    @abstractmethod
    async def watch_idle(self, game_id: str, deadline_ms: int) -> None:
        """Index (IDLE) when the game would count as deserted, as last known: a sweeper finds it
        then, and ends the game or watches its later deadline (moves since push it back). A
        game has one IDLE entry, which only moves later. The step that ends a game removes it
        from the index (IDLE and TIMING entries alike), so an ended game leaves none behind."""

    @abstractmethod
    async def touch(self, game_id: str, seat: int, now_ms: int) -> None:
        """Note that ``seat`` was seen now (presence; not part of the game's history)."""

    @abstractmethod
    async def seen(self, game_id: str) -> dict[int, int]:
        """When each seat was last seen (ms since the epoch), for the seats ever seen."""

    async def next_deadline(self) -> int | None:
        """The earliest entry of the deadline index (a hint for how long a sweeper may sleep),
        or None when it is empty."""
        return None

    async def close(self) -> None:
        """Release connections."""
        return

    async def ping(self) -> None:
        """Raise StoreUnavailable if the store cannot serve requests."""
        return
