"""The rules interface every game implements, and the registry of games.

A game is a ``Rules`` subclass, declared once as data (name, seats, options type, move kinds) and
registered on import; nothing else keeps a list of games. The public methods are the engine's
whole API and they are pure: ``apply`` never mutates the state it is given, reads no clock and no
global randomness (chance comes from the state's seeded :class:`Chance`).

A game fills in one shape (:mod:`engine.core.phases`): its phase table says, per phase, who must
act and which moves are offered, each with its candidates, the named rule that checks it and its
effect. From that table this class derives ``to_act``, ``legal_moves`` and ``validate``, and it
owns what every game repeats: starting a match, the end of a deal (the result, then the next deal
or the end of the match), the outcome and the assembly of a view. A game module then reads top
to bottom as the statement of its rules.

Order of checks in ``apply`` (STYLE.md §7): game over → seat exists → move kind known to this
game → the phase offers that kind → its rule (turn, then legality) → copy → the offer's effect.
The rule is the single gate: ``legal_moves`` lists exactly the candidates it accepts (a property
test holds every game to that), and an effect may assume legality.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from engine.core.cards import cards_of
from engine.core.chance import Chance
from engine.core.errors import IllegalMove, InvalidMove, Reason, UnknownGame
from engine.core.events import DealScored, DealStarted, Event, GameOver, Viewer
from engine.core.information import InformationSet
from engine.core.laying_aside import LayAsideChoices
from engine.core.memo import Memo
from engine.core.moves import Move
from engine.core.options import OptionSpec, build_options, specs_of
from engine.core.phases import OVER, Offer, Phase, PhaseTable
from engine.core.state import GameState, read_snapshot_header
from engine.core.view import SeatView, TrickView, View

S = TypeVar("S", bound=GameState)

#: Validated options by (game, given values with their types).
_OPTIONS: Memo[tuple[str, tuple[tuple[str, type, object], ...]], Any] = Memo(64)


@dataclass(frozen=True, slots=True)
class GameType:
    """What ``ListGameTypes`` publishes about a game: with its facts about cards and bids, so
    clients draw and decide from the engine's own copy instead of restating the rules."""

    name: str
    title: str
    seats: int
    summary: str
    options: tuple[OptionSpec, ...]
    move_kinds: tuple[str, ...]
    rank_order: tuple[int, ...]  # the pack's ranks within a suit, strongest first
    card_points: Mapping[int, int]  # by rank, for games that count card points (0s left out)
    bid_reading: BidCardReading | None  # for games that bid with cards laid aside


@dataclass(frozen=True, slots=True)
class BidCardReading:
    """A bid made by laying cards aside: the sum of the cards' suit values. With the game's
    ``high_readings`` option, a bid of at most ``high_reading_max`` may also be read as itself
    plus ``high_reading_add`` (0 and 0: no such reading)."""

    suit_values: Mapping[int, int]  # by suit (engine suits, 0..3)
    cards: int
    high_reading_max: int = 0
    high_reading_add: int = 0

    def raw(self, cards: Sequence[int]) -> int:
        return sum(self.suit_values[c >> 4] for c in cards)


