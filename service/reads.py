"""The reads: a caller's view of a game (GetGame, with its waits), its clocks, its event stream
(StreamEvents), and an ended game's record (GetGameRecord).

Everything that leaves is projected for its viewer, a seat or None for a spectator, by the
game's rules: events by :func:`~service.results.project_events` (``Rules.project``), the game by
``Rules.view``. The seed never leaves.

``wait_for_turn`` (GetGame and SubmitMove) holds the answer until the caller's seat is to act,
so a bot needs one call per move; ``after_version`` holds it until the game passes that
version. Every wait here, a stream's or a call's, waits in the replica's one feed
(:class:`~service.feed.GameFeed`), woken with the batches of each version the game reaches.
"""

from __future__ import annotations

import math
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from engine import get_rules
from engine.core.events import event_from_data
from engine.core.moves import move_from_data
from engine.core.rules import Rules
from engine.core.view import View
from engine.record import Record, Step, replay_logged
from service import clocks as clock_rules
from service import limits, turns
from service.clocks import SeatClockView
from service.errors import GameNotPlayable, Unauthenticated, VersionAhead
from service.feed import Batches, GameFeed, project, project_upto
from service.presence import Presence
from service.results import ProjectedBatch, view_of
from service.store.base import ACTIVE, GameRecord
from service.tables import Tables, seat_of_token, viewer_of


