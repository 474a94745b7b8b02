"""``tricktable replay``: export an ended game's record as JSON; check records through the rules.

    tricktable replay GAME_ID [--address HOST:PORT] [--output FILE]   # export, then check it
    tricktable replay --check FILE                                     # check a saved record

The record (``tricktable.v1.GameRecord`` in protobuf's JSON mapping) holds the options, the seats,
what chance gave (every shuffled pack, cut and first dealer), every pack as dealt, every move with
its seat, the full events and the result; never the seed. Checking re-plays it through the
engine with the recorded chance only (engine.record.verify): every move must be legal and every
pack, event and total must come out as recorded. A server gives no record while a game runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tricktable.client import Client
from tricktable.errors import TricktableError

from engine.record import RecordMismatch, timed_out, verify
from service.cli.common import add_tls_arguments, tls_options
from service.records import record_from_json, record_from_proto, record_to_json


def register(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="export an ended game's record as JSON and check it, or check a saved record",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game_id", nargs="?", help="the game to export")
    p.add_argument(
        "--address", default="127.0.0.1:50051", help="the server (default 127.0.0.1:50051)"
    )
    p.add_argument("--output", "-o", type=Path, help="write the record here (default: stdout)")
    p.add_argument("--check", type=Path, metavar="FILE", help="check a saved record instead")
    p.add_argument("--no-check", action="store_true", help="export without checking")
    add_tls_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if (args.game_id is None) == (args.check is None):
        print("tricktable replay: give a GAME_ID to export, or --check FILE", file=sys.stderr)
        return 2
    if args.check is not None:
        try:
            text = args.check.read_text()
        except OSError as exc:
            print(f"tricktable replay: {exc}", file=sys.stderr)
            return 2
        return _check(text, str(args.check))
    with Client(args.address, **tls_options(args)) as client:
        try:
            record = client.record(args.game_id)
        except TricktableError as exc:
            print(f"tricktable replay: {exc}", file=sys.stderr)
            return 1
    text = record_to_json(record)
    if args.output is None:
        print(text, flush=True)
    else:
        args.output.write_text(text + "\n")
    return 0 if args.no_check else _check(text, args.game_id)


def _check(text: str, name: str) -> int:
    """Re-play a record's JSON through the engine; print the verdict on stderr."""
    try:
        record = record_from_proto(record_from_json(text))
        outcome = verify(record)
    except RecordMismatch as exc:
        print(f"{name}: the record does NOT re-play: {exc}", file=sys.stderr, flush=True)
        return 1
    moves = sum(1 for s in record.steps if s.move is not None)
    by_clock = sum(1 for s in record.steps if s.move is not None and timed_out(s))
    moves_text = f"{moves} moves" + (f" ({by_clock} made by the clock)" if by_clock else "")
    forfeit = record.steps[-1] if record.steps else None
    if outcome is None and forfeit is not None and timed_out(forfeit):
        result = f"abandoned: seat {record.resigned_seat} forfeited on time"
    elif outcome is None:
        result = f"abandoned: seat {record.resigned_seat} resigned"
    else:
        result = f"totals {list(outcome.totals)}, winners {list(outcome.winners)}"
    print(
        f"{name}: checked {record.game_type}, {len(record.deals)} deals, {moves_text}; {result}",
        file=sys.stderr,
        flush=True,
    )
    return 0
