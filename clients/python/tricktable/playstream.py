"""A seat's play stream (``GameService.Play``): the cheapest way to play, one long-lived call.

    with seat.play() as stream:                      # Seat.play(); AsyncSeat.play() for asyncio
        while True:
            turn = stream.turn()                     # waits until the seat is to act (or the end)
            if stream.ended or turn.view.finished:
                break
            stream.move(choose(turn.view.legal_moves), turn.version)

A bot that acts only on its views opens it with ``seat.play(wait_for_turn=True)``: each move is
then answered with the seat's next turn, one message a turn instead of two (cheaper for the
server and the bot), and :meth:`PlayStream.move` returns when the seat may act again. Code that
plays several seats from one thread, one after the other, must not: a move's answer would wait
for the other seats' moves.

What it takes care of, beside what :mod:`tricktable.client` does for unary calls:

* **The latest view.** The server sends the seat's view whenever it is to act; :meth:`turn`
  returns the newest one the seat has not acted on yet, so a move decided on it is at its version.
* **Events.** Every version's events arrive once and in order; :meth:`events` hands over those
  received since it was last called.
* **Refusals** raise the same :class:`~tricktable.errors.TricktableError` subclasses as
  :meth:`Seat.submit`, and the stream goes on. A stale move (:class:`StaleVersion`) carries no
  ``current`` game here: the stream brings the current view, and :meth:`turn` waits for it.
* **Reconnection.** When the call drops (a server shutting down ends it UNAVAILABLE), the stream
  is opened again from the version after the last one received, and a move still unanswered is
  sent again with its request id: it is applied at most once, no event is missed or repeated.
"""

from __future__ import annotations

import queue
import time
import uuid
from collections.abc import Iterator
from types import TracebackType
from typing import TYPE_CHECKING

import grpc

from tricktable.errors import (
    IllegalMove,
    StaleVersion,
    from_play_error,
    from_rpc_error,
)
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import moves_pb2

if TYPE_CHECKING:
    from tricktable.client import Seat


def new_request_id() -> str:
    return uuid.uuid4().hex


def game_over() -> IllegalMove:
    """A move left unanswered when the stream ended: the game ended first."""
    return IllegalMove(grpc.StatusCode.FAILED_PRECONDITION, "the game is over", "GAME_OVER")


class PlayState:
    """What a seat's play stream has told it, for the synchronous and the asyncio stream alike."""

    def __init__(
        self,
        game_id: str,
        seat: int,
        from_version: int,
        compact_lay_aside: bool = False,
        wait_for_turn: bool = False,
    ) -> None:
        self.game_id = game_id
        self.seat = seat
        #: Views carry a lay-aside as one choice (read them with tricktable.legal.legal_moves).
        self.compact_lay_aside = compact_lay_aside
        #: A move's answer comes with the seat's next turn (PlayOpen.wait_for_turn).
        self.wait_for_turn = wait_for_turn
        #: The last version whose events arrived.
        self.version = from_version - 1
        #: The latest view received (its version is the expected version of a move decided on it).
        self.view: pb.PlayView | None = None
        #: True once the server ended the stream after the game's end.
        self.ended = False
        self._spent = -1  # views up to this version were acted on
        self._events: list[pb.StreamEventsResponse] = []
        self._answers: dict[str, pb.PlayMoveResult] = {}
        self._unanswered: dict[str, pb.PlayRequest] = {}

    def events(self) -> list[pb.StreamEventsResponse]:
        """The event batches received since the last call, in version order."""
        taken, self._events = self._events, []
        return taken

    def skip(self, version: int) -> None:
        """Let the view at ``version`` pass without a move: :meth:`turn` waits for a later one."""
        self._spent = max(self._spent, version)

    def _opening(self) -> list[pb.PlayRequest]:
        """What to send on a (re)opened call: the opening, then every move still unanswered."""
        return [self._open_request(), *self._unanswered.values()]

    def _open_request(self) -> pb.PlayRequest:
        opening = pb.PlayOpen(
            game_id=self.game_id,
            from_version=self.version + 1,
            compact_lay_aside=self.compact_lay_aside,
            wait_for_turn=self.wait_for_turn,
        )
        return pb.PlayRequest(open=opening)

    def _take(self, response: pb.PlayResponse) -> None:
        step = response.step
        if step.HasField("result"):
            self._answers[step.result.request_id] = step.result
        for batch in step.events:
            if batch.version > self.version:  # never twice, whatever is resent
                self.version = batch.version
                self._events.append(batch)
        if step.HasField("view"):
            self.view = step.view

    def turn_ready(self, since: int = 0) -> bool:
        """Whether :meth:`turn` would answer now, without waiting."""
        return self._turn_ready(since)

    def _turn_ready(self, since: int) -> bool:
        if self.ended:
            return True
        view = self.view
        if view is None or view.version <= self._spent or view.version < since:
            return False
        # A turn is a view at which the seat may act: it must (to_act), or it is offered an
        # optional move: one whose legality is public (may_act, which holds to_act too; empty
        # from a server older than may_act) or one only it can know of (an exchange of the
        # trump nine it holds), which only its own legal moves tell.
        v = view.view
        return (
            v.finished
            or self.seat in (v.may_act or v.to_act)
            or bool(v.legal_moves)
            or v.HasField("lay_aside_choice")
        )

    def _ask(self, move: moves_pb2.Move, expected_version: int, request_id: str) -> pb.PlayRequest:
        request = pb.PlayRequest(
            move=pb.PlayMove(move=move, expected_version=expected_version, request_id=request_id)
        )
        self._unanswered[request_id] = request
        return request

    def _answer(self, request_id: str, expected_version: int) -> int | None:
        """The answered move's version (None while unanswered); a refusal raises, and so does
        the stream's end with the move unanswered (the game ended first)."""
        result = self._answers.pop(request_id, None)
        if result is None:
            if self.ended:
                raise game_over()
            return None
        del self._unanswered[request_id]
        if result.HasField("error"):
            error = from_play_error(result.error)
            if isinstance(error, StaleVersion):
                # Views before the current version are spent; the stream brings the current one.
                current = error.current_version
                self.skip(expected_version if current is None else current - 1)
            raise error
        self.skip(expected_version)
        return result.version


