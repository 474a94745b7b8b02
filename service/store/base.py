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
(:meth:`DeadlineIndex.due`). The index may hold stale or early entries, never a late one: a sweeper
checks the game's own timing and fires through an ordinary compare-and-set commit, so a deadline
fires exactly once whichever replica gets there first. A sweeper *claims* what it reads, in the
same atomic step: the entries are its own for a lease, so the other replicas do not compute the
same step (a server bot's move can be costly) only to lose its commit; a sweeper that dies holds
them no longer than the lease, and the compare-and-set stays the arbiter when a lease runs out.

The port is the game itself (:class:`GameStore`). What keeps to a game's side is a part of the
store, reached as its attribute, and each adapter's part shares the adapter's connection (or
memory): the deadline index (``store.deadlines``: :class:`DeadlineIndex`), presence
(``store.presence``: :class:`PresenceLog`), what a player identity holds (``store.players``:
:class:`PlayerIndex`) and the quick play queues (``store.queues``: :class:`QuickPlayQueues`). So
no class of the port or of an adapter grows past about 20 methods (tests/service/test_layers.py).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
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
    #: the player identity that took the seat (service.identity; "" : none): the seat is that
    #: player's, who may take it again from another device
    player_id: str = ""
    #: the hashes of the seat tokens of the player's other devices (a seat taken again)
    devices: tuple[str, ...] = ()

    def to_json(self) -> str:
        data: dict[str, Any] = {"token_hash": self.token_hash, "player_name": self.player_name}
        if self.bot:
            data["bot"] = self.bot
        if self.player_id:
            data["player_id"] = self.player_id
        if self.devices:
            data["devices"] = list(self.devices)
        return json.dumps(data)

    @classmethod
    def from_json(cls, text: str | bytes) -> SeatRecord:
        data = json.loads(text)
        devices = data.get("devices")
        return cls(
            token_hash=data["token_hash"],
            player_name=data["player_name"],
            bot=data.get("bot", ""),
            player_id=data.get("player_id", ""),
            # cjson (Redis) writes an empty list as {}
            devices=tuple(devices) if isinstance(devices, list) else (),
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


#: The most devices a player's seat is kept for (the oldest is dropped past it).
MAX_DEVICES = 8
#: The most games the index of a player's games keeps (ListMyGames).
MAX_PLAYER_GAMES = 200

#: How long a seated quick play ticket is kept (a resume then learns its seat), in ms.
MATCHED_KEEP_MS = 3_600_000
#: The server bot that takes a quick play seat no one came for.
QUEUE_BOT = "heuristic"


def queue_seat(ticket: Ticket | None) -> dict[str, str]:
    """A seat of a game the queue made, as the match keeps it: the ticket's player, or (None)
    a server bot."""
    if ticket is None:
        return {"token_hash": "", "player_name": QUEUE_BOT, "bot": QUEUE_BOT}
    seat = {"token_hash": ticket.token_hash, "player_name": ticket.player_name}
    if ticket.player_id:
        seat["player_id"] = ticket.player_id
    return seat


#: The kinds of deadline index entries: a game's timing (clocks, server bots), its idleness.
TIMING = "timing"
IDLE = "idle"


@dataclass(frozen=True, slots=True)
class Due:
    """An entry of the deadline index that has come due: a game to look at. ``key`` is the
    store's own handle on the entry (given back to :meth:`DeadlineIndex.done`)."""

    game_id: str
    deadline_ms: int
    key: str = ""
    kind: str = TIMING  # TIMING or IDLE
    #: The game version whose timing a TIMING entry indexes (None: the store's index is the
    #: games' own deadlines). An entry is indexed before its commit lands, so one naming a
    #: later version than the game's may be a commit in flight, not stale.
    version: int | None = None
    #: When the claim that returned the entry ends (ms; the store's mark of it: given back to
    #: :meth:`DeadlineIndex.done` and :meth:`DeadlineIndex.release`), None for a plain read.
    leased_until_ms: int | None = None
    #: Claimed before by a sweeper whose lease ran out (it died, or took longer than its
    #: lease): the step may be computed twice, and one commit wins. Known for TIMING entries.
    lapsed: bool = False


@dataclass(frozen=True, slots=True)
class Filled:
    """What is written, with the seat taken, when it fills the table: play begins."""

    at_ms: int  # the game's ``moved_at_ms`` from now on
    timing: Timing | None = None
    idle_deadline_ms: int | None = None  # indexed (IDLE): when the game counts as deserted


@dataclass(frozen=True, slots=True)
class Access:
    """Who may take a game's seats beyond anyone (service.invites): an unlisted game is kept
    out of the lobby and joined with its invite code; a reserved seat is taken only with its
    own code. Only the codes' SHA-256 is stored ("" : revoked, or none), never a code."""

    unlisted: bool = False
    invite_hash: str = ""
    seat_hashes: Mapping[int, str] = field(default_factory=dict)  # reserved seat -> its code's
    seat_players: Mapping[int, str] = field(default_factory=dict)  # reserved seat -> player id

    def to_json(self) -> str:
        # Sorted, so that one access is always the same text: the store compares it as such
        # (a join checked against a code that was revoked meanwhile takes nothing).
        data = {
            "unlisted": self.unlisted,
            "invite": self.invite_hash,
            "seats": {str(k): v for k, v in sorted(self.seat_hashes.items())},
            "players": {str(k): v for k, v in sorted(self.seat_players.items())},
        }
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> Access:
        data = json.loads(text)
        return cls(
            unlisted=data["unlisted"],
            invite_hash=data["invite"],
            seat_hashes={int(k): v for k, v in data["seats"].items()},
            seat_players={int(k): v for k, v in data.get("players", {}).items()},
        )

    @property
    def reserved(self) -> set[int]:
        return {*self.seat_hashes, *self.seat_players}


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
    access: Access | None = None  # an unlisted game's, or one with reserved seats; else None

    @property
    def full(self) -> bool:
        return all(s is not None for s in self.seats)

    @property
    def listed(self) -> bool:
        """Whether the lobby shows the game (while it has an open seat)."""
        return self.access is None or not self.access.unlisted


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
    #: A seat of the ended game accepting a rematch (service.rematch): {"accepted": [seats],
    #: "game_id": the next game once every human seat has accepted, else ""}.
    rematch: Mapping[str, Any] | None = None

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "version": self.version,
            "seat": self.seat,
            "events": list(self.events),
            "resigned_seat": self.resigned_seat,
            "request_id": self.request_id,
        }
        if self.rematch is not None:
            data["rematch"] = self.rematch
        return _encode(data)

    @classmethod
    def from_json(cls, text: str | bytes) -> EventBatch:
        data = json.loads(text)
        return cls(
            version=data["version"],
            seat=data["seat"],
            events=tuple(data["events"]),
            resigned_seat=data["resigned_seat"],
            request_id=data["request_id"],
            rematch=data.get("rematch"),
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


@dataclass(frozen=True, slots=True)
class Ticket:
    """A player waiting in a quick play queue (service.matchmaking), by its ticket's hash.
    ``token_hash`` is the seat token's the player gets when seated (derived from the ticket,
    which only the player holds); ``game_id``/``seat`` are set once the queue seated it, and
    ``match`` is then the game's seats as the queue made them (SeatRecord data; a server
    bot's: {"token_hash": "", "player_name": kind, "bot": kind})."""

    token_hash: str
    player_name: str
    queued_ms: int
    bot_at_ms: int = 0  # 0: people only; else when the empty seats go to server bots
    game_id: str = ""
    seat: int = -1
    match: tuple[Mapping[str, str], ...] = ()
    player_id: str = ""  # the player identity that queued (service.identity), if any

    def to_json(self) -> str:
        return json.dumps(
            {
                "token_hash": self.token_hash,
                "player_name": self.player_name,
                "queued_ms": self.queued_ms,
                "bot_at_ms": self.bot_at_ms,
                "game_id": self.game_id,
                "seat": self.seat,
                "match": list(self.match),
                "player_id": self.player_id,
            }
        )

    @classmethod
    def from_json(cls, text: str | bytes) -> Ticket:
        data = json.loads(text)
        return cls(
            token_hash=data["token_hash"],
            player_name=data["player_name"],
            queued_ms=int(data["queued_ms"]),
            bot_at_ms=int(data["bot_at_ms"]),
            game_id=data["game_id"],
            seat=int(data["seat"]),
            # cjson (Redis) writes an empty list as {}
            match=tuple(data["match"]) if isinstance(data["match"], list) else (),
            player_id=data.get("player_id", ""),
        )


@dataclass(frozen=True, slots=True)
class QueueStep:
    """One look at a quick play queue (:meth:`QuickPlayQueues.queue_step`): the player's ticket
    (None: not in the queue: never was, cancelled, or gone past its grace time), how many wait
    there now, and the queue's definition (what game it makes: JSON the service wrote)."""

    ticket: Ticket | None
    waiting: int
    definition: str


class RequestSeen(Exception):  # a signal from store to service, never shown to a client
    """A commit's request id was accepted before (at ``version``): nothing was written."""

    def __init__(self, version: int) -> None:
        super().__init__(f"request accepted before, at version {version}")
        self.version = version


class DeadlineIndex(ABC):
    """The index of deadlines any replica sweeps (``store.deadlines``): a game's timing
    (clocks, server bots) and its idleness. Its entries are hints, never late; see the module
    docstring."""

    @abstractmethod
    async def due(self, now_ms: int, limit: int, lease_ms: int = 0) -> list[Due]:
        """Up to ``limit`` deadline index entries due at ``now_ms``, earliest first. Entries are
        hints: the game's own timing is the truth (an entry may be stale, never late).

        With ``lease_ms``, a claim: in the same atomic step, each entry returned is held until
        ``now_ms + lease_ms`` (its ``leased_until_ms``), and no claim or read before then
        returns it again, unless it is released. Once the lease ends unhandled (its holder
        died), the entry is due again for any sweeper (``lapsed``)."""

    @abstractmethod
    async def done(self, entry: Due, later_ms: int | None = None) -> None:
        """Drop an index entry that was handled (fired, stale, or its game gone). An IDLE entry
        is dropped only if no one has moved it later since it was read or claimed (while it is
        leased, only a deadline later than the lease's end moves it); with ``later_ms`` (the
        game moved since: its later idle deadline) it is moved there instead, unless the game
        has left the index meanwhile (it ended). A claimed entry's lease ends with it."""

    @abstractmethod
    async def release(self, entry: Due) -> None:
        """Give back a claimed entry that was not handled (a commit that may still land, a game
        not created yet, a store that failed meanwhile): due again at once for any sweeper,
        unless its lease has ended and someone has claimed it since."""

    @abstractmethod
    async def watch_idle(self, game_id: str, deadline_ms: int) -> None:
        """Index (IDLE) when the game would count as deserted, as last known: a sweeper finds it
        then, and ends the game or watches its later deadline (moves since push it back). A
        game has one IDLE entry, which only moves later. The step that ends a game removes it
        from the index (IDLE and TIMING entries alike), so an ended game leaves none behind."""

    async def next_deadline(self) -> int | None:
        """The earliest entry of the deadline index (a hint for how long a sweeper may sleep),
        or None when it is empty."""
        return None


class PresenceLog(ABC):
    """When each seat of a game was last seen (``store.presence``): not part of the game's
    history."""

    @abstractmethod
    async def touch(self, game_id: str, seat: int, now_ms: int) -> None:
        """Note that ``seat`` was seen now (presence; not part of the game's history)."""

    @abstractmethod
    async def seen(self, game_id: str) -> dict[int, int]:
        """When each seat was last seen (ms since the epoch), for the seats ever seen."""


class PlayerIndex(ABC):
    """What a player identity holds (``store.players``; service.identity): a seat taken again
    from another device, and the index of the player's games (ListMyGames)."""

    @abstractmethod
    async def add_device(self, game_id: str, seat: int, player_id: str, token_hash: str) -> bool:
        """The seat's player takes it again from another device: ``token_hash`` (its new seat
        token's) is added to the seat's devices (the oldest dropped past MAX_DEVICES) if the
        seat is ``player_id``'s; False (nothing written) otherwise."""

    @abstractmethod
    async def note_game(self, player_id: str, game_id: str, at_ms: int) -> None:
        """Index that the player took a seat at the game (ListMyGames); the index keeps a
        player's latest MAX_PLAYER_GAMES games, and is a hint: each game is read again."""

    @abstractmethod
    async def player_games(self, player_id: str, limit: int) -> list[str]:
        """The games indexed for the player, latest first, at most ``limit``."""


class QuickPlayQueues(ABC):
    """The quick play queues (``store.queues``; service.matchmaking), each step one atomic
    step of the store, whichever replica makes it."""

    @abstractmethod
    async def queue_step(
        self,
        pool: str,
        ticket_hash: str,
        new: Ticket | None,
        *,
        now_ms: int,
        grace_ms: int,
        seats: int,
        game_id: str,
        definition: str,
    ) -> QueueStep:
        """One atomic step of the quick play queue ``pool``: forget the waiting tickets not
        seen for ``grace_ms``; add ``new`` under ``ticket_hash`` if it is not there (None:
        only look); mark the ticket seen; then, if ``seats`` tickets wait, or this ticket's
        bot time has come, seat this ticket and the longest waiting others (up to ``seats``,
        server bots in the rest) at the new game ``game_id``: each ticket seated is marked
        with it, and leaves the queue. A ticket is seated once, at one game, whichever
        replica's step gets there. ``definition`` is kept as the queue's (first write wins)."""

    @abstractmethod
    async def queue_cancel(self, pool: str, ticket_hash: str) -> bool | None:
        """Take a waiting ticket out of the queue: True; False if it was seated already (it
        stays so); None if there is no such ticket."""


class GameExists(ValueError):  # a signal from store to service, never shown to a client
    """A game with this id exists: :meth:`GameStore.create` never writes over one (a game made
    by a known id, a rematch, a quick play match or a tournament's game, is created once by
    whichever replica gets there first)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} exists")
        self.game_id = game_id


class GameStore(ABC):
    """Where games live. Every method is a coroutine; adapters must be safe to share between
    concurrent requests (and, for Redis, between server replicas). What is not the game itself
    is reached through the store's parts, which share its connection and state."""

    deadlines: DeadlineIndex
    presence: PresenceLog
    players: PlayerIndex
    queues: QuickPlayQueues

    @abstractmethod
    async def create(self, game: GameRecord, opening: EventBatch) -> None:
        """Store a new game (version 0) and its opening events, with the seats already taken
        (server bots, or players a rematch or the quick play queue seated) and, when those
        fill the table, its timing. Raise GameExists (nothing written) if the id is taken."""

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
        self,
        game_id: str,
        seat: int,
        record: SeatRecord,
        filled: Filled | None = None,
        access: Access | None = None,
    ) -> bool:
        """Give an open seat to a player; False (nothing written) if it is taken. ``filled``
        is written with it, in the same atomic step, if this seat fills the table (play, and
        a clocked game's clocks, begin then), and its idle deadline indexed. With ``access``,
        the seat is taken only if the game's access is still exactly that (an invite code
        checked against it and revoked meanwhile takes nothing: False)."""

    @abstractmethod
    async def set_access(self, game_id: str, expected: Access, new: Access) -> bool:
        """Replace the game's access (a code revoked or reissued) if it is still ``expected``;
        False (nothing written) if it changed meanwhile."""

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
        self,
        game_type: str,
        limit: int,
        after: LobbyPosition | None = None,
        *,
        playing: bool = False,
    ) -> list[GameRecord]:
        """Listed games with an open seat of ``game_type`` (empty: any), ordered by (creation
        time, game id), strictly after ``after`` (None: from the start); at most ``limit``. A
        position stays valid when the game at it fills or ends, so pages never repeat or skip.
        With ``playing``: the listed games being played instead (every seat taken, not ended),
        for watching. An unlisted game is never listed. Each list has its own index, so a page
        costs reads of the games on it, not of every game."""

    async def close(self) -> None:
        """Release connections."""
        return

    async def ping(self) -> None:
        """Raise StoreUnavailable if the store cannot serve requests."""
        return
