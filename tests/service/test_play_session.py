"""The play stream's session at the GameService level (transport-free), on two replicas of one
Redis: the events of a move this replica committed come from its cache, a move committed
through another replica is read from the store, and both give the seat the same projection.
And the holding of answers for ``wait_for_turn``, step by step."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

from engine import get_rules
from engine.core.events import event_from_data
from service.game_service import GameService, ProjectedBatch
from service.play import (
    Incoming,
    MoveAnswer,
    MoveAsk,
    PlaySession,
    PlayStep,
    SeatView,
    answered_with_turn,
)
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
    yield ("", lambda: MoveAsk(None, 0, ""), None)  # type: ignore[arg-type]  # never reached


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


# -- wait_for_turn: an accepted move's answer waits for the seat's next view -----------------


def _answer(request_id: str, version: int | None = None, error: Exception | None = None) -> Any:
    return MoveAnswer(request_id, version, error)


def _batch(version: int, seat: int) -> ProjectedBatch:
    return ProjectedBatch(version, seat, [], None)


def _view(version: int) -> SeatView:
    return SeatView(version, None)  # type: ignore[arg-type]  # the holding never reads it


def _sent(steps: Sequence[PlayStep | Exception]) -> list[tuple[Any, ...]]:
    """What the holding sends for ``steps`` (an exception: the source fails there), as
    (request id or None, versions of the batches, view version or None), then the error's
    text if one ended it."""

    async def source() -> AsyncIterator[PlayStep]:
        for step in steps:
            if isinstance(step, Exception):
                raise step
            yield step

    async def read() -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        try:
            async for step in answered_with_turn(source()):
                out.append(
                    (
                        step.answer.request_id if step.answer else None,
                        [b.version for b in step.batches],
                        step.view.version if step.view else None,
                    )
                )
        except RuntimeError as ended:
            out.append((str(ended),))
        return out

    return asyncio.run(read())


def test_an_accepted_answer_waits_for_the_next_view_with_the_events_between() -> None:
    sent = _sent(
        [
            PlayStep(view=_view(0)),  # the opening
            PlayStep(answer=_answer("a", 1), batches=[_batch(1, 0)]),
            PlayStep(batches=[_batch(2, 1)]),  # another seat's move: still not to act
            PlayStep(batches=[_batch(3, 2)], view=_view(3)),
        ]
    )
    assert sent == [(None, [], 0), ("a", [1, 2, 3], 3)]


def test_an_answer_with_its_view_and_other_seats_steps_go_at_once() -> None:
    steps = [
        PlayStep(answer=_answer("a", 1), batches=[_batch(1, 0)], view=_view(1)),  # acts again
        PlayStep(batches=[_batch(2, 1)]),  # nothing held: events alone go as they are
    ]
    assert _sent(steps) == [("a", [1], 1), (None, [2], None)]


def test_a_refusal_is_answered_at_once_after_what_was_held() -> None:
    refused = _answer("b", error=ValueError("not your turn"))
    sent = _sent(
        [
            PlayStep(answer=_answer("a", 1), batches=[_batch(1, 0)]),
            PlayStep(answer=refused),
            PlayStep(batches=[_batch(2, 1)], view=_view(2)),
        ]
    )
    assert sent == [("a", [1], None), ("b", [], None), (None, [2], 2)]


def test_what_is_held_is_sent_before_the_stream_ends() -> None:
    held = PlayStep(answer=_answer("a", 1), batches=[_batch(1, 0)])
    assert _sent([held]) == [("a", [1], None)]
    failed = _sent([held, RuntimeError("shutting down")])
    assert failed == [("a", [1], None), ("shutting down",)]


def test_an_answer_to_a_move_older_than_the_last_view_goes_at_once() -> None:
    # A resent move's first result (version 1) after the reopened stream's view at version 2:
    # its client waits for this answer before it acts on that view.
    sent = _sent(
        [
            PlayStep(batches=[_batch(1, 0), _batch(2, 1)], view=_view(2)),
            PlayStep(answer=_answer("a", 1)),
        ]
    )
    assert sent == [(None, [1, 2], 2), ("a", [], None)]
