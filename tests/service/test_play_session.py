"""The play stream's session at the GameService level (transport-free), on two replicas of one
Redis: the events of a move this replica committed come from its cache, a move committed
through another replica is read from the store, and both give the seat the same projection."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

from engine import get_rules
from engine.core.events import event_from_data
from service.game_service import GameService
from service.play import Incoming, MoveAsk, PlaySession, PlayStep
from service.store.base import EventBatch
from tests.service.games import seated
from tests.service.test_replicas import run_replicas


class CountingReads:
    """Counts a store's event reads."""

    def __init__(self, games: GameService) -> None:
        self.reads = 0
        original = games.store.read_events

        async def read_events(game_id: str, from_version: int) -> list[EventBatch]:
            self.reads += 1
            return await original(game_id, from_version)

        games.store.read_events = read_events  # type: ignore[method-assign]


async def _no_moves() -> AsyncIterator[Incoming]:
    await asyncio.Event().wait()  # this seat sends nothing
    yield ("", lambda: MoveAsk(None, 0, ""))  # type: ignore[arg-type]  # never reached


async def _moves_first_legal(games: GameService, game_id: str, token: str) -> int:
    record, view = await games.get_game(game_id, token)
    result = await games.submit_move(
        game_id,
        token,
        view.legal_moves[0],
        expected_version=record.version,
        request_id=uuid.uuid4().hex,
    )
    return result.version


def test_a_stream_takes_the_events_of_its_replicas_moves_from_the_cache(redis_url: str) -> None:
    async def body(a: GameService, b: GameService) -> None:
        game_id, tokens = await seated(a, seed=b"session cache")
        rules = get_rules("counterpoint")
        counting = CountingReads(a)
        steps = PlaySession(a, game_id, tokens[0], 1).items(_no_moves())
        opening: PlayStep = await anext(steps)
        assert opening.view is not None and opening.view.version == 0
        reads = counting.reads
        # Seat 1 moves through replica A: the stream's step needs no read from the store.
        version = await _moves_first_legal(a, game_id, tokens[1])
        step = await asyncio.wait_for(anext(steps), 10)
        assert [batch.version for batch in step.batches] == [version]
        assert counting.reads == reads
        # Seat 0 lays aside through replica B (not on its stream): A's stream reads that
        # move's events from the store.
        version = await _moves_first_legal(b, game_id, tokens[0])
        later = await asyncio.wait_for(anext(steps), 10)
        assert [batch.version for batch in later.batches] == [version]
        assert counting.reads == reads + 1
        # Either way the seat gets the engine's projection of the stored events.
        stored = await a.store.read_events(game_id, 1)
        for got, full in zip([*step.batches, *later.batches], stored, strict=True):
            assert got.events == [rules.project(event_from_data(e), 0) for e in full.events]
            assert got.seat == full.seat
        await steps.aclose()  # type: ignore[attr-defined]  # an async generator

    run_replicas(redis_url, body)
