"""A prompt that does not stop the game: ``tricktable play`` waits for the player's line and for
the server at once.

A person at a prompt may take longer than the clock allows, and meanwhile the server moves for
them and the others play on. So the line is read on a thread of its own (:class:`LineReader`),
and the seat's play stream is taken off the network on another (:class:`LiveStream`): the
player's screen shows each move as it comes and asks again when the seat's turn comes back,
instead of sitting at a prompt that says 0:00 until a key is pressed.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import grpc

from tricktable.errors import from_rpc_error
from tricktable.playstream import PlayStream
from tricktable.v1 import game_service_pb2 as pb

if TYPE_CHECKING:
    from tricktable.client import Seat

Read = Callable[[str], str]


class Answer:
    """A line the player typed (or the end of input, raised again where it is taken), and when
    it was finished (``time.monotonic``)."""

    def __init__(self, line: str | None, error: BaseException | None) -> None:
        self.line = line
        self.error = error
        self.at = time.monotonic()

    def text(self) -> str:
        if self.error is not None:
            raise self.error
        assert self.line is not None
        return self.line


class LineReader:
    """Reads the player's lines with ``read`` on a thread of its own, one line each time one is
    asked for and none ahead, so that the caller may watch the game while the player types.

    A line asked for and not typed yet stays asked: a prompt shown again (the game moved on,
    the seat is to act again) waits for that same line, and only the prompt is written again."""

    def __init__(self, read: Read, write: Callable[[str], None]) -> None:
        self.read = read
        self.write = write
        self._asks: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._answers: queue.SimpleQueue[Answer] = queue.SimpleQueue()
        self._pending = False
        self._thread = threading.Thread(target=self._serve, name="prompt", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            prompt = self._asks.get()
            try:
                self._answers.put(Answer(self.read(prompt), None))
            except BaseException as error:  # EOF or Ctrl-C while reading: the caller's to raise
                self._answers.put(Answer(None, error))
                if not isinstance(error, Exception):
                    return

    def ask(self, prompt: str) -> None:
        """Show ``prompt``: a new read, or, when a line is still being typed, the prompt
        written again for it."""
        if self._pending:
            self.write(prompt)
            return
        self._pending = True
        self._asks.put(prompt)

    def take(self, timeout_s: float) -> Answer | None:
        """The line asked for, once typed; None when none came within ``timeout_s``."""
        try:
            answer = self._answers.get(timeout=timeout_s)
        except queue.Empty:
            return None
        self._pending = False
        return answer


class _End:
    """The server ended the call."""


class LiveStream(PlayStream):
    """A seat's play stream whose messages a thread takes off the call as they arrive, so that
    :meth:`poll` can look for them without waiting. Everything else is the
    :class:`~tricktable.playstream.PlayStream`'s: the state is only ever changed by the thread
    that calls :meth:`receive` or :meth:`poll` (the player's), never by the pumping thread."""

    def __init__(self, seat: Seat, *, compact_lay_aside: bool = False) -> None:
        self._inbox: queue.SimpleQueue[pb.PlayResponse | grpc.RpcError | _End] = queue.SimpleQueue()
        super().__init__(seat, compact_lay_aside=compact_lay_aside)

    def _open(self) -> None:
        super()._open()
        inbox: queue.SimpleQueue[pb.PlayResponse | grpc.RpcError | _End] = queue.SimpleQueue()
        self._inbox = inbox  # a reopened call gets a new inbox: the old one's leftovers go
        assert self._call is not None
        threading.Thread(target=_pump, args=(self._call, inbox), daemon=True).start()

    def __enter__(self) -> LiveStream:
        return self

    def receive(self) -> None:
        self._handle(self._inbox.get())

    def poll(self) -> bool:
        """Take every message that has arrived, without waiting: whether there was any."""
        took = False
        while not self.ended:
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                break
            self._handle(item)
            took = True
        return took

    def has_events(self) -> bool:
        """Whether event batches arrived that :meth:`events` has not handed over yet."""
        return bool(self._events)

    def _handle(self, item: pb.PlayResponse | grpc.RpcError | _End) -> None:
        """One message as :meth:`PlayStream.receive` takes it: the end, a drop (reconnect, or
        raise when patience is spent), or a step."""
        if isinstance(item, _End):
            self.ended = True
            return
        if isinstance(item, grpc.RpcError):
            error = from_rpc_error(item)
            delay = next(self._delays, None) if error.retryable else None
            if delay is None:
                raise error from None
            self._close_call()
            time.sleep(error.wait_s(delay))  # a limit's RetryInfo, if longer
            self._open()
            return
        self._delays = self._seat.client.retry.delays()  # progress: patience starts again
        self._take(item)


def _pump(
    call: Iterator[pb.PlayResponse],
    inbox: queue.SimpleQueue[pb.PlayResponse | grpc.RpcError | _End],
) -> None:
    try:
        for response in call:
            inbox.put(response)
    except grpc.RpcError as error:
        inbox.put(error)
        return
    inbox.put(_End())
