"""The four games as OpenSpiel Python games, for OpenSpiel's algorithms and bots.

Optional: ``pip install "./engine[openspiel]"`` (OpenSpiel's wheel, with numpy), then
``import engine.openspiel_games`` registers ``tricktable_counterpoint``,
``tricktable_ninety_nine``, ``tricktable_nominations`` and ``tricktable_sixty_six`` with
``pyspiel``; ``pyspiel.load_game("tricktable_nominations", {"target_score": 30})`` loads one.
The engine itself never imports this module (it stays the standard library only).

How the engine's games map onto OpenSpiel's model:

- **Parameters** are the game's options (``rules.game_type().options``), each with its default,
  plus ``rng_seed`` (-1: a fresh seed per game). A parameter left at its default is not passed
  to the engine, so an edition or preset (Ninety-Nine's ``edition``, Sixty-Six's ``preset``)
  still sets the defaults of the options it names; set such an option to a value other than
  its plain default to override the preset.
- **Chance** is sampled (``SAMPLED_STOCHASTIC``): the engine deals from each game's secret seed,
  drawn from the game object's ``rng_seed`` generator when a state is created, so there are no
  chance nodes. A state's copies share its seed (and so its later deals); a state resampled
  from an information set gets a fresh one.
- **Turns** are sequential: the current player is the lowest seat the rules wait for
  (``to_act``). Where several seats lay bid cards aside at once, they do so one after the
  other, lowest seat first, which tells none of them anything (the cards are face down).
  Optional moves (a Sixty-Six claim or trump exchange) are offered to the current player among
  its legal moves; a seat that is not the one the rules wait for is not offered its optional
  moves, so OpenSpiel's play never takes them (a limitation of a sequential model).
- **Actions** are the engine's moves numbered by kind (:class:`ActionCodec`): a card play is
  its card id (0..64), a lay-aside the rank of its card set, then calls, seats, bids, …
- **Information state strings** are the seat's :meth:`Rules.information_set` (its ``repr``),
  **observation strings** its :meth:`Rules.view`; neither holds a card the seat may not see.
  ``resample_from_infostate`` is :meth:`Rules.sample_state` of that information set, so
  OpenSpiel's IS-MCTS bot searches the games.
- **Returns** are the match's result: 1 for a winner, shared equally between winners of a
  draw, 0 for the others (a constant-sum game).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from math import comb
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]

import engine
from engine.core.moves import (
    Bid,
    Call,
    ChooseSeat,
    Claim,
    CloseStock,
    Cut,
    DeclareContract,
    DeclareMarriage,
    DrawCards,
    ExchangeTrump,
    LayAside,
    Move,
    PlayCard,
)
from engine.core.rules import Rules

#: Game names as OpenSpiel knows them, by the engine's name.
SHORT_NAMES = {name: "tricktable_" + name.replace("-", "_") for name in engine.game_names()}
#: Every call any game makes (``Call.call``), numbered in this order.
CALLS = ("pass", "declare", "reveal", "decline")
#: A Nominations bid's named contracts, after the bids of 0..13 tricks.
NAMED_CONTRACTS = ("misere", "open_misere")
#: A bound on any match's length in moves, which OpenSpiel asks for (matches can in principle
#: go on through ties; none of the random matches of the tests comes near it).
MAX_GAME_LENGTH = 100_000
_CARDS = 65  # card ids 0..64 (the Joker is 64)


class ActionCodec:
    """A game's moves as OpenSpiel actions: one block of numbers per move kind the game accepts,
    in the order of ``rules.move_types``. Encoding a move the blocks cannot name raises
    ValueError (the tests play every game to catch one)."""

    def __init__(self, rules: Rules[Any]) -> None:
        self._encoders: dict[type, tuple[int, Callable[[Any], int]]] = {}
        self._blocks: list[tuple[int, int, Callable[[int], Move]]] = []
        offset = 0
        for kind in rules.move_types:
            size, encode, decode = _block(kind, rules)
            self._encoders[kind] = (offset, encode)
            self._blocks.append((offset, size, decode))
            offset += size
        self.size = offset

    def encode(self, move: Move) -> int:
        offset, encode = self._encoders[type(move)]
        return offset + encode(move)

    def decode(self, action: int) -> Move:
        for offset, size, decode in self._blocks:
            if offset <= action < offset + size:
                return decode(action - offset)
        raise ValueError(f"no move numbered {action}")


def _block(
    kind: type, rules: Rules[Any]
) -> tuple[int, Callable[[Any], int], Callable[[int], Move]]:
    """How many numbers a move kind takes, and its encoder and decoder within them."""
    if kind is PlayCard:
        return _CARDS, lambda m: _index(m.card, _CARDS), PlayCard
    if kind is LayAside:
        reading = rules.bid_reading
        assert reading is not None, f"{rules.name} lays cards aside but has no bid reading"
        k = reading.cards
        return comb(_CARDS, k), _rank_subset, lambda n: LayAside(_unrank_subset(n, k))
    if kind is Call:
        return len(CALLS), lambda m: CALLS.index(m.call), lambda n: Call(CALLS[n])
    if kind is ChooseSeat:
        seats = rules.seats
        return seats, lambda m: _index(m.seat, seats), ChooseSeat
    if kind is DeclareMarriage:
        return 4, lambda m: _index(m.suit, 4), DeclareMarriage
    if kind is Bid:
        return 14 + len(NAMED_CONTRACTS), _bid_number, _bid_of
    if kind is DeclareContract:
        return 5 * _CARDS, _declaration_number, _declaration_of
    if kind is Cut:
        return 52, lambda m: _index(m.depth, 52), Cut
    if kind in (ExchangeTrump, CloseStock, Claim, DrawCards):
        return 1, lambda m: 0, lambda n: kind()
    raise ValueError(f"no action numbering for {kind.__name__}")


def _index(value: object, size: int) -> int:
    if type(value) is int and 0 <= value < size:
        return value
    raise ValueError(f"{value!r} is not in 0..{size - 1}")


def _rank_subset(move: LayAside) -> int:
    """The combinatorial number of a sorted card set (its rank among sets of its size)."""
    return sum(comb(_index(c, _CARDS), i + 1) for i, c in enumerate(sorted(move.cards)))


def _unrank_subset(n: int, k: int) -> tuple[int, ...]:
    cards = []
    for i in range(k, 0, -1):
        c = i - 1
        while comb(c + 1, i) <= n:
            c += 1
        cards.append(c)
        n -= comb(c, i)
    return tuple(sorted(cards))


def _bid_number(move: Bid) -> int:
    if move.contract == "tricks":
        return _index(move.tricks, 14)
    return 14 + NAMED_CONTRACTS.index(move.contract)


def _bid_of(n: int) -> Bid:
    return Bid("tricks", n) if n < 14 else Bid(NAMED_CONTRACTS[n - 14])


def _declaration_number(move: DeclareContract) -> int:
    trump = 4 if move.trump is None else _index(move.trump, 4)
    return trump * _CARDS + _index(move.called, _CARDS)


def _declaration_of(n: int) -> DeclareContract:
    trump, called = divmod(n, _CARDS)
    return DeclareContract(None if trump == 4 else trump, called)


# -- the game and its states ------------------------------------------------------------------


def _game_type(rules: Rules[Any]) -> Any:
    params: dict[str, object] = {spec.name: spec.default for spec in rules.game_type().options}
    params["rng_seed"] = -1
    return pyspiel.GameType(
        short_name=SHORT_NAMES[rules.name],
        long_name=f"Tricktable {rules.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=rules.seats,
        min_num_players=rules.seats,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=False,
        parameter_specification=params,
    )


def _game_info(rules: Rules[Any], codec: ActionCodec) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=codec.size,
        max_chance_outcomes=0,
        num_players=rules.seats,
        min_utility=0.0,
        max_utility=1.0,
        utility_sum=1.0,
        max_game_length=MAX_GAME_LENGTH,
    )


def _game_class(rules: Rules[Any]) -> type:
    codec = ActionCodec(rules)
    game_type = _game_type(rules)
    info = _game_info(rules, codec)
    defaults = {spec.name: spec.default for spec in rules.game_type().options}

    class TricktableGame(pyspiel.Game):  # type: ignore[misc]
        def __init__(self, params: dict[str, Any] | None = None) -> None:
            super().__init__(game_type, info, params or {})
            given = self.get_parameters()
            seed = int(given.get("rng_seed", -1))
            self.rng = random.Random(seed if seed >= 0 else None)
            self.rules = rules
            self.codec = codec
            # Only the options set away from their defaults: an edition or preset then still
            # sets the defaults of the options it names (see the module docstring).
            self.options = rules.options(
                {k: v for k, v in given.items() if k in defaults and v != defaults[k]}
            )

        def new_initial_state(self) -> TricktableState:
            seed = self.rng.getrandbits(256).to_bytes(32, "big")
            return TricktableState(self, rules.new_game(self.options, seed))

        def make_py_observer(
            self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
        ) -> Observer:
            if params:
                raise ValueError(f"observation parameters are not supported: {params}")
            perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
            return Observer(rules, information_set=perfect_recall)

    TricktableGame.__name__ = TricktableGame.__qualname__ = _class_name(rules.name, "Game")
    return TricktableGame


def _class_name(name: str, what: str) -> str:
    return "".join(part.title() for part in name.split("-")) + what


class _Held:
    """The engine state an OpenSpiel state wraps. OpenSpiel copies a Python state with
    ``copy.deepcopy``; a state's seeded chance cannot be deep-copied (nor need it be: it is
    immutable), so this copies the engine state the engine's way, with ``clone``."""

    __slots__ = ("state",)

    def __init__(self, state: Any) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return _Held(self.state.clone())


