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

A view forgets (in Sixty-Six and Nominations only the last trick shows). A bot that wants what
its seat has seen besides the view also has a ``see`` method: the runner calls it with the
seat's :class:`History` (every event the seat has seen in this game, and the game's options)
just before each decision, so the bot can build its information set
(``engine.get_rules(game).information_set_from(view, events, options)``, with the engine extra).
A bot without ``see`` is called exactly as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from tricktable.v1 import events_pb2, game_types_pb2, moves_pb2, views_pb2

View = views_pb2.View
Move = moves_pb2.Move
Event = events_pb2.Event
#: An option's value as Python has it.
Option = bool | int | str

#: Move kinds a seat may make but need never make: when these are all a seat can do and
#: another seat is also to act, the game does not wait on it.
OPTIONAL_KINDS = frozenset({"claim", "exchange_trump"})


class Bot(Protocol):
    def __call__(self, view: View, legal: Sequence[Move], /) -> Move | None: ...


@dataclass
class History:
    """What one seat has seen of one game, kept for its bot by the runner (or the bot service).

    ``events``: every event the seat has seen, in order, each as its own stream gives it
    (projected for the seat). ``new``: ``events[new:]`` arrived since the bot's last decision.
    ``version``: the game version of the last event batch taken (-1: none yet). ``complete``:
    the events begin at the game's beginning (False when a bot service was first asked in the
    middle of a game by a caller that sends only what is new). ``options``: every option of the
    game, by name."""

    options: dict[str, Option] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    new: int = 0
    version: int = -1
    complete: bool = True

    @property
    def since_last(self) -> Sequence[Event]:
        """The events that arrived since the bot's last decision."""
        return self.events[self.new :]

    def add(self, events: Iterable[Event], version: int | None = None) -> None:
        """Take the events of one batch (of game version ``version``: a batch at or before the
        last version taken is one seen already, and is ignored)."""
        if version is not None:
            if version <= self.version:
                return
            self.version = version
        self.events.extend(events)

    def decided(self) -> None:
        """The bot has been shown everything so far: what comes next is new."""
        self.new = len(self.events)

    def restart(self) -> None:
        """Forget everything: the events that come next begin at the game's beginning."""
        self.events.clear()
        self.new = 0
        self.version = -1
        self.complete = True


def options_of(options: Mapping[str, game_types_pb2.OptionValue]) -> dict[str, Option]:
    """Protocol option values (a ``map<string, OptionValue>``) as Python values."""
    out: dict[str, Option] = {}
    for name, value in options.items():
        case = value.WhichOneof("value")
        if case is not None:
            out[name] = getattr(value, case)
    return out


@runtime_checkable
class SeeingBot(Protocol):
    """A bot that is also shown its seat's :class:`History` before each decision."""

    def __call__(self, view: View, legal: Sequence[Move], /) -> Move | None: ...

    def see(self, history: History, /) -> None: ...


def sees(bot: object) -> bool:
    """Whether the runner should keep and show the seat's history for ``bot``."""
    return callable(getattr(bot, "see", None))


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
