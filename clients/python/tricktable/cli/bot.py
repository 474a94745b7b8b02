"""``tricktable bot``: host a bot as a ``BotService`` (see :mod:`tricktable.bots.serve`), so
that a tournament anywhere can enter it as ``grpc://HOST:PORT``; or put a bot on a hosted
server's tournaments and ladder (:mod:`tricktable.bots.connected`):

    tricktable bot --register --address HOST:PORT --game counterpoint [--endpoint URL] [--ladder]
    tricktable bot --connect HOST:PORT --token BOT_TOKEN --bot heuristic
"""

from __future__ import annotations

import argparse
from typing import Any

import grpc

from tricktable.bots import HEURISTIC, make_bot, serve
from tricktable.bots.connected import register as register_bot
from tricktable.bots.connected import run_connected
from tricktable.client import Client


def register(sub: Any) -> None:
    p = sub.add_parser("bot", help="host a bot (yours or a reference bot) as a BotService")
    serve.add_arguments(p)
    p.add_argument(
        "--register",
        action="store_true",
        help="register a bot with the server at --address and print its id and token: a "
        "called bot with --endpoint, else a connected one",
    )
    p.add_argument("--address", help="with --register: the server (HOST:PORT)")
    p.add_argument(
        "--endpoint",
        default="",
        help="with --register: the bot's BotService (grpc://HOST:PORT, grpcs://…, https://…)",
    )
    p.add_argument("--ladder", action="store_true", help="with --register: join the ladder")
    p.add_argument(
        "--connect",
        metavar="HOST:PORT",
        help="play as a connected bot: take the seats the server hands this bot (--token)",
    )
    p.add_argument("--token", help="with --connect: the bot token --register printed")
    p.set_defaults(run=lambda args: _run(args, p))


def _run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.register:
        if not args.address:
            parser.error("--register needs --address HOST:PORT")
        games = sorted(args.game or HEURISTIC)
        with Client(args.address) as client:
            try:
                made = register_bot(
                    client,
                    args.name or args.bot,
                    games,
                    endpoint=args.endpoint,
                    ladder=args.ladder,
                )
            except grpc.RpcError as error:
                raise SystemExit(f"tricktable: {error.code().name}: {error.details()}") from None
        print(f"bot_id {made.bot_id}")
        print(f"bot_token {made.bot_token}", flush=True)
        return 0
    if args.connect:
        if not args.token:
            parser.error("--connect needs --token (tricktable bot --register prints one)")
        with Client(args.connect) as client:
            print(f"connected to {args.connect} as a bot; waiting for seats", flush=True)
            try:
                run_connected(
                    client,
                    args.token,
                    lambda game: make_bot(args.bot, game),
                    on_seat=lambda seat: print(
                        f"seat {seat.seat} of {seat.game_id} ({seat.game_type})", flush=True
                    ),
                )
            except grpc.RpcError as error:
                raise SystemExit(f"tricktable: {error.code().name}: {error.details()}") from None
        return 0
    return serve.run(args, parser)
