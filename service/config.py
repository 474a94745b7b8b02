"""Server configuration: one frozen object, built from flags and the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

REDIS_CLUSTER_ENV = "TRICKTABLE_REDIS_CLUSTER"
REDIS_WAIT_REPLICAS_ENV = "TRICKTABLE_REDIS_WAIT_REPLICAS"
REDIS_URL_ENV = "TRICKTABLE_REDIS_URL"


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
    stream_wait_s: float = 1.0  # how often an idle stream checks for shutdown and game end
    max_message_bytes: int = 64 * 1024
    turn_wait_s: float = 30.0  # the longest a wait_for_turn call is held
    metrics_port: int | None = None  # None: no metrics endpoint; 0: any free port
    json_logs: bool = True
    log_level: str = "info"

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
