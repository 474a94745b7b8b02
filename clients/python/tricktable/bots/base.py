"""What a bot is: one callable that receives its view and its legal moves and returns a move.

    def first_card(view: View, legal: Sequence[Move]) -> Move | None:
        return legal[0]

A bot may be a function or an object with ``__call__`` (one object per seat and game, so it
may remember what it has seen). It returns one of ``legal`` (the ready-to-send legal moves, a
:class:`tricktable.legal.LegalMoves`: the runner asks for a lay-aside as one compact choice,
and a lay-aside's hundreds of moves are built only as the bot looks at them; iterating
``tricktable.legal.lay_asides(legal)`` weighs card sets without building any), or ``None`` to
let a chance go by: some games offer a seat optional
moves while another seat must act (a Sixty-Six claim between tricks: the seat is in
``view.may_act`` but not in ``view.to_act``), and the bot may wait for the game to move on.
The SDK (:mod:`tricktable.bots.runner`) does everything else.
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
    """True when the game does not need this seat's move now: it may act but need not (in
    ``may_act``, not in ``to_act``). A server older than ``may_act`` lists optional movers in
    ``to_act``: then all it can do is optional (claim, exchange) and another seat is to act."""
    if view.viewer is None or not legal:
        return False
    if view.may_act:
        return view.viewer not in view.to_act
    if len(view.to_act) < 2:
        return False
    return all(kind(m) in OPTIONAL_KINDS for m in legal)
