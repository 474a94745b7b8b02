"""The expert bot: each decision searched over worlds sampled from what its seat has seen.

Before each decision the runner shows it the seat's history (it is a
:class:`~tricktable.bots.base.SeeingBot`); from that history, the view and the game's options it
builds the seat's information set with the engine (``information_set_from``), samples complete
states consistent with it (``sample_state``), and values each candidate move in each sampled world
(:class:`~tricktable.bots.expert.search.Search`: a playout, then an exact endgame), until its time
budget is spent. Decisions searched this way: card play, bids laid aside, premium calls,
closing the stock, marriages, the trump exchange and claims, Nominations' auction and contract,
and letting an optional chance pass. In Ninety-Nine and Nominations the worlds' seats play the
rest of the deal as sensible players of a bid game do (:mod:`~tricktable.bots.expert.policies`),
and the others' hidden bid cards are drawn as such players lay them aside. Where the moves are
hundreds (a lay-aside, a contract) the candidates are the heuristic bot's choice and the game's
short list (one lay-aside per choice of three suits; each trump with its natural called card),
else lay-asides one card away from the heuristic's. The heuristic bot's move is the prior: the
search's best move is played only when it beats it by enough standard errors (:func:`choose`).

Without a history (a caller that sends no events) the information set is built from the view
alone, which holds the whole deal's play in Counterpoint and Ninety-Nine; where it cannot be built
the bot plays the heuristic bot's move.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from engine import get_rules
from engine.core.events import Event
from engine.core.moves import LayAside
from engine.core.moves import Move as EngineMove
from tricktable.bots.base import Bot, History, Move, Option, View, kind, may_wait
from tricktable.bots.expert import wire
from tricktable.bots.expert.policies import CANDIDATES, WORLD_MODELS
from tricktable.bots.expert.search import Search

#: The default time budget per decision, in milliseconds.
DEFAULT_MS = 200
#: At most this many candidates are searched (a lay-aside's hundreds are narrowed to these).
MAX_CANDIDATES = 16
#: Decisions left to the heuristic bot, by game: move kinds whose value the playouts misjudge.
#: None now: Nominations' auction was, while the playouts were random (a contract valued over
#: random defenders looks easy: searched so, the expert won 16.7% of 48 seat-games against the
#: heuristic); over the game's policy it is searched.
HEURISTIC_KINDS: dict[str, frozenset[str]] = {}
#: How many standard errors the search's best move must gain over the heuristic's to be played:
#: random playouts are noisy and biased, and the best of many noisy means is biased up.
OVERRULE_ERRORS = 2.0
#: Where the playouts follow the game's policy, they predict the deal well enough to need less.
#: Measured at 50 ms with 0.5 (``tricktable bench strength --games 48 --ms 50``, duplicate
#: against the heuristic): Ninety-Nine 0.528 of 72 seat-games [0.414, 0.639], Nominations 0.417
#: of 96 [0.323, 0.517] (par 0.333 and 0.25; with 2.0 and random playouts 0.361 and 0.292).
OVERRULE_ERRORS_OF_GAME: dict[str, float] = {"ninety-nine": 0.5, "nominations": 0.5}
#: Of a running clock's time left, the share one decision may take.
CLOCK_SHARE = 0.1


class ExpertBot:
    """The expert for one seat of one game. ``ms``: the time budget per decision; ``seed``: its
    own random numbers (the worlds it samples, the playouts' choices); ``clock``: how it reads
    the time (monotonic seconds); ``fallback``: the bot whose move it plays when it cannot build
    an information set, and whose move is the prior; ``overrule``: the standard errors by which
    the search must beat the prior (default: the game's, :data:`OVERRULE_ERRORS_OF_GAME`)."""

    def __init__(
        self,
        game: str,
        *,
        ms: float = DEFAULT_MS,
        seed: int | str | None = None,
        clock: Callable[[], float] = time.monotonic,
        fallback: Bot | None = None,
        overrule: float | None = None,
    ) -> None:
        if ms <= 0:
            raise ValueError(f"the expert's time budget must be positive, not {ms} ms")
        self.game = game
        self.rules = get_rules(game)
        self.budget_s = ms / 1000
        self.rng = random.Random(seed)
        self.clock = clock
        if fallback is None:
            from tricktable.bots import HEURISTIC  # noqa: PLC0415 (the package imports this)

            fallback = HEURISTIC[game]()
        self.fallback = fallback
        self.heuristic_kinds = HEURISTIC_KINDS.get(game, frozenset())
        self.overrule = (
            OVERRULE_ERRORS_OF_GAME.get(game, OVERRULE_ERRORS) if overrule is None else overrule
        )
        self.world_model = WORLD_MODELS.get(game)
        self.candidates_of = CANDIDATES.get(game)
        self._history: History | None = None
        self._events: list[Event] = []  # the history's events, read as the engine's
        self._read = 0  # history events read into _events
        #: Per decision searched: the seconds it took and the worlds it sampled (for measuring).
        self.times: list[float] = []
        self.worlds: list[int] = []

    def see(self, history: History) -> None:
        if history is not self._history or len(history.events) < self._read:
            self._events, self._read = [], 0
        self._history = history
        self._events.extend(wire.events(history.events[self._read :]))
        self._read = len(history.events)

    def options(self) -> dict[str, Option]:
        return dict(self._history.options) if self._history is not None else {}

    def budget(self, view: View) -> float:
        """The seconds this decision may take: the budget, or less when the seat's running
        clock has less than ten budgets left."""
        for clock in view.clocks:
            if clock.seat == view.viewer and clock.running:
                left = (clock.move_ms_left + clock.bank_ms_left) / 1000
                return min(self.budget_s, left * CLOCK_SHARE)
        return self.budget_s

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        if not legal:
            return None
        optional = may_wait(view, legal)
        if len(legal) == 1 and not optional:
            return legal[0]
        if any(kind(m) in self.heuristic_kinds for m in legal[:1]) and not optional:
            return self.fallback(view, legal)
        started = self.clock()
        deadline = started + self.budget(view)
        info = self.information_set(view)
        if info is None:
            return self.fallback(view, legal)
        engine_view = wire.view(view)
        prior = self.fallback(view, legal)
        candidates = self._candidates(view, engine_view, legal, prior, info)
        moves: list[EngineMove | None] = [None] if optional else []
        moves += [m for m, _ in candidates]
        protos: list[Move | None] = [None] if optional else []
        protos += [p for _, p in candidates]
        search = Search(self.rules, int(view.viewer), self.rng)
        rows: list[list[float]] = []  # per world, each move's value
        worlds = 0
        while worlds == 0 or self.clock() < deadline:
            world = self.sample(info, int(view.viewer))
            seed = self.rng.getrandbits(64)
            values = []
            for move in moves:
                if worlds and self.clock() >= deadline:
                    break  # out of time inside a world: it is left out (each move, each world)
                values.append(search.evaluate(world, move, seed))
            if len(values) < len(moves):
                break
            rows.append(values)
            worlds += 1
        best = choose(rows, protos.index(prior) if prior in protos else None, self.overrule)
        self.times.append(self.clock() - started)
        self.worlds.append(worlds)
        return protos[best]

    def sample(self, info: Any, seat: int) -> Any:
        """A world consistent with ``info``, its hidden parts as the game's model of the other
        seats has them (:data:`~tricktable.bots.expert.policies.WORLD_MODELS`)."""
        world = self.rules.sample_state(info, self.rng)
        if self.world_model is not None:
            self.world_model(world, seat)
        return world

    def information_set(self, view: View) -> Any:
        """The seat's information set at ``view``, from the history it was shown (None when
        it cannot be built: no history where the view forgets)."""
        options = self.options()
        history = self._history
        events = self._events if history is not None and history.complete else []
        try:
            return self.rules.information_set_from(wire.view(view), events, options)
        except (ValueError, KeyError, IndexError, TypeError):
            # No history where the view forgets (a caller that sends no events): the
            # heuristic bot decides instead.
            return None

    def _candidates(
        self,
        view: View,
        engine_view: Any,
        legal: Sequence[Move],
        prior: Move | None,
        info: Any,
    ) -> list[tuple[EngineMove, Move]]:
        """The moves searched, each as the engine's and as the wire's: all of them when they
        are few; else the prior's and the game's short list
        (:data:`~tricktable.bots.expert.policies.CANDIDATES`), or lay-asides near the prior's,
        or a random few."""
        if len(legal) <= MAX_CANDIDATES:
            return [(wire.move(m), m) for m in legal]
        picked = legal[0] if prior is None else prior
        first = wire.move(picked)
        chosen: list[EngineMove] = [first]
        listed = None
        if self.candidates_of is not None:
            world = self.rules.sample_state(info, self.rng)  # own cards are those of any world
            listed = self.candidates_of(world, int(view.viewer), first)
        if listed:
            chosen += [m for m in listed if m != first][: MAX_CANDIDATES - 1]
        elif isinstance(first, LayAside):
            chosen += self._neighbours(first, engine_view)
        else:
            chosen += [wire.move(legal[i]) for i in self.rng.sample(range(len(legal)), 8)]
        wanted = set(chosen)
        out = [(first, picked)]
        seen = {first}
        for m in legal:  # the wire's move of each chosen one, in the legal order
            if len(seen) == len(wanted):
                break
            engine_move = wire.move(m)
            if engine_move in wanted and engine_move not in seen:
                seen.add(engine_move)
                out.append((engine_move, m))
        return out

    def _neighbours(self, laid: LayAside, engine_view: Any) -> list[EngineMove]:
        """Lay-asides one card away from ``laid`` (a random few of them)."""
        legal = set(engine_view.legal_moves) if len(engine_view.legal_moves) < 1000 else set()
        hand = engine_view.seats[engine_view.viewer].hand or ()
        kept = [c for c in hand if c not in laid.cards]
        swaps = [
            LayAside.of((*rest, new))
            for rest in combinations(laid.cards, len(laid.cards) - 1)
            for new in kept
        ]
        swaps = [m for m in swaps if not legal or m in legal]
        self.rng.shuffle(swaps)
        return list(swaps[: MAX_CANDIDATES - 1])


def choose(
    rows: Sequence[Sequence[float]], prior: int | None, errors: float = OVERRULE_ERRORS
) -> int:
    """The move to play, from each world's values of the moves: the best on average, unless
    the prior's move (the heuristic bot's) is not clearly worse. Few worlds fit in a budget and
    a world's values are noisy, and the best of many noisy means is biased up; so the search
    overrules the heuristic only when the best move's mean gain over it, world by world,
    exceeds ``errors`` standard errors (0: whenever it is better on average)."""
    count = len(rows)
    means = [sum(column) / count for column in zip(*rows, strict=True)]
    best = max(range(len(means)), key=means.__getitem__)
    if prior is None or best == prior:
        return best
    gains = [row[best] - row[prior] for row in rows]
    if count < 2:
        return prior
    mean = sum(gains) / count
    spread = (sum((g - mean) ** 2 for g in gains) / (count - 1)) ** 0.5
    return best if mean > errors * spread / count**0.5 else prior
