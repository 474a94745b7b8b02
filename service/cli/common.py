"""Helpers shared by the subcommands: game names and ``--option NAME=VALUE`` parsing."""

from __future__ import annotations

import argparse
import hashlib
from typing import Any

import engine
from engine.core.errors import EngineError


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=engine.game_names(), help="game identifier")


def add_option_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option (repeatable); see the game's rules spec for names and defaults",
    )


def parse_options(pairs: list[str]) -> dict[str, object]:
    options: dict[str, object] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise SystemExit(f"tricktable: --option expects NAME=VALUE, got {pair!r}")
        options[name.strip()] = value.strip()
    return options


def derive_seed(seed: str, *parts: object) -> bytes:
    """A game seed derived from the user's seed, so ``--seed S`` reproduces a whole run."""
    text = ":".join([seed, *map(str, parts)])
    return hashlib.sha256(text.encode()).digest()


def fail(error: EngineError) -> int:
    print(f"tricktable: {error.message} [{error.reason.value}]", flush=True)
    return 2


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
