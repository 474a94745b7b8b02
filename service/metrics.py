"""What the server counts, and the Prometheus endpoint that shows it (``serve --metrics-port``).

:class:`Metrics` is the port the rest of the service reports through; its methods do nothing, so
code and tests that do not care pass nothing. :class:`PrometheusMetrics` keeps the numbers in its
own registry (one per server, so several servers in one process, as in the tests, never mix):

    tricktable_rpcs_total{method, code}             RPCs handled, by final status code
    tricktable_submit_move_seconds                  SubmitMove, request to commit (a
                                                    wait_for_turn wait is not included)
    tricktable_games_created_total{game_type}
    tricktable_games_ended_total{game_type, status} status: finished | abandoned
    tricktable_store_errors_total{method}           RPCs that failed because the store was down
    tricktable_deadline_fire_delay_seconds{kind}    a scheduled step (timeout, bot): deadline to
                                                    commit
    tricktable_bot_decisions_total{bot}             server bots' moves computed (committed or
                                                    not: one replica computes each, see
                                                    service.scheduler)
    tricktable_deadline_leases_lapsed_total         deadline entries claimed after another
                                                    claim's lease ran out (its replica died or
                                                    was slower than the lease)
    tricktable_live_games                           games followed on this replica now (a stream
                                                    or a held call on them)
    tricktable_open_streams{method}                 streams open on this replica now
    tricktable_waiting_players                      players waiting on this replica for a game's
                                                    next move: event and play streams, calls
                                                    held (wait_for_turn, after_version)
    process_* and python_*                          the process: CPU, memory, open files, GC

The gauges are this replica's (sum them over the replicas). Counters have no ``_created`` twin,
and the endpoint answers ``/metrics`` only (anything else is 404). deploy/README.md lists them.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    make_wsgi_app,
)
from prometheus_client.exposition import ThreadingWSGIServer

#: Where the metrics are served; every other path is 404.
METRICS_PATH = "/metrics"

#: SubmitMove latency buckets, in seconds: sub-millisecond (embedded store) to a stalled store.
LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.002,
    0.004,
    0.008,
    0.016,
    0.032,
    0.064,
    0.128,
    0.256,
    0.512,
    1.024,
    2.048,
    4.096,
)


class Metrics:
    """Reports that go nowhere: the default."""

    def rpc_handled(self, method: str, code: str) -> None:
        return

    def store_error(self, method: str) -> None:
        return

    def game_created(self, game_type: str) -> None:
        return

    def game_ended(self, game_type: str, status: str) -> None:
        return

    def move_committed(self, seconds: float) -> None:
        return

    def deadline_fired(self, kind: str, late_s: float) -> None:
        """A scheduled step committed (``kind``: timeout or bot), ``late_s`` after its deadline."""
        return

    def bot_decided(self, bot: str) -> None:
        """A server bot's move was computed (whether its commit then wins or not)."""
        return

    def deadline_lease_lapsed(self, count: int) -> None:
        """``count`` deadline entries were claimed after another claim's lease ran out."""
        return

    def stream_opened(self, method: str) -> None:
        return

    def stream_closed(self, method: str) -> None:
        return

    def follow(self, counts: Callable[[], tuple[int, int]]) -> None:
        """Where the live games and waiting players are counted (read at each scrape): a
        function of (games followed, streams and calls waiting), called from the scraping
        thread."""
        return


def method_name(full: str) -> str:
    """``/tricktable.v1.GameService/SubmitMove`` → ``SubmitMove`` (other services keep their
    service name: ``grpc.health.v1.Health/Check``)."""
    service, _, method = full.lstrip("/").rpartition("/")
    return method if service == "tricktable.v1.GameService" else f"{service}/{method}"


