"""The event loop a server process runs on: uvloop where it is installed, else asyncio's own.

grpc.aio runs on any asyncio loop; its completions reach the loop from grpc's poller thread, and
each streamed move wakes several tasks and futures on the way (the call's read, the session's
inbox, the store's reply). uvloop's loop does that scheduling in C: under the stream benchmark
the server runs about 9.5% fewer instructions a move (callgrind, 1.996M → 1.807M). The choice
is one setting, ``--event-loop`` (``TRICKTABLE_EVENT_LOOP``), so a platform without uvloop
(Windows) still runs, and a suspected loop problem can be ruled out by running on asyncio's.

The benchmark's floor and bound servers run on the same loop as the server they are compared
with (they read the same variable), so a ratio to the floor measures our code, not the loop.
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Coroutine, Mapping
from types import ModuleType
from typing import Any, TypeVar


def _uvloop() -> ModuleType | None:
    try:
        return importlib.import_module("uvloop")
    except ImportError:  # no wheel for this platform: asyncio's loop
        return None


_UVLOOP = _uvloop()
UVLOOP_INSTALLED = _UVLOOP is not None

EVENT_LOOP_ENV = "TRICKTABLE_EVENT_LOOP"
CHOICES = ("auto", "uvloop", "asyncio")

T = TypeVar("T")


def resolve(choice: str) -> str:
    """The loop ``choice`` means here: "auto" is uvloop when it is installed."""
    if choice not in CHOICES:
        raise ValueError(f"the event loop is one of {', '.join(CHOICES)}, not {choice!r}")
    if choice == "auto":
        return "uvloop" if UVLOOP_INSTALLED else "asyncio"
    if choice == "uvloop" and not UVLOOP_INSTALLED:
        raise ValueError("--event-loop uvloop: uvloop is not installed on this platform")
    return choice


def from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """The loop the environment asks for (``auto`` when it says nothing)."""
    return resolve(environ.get(EVENT_LOOP_ENV, "").strip().lower() or "auto")


def run(main: Coroutine[Any, Any, T], choice: str = "auto") -> T:
    """Run ``main`` to its end on a new loop of the kind ``choice`` resolves to."""
    if resolve(choice) == "uvloop":
        assert _UVLOOP is not None
        result: T = _UVLOOP.run(main)
        return result
    return asyncio.run(main)
