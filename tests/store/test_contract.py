"""The GameStore contract: one suite, run against every adapter (MemoryStore and RedisStore, on a
real redis-server started by this session and on a real Redis Cluster of three masters and
three replicas). redis-py is only the tests' own look at what the store wrote."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from service.errors import GameNotFound, VersionConflict
from service.store.base import (
    ABANDONED,
    ACTIVE,
    FINISHED,
    IDLE,
    Commit,
    Due,
    EventBatch,
    Filled,
    GameExists,
    GameRecord,
    GameStore,
    MoveRecord,
    RequestSeen,
    SeatRecord,
    Timing,
)
from service.store.memory import MemoryStore
from service.store.redis import RedisStore

Body = Callable[[GameStore], Awaitable[None]]


@pytest.fixture(params=["memory", "redis", "redis-cluster"])
def run(request: pytest.FixtureRequest) -> Callable[[Body], None]:
    """Run a test body against a fresh store of the parametrised kind, on its own loop. The
    RedisStore runs twice: on one Redis, and on a cluster (slot-routed)."""

    def runner(body: Body) -> None:
        async def main() -> None:
            if request.param == "memory":
                store: GameStore = MemoryStore()
            elif request.param == "redis-cluster":
                store = RedisStore.from_url(
                    request.getfixturevalue("redis_cluster_url"), cluster=True
                )
            else:
                store = RedisStore.from_url(request.getfixturevalue("redis_url"))
            try:
                await body(store)
            finally:
                await store.close()

        asyncio.run(main())

    return runner


def new_record(seats: int = 2, game_type: str = "counterpoint") -> GameRecord:
    return GameRecord(
        game_id=uuid.uuid4().hex,
        game_type=game_type,
        options={"target_score": 99, "high_readings": True},
        seed=b"\x01secret",
        seat_count=seats,
        created_at_ms=1_700_000_000_000,
        seats=(None,) * seats,
        snapshot=b"snapshot-0",
    )


OPENING = EventBatch(version=0, seat=None, events=({"type": "deal_started", "deal_no": 1},))


def step(version: int, seat: int = 0, request_id: str = "", status: str = ACTIVE) -> Commit:
    return Commit(
        expected_version=version,
        snapshot=f"snapshot-{version + 1}".encode(),
        batch=EventBatch(
            version=version + 1,
            seat=seat,
            events=({"type": "called", "seat": seat, "call": f"c{version}"},),
            request_id=request_id,
        ),
        status=status,
        move=MoveRecord(
            seat=seat, move={"type": "call", "call": f"c{version}"}, request_id=request_id
        ),
    )


def timed(version: int, deadline_ms: int | None) -> Commit:
    clocks = {"seats": [[0, None, version], [0, deadline_ms, 0]]}
    return dataclasses.replace(step(version), timing=Timing(clocks, deadline_ms))


async def due_here(store: GameStore, game_id: str, now_ms: int) -> list[int]:
    """The deadlines of ``game_id`` due at ``now_ms`` (the index is shared by every test)."""
    return [
        d.deadline_ms for d in await store.deadlines.due(now_ms, 10_000) if d.game_id == game_id
    ]


def test_timing_is_written_with_the_commit_and_indexed(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        first = Timing({"seats": [[5, 1000, 0], [5, None, 0]]}, 1000)
        filled = Filled(at_ms=900, timing=first)
        assert await store.take_seat(record.game_id, 0, SeatRecord("a", "a"), filled)
        assert (await store.load(record.game_id)).timing is None  # not yet full: no clock
        assert await store.take_seat(record.game_id, 1, SeatRecord("b", "b"), filled)
        loaded = await store.load(record.game_id)
        assert loaded.timing == first and loaded.moved_at_ms == 900
        assert await due_here(store, record.game_id, 999) == []
        assert 1000 in await due_here(store, record.game_id, 1000)

        await store.commit(record.game_id, timed(0, 2000))
        loaded = await store.load(record.game_id)
        assert loaded.timing == timed(0, 2000).timing
        # A refused step writes no timing (its index entry may stay: a stale hint).
        with pytest.raises(VersionConflict):
            await store.commit(record.game_id, timed(0, 1500))
        assert (await store.load(record.game_id)).timing == loaded.timing
        for entry in await store.deadlines.due(10_000, 10_000):
            if entry.game_id == record.game_id:
                await store.deadlines.done(entry)
        # Handled entries are gone (Redis), or were never more than the game's own deadline.
        assert await due_here(store, record.game_id, 10_000) in ([], [2000])

        await store.commit(record.game_id, timed(1, None))  # no clock runs: nothing is due
        assert (await store.load(record.game_id)).timing == timed(1, None).timing
        assert await due_here(store, record.game_id, 10_000) == []
        # A step without timing leaves the game's timing as it is.
        await store.commit(record.game_id, step(2))
        assert (await store.load(record.game_id)).timing == timed(1, None).timing

    run(body)


def test_idleness_is_indexed_when_the_table_fills_and_watched_again(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        await store.take_seat(record.game_id, 0, SeatRecord("a", "a"), Filled(10, None, 5000))
        await store.take_seat(record.game_id, 1, SeatRecord("b", "b"), Filled(10, None, 5000))

        async def idle(now: int) -> list[Due]:
            return [
                d for d in await store.deadlines.due(now, 10_000) if d.game_id == record.game_id
            ]

        assert await idle(4999) == []
        (entry,) = await idle(5000)
        assert entry.kind == IDLE and entry.deadline_ms == 5000
        await store.commit(record.game_id, dataclasses.replace(step(0), at_ms=6000))
        assert (await store.load(record.game_id)).moved_at_ms == 6000
        await store.deadlines.watch_idle(record.game_id, 9000)  # a sweeper saw the game move on
        await store.deadlines.done(entry)
        assert [(d.kind, d.deadline_ms) for d in await idle(10_000)] == [(IDLE, 9000)]
        assert await store.deadlines.next_deadline() is not None

    run(body)


@pytest.mark.parametrize("ending", [FINISHED, ABANDONED])
def test_a_game_leaves_the_deadline_index_in_the_step_that_ends_it(
    run: Callable[[Body], None], ending: str
) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        # Each join says what it would write if it filled the table (a store may index it
        # before it knows): the clock's first deadline and the idle deadline.
        first = Timing({"seats": [[5, 1000, 0], [5, None, 0]]}, 1000)
        await store.take_seat(record.game_id, 0, SeatRecord("a", "a"), Filled(900, first, 5000))
        await store.take_seat(record.game_id, 1, SeatRecord("b", "b"), Filled(950, first, 5050))
        await store.commit(record.game_id, timed(0, 2000))
        mine = [d for d in await store.deadlines.due(10**13, 10_000) if d.game_id == record.game_id]
        assert [d.deadline_ms for d in mine if d.kind == IDLE] == [5050]
        assert 2000 in [d.deadline_ms for d in mine if d.kind != IDLE]
        ends = dataclasses.replace(timed(1, None), status=ending)
        await store.commit(record.game_id, ends)
        assert await due_here(store, record.game_id, 10**13) == []

    run(body)


def test_a_game_has_one_idle_entry_and_it_only_moves_later(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        record = new_record(seats=3)
        await store.create(record, OPENING)
        for seat, idle_at in enumerate((5000, 5100, 5200)):
            claim = SeatRecord(f"s{seat}", f"s{seat}")
            await store.take_seat(record.game_id, seat, claim, Filled(10, None, idle_at))

        async def idle(now: int) -> list[tuple[str, int]]:
            return [
                (d.kind, d.deadline_ms)
                for d in await store.deadlines.due(now, 10_000)
                if d.game_id == record.game_id
            ]

        assert await idle(10**13) == [(IDLE, 5200)]  # the join that filled the table
        await store.deadlines.watch_idle(record.game_id, 4000)  # an earlier deadline never wins
        assert await idle(10**13) == [(IDLE, 5200)]

    run(body)


def test_a_take_that_leaves_a_seat_open_indexes_nothing(run: Callable[[Body], None]) -> None:
    """So an open game that expires before its table fills leaves nothing in the index."""

    async def body(store: GameStore) -> None:
        record = new_record(seats=3)
        await store.create(record, OPENING)
        first = Timing({"seats": [[5, 1000, 0], [5, None, 0], [5, None, 0]]}, 1000)
        for seat in (0, 1):
            claim = SeatRecord(f"s{seat}", f"s{seat}")
            assert await store.take_seat(record.game_id, seat, claim, Filled(10, first, 5000))
        assert not await store.take_seat(
            record.game_id, 1, SeatRecord("x", "x"), Filled(10, first, 5000)
        )
        assert await due_here(store, record.game_id, 10**13) == []
        assert await store.take_seat(
            record.game_id, 2, SeatRecord("c", "c"), Filled(20, first, 6000)
        )
        assert sorted(await due_here(store, record.game_id, 10**13)) == [1000, 6000]
        assert (await store.load(record.game_id)).timing == first

    run(body)


def test_an_idle_entry_moved_on_by_a_sweeper_is_not_indexed_again_once_the_game_ended(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        for seat in (0, 1):
            claim = SeatRecord(f"s{seat}", f"s{seat}")
            await store.take_seat(record.game_id, seat, claim, Filled(10, None, 5000))
        index = store.deadlines
        (entry,) = [d for d in await index.due(5000, 10_000) if d.game_id == record.game_id]
        # A sweeper saw the game move on (later deadline 9000); before it says so, the game
        # ends on another replica.
        await store.commit(record.game_id, dataclasses.replace(step(0), status=FINISHED))
        await index.done(entry, 9000)
        assert await due_here(store, record.game_id, 10**13) == []

    run(body)


def test_a_handled_idle_entry_moves_to_the_later_deadline_it_is_given(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        for seat in (0, 1):
            claim = SeatRecord(f"s{seat}", f"s{seat}")
            await store.take_seat(record.game_id, seat, claim, Filled(10, None, 5000))
        index = store.deadlines
        (entry,) = [d for d in await index.due(5000, 10_000) if d.game_id == record.game_id]
        await index.done(entry, 9000)
        await index.done(entry, 9000)  # a second sweeper that saw the same: the same outcome
        assert await due_here(store, record.game_id, 10**13) == [9000]
        await index.done(entry)  # a stale handle (5000) drops nothing
        assert await due_here(store, record.game_id, 10**13) == [9000]
        (moved,) = [d for d in await index.due(9000, 10_000) if d.game_id == record.game_id]
        await index.done(moved)
        assert await due_here(store, record.game_id, 10**13) == []

    run(body)


def test_presence_is_kept_per_seat(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        assert await store.presence.seen(record.game_id) == {}
        await store.presence.touch(record.game_id, 1, 1000)
        await store.presence.touch(record.game_id, 1, 2000)
        await store.presence.touch(record.game_id, 0, 1500)
        assert await store.presence.seen(record.game_id) == {0: 1500, 1: 2000}

    run(body)


def test_the_time_control_is_stored_with_the_game(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        # Whole TimeControl data: a server on the same Redis lists this open game in its lobby.
        tc = {
            "move_ms": 1,
            "bank_ms": 2,
            "increment_ms": 3,
            "on_timeout": "forfeit",
            "forfeit_after": 0,
        }
        record = dataclasses.replace(new_record(), time_control=tc)
        await store.create(record, OPENING)
        assert (await store.load(record.game_id)).time_control == tc

    run(body)


def test_a_created_game_loads_as_stored(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        assert await store.load(record.game_id) == record
        assert await store.moves(record.game_id) == []
        assert await store.read_events(record.game_id, 0) == [OPENING]

    run(body)


def test_a_game_is_never_created_over_one_with_its_id(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        await store.commit(record.game_id, step(0))
        with pytest.raises(GameExists):
            await store.create(dataclasses.replace(record, seat_count=4), OPENING)
        kept = await store.load(record.game_id)
        assert kept.version == 1 and kept.seat_count == record.seat_count

    run(body)


def test_an_unknown_game_is_not_found(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        with pytest.raises(GameNotFound):
            await store.load("nope")
        with pytest.raises(GameNotFound):
            await store.commit("nope", step(0))
        with pytest.raises(GameNotFound):
            await store.read_events("nope", 0)

    run(body)


def test_commit_advances_the_version_and_appends_move_and_events(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        assert await store.commit(record.game_id, step(0, seat=1, request_id="r1")) == 1
        assert await store.commit(record.game_id, step(1, seat=0, request_id="r2")) == 2
        loaded = await store.load(record.game_id)
        assert (loaded.version, loaded.snapshot) == (2, b"snapshot-2")
        assert [m.seat for m in await store.moves(record.game_id)] == [1, 0]
        assert [b.version for b in await store.read_events(record.game_id, 0)] == [0, 1, 2]
        assert [b.version for b in await store.read_events(record.game_id, 2)] == [2]
        assert await store.request_version(record.game_id, "r2") == 2
        assert await store.request_version(record.game_id, "unseen") is None

    run(body)


def test_a_stale_commit_is_rejected_with_the_current_version_and_writes_nothing(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        await store.commit(record.game_id, step(0))
        before = await store.load(record.game_id)
        with pytest.raises(VersionConflict) as caught:
            await store.commit(record.game_id, step(0, seat=1, request_id="late"))
        assert caught.value.current_version == 1
        assert await store.load(record.game_id) == before
        assert len(await store.moves(record.game_id)) == 1
        assert len(await store.read_events(record.game_id, 0)) == 2
        assert await store.request_version(record.game_id, "late") is None

    run(body)


def test_a_commit_with_a_request_id_seen_before_writes_nothing_whatever_its_version(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        game = new_record()
        await store.create(game, OPENING)
        assert await store.commit(game.game_id, step(0, request_id="r1")) == 1
        for version in (0, 1):  # a retry decided on the old version, or on the current one
            with pytest.raises(RequestSeen) as seen:
                await store.commit(game.game_id, step(version, request_id="r1"))
            assert seen.value.version == 1
        loaded = await store.load(game.game_id)
        assert loaded.version == 1 and len(await store.moves(game.game_id)) == 1
        assert [b.version for b in await store.read_events(game.game_id, 0)] == [0, 1]

    run(body)


def test_concurrent_commits_at_one_version_let_exactly_one_win(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        results = await asyncio.gather(
            *(store.commit(record.game_id, step(0, seat=i % 2)) for i in range(8)),
            return_exceptions=True,
        )
        assert sum(r == 1 for r in results) == 1
        assert sum(isinstance(r, VersionConflict) for r in results) == 7
        assert (await store.load(record.game_id)).version == 1
        assert len(await store.moves(record.game_id)) == 1

    run(body)


async def _read_when_committed(
    store: GameStore, game_id: str, from_version: int, wait_s: float
) -> list[EventBatch]:
    """What an event stream does: read, and if nothing is new, wait for a commit and read."""
    batches = await store.read_events(game_id, from_version)
    if not batches and await store.wait_for_version(game_id, from_version - 1, wait_s):
        batches = await store.read_events(game_id, from_version)
    return batches


def test_a_waiting_reader_wakes_on_the_next_commit(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        reader = asyncio.create_task(_read_when_committed(store, record.game_id, 1, 5))
        await asyncio.sleep(0.05)
        assert not reader.done()
        await store.commit(record.game_id, step(0))
        batches = await asyncio.wait_for(reader, 5)
        assert [b.version for b in batches] == [1]
        assert await _read_when_committed(store, record.game_id, 2, 0.05) == []

    run(body)


def test_a_version_waiter_wakes_on_the_next_commit(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        # Nothing after version 0 yet: the wait runs out with None.
        assert await store.wait_for_version(record.game_id, 0, 0.05) is None
        waiter = asyncio.create_task(store.wait_for_version(record.game_id, 0, 30))
        await asyncio.sleep(0.05)
        assert not waiter.done()
        await store.commit(record.game_id, step(0))
        assert await asyncio.wait_for(waiter, 10) == 1
        # A version already passed answers at once, whatever the wait.
        assert await asyncio.wait_for(store.wait_for_version(record.game_id, 0, 30), 10) == 1
        with pytest.raises(GameNotFound):
            await store.wait_for_version("nope", 0, 0.05)

    run(body)


def test_seats_are_taken_once_and_freed_only_before_the_game_starts(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        alice, bob = SeatRecord("hash-a", "alice"), SeatRecord("hash-b", "bob")
        assert await store.take_seat(record.game_id, 0, alice)
        assert not await store.take_seat(record.game_id, 0, bob)
        assert not await store.free_seat(record.game_id, 0, "hash-b")  # not bob's seat
        assert await store.free_seat(record.game_id, 0, "hash-a")
        assert await store.take_seat(record.game_id, 0, bob)
        assert await store.take_seat(record.game_id, 1, alice)
        loaded = await store.load(record.game_id)
        assert loaded.seats == (bob, alice) and loaded.full
        assert not await store.free_seat(record.game_id, 1, "hash-a")  # the table is full

    run(body)


def test_the_lobby_lists_open_games_by_type_in_pages(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        tag = uuid.uuid4().hex[:8]
        kind = f"lobby-{tag}"
        open_games = []
        for i in range(5):
            record = dataclasses.replace(
                new_record(game_type=kind), created_at_ms=2_000_000_000_000 + i
            )
            await store.create(record, OPENING)
            open_games.append(record.game_id)
        full = new_record(game_type=kind)
        await store.create(full, OPENING)
        await store.take_seat(full.game_id, 0, SeatRecord("a", "a"))
        await store.take_seat(full.game_id, 1, SeatRecord("b", "b"))
        first = await store.list_open(kind, 3)
        last = first[-1]
        # the game a page ended on fills up before the next page is asked for
        await store.take_seat(last.game_id, 0, SeatRecord("c", "c"))
        await store.take_seat(last.game_id, 1, SeatRecord("d", "d"))
        rest = await store.list_open(kind, 3, (last.created_at_ms, last.game_id))
        assert [g.game_id for g in first + rest] == open_games
        assert all(g.game_type == kind for g in first + rest)
        assert await store.list_open(f"other-{tag}", 10) == []

    run(body)


def test_finished_and_abandoned_games_leave_the_lobby(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        kind = f"end-{uuid.uuid4().hex[:8]}"
        done, quit_ = new_record(game_type=kind), new_record(game_type=kind)
        for record in (done, quit_):
            await store.create(record, OPENING)
        await store.commit(done.game_id, step(0, status=FINISHED))
        await store.commit(
            quit_.game_id,
            dataclasses.replace(step(0), move=None, status=ABANDONED, resigned_seat=1),
        )
        assert await store.list_open(kind, 10) == []
        assert (await store.load(done.game_id)).status == FINISHED
        abandoned = await store.load(quit_.game_id)
        assert (abandoned.status, abandoned.resigned_seat) == (ABANDONED, 1)
        assert await store.moves(quit_.game_id) == []

    run(body)


def test_memory_store_forgets_finished_games_after_the_ttl() -> None:
    now = [1000.0]

    async def body() -> None:
        store = MemoryStore(finished_ttl_s=60, clock=lambda: now[0])
        record = new_record()
        await store.create(record, OPENING)
        await store.commit(record.game_id, step(0, status=FINISHED))
        now[0] += 59
        assert (await store.load(record.game_id)).status == FINISHED
        now[0] += 2
        with pytest.raises(GameNotFound):
            await store.load(record.game_id)

    asyncio.run(body())


def test_redis_store_keeps_a_game_under_one_hash_tag_and_expires_it_when_finished(
    redis_url: str,
) -> None:
    async def body() -> None:
        store = RedisStore.from_url(redis_url, finished_ttl_s=120)
        record = new_record()
        await store.create(record, OPENING)
        await store.take_seat(record.game_id, 0, SeatRecord("a", "a"))
        await store.commit(record.game_id, step(0, request_id="r"))
        client: Any = aioredis.Redis.from_url(redis_url)  # replies as bytes
        keys = sorted(k.decode() for k in await client.keys(f"*{record.game_id}*"))
        assert len(keys) == 6
        assert all(k.startswith(f"tt:{{{record.game_id}}}:") for k in keys)
        assert [await client.ttl(k) for k in keys] == [-1] * 6  # active: no expiry
        await store.commit(record.game_id, step(1, status=FINISHED))
        assert all(0 < ttl <= 120 for ttl in [await client.ttl(k) for k in keys])
        await store.close()
        await client.aclose()

    asyncio.run(body())


def test_memory_store_drops_a_game_whose_seats_never_fill_after_the_open_ttl() -> None:
    now = [1000.0]

    async def body() -> None:
        store = MemoryStore(open_ttl_s=60, clock=lambda: now[0])
        waiting, filled = new_record(), new_record()
        for record in (waiting, filled):
            await store.create(record, OPENING)
            await store.take_seat(record.game_id, 0, SeatRecord("a", "a"))
        await store.take_seat(filled.game_id, 1, SeatRecord("b", "b"))
        now[0] += 59
        assert [g.game_id for g in await store.list_open("", 10)] == [waiting.game_id]
        now[0] += 2
        with pytest.raises(GameNotFound):
            await store.load(waiting.game_id)
        assert await store.list_open("", 10) == []
        assert (await store.load(filled.game_id)).full  # a full table is kept

    asyncio.run(body())


def test_redis_store_expires_a_waiting_game_unless_its_seats_fill(redis_url: str) -> None:
    async def body() -> None:
        store = RedisStore.from_url(redis_url, open_ttl_s=120)
        record = new_record()
        await store.create(record, OPENING)
        client = aioredis.Redis.from_url(redis_url)
        meta, seats, snapshot, _, _, events = (
            f"tt:{{{record.game_id}}}:{part}"
            for part in ("meta", "seats", "snapshot", "moves", "requests", "events")
        )
        for key in (meta, snapshot, events):
            assert 0 < await client.ttl(key) <= 120
        await store.take_seat(record.game_id, 0, SeatRecord("a", "a"))
        assert 0 < await client.ttl(seats) <= 120  # the seats share the game's expiry
        await store.take_seat(record.game_id, 1, SeatRecord("b", "b"))
        assert [await client.ttl(k) for k in (meta, seats, snapshot, events)] == [-1] * 4
        await store.close()

        short = RedisStore.from_url(redis_url, open_ttl_s=1)
        gone = new_record(game_type="sixty-six")
        await short.create(gone, OPENING)
        await short.take_seat(gone.game_id, 0, SeatRecord("a", "a"))
        assert gone.game_id in [g.game_id for g in await short.list_open("sixty-six", 100)]
        await asyncio.sleep(1.3)
        with pytest.raises(GameNotFound):
            await short.load(gone.game_id)
        assert gone.game_id not in [g.game_id for g in await short.list_open("sixty-six", 100)]
        assert await client.zscore("tt:lobby", gone.game_id) is None  # dropped from the index
        assert await client.keys(f"*{gone.game_id}*") == []
        await short.close()
        await client.aclose()

    asyncio.run(body())
