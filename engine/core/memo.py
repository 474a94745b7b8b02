"""A memo for the hot paths' caches: a dict that is emptied when it reaches its limit.

The engine and the service remember things that repeat (validated option sets, completed
tricks' views, events' data forms, moves' wire bytes): the same few values come back on every
move, so a hit is the rule; the limit only bounds memory when inputs do not repeat (a client
may send anything). Starting over when full is cheaper than tracking recency, and a miss only
costs the computation a memo spares.
"""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Memo(dict[K, V]):
    """Look values up with ``get``; ``keep`` stores one, emptying the memo first when full."""

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def keep(self, key: K, value: V) -> V:
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value
