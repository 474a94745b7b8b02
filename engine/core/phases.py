"""The one shape every game fills in: its phases, and per phase the moves it offers.

A game declares a table (``Rules.phases``): for each phase, who must act, and the kinds of move
the phase offers, each with the candidate moves, the *named rule* that checks one, and the
effect that plays it. The core derives from that one table both ``legal_moves`` (the candidates
the rule accepts) and ``validate`` (the rule, on the move sent), so a rule is written once and
every path (a view's legal moves, a submitted move, a random playout) goes through it.

Three kinds of offer cover the four games:

- :class:`Plays`: card plays, whose rule is a mask of the cards the seat may play now; a card
  outside it is refused with the reason the game's ``refusal`` names (follow suit, trump, …).
  :class:`Masked` is the same for any move named by a small number (a marriage by its suit).
- :class:`Choice`: a small set of candidate moves (a claim, the calls, the bids of a ladder,
  a seat to name), each judged by one rule returning a :data:`Problem` or None.
- :class:`engine.core.laying_aside.LayAsides`: every k-card subset of a hand, laid aside at once.

An offer may be ``optional``: a move a seat may make without being required to (a Sixty-Six
claim between tricks). Such moves are in ``legal_moves`` and are checked like any other; the
flag says which seats' moves are required, for a ``to_act`` that waits only for those.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from engine.core.errors import IllegalMove, Reason
from engine.core.events import Event
from engine.core.moves import Move, PlayCard, plays_of

S = TypeVar("S")
M = TypeVar("M")

#: Why a move is refused: the machine-readable reason and a message for the seat.
Problem = tuple[Reason, str]
#: Plays a checked move on the state, appending its events.
Effect = Callable[[S, int, Any, list[Event]], None]

#: The phase of a finished game: no moves, nobody to act.
OVER = "over"


class Offer(ABC, Generic[S]):
    """One kind of move a phase offers: how to list the legal ones, how to check one."""

    move_type: type
    effect: Effect[S]
    optional: bool
    #: ``legal(s, seat)``: the legal moves of this kind for ``seat`` now, in a deterministic
    #: order. A function made once per offer from its rule (it runs for every seat on every
    #: move, so it is specialised to the offer's shape rather than branching on it each time).
    legal: Callable[[S, int], Sequence[Move]]

    @abstractmethod
    def check(self, s: S, seat: int, move: Any) -> None:
        """Raise IllegalMove with a reason unless ``move`` (of this kind) is legal now."""


class Masked(Offer[S]):
    """Moves named by a small number (a card, a suit), whose rule is a bit mask: bit ``i`` is
    set when the move named ``i`` is legal now. ``moves[i]`` is that move and ``number(move)``
    reads it back (anything else is refused); ``refusal(s, seat, number)`` names why a move
    outside the mask is refused, and is asked only about such a move."""

    __slots__ = ("allowed", "effect", "legal", "move_type", "number", "optional", "refusal")

    def __init__(
        self,
        move_type: type,
        moves: Sequence[Move],
        number: Callable[[Any], object],
        allowed: Callable[[S, int], int],
        refusal: Callable[[S, int, object], Problem],
        *,
        effect: Effect[S],
    ) -> None:
        self.move_type = move_type
        self.number = number
        self.allowed = allowed
        self.refusal = refusal
        self.effect = effect
        self.optional = False
        size = len(moves)

        def legal(s: S, seat: int) -> Sequence[Move]:
            mask = allowed(s, seat)
            return [moves[i] for i in range(size) if mask >> i & 1] if mask else ()

        self.legal = legal

    def check(self, s: S, seat: int, move: Any) -> None:
        n = self.number(move)
        if type(n) is int and n >= 0 and self.allowed(s, seat) >> n & 1:
            return
        raise IllegalMove(*self.refusal(s, seat, n))


class Plays(Masked[S]):
    """Card plays: a Masked offer over card ids. ``playable(s, seat)`` is the rule, the mask
    of the cards ``seat`` may play now (0 when it is not its card to play)."""

    __slots__ = ()

    def __init__(
        self,
        playable: Callable[[S, int], int],
        refusal: Callable[[S, int, object], Problem],
        effect: Effect[S],
    ) -> None:
        super().__init__(PlayCard, (), _card_of, playable, refusal, effect=effect)
        self.legal = plays_of(playable)

    def check(self, s: S, seat: int, move: Any) -> None:
        # Masked.check with the card read directly: a card play is most moves of a game.
        card = move.card
        if type(card) is int and 0 <= card < 65 and self.allowed(s, seat) >> card & 1:
            return
        raise IllegalMove(*self.refusal(s, seat, card))


def _card_of(move: PlayCard) -> object:
    return move.card


class Choice(Offer[S], Generic[S, M]):
    """A set of candidate moves of one kind, each judged by one rule.

    ``candidates`` are the moves that could ever be offered (or a function of the state giving
    them); ``rule(s, seat, move)`` returns the problem with a move, or None when it is legal.
    ``gate(s, seat)``, when given, is the part of the rule that does not depend on the move
    (whose turn, which phase): it is asked once, before the candidates are judged.

    ``by_form``: the rule looks at the move alone (is it well formed: a suit, a card, a depth),
    never at the state or seat, which it is given as None; its verdict on each of the (fixed)
    candidates is then reached once, not on every listing (a declarer has 260 declarations).
    """

    __slots__ = ("candidates", "effect", "gate", "legal", "move_type", "optional", "rule")

    def __init__(
        self,
        move_type: type[M],
        candidates: Sequence[M] | Callable[[S], Sequence[M]],
        rule: Callable[[S, int, M], Problem | None],
        effect: Effect[S],
        *,
        gate: Callable[[S, int], Problem | None] | None = None,
        optional: bool = False,
        by_form: bool = False,
    ) -> None:
        self.move_type = move_type
        self.candidates = candidates
        self.rule = rule
        self.gate = gate
        self.effect = effect
        self.optional = optional
        self.legal = _lister(candidates, rule, gate, by_form)

    def check(self, s: S, seat: int, move: Any) -> None:
        gate = self.gate
        problem = gate(s, seat) if gate is not None else None
        if problem is None:
            problem = self.rule(s, seat, move)
        if problem is not None:
            raise IllegalMove(*problem)


def _lister(
    candidates: Any,
    rule: Callable[[S, int, Any], Problem | None],
    gate: Callable[[S, int], Problem | None] | None,
    by_form: bool,
) -> Callable[[S, int], Sequence[Move]]:
    """The ``legal`` function of a Choice: its candidates that the gate and the rule accept."""
    if by_form:
        if callable(candidates):
            raise ValueError("a rule of form alone judges fixed candidates")
        accepted = tuple(m for m in candidates if rule(None, None, m) is None)  # type: ignore[arg-type]

        def of_form(s: S, seat: int) -> Sequence[Move]:
            return accepted if gate is None or gate(s, seat) is None else ()

        return of_form
    if not callable(candidates) and len(candidates) == 1:
        one = tuple(candidates)  # a claim, a close, a pass: listed as this tuple when accepted
        move = one[0]
        if gate is None:

            def single(s: S, seat: int) -> Sequence[Move]:
                return one if rule(s, seat, move) is None else ()

            return single

        def gated_single(s: S, seat: int) -> Sequence[Move]:
            if gate(s, seat) is not None:
                return ()
            return one if rule(s, seat, move) is None else ()

        return gated_single
    # The candidates' two forms, told apart once here rather than on every listing.
    if callable(candidates):
        of_state = candidates

        def judged_of_state(s: S, seat: int) -> Sequence[Move]:
            if gate is not None and gate(s, seat) is not None:
                return ()
            return [m for m in of_state(s) if rule(s, seat, m) is None]

        return judged_of_state

    def judged(s: S, seat: int) -> Sequence[Move]:
        if gate is not None and gate(s, seat) is not None:
            return ()
        return [m for m in candidates if rule(s, seat, m) is None]

    return judged


@dataclass(frozen=True)
class Phase(Generic[S]):
    """A phase of a deal: who must act, what may be played, and how other moves are refused.

    ``to_act(s)`` gives the seats the rules wait for, ascending. ``may_act(s)``, when the phase
    also offers optional moves to other seats, is the *public* list of seats that may act: to_act
    and the seats offered an optional move whose legality follows from public information (None:
    the same as ``to_act``). ``movers(s)`` is every seat with a legal move, including those
    offered an optional move that depends on a card only that seat sees (a Sixty-Six trump-nine
    exchange); None: the same as ``may_act``. Both lists are seen by everyone, so neither
    ``to_act`` nor ``may_act`` may depend on a hidden card (Sixty-Six §16.9); ``movers`` never
    leaves the service except as each seat's own legal moves. ``offers`` are in the order their
    moves are listed. A move of the game that this phase does not offer is refused with
    ``refusals[its type]`` if given, else as WRONG_PHASE.
    """

    name: str
    to_act: Callable[[S], tuple[int, ...]]
    offers: tuple[Offer[S], ...] = ()
    refusals: Mapping[type, Problem] = field(default_factory=dict)
    may_act: Callable[[S], tuple[int, ...]] | None = None
    movers: Callable[[S], tuple[int, ...]] | None = None


def nobody(s: object) -> tuple[int, ...]:
    """``to_act`` of a phase where the rules wait for no one (the game is over)."""
    return ()


def whose_turn(s: Any) -> tuple[int, ...]:
    """``to_act`` of a phase where one seat acts at a time: the state's ``turn``."""
    return (s.turn,)


@dataclass(frozen=True, slots=True)
class PhaseTable(Generic[S]):
    """A game's phases indexed for the hot paths: by phase name, the offers in listing order
    and the offer of each move type."""

    phases: Mapping[str, Phase[S]]
    listing: Mapping[str, tuple[Offer[S], ...]]
    by_type: Mapping[str, Mapping[type, Offer[S]]]

    @classmethod
    def of(cls, phases: Sequence[Phase[S]]) -> PhaseTable[S]:
        table = {p.name: p for p in phases}
        if len(table) != len(phases):
            raise ValueError("a phase is declared twice")
        table.setdefault(OVER, Phase(OVER, nobody))
        by_type: dict[str, dict[type, Offer[S]]] = {}
        for name, phase in table.items():
            kinds = by_type[name] = {}
            for offer in phase.offers:
                if offer.move_type in kinds:
                    raise ValueError(f"phase {name} offers {offer.move_type.__name__} twice")
                kinds[offer.move_type] = offer
        return cls(
            phases=table,
            listing={name: phase.offers for name, phase in table.items()},
            by_type=by_type,
        )
