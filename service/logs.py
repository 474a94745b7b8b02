"""Structured logs (structlog): JSON lines in production, readable lines in a terminal.

By default the format follows where the lines go: readable (console) only when stderr is a
terminal, JSON otherwise (a container, a pipe, a file), so a log collector never receives
colour codes. A move is one line at debug level: at info a busy server logs its lifecycle and
its troubles, not every move.

Every line about a game carries ``game_id``; lines about a move carry ``seat`` and
``request_id`` too. Logs are projected like everything else: they name move kinds, never cards.

Every line the server writes is one of these, its libraries' too: the standard ``logging``
records (Hypercorn's errors, asyncio's "unhandled exception" reports, grpc's) are rendered by
the same processors, their tracebacks inside the line (``exception``), and a server process's
uncaught exceptions (any thread) are logged rather than printed. Without this, malformed web
traffic printed plain tracebacks between the JSON lines (issue 25). (grpc's C core writes its
own rare lines to stderr itself; nothing in Python sees them.)
"""

from __future__ import annotations

import logging
import sys
import threading
import types
from typing import Any

import structlog

#: The least level of the libraries' records shown: their info lines (Hypercorn's "Running
#: on ...") are not the server's to tell.
LIBRARY_LEVEL = logging.WARNING


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to ``sys.stderr`` as it is at each record (a test may swap it), like structlog's
    lines."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _: Any) -> None:
        pass


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
    _route_standard_logging(renderer, level)
    if final:
        _log_uncaught()
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
        # One write per line, its newline included: print (PrintLogger) writes the text and
        # then the newline, two writes on Python's unbuffered stderr, and the processes that
        # share one stderr (serve --workers, tricktable cluster) then mix their lines.
        logger_factory=structlog.WriteLoggerFactory(sys.stderr),
        cache_logger_on_first_use=final,
    )


def _route_standard_logging(renderer: structlog.typing.Processor, level: str) -> None:
    """The root logger's one handler renders records as structlog renders its own lines."""
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            renderer,
        ],
    )
    handler = _StderrHandler()
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _StderrHandler)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(max(LIBRARY_LEVEL, logging.getLevelNamesMapping()[level.upper()]))
    logging.captureWarnings(True)  # warnings.warn's lines too


def _log_uncaught() -> None:
    """An exception nobody caught (in the main thread or another) is a log line."""
    log = structlog.get_logger("tricktable")

    def main_hook(
        kind: type[BaseException], exc: BaseException, tb: types.TracebackType | None
    ) -> None:
        log.critical("uncaught exception", exc_info=(kind, exc, tb))

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is None or isinstance(args.exc_value, SystemExit):
            return
        log.error(
            "uncaught exception in a thread",
            thread=args.thread.name if args.thread is not None else None,
            exc_info=(args.exc_type, args.exc_value, args.exc_traceback),
        )

    sys.excepthook = main_hook
    threading.excepthook = thread_hook
