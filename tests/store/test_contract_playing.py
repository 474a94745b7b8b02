"""The GameStore contract for the lobby's games in play (ListGames with GAME_STATUS_PLAYING), on
every adapter (memory, one Redis, a Redis Cluster): a public game enters the list when its last
seat is taken (or when it is made full), leaves it when it ends, pages like the open list, and
an unlisted game is never in it."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import Callable

import redis.asyncio as aioredis

from service.store.base import ABANDONED, FINISHED, Access, GameStore, SeatRecord
from service.store.redis import RedisStore
from tests.store.test_contract import OPENING, Body, new_record, run, step

__all__ = ["run"]  # the fixture, run against each store


async def _fill(store: GameStore, game_id: str) -> None:
    await store.take_seat(game_id, 0, SeatRecord(f"a-{game_id}", "a"))
    await store.take_seat(game_id, 1, SeatRecord(f"b-{game_id}", "b"))


def test_games_in_play_are_listed_apart_from_open_ones(run: Callable[[Body], None]) -> None:
    async def body(store: GameStore) -> None:
        kind = f"playing-{uuid.uuid4().hex[:8]}"
        games = [
            dataclasses.replace(new_record(game_type=kind), created_at_ms=2_100_000_000_000 + i)
            for i in range(6)
        ]
        for record in games:
            await store.create(record, OPENING)
        playing = [g.game_id for g in games[:5]]
        for game_id in playing:
            await _fill(store, game_id)
        half = games[5].game_id
        await store.take_seat(half, 0, SeatRecord("h", "h"))  # one seat still open
        # An unlisted game being played, and one made full at once (a bot table, a rematch).
        hidden = dataclasses.replace(new_record(game_type=kind), access=Access(unlisted=True))
        await store.create(hidden, OPENING)
        await _fill(store, hidden.game_id)
        made_full = dataclasses.replace(
            new_record(game_type=kind),
            created_at_ms=2_100_000_000_100,
            seats=(SeatRecord("x", "x"), SeatRecord("", "heuristic", bot="heuristic")),
        )
        await store.create(made_full, OPENING)
        playing.append(made_full.game_id)

        first = await store.list_open(kind, 3, playing=True)
        rest = await store.list_open(
            kind, 10, (first[-1].created_at_ms, first[-1].game_id), playing=True
        )
        assert [g.game_id for g in first + rest] == playing
        assert all(g.full and g.listed for g in first + rest)
        assert [g.game_id for g in await store.list_open(kind, 10)] == [half]
        assert await store.list_open(f"other-{kind}", 10, playing=True) == []

        # Ended (by its rules, or abandoned), a game leaves the list.
        await store.commit(playing[0], step(0, status=FINISHED))
        quit_ = dataclasses.replace(step(0), move=None, status=ABANDONED, resigned_seat=1)
        await store.commit(playing[1], quit_)
        left = [g.game_id for g in await store.list_open(kind, 10, playing=True)]
        assert left == playing[2:]

    run(body)


def test_the_redis_index_of_games_in_play_follows_the_game(redis_url: str) -> None:
    """The index itself (list_open re-reads each game, so it would hide a stale entry)."""

    async def main() -> None:
        store = RedisStore.from_url(redis_url)
        raw = aioredis.Redis.from_url(redis_url)
        try:
            record = new_record()
            hidden = dataclasses.replace(new_record(), access=Access(unlisted=True))
            for game in (record, hidden):
                await store.create(game, OPENING)
            assert await raw.zscore("tt:playing", record.game_id) is None  # still open
            await _fill(store, record.game_id)
            await _fill(store, hidden.game_id)
            assert await raw.zscore("tt:playing", record.game_id) == record.created_at_ms
            assert await raw.zscore("tt:lobby", record.game_id) is None
            assert await raw.zscore("tt:playing", hidden.game_id) is None  # never indexed
            await store.commit(record.game_id, step(0, status=FINISHED))
            assert await raw.zscore("tt:playing", record.game_id) is None
        finally:
            await store.close()
            await raw.aclose()

    asyncio.run(main())
