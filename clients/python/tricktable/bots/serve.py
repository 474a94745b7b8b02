"""Host a bot as a ``BotService`` process (``tricktable bot``, or the ``tricktable-bot``
command): a reference bot, or your own by import path, so that any tournament can enter it by
address.

    tricktable bot --bot heuristic --port 50061
    tricktable bot --bot expert:ms=100 --port 50063    # the expert (needs the engine extra)
    tricktable bot --bot mybots:make --port 50062       # mybots.py in the current directory
    tricktable bot --connect-port 8443 --tls-cert cert.pem --tls-key key.pem
                                                        # also Connect at https://HOST:8443
"""

from __future__ import annotations

import argparse
import sys

from tricktable.bots import HEURISTIC, REMOTE_PREFIX, make_bot
from tricktable.bots.service import BotServer, BotServicer


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
    parser.add_argument(
        "--connect-port",
        type=int,
        default=None,
        help="also serve the BotService over Connect (HTTP) on this port (0: any free one): "
        "what a server calls at an https:// address (needs the connect extra)",
    )
    parser.add_argument(
        "--tls-cert", metavar="FILE", help="serve --connect-port over TLS with this PEM chain"
    )
    parser.add_argument("--tls-key", metavar="FILE", help="the PEM private key of --tls-cert")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.bot.startswith(REMOTE_PREFIX):
        parser.error("--bot names a bot to host here, not the address of another service")
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    if args.tls_cert and args.connect_port is None:
        parser.error("--tls-cert is for the Connect door: give --connect-port")
    games = sorted(args.game or HEURISTIC)
    try:  # a bad name or import path fails here, before the service starts
        for game in games:
            make_bot(args.bot, game)
    except ValueError as error:
        parser.error(str(error))
    servicer = BotServicer(lambda game: make_bot(args.bot, game), args.name or args.bot, games)
    server = BotServer(servicer, f"{args.host}:{args.port}").start()
    print(f"serving the {args.name or args.bot} bot at {server.address}", flush=True)
    if args.connect_port is not None:
        # Only with the door: the connect extra may not be installed.
        from tricktable.bots.connect_host import ConnectBotHost  # noqa: PLC0415

        door = ConnectBotHost(
            servicer, args.host, args.connect_port, tls_cert=args.tls_cert, tls_key=args.tls_key
        ).start()
        print(f"serving it over Connect at {door.url}", flush=True)
    server.wait()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a bot as a BotService.")
    add_arguments(parser)
    return run(parser.parse_args(argv), parser)


if __name__ == "__main__":
    sys.exit(main())
