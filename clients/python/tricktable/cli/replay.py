"""``tricktable replay``: export an ended game's record as JSON, tell a saved record's game, and
check records through the rules.

    tricktable replay GAME_ID [--address HOST:PORT] [--output FILE]   # export, then check it
    tricktable replay --show FILE                                      # tell a saved game
    tricktable replay --check FILE                                     # check a saved record

The record (``tricktable.v1.GameRecord`` in protobuf's JSON mapping) holds the options, the seats,
what chance gave (every shuffled pack, cut and first dealer), every pack as dealt, every move with
its seat, the full events and the result; never the seed. Checking re-plays it through the
rules engine with the recorded chance only: every move must be legal and every pack, event and
total must come out as recorded. The engine is the server package's (``tricktable``), which
offers its checker through the entry point group ``tricktable.record_checkers``; with the client
package alone a record is exported and shown, not checked. A server gives no record while a game
runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from rich.console import Console

from tricktable.cli.common import INSTALL_SERVER, add_tls_arguments, tls_options, unreachable
from tricktable.cli.watch import show_batch
from tricktable.client import Client
from tricktable.errors import TricktableError
from tricktable.records import record_to_json
from tricktable.render import TITLES, Seats
from tricktable.v1 import game_service_pb2 as pb

#: The entry point group of record checkers: ``check(json_text) -> (replays, verdict)``.
CHECKERS_GROUP = "tricktable.record_checkers"
Checker = Callable[[str], tuple[bool, str]]
NO_CHECKER = (
    "checking a record re-plays it through the rules engine, which is in the server package: "
    f"install it ({INSTALL_SERVER}) for --check"
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="export an ended game's record as JSON and check it, or show or check a saved record",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game_id", nargs="?", help="the game to export")
    p.add_argument(
        "--address", default="127.0.0.1:50051", help="the server (default 127.0.0.1:50051)"
    )
    p.add_argument("--output", "-o", type=Path, help="write the record here (default: stdout)")
    p.add_argument("--show", type=Path, metavar="FILE", help="tell a saved record's game")
    p.add_argument("--check", type=Path, metavar="FILE", help="check a saved record instead")
    p.add_argument("--no-check", action="store_true", help="export without checking")
    add_tls_arguments(p)
    p.set_defaults(run=run)


def record_checker() -> Checker | None:
    """The installed record checker (the server package's), or None."""
    for point in entry_points(group=CHECKERS_GROUP):
        checker: Checker = point.load()
        return checker
    return None


def run(args: argparse.Namespace, *, console: Console | None = None) -> int:
    given = [x for x in (args.game_id, args.show, args.check) if x is not None]
    if len(given) != 1:
        print(
            "tricktable replay: give a GAME_ID to export, --show FILE or --check FILE",
            file=sys.stderr,
        )
        return 2
    if args.show is not None or args.check is not None:
        path: Path = args.show if args.show is not None else args.check
        if args.check is not None and record_checker() is None:
            print(f"tricktable replay: {NO_CHECKER}", file=sys.stderr)
            return 2
        try:
            text = path.read_text()
        except OSError as exc:
            print(f"tricktable replay: {exc}", file=sys.stderr)
            return 2
        if args.show is not None:
            return show(text, str(path), console or Console())
        return check(text, str(path))
    with Client(args.address, **tls_options(args)) as client:
        try:
            record = client.record(args.game_id)
        except TricktableError as exc:
            line = unreachable(exc, args.address, bool(args.tls or args.tls_ca))
            print(line or f"tricktable replay: {exc}", file=sys.stderr)
            return 1
    text = record_to_json(record)
    if args.output is None:
        print(text, flush=True)
    else:
        args.output.write_text(text + "\n")
    if args.no_check:
        return 0
    if record_checker() is None:
        print(f"{args.game_id}: exported, not checked: {NO_CHECKER}", file=sys.stderr)
        return 0
    return check(text, args.game_id)


def check(text: str, name: str) -> int:
    """Re-play a record's JSON through the installed checker; print the verdict on stderr."""
    checker = record_checker()
    assert checker is not None
    replays, verdict = checker(text)
    print(f"{name}: {verdict}", file=sys.stderr, flush=True)
    return 0 if replays else 1


def show(text: str, name: str, console: Console) -> int:
    """Tell the recorded game step by step, as the record has it (every card: the game is
    over), then its result. No rules are applied: a record is told, not checked."""
    try:
        record = json_format.Parse(text, pb.GameRecord())
    except json_format.ParseError as exc:
        print(f"tricktable replay: {name}: not a game record: {exc}", file=sys.stderr)
        return 1
    seats = Seats(None, [s.player_name for s in record.seats])
    title = TITLES.get(record.game_type, record.game_type)
    console.print(f"{title}: game {record.game_id}, {len(record.steps)} steps.", markup=False)
    for step in record.steps:
        show_batch(step, seats, console)
    if record.HasField("resigned_seat") and not record.totals:
        console.print(
            f"The game was abandoned: {seats.label(record.resigned_seat)} resigned.", markup=False
        )
    else:
        totals = ", ".join(f"{seats.label(n)} {t}" for n, t in enumerate(record.totals))
        winners = seats.many(record.winners)
        console.print(f"Final scores: {totals}. Winners: {winners}.", markup=False)
    return 0
