"""The composition root (STYLE.md §11): configuration → store → game service → servicer → a
``grpc.aio`` server with health checking, reflection and the error interceptor, and with
``web_port`` the web door (service/web: Connect and gRPC-Web) over the same servicer.

``Server`` starts and stops it; :func:`serve` runs it until SIGTERM or SIGINT, then shuts down
gracefully: health goes NOT_SERVING, open event streams are asked to end, in-flight calls get
``grace_s`` seconds to finish.
"""

from __future__ import annotations

import asyncio
import gc
import signal
from pathlib import Path

import grpc
import structlog
from grpc_health.v1 import health, health_pb2_grpc
from tricktable.v1 import game_service_pb2, game_service_pb2_grpc, tournament_service_pb2_grpc

from service import identity, reflection
from service.config import ServerConfig, host_port
from service.game_service import GameService
from service.interceptors import ErrorInterceptor
from service.limits import Limits
from service.metrics import Metrics, PrometheusMetrics
from service.readiness import StoreHealth
from service.scheduler import Scheduler
from service.servicer import GameServicer
from service.store.base import GameStore
from service.store.memory import MemoryStore
from service.store.redis import RedisStore
from service.tournaments.wiring import Tournaments
from service.web.app import web_app
from service.web.server import WebServer

log = structlog.get_logger("tricktable.server")

#: Calls grpc may queue before the server's loop takes them (see the server options).
PENDING_CALLS = 1_000_000
SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name


def build_store(config: ServerConfig) -> GameStore:
    if config.redis_url:
        return RedisStore.from_url(
            config.redis_url,
            config.finished_ttl_s,
            config.open_ttl_s,
            cluster=config.redis_cluster,
            wait_replicas=config.redis_wait_replicas,
        )
    return MemoryStore(finished_ttl_s=config.finished_ttl_s, open_ttl_s=config.open_ttl_s)