def strongest_first(strength: Mapping[int, int]) -> tuple[int, ...]:
    """Ranks from a rank -> strength table, strongest first."""
    return tuple(sorted(strength, key=strength.__getitem__, reverse=True))


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
    #: the ranks of the game's pack within a suit, strongest first
    rank_order: ClassVar[tuple[int, ...]]
    #: card points by rank, for games that count them in tricks
    card_points: ClassVar[Mapping[int, int]] = {}
    #: how bid cards read as a bid, for games that bid by laying cards aside
    bid_reading: ClassVar[BidCardReading | None] = None

    def __init__(self) -> None:
        table = PhaseTable.of(self.phases())
        self._phases = table.phases
        self._legal = {name: _listing(offers) for name, offers in table.listing.items()}
        self._by_type = table.by_type
        self._to_act = {name: phase.to_act for name, phase in table.phases.items()}
        self._may_act = {name: p.may_act or p.to_act for name, p in table.phases.items()}
        self._movers = {name: p.movers or p.may_act or p.to_act for name, p in table.phases.items()}

    @abstractmethod
    def phases(self) -> Sequence[Phase[S]]:
        """The game's phase table (see :mod:`engine.core.phases`), read once."""

    # -- declaration -------------------------------------------------------------------------

    def game_type(self) -> GameType:
        return GameType(
            name=self.name,
            title=self.title,
            seats=self.seats,
            summary=self.summary,
            options=specs_of(self.options_type),
            move_kinds=tuple(t.kind for t in self.move_types),
            rank_order=self.rank_order,
            card_points={rank: p for rank, p in self.card_points.items() if p},
            bid_reading=self.bid_reading,
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

    def _new(self, opts: Any, chance: Chance) -> S:
        """The match bookkeeping every game shares, then the game's own start (``begin``)."""
        s: S = self.state_type.__new__(self.state_type)  # type: ignore[assignment]
        s.options = opts
        s.chance = chance
        s.deal_no = 0
        s.scores = [0] * self.seats
        s.finished = False
        s.winners = []
        s.last_result = None
        seat0 = opts.first_dealer == "seat0"
        self.begin(s, 0 if seat0 else chance.randint("first_dealer", 0, self.seats - 1))
        return s

    @abstractmethod
    def begin(self, s: S, first_dealer: int) -> None:
        """The game's own fields of a new match, and its first deal by ``first_dealer``."""

    def snapshot(self, state: S) -> bytes:
        return state.snapshot()

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

    def opening_events(self, state: S) -> list[Event]:
        """The events that a new game starts with (the first deal)."""
        return [self.deal_started(state)]

    def to_act(self, state: S) -> tuple[int, ...]:
        """Seats that MUST move now, ascending; several while bid cards are laid aside.

        The game waits on these seats (DESIGN.md decision 11): their clocks run, and a turn
        waiter wakes for them. A seat offered only optional moves (a Sixty-Six claim or trump
        exchange while the other seat leads) is not listed here, only in ``may_act``."""
        return self._to_act[state.phase](state)

    def may_act(self, state: S) -> tuple[int, ...]:
        """The public list of seats that may act now, ascending: ``to_act`` plus the seats
        offered optional moves whose legality follows from public information (a Sixty-Six
        claim between tricks). Every viewer sees it, so it never depends on a hidden card: a
        seat offered an optional move only because of a card it holds (the trump nine's
        exchange) is not listed here, only in :meth:`movers` (Sixty-Six §16.9)."""
        return self._may_act[state.phase](state)

    def movers(self, state: S) -> tuple[int, ...]:
        """Every seat with a legal move now, ascending: ``may_act`` plus the seats offered an
        optional move that depends on their own hidden cards. Private: the service uses it to
        tell a seat of its own optional moves, never to tell anyone else anything."""
        return self._movers[state.phase](state)

    def legal_moves(self, state: S, seat: int) -> Sequence[Move]:
        """Every legal move of ``seat`` now, in a deterministic order (empty if none): the
        candidates of each offer of the phase that its rule accepts, offer by offer.

        A sequence, not always a list: large choices (laying 3 of 16 cards aside) are lazy.
        """
        self.check_seat(seat)
        if state.finished:
            return []
        return self._legal[state.phase](state, seat)

    def check_seat(self, seat: object) -> None:
        """Refuse a seat this game does not have (a bool, a negative index, a string): the
        one check of every call naming a seat (``apply``, ``legal_moves``, ``view``,
        ``information_set``), so none answers for another seat, or with an IndexError."""
        if not (type(seat) is int and 0 <= seat < self.seats):
            raise InvalidMove(Reason.UNKNOWN_SEAT, f"{self.name} has seats 0..{self.seats - 1}")

    def timeout_move(self, state: S, seat: int) -> Move | None:
        """The least harmful move for ``seat`` when its clock runs out, where the game's rules
        name one (Sixty-Six §16.9: ``decline`` at the close's exchange offer; pass where
        passing is legal; the lowest bid when one is due; see docs/proposed-rules-timeout.md).
        None leaves the choice to the service's policy: the heuristic reference bot on the
        seat's view, among its card plays alone when it may play a card."""
        return None

    def apply(self, state: S, seat: int, move: Move) -> tuple[S, list[Event]]:
        """The new state after ``seat`` makes ``move``, and the events; ``state`` is untouched."""
        offer = self._check(state, seat, move)
        new = state.clone()
        events: list[Event] = []
        offer.effect(new, seat, move, events)
        return new, events

    def apply_in_place(self, state: S, seat: int, move: Move) -> list[Event]:
        """Like ``apply`` but mutates ``state``; for callers that own it (playouts, search).

        The same checks run first, so an illegal move still raises and changes nothing; only
        the copy is skipped, which is most of a move's cost in a random playout.
        """
        offer = self._check(state, seat, move)
        events: list[Event] = []
        offer.effect(state, seat, move, events)
        return events

    def _check(self, state: S, seat: int, move: Move) -> Offer[S]:
        """The checks of every move, in order; the offer that plays the move."""
        if state.finished:
            raise IllegalMove(Reason.GAME_OVER, "the game is over")
        self.check_seat(seat)
        kind = type(move)
        offer = self._by_type[state.phase].get(kind)
        if offer is None:
            if kind not in self.move_types:
                raise IllegalMove(
                    Reason.MOVE_NOT_ALLOWED, f"{self.name} has no move {kind.__name__}"
                )
            refusal = self._phases[state.phase].refusals.get(kind)
            if refusal is None:
                refusal = (Reason.WRONG_PHASE, f"no {kind.kind} now ({state.phase})")
            raise IllegalMove(*refusal)
        offer.check(state, seat, move)
        return offer

    def validate(self, state: S, seat: int, move: Move) -> None:
        """Raise IllegalMove with a reason unless ``move`` is legal for ``seat`` now."""
        self._check(state, seat, move)

    # -- the end of a deal -------------------------------------------------------------------

    def deal_started(self, s: S) -> DealStarted:
        """The event of a new deal: each seat's cards (each seat sees only its own)."""
        hands = tuple(map(tuple, map(cards_of, s.hands)))
        return DealStarted(
            deal_no=s.deal_no,
            dealer=s.dealer,
            hand_sizes=tuple(map(len, hands)),
            hands=hands,
            turn_up=self.dealt_turn_up(s),
            trump=self.dealt_trump(s),
        )

    def dealt_turn_up(self, s: S) -> int | None:
        """The card turned up by the deal, which everyone sees (None: no turn-up)."""
        return None

    def dealt_trump(self, s: S) -> int | None:
        """Trumps as known when the deal starts (None: no trump, or not yet known)."""
        return None

    def close_deal(self, s: S, scored: DealScored, events: list[Event]) -> None:
        """A deal's result is in: record it, then deal again or end the match."""
        events.append(scored)
        s.last_result = scored
        winners = self.match_winners(s)
        if winners is None:
            self.next_deal(s, events)
            return
        s.winners = list(winners)
        s.scores = self.final_totals(s, winners)
        s.finished = True
        s.phase = OVER
        events.append(GameOver(totals=tuple(s.scores), winners=winners))

    @abstractmethod
    def match_winners(self, s: S) -> tuple[int, ...] | None:
        """The winners once the match is over (after a deal's result), else None."""

    def final_totals(self, s: S, winners: tuple[int, ...]) -> list[int]:
        """The match's final totals (a game may add an end bonus)."""
        return list(s.scores)

    @abstractmethod
    def next_deal(self, s: S, events: list[Event]) -> None:
        """Deal the next deal of a match that goes on, appending its events."""

    # -- projection and results --------------------------------------------------------------

    def view(self, state: S, viewer: Viewer) -> View:
        """The state as ``viewer`` may see it (None: a spectator, public information only)."""
        if viewer is not None:
            self.check_seat(viewer)
        s = state
        return View(
            game=self.name,
            viewer=viewer,
            phase=str(s.phase),
            deal_no=s.deal_no,
            dealer=s.dealer,
            to_act=self.to_act(s),
            may_act=self.may_act(s),
            seats=tuple(self.seat_view(s, seat, viewer) for seat in range(self.seats)),
            trick=self.trick_shown(s),
            tricks=self.tricks_shown(s),
            trump=self.trump_shown(s),
            legal_moves=_shown(self.legal_moves(s, viewer)) if viewer is not None else (),
            detail=self.detail(s, viewer),
            finished=s.finished,
            winners=tuple(s.winners),
            turn_up=self.turn_up_shown(s),
        )

    @abstractmethod
    def seat_view(self, s: S, seat: int, viewer: Viewer) -> SeatView:
        """What ``viewer`` may see of ``seat``: its hand only if its own or exposed."""

    @abstractmethod
    def trick_shown(self, s: S) -> TrickView | None:
        """The trick on the table, while one is being played."""

    @abstractmethod
    def tricks_shown(self, s: S) -> tuple[TrickView, ...]:
        """The completed tricks of this deal that everyone may still look at."""

    def trump_shown(self, s: S) -> int | None:
        return None

    def turn_up_shown(self, s: S) -> int | None:
        return None

    @abstractmethod
    def detail(self, s: S, viewer: Viewer) -> Any:
        """The game's own public state, as ``viewer`` sees it (``View.detail``)."""

    def project(self, event: Event, viewer: Viewer) -> Event:
        """An event as ``viewer`` may see it."""
        projected: Event = event.visible_to(viewer)
        return projected

    # -- information sets (engine.core.information) ------------------------------------------

    def information_set(self, state: S, seat: int) -> InformationSet:
        """What ``seat`` knows of the game now, and nothing it may not know."""
        self.check_seat(seat)
        return self.seat_information(state, seat)

    @abstractmethod
    def seat_information(self, state: S, seat: int) -> InformationSet:
        """The game's own ``information_set``, for a seat it has."""

    @abstractmethod
    def information_set_from(
        self, view: View, events: Sequence[Event], options: Mapping[str, object] | Any = None
    ) -> InformationSet:
        """The information set of ``view``'s seat, built from what a client receives: its view
        now, its projected events since the deal began (``project(event, seat)`` of each, from
        the deal's ``DealStarted`` on; earlier events are ignored, except that a deal dealt from
        the last deal's cards without a shuffle, a Nominations double hand or gathered pack,
        needs the last deal's too) and the game's options (a view does not carry them: a
        mapping, or an options object of this game). Equal to ``information_set(state, seat)``
        of the state the view was made from."""

    @abstractmethod
    def sample_state(self, info: InformationSet, rng: random.Random) -> S:
        """A complete state consistent with ``info``, every consistent deal equally likely
        (see :func:`engine.core.information.deal_hidden`). Its chance is freshly seeded from
        ``rng``, so the deals after this one are new ones."""

    def outcome(self, state: S) -> Outcome | None:
        """Final totals and winners once the game is over, else None."""
        if not state.finished:
            return None
        return Outcome(totals=tuple(state.scores), winners=tuple(state.winners))


def _shown(moves: Sequence[Move]) -> Sequence[Move]:
    """A view's legal moves, frozen: a tuple, except a lay-aside's lazy choices, kept as they
    are so that the service can send them as one choice (its hand's cards and the count) to a
    client that asks, instead of building and sending hundreds of moves."""
    return moves if isinstance(moves, LayAsideChoices) else tuple(moves)


def _listing(offers: Sequence[Offer[S]]) -> Callable[[S, int], Sequence[Move]]:
    """The legal moves of a phase: each offer's, in the table's order. Built once per phase
    as one function that concatenates its offers' lists (``legal_moves`` runs for every seat
    on every move, so no loop over the offers is interpreted per call)."""
    listers = [o.legal for o in offers]
    if not listers:
        return lambda s, seat: []
    if len(listers) == 1:
        return listers[0]
    if len(listers) > 5:

        def any_number(s: S, seat: int) -> Sequence[Move]:
            moves: list[Move] = []
            for legal in listers:
                moves += legal(s, seat)
            return moves

        return any_number
    if len(listers) == 2:
        a, b = listers
        return lambda s, seat: [*a(s, seat), *b(s, seat)]
    if len(listers) == 3:
        a, b, c = listers
        return lambda s, seat: [*a(s, seat), *b(s, seat), *c(s, seat)]
    if len(listers) == 4:
        a, b, c, d = listers
        return lambda s, seat: [*a(s, seat), *b(s, seat), *c(s, seat), *d(s, seat)]
    a, b, c, d, e = listers
    return lambda s, seat: [*a(s, seat), *b(s, seat), *c(s, seat), *d(s, seat), *e(s, seat)]


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
