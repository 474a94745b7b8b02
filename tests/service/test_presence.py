"""Presence: a seat is connected while it called in the last few seconds or has a stream open
(any replica may have seen it: it is kept in the store); a server bot's seat always is."""

from __future__ import annotations

import asyncio

from service.game_service import PRESENCE_WINDOW_MS, GameService, SeatPresenceView
from service.store.memory import MemoryStore
from tests.service.games import FakeClock


def test_a_seat_is_connected_while_it_calls_or_streams() -> None:
    async def main() -> None:
        clock = FakeClock()
        games = GameService(MemoryStore(), clock=clock, stream_wait_s=0.01)
        record = await games.create_game("nominations", {}, b"p", bot_seats={3: "random"})
        tokens = [(await games.join_game(record.game_id, n, f"p{n}"))[1] for n in range(3)]
        record = await games.store.load(record.game_id)

        def connected(seen: tuple[SeatPresenceView, ...]) -> list[bool]:
            return [p.connected for p in seen]

        assert connected(await games.presence(record)) == [False, False, False, True]
        await games.get_game(record.game_id, tokens[1])
        await games.get_game(record.game_id, None)  # a spectator is nobody's presence
        seen = await games.presence(record)
        assert connected(seen) == [False, True, False, True]
        assert seen[1].last_seen_ms == int(clock.now * 1000) and seen[0].last_seen_ms == 0
        clock.now += PRESENCE_WINDOW_MS / 1000 + 0.001
        assert connected(await games.presence(record)) == [False, False, False, True]
        # An open stream keeps noting its seat as it waits.
        stream = games.stream_events(record.game_id, tokens[2], 1)

        async def first() -> object:
            return await anext(stream)

        waiting = asyncio.create_task(first())
        await asyncio.sleep(0.05)
        assert connected(await games.presence(record))[2]
        clock.now += 2
        await asyncio.sleep(0.05)
        clock.now += 4
        await asyncio.sleep(0.05)
        assert connected(await games.presence(record))[2]  # 6 s on, still streaming
        waiting.cancel()
        # So does a long poll for its turn (or for the next change).
        clock.now += 10
        poll = asyncio.create_task(games.get_game(record.game_id, tokens[0], wait_s=0.3))
        await asyncio.sleep(0.02)
        clock.now += 4
        await asyncio.sleep(0.1)
        clock.now += 4
        assert connected(await games.presence(record))[0]  # 8 s into the wait
        await poll

    asyncio.run(main())
