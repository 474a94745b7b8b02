"""The lobby: the game types offered, a new game (CreateGame), the open tables (ListGames),
taking a seat (JoinGame) and leaving one (LeaveGame); a private table's invite codes
(:mod:`service.invites`: unlisted games, reserved seats, RevokeInvite).

A seat is claimed in the store by the take that finds it open; the take that fills the table
also writes when play began and, in a game that schedules anything (clocks, server bots), its
first timing. Leaving a table that is not full frees the seat; leaving a full one is resigning,
a step of the game written by the one commit builder (:mod:`service.commit`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

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
from service.errors import (
    GameNotFound,
    GameNotPlayable,
    InvalidRequest,
    SeatUnavailable,
    StoreUnavailable,
    Unauthenticated,
)
from service.invites import Invitations, new_access, revoked, seats_open_to
from service.store.base import (
    ACTIVE,
    Access,
    EventBatch,
    Filled,
    GameRecord,
    LobbyPosition,
    SeatRecord,
)
from service.tables import Tables, seat_of_token

log = structlog.get_logger("tricktable.games")

#: How often a revoke is tried again when another revoke of the same game got there first.
_REVOKE_TRIES = 8


@dataclass(frozen=True, slots=True)
class Created:
    """A new game, and what only its creator is told: its invite codes."""

    record: GameRecord
    invitations: Invitations


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
        access: Access | None = None,
        game_id: str | None = None,
        seats: Sequence[SeatRecord | None] | None = None,
        held_seats: Mapping[int, SeatRecord] | None = None,
    ) -> GameRecord:
        """A new game. ``bot_seats`` (seat -> "random", "heuristic" or "expert") are taken at
        once by the server's reference bots, which play them with no token (see service.turns).
        ``access``: a private table's (service.invites). ``game_id`` and ``seats``: a game
        made for players already chosen (a rematch, a quick play match, a tournament's game), by
        an id every replica knows, with its seats taken; GameExists if another replica made it
        first. ``held_seats``: seats taken at once by players named by the caller (a
        tournament's connected bots), so no one else may join them."""
        tables = self._tables
        rules = get_rules(game_type)
        resolved = options_to_data(rules.options(options))
        try:
            bots = turns.bot_kinds(bot_seats or {}, rules.seats)
        except ValueError as bad:
            raise InvalidRequest(str(bad), reason="INVALID_BOT_SEATS") from None
        taken: list[SeatRecord | None] = list(seats) if seats else [None] * rules.seats
        if len(taken) != rules.seats:
            raise ValueError(f"{game_type} has {rules.seats} seats, not {len(taken)}")
        for n, held in (held_seats or {}).items():
            taken[n] = held
        for n, kind in bots.items():
            taken[n] = SeatRecord(token_hash="", player_name=kind, bot=kind)
        seed = seed or self._new_seed()
        state = rules.new_game(resolved, seed)
        record = GameRecord(
            game_id=game_id or self._new_id(),
            game_type=game_type,
            options=resolved,
            seed=seed,
            seat_count=rules.seats,
            created_at_ms=tables.now_ms(),
            seats=tuple(taken),
            snapshot=rules.snapshot(state),
            time_control=time_control.to_data() if time_control is not None else None,
            access=access,
        )
        if record.full:  # bots in every seat: play begins now
            record = dataclasses.replace(
                record,
                timing=self._deadlines.starting(record, rules.to_act(state)),
                moved_at_ms=tables.now_ms(),
            )
            idle = self._deadlines.idle_deadline(record.moved_at_ms)
            if idle is not None:
                await tables.store.deadlines.watch_idle(record.game_id, idle)
        opening = EventBatch(
            version=0,
            seat=None,
            events=tuple(event_to_data(e) for e in rules.opening_events(state)),
        )
        await tables.store.create(record, opening)
        tables.metrics.game_created(game_type)
        log.info("game created", game_id=record.game_id, game_type=game_type)
        return record

    async def create_table(
        self,
        game_type: str,
        options: Mapping[str, OptionValue],
        seed: bytes | None,
        *,
        time_control: TimeControl | None = None,
        bot_seats: Mapping[int, str] | None = None,
        unlisted: bool | None = None,
        reserved: Sequence[tuple[int, str]] = (),
    ) -> Created:
        """CreateGame: a new game, public or private (unlisted, or with seats kept for named
        invitees), and its invite codes, which only this answer holds."""
        seat_count = get_rules(game_type).seats
        access, invitations = new_access(unlisted, reserved, seat_count)
        record = await self.create_game(
            game_type,
            options,
            seed,
            time_control=time_control,
            bot_seats=bot_seats,
            access=access,
        )
        return Created(record, invitations)

    async def revoke_invite(self, game_id: str, code: str, reissue: bool) -> str:
        """RevokeInvite: ``code`` no longer takes a seat (with ``reissue``, a new code, which
        is returned, does instead). Whoever holds a code may revoke it."""
        store = self._tables.store
        for _ in range(_REVOKE_TRIES):
            record = await store.load(game_id)
            access, fresh = revoked(record.access, code, reissue)
            assert record.access is not None  # revoked() refuses a game without codes
            if await store.set_access(game_id, record.access, access):
                log.info("invite revoked", game_id=game_id, reissued=reissue)
                return fresh
        raise StoreUnavailable("the table's invites keep changing: try again")

    async def list_games(
        self, game_type: str, limit: int, page_token: str, *, playing: bool = False
    ) -> tuple[list[GameRecord], str]:
        """A lobby page and the token of the next one ("" when there is none): the public
        games with an open seat, or with ``playing`` the public games being played (to
        watch)."""
        if game_type:
            get_rules(game_type)
        position = _read_page_token(page_token)
        store = self._tables.store
        games = await store.list_open(game_type, limit + 1, position, playing=playing)
        more = len(games) > limit
        games = games[:limit]
        last = games[-1] if more else None
        return games, f"{last.created_at_ms}-{last.game_id}" if last else ""

    async def join_game(
        self,
        game_id: str,
        seat: int | None,
        player_name: str,
        invite_code: str = "",
        player_id: str = "",
    ) -> tuple[int, str, GameRecord]:
        """JoinGame. With a player identity (service.identity) the seat taken is that
        player's; a player who holds a seat at the game already takes it again (another
        device): the same seat, with a new seat token."""
        store = self._tables.store
        record = await store.load(game_id)
        if player_id:
            again = await self._take_again(record, player_id)
            if again is not None:
                return again
        if record.status != ACTIVE:
            raise SeatUnavailable("the game is over", reason="GAME_OVER")
        if seat is not None and not 0 <= seat < record.seat_count:
            raise InvalidRequest(
                f"{record.game_type} has seats 0..{record.seat_count - 1}", reason="UNKNOWN_SEAT"
            )
        open_seats = [i for i, taken in enumerate(record.seats) if taken is None]
        # A private table's seats are taken against the access checked here: a code revoked
        # meanwhile takes nothing (the store compares it in the same step as the take).
        wanted = seats_open_to(record, invite_code, seat, open_seats, player_id)
        token = new_token()
        claim = SeatRecord(
            token_hash=token_hash(token), player_name=player_name, player_id=player_id
        )
        # Written only by the take that fills the table: the clocks start when play can.
        now = self._tables.now_ms()
        filled = Filled(
            at_ms=now,
            timing=await self._deadlines.first_timing(record),
            idle_deadline_ms=self._deadlines.idle_deadline(now),
        )
        for candidate in wanted:
            if await store.take_seat(game_id, candidate, claim, filled, record.access):
                log.info("seat taken", game_id=game_id, seat=candidate)
                if player_id:
                    await store.players.note_game(player_id, game_id, now)
                return candidate, token, await store.load(game_id)
        if record.access is not None:
            # Refused against the access read: a code revoked since is told as such.
            seats_open_to(await store.load(game_id), invite_code, seat, open_seats, player_id)
        if seat is not None:
            raise SeatUnavailable(f"seat {seat} is taken")
        raise SeatUnavailable("no seat is open", reason="NO_OPEN_SEAT")

    async def _take_again(
        self, record: GameRecord, player_id: str
    ) -> tuple[int, str, GameRecord] | None:
        """The player's seat at the game, taken again with a new token; None if it has none."""
        for seat, taken in enumerate(record.seats):
            if taken is not None and taken.player_id == player_id:
                token = new_token()
                store = self._tables.store
                if await store.players.add_device(
                    record.game_id, seat, player_id, token_hash(token)
                ):
                    log.info("seat taken again", game_id=record.game_id, seat=seat)
                    return seat, token, await store.load(record.game_id)
        return None

    async def my_games(self, player_id: str, limit: int) -> list[tuple[GameRecord, int]]:
        """ListMyGames: the player's games (open and recent, latest first) and its seat."""
        store = self._tables.store
        out = []
        for game_id in await store.players.player_games(player_id, limit):
            try:
                record = await store.load(game_id)
            except GameNotFound:  # expired: no longer recent
                continue
            seats = [n for n, s in enumerate(record.seats) if s and s.player_id == player_id]
            if seats:  # else the seat was left before the game began
                out.append((record, seats[0]))
        return out

    async def leave_game(self, game_id: str, token: str | None) -> GameRecord:
        store = self._tables.store
        record = await store.load(game_id)
        if token is None:
            raise Unauthenticated("leaving needs a seat token", reason="MISSING_TOKEN")
        seat = seat_of_token(record, token)
        assert seat is not None
        if record.status != ACTIVE:
            raise GameNotPlayable("the game is over", reason="GAME_OVER")
        taken = record.seats[seat]
        assert taken is not None
        # The seat's own hash: the token may be one of its player's other devices'.
        if await store.free_seat(game_id, seat, taken.token_hash):
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
