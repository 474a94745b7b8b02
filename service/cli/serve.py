"""``tricktable serve``: run the gRPC server (embedded in-memory store unless Redis is given)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from service.config import (
    REDIS_CLUSTER_ENV,
    REDIS_URL_ENV,
    REDIS_WAIT_REPLICAS_ENV,
    ServerConfig,
)
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
        "--redis-cluster",
        action="store_true",
        help="the Redis URL is a seed node of a Redis Cluster (Redis 7+); "
        f"default ${REDIS_CLUSTER_ENV}=1",
    )
    p.add_argument(
        "--redis-wait-replicas",
        type=int,
        default=None,
        metavar="N",
        help="acknowledge a move only once N Redis replicas have it (WAIT); else a failover can "
        "lose the last acknowledged moves (asynchronous replication); default "
        f"${REDIS_WAIT_REPLICAS_ENV}, else 0",
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
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        redis_cluster = ServerConfig.redis_cluster_from(args.redis_cluster)
        redis_wait_replicas = ServerConfig.redis_wait_replicas_from(args.redis_wait_replicas)
    except ValueError as exc:
        print(f"tricktable serve: {exc}", file=sys.stderr)
        return 2
    config = ServerConfig(
        host=args.host,
        port=args.port,
        redis_url=ServerConfig.redis_url_from(args.redis_url),
        redis_cluster=redis_cluster,
        redis_wait_replicas=redis_wait_replicas,
        finished_ttl_s=args.finished_ttl,
        open_ttl_s=args.open_ttl,
        grace_s=args.grace,
        turn_wait_s=args.turn_wait,
        metrics_port=args.metrics_port,
        json_logs=args.log_format == "json",
        log_level=args.log_level,
    )
    if (config.redis_cluster or config.redis_wait_replicas) and not config.redis_url:
        print(
            "tricktable serve: --redis-cluster and --redis-wait-replicas need a Redis URL",
            file=sys.stderr,
        )
        return 2
    configure(json=config.json_logs, level=config.log_level)
    asyncio.run(serve(config))
    return 0