class TricktableState(pyspiel.State):  # type: ignore[misc]
    """An OpenSpiel state over an engine state: every call goes through the engine's API."""

    def __init__(self, game: Any, state: Any) -> None:
        super().__init__(game)
        self._held = _Held(state)

    @property
    def engine_state(self) -> Any:
        """The engine's state (a copy of it is what ``rules.snapshot`` and the like take)."""
        return self._held.state

    def _rules(self) -> Rules[Any]:
        rules: Rules[Any] = self.get_game().rules
        return rules

    def current_player(self) -> int:
        s = self._held.state
        if s.finished:
            return int(pyspiel.PlayerId.TERMINAL)
        rules = self._rules()
        seats = rules.to_act(s) or rules.movers(s)
        return seats[0]

    def _legal_actions(self, player: int) -> list[int]:
        rules = self._rules()
        s = self._held.state
        if s.finished or player != self.current_player():
            return []
        encode = self.get_game().codec.encode
        return sorted(encode(move) for move in rules.legal_moves(s, player))

    def _apply_action(self, action: int) -> None:
        seat = self.current_player()
        move = self.get_game().codec.decode(action)
        self._rules().apply_in_place(self._held.state, seat, move)

    def _action_to_string(self, player: int, action: int) -> str:
        return f"seat {player}: {self.get_game().codec.decode(action)}"

    def is_terminal(self) -> bool:
        return bool(self._held.state.finished)

    def returns(self) -> list[float]:
        s = self._held.state
        seats = self._rules().seats
        if not s.finished:
            return [0.0] * seats
        share = 1.0 / len(s.winners)
        return [share if seat in s.winners else 0.0 for seat in range(seats)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state of the same game, drawn uniformly among the complete states consistent with
        what ``player_id`` knows (:meth:`Rules.sample_state`), with a fresh seed for later
        deals. ``probability_sampler()`` (a uniform number in [0, 1)) seeds the draw."""
        rules = self._rules()
        info = rules.information_set(self._held.state, player_id)
        rng = random.Random(int(probability_sampler() * 2**53))
        return TricktableState(self.get_game(), rules.sample_state(info, rng))

    def __str__(self) -> str:
        return bytes(self._rules().snapshot(self._held.state)).decode()


class Observer:
    """OpenSpiel's observer of a game: strings only (the games provide no tensors). An
    information state is the seat's information set, an observation its view."""

    def __init__(self, rules: Rules[Any], *, information_set: bool) -> None:
        self.rules = rules
        self.information_set = information_set
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, Any] = {}

    def set_from(self, state: TricktableState, player: int) -> None:
        """No tensor to fill."""

    def string_from(self, state: TricktableState, player: int) -> str:
        s = state.engine_state
        if self.information_set:
            return repr(self.rules.information_set(s, player))
        return repr(self.rules.view(s, player))


def register() -> Sequence[str]:
    """Register every game with OpenSpiel (once; importing this module does it)."""
    registered = {game.short_name for game in pyspiel.registered_games()}
    for name in engine.game_names():
        rules = engine.get_rules(name)
        if SHORT_NAMES[name] not in registered:
            pyspiel.register_game(_game_type(rules), _game_class(rules))
    return tuple(SHORT_NAMES.values())


register()