class PrometheusMetrics(Metrics):
    def __init__(self) -> None:
        # A counter's `_created` sample doubles every series for a number scrapers do not use.
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = CollectorRegistry()
        for process in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR):
            self.registry.register(process)  # the process's own: CPU, memory, files, GC
        self._rpcs = Counter(
            "tricktable_rpcs",
            "RPCs handled, by method and final status code",
            ["method", "code"],
            registry=self.registry,
        )
        self._submit = Histogram(
            "tricktable_submit_move_seconds",
            "SubmitMove time from request to commit (waiting for the next turn excluded)",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self._created = Counter(
            "tricktable_games_created", "Games created", ["game_type"], registry=self.registry
        )
        self._ended = Counter(
            "tricktable_games_ended",
            "Games ended: finished by the rules or abandoned by a resignation",
            ["game_type", "status"],
            registry=self.registry,
        )
        self._store_errors = Counter(
            "tricktable_store_errors",
            "RPCs that failed because the game store was unavailable",
            ["method"],
            registry=self.registry,
        )
        self._fired = Histogram(
            "tricktable_deadline_fire_delay_seconds",
            "Scheduled steps (a clock running out, a server bot's turn): deadline to commit",
            ["kind"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self._decided = Counter(
            "tricktable_bot_decisions",
            "Server bots' moves computed, committed or not",
            ["bot"],
            registry=self.registry,
        )
        self._lapsed = Counter(
            "tricktable_deadline_leases_lapsed",
            "Deadline entries claimed after another claim's lease ran out",
            registry=self.registry,
        )
        self._streams = Gauge(
            "tricktable_open_streams",
            "Streams open on this replica (StreamEvents, Play, ...)",
            ["method"],
            registry=self.registry,
        )
        self._counts: Callable[[], tuple[int, int]] = lambda: (0, 0)
        Gauge(
            "tricktable_live_games",
            "Games followed on this replica now: a stream or a held call on them",
            registry=self.registry,
        ).set_function(lambda: self._counts()[0])
        Gauge(
            "tricktable_waiting_players",
            "Players waiting on this replica for a game's next move: streams and held calls",
            registry=self.registry,
        ).set_function(lambda: self._counts()[1])
        self._rpc_children: dict[tuple[str, str], Counter] = {}
        self._http: WSGIServer | None = None
        self._thread: threading.Thread | None = None

    def rpc_handled(self, method: str, code: str) -> None:
        # Every RPC counts itself: the labelled child is looked up once per (method, code)
        # rather than through labels(), which validates and joins the labels on each call.
        child = self._rpc_children.get((method, code))
        if child is None:
            child = self._rpc_children[method, code] = self._rpcs.labels(method_name(method), code)
        child.inc()

    def store_error(self, method: str) -> None:
        self._store_errors.labels(method_name(method)).inc()

    def game_created(self, game_type: str) -> None:
        self._created.labels(game_type).inc()

    def game_ended(self, game_type: str, status: str) -> None:
        self._ended.labels(game_type, status).inc()

    def move_committed(self, seconds: float) -> None:
        self._submit.observe(seconds)

    def deadline_fired(self, kind: str, late_s: float) -> None:
        self._fired.labels(kind).observe(max(0.0, late_s))

    def bot_decided(self, bot: str) -> None:
        self._decided.labels(bot).inc()

    def deadline_lease_lapsed(self, count: int) -> None:
        self._lapsed.inc(count)

    def stream_opened(self, method: str) -> None:
        self._streams.labels(method_name(method)).inc()

    def stream_closed(self, method: str) -> None:
        self._streams.labels(method_name(method)).dec()

    def follow(self, counts: Callable[[], tuple[int, int]]) -> None:
        self._counts = counts

    def serve_http(self, host: str, port: int) -> int:
        """Serve ``/metrics`` (only) over HTTP on a background thread; the port bound (for 0:
        any)."""

        class Server(ThreadingWSGIServer):
            address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

        self._http = make_server(
            host, port, only_metrics(make_wsgi_app(self.registry)), Server, _Quiet
        )
        self._thread = threading.Thread(
            target=self._http.serve_forever, name="metrics", daemon=True
        )
        self._thread.start()
        return int(self._http.server_port)

    def stop_http(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None


class _Quiet(WSGIRequestHandler):
    """No line on stderr per scrape (the server's own logs are structured)."""

    def log_message(self, format: str, *args: Any) -> None:
        return


WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def only_metrics(app: WsgiApp) -> WsgiApp:
    """``app`` at :data:`METRICS_PATH`; 404 anywhere else."""

    def serve(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != METRICS_PATH:
            start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8")])
            return [f"not found: the metrics are at {METRICS_PATH}\n".encode()]
        return app(environ, start_response)

    return serve
