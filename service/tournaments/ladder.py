"""The rated ladder of each game type: bots that opted in are matched into rated games, at most
``games_at_once`` per game type at a time (the operator's ``--ladder-games-at-once``; 0: off),
and each game, once ended, updates its bots' openskill ratings, once.

Matching: the available bots (a called bot not marked unavailable, a connected bot whose session
is open) not already in a rated game, ordered by rating, and a window of as many of them as the
game has seats taken at a place drawn from the game's number, so bots of nearby ratings meet
and every bot meets others over time; seats are shuffled by the same draw.

Like a tournament, a ladder lives in the store and is advanced by whichever replica holds its
lease: a rated game is started by the store's step that finds it the next
(:meth:`TournamentStore.ladder_start`), created under an id fixed by its number (the game store
refuses a second), and rated by the step that finds it unrated and the ratings as read
(:meth:`TournamentStore.ladder_rate`), so each rating is updated exactly once.
"""

from __future__ import annotations

import asyncio
import random
import secrets

import structlog
from openskill.models import PlackettLuce

from engine import get_rules
from service.background import BackgroundLoop
from service.errors import GameNotFound, StoreUnavailable
from service.game_service import GameService
from service.store.base import ACTIVE, GameExists
from service.tournaments.advance import result_of
from service.tournaments.bot_store import Stores
from service.tournaments.called import MAX_FAILURES, CalledBots
from service.tournaments.seating import hold
from service.tournaments.spec import CALLED
from service.tournaments.standings import Result
from service.tournaments.store import STALE, BotRecord, Ladder, LadderState

log = structlog.get_logger("tricktable.ladder")

#: How soon a ladder with rated games under way is looked at again; one with none, and no
#: match to make, waits longer (an idle ladder costs the store a few reads a second).
LADDER_POLL_S = 0.2
LADDER_IDLE_S = 1.0
LEASE_MS = 5000


def ladder_game_id(game_type: str, number: int) -> str:
    return f"ladder-{game_type}-{number}"


def ranks(result: Result) -> list[float]:
    """Each seat's place: the winners first, then by final score; ties share a place."""
    keys = [(seat in result.winners, score) for seat, score in enumerate(result.scores)]
    return [1.0 + sum(other > key for other in keys) for key in keys]


def rated(ratings: dict[str, Ladder], bots: tuple[str, ...], result: Result) -> dict[str, Ladder]:
    """The seats' bots' ratings after the game (Plackett-Luce, as the standings rate)."""
    model = PlackettLuce()
    before = [ratings.get(bot) or Ladder() for bot in bots]
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = model.rate(teams, ranks=ranks(result))
    share = 1 / len(result.winners) if result.winners else 0.0
    return {
        bot: Ladder(
            mu=after[seat][0].mu,
            sigma=after[seat][0].sigma,
            games=before[seat].games + 1,
            wins=before[seat].wins + (share if seat in result.winners else 0.0),
        )
        for seat, bot in enumerate(bots)
    }


class LadderRunner(BackgroundLoop):
    task_name = "ladder"

    def __init__(
        self,
        games: GameService,
        stores: Stores,
        called: CalledBots,
        *,
        games_at_once: int,
    ) -> None:
        self._games = games
        self._store = stores.ladders
        self._bots = stores.bots
        self._called = called
        self._at_once = games_at_once
        self._holder = secrets.token_hex(8)

    def wanted(self) -> bool:
        return self._at_once > 0  # --ladder-games-at-once 0: no ladder

    async def _run(self) -> None:
        while True:
            busy = False
            for game_type in await self._ladder_game_types():
                try:
                    if await self._store.lease(f"ladder.{game_type}", self._holder, LEASE_MS):
                        busy = await self.advance(game_type) or busy
                except StoreUnavailable as exc:
                    log.warning("ladder step failed", game_type=game_type, why=exc.message)
                except Exception:  # a bug must not stop the ladders
                    log.exception("ladder step failed", game_type=game_type)
            await asyncio.sleep(LADDER_POLL_S if busy else LADDER_IDLE_S)

    async def _ladder_game_types(self) -> list[str]:
        try:
            return await self._bots.ladder_game_types()
        except StoreUnavailable as exc:
            log.warning("ladder look failed", why=exc.message)
            return []

    async def advance(self, game_type: str) -> bool:
        """Rate what ended, start what may start; whether rated games are under way."""
        state = await self._store.ladder(game_type)
        for number in state.playing:
            game_id, bot_ids = state.games[number]
            try:
                record = await self._games.store.load(game_id)
            except GameNotFound:  # its starter died before creating it
                await self._create(game_type, number, bot_ids)
                continue
            if record.status == ACTIVE:
                seats = [(seat, await self._bots.bot(b)) for seat, b in enumerate(bot_ids)]
                self._called.play(game_id, [(s, b) for s, b in seats if b.kind == CALLED])
                continue
            rules, engine_state = await self._games.tables.state(record)
            await self._rate(
                game_type, number, bot_ids, result_of(number, record, rules, engine_state)
            )
        state = await self._store.ladder(game_type)
        while len(state.playing) < self._at_once:
            number = len(state.games)
            bots = await self._match(game_type, state, number)
            if bots is None:
                break
            bot_ids = tuple(b.bot_id for b in bots)
            if await self._store.ladder_start(
                game_type, number, ladder_game_id(game_type, number), bot_ids, self._at_once
            ):
                await self._create(game_type, number, bot_ids)
            state = await self._store.ladder(game_type)
        return bool(state.playing)

    async def _rate(
        self, game_type: str, number: int, bots: tuple[str, ...], result: Result
    ) -> None:
        while True:
            state = await self._store.ladder(game_type)
            updates = rated(dict(state.ratings), bots, result)
            outcome = await self._store.ladder_rate(game_type, number, len(state.rated), updates)
            if outcome != STALE:
                return

    async def _match(
        self, game_type: str, state: LadderState, number: int
    ) -> list[BotRecord] | None:
        seats = get_rules(game_type).seats
        busy = {b for n in state.playing for b in state.games[n][1]}
        free = [
            b
            for b in await self._bots.ladder_bots(game_type)
            if b.bot_id not in busy and await self._available(b)
        ]
        if len(free) < seats:
            return None
        free.sort(key=lambda b: (-(state.ratings.get(b.bot_id) or Ladder()).ordinal, b.bot_id))
        draw = random.Random(f"{game_type}:{number}")
        start = draw.randrange(len(free) - seats + 1)
        chosen = free[start : start + seats]
        draw.shuffle(chosen)
        return chosen

    async def _available(self, bot: BotRecord) -> bool:
        if bot.kind == CALLED:
            return await self._bots.failures(bot.bot_id) < MAX_FAILURES
        return await self._bots.online(bot.bot_id)

    async def _create(self, game_type: str, number: int, bot_ids: tuple[str, ...]) -> None:
        game_id = ladder_game_id(game_type, number)
        bots = [await self._bots.bot(b) for b in bot_ids]
        held = await hold(
            self._bots, game_id, game_type, [(s, b, b.name) for s, b in enumerate(bots)]
        )
        try:
            await self._games.create_game(game_type, {}, None, game_id=game_id, held_seats=held)
        except GameExists:
            return
        log.info("ladder game started", game_type=game_type, game_id=game_id, bots=bot_ids)