class Server:
    """One running server. ``start`` binds the port (``port`` tells which, when 0 was asked)."""

    def __init__(self, config: ServerConfig, store: GameStore | None = None) -> None:
        self.config = config
        self.store = store if store is not None else build_store(config)
        self.metrics: Metrics = (
            PrometheusMetrics() if config.metrics_port is not None else Metrics()
        )
        self.games = GameService(
            self.store,
            stream_wait_s=config.stream_wait_s,
            stream_recheck_s=config.stream_recheck_s,
            turn_wait_s=config.turn_wait_s,
            metrics=self.metrics,
            bot_delay_s=config.bot_delay_s,
            idle_ttl_s=config.idle_ttl_s,
            queue_grace_s=config.queue_grace_s,
            queue_poll_s=min(0.5, config.queue_grace_s / 4),
            identity=identity.from_flags(config.auth_jwt_secret, config.auth_jwks),
        )
        self.metrics.follow(self.games.feed.counts)  # live games, waiting calls: at each scrape
        self.scheduler = Scheduler(self.games, interval_s=config.sweep_interval_s)
        self.tournaments = Tournaments(config, self.games)
        self._health = health.aio.HealthServicer()
        limit = config.max_message_bytes
        self.limits = Limits(config.limits)
        self.grpc = grpc.aio.server(
            interceptors=[ErrorInterceptor(self.metrics, self.limits)],
            options=[
                ("grpc.max_receive_message_length", limit),
                # A taken port is an error, not a shared listener, unless this is one of
                # `serve --workers`' processes, which share theirs.
                ("grpc.so_reuseport", 1 if config.reuse_port else 0),
                # Calls that arrive faster than the event loop takes them wait in grpc's queue;
                # past its default limits (1,000, then 3,000) grpc cancels them, which a burst
                # of stream openings met at about 2,000 streams. Limits on calls are ours
                # (service.limits), applied once a call is taken.
                ("grpc.server.max_pending_requests", PENDING_CALLS),
                ("grpc.server.max_pending_requests_hard_limit", PENDING_CALLS),
                *config.limits.grpc_options(),
            ],
        )
        servicer = GameServicer(self.games, self.limits)
        game_service_pb2_grpc.add_GameServiceServicer_to_server(servicer, self.grpc)
        tournament_service_pb2_grpc.add_TournamentServiceServicer_to_server(
            self.tournaments.servicer, self.grpc
        )
        health_pb2_grpc.add_HealthServicer_to_server(self._health, self.grpc)
        reflection.enable(
            (SERVICE_NAME, self.tournaments.SERVICE_NAME, health.SERVICE_NAME), self.grpc
        )
        self.readiness = StoreHealth(
            self._health, self.store, ("", SERVICE_NAME), config.health_interval_s
        )
        self.port = 0
        self.metrics_port: int | None = None
        self.web: WebServer | None = None
        if config.web_port is not None:
            app = web_app(
                servicer,
                self.metrics,
                origins=config.web_origins,
                max_message_bytes=limit,
                limits=self.limits,  # one set of buckets and stream counts for both doors
                tournaments=self.tournaments.servicer,
            )
            tls = (config.tls_cert, config.tls_key) if config.tls_cert and config.tls_key else None
            self.web = WebServer(
                app,
                config.host,
                config.web_port,
                config.grace_s,
                reuse_port=config.reuse_port,
                tls=tls,
            )
        self.web_port: int | None = None

    async def start(self) -> int:
        await self.store.ping()
        address = host_port(self.config.host, self.config.port)
        if self.config.tls_cert and self.config.tls_key:
            pair = (Path(self.config.tls_key).read_bytes(), Path(self.config.tls_cert).read_bytes())
            self.port = self.grpc.add_secure_port(address, grpc.ssl_server_credentials([pair]))
        else:
            self.port = self.grpc.add_insecure_port(address)
        if self.port == 0:
            raise OSError(f"cannot listen on {address}")
        if isinstance(self.metrics, PrometheusMetrics) and self.config.metrics_port is not None:
            self.metrics_port = self.metrics.serve_http(self.config.host, self.config.metrics_port)
        await self.grpc.start()
        if self.web is not None:
            self.web_port = await self.web.start()
        self.scheduler.start()
        self.tournaments.start()
        await self.readiness.start()
        log.info(
            "serving",
            host=self.config.host,
            port=self.port,
            metrics_port=self.metrics_port,
            web_port=self.web_port,
            store="redis" if self.config.redis_url else "memory",
            tls=bool(self.config.tls_cert),
            redis_cluster=self.config.redis_cluster,
            # "uvloop" or "asyncio" (service.event_loop): what runs every call
            event_loop=type(asyncio.get_running_loop()).__module__.partition(".")[0],
        )
        return self.port

    async def stop(self) -> None:
        # Watchers see NOT_SERVING and new checks fail over to other replicas.
        await self.readiness.stop()
        await self._health.enter_graceful_shutdown()
        self.games.close_streams()
        self.tournaments.close_streams()
        web = self.web.stop() if self.web is not None else asyncio.sleep(0)
        await asyncio.gather(self.grpc.stop(self.config.grace_s), web)
        await self.scheduler.stop()
        await self.tournaments.stop()
        await self.store.close()
        if isinstance(self.metrics, PrometheusMetrics):
            self.metrics.stop_http()
        log.info("stopped")


#: The garbage collector's first-generation threshold while serving (Python's default: 700).
GC_GEN0_THRESHOLD = 20_000


def tune_runtime() -> None:
    """Garbage collection for a long-running server, once everything is imported.

    A move allocates thousands of small objects (views, messages, events), nearly all freed by
    reference counting, yet each 700 allocations triggered a young-generation scan: a larger
    threshold scans far less often for the same garbage. ``gc.freeze`` moves what exists now
    (modules, classes, the engine's tables) out of the collector's sight for good, so older
    generations' scans stop walking it."""
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, gen1, gen2)


async def serve(config: ServerConfig) -> None:
    server = Server(config)
    tune_runtime()
    await server.start()
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopping.set)
    await stopping.wait()
    log.info("shutting down", grace_s=config.grace_s)
    await server.stop()
