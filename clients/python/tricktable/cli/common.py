"""Helpers shared by the subcommands: the game argument, ``--option NAME=VALUE`` parsing, TLS
flags, and one line for a server that cannot be reached."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

import grpc

from tricktable.bots import HEURISTIC
from tricktable.client import OptionValue
from tricktable.errors import TricktableError
from tricktable.v1 import game_types_pb2

#: How the server package is installed: it is no package on an index (``pip install tricktable``
#: would fetch someone else's), but the root of a Tricktable checkout, with the engine and this
#: client from their folders, in one pip command.
INSTALL_SERVER = "in a Tricktable checkout: pip install ./engine ./clients/python ."


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    """The game, by its identifier: any game the server offers (it is checked there)."""
    known = ", ".join(sorted(HEURISTIC))
    parser.add_argument("game", metavar="GAME", help=f"game identifier ({known}, ...)")


def add_option_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option (repeatable); see the game's rules spec for names and defaults",
    )


def parse_options(pairs: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise SystemExit(f"tricktable: --option expects NAME=VALUE, got {pair!r}")
        options[name.strip()] = value.strip()
    return options


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def typed_options(
    given: Mapping[str, str], game: game_types_pb2.GameType
) -> dict[str, OptionValue]:
    """The options as the kinds the server's game type declares (an integer option as an int,
    a flag as a bool). ValueError names an option the game does not have, or a value of the
    wrong kind; whether a value is allowed (its range, its choices) the server decides."""
    specs = {spec.name: spec for spec in game.options}
    typed: dict[str, OptionValue] = {}
    for name, text in given.items():
        spec = specs.get(name)
        if spec is None:
            known = ", ".join(sorted(specs)) or "none"
            raise ValueError(f"{game.name} has no option {name!r} (its options: {known})")
        if spec.kind == game_types_pb2.OPTION_KIND_BOOL:
            if text.lower() not in _TRUE | _FALSE:
                raise ValueError(f"option {name!r} is true or false, not {text!r}")
            typed[name] = text.lower() in _TRUE
        elif spec.kind == game_types_pb2.OPTION_KIND_INT:
            try:
                typed[name] = int(text)
            except ValueError:
                raise ValueError(f"option {name!r} is an integer, not {text!r}") from None
        else:
            typed[name] = text
    return typed


def add_tls_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tls", action="store_true", help="connect over TLS (the system's trusted roots)"
    )
    parser.add_argument(
        "--tls-ca",
        metavar="FILE",
        help="connect over TLS, trusting this PEM CA (or self-signed) certificate",
    )


def tls_options(args: argparse.Namespace) -> dict[str, Any]:
    """Client keywords (tricktable.client.Client, tricktable.tls.channel) from the flags."""
    return {"tls": bool(args.tls), "ca_file": args.tls_ca}


def unreachable(error: TricktableError, address: str, tls: bool) -> str | None:
    """One line saying why the server at ``address`` cannot be reached, and what to try; None
    when ``error`` is not about reaching it. ``tls``: the command connected over TLS."""
    if error.code != grpc.StatusCode.UNAVAILABLE:
        return None
    detail = error.message
    last = detail.rsplit("last error: ", 1)[-1]
    if "Connection refused" in detail:
        return f"tricktable: nothing is listening at {address} (is the server running there?)"
    if "DNS resolution failed" in detail or "name resolution" in detail.lower():
        return f"tricktable: cannot find the host of {address}: {last}"
    if not tls and ("Socket closed" in detail or "Connection reset" in detail):
        return (
            f"tricktable: {address} closed the connection at once: if it serves TLS, add --tls "
            "(or --tls-ca FILE for a self-signed or private CA certificate)"
        )
    if tls and "CERTIFICATE_VERIFY_FAILED" in detail:
        return (
            f"tricktable: {address}'s TLS certificate is not trusted: for a self-signed or "
            "private CA certificate, give it with --tls-ca FILE"
        )
    if tls and ("WRONG_VERSION_NUMBER" in detail or "handshake" in detail.lower()):
        return f"tricktable: the TLS handshake with {address} failed (does it serve TLS?): {last}"
    return f"tricktable: cannot reach {address}: {last}"
