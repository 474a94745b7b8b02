"""The GameStore contract for finding a game (issue 29), on every adapter: games made by a
known id, private tables' access, and the quick play queue's atomic step."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Callable

import pytest

from service.store.base import (
    MAX_DEVICES,
    MAX_PLAYER_GAMES,
    QUEUE_BOT,
    Access,
    GameExists,
    GameStore,
    SeatRecord,
    Ticket,
)
from tests.store.test_contract import OPENING, Body, new_record, run

__all__ = ["run"]  # the fixture, run against each store

NOW = 1_800_000_000_000
GRACE = 10_000


def _ticket(n: int, at: int = NOW, bot_at: int = 0) -> Ticket:
    return Ticket(token_hash=f"seat-{n}", player_name=f"p{n}", queued_ms=at, bot_at_ms=bot_at)


async def _step(
    store: GameStore,
    pool: str,
    n: int,
    *,
    new: bool = True,
    now: int = NOW,
    seats: int = 4,
    bot_at: int = 0,
) -> tuple[Ticket | None, int]:
    step = await store.queues.queue_step(
        pool,
        f"ticket-{n}",
        _ticket(n, now, bot_at) if new else None,
        now_ms=now,
        grace_ms=GRACE,
        seats=seats,
        game_id=f"game-{uuid.uuid4().hex[:8]}",
        definition='{"game_type": "counterpoint"}',
    )
    assert step.definition == '{"game_type": "counterpoint"}'
    return step.ticket, step.waiting


def _pool() -> str:
    return uuid.uuid4().hex[:16] + "s4"


def test_a_game_is_made_once_by_its_id(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        other = dataclasses.replace(record, game_type="sixty-six", seed=b"other")
        with pytest.raises(GameExists):
            await store.create(other, OPENING)
        assert await store.load(record.game_id) == record

    run(body)


def test_an_unlisted_game_is_not_in_the_lobby_and_its_access_is_compared(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        access = Access(unlisted=True, invite_hash="h-invite", seat_hashes={1: "h-seat"})
        record = dataclasses.replace(new_record(), access=access)
        await store.create(record, OPENING)
        assert (await store.load(record.game_id)).access == access
        listed = await store.list_open("counterpoint", 10_000)
        assert record.game_id not in {g.game_id for g in listed}

        revoked = Access(unlisted=True, invite_hash="", seat_hashes={1: "h-seat"})
        assert await store.set_access(record.game_id, access, revoked)
        assert not await store.set_access(record.game_id, access, access)  # changed meanwhile
        # A take checked against the access before the revoke takes nothing.
        alice = SeatRecord("hash-a", "alice")
        assert not await store.take_seat(record.game_id, 0, alice, access=access)
        assert (await store.load(record.game_id)).seats == (None, None)
        assert await store.take_seat(record.game_id, 0, alice, access=revoked)
        # Freed, an unlisted game's seat still does not list it.
        assert await store.free_seat(record.game_id, 0, "hash-a")
        listed = await store.list_open("counterpoint", 10_000)
        assert record.game_id not in {g.game_id for g in listed}

    run(body)


def test_a_full_queue_seats_each_ticket_once_at_one_game(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        pool = _pool()
        for n in range(3):
            ticket, waiting = await _step(store, pool, n)
            assert ticket is not None and not ticket.game_id and waiting == n + 1
        seated, waiting = await _step(store, pool, 3)
        assert seated is not None and seated.game_id and seated.seat == 0 and waiting == 0
        assert [s["token_hash"] for s in seated.match] == ["seat-3", "seat-0", "seat-1", "seat-2"]
        for n in range(3):  # each learns its seat at the same game, by looking
            ticket, _ = await _step(store, pool, n, new=False)
            assert ticket is not None and ticket.game_id == seated.game_id and ticket.seat == n + 1
        # Added again, a seated ticket is not queued again.
        again, waiting = await _step(store, pool, 0)
        assert again is not None and again.game_id == seated.game_id and waiting == 0

    run(body)


def test_racing_steps_seat_every_ticket_exactly_once(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        pool = _pool()
        await asyncio.gather(*(_step(store, pool, n) for n in range(10)))
        looks = await asyncio.gather(*(_step(store, pool, n, new=False) for n in range(10)))
        games: dict[str, list[int]] = {}
        for ticket, _ in looks:
            assert ticket is not None
            if ticket.game_id:
                games.setdefault(ticket.game_id, []).append(ticket.seat)
        assert len(games) == 2 and all(sorted(s) == [0, 1, 2, 3] for s in games.values())
        assert sum(1 for t, _ in looks if t is not None and not t.game_id) == 2

    run(body)


def test_a_ticket_gone_past_its_grace_or_cancelled_is_never_seated(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        pool = _pool()
        await _step(store, pool, 0)
        await _step(store, pool, 1, now=NOW + GRACE // 2)
        assert await store.queues.queue_cancel(pool, "ticket-1") is True
        assert await store.queues.queue_cancel(pool, "ticket-1") is None
        later = NOW + GRACE + 1  # ticket 0 has not looked since NOW
        for n in range(2, 6):
            ticket, _ = await _step(store, pool, n, now=later)
        assert ticket is not None and ticket.game_id
        assert {s["token_hash"] for s in ticket.match} == {f"seat-{n}" for n in range(2, 6)}
        for n in (0, 1):
            gone, _ = await _step(store, pool, n, new=False, now=later)
            assert gone is None
        assert await store.queues.queue_cancel(pool, "ticket-2") is False  # seated: it stays so

    run(body)


def test_a_ticket_whose_bot_time_came_is_seated_with_bots(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        pool = _pool()
        await _step(store, pool, 0)
        waiting, _ = await _step(store, pool, 1, bot_at=NOW + 1000)
        assert waiting is not None and not waiting.game_id
        seated, left = await _step(store, pool, 1, new=False, now=NOW + 1000)
        assert seated is not None and seated.game_id and left == 0
        assert [s["token_hash"] for s in seated.match[:2]] == ["seat-1", "seat-0"]
        assert [s.get("bot") for s in seated.match[2:]] == [QUEUE_BOT, QUEUE_BOT]

    run(body)


def test_a_players_seat_takes_devices_and_their_games_are_indexed(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        record = new_record()
        await store.create(record, OPENING)
        mine = SeatRecord("hash-a", "alice", player_id="alice")
        assert await store.take_seat(record.game_id, 0, mine)
        assert await store.take_seat(record.game_id, 1, SeatRecord("hash-b", "bob"))
        assert not await store.players.add_device(record.game_id, 0, "mallory", "hash-m")
        assert not await store.players.add_device(record.game_id, 1, "bob", "hash-m")  # no identity
        for n in range(MAX_DEVICES + 2):
            assert await store.players.add_device(record.game_id, 0, "alice", f"hash-{n}")
        seat = (await store.load(record.game_id)).seats[0]
        assert seat is not None and seat.token_hash == "hash-a" and seat.player_id == "alice"
        assert seat.devices == tuple(f"hash-{n}" for n in range(2, MAX_DEVICES + 2))

        player = f"p-{uuid.uuid4().hex}"
        for n in range(MAX_PLAYER_GAMES + 3):
            await store.players.note_game(player, f"g{n}", NOW + n)
        await store.players.note_game(player, "g0", NOW + 10_000)  # noted again: the latest
        games = await store.players.player_games(player, 5)
        assert games == [
            "g0",
            f"g{MAX_PLAYER_GAMES + 2}",
            f"g{MAX_PLAYER_GAMES + 1}",
            f"g{MAX_PLAYER_GAMES}",
            f"g{MAX_PLAYER_GAMES - 1}",
        ]
        assert len(await store.players.player_games(player, 10_000)) == MAX_PLAYER_GAMES
        assert await store.players.player_games("nobody", 5) == []

    run(body)


def test_a_look_with_an_unknown_ticket_leaves_the_queue_as_it_was(
    run: Callable[[Body], None],
) -> None:
    async def body(store: GameStore) -> None:
        pool = _pool()
        step = await store.queues.queue_step(
            pool, "nobody", None, now_ms=NOW, grace_ms=GRACE, seats=4, game_id="g", definition=""
        )
        assert step.ticket is None and step.waiting == 0
        ticket, waiting = await _step(store, pool, 0)  # the definition is the first one given
        assert ticket is not None and waiting == 1

    run(body)
