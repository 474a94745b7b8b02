"""The transport-free entry points of ``TournamentService``: create, read, list, follow and
cancel a tournament, and register a bot. No gRPC and no protobuf here (the servicer converts);
every change is one of the store's atomic steps (:mod:`.store`)."""

from __future__ import annotations

import asyncio
import hmac
import json
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from engine import get_rules
from engine.core.options import OptionValue, options_to_data
from service.auth import new_token, token_hash
from service.clocks import TimeControl
from service.errors import (
    GameNotFound,
    InvalidRequest,
    PermissionDenied,
    ShuttingDown,
    Unauthenticated,
)
from service.game_service import GameService
from service.store.base import ACTIVE
from service.tournaments import events
from service.tournaments.bot_store import Stores
from service.tournaments.called import MAX_FAILURES
from service.tournaments.limits import TournamentGate
from service.tournaments.schedule import game_count, slots
from service.tournaments.seating import seat_token
from service.tournaments.spec import (
    CALLED,
    CANCELLED,
    CONNECTED,
    REFERENCE,
    RUNNING,
    Entrant,
    TournamentSpec,
)
from service.tournaments.standings import Folds, Row, standings
from service.tournaments.store import (
    BotNotFound,
    BotRecord,
    Ladder,
    TournamentState,
)
from service.turns import BOT_KINDS

MAX_ROUNDS = 1000
MAX_NAME = 64
ENDPOINT_SCHEMES = ("grpc://", "grpcs://", "https://")
#: How often a connected bot's session looks for seats handed to it.
SESSION_POLL_S = 0.2
#: How long an open session counts its bot as online (the ladder matches online bots only).
ONLINE_MS = 2000


