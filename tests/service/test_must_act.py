"""Must act vs may act at the service: a turn waiter wakes only when its seat must move (a seat
offered only optional moves is not woken), and GetGame's ``after_version`` lets anyone, a
spectator too, wait for the next change of a game instead of polling."""

from __future__ import annotations

import asyncio
import time
import uuid

from engine.core.moves import Claim
from service.game_service import GameService
from service.store.memory import MemoryStore
from tests.service.games import seated


def test_a_seat_with_only_an_optional_claim_is_not_woken_until_it_must_act() -> None:
    async def main() -> None:
        games = GameService(MemoryStore(), stream_wait_s=0.05)
        game_id, tokens = await seated(games, "sixty-six", {"preset": "gamefarm"}, b"must-act")
        record, public = await games.get_game(game_id, None)
        (leader,) = public.to_act
        other = 1 - leader
        assert public.may_act == (0, 1)  # gamefarm: the other seat may claim between tricks
        _, idle = await games.get_game(game_id, tokens[other])
        assert idle.legal_moves == (Claim(),) and other not in idle.to_act

        started = time.monotonic()
        _, waited = await games.get_game(game_id, tokens[other], wait_s=0.3)
        assert time.monotonic() - started >= 0.25, "woken for an optional move"
        assert other not in waited.to_act

        waiter = asyncio.create_task(games.get_game(game_id, tokens[other], wait_s=10))
        await asyncio.sleep(0.05)
        assert not waiter.done()
        _, mine = await games.get_game(game_id, tokens[leader])
        card = next(m for m in mine.legal_moves if m.kind == "play_card")
        await games.submit_move(
            game_id, tokens[leader], card, expected_version=record.version, request_id="lead"
        )
        woken_record, woken = await asyncio.wait_for(waiter, 5)
        assert woken_record.version == record.version + 1 and woken.to_act == (other,)

    asyncio.run(main())


def test_after_version_lets_a_spectator_wait_for_the_next_change() -> None:
    async def main() -> None:
        games = GameService(MemoryStore(), stream_wait_s=0.05)
        game_id, tokens = await seated(games, "counterpoint", {}, b"must-act")
        record, public = await games.get_game(game_id, None)
        # Nothing new: the answer comes when the wait runs out, at the same version.
        started = time.monotonic()
        same, _ = await games.get_game(game_id, None, wait_s=0.2, after_version=record.version)
        assert same.version == record.version and time.monotonic() - started >= 0.15
        # An older version has been passed already: at once.
        started = time.monotonic()
        await games.get_game(game_id, None, wait_s=5, after_version=record.version - 1)
        assert time.monotonic() - started < 1
        watcher = asyncio.create_task(
            games.get_game(game_id, None, wait_s=10, after_version=record.version)
        )
        await asyncio.sleep(0.05)
        assert not watcher.done()
        seat = public.to_act[0]
        _, mine = await games.get_game(game_id, tokens[seat])
        await games.submit_move(
            game_id,
            tokens[seat],
            mine.legal_moves[0],
            expected_version=record.version,
            request_id=uuid.uuid4().hex,
        )
        moved, view = await asyncio.wait_for(watcher, 5)
        assert moved.version == record.version + 1 and view.viewer is None

    asyncio.run(main())
