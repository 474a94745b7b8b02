"""Server configuration: one frozen object, built from flags and the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

REDIS_URL_ENV = "TRICKTABLE_REDIS_URL"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 50051  # 0: any free port
    redis_url: str | None = None  # None: the embedded in-memory store
    finished_ttl_s: int = 86400  # how long a finished game stays readable
    open_ttl_s: int = 86400  # how long a game whose seats never all fill is kept (0: forever)
    grace_s: float = 5.0  # how long in-flight calls may finish on shutdown
    stream_wait_s: float = 1.0  # how often an idle stream checks for shutdown and game end
    max_message_bytes: int = 64 * 1024
    turn_wait_s: float = 30.0  # the longest a wait_for_turn call is held
    metrics_port: int | None = None  # None: no metrics endpoint; 0: any free port
    json_logs: bool = True
    log_level: str = "info"
    reuse_port: bool = False  # share the port with other workers (serve --workers)

    @staticmethod
    def redis_url_from(flag: str | None, environ: Mapping[str, str] = os.environ) -> str | None:
        return flag or environ.get(REDIS_URL_ENV) or None
