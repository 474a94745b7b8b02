"""``tricktable serve``: run the gRPC server (embedded in-memory store unless Redis is given)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from service import event_loop, identity, limits
from service.cli import env_flags
from service.config import ServerConfig
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
        help="keep games in Redis (e.g. redis://localhost:6379/0); default: the embedded "
        "in-memory store",
    )
    p.add_argument(
        "--redis-cluster",
        action="store_true",
        help="the Redis URL is a seed node of a Redis Cluster (Redis 7+)",
    )
    p.add_argument(
        "--redis-wait-replicas",
        type=int,
        default=None,
        metavar="N",
        help="acknowledge a move only once N Redis replicas have it (WAIT); else a failover can "
        "lose the last acknowledged moves (asynchronous replication); default 0",
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
        "--web-port",
        type=int,
        default=None,
        metavar="PORT",
        help="also serve GameService to browsers over Connect (JSON, binary) and gRPC-Web, and "
        "the web table at /, on the --host address (default: off; 0: any free port)",
    )
    p.add_argument(
        "--web-origin",
        action="append",
        dest="web_origins",
        default=None,
        metavar="ORIGIN",
        help="a site whose pages may call the web port (CORS), e.g. https://cards.example.com; "
        "repeatable (in the variable: comma-separated)",
    )
    p.add_argument(
        "--turn-wait",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="the longest a wait_for_turn call is held (default 30)",
    )
    p.add_argument(
        "--health-interval",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help='how often readiness (health of "" and the game service) pings the store '
        "(default 2; 0: never)",
    )
    p.add_argument(
        "--quick-play-grace",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="a QuickPlay ticket whose stream has been gone this long leaves the queue and is "
        "never seated (a QuickPlay with the ticket before then resumes it; default 10)",
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
        "--ladder-games-at-once",
        type=int,
        default=2,
        metavar="N",
        help="rated ladder games per game type at a time, between registered bots that opted "
        "in (default 2; 0: no ladder)",
    )
    p.add_argument(
        "--grace",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="time in-flight calls get to finish on shutdown (default 5)",
    )
    p.add_argument(
        "--log-format",
        choices=("auto", "json", "console"),
        default="auto",
        help="auto (default): console lines on a terminal, JSON lines otherwise",
    )
    p.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default="info",
        help="the least important lines logged (default info; debug adds a line per move)",
    )
    p.add_argument(
        "--tls-cert",
        metavar="FILE",
        help="serve TLS with this PEM certificate (chain); needs --tls-key (default: plaintext)",
    )
    p.add_argument("--tls-key", metavar="FILE", help="the PEM private key of --tls-cert")
    p.add_argument(
        "--bot-ca-file",
        metavar="FILE",
        help="also trust these PEM CA certificates when calling a tournament's called bots over "
        "TLS (grpcs://, https://): a private CA, or a bot's self-signed certificate",
    )
    p.add_argument(
        "--auth-jwt-secret",
        metavar="SECRET",
        help="player identity: verify x-player-token JWTs (HS256) with this shared secret of 32 "
        "bytes or more; their sub is the player id (prefer the environment variable: "
        "arguments show in ps)",
    )
    p.add_argument(
        "--auth-jwks",
        metavar="FILE",
        help="player identity: verify x-player-token JWTs (RS256, ES256) with the public keys "
        "of this JSON Web Key Set file",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="run N server processes on the one port (SO_REUSEPORT), for machines with more "
        "cores; needs Redis; worker i serves --metrics-port + i (default 1)",
    )
    p.add_argument(
        "--event-loop",
        choices=event_loop.CHOICES,
        default="auto",
        help="the asyncio event loop: auto (default) is uvloop where it is installed",
    )
    p.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)  # a worker's
    limits.add_arguments(p)
    env_flags.from_environment(p)  # last: every flag above gets its TRICKTABLE_* variable
    p.set_defaults(run=run, serve_parser=p)


def run(args: argparse.Namespace) -> int:
    env_flags.check_choices(args.serve_parser, args)
    if args.workers != 1:
        return _run_workers(args)
    if bool(args.tls_cert) != bool(args.tls_key):
        args.serve_parser.error("--tls-cert and --tls-key go together")
    if args.bot_ca_file and not _has_certificate(args.bot_ca_file):
        args.serve_parser.error(f"--bot-ca-file {args.bot_ca_file}: no PEM certificate read")
    try:
        web_port = ServerConfig.web_port_from(args.web_port)
        web_origins = ServerConfig.web_origins_from(args.web_origins)
        redis_cluster = ServerConfig.redis_cluster_from(args.redis_cluster)
        redis_wait_replicas = ServerConfig.redis_wait_replicas_from(args.redis_wait_replicas)
        loop = event_loop.resolve(args.event_loop)
        identity.from_flags(args.auth_jwt_secret, args.auth_jwks)  # refused here, not later
    except (ValueError, OSError) as exc:
        args.serve_parser.error(str(exc))
    config = ServerConfig(
        host=args.host,
        port=args.port,
        redis_url=ServerConfig.redis_url_from(args.redis_url),
        redis_cluster=redis_cluster,
        redis_wait_replicas=redis_wait_replicas,
        finished_ttl_s=args.finished_ttl,
        open_ttl_s=args.open_ttl,
        idle_ttl_s=args.idle_ttl,
        grace_s=args.grace,
        turn_wait_s=args.turn_wait,
        bot_delay_s=args.bot_delay,
        queue_grace_s=args.quick_play_grace,
        metrics_port=args.metrics_port,
        health_interval_s=args.health_interval,
        web_port=web_port,
        web_origins=web_origins,
        json_logs={"json": True, "console": False}.get(args.log_format),
        log_level=args.log_level,
        limits=limits.from_args(args),
        tls_cert=args.tls_cert,
        tls_key=args.tls_key,
        bot_ca_file=args.bot_ca_file,
        reuse_port=args.reuse_port,
        auth_jwt_secret=args.auth_jwt_secret,
        auth_jwks=args.auth_jwks,
        ladder_games_at_once=args.ladder_games_at_once,
    )
    if (config.redis_cluster or config.redis_wait_replicas) and not config.redis_url:
        args.serve_parser.error("--redis-cluster and --redis-wait-replicas need a Redis URL")
    configure(json=config.json_logs, level=config.log_level, final=True)
    event_loop.run(serve(config), loop)
    return 0


def _run_workers(args: argparse.Namespace) -> int:
    problem = None
    if args.workers < 1:
        problem = "--workers must be at least 1"
    elif not ServerConfig.redis_url_from(args.redis_url):
        problem = (
            "--workers needs Redis (--redis-url or TRICKTABLE_REDIS_URL): worker processes share "
            "no memory, so every game must live where all of them reach it"
        )
    elif args.port == 0:
        problem = "--workers needs a fixed --port for its workers to share"
    if problem:
        args.serve_parser.error(problem)
    return supervise(args.argv, args.workers, args.metrics_port, args.grace)


def _has_certificate(path: str) -> bool:
    """Whether ``path`` can be read and holds a PEM certificate."""
    try:
        return b"-----BEGIN CERTIFICATE-----" in Path(path).read_bytes()
    except OSError:
        return False
