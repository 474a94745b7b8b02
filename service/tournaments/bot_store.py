"""The ports of registered bots (``BotStore``: records, the seats handed to connected bots,
called bots' failures, connected bots' sessions) and of the rated ladders (``LadderStore``), and
their in-memory adapters. The Redis adapters are in :mod:`.redis_bots`."""

from __future__ import annotations

import asyncio
import math
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

from service.tournaments.quotas import MemoryQuotaStore, QuotaStore
from service.tournaments.store import (
    ALREADY,
    COUNTED,
    STALE,
    BotNotFound,
    BotRecord,
    Ladder,
    LadderState,
    MemoryTournamentStore,
    TournamentStore,
)


class BotStore(ABC):
    @abstractmethod
    async def add_bot(self, bot: BotRecord) -> None:
        """Keep a new bot (on the ladders of its game types if it opted in)."""

    @abstractmethod
    async def bot(self, bot_id: str) -> BotRecord:
        """Raise BotNotFound if there is none."""

    @abstractmethod
    async def ladder_bots(self, game_type: str) -> list[BotRecord]:
        """The bots on the ladder of ``game_type``."""

    @abstractmethod
    async def ladder_game_types(self) -> list[str]:
        """The game types whose ladder has a bot: the only ones a replica's ladder looks at
        (an idle server costs its store nothing more than the deadline sweep's read)."""

    @abstractmethod
    async def mark_online(self, bot_id: str, for_ms: int) -> None:
        """A connected bot's session is open (for the next ``for_ms``)."""

    @abstractmethod
    async def online(self, bot_id: str) -> bool: ...

    @abstractmethod
    async def failures(self, bot_id: str) -> int:
        """The bot's failed calls in a row."""

    @abstractmethod
    async def failed(self, bot_id: str) -> int:
        """Count a failed call; the failures in a row now."""

    @abstractmethod
    async def succeeded(self, bot_id: str) -> None:
        """A call answered: the failures in a row start again from 0."""

    @abstractmethod
    async def give_seat(self, bot_id: str, seat: str) -> None:
        """Hand a connected bot a seat (SeatGiven json): its sessions read them in order."""

    @abstractmethod
    async def seats_given(self, bot_id: str, start: int) -> list[str]:
        """The seats handed to the bot, from the ``start``-th on."""

    @abstractmethod
    async def wait_seats(self, bot_id: str, after: int, wait_s: float) -> None:
        """Return once more than ``after`` seats have been handed to the bot (on any replica),
        after ``wait_s``, or earlier when a notification may have been missed: the caller
        reads the seats then, whichever it was."""


class LadderStore(ABC):
    @abstractmethod
    async def ratings(self, game_type: str) -> dict[str, Ladder]:
        """The ratings of the ladder of ``game_type``'s rated bots."""

    @abstractmethod
    async def ladder(self, game_type: str) -> LadderState: ...

    @abstractmethod
    async def ladder_start(
        self, game_type: str, number: int, game_id: str, bots: tuple[str, ...], at_once: int
    ) -> bool:
        """Start rated game ``number`` if it is the next and fewer than ``at_once`` run."""

    @abstractmethod
    async def ladder_rate(
        self, game_type: str, number: int, expected: int, ratings: Mapping[str, Ladder]
    ) -> str:
        """Rate game ``number`` once: write ``ratings`` (computed over ``expected`` rated
        games) if it was not rated and exactly ``expected`` games were. COUNTED, ALREADY or
        STALE."""

    @abstractmethod
    async def lease(self, name: str, holder: str, lease_ms: int) -> bool:
        """Hold ``name`` for ``lease_ms`` if no other holder does (a ladder's advancing)."""


@dataclass(frozen=True, slots=True)
class Stores:
    """Where the tournament room keeps everything: tournaments, bots, ladders, and what each
    client holds of them (:mod:`.quotas`)."""

    tournaments: TournamentStore
    bots: BotStore
    ladders: LadderStore
    quotas: QuotaStore

    async def close(self) -> None:
        """Release connections (they share one client: closing it once closes all)."""
        close = getattr(self.tournaments, "close", None)
        if close is not None:
            await close()


