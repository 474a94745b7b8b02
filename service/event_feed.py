"""What a replica's event streams share: one read per game and version, decoded once.

Many streams watch one game (spectators of a tournament's final, every seat of a table): one
commit's notification wakes them all at once, each wanting the batches from the same version.
:class:`EventFeed` makes that one store read, whose batches are decoded once, and hands the
result to every stream that asked while it was in flight; each stream only projects them for its
viewer, and streams of the same viewer share that too. A read is shared only while it is in
flight, so nothing is cached beyond the streams it woke, and nothing goes stale.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from engine.core.events import Event, event_from_data
from service.store.base import EventBatch, GameStore


@dataclass(frozen=True, slots=True)
class DecodedBatch:
    batch: EventBatch
    events: tuple[Event, ...]  # full, unprojected
    # Projections made for viewers (a seat, None: spectators) by the streams that share this
    # read: the game service's ProjectedBatch, so the same viewer's streams share one.
    projected: dict[int | None, Any] = field(default_factory=dict, compare=False, repr=False)


class EventFeed:
    def __init__(self, store: GameStore) -> None:
        self._store = store
        self._reads: dict[tuple[str, int], asyncio.Future[list[DecodedBatch]]] = {}

    async def read(self, game_id: str, from_version: int) -> list[DecodedBatch]:
        """Batches with version >= ``from_version`` (as :meth:`GameStore.read_events`)."""
        key = (game_id, from_version)
        pending = self._reads.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._read(game_id, from_version))
            self._reads[key] = pending
            pending.add_done_callback(lambda done: self._done(key, done))
        # A stream that goes away must not cancel the read the others wait on.
        return await asyncio.shield(pending)

    async def _read(self, game_id: str, from_version: int) -> list[DecodedBatch]:
        batches = await self._store.read_events(game_id, from_version)
        return [DecodedBatch(b, tuple(event_from_data(e) for e in b.events)) for b in batches]

    def _done(self, key: tuple[str, int], done: asyncio.Future[list[DecodedBatch]]) -> None:
        if self._reads.get(key) is done:
            del self._reads[key]
        if not done.cancelled():
            done.exception()  # retrieved: every waiter may have gone before it failed
