"""The transport-free entry points of ``TournamentService``: create, read, list, follow and
cancel a tournament, and register a bot. No gRPC and no protobuf here (the servicer converts);
every change is one of the store's atomic steps (:mod:`.store`)."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import structlog

from engine import get_rules
from engine.core.options import OptionValue, options_to_data
from service.auth import new_token, token_hash
from service.clocks import TimeControl
from service.errors import (
    InvalidRequest,
    PermissionDenied,
    StoreUnavailable,
    Unauthenticated,
)
from service.game_service import GameService
from service.tournaments import events
from service.tournaments.advance import Advancer
from service.tournaments.bot_store import Stores
from service.tournaments.called import MAX_FAILURES
from service.tournaments.follow import RECHECK_S, Following
from service.tournaments.limits import TournamentGate
from service.tournaments.quotas import BOTS, TOURNAMENTS, Quotas
from service.tournaments.schedule import game_count, slots
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
    TournamentNotFound,
    TournamentState,
)
from service.turns import BOT_KINDS

log = structlog.get_logger("tricktable.tournaments")

MAX_ROUNDS = 1000
MAX_NAME = 64
ENDPOINT_SCHEMES = ("grpc://", "grpcs://", "https://")


class TournamentDesk:
    def __init__(
        self,
        games: GameService,
        stores: Stores,
        gate: TournamentGate,
        advancer: Advancer,
        *,
        recheck_s: float = RECHECK_S,
    ) -> None:
        self._games = games
        self.store = stores.tournaments
        self._bots = stores.bots
        self._ladders = stores.ladders
        self._quotas = Quotas(stores.quotas)
        self._gate = gate
        self._advancer = advancer
        self._folds = Folds()  # the reads' own: a fold is not shared between tasks
        #: StreamTournament and BotSession, woken by the store's notifications.
        self.following = Following(games, stores, recheck_s=recheck_s)
        self.stream = self.following.stream

    def close_streams(self) -> None:
        self.following.close()

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
        tid = secrets.token_hex(8)
        now_ms = self._games.tables.now_ms()
        await self._quotas.take(
            TOURNAMENTS,
            client,
            tid,
            limit=self._gate.limits.running_tournaments,
            counts=self._running,
            now_ms=now_ms,
        )
        spec = TournamentSpec(
            tournament_id=tid,
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
            created_at_ms=now_ms,
        )
        await self.store.create(spec, total)
        return await self.store.load(spec.tournament_id), token

    async def _running(self, tournament_id: str) -> bool | None:
        """Whether a tournament still holds its creator's place (:mod:`.quotas`)."""
        try:
            return (await self.store.load(tournament_id)).status == RUNNING
        except TournamentNotFound:
            return None

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
            if await self.store.cancel(tournament_id, events.end(CANCELLED, rows)):
                await self._wind_up(tournament_id)
        return await self.store.load(tournament_id)

    async def _wind_up(self, tournament_id: str) -> None:
        """End a cancelled tournament's games still running, now (as every replica's advance
        of it does: :meth:`Advancer.advance`), and have the sweeps look at it again, so any
        replica finishes ending them if this one fails or dies on the way (it leaves the
        index once a sweep finds none running)."""
        try:
            await self._advancer.advance(tournament_id)
        except StoreUnavailable as exc:
            log.warning("ending a cancelled tournament's games failed", why=exc.message)
        await self.store.look_again(tournament_id, self._games.tables.now_ms())

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
        now_ms = self._games.tables.now_ms()
        await self._quotas.take(
            BOTS,
            client,
            bot_id,
            limit=self._gate.limits.bots,
            counts=self._registered,
            now_ms=now_ms,
        )
        token = f"{bot_id}.{new_token()}"
        record = BotRecord(
            bot_id=bot_id,
            name=name,
            game_types=tuple(dict.fromkeys(game_types)),
            kind=kind,
            endpoint=endpoint,
            ladder=ladder,
            token_hash=token_hash(token),
            created_at_ms=now_ms,
        )
        await self._bots.add_bot(record)
        return record, token

    async def _registered(self, bot_id: str) -> bool | None:
        """Whether a bot holds its client's place (:mod:`.quotas`): a bot is kept for good,
        so only one whose registration never wrote it does not."""
        try:
            await self._bots.bot(bot_id)
        except BotNotFound:
            return None
        return True

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
        """A connected bot's session: each seat handed to it, with the seat's token
        (:meth:`Following.session`), once its token is checked."""
        bot = await self.bot_of_token(token)
        async for seat in self.following.session(bot):
            yield seat

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
