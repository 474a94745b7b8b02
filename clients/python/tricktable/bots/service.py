"""Bots as processes of their own, over ``tricktable.v1.BotService``.

* :func:`serve_bot` hosts a Python bot as a gRPC server. The host makes one bot per seat of
  each game (bots may keep memory), from a factory given the game type.
* :class:`RemoteBot` is a :class:`~tricktable.bots.base.Bot` that asks a ``BotService`` at an
  address, so a runner plays a bot written in any language exactly as it plays a Python one.

A ``DecideRequest`` carries, beside the view, the events the seat has seen since its last
decision and the game's options: :class:`RemoteBot` sends them (it is shown the seat's history
by the runner), and the host keeps each (game, seat)'s history and shows it to a bot with a
``see`` method (:class:`~tricktable.bots.base.SeeingBot`) before asking it.

    python -m tricktable.bots.serve --bot heuristic --port 50061   # host a reference bot
"""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent import futures

import grpc

from tricktable import facts
from tricktable.bots.base import Bot, History, Move, View, options_of, sees
from tricktable.client import RetryPolicy, call_with_retry, option_value
from tricktable.errors import from_rpc_error
from tricktable.legal import expanded, legal_moves
from tricktable.v1 import bot_service_pb2 as pb
from tricktable.v1 import bot_service_pb2_grpc

BotFactory = Callable[[str], Bot]
"""Makes a fresh bot for one seat of one game, given the game type name."""


class BotServicer(bot_service_pb2_grpc.BotServiceServicer):
    """Answers ``Decide`` with the move of the bot kept for the request's (game, seat)."""

    def __init__(
        self,
        factory: BotFactory,
        name: str = "bot",
        games: Sequence[str] = (),
        max_tables: int = 10_000,
    ) -> None:
        self._factory = factory
        self._name = name
        self._games = list(games)
        self._max_tables = max_tables
        self._bots: OrderedDict[tuple[str, int], tuple[Bot, History]] = OrderedDict()
        self._lock = threading.Lock()

    def _bot(self, game_id: str, view: View) -> tuple[Bot, History]:
        key = (game_id, view.viewer)
        with self._lock:
            kept = self._bots.get(key)
            if kept is None:
                # Until events from the game's start come, what it is told is not the whole.
                kept = self._bots[key] = (self._factory(view.game), History(complete=False))
                while len(self._bots) > self._max_tables:  # forget the longest-idle tables
                    self._bots.popitem(last=False)
            self._bots.move_to_end(key)
            return kept

    def DescribeBot(
        self, request: pb.DescribeBotRequest, context: grpc.ServicerContext
    ) -> pb.DescribeBotResponse:
        return pb.DescribeBotResponse(name=self._name, games=self._games)

    def Decide(self, request: pb.DecideRequest, context: grpc.ServicerContext) -> pb.DecideResponse:
        view = request.view
        if not request.HasField("view") or not view.HasField("viewer"):
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "a decision needs a seat's view")
        if self._games and view.game not in self._games:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"this bot does not play {view.game}")
        if request.HasField("game_type") and not facts.known(view.game):
            facts.learn([request.game_type])
        bot, history = self._bot(request.game_id, view)
        if request.events_from_start:
            history.restart()
        history.add(request.events)
        if request.options:
            history.options = options_of(request.options)
        if sees(bot):
            bot.see(history)  # type: ignore[attr-defined]  # sees(bot) said it can
        history.decided()
        move = bot(view, legal_moves(view))
        return pb.DecideResponse() if move is None else pb.DecideResponse(move=move)


class BotServer:
    """A running ``BotService`` (a gRPC server on its own threads)."""

    def __init__(self, servicer: BotServicer, address: str = "127.0.0.1:0", workers: int = 8):
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=workers))
        bot_service_pb2_grpc.add_BotServiceServicer_to_server(servicer, self.server)
        host = address.rsplit(":", 1)[0]
        self.port: int = self.server.add_insecure_port(address)
        self.address = f"{host}:{self.port}"

    def start(self) -> BotServer:
        self.server.start()
        return self

    def stop(self, grace_s: float = 1.0) -> None:
        self.server.stop(grace_s).wait()

    def wait(self) -> None:
        self.server.wait_for_termination()

    def __enter__(self) -> BotServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_bot(
    factory: BotFactory,
    address: str = "127.0.0.1:0",
    *,
    name: str = "bot",
    games: Sequence[str] = (),
) -> BotServer:
    """Host a bot as a ``BotService`` at ``address`` (port 0: any free port); started."""
    return BotServer(BotServicer(factory, name, games), address).start()


class RemoteBot:
    """A bot that lives behind a ``BotService`` address. One object per seat of one game (the
    remote keeps its memory under ``game_id``; a unique key when none is given)."""

    def __init__(
        self,
        target: str | grpc.Channel,
        *,
        game_id: str | None = None,
        timeout_s: float = 10.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._owns_channel = isinstance(target, str)
        self.channel: grpc.Channel = (
            grpc.insecure_channel(target) if isinstance(target, str) else target
        )
        self.stub = bot_service_pb2_grpc.BotServiceStub(self.channel)
        self.game_id = game_id or uuid.uuid4().hex
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy(attempts=3)
        self._history: History | None = None
        self._sent = 0  # events of the history the remote bot has been sent
        self._resend = True  # the next request sends the history from the game's start

    def see(self, history: History) -> None:
        """The seat's history, from the runner: what is new is sent with the next request."""
        if history is not self._history or len(history.events) < self._sent:
            self._resend = True
        self._history = history

    def describe(self) -> pb.DescribeBotResponse:
        try:
            response: pb.DescribeBotResponse = self.stub.DescribeBot(
                pb.DescribeBotRequest(), timeout=self.timeout_s
            )
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None
        return response

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        # The BotService contract lists every legal move in view.legal_moves: a compact
        # lay-aside is listed again for the remote bot.
        request = pb.DecideRequest(game_id=self.game_id, view=expanded(view))
        game_type = facts.game_type(view.game)
        if game_type is not None:  # the remote bot reads the game's facts from it
            request.game_type.CopyFrom(game_type)
        history = self._history
        if history is not None:
            start = 0 if self._resend else self._sent
            request.events.extend(history.events[start:])
            request.events_from_start = self._resend and history.complete
            for name, value in history.options.items():
                request.options[name].CopyFrom(option_value(value))
        # Unanswered, the remote may or may not have taken the events: the next request sends
        # the whole history again (events_from_start), so nothing is missed or taken twice.
        self._resend = True
        response: pb.DecideResponse = call_with_retry(
            self.stub.Decide,
            request,
            retry=self.retry,
            timeout_s=self.timeout_s,
            retryable=lambda error: error.code == grpc.StatusCode.UNAVAILABLE,
        )
        if history is not None:
            self._sent, self._resend = len(history.events), False
        return response.move if response.HasField("move") else None

    def close(self) -> None:
        if self._owns_channel:
            self.channel.close()
