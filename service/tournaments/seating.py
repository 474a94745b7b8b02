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
from service.tournaments.schedule import Slot
from service.tournaments.spec import CALLED, CONNECTED, TournamentSpec
from service.tournaments.store import TournamentStore

log = structlog.get_logger("tricktable.tournaments")


def seat_token(bot_token_hash: str, game_id: str, seat: int) -> str:
    key = bot_token_hash.encode()
    return hmac.new(key, f"{game_id}:{seat}".encode(), hashlib.sha256).hexdigest()


class Seating:
    def __init__(self, store: TournamentStore) -> None:
        self._store = store

    async def hold(self, spec: TournamentSpec, slot: Slot, game_id: str) -> dict[int, SeatRecord]:
        """The registered bots' seats of a game about to be created (taken with it, so no one
        else may join them); a connected bot's each handed to it first: a replica that dies
        between the two leaves a seat handed for a game created later, never a seat taken and
        not handed (a session drops a seat handed twice)."""
        held = {}
        for seat, index in enumerate(slot.seats):
            entrant = spec.entrants[index]
            if entrant.kind not in (CALLED, CONNECTED):
                continue
            bot = await self._store.bot(entrant.bot)
            token = seat_token(bot.token_hash, game_id, seat)
            held[seat] = SeatRecord(token_hash=token_hash(token), player_name=entrant.name)
            if entrant.kind == CALLED:
                continue  # the replicas play it (service.tournaments.called)
            given = {
                "game_id": game_id,
                "seat": seat,
                "game_type": spec.game_type,
                "tournament_id": spec.tournament_id,
            }
            await self._store.give_seat(bot.bot_id, json.dumps(given))
            log.info("seat given", bot_id=bot.bot_id, game_id=game_id, seat=seat)
        return held
