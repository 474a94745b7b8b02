"""Server configuration: one frozen object, built from flags and the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from service.limits import LimitsConfig

REDIS_CLUSTER_ENV = "TRICKTABLE_REDIS_CLUSTER"
REDIS_WAIT_REPLICAS_ENV = "TRICKTABLE_REDIS_WAIT_REPLICAS"
REDIS_URL_ENV = "TRICKTABLE_REDIS_URL"
WEB_PORT_ENV = "TRICKTABLE_WEB_PORT"
WEB_ORIGINS_ENV = "TRICKTABLE_WEB_ORIGINS"


def host_port(host: str, port: int) -> str:
    """``host:port`` as grpc reads an address: an IPv6 literal (``::``, ``::1``) in brackets,
    or its colons would be read as the port's (grpc answers ``:::50051`` "misformatted")."""
    if ":" in host and not host.startswith("["):
        return f"[{host}]:{port}"
    return f"{host}:{port}"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051  # 0: any free port
    redis_url: str | None = None  # None: the embedded in-memory store
    redis_cluster: bool = False  # redis_url is a seed node of a Redis Cluster
    redis_wait_replicas: int = 0  # each commit waits for this many Redis replicas (WAIT)
    finished_ttl_s: int = 86400  # how long a finished game stays readable
    open_ttl_s: int = 86400  # how long a game whose seats never all fill is kept (0: forever)
    grace_s: float = 5.0  # how long in-flight calls may finish on shutdown
    stream_wait_s: float = 1.0  # how often a turn waiter checks for shutdown
    stream_recheck_s: float = 600.0  # how often an idle event stream checks its game still exists
    max_message_bytes: int = 64 * 1024
    turn_wait_s: float = 30.0  # the longest a wait_for_turn call is held
    sweep_interval_s: float = 0.05  # the longest the deadline sweeper sleeps (service.scheduler)
    bot_delay_s: float = 0.5  # how long a server bot waits before it moves (service.turns)
    idle_ttl_s: float = 86400  # a full game with no move this long ends as abandoned (0: never)
    queue_grace_s: float = 10.0  # a quick play ticket whose stream is gone this long leaves
    metrics_port: int | None = None  # None: no metrics endpoint; 0: any free port
    health_interval_s: float = 2.0  # how often readiness pings the store (0: never)
    web_port: int | None = None  # Connect and gRPC-Web for browsers; None: off; 0: any free port
    web_origins: tuple[str, ...] = ()  # other sites' pages allowed to call (CORS)
    json_logs: bool | None = None  # None: console on a terminal, JSON otherwise
    log_level: str = "info"
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    tls_cert: str | None = None  # PEM certificate chain file: serve TLS (with tls_key)
    tls_key: str | None = None  # its PEM private key file
    #: PEM CA certificates called bots' TLS certificates are checked against too (grpcs://,
    #: https://), beside the usual roots: a private CA, or a bot's self-signed certificate
    bot_ca_file: str | None = None
    reuse_port: bool = False  # share the port with other workers (serve --workers)
    auth_jwt_secret: str | None = None  # player identity: HS256 secret (service.identity)
    auth_jwks: str | None = None  # player identity: a JWKS file of RS256/ES256 public keys
    ladder_games_at_once: int = 2  # rated ladder games per game type at a time (0: no ladder)

    @staticmethod
    def redis_cluster_from(flag: bool, environ: Mapping[str, str] = os.environ) -> bool:
        value = environ.get(REDIS_CLUSTER_ENV, "").strip().lower()
        if value not in ("", "0", "1", "true", "false", "yes", "no"):
            raise ValueError(f"{REDIS_CLUSTER_ENV} must be 1 or 0, not {value!r}")
        return flag or value in ("1", "true", "yes")

    @staticmethod
    def redis_wait_replicas_from(flag: int | None, environ: Mapping[str, str] = os.environ) -> int:
        if flag is not None:
            count = flag
        else:
            text = environ.get(REDIS_WAIT_REPLICAS_ENV, "0").strip() or "0"
            if not text.isdigit():
                raise ValueError(f"{REDIS_WAIT_REPLICAS_ENV} must be a count, not {text!r}")
            count = int(text)
        if count < 0:
            raise ValueError("--redis-wait-replicas must be 0 or more")
        return count

    @staticmethod
    def redis_url_from(flag: str | None, environ: Mapping[str, str] = os.environ) -> str | None:
        return flag or environ.get(REDIS_URL_ENV) or None

    @staticmethod
    def web_port_from(flag: int | None, environ: Mapping[str, str] = os.environ) -> int | None:
        if flag is not None:
            return flag
        text = environ.get(WEB_PORT_ENV, "").strip()
        if not text:
            return None
        if not text.isdigit():
            raise ValueError(f"{WEB_PORT_ENV} must be a port number, not {text!r}")
        return int(text)

    @staticmethod
    def web_origins_from(
        flags: list[str] | str | None, environ: Mapping[str, str] = os.environ
    ) -> tuple[str, ...]:
        """The --web-origin flags, else $TRICKTABLE_WEB_ORIGINS (comma or space separated; the
        serve command's flag table may hand that text over as the flag's default). An origin is
        a scheme and host (and port), as a browser sends it: no path, no slash."""
        given = flags or environ.get(WEB_ORIGINS_ENV, "")
        origins = given.replace(",", " ").split() if isinstance(given, str) else given
        for origin in origins:
            scheme, sep, rest = origin.partition("://")
            if origin != "*" and (
                scheme not in ("http", "https") or not sep or not rest or "/" in rest
            ):
                raise ValueError(f"{origin!r} is not an origin such as https://example.com:8443")
        return tuple(dict.fromkeys(origins))
