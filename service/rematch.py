"""Rematch (issue 29): the seats of an ended game play the next one, with the same options and
time control and each player one seat on (seat s sits at s + 1, with the same seat token and
name; a server bot's seat moves on too).

The offer is the ended game's own history: each seat that accepts is one version of the ended
game (:func:`service.commit.rematch_offered`, a compare-and-set commit like any step), whose
batch carries the offer so far, ``{"accepted": [seats], "game_id": ""}``. The acceptance that
completes the human seats first makes the next game, by an id every replica derives from the
ended game's (so two replicas racing make it once: the store's create refuses a second), then
writes the offer naming it. The state is in the store, so seats on different replicas agree,
and a seat that asks again, or after the game started, is answered the same offer.

Every seat learns the new game through the ended game's stream: StreamEvents opened after its
last batch follows the offers, up to the one that names the next game (service.reads).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Mapping
from typing import Any

import structlog

from service.clocks import TimeControl
from service.commit import Committer, rematch_offered
from service.errors import GameNotPlayable, StoreUnavailable, Unauthenticated, VersionConflict
from service.lobby import Lobby
from service.store.base import ACTIVE, GameExists, GameRecord, SeatRecord
from service.tables import Tables, seat_of_token

log = structlog.get_logger("tricktable.games")

#: How often an acceptance is tried again when another seat's got to the game first.
_TRIES = 32


def next_game_id(game_id: str) -> str:
    """The rematch's id: the same on every replica, so the game is made once."""
    return hashlib.sha256(f"rematch:{game_id}".encode()).hexdigest()[:16]


def rotated(seats: tuple[SeatRecord | None, ...]) -> list[SeatRecord | None]:
    """Each seat one on: seat s of the ended game is seat (s + 1) % n of the next."""
    n = len(seats)
    return [seats[(s - 1) % n] for s in range(n)]


def offer_of(record: GameRecord, last: Mapping[str, Any] | None) -> dict[str, Any]:
    return dict(last) if last is not None else {"accepted": [], "game_id": ""}


class Rematches:
    def __init__(self, tables: Tables, committer: Committer, lobby: Lobby) -> None:
        self._tables = tables
        self._committer = committer
        self._lobby = lobby

    async def rematch(self, game_id: str, token: str | None) -> dict[str, Any]:
        """Rematch: the caller's seat accepts; the offer as it stands after (with the next
        game's id once every human seat has accepted)."""
        if token is None:
            raise Unauthenticated(
                "a rematch is asked for by a seat: send its token", reason="MISSING_TOKEN"
            )
        store = self._tables.store
        for _ in range(_TRIES):
            record = await store.load(game_id)
            seat = seat_of_token(record, token)
            assert seat is not None
            if record.status == ACTIVE:
                raise GameNotPlayable(
                    "the game is still being played: a rematch follows its end",
                    reason="GAME_NOT_FINISHED",
                )
            if not record.full:
                raise GameNotPlayable("the game never began", reason="GAME_NOT_STARTED")
            batches = await store.read_events(game_id, record.version)
            offer = offer_of(record, batches[-1].rematch if batches else None)
            if offer["game_id"]:
                return offer
            accepted = sorted({*offer["accepted"], seat})
            humans = {n for n, s in enumerate(record.seats) if s is not None and not s.bot}
            started = humans <= set(accepted)
            if accepted == offer["accepted"] and not started:
                return offer  # accepted before: nothing new to write
            new = {"accepted": accepted, "game_id": ""}
            if started:
                new["game_id"] = await self._start(record)
            try:
                await self._committer.commit(rematch_offered(record, seat, new))
            except VersionConflict:
                continue  # another seat accepted meanwhile: read the offer again
            log.info("rematch accepted", game_id=game_id, seat=seat, started=started)
            return new
        raise StoreUnavailable("the rematch keeps changing: try again")

    async def _start(self, ended: GameRecord) -> str:
        """Make the next game (once: a replica that lost the race finds it made)."""
        game_id = next_game_id(ended.game_id)
        time_control = (
            TimeControl.from_data(ended.time_control) if ended.time_control is not None else None
        )
        # GameExists: made by another seat's acceptance, on this replica or another.
        with contextlib.suppress(GameExists):
            made = await self._lobby.create_game(
                ended.game_type,
                ended.options,
                None,
                time_control=time_control,
                access=ended.access,
                game_id=game_id,
                seats=rotated(ended.seats),
            )
            for seat in made.seats:  # each player's own game again (ListMyGames)
                if seat is not None and seat.player_id:
                    await self._tables.store.players.note_game(
                        seat.player_id, game_id, made.created_at_ms
                    )
        return game_id