class PlayStream(PlayState):
    """A seat's play stream for synchronous code (see the module's documentation). Made by
    :meth:`tricktable.client.Seat.play`; close it (or use it as a context manager)."""

    def __init__(
        self,
        seat: Seat,
        from_version: int = 0,
        *,
        compact_lay_aside: bool = False,
        wait_for_turn: bool = False,
    ) -> None:
        super().__init__(seat.game_id, seat.seat, from_version, compact_lay_aside, wait_for_turn)
        self._seat = seat
        self._requests: queue.SimpleQueue[pb.PlayRequest | None] = queue.SimpleQueue()
        self._call: Iterator[pb.PlayResponse] | None = None
        self._delays = seat.client.retry.delays()
        self._open()

    def _open(self) -> None:
        self._requests = queue.SimpleQueue()
        for request in self._opening():
            self._requests.put(request)
        self._call = self._seat.client.stub.Play(
            iter(self._requests.get, None),
            metadata=[("authorization", f"Bearer {self._seat.token}")],
        )

    def receive(self) -> None:
        """Take one message from the server (waiting for it); after a drop, reconnect; at the
        stream's end, set ``ended``. :meth:`turn` and :meth:`move` call it as they need."""
        assert self._call is not None
        try:
            response = next(self._call)
        except StopIteration:
            self.ended = True
            return
        except grpc.RpcError as err:
            error = from_rpc_error(err)
            delay = next(self._delays, None) if error.retryable else None
            if delay is None:
                raise error from None
            self._close_call()
            time.sleep(error.wait_s(delay))  # a limit's RetryInfo, if longer
            self._open()
            return
        self._delays = self._seat.client.retry.delays()  # progress: patience starts again
        self._take(response)

    def turn(self, since: int = 0) -> pb.PlayView:
        """The newest view at which the seat is to act and has not acted yet (at version
        ``since`` or later); waits for it, or for the stream's end: then the last view, with
        ``ended`` set."""
        while not self._turn_ready(since):
            self.receive()
        assert self.view is not None
        return self.view

    def move(
        self,
        move: moves_pb2.Move,
        expected_version: int | None = None,
        *,
        request_id: str | None = None,
    ) -> int:
        """Make a move at ``expected_version`` (default: the latest view's) and wait for its
        answer: the game's version after it (with ``wait_for_turn``, the answer comes once the
        seat may act again, or the game has ended). A refusal raises; the stream goes on."""
        if expected_version is None:
            expected_version = self.turn().version
        request_id = request_id or new_request_id()
        self._requests.put(self._ask(move, expected_version, request_id))
        while (version := self._answer(request_id, expected_version)) is None:
            self.receive()
        return version

    def _close_call(self) -> None:
        self._requests.put(None)
        if isinstance(self._call, grpc.Call):
            self._call.cancel()

    def close(self) -> None:
        self._close_call()

    def __enter__(self) -> PlayStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
