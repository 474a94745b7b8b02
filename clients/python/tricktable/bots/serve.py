"""Host a bot as a ``BotService`` process (``tricktable bot``, or the ``tricktable-bot``
command): a reference bot, or your own by import path, so that any tournament can enter it by
address.

    tricktable bot --bot heuristic --port 50061
    tricktable bot --bot expert:ms=100 --port 50063    # the expert (needs the engine extra)
    tricktable bot --bot mybots:make --port 50062       # mybots.py in the current directory
"""

from __future__ import annotations

import argparse
import sys

from tricktable.bots import HEURISTIC, REMOTE_PREFIX, make_bot
from tricktable.bots.service import serve_bot


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bot",
        default="heuristic",
        help=(
            "random, heuristic, expert (expert:ms=50: its time per move, needs the engine), or "
            "a bot factory as package.module:attr (default heuristic)"
        ),
    )
    parser.add_argument("--name", help="the name the service reports (default: --bot)")
    parser.add_argument(
        "--game",
        action="append",
        choices=sorted(HEURISTIC),
        help="a game the bot plays (repeatable; default: every game)",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50061)


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.bot.startswith(REMOTE_PREFIX):
        parser.error("--bot names a bot to host here, not the address of another service")
    games = sorted(args.game or HEURISTIC)
    try:  # a bad name or import path fails here, before the service starts
        for game in games:
            make_bot(args.bot, game)
    except ValueError as error:
        parser.error(str(error))
    server = serve_bot(
        lambda game: make_bot(args.bot, game),
        f"{args.host}:{args.port}",
        name=args.name or args.bot,
        games=games,
    )
    print(f"serving the {args.name or args.bot} bot at {server.address}", flush=True)
    server.wait()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a bot as a BotService.")
    add_arguments(parser)
    return run(parser.parse_args(argv), parser)


if __name__ == "__main__":
    sys.exit(main())
