"""One step of a tournament, done by whichever replica holds it (:mod:`.runner`): count every
game of it that has ended, then start games while it may have more at once.

Nothing here is promised by this process' memory: a game is started by the store's atomic
step that finds it the next one (:meth:`TournamentStore.start_game`), its result counted by the
one that finds it uncounted and the results as they were read
(:meth:`TournamentStore.count_result`), and the game itself created under an id fixed by the
schedule, which the game store refuses twice (``GameExists``). A replica that dies between
starting a game and creating it leaves a started game with no game: the next step, on any
replica, creates it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import structlog

from engine.core.rules import Rules
from service.clocks import TimeControl
from service.commit import abandoned
from service.errors import GameNotFound, VersionConflict
from service.game_service import GameService
from service.store.base import ACTIVE, GameExists, GameRecord
from service.tournaments import events
from service.tournaments.bot_store import Stores
from service.tournaments.called import CalledBots
from service.tournaments.schedule import Slot, game_id, slots
from service.tournaments.seating import Seating
from service.tournaments.spec import (
    CALLED,
    CANCELLED,
    CONNECTED,
    FINISHED,
    RUNNING,
    TournamentSpec,
)
from service.tournaments.standings import Folds, Result, standings
from service.tournaments.store import COUNTED, STALE, TournamentState

log = structlog.get_logger("tricktable.tournaments")

#: The reason of the ``GameAbandoned`` that ends a cancelled tournament's games.
CANCELLED_REASON = "cancelled"


@dataclass(frozen=True)
class Watch:
    """What a running tournament's next step waits for (:mod:`.runner`): the tournament passing
    ``version`` (a game started or counted on any replica, a cancel), or one of its games under
    way passing the version it was read at (``games``: game id -> version). Nothing else makes
    a step worth taking: a game's end is a commit of that game, whoever made it (a move, a
    clock's timeout, an abandonment)."""

    version: int
    games: dict[str, int]


