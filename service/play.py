"""A seat's play stream (DESIGN.md decision 10), transport-free: what the ``Play`` RPC does.

The servicer gives a :class:`PlaySession` the seat's moves as they arrive and sends on the
steps (:class:`PlayStep`) that :meth:`PlaySession.items` yields, one message each: for this seat
only, the answer to a move, each version's events in order, and the seat's view whenever it may
act (must, or is offered an optional move; once at the start, and at the game's end). One
message per step, not per part: a message costs the server more than a move's logic. Moves go
through the unary call's own path (:meth:`service.moves.Moves.move`): the same checks in the
same order, the same idempotency and compare-and-set, the same errors; a refused move is
answered with its error and the session goes on. The seat's view after its own move is built
only when it is sent.

A session sees the service only through :class:`SeatDesk`, a port of five calls (open the seat
and follow its game, the game at a version, the batches after one, a move, the clocks): not the
store, the copies or the feed behind them.

One loop per stream decides what to send, in version order, from one inbox: the seat's moves, and
the news the desk tells it: the batches of the versions other seats' moves reach (from any
replica, by the replica's one feed, :class:`~service.feed.GameFeed`), or the error that ends the
stream (the server shutting down among them). A version is caught up with the batches heard and
the game at it from this replica's copy when it holds it; the seat's own move needs neither, as
its answer holds its events and view. When the server shuts down, the session
ends with :class:`ShuttingDown` (UNAVAILABLE): the client reconnects from the last version it
saw.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import structlog

from engine import get_rules
from engine.core.errors import EngineError
from engine.core.moves import Move
from service.clocks import SeatClockView
from service.errors import TricktableError, VersionAhead
from service.feed import Batches, Follower, project_upto
from service.limits import Settle
from service.moves import Moved
from service.results import (
    MoveAnswer,
    PlayStep,
    ProjectedBatch,
    SeatView,
    project_events,
    view_of,
)
from service.store.base import ACTIVE, GameRecord

# The steps a session yields are plain results (service.results): named here too, as the
# session's vocabulary.
__all__ = [
    "Incoming",
    "MoveAnswer",
    "MoveAsk",
    "PlaySession",
    "PlayStep",
    "SeatView",
    "Settle",
    "answered_with_turn",
]

log = structlog.get_logger("tricktable.play")


@dataclass(frozen=True, slots=True)
class MoveAsk:
    """A move the seat sent, as SubmitMove carries it (the seat and game are the stream's)."""

    move: Move
    expected_version: int
    request_id: str


#: A move as it arrived: its request id, what reads it (raising if it is malformed, so the
#: refusal is answered in its turn like any other), and its settle (None: nothing to settle).
Incoming = tuple[str, Callable[[], MoveAsk], Settle | None]
#: What the desk tells a session: the batches of the versions its game reached, or the error
#: that ends the stream (the game expired, the store went away, the server shuts down).
News = Follower
#: The inbox holds the seat's moves and the desk's news.
_Inbox = Incoming | Batches | BaseException


class SeatDesk(Protocol):
    """What a play session may ask of the service (:class:`service.game_service.GameService`
    answers it)."""

    async def open_seat(
        self, game_id: str, token: str | None, news: News
    ) -> tuple[GameRecord, Any, int, Callable[[], None]]:
        """The game now, its engine state and the token's seat, for that seat's stream (a seat
        token, a full table); from then on ``news`` is told the batches of each version the
        game reaches, and the server's shutdown, until the function returned is called.
        ShuttingDown if the server is closing already."""
        ...

    async def game_at(self, game_id: str, version: int) -> tuple[GameRecord, Any]:
        """The game at ``version`` or later, and its engine state."""
        ...

    async def batches(self, record: GameRecord, viewer: int, after: int) -> list[ProjectedBatch]:
        """The batches after ``after`` up to ``record``'s version, projected for ``viewer``,
        up to the game's last."""
        ...

    async def move(
        self,
        game_id: str,
        token: str | None,
        move: Move,
        *,
        expected_version: int,
        request_id: str,
        seat: int | None = None,
    ) -> Moved:
        """The move decided and committed, as SubmitMove makes it."""
        ...

    def clocks(self, record: GameRecord) -> tuple[SeatClockView, ...]:
        """Every seat's clock at ``record``."""
        ...


class _Mailbox:
    """The session's inbox: many writers (callbacks, the reader task), one reader. Not
    ``asyncio.Queue``: its bookkeeping for bounded sizes, many readers and ``join`` (a deque of
    getters, task counts, an event cleared per put) costs more than the message, two of which
    pass through here per move."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: deque[_Inbox] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put(self, item: _Inbox) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> _Inbox:
        items = self._items
        while not items:
            self._waiter = waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        return items.popleft()

    def settle_unanswered(self) -> None:
        """The session has ended: the moves still in the inbox were never run, and keep no
        token of their address' refused-moves budget."""
        items, self._items = self._items, deque()
        for item in items:
            if isinstance(item, tuple) and item[2] is not None:
                item[2](None)


class PlaySession:
    """One seat's play stream on one game, from ``from_version`` on."""

    def __init__(
        self,
        games: SeatDesk,
        game_id: str,
        token: str | None,
        from_version: int,
        *,
        wait_for_turn: bool = False,
    ) -> None:
        self._games = games
        self._game_id = game_id
        self._token = token
        self._wait_for_turn = wait_for_turn
        self._sent = from_version - 1  # the last version whose events were sent
        self._viewed = -1  # the version of the last view sent
        self._inbox = _Mailbox()
        self._ended = False

    def items(self, moves: AsyncIterator[Incoming]) -> AsyncIterator[PlayStep]:
        """What to send the seat, as ``moves`` arrive, until the game ends (or an error ends
        the stream: one raised by ``moves`` too, which is how a protocol breach ends it); with
        ``wait_for_turn``, an accepted move's answer waits for the seat's next view."""
        steps = self._steps(moves)
        return answered_with_turn(steps) if self._wait_for_turn else steps

    async def _steps(self, moves: AsyncIterator[Incoming]) -> AsyncIterator[PlayStep]:
        games = self._games
        record, state, seat, leave = await games.open_seat(self._game_id, self._token, self._heard)
        reader: asyncio.Task[None] | None = None
        try:
            if self._sent > record.version:
                # As StreamEvents: a start past the next version may never come; holding the
                # stream for it would only hide the client's mistake.
                raise VersionAhead(record.version, self._sent + 1)
            rules = get_rules(record.game_type)
            reader = asyncio.get_running_loop().create_task(self._read(moves))
            step = PlayStep()
            await self._catch_up(step, rules, record, state, seat, always_view=True)
            yield step
            while not self._ended:
                got = await self._inbox.get()
                step = PlayStep()
                if isinstance(got, list):
                    reached = got[-1].version
                    if reached > self._sent:
                        record, state = await games.game_at(self._game_id, reached)
                        await self._catch_up(step, rules, record, state, seat, heard=got)
                elif isinstance(got, tuple):
                    await self._move(step, rules, seat, got)
                else:
                    raise got  # the shutdown, the game gone, the moves' reader failing
                if step:
                    yield step
        finally:
            leave()
            if reader is not None:
                reader.cancel()
            self._inbox.settle_unanswered()

    async def _move(self, step: PlayStep, rules: Any, seat: int, incoming: Incoming) -> None:
        request_id, read, settle = incoming
        try:
            ask = read()
            moved = await self._games.move(
                self._game_id,
                self._token,
                ask.move,
                expected_version=ask.expected_version,
                request_id=ask.request_id,
            )
        except (TricktableError, EngineError) as refused:
            if settle is not None:
                settle(refused)
            log.info("move refused", game_id=self._game_id, seat=seat, request_id=request_id)
            step.answer = MoveAnswer(request_id, None, refused)
            return
        except BaseException as failed:  # the stream ends (the store gone, cancelled)
            if settle is not None:
                settle(failed)
            raise
        if settle is not None:
            settle(None)
        step.answer = MoveAnswer(ask.request_id, moved.version)
        if moved.retried or moved.version != self._sent + 1:
            # A resent request's first result, or versions this stream has not sent yet: the
            # game as it is now tells the rest.
            await self._catch_up(step, rules, moved.record, moved.state, seat)
            return
        # The usual case: the move holds its events and the game after it.
        batch = ProjectedBatch(moved.version, seat, project_events(rules, moved.events, seat), None)
        step.batches.append(batch)
        self._sent = moved.version
        self._ended = batch.last
        state = moved.state
        if self._ended or state.finished or seat in rules.movers(state):
            self._viewed = moved.version
            step.view = SeatView(
                moved.version, rules.view(state, seat), self._games.clocks(moved.record)
            )

    async def _catch_up(
        self,
        step: PlayStep,
        rules: Any,
        record: GameRecord,
        state: Any,
        seat: int,
        *,
        always_view: bool = False,
        heard: Batches = (),  # type: ignore[assignment]  # read only
    ) -> None:
        """Adds to ``step`` the events after the last version sent up to ``record``'s, then the
        seat's view there if it is to act (or the game has ended, or ``always_view``): from
        the batches ``heard`` when they are those, else asked of the desk."""
        if record.version > self._sent:
            fresh = [b for b in heard if self._sent < b.version <= record.version]
            if fresh and fresh[0].version == self._sent + 1 and fresh[-1].version == record.version:
                batches = project_upto(rules, fresh, seat)
            else:
                batches = await self._games.batches(record, seat, self._sent)
            for batch in batches:
                step.batches.append(batch)
                self._sent = batch.version
                if batch.last:
                    self._ended = True
        if record.status != ACTIVE and self._sent >= record.version:
            self._ended = True  # an ended game whose every batch was sent
        if record.version <= self._viewed:
            return
        if always_view or self._ended or state.finished or seat in rules.movers(state):
            self._viewed = record.version
            step.view = SeatView(
                record.version, view_of(rules, state, seat, record), self._games.clocks(record)
            )

    def _heard(self, news: Batches | Exception) -> None:
        """The batches of versions the game reached (other seats' moves, from any replica), or
        the error that ends the stream (the game expired, the store went away, shutdown)."""
        if isinstance(news, Exception) or news[-1].version > self._sent:  # else its own move
            self._inbox.put(news)

    async def _read(self, moves: AsyncIterator[Incoming]) -> None:
        """Posts the seat's moves as they arrive; once the seat sends no more, the stream goes
        on until the game ends."""
        try:
            async for incoming in moves:
                self._inbox.put(incoming)
        except Exception as failed:  # a protocol breach, or the call failing under us
            self._inbox.put(failed)


async def answered_with_turn(steps: AsyncIterator[PlayStep]) -> AsyncIterator[PlayStep]:
    """``steps`` with each accepted move's answer (and the events after it) held back until a
    step brings the seat's view, and sent in that step (``PlayOpen.wait_for_turn``): a bot acts
    only on its views, and one message a turn instead of two costs less on both sides.

    Only an answer to a move newer than the last view sent waits: a resent move's answer may
    come after the view of its seat's next turn (sent when the stream reopened), and a client
    that waits for that answer before it acts would wait forever. A refused move, or a step
    that answers another move, sends what is held first, in order; so does the stream's end."""
    held: PlayStep | None = None
    viewed = -1  # the version of the last view sent
    try:
        async for made in steps:
            step = made
            if held is not None:
                if made.answer is None:
                    held.batches += made.batches
                    held.view = made.view
                    step = held
                else:
                    yield held
                held = None
            answer = step.answer
            if (
                step.view is None
                and answer is not None
                and answer.version is not None
                and answer.version > viewed
            ):
                held = step
                continue
            if step.view is not None:
                viewed = step.view.version
            yield step
    except Exception:
        # The stream ends with an error (the server shutting down, say): what was held goes
        # first, so the client sees every answer it was given up to the end.
        if held is not None:
            yield held
        raise
    if held is not None:
        yield held
