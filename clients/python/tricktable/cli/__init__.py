"""The ``tricktable`` command. Each subcommand is a ``register(subparsers)`` function.

The client package brings the player's and the bot author's commands (``play``, ``watch``,
``tournament``, ``replay``, ``bot``). Other installed distributions add theirs through the entry
point group ``tricktable.commands`` (name: the command, value: its ``register`` function): the
server package (``tricktable``) adds ``serve``, ``simulate``, ``bench`` and ``health`` that way, so
one ``tricktable`` command offers whatever is installed, and the client never imports the server.
"""

from __future__ import annotations

import os

# gRPC's core logs a failed TLS handshake itself, on stderr, at its INFO level: a command that
# cannot reach its server says why in one line of its own (cli.common.unreachable). Read when
# grpc is first imported, so set before the imports below; a GRPC_VERBOSITY given wins.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import entry_points
from typing import Any

from tricktable.cli import bot, play, replay, tournament, watch
from tricktable.cli.common import unreachable
from tricktable.errors import TricktableError

#: Adds one subcommand to ``tricktable``'s subparsers.
Register = Callable[[Any], None]

#: The entry point group through which other distributions add commands.
COMMANDS_GROUP = "tricktable.commands"

CLIENT_COMMANDS: dict[str, Register] = {
    "play": play.register,
    "watch": watch.register,
    "tournament": tournament.register,
    "replay": replay.register,
    "bot": bot.register,
}


def installed_commands() -> dict[str, Register]:
    """The commands other installed distributions add, by name. One that fails to load is
    reported and left out: a broken plugin must not take ``tricktable play`` down with it."""
    found: dict[str, Register] = {}
    for point in entry_points(group=COMMANDS_GROUP):
        try:
            found[point.name] = point.load()
        except Exception as error:  # any import error of another distribution's code
            print(
                f"tricktable: the command {point.name!r} ({point.value}) failed to load: {error}",
                file=sys.stderr,
            )
    return found


def commands(extra: Mapping[str, Register] | None = None) -> dict[str, Register]:
    """Every command: the client's, the installed ones, and ``extra`` (a distribution that
    calls :func:`main` itself passes its own, so they are there even when it is not installed)."""
    found = dict(CLIENT_COMMANDS)
    for name, register in {**installed_commands(), **(extra or {})}.items():
        found.setdefault(name, register)  # a plugin cannot replace a client command
    return found


def build_parser(extra: Mapping[str, Register] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tricktable", description="Tricktable: a game server for trick-taking card games."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for register in commands(extra).values():
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None, extra: Mapping[str, Register] | None = None) -> int:
    parser = build_parser(extra)
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # serve --workers passes them on
    try:
        code: int = args.run(args)
    except TricktableError as error:
        address = getattr(args, "address", None)
        line = None if address is None else unreachable(error, address, _tls(args))
        if line is None:
            raise
        print(line, file=sys.stderr)  # one line, not a traceback
        return 1
    return code


def _tls(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "tls", False) or getattr(args, "tls_ca", None))


def has_command(name: str) -> bool:
    """Whether an installed distribution offers the command (``serve``: the server package)."""
    return any(point.name == name for point in entry_points(group=COMMANDS_GROUP))