class Advancer:
    def __init__(self, games: GameService, stores: Stores) -> None:
        self._games = games
        self._store = stores.tournaments
        self._bots = stores.bots
        self._seating = Seating(stores.bots)
        self.folds = Folds()
        self.called = CalledBots(games, stores.bots)

    async def advance(self, tournament_id: str) -> Watch | None:
        """Count what ended, start what may start; while the tournament runs, what its next
        step waits for (None once it has ended). A cancelled one has its games still running
        ended (None once it is done)."""
        state = await self._store.load(tournament_id)
        if state.status != RUNNING:
            await self._wind_up(state)
            return None
        schedule = slots(state.spec)
        playing: dict[str, int] = {}
        for number in state.playing:
            gid = state.games[number]
            result, version = await self._ended(state.spec, schedule[number], gid)
            if result is not None:
                state = await self._count(state, schedule, result)
                if state.status != RUNNING:
                    await self._wind_up(state)
                    return None
            else:
                playing[gid] = version
                await self._called(state.spec, gid, schedule[number])
        while len(state.games) < len(schedule) and len(state.playing) < state.spec.games_at_once:
            number = len(state.games)
            gid = game_id(tournament_id, number)
            if await self._store.start_game(
                tournament_id, number, gid, events.started(number, gid)
            ):
                await self._create(state.spec, schedule[number], gid)
                log.info("tournament game started", tournament_id=tournament_id, number=number)
                # Its called bots' seats now, not at the next step: a seat to act first would
                # otherwise wait for the runner's re-read, nothing else moving the game.
                await self._called(state.spec, gid, schedule[number])
                playing[gid] = 0  # a move made already wakes the wait at once
            state = await self._store.load(tournament_id)
            if state.status != RUNNING:
                await self._wind_up(state)
                return None
        return Watch(state.version, playing)

    async def _wind_up(self, state: TournamentState) -> None:
        """A tournament that no longer runs: a cancelled one's games still running ended
        (see the module's notes); nothing is left to do."""
        if state.status == CANCELLED:
            schedule = slots(state.spec)
            for number in state.playing:
                await self._abandon(state.spec, schedule[number], state.games[number])

    async def _abandon(self, spec: TournamentSpec, slot: Slot, gid: str) -> None:
        """End a game of a cancelled tournament, once: abandoned if it still runs."""
        while True:
            try:
                record = await self._games.store.load(gid)
            except GameNotFound:
                await self._create(spec, slot, gid)
                continue
            if record.status != ACTIVE:
                return
            try:
                await self._games.committer.commit(abandoned(record, CANCELLED_REASON))
            except VersionConflict:
                continue  # a move came first: look again
            log.info(
                "tournament game abandoned",
                tournament_id=spec.tournament_id,
                game_id=gid,
                version=record.version + 1,
            )
            return

    async def _called(self, spec: TournamentSpec, gid: str, slot: Slot) -> None:
        """The called bots' seats of a game running, played from this replica."""
        seats = [
            (seat, await self._bots.bot(spec.entrants[e].bot))
            for seat, e in enumerate(slot.seats)
            if spec.entrants[e].kind == CALLED
        ]
        self.called.play(gid, seats)

    async def _create(self, spec: TournamentSpec, slot: Slot, gid: str) -> None:
        """The scheduled game, created once (another replica's creation wins as well), every
        seat taken: by the server's reference bots, and the connected bots' held for them."""
        reference = {
            seat: spec.entrants[e].bot
            for seat, e in enumerate(slot.seats)
            if spec.entrants[e].kind not in (CALLED, CONNECTED)
        }
        tc = TimeControl.from_data(spec.time_control) if spec.time_control else None
        held = await self._seating.hold(spec, slot, gid)
        try:
            await self._games.create_game(
                spec.game_type,
                spec.options,
                slot.seed,
                time_control=tc,
                bot_seats=reference,
                game_id=gid,
                held_seats=held,
            )
        except GameExists:
            return

    async def _ended(self, spec: TournamentSpec, slot: Slot, gid: str) -> tuple[Result | None, int]:
        """The game's result once it has ended, None while it runs (or was never created, as
        when the replica that started it died first: it is created now); and its version."""
        try:
            record = await self._games.store.load(gid)
        except GameNotFound:
            await self._create(spec, slot, gid)
            return None, 0
        if record.status == ACTIVE:
            return None, record.version
        rules, state = await self._games.tables.state(record)
        return result_of(slot.number, record, rules, state), record.version

    async def _count(
        self, state: TournamentState, schedule: tuple[Slot, ...], result: Result
    ) -> TournamentState:
        """Count ``result`` once, with the standings over the results as read."""
        spec = state.spec
        tid = spec.tournament_id
        while True:
            counted = {**state.results, result.number: result}
            rows = standings(
                spec.entrants,
                schedule,
                counted,
                duplicate=spec.duplicate,
                folds=self.folds,
                key=tid,
            )
            outcome = await self._store.count_result(
                tid,
                result,
                len(state.results),
                events.ended(result, rows),
                events.end(FINISHED, rows),
            )
            if outcome == COUNTED:
                log.info("tournament game counted", tournament_id=tid, number=result.number)
                # What the step wrote, without reading the whole tournament back.
                ended = len(counted) >= len(schedule)
                return dataclasses.replace(
                    state,
                    results=counted,
                    version=state.version + (2 if ended else 1),
                    status=FINISHED if ended else state.status,
                )
            state = await self._store.load(tid)
            if outcome != STALE:
                return state


def result_of(number: int, record: GameRecord, rules: Rules[Any], state: Any) -> Result:
    """How an ended game came out: the rules' outcome, or for a game abandoned (a seat
    resigned or forfeited on time, or the table went idle) no score, the win shared by the
    seats that stayed, and the one that left counted as a forfeit."""
    outcome = rules.outcome(state)
    if outcome is not None:
        return Result(number, record.game_id, tuple(outcome.totals), tuple(outcome.winners))
    left = record.resigned_seat
    stayed = tuple(s for s in range(record.seat_count) if s != left) if left is not None else ()
    forfeits = (left,) if left is not None else ()
    return Result(number, record.game_id, (0,) * record.seat_count, stayed, forfeits)
