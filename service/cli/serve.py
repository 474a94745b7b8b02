"""``tricktable serve``: run the gRPC server (embedded in-memory store unless Redis is given)."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from service.config import REDIS_URL_ENV, ServerConfig
from service.logs import configure
from service.server import serve


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the gRPC game server")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=50051, help="port (default 50051; 0: any free)")
    p.add_argument(
        "--redis-url",
        default=None,
        help=f"keep games in Redis (e.g. redis://localhost:6379/0); default ${REDIS_URL_ENV}, "
        "else the embedded in-memory store",
    )
    p.add_argument(
        "--finished-ttl",
        type=int,
        default=86400,
        metavar="SECONDS",
        help="how long finished games stay readable (default 86400)",
    )
    p.add_argument(
        "--open-ttl",
        type=int,
        default=86400,
        metavar="SECONDS",
        help="drop a game whose seats are not all taken this long after its creation "
        "(default 86400; 0: never)",
    )
    p.add_argument(
        "--idle-ttl",
        type=float,
        default=86400,
        metavar="SECONDS",
        help="end a game whose seats are all taken but that sees no move this long as "
        "abandoned; it then expires like any ended game (default 86400; 0: never)",
    )
    p.add_argument(
        "--metrics-port",
        type=int,
        default=None,
        metavar="PORT",
        help="serve Prometheus metrics over HTTP at PORT/metrics on the --host address "
        "(default: off; 9464 is the customary port; 0: any free port)",
    )
    p.add_argument(
        "--turn-wait",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="the longest a wait_for_turn call is held (default 30)",
    )
    p.add_argument(
        "--bot-delay",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="how long a server bot (CreateGame bot_seats) waits before it moves, so a person "
        "can follow the table (default 0.5)",
    )
    p.add_argument(
        "--grace",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="time in-flight calls get to finish on shutdown (default 5)",
    )
    p.add_argument("--log-format", choices=("json", "console"), default="json")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    config = ServerConfig(
        host=args.host,
        port=args.port,
        redis_url=ServerConfig.redis_url_from(args.redis_url),
        finished_ttl_s=args.finished_ttl,
        open_ttl_s=args.open_ttl,
        idle_ttl_s=args.idle_ttl,
        grace_s=args.grace,
        turn_wait_s=args.turn_wait,
        bot_delay_s=args.bot_delay,
        metrics_port=args.metrics_port,
        json_logs=args.log_format == "json",
        log_level=args.log_level,
    )
    configure(json=config.json_logs, level=config.log_level)
    asyncio.run(serve(config))
    return 0
