"""Game records: a finished game told in full, so that anyone can check it without its seed.

A record holds the options, what chance gave (each draw by its label: ``pack:N`` is deal N's
shuffled pack, top card first; ``cut:N`` a random cut depth; ``first_dealer``), every pack as it
was dealt, every step of the game (the opening, each move with its seat, a resignation) with its
full events, and the result. It never holds the seed: games created with one seed are dealt the
same cards, so a seed would say more than this game.

:func:`replay_logged` re-plays a game from its seed with a :class:`ChanceLog` attached, which is how
the service learns what chance gave. :func:`verify` re-plays a record through the rules with
*strict* recorded chance (a draw the record lacks is an error, never a fresh draw) and checks
that every move is legal and that the packs, the events and the result are the ones recorded.

A seat's clock running out is part of the record (the service's clocks, not the rules): a step
whose events start with ``TimedOut`` is a move the clock made for that seat (``auto_move``: the
move follows, checked like any other) or the seat's forfeit (a resignation holding only that
event). Which move the clock picks is the service's documented policy; the record says which
moves it made, and verifying checks them against the rules like a player's. A game the service
ended for want of moves ends with a step holding only ``GameAbandoned``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.chance import Chance, ChanceLog
from engine.core.errors import EngineError
from engine.core.events import Event, GameAbandoned, TimedOut
from engine.core.moves import Move
from engine.core.options import OptionValue, options_to_data
from engine.core.rules import Outcome, Rules, get_rules

#: Any non-empty seed: under strict overrides the seed is never used for a draw.
_UNUSED_SEED = b"record"


@dataclass(frozen=True, slots=True)
class Step:
    """One version of a game: the opening (version 0, no seat), a move, or a resignation."""

    version: int
    seat: int | None
    move: Move | None  # None for the opening and for a resignation
    events: tuple[Event, ...]
    resigned_seat: int | None = None


@dataclass(frozen=True, slots=True)
class Record:
    game_type: str
    options: Mapping[str, OptionValue]  # every option, defaults filled in
    chance: Mapping[str, Sequence[int]]  # label -> outcome
    deals: Sequence[tuple[int, Sequence[int]]]  # (deal number, pack as dealt, top card first)
    steps: Sequence[Step]
    outcome: Outcome | None  # None when the game was abandoned
    resigned_seat: int | None = None


class RecordMismatch(Exception):
    """The record does not re-play: the message says the first place where it parts."""


def replay_logged(
    rules: Rules[Any],
    options: Mapping[str, object],
    seed: bytes,
    moves: Sequence[tuple[int, Move]],
) -> tuple[Any, ChanceLog]:
    """The final state of a game played from ``seed`` with ``moves``, and what chance gave it."""
    log = ChanceLog()
    state = rules.start(options, Chance(seed, log=log))
    for seat, move in moves:
        rules.apply_in_place(state, seat, move)
    return state, log


def record_of(
    game_type: str, options: Mapping[str, object], seed: bytes, moves: Sequence[tuple[int, Move]]
) -> Record:
    """The record of a game played from ``seed`` with ``moves``, made by the engine alone (the
    service builds its records from the events it stored as the game was played)."""
    rules = get_rules(game_type)
    log = ChanceLog()
    state = rules.start(options, Chance(seed, log=log))
    steps = [Step(0, None, None, tuple(rules.opening_events(state)))]
    for version, (seat, move) in enumerate(moves, start=1):
        steps.append(Step(version, seat, move, tuple(rules.apply_in_place(state, seat, move))))
    return Record(
        game_type=game_type,
        options=options_to_data(state.options),
        chance=log.draws,
        deals=log.deals,
        steps=steps,
        outcome=rules.outcome(state),
    )


def verify(record: Record) -> Outcome | None:
    """Re-play ``record`` through the rules; raise RecordMismatch where it parts from them.
    Returns the result the rules reach (the recorded one, when it verifies)."""
    try:
        rules = get_rules(record.game_type)
    except EngineError as exc:
        raise RecordMismatch(exc.message) from None
    if not record.steps or record.steps[0].version != 0 or record.steps[0].move is not None:
        raise RecordMismatch("a record starts with the game's opening (version 0)")
    log = ChanceLog()
    chance = Chance(_UNUSED_SEED, record.chance, strict=True, log=log)
    try:
        state = rules.start(record.options, chance)
    except (EngineError, ValueError) as exc:
        raise RecordMismatch(f"the opening does not re-play: {_why(exc)}") from None
    _same_events(0, rules.opening_events(state), record.steps[0].events)
    resigned: int | None = None
    abandoned = False
    for expected_version, step in enumerate(record.steps[1:], start=1):
        if step.version != expected_version:
            raise RecordMismatch(f"step {expected_version} is numbered {step.version}")
        if resigned is not None:
            raise RecordMismatch(f"version {step.version} follows a resignation")
        if abandoned:
            raise RecordMismatch(f"version {step.version} follows the game's abandonment")
        if (
            step.move is None
            and step.resigned_seat is None
            and len(step.events) == 1
            and type(step.events[0]) is GameAbandoned
        ):
            abandoned = True  # ended by the service (idle), not by a seat or the rules
            continue
        clock, played = _by_clock(step)
        if step.move is None:
            if step.resigned_seat is None or played:
                raise RecordMismatch(f"version {step.version} has neither a move nor a resignation")
            if clock is not None and clock != TimedOut(step.resigned_seat, auto_move=False):
                raise RecordMismatch(f"version {step.version}: a forfeit by another seat's clock")
            resigned = step.resigned_seat
            continue
        if step.seat is None:
            raise RecordMismatch(f"the move of version {step.version} has no seat")
        if clock is not None and clock != TimedOut(step.seat, auto_move=True):
            raise RecordMismatch(f"version {step.version}: the clock moved for another seat")
        try:
            events = rules.apply_in_place(state, step.seat, step.move)
        except (EngineError, ValueError) as exc:
            raise RecordMismatch(f"the move of version {step.version}: {_why(exc)}") from None
        _same_events(step.version, events, played)
    unused = sorted(set(record.chance) - set(log.draws))
    if unused:
        raise RecordMismatch(f"recorded chance the game never drew: {', '.join(unused)}")
    dealt = [(n, list(p)) for n, p in record.deals]
    if dealt != log.deals:
        raise RecordMismatch("the recorded packs are not the ones the rules dealt")
    outcome = rules.outcome(state)
    if resigned != record.resigned_seat:
        raise RecordMismatch(
            f"the record says seat {record.resigned_seat} resigned; its steps say {resigned}"
        )
    if resigned is None and outcome is None and not abandoned:
        raise RecordMismatch("the game had not ended after the recorded moves")
    if outcome != record.outcome:
        raise RecordMismatch(f"the rules reach {outcome}, the record says {record.outcome}")
    return outcome


def _by_clock(step: Step) -> tuple[TimedOut | None, Sequence[Event]]:
    """A step's ``TimedOut`` (the clock's, first when present) and the events of its move."""
    events = step.events
    if events and type(events[0]) is TimedOut:
        return events[0], events[1:]
    return None, events


def timed_out(step: Step) -> TimedOut | None:
    """The timeout that made ``step``, if the clock made it."""
    return _by_clock(step)[0]


def _same_events(version: int, replayed: Sequence[Event], recorded: Sequence[Event]) -> None:
    if list(replayed) != list(recorded):
        for i, (a, b) in enumerate(zip(replayed, recorded, strict=False)):
            if a != b:
                raise RecordMismatch(
                    f"event {i} of version {version}: the rules give {type(a).__name__}, "
                    f"the record has {type(b).__name__} with other contents"
                )
        raise RecordMismatch(
            f"version {version}: the rules give {len(replayed)} events, "
            f"the record has {len(recorded)}"
        )


def _why(exc: Exception) -> str:
    return exc.message if isinstance(exc, EngineError) else str(exc)
