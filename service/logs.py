"""Structured logs (structlog): JSON lines in production, readable lines in a terminal.

By default the format follows where the lines go: readable (console) only when stderr is a
terminal, JSON otherwise (a container, a pipe, a file), so a log collector never receives
colour codes. A move is one line at debug level: at info a busy server logs its lifecycle and
its troubles, not every move.

Every line about a game carries ``game_id``; lines about a move carry ``seat`` and
``request_id`` too. Logs are projected like everything else: they name move kinds, never cards.
"""

from __future__ import annotations

import logging
import sys

import structlog


def configure(json: bool | None = None, level: str = "info", *, final: bool = False) -> None:
    """``json``: True, False (console), or None to choose by whether stderr is a terminal.
    ``final``: no later call will configure again (a server process), so each module's logger
    is bound once, on first use: otherwise every ``log.debug`` a move makes binds it anew, even
    when debug is filtered out (about 2 µs a call). Tests and tools that configure several times
    keep the default."""
    if json is None:
        json = not sys.stderr.isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=final,
    )
