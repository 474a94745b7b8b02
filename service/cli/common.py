"""Helpers shared by the server's subcommands (the client's are in :mod:`tricktable.cli.common`)."""

from __future__ import annotations

import argparse
import hashlib

import engine
from engine.core.errors import EngineError


def add_game_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=engine.game_names(), help="game identifier")


def derive_seed(seed: str, *parts: object) -> bytes:
    """A game seed derived from the user's seed, so ``--seed S`` reproduces a whole run."""
    text = ":".join([seed, *map(str, parts)])
    return hashlib.sha256(text.encode()).digest()


def fail(error: EngineError) -> int:
    print(f"tricktable: {error.message} [{error.reason.value}]", flush=True)
    return 2
