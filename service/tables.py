"""The games a replica serves, as every room of the service reads them: the store, the replica's
decoded copies (:class:`StateCache`), a game restored from its snapshot (or its moves), and whom
a seat token names. No decision of the service here: the rooms above (moves, reads, lobby,
deadlines) make those.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import structlog

from engine import get_rules
from engine.core.errors import BadSnapshot
from engine.core.moves import move_from_data
from engine.core.rules import Rules
from service.auth import seat_of
from service.errors import Unauthenticated
from service.metrics import Metrics
from service.store.base import GameRecord, GameStore

log = structlog.get_logger("tricktable.games")

#: How many games' latest states a replica keeps decoded (see :class:`StateCache`).
DEFAULT_CACHE_GAMES = 4096


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

    def get(self, game_id: str, version: int) -> tuple[GameRecord, Any] | None:
        entry = self._games.get(game_id)
        if entry is None or entry[0].version != version:
            return None
        self._games.move_to_end(game_id)
        return entry

    def at_least(self, game_id: str, version: int) -> tuple[GameRecord, Any] | None:
        """The game at ``version`` or a later one, when this replica holds such a copy."""
        entry = self._games.get(game_id)
        if entry is None or entry[0].version < version:
            return None
        self._games.move_to_end(game_id)
        return entry

    def put(self, record: GameRecord, state: Any) -> None:
        """Keep the game at ``record``'s version."""
        if self._max <= 0 or not record.full:
            return
        held = self._games.get(record.game_id)
        if held is not None and held[0].version > record.version:
            return  # a slower request must not replace a newer entry
        self._games[record.game_id] = (record, state)
        self._games.move_to_end(record.game_id)
        while len(self._games) > self._max:
            self._games.popitem(last=False)

    def drop(self, game_id: str) -> None:
        self._games.pop(game_id, None)


def seat_of_token(record: GameRecord, token: str | None) -> int | None:
    """The token's seat (None without a token); a token that is no seat's is refused."""
    if token is None:
        return None
    seat = seat_of(token, record.seats)
    if seat is None:
        raise Unauthenticated("the token is not a seat's token at this game")
    return seat


def viewer_of(record: GameRecord, token: str | None) -> int | None:
    """Whom to project for. A seat sees its cards only once every seat is taken: before that a
    seat can still be left and taken again, and seat-hopping would show one player several
    hands of the same deal. Once full, a table stays full (leaving is resigning)."""
    seat = seat_of_token(record, token)
    return seat if record.full else None


class Tables:
    """What every room of one replica shares: the store, the decoded copies, the metrics, the
    clock, and the server's shutdown."""

    def __init__(
        self,
        store: GameStore,
        cache: StateCache,
        metrics: Metrics,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.cache = cache
        self.metrics = metrics
        self.clock = clock
        self._closing = asyncio.Event()
        self._on_close: set[Callable[[], None]] = set()

    @property
    def closing(self) -> bool:
        """Whether the server shuts down (waits and streams end)."""
        return self._closing.is_set()

    def on_close(self, hook: Callable[[], None]) -> Callable[[], None]:
        """Call ``hook`` when the server shuts down (a play stream ends itself then); returns
        what unregisters it."""
        self._on_close.add(hook)
        return lambda: self._on_close.discard(hook)

    def close(self) -> None:
        """The server shuts down: every hook is called."""
        self._closing.set()
        for hook in list(self._on_close):
            hook()

    def now_ms(self) -> int:
        return int(self.clock() * 1000)

    async def state(self, record: GameRecord) -> tuple[Rules[Any], Any]:
        """The game's engine state at ``record``'s version, from its snapshot, or replayed."""
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

    async def latest(self, game_id: str) -> tuple[GameRecord, Any]:
        """The game as the store has it now, decoded and kept."""
        record = await self.store.load(game_id)
        _, state = await self.state(record)
        self.cache.put(record, state)
        return record, state

    async def at(self, game_id: str, version: int) -> tuple[GameRecord, Any]:
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
        return await self.latest(game_id)
