"""A connected bot's session sends a seat only once its game exists: a seat is handed before its
game is created (service.tournaments.seating.hold), and a session woken at once by the handing's
notification would otherwise send a seat whose game the bot cannot find yet (GAME_NOT_FOUND: the
bot gives the seat up and the game waits on its clock)."""

from __future__ import annotations

import asyncio

from service.game_service import GameService
from service.store.memory import MemoryStore
from service.tournaments.bot_store import memory_stores
from service.tournaments.follow import Following
from service.tournaments.seating import hold
from service.tournaments.spec import CONNECTED
from service.tournaments.store import BotRecord

GAME = "counterpoint"


def test_a_seat_handed_before_its_game_is_created_is_sent_once_the_game_exists() -> None:
    async def run() -> None:
        games = GameService(MemoryStore())
        stores = memory_stores()
        bot = BotRecord("b1", "bot", (GAME,), CONNECTED, "", False, "ab" * 32, 0)
        await stores.bots.add_bot(bot)
        following = Following(games, stores)
        session = following.session(bot)
        held = await hold(stores.bots, "g1", GAME, [(0, bot, "bot")])
        first = asyncio.ensure_future(anext(session))
        await asyncio.sleep(0.3)  # many of the session's looks: the game is not there yet
        assert not first.done()
        await games.create_game(GAME, {}, None, game_id="g1", held_seats=held)
        seat = await asyncio.wait_for(first, 10)
        assert (seat["game_id"], seat["seat"]) == ("g1", 0)
        following.close()

    asyncio.run(run())