class Reads:
    def __init__(
        self,
        tables: Tables,
        presence: Presence,
        feed: GameFeed,
        *,
        stream_wait_s: float,
        turn_wait_s: float,
    ) -> None:
        self._tables = tables
        self._presence = presence
        self._feed = feed
        self._stream_wait_s = stream_wait_s  # how long a wait lasts before it looks again
        self._turn_wait_s = turn_wait_s

    def turn_wait(self, remaining_s: float | None) -> float:
        """How long a wait_for_turn call may wait: the server's limit, within the deadline."""
        if remaining_s is None:
            return self._turn_wait_s
        return max(0.0, min(self._turn_wait_s, remaining_s - 0.05))

    def clocks(self, record: GameRecord) -> tuple[SeatClockView, ...]:
        """Every seat's clock now, as anyone may see it (empty in a game without a clock)."""
        held = turns.clocks_of(record)
        if held is None:
            return ()
        return clock_rules.views(*held, self._tables.now_ms())

    async def get_game(
        self,
        game_id: str,
        token: str | None,
        *,
        wait_s: float = 0.0,
        wait_for_turn: bool | None = None,
        after_version: int | None = None,
    ) -> tuple[GameRecord, View]:
        """The caller's view. Within ``wait_s``: with ``after_version`` (anyone, spectators
        too), once the game's version is later than it or the game has ended; with
        ``wait_for_turn`` (a seat's token needed; the default when ``wait_s`` is given without
        ``after_version``), once the seat must act or the game has ended. Both: the one, then
        the other."""
        if wait_for_turn is None:
            wait_for_turn = wait_s > 0 and after_version is None
        tables = self._tables
        record = await tables.store.load(game_id)
        viewer = viewer_of(record, token)
        seat = seat_of_token(record, token)
        await self._presence.touch(game_id, seat)
        if wait_for_turn and token is None:
            raise Unauthenticated("waiting for a turn needs a seat token", reason="MISSING_TOKEN")
        rules, state = await tables.state(record)
        tables.cache.put(record, state)
        deadline = time.monotonic() + wait_s
        if wait_s > 0 and after_version is not None:
            record, state = await self._wait_until(
                record, state, lambda r, _: r.version > after_version, wait_s, seat=seat
            )
            viewer = viewer_of(record, token)
        if wait_for_turn and viewer is not None:
            left = deadline - time.monotonic()
            record, state = await self.wait_for_turn(record, rules, state, viewer, left)
        return record, view_of(rules, state, viewer, record)

    async def wait_for_turn(
        self, record: GameRecord, rules: Rules[Any], state: Any, seat: int, wait_s: float
    ) -> tuple[GameRecord, Any]:
        """The game once ``seat`` must act or it has ended; the latest seen after ``wait_s``.
        A seat offered only optional moves (``may_act``) is not woken for them. A waiting seat
        stays present."""
        return await self._wait_until(
            record, state, lambda _, st: st.finished or seat in rules.to_act(st), wait_s, seat=seat
        )

    async def _wait_until(
        self,
        record: GameRecord,
        state: Any,
        done: Callable[[GameRecord, Any], bool],
        wait_s: float,
        *,
        seat: int | None,
    ) -> tuple[GameRecord, Any]:
        """The one way a call waits on a game: until ``done`` (or the game has ended, or the
        server shuts down), woken by the feed with each version the game reaches; the latest
        seen after ``wait_s``. A waiting seat stays present."""
        tables = self._tables
        deadline = time.monotonic() + wait_s
        while record.status == ACTIVE and not done(record, state) and not tables.closing:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            limits.holding()  # a held call does not keep its client's place (service.limits)
            await self._presence.touch(record.game_id, seat)
            wait = min(remaining, self._stream_wait_s)
            batches = await self._feed.after(record.game_id, record.version + 1, wait)
            if batches:
                record, state = await tables.at(record.game_id, batches[-1].version)
            elif await self._feed.moved_past(record.game_id, record.version):
                # The wait ran out: one look at the version (GameNotFound: the game expired).
                record, state = await tables.at(record.game_id, record.version + 1)
        return record, state

    async def stream_events(
        self, game_id: str, token: str | None, from_version: int, follow_rematch: bool = False
    ) -> AsyncIterator[ProjectedBatch]:
        """Batches from ``from_version`` on, projected, then live ones as they are committed.
        Ends after the game's last batch (with ``follow_rematch``, a stream started past it
        follows the seats' rematch offers up to the one naming the next game), or when the
        server shuts down. A start beyond the
        next version is refused: that version may never come, and holding the stream until its
        deadline would only hide the client's mistake.

        An idle stream costs the store nothing: it waits in the replica's
        :class:`~service.feed.GameFeed`, whose one watch per game waits on the replica's one
        subscription (``wait_for_version``) until a commit's notification, a resubscription
        (after which the store re-reads the version, so a notification lost meanwhile delays a
        batch but never drops it) or, every ``stream_recheck_s``, one version read that ends the
        streams of a game that has expired. The streams woken by one commit share one read (none
        for a commit made on this replica) and are each handed its batches.
        """
        tables = self._tables
        record = await tables.store.load(game_id)
        seat = seat_of_token(record, token)
        viewer = viewer_of(record, token)
        if from_version > record.version + 1:
            raise VersionAhead(record.version, from_version)
        if record.status != ACTIVE and from_version > record.version:
            # After an ended game's last batch come only its seats' rematch offers
            # (service.rematch): followed, when asked, up to the one naming the next game.
            if not follow_rematch:
                return
            ended = (await tables.store.read_events(game_id, record.version))[-1]
            if ended.rematch is not None and ended.rematch["game_id"]:
                return
        rules = get_rules(record.game_type)
        next_version = from_version
        # A seat's stream keeps its seat present, looking again every stream_wait_s (a store
        # write at most about every second, and a look at the game's version); a spectator's,
        # the many idle streams, costs the store nothing until the game moves.
        wait_s = self._stream_wait_s if seat is not None else math.inf
        if tables.closing:
            return
        await self._presence.touch(game_id, seat)
        batches: Batches | None = await self._feed.read(game_id, next_version)
        while True:
            for decoded in batches or ():
                batch = decoded.batch
                if batch.version < next_version:
                    continue
                if batch.version > 0:  # moves are made only at a full table
                    viewer = seat
                # The first stream for this viewer projects for all of them.
                projected, last = project(rules, decoded, viewer)
                yield projected
                next_version = batch.version + 1
                if last:
                    return
            if tables.closing:
                return
            await self._presence.touch(game_id, seat)
            batches = await self._feed.after(game_id, next_version, wait_s)
            if batches is not None or tables.closing:
                continue
            # A seat's wait ran out: it looks at the game's version (GameNotFound, the game
            # expired, ends the stream), as the feed's watch does for spectators, rarely.
            if await self._feed.moved_past(game_id, next_version - 1):
                batches = await self._feed.read(game_id, next_version)

    async def batches(self, record: GameRecord, viewer: int, after: int) -> list[ProjectedBatch]:
        """The batches after version ``after`` up to ``record``'s, as ``viewer`` may see them,
        up to the game's last (from the feed: a move this replica committed is not read back)."""
        return project_upto(
            get_rules(record.game_type),
            await self._feed.between(record.game_id, after, record.version),
            viewer,
        )

    async def seat_game(self, game_id: str, token: str | None) -> tuple[GameRecord, Any, int]:
        """The game as the store has it now and the token's seat, for that seat's play stream:
        a seat token is needed and the table must be full (before that, the seat's cards are
        not yet its to see)."""
        record = await self._tables.store.load(game_id)
        if token is None:
            raise Unauthenticated("a play stream needs a seat token", reason="MISSING_TOKEN")
        seat = seat_of_token(record, token)
        assert seat is not None
        if not record.full:
            raise GameNotPlayable("the game waits for players to take every seat")
        _, state = await self._tables.state(record)
        self._tables.cache.put(record, state)
        return record, state, seat

    async def game_record(self, game_id: str) -> tuple[GameRecord, Record]:
        """An ended game told in full (see engine.record). Refused while the game runs: the
        record shows every hand. The events are the ones stored as the game was played; what
        chance gave is learnt by re-playing the moves from the secret seed, which stays here."""
        store = self._tables.store
        game = await store.load(game_id)
        if game.status == ACTIVE:
            raise GameNotPlayable(
                "the game has not ended: its record is given once it has",
                reason="GAME_NOT_FINISHED",
            )
        rules = get_rules(game.game_type)
        moves = [(m.seat, move_from_data(m.move)) for m in await store.moves(game_id)]
        state, log = replay_logged(rules, game.options, game.seed, moves)
        made = iter(moves)
        steps = []
        for batch in await store.read_events(game_id, 0):
            if batch.rematch is not None:
                break  # after the end: the seats' rematch, not the game's (service.rematch)
            events = tuple(event_from_data(e) for e in batch.events)
            # No move: the opening, a resignation, or an end by the service (no seat).
            if batch.seat is None or batch.resigned_seat is not None:
                steps.append(Step(batch.version, batch.seat, None, events, batch.resigned_seat))
            else:
                seat, move = next(made)
                steps.append(Step(batch.version, seat, move, events))
        record = Record(
            game_type=game.game_type,
            options=game.options,
            chance=log.draws,
            deals=log.deals,
            steps=steps,
            outcome=rules.outcome(state),
            resigned_seat=game.resigned_seat,
        )
        return game, record