class TournamentDesk:
    def __init__(
        self,
        games: GameService,
        stores: Stores,
        gate: TournamentGate,
        *,
        stream_wait_s: float = 1.0,
    ) -> None:
        self._games = games
        self.store = stores.tournaments
        self._bots = stores.bots
        self._ladders = stores.ladders
        self._gate = gate
        self._stream_wait_s = stream_wait_s
        self._closing = False
        self._folds = Folds()  # the reads' own: a fold is not shared between tasks

    def close_streams(self) -> None:
        self._closing = True

    # -- tournaments --------------------------------------------------------------------------

    async def create(
        self,
        *,
        client: str,
        game_type: str,
        options: Mapping[str, OptionValue],
        time_control: TimeControl | None,
        rounds: int,
        duplicate: bool,
        entrants: Sequence[str],
        games_at_once: int,
        seed: bytes,
        name: str,
    ) -> tuple[TournamentState, str]:
        """A new tournament, and its creator token."""
        rules = get_rules(game_type)  # UnknownGame: INVALID_ARGUMENT
        resolved = options_to_data(rules.options(options))
        if not 1 <= rounds <= MAX_ROUNDS:
            raise InvalidRequest(f"rounds must be 1 to {MAX_ROUNDS}", reason="INVALID_ROUNDS")
        if len(entrants) < 2:
            raise InvalidRequest(
                "a tournament needs two entrants or more", reason="INVALID_ENTRANTS"
            )
        if len(seed) > 64:
            raise InvalidRequest("seed must be at most 64 bytes", reason="INVALID_SEED")
        if len(name) > MAX_NAME:
            raise InvalidRequest(f"name: at most {MAX_NAME} characters", reason="INVALID_NAME")
        if games_at_once < 0:
            raise InvalidRequest("games_at_once must be 0 or more", reason="INVALID_GAMES_AT_ONCE")
        at_once = games_at_once or 1
        total = game_count(len(entrants), rules.seats, rounds)
        self._gate.create(client, len(entrants), at_once, total)
        resolved_entrants = await self._entrants(entrants, game_type)
        token = new_token()
        spec = TournamentSpec(
            tournament_id=secrets.token_hex(8),
            name=name,
            game_type=game_type,
            seats=rules.seats,
            options=resolved,
            time_control=time_control.to_data() if time_control is not None else None,
            rounds=rounds,
            duplicate=duplicate,
            entrants=resolved_entrants,
            games_at_once=at_once,
            seed=seed or secrets.token_bytes(32),
            creator_hash=token_hash(token),
            created_at_ms=self._games.tables.now_ms(),
        )
        await self.store.create(spec, total)
        return await self.store.load(spec.tournament_id), token

    async def _entrants(self, given: Sequence[str], game_type: str) -> tuple[Entrant, ...]:
        out: list[Entrant] = []
        seen: dict[str, int] = {}
        for index, bot in enumerate(given):
            if bot in BOT_KINDS:
                kind, endpoint, shown = REFERENCE, "", bot
            else:
                try:
                    record = await self._bots.bot(bot)
                except BotNotFound:
                    raise InvalidRequest(
                        f"entrants[{index}]: no bot {bot!r} (a registered bot id, or one of "
                        f"{', '.join(BOT_KINDS)})",
                        reason="UNKNOWN_BOT",
                    ) from None
                if game_type not in record.game_types:
                    raise InvalidRequest(
                        f"entrants[{index}]: bot {bot!r} does not play {game_type}",
                        reason="UNKNOWN_BOT",
                    )
                kind, endpoint, shown = record.kind, record.endpoint, record.name
            seen[shown] = seen.get(shown, 0) + 1
            if seen[shown] > 1:
                shown = f"{shown}#{seen[shown]}"
            out.append(Entrant(index, bot, shown, kind, endpoint))
        return tuple(out)

    async def get(self, tournament_id: str) -> TournamentState:
        return await self.store.load(tournament_id)

    async def page(self, limit: int, page_token: str) -> tuple[list[TournamentState], str]:
        before = _read_page_token(page_token)
        found = await self.store.page(limit + 1, before)
        more = len(found) > limit
        found = found[:limit]
        last = found[-1].spec if more and found else None
        return found, f"{last.created_at_ms}-{last.tournament_id}" if last else ""

    def standings(self, state: TournamentState) -> list[Row]:
        spec = state.spec
        return standings(
            spec.entrants,
            slots(spec),
            state.results,
            duplicate=spec.duplicate,
            folds=self._folds,
            key=spec.tournament_id,
        )

    async def stream(
        self, tournament_id: str, from_version: int
    ) -> AsyncIterator[tuple[int, dict[str, Any]]]:
        """Each event (its version and data) from ``from_version`` on, until the end."""
        await self.store.load(tournament_id)  # TournamentNotFound before anything is sent
        version = max(from_version, 1)
        while True:
            for text in await self.store.events(tournament_id, version):
                data = json.loads(text)
                yield version, data
                version += 1
                if data["kind"] == events.END:
                    return
            if self._closing:
                raise ShuttingDown("the server is shutting down: resume the stream elsewhere")
            await self.store.wait(tournament_id, version - 1, self._stream_wait_s)

    async def cancel(self, tournament_id: str, token: str | None) -> TournamentState:
        if token is None:
            raise Unauthenticated("cancelling needs the creator token", reason="MISSING_TOKEN")
        state = await self.store.load(tournament_id)
        if not hmac.compare_digest(state.spec.creator_hash, token_hash(token)):
            raise PermissionDenied(
                "that token is not this tournament's creator token", reason="WRONG_CREATOR_TOKEN"
            )
        if state.status == RUNNING:
            rows = self.standings(state)
            await self.store.cancel(tournament_id, events.end(CANCELLED, rows))
            await self.store.look_again(tournament_id, None)
        return await self.store.load(tournament_id)

    # -- bots ---------------------------------------------------------------------------------

    async def register_bot(
        self,
        *,
        client: str,
        name: str,
        game_types: Sequence[str],
        kind: str,
        endpoint: str,
        ladder: bool,
    ) -> tuple[BotRecord, str]:
        """A new bot and its token (``<bot id>.<secret>``: the id finds the record, whose hash
        the secret must match)."""
        if not 1 <= len(name) <= MAX_NAME:
            raise InvalidRequest(f"name: 1 to {MAX_NAME} characters", reason="INVALID_NAME")
        if not game_types:
            raise InvalidRequest("game_types: at least one", reason="INVALID_GAME_TYPES")
        for game_type in game_types:
            get_rules(game_type)
        if kind == CALLED and not endpoint.startswith(ENDPOINT_SCHEMES):
            raise InvalidRequest(
                "a called bot's endpoint is grpc://host:port, grpcs://host:port or https://…",
                reason="INVALID_ENDPOINT",
            )
        if kind == CONNECTED and endpoint:
            raise InvalidRequest("a connected bot has no endpoint", reason="INVALID_ENDPOINT")
        if kind not in (CALLED, CONNECTED):
            raise InvalidRequest("kind: CALLED or CONNECTED", reason="INVALID_BOT_KIND")
        self._gate.register(client)
        bot_id = secrets.token_hex(8)
        token = f"{bot_id}.{new_token()}"
        record = BotRecord(
            bot_id=bot_id,
            name=name,
            game_types=tuple(dict.fromkeys(game_types)),
            kind=kind,
            endpoint=endpoint,
            ladder=ladder,
            token_hash=token_hash(token),
            created_at_ms=self._games.tables.now_ms(),
        )
        await self._bots.add_bot(record)
        return record, token

    async def ladder(self, game_type: str) -> list[tuple[BotRecord, Ladder, bool]]:
        """The ladder of a game type: each bot on it, its rating and whether it can be given
        games now; best first."""
        get_rules(game_type)
        bots = await self._bots.ladder_bots(game_type)
        ratings = await self._ladders.ratings(game_type)
        rows = []
        for bot in bots:
            if bot.kind == CALLED:
                available = await self._bots.failures(bot.bot_id) < MAX_FAILURES
            else:
                available = await self._bots.online(bot.bot_id)
            rows.append((bot, ratings.get(bot.bot_id) or Ladder(), available))
        rows.sort(key=lambda row: (-row[1].ordinal, row[0].created_at_ms))
        return rows

    async def session(self, token: str | None) -> AsyncIterator[dict[str, Any]]:
        """A connected bot's session: each seat handed to it (from the first it has not
        played), with the seat's token, as it is handed."""
        bot = await self.bot_of_token(token)
        assert token is not None
        start = 0
        seen: set[tuple[str, int]] = set()
        while True:
            await self._bots.mark_online(bot.bot_id, ONLINE_MS)
            given = await self._bots.seats_given(bot.bot_id, start)
            start += len(given)
            for text in given:
                seat = json.loads(text)
                key = (seat["game_id"], seat["seat"])
                if key in seen or not await self._open(*key):
                    continue
                seen.add(key)
                seat["seat_token"] = seat_token(bot.token_hash, *key)
                yield seat
            if self._closing:
                raise ShuttingDown("the server is shutting down: reconnect")
            await asyncio.sleep(SESSION_POLL_S)

    async def _open(self, game_id: str, seat: int) -> bool:
        """Whether a handed seat is still to be played (its game created and running; one
        not created yet is: its creation is under way)."""
        try:
            record = await self._games.store.load(game_id)
        except GameNotFound:
            return True
        return record.status == ACTIVE

    async def bot_of_token(self, token: str | None) -> BotRecord:
        """The bot a token is the token of; UNAUTHENTICATED otherwise."""
        if token is None:
            raise Unauthenticated("a bot session needs its bot token", reason="MISSING_TOKEN")
        bot_id = token.partition(".")[0]
        try:
            record = await self._bots.bot(bot_id)
        except BotNotFound:
            raise Unauthenticated("not a bot token") from None
        if not hmac.compare_digest(record.token_hash, token_hash(token)):
            raise Unauthenticated("not a bot token")
        return record


def _read_page_token(token: str) -> tuple[int, str] | None:
    if not token:
        return None
    created, _, tid = token.partition("-")
    if not created.isdigit() or not tid:
        raise InvalidRequest("malformed page_token", reason="INVALID_PAGE_TOKEN")
    return int(created), tid
