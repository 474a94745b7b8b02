"""The ``TournamentStore`` port, and ``MemoryTournamentStore``, its embedded adapter.

A tournament is kept as its spec (fixed at creation), its status, the games started (number ->
game id), the results counted (number -> :class:`~service.tournaments.standings.Result`) and its
events, one per version (version n is the n-th event). Each step that changes it is one atomic
step of the store, checked against what the step was decided on, so replicas racing on one
tournament never start a game twice or count a result twice:

- :meth:`TournamentStore.start_game` starts game ``number`` only if it is the next one, the
  tournament runs, and fewer than ``games_at_once`` of its games are being played;
- :meth:`TournamentStore.count_result` counts a result only if it was not counted and exactly
  ``expected`` results were (the standings in its event were computed over those): the step
  that counts the last result also ends the tournament;
- :meth:`TournamentStore.cancel` ends a running tournament (its games still running are ended
  after it: :meth:`~service.tournaments.advance.Advancer.advance`).

Tournaments that run are in an index (tournament id -> when to look again) that every replica
sweeps (:mod:`service.tournaments.runner`). Taking entries from it leases them (their time moves
to the lease's end), so one replica advances a tournament at a time while it lives; a replica
that dies leaves its lease to run out, and another takes the tournament up.
"""

from __future__ import annotations

import asyncio
import json
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace

from service.errors import GameNotFound
from service.tournaments.spec import CANCELLED, FINISHED, RUNNING, TournamentSpec
from service.tournaments.standings import Result

COUNTED = "counted"
ALREADY = "already"  # counted before (another replica)
STALE = "stale"  # other results were counted meanwhile: recompute and try again
ENDED = "ended"  # the tournament is not running


class TournamentNotFound(GameNotFound):
    reason = "TOURNAMENT_NOT_FOUND"

    def __init__(self, tournament_id: str) -> None:
        Exception.__init__(self, f"no tournament {tournament_id!r}")
        self.message = f"no tournament {tournament_id!r}"
        self.metadata = {}


class BotNotFound(GameNotFound):
    reason = "BOT_NOT_FOUND"

    def __init__(self, bot_id: str) -> None:
        Exception.__init__(self, f"no bot {bot_id!r}")
        self.message = f"no bot {bot_id!r}"
        self.metadata = {}


@dataclass(frozen=True, slots=True)
class TournamentState:
    spec: TournamentSpec
    status: str
    version: int
    games: Mapping[int, str]  # number -> game id, for every game started
    results: Mapping[int, Result]  # number -> result, for every game counted

    @property
    def playing(self) -> list[int]:
        """Games started and not counted, in order."""
        return sorted(n for n in self.games if n not in self.results)


