"""Seats of a tournament's game held for its registered bots (called and connected).

A registered bot's seat is taken when its game is created, under a seat token derived from the
bot: ``HMAC-SHA256(bot token hash, "<game id>:<seat>")``. The game keeps only that token's hash,
as for any seat; the seat handed to the bot (:meth:`TournamentStore.give_seat`) names the game
and seat only, and the bot's session, which proved it holds the bot token, derives the token
to hand over (:func:`seat_token`). So no seat token is ever written to the store.
"""

from __future__ import annotations

import hashlib
import hmac
import json

import structlog

from service.auth import token_hash
from service.store.base import SeatRecord
from service.tournaments.bot_store import BotStore
from service.tournaments.schedule import Slot
from service.tournaments.spec import CALLED, CONNECTED, TournamentSpec
from service.tournaments.store import BotRecord

log = structlog.get_logger("tricktable.tournaments")


def seat_token(bot_token_hash: str, game_id: str, seat: int) -> str:
    key = bot_token_hash.encode()
    return hmac.new(key, f"{game_id}:{seat}".encode(), hashlib.sha256).hexdigest()


async def hold(
    store: BotStore,
    game_id: str,
    game_type: str,
    seated: list[tuple[int, BotRecord, str]],
    tournament_id: str = "",
) -> dict[int, SeatRecord]:
    """Registered bots' seats (seat, bot, shown name) of a game about to be created, taken with
    it so no one else may join them; a connected bot's each handed to it first: a replica that
    dies between the two leaves a seat handed for a game created later, never a seat taken and
    not handed (a session drops a seat handed twice)."""
    held = {}
    for seat, bot, name in seated:
        token = seat_token(bot.token_hash, game_id, seat)
        if bot.kind == CONNECTED:
            given = {
                "game_id": game_id,
                "seat": seat,
                "game_type": game_type,
                "tournament_id": tournament_id,
            }
            await store.give_seat(bot.bot_id, json.dumps(given))
            log.info("seat given", bot_id=bot.bot_id, game_id=game_id, seat=seat)
        held[seat] = SeatRecord(token_hash=token_hash(token), player_name=name)
    return held


class Seating:
    def __init__(self, store: BotStore) -> None:
        self._store = store

    async def hold(self, spec: TournamentSpec, slot: Slot, game_id: str) -> dict[int, SeatRecord]:
        """The registered entrants' seats of a tournament's game about to be created."""
        seated = [
            (seat, await self._store.bot(spec.entrants[index].bot), spec.entrants[index].name)
            for seat, index in enumerate(slot.seats)
            if spec.entrants[index].kind in (CALLED, CONNECTED)
        ]
        return await hold(self._store, game_id, spec.game_type, seated, spec.tournament_id)
