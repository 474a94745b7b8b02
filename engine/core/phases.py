"""The one shape every game fills in: its phases, and per phase the moves it offers.

A game declares a table (``Rules.phases``): for each phase, who must act, and the kinds of move
the phase offers, each with the candidate moves, the *named rule* that checks one, and the
effect that plays it. The core derives from that one table both ``legal_moves`` (the candidates
the rule accepts) and ``validate`` (the rule, on the move sent), so a rule is written once and
every path (a view's legal moves, a submitted move, a random playout) goes through it.

Three kinds of offer cover the four games:

- :class:`Plays`: card plays, whose rule is a mask of the cards the seat may play now; a card
  outside it is refused with the reason the game's ``refusal`` names (follow suit, trump, …).
- :class:`Choice`: a small set of candidate moves (a claim, the calls, the bids of a ladder,
  a seat to name), each judged by one rule returning a :data:`Problem` or None.
- :class:`engine.core.laying_aside.LayAsides`: every k-card subset of a hand, laid aside at once.

An offer may be ``optional``: a move a seat may make without being required to (a Sixty-Six
claim between tricks). Such moves are in ``legal_moves`` and are checked like any other; a
seat whose only moves are optional need not be waited for.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from engine.core.errors import IllegalMove, Reason
from engine.core.events import Event
from engine.core.moves import Move, PlayCard, play_moves

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
    #: For an offer of one fixed move judged by its rule alone (a claim, a close): the rule
    #: and the move, which ``Rules.legal_moves`` asks directly (it runs for every seat on
    #: every move); else None.
    single: tuple[Callable[[S, int, Any], Problem | None], Any] | None = None

    @abstractmethod
    def check(self, s: S, seat: int, move: Any) -> None:
        """Raise IllegalMove with a reason unless ``move`` (of this kind) is legal now."""


class Plays(Offer[S]):
    """Card plays. ``playable(s, seat)`` is the rule: the mask of cards ``seat`` may play now
    (0 when it is not its card to play). ``refusal(s, seat, card)`` names why a card outside
    that mask is refused; it is asked only about such a card."""

    __slots__ = ("effect", "legal", "optional", "playable", "refusal")
    move_type = PlayCard

    def __init__(
        self,
        playable: Callable[[S, int], int],
        refusal: Callable[[S, int, object], Problem],
        effect: Effect[S],
    ) -> None:
        self.playable = playable
        self.refusal = refusal
        self.effect = effect
        self.optional = False

        def legal(s: S, seat: int) -> Sequence[Move]:
            return play_moves(playable(s, seat))

        self.legal = legal

    def check(self, s: S, seat: int, move: Any) -> None:
        card = move.card
        if type(card) is int and 0 <= card < 65 and self.playable(s, seat) >> card & 1:
            return
        raise IllegalMove(*self.refusal(s, seat, card))


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

    __slots__ = ("candidates", "effect", "gate", "legal", "move_type", "optional", "rule", "single")

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
        self.single = None
        if not callable(candidates) and len(candidates) == 1 and gate is None and not by_form:
            self.single = (rule, candidates[0])

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
    if not callable(candidates) and len(candidates) == 1 and gate is None:
        one = tuple(candidates)  # a claim, a close: listed as this tuple when accepted

        def single(s: S, seat: int) -> Sequence[Move]:
            return one if rule(s, seat, one[0]) is None else ()

        return single

    def judged(s: S, seat: int) -> Sequence[Move]:
        if gate is not None and gate(s, seat) is not None:
            return ()
        moves = candidates(s) if callable(candidates) else candidates
        return [m for m in moves if rule(s, seat, m) is None]

    return judged


@dataclass(frozen=True)
class Phase(Generic[S]):
    """A phase of a deal: who must act, what may be played, and how other moves are refused.

    ``to_act(s)`` gives the seats the rules wait for, ascending; ``may_act(s)``, when the phase
    also offers optional moves to other seats, every seat with a legal move (None: the same as
    ``to_act``). ``offers`` are in the order their moves are listed. A move of the game that this
    phase does not offer is refused with ``refusals[its type]`` if given, else as WRONG_PHASE.
    """

    name: str
    to_act: Callable[[S], tuple[int, ...]]
    offers: tuple[Offer[S], ...] = ()
    refusals: Mapping[type, Problem] = field(default_factory=dict)
    may_act: Callable[[S], tuple[int, ...]] | None = None


def nobody(s: object) -> tuple[int, ...]:
    """``to_act`` of a phase where the rules wait for no one (the game is over)."""
    return ()


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
