"""The lobby: the game types offered, a new game (CreateGame), the open tables (ListGames),
taking a seat (JoinGame) and leaving one (LeaveGame).

A seat is claimed in the store by the take that finds it open; the take that fills the table
also writes when play began and, in a game that schedules anything (clocks, server bots), its
first timing. Leaving a table that is not full frees the seat; leaving a full one is resigning,
a step of the game written by the one commit builder (:mod:`service.commit`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

import structlog

from engine import game_names, get_rules
from engine.core.events import event_to_data
from engine.core.options import OptionValue, options_to_data
from engine.core.rules import GameType
from service import turns
from service.auth import new_token, token_hash
from service.clocks import TimeControl
from service.commit import Committer, resigned
from service.deadlines import Deadlines
from service.errors import GameNotPlayable, InvalidRequest, SeatUnavailable, Unauthenticated
from service.store.base import (
    ACTIVE,
    EventBatch,
    Filled,
    GameRecord,
    LobbyPosition,
    SeatRecord,
)
from service.tables import Tables, seat_of_token

log = structlog.get_logger("tricktable.games")


class Lobby:
    def __init__(
        self,
        tables: Tables,
        committer: Committer,
        deadlines: Deadlines,
        *,
        new_seed: Callable[[], bytes],
        new_id: Callable[[], str],
    ) -> None:
        self._tables = tables
        self._committer = committer
        self._deadlines = deadlines
        self._new_seed = new_seed
        self._new_id = new_id

    @staticmethod
    def game_types() -> list[GameType]:
        return [get_rules(name).game_type() for name in game_names()]

    async def create_game(
        self,
        game_type: str,
        options: Mapping[str, OptionValue],
        seed: bytes | None,
        *,
        time_control: TimeControl | None = None,
        bot_seats: Mapping[int, str] | None = None,
        game_id: str | None = None,
        held_seats: Mapping[int, SeatRecord] | None = None,
    ) -> GameRecord:
        """A new game. ``bot_seats`` (seat -> "random" or "heuristic") are taken at once by the
        server's reference bots, which play them with no token (see service.turns). ``game_id``:
        its id, when the caller fixes it (a tournament's game); the store refuses a second game
        with one id (GameExists). ``held_seats``: seats taken at once by players named by the
        caller (a tournament's connected bots), so no one else may join them."""
        tables = self._tables
        rules = get_rules(game_type)
        resolved = options_to_data(rules.options(options))
        try:
            bots = turns.bot_kinds(bot_seats or {}, rules.seats)
        except ValueError as bad:
            raise InvalidRequest(str(bad), reason="INVALID_BOT_SEATS") from None
        seed = seed or self._new_seed()
        state = rules.new_game(resolved, seed)
        record = GameRecord(
            game_id=game_id or self._new_id(),
            game_type=game_type,
            options=resolved,
            seed=seed,
            seat_count=rules.seats,
            created_at_ms=tables.now_ms(),
            seats=tuple(
                SeatRecord(token_hash="", player_name=bots[n], bot=bots[n])
                if n in bots
                else (held_seats or {}).get(n)
                for n in range(rules.seats)
            ),
            snapshot=rules.snapshot(state),
            time_control=time_control.to_data() if time_control is not None else None,
        )
        if record.full:  # bots in every seat: play begins now
            record = dataclasses.replace(
                record,
                timing=self._deadlines.starting(record, rules.to_act(state)),
                moved_at_ms=tables.now_ms(),
            )
            idle = self._deadlines.idle_deadline(record.moved_at_ms)
            if idle is not None:
                await tables.store.watch_idle(record.game_id, idle)
        opening = EventBatch(
            version=0,
            seat=None,
            events=tuple(event_to_data(e) for e in rules.opening_events(state)),
        )
        await tables.store.create(record, opening)
        tables.metrics.game_created(game_type)
        log.info("game created", game_id=record.game_id, game_type=game_type)
        return record

    async def list_games(
        self, game_type: str, limit: int, page_token: str
    ) -> tuple[list[GameRecord], str]:
        """A lobby page and the token of the next one ("" when there is none)."""
        if game_type:
            get_rules(game_type)
        position = _read_page_token(page_token)
        games = await self._tables.store.list_open(game_type, limit + 1, position)
        more = len(games) > limit
        games = games[:limit]
        last = games[-1] if more else None
        return games, f"{last.created_at_ms}-{last.game_id}" if last else ""

    async def join_game(
        self, game_id: str, seat: int | None, player_name: str
    ) -> tuple[int, str, GameRecord]:
        store = self._tables.store
        record = await store.load(game_id)
        if record.status != ACTIVE:
            raise SeatUnavailable("the game is over", reason="GAME_OVER")
        if seat is not None and not 0 <= seat < record.seat_count:
            raise InvalidRequest(
                f"{record.game_type} has seats 0..{record.seat_count - 1}", reason="UNKNOWN_SEAT"
            )
        wanted = (
            [seat]
            if seat is not None
            else [i for i, taken in enumerate(record.seats) if taken is None]
        )
        token = new_token()
        claim = SeatRecord(token_hash=token_hash(token), player_name=player_name)
        # Written only by the take that fills the table: the clocks start when play can.
        now = self._tables.now_ms()
        filled = Filled(
            at_ms=now,
            timing=await self._deadlines.first_timing(record),
            idle_deadline_ms=self._deadlines.idle_deadline(now),
        )
        for candidate in wanted:
            if await store.take_seat(game_id, candidate, claim, filled):
                log.info("seat taken", game_id=game_id, seat=candidate)
                return candidate, token, await store.load(game_id)
        if seat is not None:
            raise SeatUnavailable(f"seat {seat} is taken")
        raise SeatUnavailable("no seat is open", reason="NO_OPEN_SEAT")

    async def leave_game(self, game_id: str, token: str | None) -> GameRecord:
        store = self._tables.store
        record = await store.load(game_id)
        if token is None:
            raise Unauthenticated("leaving needs a seat token", reason="MISSING_TOKEN")
        seat = seat_of_token(record, token)
        assert seat is not None
        if record.status != ACTIVE:
            raise GameNotPlayable("the game is over", reason="GAME_OVER")
        if await store.free_seat(game_id, seat, token_hash(token)):
            log.info("seat freed", game_id=game_id, seat=seat)
            return await store.load(game_id)
        await self._committer.commit(resigned(record, seat))
        log.info("seat resigned", game_id=game_id, seat=seat)
        return await store.load(game_id)


def _read_page_token(token: str) -> LobbyPosition | None:
    if not token:
        return None
    created, _, game_id = token.partition("-")
    if not created.isdigit() or not game_id:
        raise InvalidRequest("malformed page_token", reason="INVALID_PAGE_TOKEN")
    return int(created), game_id
