"""A bot on a hosted server's tournaments and ladder (``TournamentService``), two ways:

* **connected** (:func:`run_connected`): the bot opens ``BotSession`` with its bot token and is
  handed each seat it is given, with that seat's token; it plays each on the seat's play stream
  (:class:`~tricktable.bots.runner.BotRunner`), one thread per seat, for as long as the session
  lasts. It works behind NAT: the bot calls out, nothing calls in.
* **called**: the servers call the bot's ``BotService`` (``tricktable bot`` serves one) once
  per decision; registering it (:func:`register`) with the address is all it takes.

    tricktable bot --register --address HOST:PORT --game counterpoint --connected
    tricktable bot --connect HOST:PORT --token BOT_TOKEN --bot heuristic
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import grpc

from tricktable.bots.base import Bot
from tricktable.bots.runner import BotRunner
from tricktable.client import Client
from tricktable.v1 import tournament_service_pb2 as tpb
from tricktable.v1 import tournament_service_pb2_grpc


def tournaments(client: Client) -> tournament_service_pb2_grpc.TournamentServiceStub:
    """A ``TournamentService`` stub on the client's connection."""
    return tournament_service_pb2_grpc.TournamentServiceStub(client.channel)


def register(
    client: Client,
    name: str,
    games: Sequence[str],
    *,
    endpoint: str = "",
    ladder: bool = False,
) -> tpb.RegisterBotResponse:
    """Register a bot: called when ``endpoint`` is given (``grpc://host:port``, ``grpcs://…``
    or ``https://…``), else connected. Keep the token: it is shown once."""
    kind = tpb.BOT_KIND_CALLED if endpoint else tpb.BOT_KIND_CONNECTED
    request = tpb.RegisterBotRequest(
        name=name, game_types=list(games), kind=kind, endpoint=endpoint, ladder=ladder
    )
    response: tpb.RegisterBotResponse = tournaments(client).RegisterBot(request)
    return response


def run_connected(
    client: Client,
    token: str,
    make: Callable[[str], Bot],
    *,
    stop: threading.Event | None = None,
    on_seat: Callable[[tpb.SeatGiven], None] | None = None,
) -> None:
    """Hold a bot session: play every seat handed to it, each on a thread of its own, until
    the session ends or ``stop`` is set. ``make(game_type)`` makes a bot per seat."""
    stop = stop or threading.Event()
    session = tournaments(client).BotSession(
        tpb.BotSessionRequest(), metadata=(("authorization", f"Bearer {token}"),)
    )
    stop_watch = threading.Thread(target=lambda: (stop.wait(), session.cancel()), daemon=True)
    stop_watch.start()
    try:
        for message in session:
            seat = message.seat_given
            if on_seat is not None:
                on_seat(seat)
            runner = BotRunner(
                client.seat(seat.game_id, seat.seat, seat.seat_token),
                make(seat.game_type),
                stop=stop,
            )
            threading.Thread(target=_quietly(runner.run), daemon=True).start()
    except grpc.RpcError as ended:
        if ended.code() != grpc.StatusCode.CANCELLED or not stop.is_set():
            raise


def _quietly(run: Callable[[], object]) -> Callable[[], None]:
    """A seat's thread: a seat that ends badly (its game gone) leaves the session running."""

    def play() -> None:
        try:
            run()
        except Exception as failure:  # reported, and the other seats play on
            print(f"a seat ended with an error: {failure}", flush=True)

    return play
