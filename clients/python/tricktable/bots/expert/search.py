"""The expert's search: a move's value for one seat, averaged over worlds sampled from the
seat's information set (determinization, as the strong bridge and Skat programs do).

In each world the rest of the deal is played out: by a fast playout policy while many cards
remain, then solved exactly by alpha-beta once few do (a perfect-information search: in a
sampled world every card, the stock's order included, is known). Values are what the deal scores:
the seat's gain less the other seats' mean gain, so a two-seat game is zero-sum and a larger
table is searched paranoid (every other seat plays against the seat). The search goes through
the engine's public API only (``to_act``, ``legal_moves``, ``apply_in_place``, ``clone``), so it
plays every game by its own rules; the transposition table keys a state by its fields.

In the bid games (Ninety-Nine, Nominations) the playout is the game's policy
(:mod:`~tricktable.bots.expert.policies`: every seat plays as a sensible player of the game),
and no seat is paranoid: the others keep playing by the policy to the end, while the seat's own
last cards are searched (:meth:`Search.best_reply`). The value is the same margin of the deal's
score (in Ninety-Nine: tricks, the bonus for a bid made exactly and the premium; the game is
won on the total), so a move is judged by what it does to the bids, not by its tricks.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from engine.core.events import DealScored, Event, TrickWon
from engine.core.moves import Move, PlayCard
from engine.core.rules import Rules
from tricktable.bots.expert.policies import POLICIES

#: Moves a playout never makes: they end or change the deal on a judgement the random policy
#: cannot make (a claim, closing the stock); the exact search weighs them like any other.
_PLAYOUT_SKIPS = frozenset({"claim", "close_stock"})
#: Moves a playout always makes when it may (they gain points and never cost any).
_PLAYOUT_TAKES = frozenset({"declare_marriage", "exchange_trump"})
#: Fields no value depends on, left out of a state's key (the seed, the options shared by all
#: states, the last deal's result, the completed tricks' record: the hands, the points and the
#: tricks won already say what they did).
_UNKEYED = frozenset({"chance", "options", "last_result", "history"})
#: Cards left in all hands at which the rest of a deal is solved exactly, by seats: two tricks
#: in a four-seat game, three in a two-seat one.
EXACT_CARDS = {2: 6, 3: 6, 4: 8}
#: Where a game's endgame costs more (Sixty-Six's closing windows and claims): its own. Where
#: the playouts follow a game's policy (:data:`~tricktable.bots.expert.policies.POLICIES`), none:
#: a playout is then the deal as such players play it, where a paranoid solve would have every
#: other seat spend its own bid to spoil this one's, as no player at a bid game does.
EXACT_CARDS_OF_GAME = {"sixty-six": 4, "ninety-nine": 0, "nominations": 0}
#: Where the playouts follow a game's policy: cards left in the seat's hand at which its own
#: moves are searched (every card it may play, the others answering by the policy) instead of
#: played by the policy; three cards are at most six lines of play.
OWN_SEARCH_CARDS = 3
#: Per game, the weight of what each seat took in the deal (``DealScored.taken``: card points
#: in the point-trick games) beside the score: a deal's score is coarse in Sixty-Six (0 to 3
#: game points), and most moves score alike; the card points taken tell them apart. Too small
#: to outweigh one point of score.
TAKEN_WEIGHT = {"sixty-six": 0.005}
#: Games whose playouts play the last card to a trick greedily (win it as cheaply as possible,
#: else throw the cheapest card), and what a card costs to give up there, by rank: in the
#: point-trick games its card points (A, 10, K, Q, J), else its rank.
_POINTS = {14: 11, 10: 10, 13: 4, 12: 3, 11: 2, 9: 0.3, 8: 0.2, 7: 0.1}
_POINT_COST: dict[int, float] = {rank: _POINTS.get(rank, rank / 100) for rank in range(16)}
_RANK_COST: dict[int, float] = {rank: float(rank) for rank in range(16)}
GREEDY_LAST: dict[str, dict[int, float]] = {"sixty-six": _POINT_COST}
#: Nodes an exact solve may visit before the playout's value is taken instead (an unfinished
#: solve is time lost: a node that ends the deal costs the next deal's dealing too).
SOLVE_NODES = 600


class Search:
    """Values of one seat's moves from sampled worlds, within one decision."""

    def __init__(self, rules: Rules[Any], seat: int, rng: random.Random) -> None:
        self.rules = rules
        self.seat = seat
        self.rng = rng
        self.exact_cards = EXACT_CARDS_OF_GAME.get(rules.name, EXACT_CARDS.get(rules.seats, 6))
        self.taken_weight = TAKEN_WEIGHT.get(rules.name, 0.0)
        self.cheap = GREEDY_LAST.get(rules.name)
        self.game_policy = POLICIES.get(rules.name)
        self.own_cards = OWN_SEARCH_CARDS
        self.table: dict[tuple[Any, ...], tuple[float, float, int]] = {}
        self.nodes = 0
        self.playouts = 0
        self.solves = 0

    # -- one world ---------------------------------------------------------------------------

    def evaluate(self, world: Any, move: Move | None, seed: int) -> float:
        """The seat's value of ``move`` (None: letting an optional chance pass) in ``world``,
        which is left untouched. ``seed`` fixes the playout's choices, so that every move is
        measured on the same world with the same luck (common random numbers)."""
        sim = world.clone()
        deal, scores = sim.deal_no, tuple(sim.scores)
        if move is not None:
            events = self.rules.apply_in_place(sim, self.seat, move)
            if sim.finished or sim.deal_no != deal:
                return self.value(sim, scores, events)
        return self.finish(sim, deal, scores, random.Random(seed))

    def finish(self, sim: Any, deal: int, scores: tuple[int, ...], rng: random.Random) -> float:
        """Play the deal on to its end (in place) and value it."""
        rules = self.rules
        self.playouts += 1
        events: Sequence[Event] = ()
        while not sim.finished and sim.deal_no == deal:
            if self.exact_cards and sum(h.bit_count() for h in sim.hands) <= self.exact_cards:
                solved = self.solve(sim, deal, scores)
                if solved is not None:
                    return solved
            acting = rules.to_act(sim)
            if not acting:
                break
            actor = acting[0]
            legal = rules.legal_moves(sim, actor)
            claimed = self._claim(sim, actor, legal)
            if claimed is not None:
                events = claimed
                continue  # claimed: the deal is over
            if self.cheap is not None and len(getattr(sim, "trick", ())) == rules.seats - 1:
                move = self._last_to_play(sim, actor, legal)
                if move is not None:
                    events = rules.apply_in_place(sim, actor, move)
                    continue
            if self.game_policy is not None:
                if actor == self.seat and 0 < sim.hands[actor].bit_count() <= self.own_cards:
                    return self.best_reply(sim, deal, scores, rng)
                chosen = self.game_policy(sim, actor, legal)
                if chosen is not None:
                    events = rules.apply_in_place(sim, actor, chosen)
                    continue
            events = rules.apply_in_place(sim, actor, self.policy(legal, rng))
        return self.value(sim, scores, events)

    def best_reply(self, sim: Any, deal: int, scores: tuple[int, ...], rng: random.Random) -> float:
        """The deal's value from ``sim`` (the seat to play) when the seat plays its best cards
        and the others play by the game's policy: each of the seat's moves tried in turn, the
        others' answers played out (a search of the seat's moves alone: few cards remain)."""
        rules = self.rules
        best = float("-inf")
        for move in rules.legal_moves(sim, self.seat):
            child = sim.clone()
            events = rules.apply_in_place(child, self.seat, move)
            if child.finished or child.deal_no != deal:
                value = self.value(child, scores, events)
            else:
                value = self.finish(child, deal, scores, rng)
            best = max(best, value)
        return best

    def _last_to_play(self, sim: Any, actor: int, legal: Sequence[Move]) -> Move | None:
        """The last card to a trick, as a point-trick player plays it: the cheapest card that
        wins the trick, else the cheapest card (the engine says who wins, on a copy). None when
        the moves are not all card plays."""
        if len(legal) >= 64:
            return None
        plays = [m for m in legal if isinstance(m, PlayCard)]
        if len(plays) < len(legal):
            return None
        cheap = self.cheap or _RANK_COST
        order = sorted(plays, key=lambda m: cheap[m.card & 15])
        for move in order:
            trial = sim.clone()
            for event in self.rules.apply_in_place(trial, actor, move):
                if type(event) is TrickWon and event.winner == actor:
                    return move
        return order[0]

    def _claim(self, sim: Any, actor: int, legal: Sequence[Move]) -> Sequence[Event] | None:
        """Claim for ``actor`` when it may and the claim is good (the engine judges it, on a
        copy: a good claim scores for the claimant); the claim's events, or None."""
        if len(legal) >= 64:
            return None
        claims = [m for m in legal if m.kind == "claim"]
        if not claims:
            return None
        trial = sim.clone()
        before = trial.scores[actor]
        self.rules.apply_in_place(trial, actor, claims[0])
        if trial.scores[actor] <= before:
            return None
        return self.rules.apply_in_place(sim, actor, claims[0])

    @staticmethod
    def policy(legal: Sequence[Move], rng: random.Random) -> Move:
        """The playout's move: a sure gain when there is one, else a random move that is not a
        claim or a close (unless nothing else is legal)."""
        if len(legal) > 1:
            kinds = [m.kind for m in legal] if len(legal) < 64 else ()
            for i, kind in enumerate(kinds):
                if kind in _PLAYOUT_TAKES:
                    return legal[i]
            usable = [i for i, kind in enumerate(kinds) if kind not in _PLAYOUT_SKIPS]
            if usable and len(usable) < len(kinds):
                return legal[usable[rng.randrange(len(usable))]]
        return legal[rng.randrange(len(legal))]

    def value(self, sim: Any, scores: tuple[int, ...], events: Sequence[Event] = ()) -> float:
        """The seat's gain less the others' mean gain since ``scores``; with the deal's end in
        ``events``, what it took counts a little too (:data:`TAKEN_WEIGHT`)."""
        value = _margin(self.seat, [n - b for n, b in zip(sim.scores, scores, strict=True)])
        if self.taken_weight:
            for event in events:
                if type(event) is DealScored:
                    value += self.taken_weight * _margin(self.seat, event.taken)
        return value

    # -- the exact endgame ---------------------------------------------------------------------

    def solve(self, sim: Any, deal: int, scores: tuple[int, ...]) -> float | None:
        """The deal's exact value from ``sim`` (perfect information, every other seat against
        this one), or None when it takes more than :data:`SOLVE_NODES` nodes."""
        self.nodes = 0
        try:
            value = self._alphabeta(sim, deal, scores, float("-inf"), float("inf"))
        except _TooLong:
            return None
        self.solves += 1
        return value

    def _alphabeta(
        self,
        s: Any,
        deal: int,
        scores: tuple[int, ...],
        alpha: float,
        beta: float,
        *,
        events: Sequence[Event] = (),
    ) -> float:
        if s.finished or s.deal_no != deal:
            return self.value(s, scores, events)
        self.nodes += 1
        if self.nodes > SOLVE_NODES:
            raise _TooLong
        rules = self.rules
        acting = rules.to_act(s)
        if not acting:
            return self.value(s, scores)
        actor = acting[0]
        key = state_key(s)
        low, high, best = self.table.get(key, (float("-inf"), float("inf"), 0))
        if low >= beta:
            return low
        if high <= alpha:
            return high
        if low == high:
            return low
        a0, b0 = alpha, beta
        alpha, beta = max(alpha, low), min(beta, high)
        legal = rules.legal_moves(s, actor)
        order = list(range(len(legal)))
        if 0 < best < len(order):  # the best move found before, first
            order[0], order[best] = order[best], order[0]
        maximizing = actor == self.seat
        result = float("-inf") if maximizing else float("inf")
        chosen = 0
        for i in order:
            child = s.clone()
            happened = rules.apply_in_place(child, actor, legal[i])
            v = self._alphabeta(child, deal, scores, alpha, beta, events=happened)
            if maximizing:
                if v > result:
                    result, chosen = v, i
                alpha = max(alpha, v)
            else:
                if v < result:
                    result, chosen = v, i
                beta = min(beta, v)
            if alpha >= beta:
                break
        if result <= a0:
            self.table[key] = (low, result, chosen)
        elif result >= b0:
            self.table[key] = (result, high, chosen)
        else:
            self.table[key] = (result, result, chosen)
        return result


def _margin(seat: int, values: Sequence[int]) -> float:
    """``values[seat]`` less the mean of the others'."""
    mine = values[seat]
    return float(mine - (sum(values) - mine) / (len(values) - 1))


class _TooLong(Exception):
    """An exact solve ran past its node budget."""


def state_key(s: Any) -> tuple[Any, ...]:
    """A state's fields as a hashable key (a list as its text: lists of ints, or of such
    lists), but those no value depends on. The states of one decision are all sampled by one
    game's code, so their fields come in one order."""
    return tuple(
        [str(v) if type(v) is list else v for k, v in s.__dict__.items() if k not in _UNKEYED]
    )


#: How the bot measures its time: seconds, monotonic (a test gives a clock of its own).
Clock = Callable[[], float]
