"""``tricktable watch GAME_ID``: follow a live game as a spectator.

A spectator has no seat token, so the server sends only public information: the table without
any hand, and events without hidden cards. Each event is printed on one line, after the version
it belongs to (so that ``--from-version`` can resume where a watch stopped); at the end of each
trick and deal the table is drawn again from the spectator's view. It is drawn only when the view
is at the version just printed, never ahead of the events shown: a table fetched after later
moves would show their cards before their events.
"""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from rich.text import Text

from tricktable.bots.runner import is_over
from tricktable.cli.common import add_tls_arguments, tls_options, unreachable
from tricktable.client import Client
from tricktable.errors import TricktableError
from tricktable.render import TITLES, Seats, event_line, render_view, result_text, sentence
from tricktable.v1 import game_service_pb2 as pb

#: Events after which the table is drawn again.
BOUNDARIES = frozenset({"trick_won", "deal_scored", "deal_started", "game_over"})


def register(sub: Any) -> None:
    p = sub.add_parser("watch", help="follow a live game as a spectator")
    p.add_argument("game_id", help="the game to watch")
    p.add_argument(
        "--address", default="127.0.0.1:50051", help="host:port (default 127.0.0.1:50051)"
    )
    p.add_argument(
        "--from-version",
        type=int,
        default=None,
        metavar="V",
        help="print the game's events from version V on (0: from the first deal), then follow "
        "it live; default: show the table now and follow from there",
    )
    add_tls_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace, *, console: Console | None = None) -> int:
    console = console or Console()
    if args.from_version is not None and args.from_version < 0:
        console.print("tricktable: --from-version must be 0 or more", markup=False)
        return 2
    with Client(args.address, **tls_options(args)) as client:
        try:
            return watch(client, args.game_id, console, args.from_version)
        except TricktableError as error:
            line = unreachable(error, args.address, bool(args.tls or args.tls_ca))
            console.print(
                line or f"tricktable: {error.message} [{error.reason or error.code.name}]",
                markup=False,
            )
            return 1


def watch(client: Client, game_id: str, console: Console, from_version: int | None = None) -> int:
    client.game_types()  # the renderer reads each game's facts from them
    state = client.get(game_id)
    names = [s.player_name for s in state.game.seats]
    seats = Seats(None, names)
    title = TITLES.get(state.game.game_type, state.game.game_type)
    drawn = -1  # the version of the last table drawn
    if from_version is None:
        console.print(
            f"Watching game {game_id} ({title}) at version {state.game.version}; Ctrl-C to stop.",
            markup=False,
        )
        console.print(render_view(state.view, names))
        drawn = state.game.version
        if is_over(state):
            _show_end(state, seats, console)
            return 0
        start = state.game.version + 1
    else:
        console.print(
            f"Watching game {game_id} ({title}) from version {from_version}; Ctrl-C to stop.",
            markup=False,
        )
        start = from_version
    last = start - 1
    try:
        for batch in client.stream(game_id, None, start):
            last = batch.version
            show_batch(batch, seats, console)
            if _ends_a_trick_or_deal(batch):
                now = client.get(game_id)
                seats.names = [s.player_name for s in now.game.seats]  # seats fill as we watch
                if now.game.version == batch.version:
                    console.print(render_view(now.view, names))
                    drawn = batch.version
    except KeyboardInterrupt:
        console.print(
            f"Stopped after version {last}; resume with --from-version {last + 1}.", markup=False
        )
        return 0
    final = client.get(game_id)
    if drawn != final.game.version:
        console.print(render_view(final.view, names))
    _show_end(final, seats, console)
    return 0


def show_batch(
    batch: pb.StreamEventsResponse | pb.GameStep, seats: Seats, console: Console
) -> None:
    """One version's events, a line each, as watched live or replayed from a record."""
    for event in batch.events:
        line = Text(f"{batch.version:>5} ", style="dim").append_text(event_line(event, seats))
        console.print(line, soft_wrap=True)
    forfeit = any(e.WhichOneof("kind") == "timed_out" for e in batch.events)
    if batch.HasField("resigned_seat") and not forfeit:  # a forfeit on time was told above
        line = Text(f"{batch.version:>5} ", style="dim")
        line.append(f"{sentence(seats.label(batch.resigned_seat))} resigns.")
        console.print(line, soft_wrap=True)


def _ends_a_trick_or_deal(batch: pb.StreamEventsResponse) -> bool:
    return any(e.WhichOneof("kind") in BOUNDARIES for e in batch.events)


def _show_end(state: pb.GetGameResponse, seats: Seats, console: Console) -> None:
    """The final scores, and the winners or who resigned."""
    if state.game.status == pb.GAME_STATUS_ABANDONED:
        resigned = state.game.resigned_seat if state.game.HasField("resigned_seat") else None
        who = seats.label(resigned) if resigned is not None else "a player"
        scores = ", ".join(f"{seats.label(s.seat)} {s.score}" for s in state.view.seats)
        console.print(
            f"The game was abandoned: {who} resigned. Scores: {scores}",
            markup=False,
            soft_wrap=True,
        )
    elif state.view.finished:
        console.print(result_text(state.view, seats.names), soft_wrap=True)
