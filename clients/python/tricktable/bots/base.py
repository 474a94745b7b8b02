"""What a bot is: one callable that receives its view and its legal moves and returns a move.

    def first_card(view: View, legal: Sequence[Move]) -> Move | None:
        return legal[0]

A bot may be a function or an object with ``__call__`` (one object per seat and game, so it
may remember what it has seen). It returns one of ``legal`` (the ready-to-send moves of
``view.legal_moves``), or ``None`` to let a chance go by: some games let a seat act while
another seat is also to act (a Sixty-Six claim between tricks), and the bot may wait for the
game to move on instead. The SDK (:mod:`tricktable.bots.runner`) does everything else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tricktable.v1 import moves_pb2, views_pb2

View = views_pb2.View
Move = moves_pb2.Move

#: Move kinds a seat may make but need never make: when these are all a seat can do and
#: another seat is also to act, the game does not wait on it.
OPTIONAL_KINDS = frozenset({"claim", "exchange_trump"})


class Bot(Protocol):
    def __call__(self, view: View, legal: Sequence[Move], /) -> Move | None: ...


def kind(move: Move) -> str:
    return move.WhichOneof("kind") or ""


def may_wait(view: View, legal: Sequence[Move]) -> bool:
    """True when the game does not need this seat's move now: all it can do is optional
    (claim, exchange) and another seat is to act as well."""
    if view.viewer is None or len(view.to_act) < 2:
        return False
    return all(kind(m) in OPTIONAL_KINDS for m in legal)
