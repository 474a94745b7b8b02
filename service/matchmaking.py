"""Quick play (issue 29): a queue per game type, options and time control, kept in the store,
so players waiting on different replicas are matched together.

A player queues with QuickPlay and is given a ticket, ``<pool>.<secret>``: the pool names the
queue (a hash of what game it makes, and the game's seat count), the secret is the player's
alone and only its hash is stored. The seat token the player gets when seated is derived from
the ticket (:func:`seat_token_of`), so the queue stores only that token's hash too, and the
game the queue makes has its seats taken with them: the player can play at once.

Each look at the queue is one atomic step of the store (:meth:`QuickPlayQueues.queue_step`): the
tickets whose stream has been gone longer than the grace time leave (and are never seated),
the ticket is marked seen, and as soon as a table's worth of tickets wait (or a ticket's bot
time has come) the step seats them at a new game id, each ticket once, whichever replica's
step gets there. The game itself is then made by any of its players' streams that finds it
missing, by that id (the store's create refuses a second one): a replica that dies between the
two steps leaves the game to the next player's look. A stream looks every ``poll_s`` while it
waits (which also keeps its ticket alive); a later QuickPlay with the ticket resumes it.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import secrets
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import structlog

from engine import get_rules
from engine.core.options import OptionValue, options_to_data
from service.auth import token_hash
from service.clocks import TimeControl
from service.errors import GameNotFound, InvalidRequest, ShuttingDown, TicketNotFound
from service.lobby import Lobby
from service.store.base import GameExists, QueueStep, SeatRecord, Ticket
from service.tables import Tables

log = structlog.get_logger("tricktable.queue")

_TICKET = re.compile(r"([0-9a-f]{16}s[0-9]{1,2})\.[A-Za-z0-9_-]{43}")
#: The longest bot wait a player may ask for.
MAX_BOT_WAIT_MS = 600_000


@dataclass(frozen=True, slots=True)
class Queued:
    """The player waits: its ticket, and how many wait in its queue (itself included)."""

    ticket: str
    waiting: int


@dataclass(frozen=True, slots=True)
class Matched:
    """The queue seated the player: the game, the seat, and the seat's token."""

    game_id: str
    seat: int
    seat_token: str


def seat_token_of(ticket: str) -> str:
    """The seat token a ticket's player gets when seated: derived, so never stored."""
    digest = hashlib.sha256(b"tricktable seat:" + ticket.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def pool_of(
    game_type: str, options: Mapping[str, OptionValue], time_control: TimeControl | None
) -> tuple[str, str]:
    """(pool, definition) of the queue for a game: players asking for the same game type,
    options (defaults filled in) and time control share a queue."""
    rules = get_rules(game_type)
    definition = json.dumps(
        {
            "game_type": game_type,
            "options": dict(options_to_data(rules.options(options))),
            "time_control": time_control.to_data() if time_control is not None else None,
        },
        sort_keys=True,
    )
    digest = hashlib.sha256(definition.encode()).hexdigest()[:16]
    return f"{digest}s{rules.seats}", definition


def _pool_of_ticket(ticket: str) -> str:
    found = _TICKET.fullmatch(ticket)
    if found is None:
        raise TicketNotFound()
    return found.group(1)


def _seats_of(pool: str) -> int:
    return int(pool.partition("s")[2])


class Matchmaking:
    def __init__(
        self,
        tables: Tables,
        lobby: Lobby,
        *,
        new_id: Callable[[], str],
        grace_s: float = 10.0,
        poll_s: float = 0.5,
    ) -> None:
        if poll_s >= grace_s:
            raise ValueError("a waiting stream must look more often than its grace time")
        self._tables = tables
        self._lobby = lobby
        self._new_id = new_id
        self._grace_ms = int(grace_s * 1000)
        self._poll_s = poll_s

    async def quick_play(
        self,
        game_type: str,
        options: Mapping[str, OptionValue],
        time_control: TimeControl | None,
        player_name: str,
        *,
        ticket: str = "",
        bot_wait_ms: int = 0,
        player_id: str = "",
    ) -> AsyncIterator[Queued | Matched]:
        """QuickPlay: queue (or, with ``ticket``, resume), tell the ticket and the queue's
        length as it changes, then the seat taken, and end. With ``player_id`` (a player
        identity, service.identity) the seat is that player's."""
        tables = self._tables
        new: Ticket | None = None
        definition = ""
        if ticket:
            pool = _pool_of_ticket(ticket)
        else:
            if not 0 <= bot_wait_ms <= MAX_BOT_WAIT_MS:
                raise InvalidRequest(f"bot_wait_ms is at most {MAX_BOT_WAIT_MS}")
            pool, definition = pool_of(game_type, options, time_control)
            ticket = f"{pool}.{secrets.token_urlsafe(32)}"
            now = tables.now_ms()
            new = Ticket(
                token_hash=token_hash(seat_token_of(ticket)),
                player_name=player_name,
                queued_ms=now,
                bot_at_ms=now + bot_wait_ms if bot_wait_ms else 0,
                player_id=player_id,
            )
        told = -1
        while True:
            if tables.closing:
                raise ShuttingDown("the server is shutting down: resume with the ticket")
            step = await self._step(pool, ticket, new, definition)
            if step.ticket is None:
                raise TicketNotFound()
            new = None  # added: from now on only looked at (a ticket forgotten stays so)
            if step.ticket.game_id:
                await self._made(step)
                if step.ticket.player_id:
                    await tables.store.players.note_game(
                        step.ticket.player_id, step.ticket.game_id, tables.now_ms()
                    )
                yield Matched(step.ticket.game_id, step.ticket.seat, seat_token_of(ticket))
                return
            if step.waiting != told:
                told = step.waiting
                yield Queued(ticket, step.waiting)
            await asyncio.sleep(self._poll_s)

    async def cancel(self, ticket: str) -> bool:
        """CancelQuickPlay: True if the ticket left the queue (it is never seated), False if
        it had been seated."""
        left = await self._tables.store.queues.queue_cancel(
            _pool_of_ticket(ticket), token_hash(ticket)
        )
        if left is None:
            raise TicketNotFound()
        return left

    async def _step(self, pool: str, ticket: str, new: Ticket | None, definition: str) -> QueueStep:
        return await self._tables.store.queues.queue_step(
            pool,
            token_hash(ticket),
            new,
            now_ms=self._tables.now_ms(),
            grace_ms=self._grace_ms,
            seats=_seats_of(pool),
            game_id=self._new_id(),
            definition=definition,
        )

    async def _made(self, step: QueueStep) -> None:
        """The game the queue seated the ticket at, made if no one has made it yet."""
        ticket = step.ticket
        assert ticket is not None
        try:
            await self._tables.store.load(ticket.game_id)
            return
        except GameNotFound:
            pass
        game: dict[str, Any] = json.loads(step.definition)
        clock = game["time_control"]
        try:
            await self._lobby.create_game(
                game["game_type"],
                game["options"],
                None,
                time_control=TimeControl.from_data(clock) if clock is not None else None,
                game_id=ticket.game_id,
                seats=[
                    SeatRecord(
                        s["token_hash"],
                        s["player_name"],
                        bot=s.get("bot", ""),
                        player_id=s.get("player_id", ""),
                    )
                    for s in ticket.match
                ],
            )
            log.info("quick play game made", game_id=ticket.game_id)
        except GameExists:
            pass  # another of its players made it first
