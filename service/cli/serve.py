"""``tricktable serve``: run the gRPC server (embedded in-memory store unless Redis is given)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from service.config import REDIS_URL_ENV, ServerConfig
from service.logs import configure
from service.server import serve
from service.workers import supervise


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
        "--grace",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="time in-flight calls get to finish on shutdown (default 5)",
    )
    p.add_argument("--log-format", choices=("json", "console"), default="json")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="run N server processes on the one port (SO_REUSEPORT), for machines with more "
        "cores; needs Redis; worker i serves --metrics-port + i (default 1)",
    )
    p.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)  # a worker's
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.workers != 1:
        return _run_workers(args)
    config = ServerConfig(
        host=args.host,
        port=args.port,
        redis_url=ServerConfig.redis_url_from(args.redis_url),
        finished_ttl_s=args.finished_ttl,
        open_ttl_s=args.open_ttl,
        grace_s=args.grace,
        turn_wait_s=args.turn_wait,
        metrics_port=args.metrics_port,
        json_logs=args.log_format == "json",
        log_level=args.log_level,
        reuse_port=args.reuse_port,
    )
    configure(json=config.json_logs, level=config.log_level)
    asyncio.run(serve(config))
    return 0


def _run_workers(args: argparse.Namespace) -> int:
    problem = None
    if args.workers < 1:
        problem = "--workers must be at least 1"
    elif not ServerConfig.redis_url_from(args.redis_url):
        problem = (
            f"--workers needs Redis (--redis-url or ${REDIS_URL_ENV}): worker processes share "
            "no memory, so every game must live where all of them reach it"
        )
    elif args.port == 0:
        problem = "--workers needs a fixed --port for its workers to share"
    if problem:
        print(f"tricktable serve: {problem}", file=sys.stderr)
        return 2
    return supervise(args.argv, args.workers, args.metrics_port, args.grace)