class MemoryBotStore(BotStore):
    def __init__(self) -> None:
        self._bots: dict[str, BotRecord] = {}
        self._seats: dict[str, list[str]] = {}
        self._failures: dict[str, int] = {}
        self._online: dict[str, float] = {}
        self._handed: dict[str, asyncio.Event] = {}  # set (and replaced) at each seat handed

    async def add_bot(self, bot: BotRecord) -> None:
        self._bots[bot.bot_id] = bot

    async def bot(self, bot_id: str) -> BotRecord:
        found = self._bots.get(bot_id)
        if found is None:
            raise BotNotFound(bot_id)
        return found

    async def ladder_game_types(self) -> list[str]:
        return sorted({t for b in self._bots.values() if b.ladder for t in b.game_types})

    async def ladder_bots(self, game_type: str) -> list[BotRecord]:
        return sorted(
            (b for b in self._bots.values() if b.ladder and game_type in b.game_types),
            key=lambda b: (b.created_at_ms, b.bot_id),
        )

    async def give_seat(self, bot_id: str, seat: str) -> None:
        self._seats.setdefault(bot_id, []).append(seat)
        handed = self._handed.pop(bot_id, None)
        if handed is not None:
            handed.set()

    async def wait_seats(self, bot_id: str, after: int, wait_s: float) -> None:
        if len(self._seats.get(bot_id, ())) > after:
            return
        handed = self._handed.setdefault(bot_id, asyncio.Event())
        try:
            await asyncio.wait_for(handed.wait(), wait_s if math.isfinite(wait_s) else None)
        except TimeoutError:
            return

    async def seats_given(self, bot_id: str, start: int) -> list[str]:
        return self._seats.get(bot_id, [])[start:]

    async def mark_online(self, bot_id: str, for_ms: int) -> None:
        self._online[bot_id] = time.monotonic() + for_ms / 1000

    async def online(self, bot_id: str) -> bool:
        return self._online.get(bot_id, 0.0) > time.monotonic()

    async def failures(self, bot_id: str) -> int:
        return self._failures.get(bot_id, 0)

    async def failed(self, bot_id: str) -> int:
        self._failures[bot_id] = self._failures.get(bot_id, 0) + 1
        return self._failures[bot_id]

    async def succeeded(self, bot_id: str) -> None:
        self._failures.pop(bot_id, None)


class MemoryLadderStore(LadderStore):
    def __init__(self) -> None:
        self._ratings: dict[str, dict[str, Ladder]] = {}
        self._ladders: dict[str, dict[int, tuple[str, tuple[str, ...]]]] = {}
        self._rated: dict[str, set[int]] = {}
        self._leases: dict[str, tuple[str, float]] = {}

    async def ratings(self, game_type: str) -> dict[str, Ladder]:
        return dict(self._ratings.get(game_type, {}))

    async def ladder(self, game_type: str) -> LadderState:
        return LadderState(
            dict(self._ladders.get(game_type, {})),
            frozenset(self._rated.get(game_type, set())),
            dict(self._ratings.get(game_type, {})),
        )

    async def ladder_start(
        self, game_type: str, number: int, game_id: str, bots: tuple[str, ...], at_once: int
    ) -> bool:
        games = self._ladders.setdefault(game_type, {})
        rated = self._rated.setdefault(game_type, set())
        if number != len(games) or len(games) - len(rated) >= at_once:
            return False
        games[number] = (game_id, bots)
        return True

    async def ladder_rate(
        self, game_type: str, number: int, expected: int, ratings: Mapping[str, Ladder]
    ) -> str:
        rated = self._rated.setdefault(game_type, set())
        if number in rated:
            return ALREADY
        if len(rated) != expected:
            return STALE
        rated.add(number)
        self._ratings.setdefault(game_type, {}).update(ratings)
        return COUNTED

    async def lease(self, name: str, holder: str, lease_ms: int) -> bool:
        now = time.monotonic()
        held = self._leases.get(name)
        if held is not None and held[0] != holder and held[1] > now:
            return False
        self._leases[name] = (holder, now + lease_ms / 1000)
        return True


def memory_stores() -> Stores:
    return Stores(
        MemoryTournamentStore(), MemoryBotStore(), MemoryLadderStore(), MemoryQuotaStore()
    )
