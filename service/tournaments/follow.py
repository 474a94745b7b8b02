"""Following a tournament (``StreamTournament``) and a connected bot's seats (``BotSession``):
each stream reads what is new, then waits on the store's notification of the next change,
made on any replica (a game started or counted, the end; a seat handed), as ``StreamEvents``
waits for a game's next version. On Redis the wait is the replica's one move subscription
(:mod:`service.store.redis_notify`), shared by every stream and every game: an idle stream
sends no command.

Pub/sub delivers at most once, and the subscription wakes every waiter to read again when it
comes back; beyond that, each stream reads again every ``recheck_s`` of quiet whatever it was
told, so a notification lost any other way (a replica that died between a seat's push and its
notification) delays an event by that much and never loses it. A connected bot's session also
marks the bot online at that pace (the ladder seats only bots online), so an idle session costs
two commands every :data:`ONLINE_REFRESH_S`.

When the server shuts down, every waiting stream wakes and ends with UNAVAILABLE (resume on
another replica), without waiting out its wait.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from service.errors import GameNotFound, ShuttingDown
from service.game_service import GameService
from service.store.base import ACTIVE
from service.tournaments import events
from service.tournaments.bot_store import Stores
from service.tournaments.seating import seat_token
from service.tournaments.store import BotRecord

#: How often a quiet stream reads again, in case a notification was lost.
RECHECK_S = 5.0
#: How often an open session marks its bot online, and how long a mark lasts (a few
#: refreshes: a session late by one is not taken for gone).
ONLINE_REFRESH_S = 2.0
ONLINE_MS = 6000
#: How often a session looks again for the games of seats handed before their creation.
PENDING_RECHECK_S = 0.05
#: A timer may fire a hair before its time (the loop's clock resolution): the refresh it was
#: set for is made then, not after one more (near zero) wait.
_EARLY_S = 0.001


class Following:
    def __init__(self, games: GameService, stores: Stores, *, recheck_s: float = RECHECK_S) -> None:
        self._games = games
        self._store = stores.tournaments
        self._bots = stores.bots
        #: How long a quiet stream waits before it reads again (``math.inf``: only when told;
        #: tests set it so to show a notification is what wakes a stream).
        self.recheck_s = recheck_s
        #: How often an open session marks its bot online (``math.inf``: once).
        self.online_refresh_s = ONLINE_REFRESH_S
        #: Streams and sessions waiting for the store's next change now.
        self.waiting = 0
        self._closing = False
        self._closed: asyncio.Future[None] | None = None  # made on the loop, by the first wait

    def close(self) -> None:
        """The server shuts down: waiting streams wake and end, later ones end at once."""
        self._closing = True
        if self._closed is not None and not self._closed.done():
            self._closed.set_result(None)

    async def stream(
        self, tournament_id: str, from_version: int
    ) -> AsyncIterator[tuple[int, dict[str, Any]]]:
        """Each event (its version and data) from ``from_version`` on, until the end."""
        await self._store.load(tournament_id)  # TournamentNotFound before anything is sent
        version = max(from_version, 1)
        while True:
            for text in await self._store.events(tournament_id, version):
                data = json.loads(text)
                yield version, data
                version += 1
                if data["kind"] == events.END:
                    return
            self._check_open("resume the stream elsewhere")
            await self._until_closed(self._store.wait(tournament_id, version - 1, self.recheck_s))

    async def session(self, bot: BotRecord) -> AsyncIterator[dict[str, Any]]:
        """A connected bot's session (the bot proved by its token): each seat handed to it,
        with the seat's token, as it is handed, from the first not played."""
        loop = asyncio.get_running_loop()
        start = 0
        seen: set[tuple[str, int]] = set()
        # Seats handed before their game is created (a seat is handed first, then its game
        # created: see service.tournaments.seating.hold): sent once the game exists, so a bot
        # never gets a seat whose game it cannot find yet.
        pending: list[dict[str, Any]] = []
        mark_at = loop.time()  # when to mark the bot online next
        while True:
            if loop.time() >= mark_at - _EARLY_S:
                mark_at = loop.time() + self.online_refresh_s
                await self._bots.mark_online(bot.bot_id, ONLINE_MS)
            given = await self._bots.seats_given(bot.bot_id, start)
            start += len(given)
            waiting, pending = pending + [json.loads(text) for text in given], []
            for seat in waiting:
                key = (seat["game_id"], seat["seat"])
                if key in seen:
                    continue
                state = await self._state(seat["game_id"])
                if state is None:
                    pending.append(seat)
                    continue
                if state != ACTIVE:
                    continue  # its game is over: nothing to play
                seen.add(key)
                seat["seat_token"] = seat_token(bot.token_hash, *key)
                yield seat
            self._check_open("reconnect")
            wait_s = min(self.recheck_s, max(0.0, mark_at - loop.time()))
            if pending:  # a creation under way takes a few milliseconds
                wait_s = min(wait_s, PENDING_RECHECK_S)
            await self._until_closed(self._bots.wait_seats(bot.bot_id, start, wait_s))

    async def _state(self, game_id: str) -> str | None:
        """A handed seat's game's status; None while it is not created yet (its creation is
        under way, or a replica that died before creating it left it to another's sweep)."""
        try:
            record = await self._games.store.load(game_id)
        except GameNotFound:
            return None
        return record.status

    def _check_open(self, then: str) -> None:
        if self._closing:
            raise ShuttingDown(f"the server is shutting down: {then}")

    async def _until_closed(self, waiting: Coroutine[Any, Any, None]) -> None:
        """``waiting``, cut short when the server starts shutting down."""
        if self._closing:
            waiting.close()
            return
        if self._closed is None:
            self._closed = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(waiting)
        self.waiting += 1
        try:
            await asyncio.wait((task, self._closed), return_when=asyncio.FIRST_COMPLETED)
        finally:
            self.waiting -= 1
            if not task.done():
                task.cancel()
        if task.done() and not task.cancelled():
            task.result()  # what the store's wait raised (the tournament gone, the store down)
