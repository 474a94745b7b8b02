"""The ``tricktable`` command. Each subcommand is a module with ``register(subparsers)``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from service.cli import bench, health, play, replay, serve, simulate, tournament, watch

SUBCOMMANDS = (simulate, bench, serve, health, play, watch, tournament, replay)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tricktable", description="Tricktable: a game server for trick-taking card games."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in SUBCOMMANDS:
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # serve --workers passes them on
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
