"""The rules interface every game implements, and the registry of games.

A game is a ``Rules`` subclass, declared once as data (name, seats, options type, move kinds) and
registered on import; nothing else keeps a list of games. The public methods are the engine's
whole API and they are pure: ``apply`` never mutates the state it is given, reads no clock and no
global randomness (chance comes from the state's seeded :class:`Chance`).

Order of checks in ``apply`` (STYLE.md §7): game over → seat exists → move kind known to this
game → the game's own ``validate`` (phase and turn, then legality) → copy → ``_apply``. ``validate``
is the single gate: it raises ``IllegalMove`` with a reason for exactly the moves that
``legal_moves`` does not list (a property test holds every game to that), and ``_apply`` may
assume legality.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from engine.core.chance import Chance
from engine.core.errors import IllegalMove, InvalidMove, Reason, UnknownGame
from engine.core.events import Event, Viewer
from engine.core.memo import Memo
from engine.core.moves import Move
from engine.core.options import OptionSpec, build_options, options_to_data, specs_of
from engine.core.state import GameState, read_snapshot_header
from engine.core.view import View

S = TypeVar("S", bound=GameState)

#: Validated options by (game, given values with their types).
_OPTIONS: Memo[tuple[str, tuple[tuple[str, type, object], ...]], Any] = Memo(64)


@dataclass(frozen=True, slots=True)
class GameType:
    """What ``ListGameTypes`` publishes about a game."""

    name: str
    title: str
    seats: int
    summary: str
    options: tuple[OptionSpec, ...]
    move_kinds: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Outcome:
    totals: tuple[int, ...]
    winners: tuple[int, ...]  # several seats when they share the win

    @property
    def draw(self) -> bool:
        return len(self.winners) > 1


class Rules(ABC, Generic[S]):
    name: ClassVar[str]
    title: ClassVar[str]
    seats: ClassVar[int]
    summary: ClassVar[str]
    options_type: ClassVar[type]
    state_type: ClassVar[type[GameState]]
    #: the dataclass a view carries in ``View.detail`` (the game's own public state)
    detail_type: ClassVar[type]
    move_types: ClassVar[tuple[type[Move], ...]]

    # -- declaration -------------------------------------------------------------------------

    def game_type(self) -> GameType:
        return GameType(
            name=self.name,
            title=self.title,
            seats=self.seats,
            summary=self.summary,
            options=specs_of(self.options_type),
            move_kinds=tuple(t.kind for t in self.move_types),
        )

    def options(self, given: Mapping[str, object] | None = None) -> Any:
        """Validated options (an ``InvalidOptions`` error names any bad one).

        Remembered by game and given values: a simulation plays thousands of games with the same
        options, and a server restores games whose snapshots name the same few option sets;
        validating is a good part of a short game's cost. Options objects are frozen, so games
        may share one. Values are compared with their types (``True == 1``, but they need not be
        the same option value); an unhashable value is validated every time."""
        key = (self.name, tuple((k, type(v), v) for k, v in (given or {}).items()))
        try:
            return _OPTIONS[key]
        except KeyError:
            pass
        except TypeError:
            return self._validate_options(given)
        # Raises on bad options, which are never kept.
        return _OPTIONS.keep(key, self._validate_options(given))

    def _validate_options(self, given: Mapping[str, object] | None) -> Any:
        opts: Any = build_options(self.options_type, given or {}, self.name)
        self.check_options(opts)
        return opts

    def check_options(self, opts: Any) -> None:
        """Cross-option validation beyond single values; games override when needed."""

    # -- creating and restoring --------------------------------------------------------------

    def new_game(
        self,
        options: Mapping[str, object] | Any = None,
        seed: bytes = b"",
        overrides: Mapping[str, Sequence[int]] | None = None,
    ) -> S:
        """A new game, already dealt. ``overrides`` replays recorded chance (see Chance).

        ``options`` is a mapping of option names to values, or an options object this game
        already validated (``self.options(...)``), which saves validating it again per game.
        """
        if not seed:
            raise ValueError("a seed is required (the service draws one with secrets)")
        return self.start(options, Chance(seed, overrides))

    def start(self, options: Mapping[str, object] | Any | None, chance: Chance) -> S:
        """A new game drawing from ``chance`` (``new_game`` builds it from a seed; a record is
        re-played with strict recorded outcomes, see :mod:`engine.record`)."""
        opts = options if type(options) is self.options_type else self.options(options)
        return self._new(opts, chance)

    @abstractmethod
    def _new(self, opts: Any, chance: Chance) -> S: ...

    def snapshot(self, state: S) -> bytes:
        return state.snapshot(options_to_data(state.options))

    def restore(self, blob: bytes) -> S:
        _, _, options_data = read_snapshot_header(blob)
        restored: S = self.state_type.restore(blob, self.options(options_data))  # type: ignore[assignment]
        return restored

    def replay(
        self,
        options: Mapping[str, object] | None,
        seed: bytes,
        moves: Sequence[tuple[int, Move]],
        overrides: Mapping[str, Sequence[int]] | None = None,
    ) -> tuple[S, list[Event]]:
        """Rebuild a game from its seed and accepted moves (decision 1: state is a fold)."""
        state = self.new_game(options, seed, overrides)
        events = list(self.opening_events(state))
        for seat, move in moves:
            state, step = self.apply(state, seat, move)
            events.extend(step)
        return state, events

    # -- flow --------------------------------------------------------------------------------

    @abstractmethod
    def opening_events(self, state: S) -> list[Event]:
        """The events that a new game starts with (the first deal)."""

    @abstractmethod
    def to_act(self, state: S) -> tuple[int, ...]:
        """Seats that MUST move now, ascending; several while bid cards are laid aside.

        The game waits on these seats (DESIGN.md decision 11): their clocks run, and a turn
        waiter wakes for them. A seat offered only optional moves (a Sixty-Six claim or trump
        exchange while the other seat leads) is not listed here, only in ``may_act``."""

    def may_act(self, state: S) -> tuple[int, ...]:
        """Seats with any legal move now, ascending: ``to_act`` plus the seats that are offered
        only optional moves. The same as ``to_act`` in a game without optional moves."""
        return self.to_act(state)

    @abstractmethod
    def legal_moves(self, state: S, seat: int) -> Sequence[Move]:
        """Every legal move of ``seat`` now, in a deterministic order (empty if none).

        A sequence, not always a list: large choices (laying 3 of 16 cards aside) are lazy.
        """

    def apply(self, state: S, seat: int, move: Move) -> tuple[S, list[Event]]:
        """The new state after ``seat`` makes ``move``, and the events; ``state`` is untouched."""
        self._check(state, seat, move)
        new = state.clone()
        events: list[Event] = []
        self._apply(new, seat, move, events)
        return new, events

    def apply_in_place(self, state: S, seat: int, move: Move) -> list[Event]:
        """Like ``apply`` but mutates ``state``; for callers that own it (playouts, search).

        The same checks run first, so an illegal move still raises and changes nothing; only
        the copy is skipped, which is most of a move's cost in a random playout.
        """
        self._check(state, seat, move)
        events: list[Event] = []
        self._apply(state, seat, move, events)
        return events

    def _check(self, state: S, seat: int, move: Move) -> None:
        if state.finished:
            raise IllegalMove(Reason.GAME_OVER, "the game is over")
        if not (type(seat) is int and 0 <= seat < self.seats):
            raise InvalidMove(Reason.UNKNOWN_SEAT, f"{self.name} has seats 0..{self.seats - 1}")
        if type(move) not in self.move_types:
            raise IllegalMove(
                Reason.MOVE_NOT_ALLOWED, f"{self.name} has no move {type(move).__name__}"
            )
        self.validate(state, seat, move)

    @abstractmethod
    def validate(self, state: S, seat: int, move: Move) -> None:
        """Raise IllegalMove with a reason unless ``move`` is legal for ``seat`` now."""

    @abstractmethod
    def _apply(self, state: S, seat: int, move: Move, events: list[Event]) -> None:
        """Mutate ``state`` (a fresh copy) by a legal move, appending the events."""

    # -- projection and results --------------------------------------------------------------

    @abstractmethod
    def view(self, state: S, viewer: Viewer) -> View:
        """The state as ``viewer`` may see it (None: a spectator, public information only)."""

    def project(self, event: Event, viewer: Viewer) -> Event:
        """An event as ``viewer`` may see it."""
        projected: Event = event.visible_to(viewer)
        return projected

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """Final totals and winners once the game is over, else None."""


_REGISTRY: dict[str, Rules[Any]] = {}


def register(rules: Rules[Any]) -> Rules[Any]:
    if rules.name in _REGISTRY:
        raise ValueError(f"game {rules.name!r} registered twice")
    _REGISTRY[rules.name] = rules
    return rules


def get_rules(name: str) -> Rules[Any]:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownGame(name) from None


def game_names() -> tuple[str, ...]:
    return tuple(_REGISTRY)
