"""The GameStore contract for claiming the deadline index, on every adapter (memory, one Redis, a
Redis Cluster): a claim (``due`` with a lease) gives each due entry to one claimer, however many
claim at once, until its lease ends; then the entry is due again (``lapsed``) for any claimer.
A claimed entry that is released is due again at once, unless its lease has ended and another
claimer holds it; a handled idle entry moves to the later deadline it is given, even one before
the lease's end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from service.store.base import IDLE, TIMING, Due, Filled, GameStore, SeatRecord, Timing
from tests.store.test_contract import OPENING, Body, new_record, run

__all__ = ["run"]  # the fixture, run against each store

LEASE = 4000


async def _playing(store: GameStore, deadline_ms: int, idle_ms: int) -> str:
    """A game whose table is full: its clock's deadline and its idle deadline indexed."""
    record = new_record()
    await store.create(record, OPENING)
    timing = Timing({"seats": [[5, deadline_ms, 0], [5, None, 0]]}, deadline_ms)
    for seat in (0, 1):
        claim = SeatRecord(f"s{seat}", f"s{seat}")
        assert await store.take_seat(record.game_id, seat, claim, Filled(10, timing, idle_ms))
    return record.game_id


def _mine(entries: list[Due], game_id: str) -> list[Due]:
    return [d for d in entries if d.game_id == game_id]


def test_two_claimers_never_get_the_same_entry_within_its_lease(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        index = store.deadlines
        game_id = await _playing(store, 1000, 5000)
        # Eight sweepers claim at the same moment: each entry goes to exactly one of them.
        claims = await asyncio.gather(*(index.due(6000, 10_000, LEASE) for _ in range(8)))
        got = [d for claim in claims for d in _mine(claim, game_id)]
        assert sorted(d.kind for d in got) == [IDLE, TIMING]
        assert all(d.leased_until_ms == 6000 + LEASE and not d.lapsed for d in got)
        (timing,) = [d for d in got if d.kind == TIMING]
        assert timing.deadline_ms == 1000  # the deadline it stands for, not the lease
        # Until the lease ends, neither a claim nor a plain read returns them.
        assert _mine(await index.due(6000 + LEASE - 1, 10_000, LEASE), game_id) == []
        assert _mine(await index.due(6000 + LEASE - 1, 10_000), game_id) == []

    run(body)


def test_an_entry_whose_lease_ran_out_is_due_again_for_one_claimer(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        index = store.deadlines
        game_id = await _playing(store, 1000, 10**12)  # (its idle entry far away)
        (first,) = _mine(await index.due(2000, 10_000, LEASE), game_id)
        assert not first.lapsed
        # Its holder died: at the lease's end another claims it, told the lease lapsed, and
        # the entry still names its own deadline.
        again = await asyncio.gather(*(index.due(2000 + LEASE, 10_000, LEASE) for _ in range(4)))
        (second,) = [d for claim in again for d in _mine(claim, game_id)]
        assert second.lapsed and second.deadline_ms == 1000 and second.kind == TIMING
        assert second.leased_until_ms == 2000 + 2 * LEASE
        # The first holder, late, gives back what it no longer holds: nothing changes.
        await index.release(first)
        assert _mine(await index.due(2000 + 2 * LEASE - 1, 10_000, LEASE), game_id) == []
        # The holder's own release makes it due at once, for one claimer.
        await index.release(second)
        (third,) = _mine(await index.due(2000 + LEASE + 1, 10_000, LEASE), game_id)
        assert third.deadline_ms == 1000 and not third.lapsed
        await index.done(third)  # its lease ends with it (the memory store keeps the game's own)
        left = _mine(await index.due(2000 + LEASE + 1, 10_000), game_id)
        assert [d.deadline_ms for d in left] in ([], [1000])

    run(body)


def test_a_claimed_idle_entry_moves_to_the_later_deadline_or_is_dropped(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        index = store.deadlines
        moved = await _playing(store, 10**12, 5000)
        ended = await _playing(store, 10**12, 5000)
        claimed = await index.due(6000, 10_000, LEASE)
        (moved_entry,) = _mine(claimed, moved)
        (ended_entry,) = _mine(claimed, ended)
        # The game moved on: its idle entry is due at the later deadline, though the lease
        # (until 10000) has not ended.
        await index.done(moved_entry, 8000)
        (later,) = _mine(await index.due(8000, 10_000, LEASE), moved)
        assert later.kind == IDLE and later.deadline_ms == 8000
        # Nothing moved the other since its claim: handled, it is gone.
        await index.done(ended_entry)
        assert _mine(await index.due(10**13, 10_000), ended) != []  # its clock's entry only
        assert all(d.kind == TIMING for d in _mine(await index.due(10**13, 10_000), ended))

    run(body)