@dataclass(frozen=True, slots=True)
class BotRecord:
    bot_id: str
    name: str
    game_types: tuple[str, ...]
    kind: str  # spec.CALLED or spec.CONNECTED
    endpoint: str
    ladder: bool
    token_hash: str  # sha-256 of the bot token
    created_at_ms: int

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | bytes) -> BotRecord:
        data = json.loads(text)
        data["game_types"] = tuple(data["game_types"])
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Ladder:
    """A bot's rating on a ladder: openskill's Plackett-Luce, from its rated games."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    games: int = 0
    wins: float = 0.0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | bytes) -> Ladder:
        return cls(**json.loads(text))


@dataclass(frozen=True, slots=True)
class LadderState:
    """A ladder's rated games (number -> game id and the bot at each seat), the numbers rated,
    and every rating."""

    games: Mapping[int, tuple[str, tuple[str, ...]]]
    rated: frozenset[int]
    ratings: Mapping[str, Ladder]

    @property
    def playing(self) -> list[int]:
        return sorted(n for n in self.games if n not in self.rated)


class TournamentStore(ABC):
    @abstractmethod
    async def create(self, spec: TournamentSpec, total: int) -> None:
        """Keep a new tournament (running, ``total`` games, version 0) and index it due now."""

    @abstractmethod
    async def load(self, tournament_id: str) -> TournamentState:
        """Raise TournamentNotFound if there is none."""

    @abstractmethod
    async def start_game(self, tournament_id: str, number: int, game_id: str, event: str) -> bool:
        """Start game ``number`` (see the module's notes); False (nothing written) otherwise."""

    @abstractmethod
    async def count_result(
        self, tournament_id: str, result: Result, expected: int, event: str, end_event: str
    ) -> str:
        """COUNTED, ALREADY, STALE or ENDED (see the module's notes). ``end_event`` is written
        after ``event`` when this result is the tournament's last."""

    @abstractmethod
    async def cancel(self, tournament_id: str, event: str) -> bool:
        """End a running tournament as cancelled; False if it was not running."""

    @abstractmethod
    async def events(self, tournament_id: str, from_version: int) -> list[str]:
        """The events from version ``from_version`` (at least 1) on, in order."""

    @abstractmethod
    async def wait(self, tournament_id: str, after: int, wait_s: float) -> None:
        """Return once the tournament passes version ``after`` (a step on any replica), after
        ``wait_s``, or earlier when a notification may have been missed: the caller reads the
        events then, whichever it was. A wait costs the store no command (Redis: the replica's
        one subscription wakes it)."""

    @abstractmethod
    async def due(self, now_ms: int, limit: int, lease_ms: int) -> list[str]:
        """Up to ``limit`` indexed tournaments due at ``now_ms``, each leased until
        ``now_ms + lease_ms``."""

    @abstractmethod
    async def look_again(self, tournament_id: str, at_ms: int | None) -> None:
        """Index the tournament due at ``at_ms``; None: drop it (it has ended)."""

    @abstractmethod
    async def page(self, limit: int, before: tuple[int, str] | None) -> list[TournamentState]:
        """Tournaments newest first, strictly before (created_at_ms, id) ``before``."""


@dataclass
class _Tournament:
    state: TournamentState
    total: int
    events: list[str] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class MemoryTournamentStore(TournamentStore):
    """One process: every method runs without awaiting between its reads and writes, so each
    is atomic on its event loop."""

    def __init__(self) -> None:
        self._t: dict[str, _Tournament] = {}
        self._due: dict[str, int] = {}

    def _get(self, tournament_id: str) -> _Tournament:
        found = self._t.get(tournament_id)
        if found is None:
            raise TournamentNotFound(tournament_id)
        return found

    def _append(self, t: _Tournament, *events: str, **changes: object) -> int:
        t.events.extend(events)
        t.state = replace(t.state, version=len(t.events), **changes)  # type: ignore[arg-type]
        t.changed.set()
        t.changed = asyncio.Event()
        return len(t.events)

    async def create(self, spec: TournamentSpec, total: int) -> None:
        if spec.tournament_id in self._t:
            raise ValueError(f"tournament {spec.tournament_id!r} exists")
        state = TournamentState(spec, RUNNING, 0, {}, {})
        self._t[spec.tournament_id] = _Tournament(state, total)
        self._due[spec.tournament_id] = 0

    async def load(self, tournament_id: str) -> TournamentState:
        return self._get(tournament_id).state

    async def start_game(self, tournament_id: str, number: int, game_id: str, event: str) -> bool:
        t = self._get(tournament_id)
        s = t.state
        playing = len(s.games) - len(s.results)
        if (
            s.status != RUNNING
            or number != len(s.games)
            or number >= t.total
            or playing >= s.spec.games_at_once
        ):
            return False
        self._append(t, event, games={**s.games, number: game_id})
        return True

    async def count_result(
        self, tournament_id: str, result: Result, expected: int, event: str, end_event: str
    ) -> str:
        t = self._get(tournament_id)
        s = t.state
        if s.status != RUNNING:
            return ENDED
        if result.number in s.results:
            return ALREADY
        if len(s.results) != expected:
            return STALE
        results = {**s.results, result.number: result}
        if len(results) >= t.total:
            self._append(t, event, end_event, results=results, status=FINISHED)
        else:
            self._append(t, event, results=results)
        return COUNTED

    async def cancel(self, tournament_id: str, event: str) -> bool:

        t = self._get(tournament_id)
        if t.state.status != RUNNING:
            return False
        self._append(t, event, status=CANCELLED)
        return True

    async def events(self, tournament_id: str, from_version: int) -> list[str]:
        return self._get(tournament_id).events[max(from_version, 1) - 1 :]

    async def wait(self, tournament_id: str, after: int, wait_s: float) -> None:
        t = self._get(tournament_id)
        if t.state.version > after:
            return
        changed = t.changed
        try:
            await asyncio.wait_for(changed.wait(), wait_s if math.isfinite(wait_s) else None)
        except TimeoutError:
            return

    async def due(self, now_ms: int, limit: int, lease_ms: int) -> list[str]:
        ready = sorted((at, tid) for tid, at in self._due.items() if at <= now_ms)[:limit]
        for _, tid in ready:
            self._due[tid] = now_ms + lease_ms
        return [tid for _, tid in ready]

    async def look_again(self, tournament_id: str, at_ms: int | None) -> None:
        if at_ms is None:
            self._due.pop(tournament_id, None)
        else:
            self._due[tournament_id] = at_ms

    async def page(self, limit: int, before: tuple[int, str] | None) -> list[TournamentState]:
        states = sorted(
            (t.state for t in self._t.values()),
            key=lambda s: (s.spec.created_at_ms, s.spec.tournament_id),
            reverse=True,
        )
        return [
            s
            for s in states
            if before is None or (s.spec.created_at_ms, s.spec.tournament_id) < before
        ][:limit]
