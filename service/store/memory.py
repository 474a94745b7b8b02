"""``MemoryStore``: the embedded default. One process, no persistence, the full contract.

Every method runs without awaiting between its reads and writes, so on one event loop each call
is atomic, which is all the compare-and-set needs. Games expire like in Redis: a finished or
abandoned game is dropped ``finished_ttl_s`` seconds after its last step, and with ``open_ttl_s``
a game whose seats never all fill is dropped that long after its creation (checked lazily).

The deadline index is the games' own deadlines, kept by the same step that writes a game's
timing and dropped by the step that ends it, so it is never stale: :meth:`MemoryDeadlines.done`
only forgets the games that are gone. A claim's lease is kept beside the entry, for the deadline
it claimed: a game whose deadline moves has a new entry, not leased.
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
    MATCHED_KEEP_MS,
    MAX_DEVICES,
    MAX_PLAYER_GAMES,
    TIMING,
    Access,
    Commit,
    DeadlineIndex,
    Due,
    EventBatch,
    Filled,
    GameExists,
    GameRecord,
    GameStore,
    LobbyPosition,
    MoveRecord,
    PlayerIndex,
    PresenceLog,
    QueueStep,
    QuickPlayQueues,
    RequestSeen,
    SeatRecord,
    Ticket,
    Timing,
    queue_seat,
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


@dataclass
class _Pool:
    """One quick play queue: its tickets (waiting, in the order they came, and seated)."""

    definition: str = ""
    tickets: dict[str, Ticket] = field(default_factory=dict)
    waiting: dict[str, int] = field(default_factory=dict)  # hash -> last seen; insertion order
    seated: dict[str, int] = field(default_factory=dict)  # hash -> when seated


class _Memory:
    """What the memory store and its parts share. No step of either awaits between its reads
    and writes, so on one event loop each is atomic, whichever object it is made through."""

    def __init__(
        self, finished_ttl_s: float, clock: Callable[[], float], open_ttl_s: float
    ) -> None:
        self.games: dict[str, _Game] = {}
        self.deadlines: dict[str, int] = {}  # game id -> its timing's deadline
        self.idle: dict[str, int] = {}  # game id -> when it counts as deserted, as indexed
        #: (kind, game id) -> (the deadline claimed, when the claim's lease ends)
        self.leases: dict[tuple[str, str], tuple[int, int]] = {}
        self.ttl = finished_ttl_s
        self.open_ttl = open_ttl_s  # 0: a game waiting for players never expires
        self.clock = clock
        self.pools: dict[str, _Pool] = {}
        self.players: dict[str, dict[str, int]] = {}  # player id -> game id -> when noted

    def get(self, game_id: str) -> _Game:
        game = self.games.get(game_id)
        if game is not None and game.expires_at is not None and self.clock() >= game.expires_at:
            del self.games[game_id]
            self.deadlines.pop(game_id, None)
            self.idle.pop(game_id, None)
            game = None
        if game is None:
            raise GameNotFound(game_id)
        return game

    def schedule(self, game_id: str, timing: Timing) -> None:
        if timing.deadline_ms is None:
            self.deadlines.pop(game_id, None)
        else:
            self.deadlines[game_id] = timing.deadline_ms


class MemoryStore(GameStore):
    """The game itself; its parts (deadlines, presence, players, queues) share its memory."""

    def __init__(
        self,
        finished_ttl_s: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
        open_ttl_s: float = 0.0,
    ) -> None:
        self._m = _Memory(finished_ttl_s, clock, open_ttl_s)
        self._games = self._m.games  # the same dict: the games, by id
        # The parts, on the same memory (their steps are atomic as the store's are).
        self.deadlines = MemoryDeadlines(self._m)
        self.presence = MemoryPresence(self._m)
        self.players = MemoryPlayers(self._m)
        self.queues = MemoryQueues(self._m)

    async def create(self, game: GameRecord, opening: EventBatch) -> None:
        try:
            self._m.get(game.game_id)
        except GameNotFound:
            pass
        else:
            raise GameExists(game.game_id)
        expires = (
            self._m.clock() + self._m.open_ttl if self._m.open_ttl > 0 and not game.full else None
        )
        self._games[game.game_id] = _Game(record=game, batches=[opening], expires_at=expires)
        if game.timing is not None:
            self._m.schedule(game.game_id, game.timing)

    async def load(self, game_id: str) -> GameRecord:
        return self._m.get(game_id).record

    async def moves(self, game_id: str) -> list[MoveRecord]:
        return list(self._m.get(game_id).moves)

    async def commit(self, game_id: str, step: Commit) -> int:
        game = self._m.get(game_id)
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
            self._m.schedule(game_id, step.timing)
        if step.move is not None:
            game.moves.append(step.move)
        if step.batch.request_id:
            game.requests[step.batch.request_id] = version
        game.batches.append(dataclasses.replace(step.batch, version=version))
        if step.status != ACTIVE:
            game.expires_at = self._m.clock() + self._m.ttl
            self._m.deadlines.pop(game_id, None)  # an ended game has nothing left to fire
            self._m.idle.pop(game_id, None)
        self._wake(game)
        return version

    @staticmethod
    def _wake(game: _Game) -> None:
        # Waiters hold the old event; a fresh one is armed for the next step.
        game.changed.set()
        game.changed = asyncio.Event()

    async def request_version(self, game_id: str, request_id: str) -> int | None:
        return self._m.get(game_id).requests.get(request_id)

    async def take_seat(
        self,
        game_id: str,
        seat: int,
        record: SeatRecord,
        filled: Filled | None = None,
        access: Access | None = None,
    ) -> bool:
        game = self._m.get(game_id)
        seats = list(game.record.seats)
        if seats[seat] is not None:
            return False
        if access is not None and game.record.access != access:
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
                    self._m.schedule(game_id, filled.timing)
                if filled.idle_deadline_ms is not None:
                    self._m.idle[game_id] = filled.idle_deadline_ms
        return True

    async def free_seat(self, game_id: str, seat: int, token_hash: str) -> bool:
        game = self._m.get(game_id)
        record = game.record
        taken = record.seats[seat]
        if record.full or record.version != 0 or taken is None or taken.token_hash != token_hash:
            return False
        seats = list(record.seats)
        seats[seat] = None
        game.record = dataclasses.replace(record, seats=tuple(seats))
        return True

    async def read_events(self, game_id: str, from_version: int) -> list[EventBatch]:
        return self._m.get(game_id).batches[max(from_version, 0) :]

    async def wait_for_version(self, game_id: str, after: int, wait_s: float) -> int | None:
        game = self._m.get(game_id)
        if game.record.version <= after and wait_s > 0:
            changed = game.changed  # set, and replaced, by the next commit
            try:
                await asyncio.wait_for(changed.wait(), wait_s if math.isfinite(wait_s) else None)
            except TimeoutError:
                return None
            game = self._m.get(game_id)
        latest = game.record.version
        return latest if latest > after else None

    async def list_open(
        self,
        game_type: str,
        limit: int,
        after: LobbyPosition | None = None,
        *,
        playing: bool = False,
    ) -> list[GameRecord]:
        records = []
        for game_id in list(self._games):
            try:
                records.append(self._m.get(game_id).record)
            except GameNotFound:  # expired just now
                continue
        out = [
            r
            for r in sorted(records, key=lambda r: (r.created_at_ms, r.game_id))
            if r.full == playing
            and r.listed
            and r.status == ACTIVE
            and (not game_type or r.game_type == game_type)
            and (after is None or (r.created_at_ms, r.game_id) > after)
        ]
        return out[:limit]

    async def set_access(self, game_id: str, expected: Access, new: Access) -> bool:
        game = self._m.get(game_id)
        if game.record.access != expected:
            return False
        game.record = dataclasses.replace(game.record, access=new)
        return True


class MemoryDeadlines(DeadlineIndex):
    """The deadline index: the games' own deadlines, kept by the step that writes a game's
    timing and dropped by the step that ends it, so it is never stale: :meth:`done` only
    forgets the games that are gone."""

    def __init__(self, memory: _Memory) -> None:
        self._m = memory

    async def due(self, now_ms: int, limit: int, lease_ms: int = 0) -> list[Due]:
        leases = self._m.leases
        indexed = {TIMING: self._m.deadlines, IDLE: self._m.idle}
        for (kind, game_id), (claimed, until) in list(leases.items()):
            if indexed[kind].get(game_id) != claimed and until <= now_ms:
                del leases[(kind, game_id)]  # its entry is gone or moved: nothing to keep

        def free(kind: str, game_id: str, deadline_ms: int) -> bool:
            held = leases.get((kind, game_id))
            return held is None or held[0] != deadline_ms or held[1] <= now_ms

        ready = [
            (d, g, kind)
            for kind, entries in indexed.items()
            for g, d in entries.items()
            if d <= now_ms and free(kind, g, d)
        ]
        chosen = heapq.nsmallest(limit, ready)
        if lease_ms <= 0:
            return [Due(g, d, kind=kind) for d, g, kind in chosen]
        until = now_ms + lease_ms
        out = []
        for d, g, kind in chosen:
            lapsed = leases.get((kind, g), (None, 0))[0] == d  # held before, its lease ran out
            leases[(kind, g)] = (d, until)
            out.append(Due(g, d, kind=kind, leased_until_ms=until, lapsed=lapsed))
        return out

    def _unlease(self, entry: Due) -> None:
        key = (entry.kind, entry.game_id)
        if self._m.leases.get(key) == (entry.deadline_ms, entry.leased_until_ms):
            del self._m.leases[key]  # (a claim made since the lease ran out is the new one's)

    async def release(self, entry: Due) -> None:
        self._unlease(entry)

    async def done(self, entry: Due, later_ms: int | None = None) -> None:
        self._unlease(entry)
        if entry.kind == IDLE:
            watched = self._m.idle.get(entry.game_id)
            if watched is not None and later_ms is not None:  # still indexed: not ended since
                self._m.idle[entry.game_id] = max(watched, later_ms)
            elif watched == entry.deadline_ms:  # not watched again since
                del self._m.idle[entry.game_id]
            return
        # The index is the games' own deadlines, so only a game that is gone leaves one behind.
        try:
            self._m.get(entry.game_id)
        except GameNotFound:
            self._m.deadlines.pop(entry.game_id, None)

    async def watch_idle(self, game_id: str, deadline_ms: int) -> None:
        self._m.idle[game_id] = max(self._m.idle.get(game_id, deadline_ms), deadline_ms)

    async def next_deadline(self) -> int | None:
        return min((*self._m.deadlines.values(), *self._m.idle.values()), default=None)


class MemoryPresence(PresenceLog):
    """When each seat was last seen, kept with its game."""

    def __init__(self, memory: _Memory) -> None:
        self._m = memory

    async def touch(self, game_id: str, seat: int, now_ms: int) -> None:
        self._m.get(game_id).seen[seat] = now_ms

    async def seen(self, game_id: str) -> dict[int, int]:
        return dict(self._m.get(game_id).seen)


class MemoryPlayers(PlayerIndex):
    """A player's devices on a seat, and the index of the player's games."""

    def __init__(self, memory: _Memory) -> None:
        self._m = memory

    async def add_device(self, game_id: str, seat: int, player_id: str, token_hash: str) -> bool:
        game = self._m.get(game_id)
        taken = game.record.seats[seat]
        if taken is None or not taken.player_id or taken.player_id != player_id:
            return False
        devices = (*taken.devices, token_hash)[-MAX_DEVICES:]
        seats = list(game.record.seats)
        seats[seat] = dataclasses.replace(taken, devices=devices)
        game.record = dataclasses.replace(game.record, seats=tuple(seats))
        return True

    async def note_game(self, player_id: str, game_id: str, at_ms: int) -> None:
        games = self._m.players.setdefault(player_id, {})
        games.pop(game_id, None)
        games[game_id] = at_ms  # the latest, last
        while len(games) > MAX_PLAYER_GAMES:
            del games[next(iter(games))]

    async def player_games(self, player_id: str, limit: int) -> list[str]:
        games = self._m.players.get(player_id, {})
        return sorted(games, key=lambda g: (-games[g], g))[:limit]


class MemoryQueues(QuickPlayQueues):
    """The quick play queues, one ``_Pool`` each."""

    def __init__(self, memory: _Memory) -> None:
        self._m = memory

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
        queue = self._m.pools.setdefault(pool, _Pool())
        queue.definition = queue.definition or definition  # the first write wins
        for gone in [h for h, seen in queue.waiting.items() if seen < now_ms - grace_ms]:
            del queue.waiting[gone], queue.tickets[gone]
        for old in [h for h, at in queue.seated.items() if at < now_ms - MATCHED_KEEP_MS]:
            del queue.seated[old], queue.tickets[old]
        ticket = queue.tickets.get(ticket_hash)
        if ticket is None:
            if new is None:
                if not queue.tickets:  # a queue no one holds a ticket of is forgotten
                    del self._m.pools[pool]
                return QueueStep(None, len(queue.waiting), queue.definition)
            ticket = queue.tickets[ticket_hash] = new
            queue.waiting[ticket_hash] = now_ms
        if ticket.game_id:
            return QueueStep(ticket, len(queue.waiting), queue.definition)
        queue.waiting[ticket_hash] = now_ms
        bots = 0 < ticket.bot_at_ms <= now_ms
        if len(queue.waiting) >= seats or bots:
            others = [h for h in queue.waiting if h != ticket_hash]
            taken = [ticket_hash, *others[: seats - 1]]
            people = [queue.tickets[h] for h in taken]
            match = tuple(queue_seat(people[n] if n < len(people) else None) for n in range(seats))
            for n, h in enumerate(taken):
                queue.tickets[h] = dataclasses.replace(
                    queue.tickets[h], game_id=game_id, seat=n, match=match
                )
                del queue.waiting[h]
                queue.seated[h] = now_ms
            ticket = queue.tickets[ticket_hash]
        return QueueStep(ticket, len(queue.waiting), queue.definition)

    async def queue_cancel(self, pool: str, ticket_hash: str) -> bool | None:
        queue = self._m.pools.get(pool)
        ticket = queue.tickets.get(ticket_hash) if queue is not None else None
        if queue is None or ticket is None:
            return None
        if ticket.game_id:
            return False
        del queue.tickets[ticket_hash], queue.waiting[ticket_hash]
        return True
