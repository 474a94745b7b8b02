"""What a game has scheduled, and the moves the server makes itself. No I/O: pure functions
over the rules, a game's record and the time passed in.

A game schedules two kinds of deadline, both kept in the store with the game (DESIGN.md
decision 9) as its :class:`~service.store.base.Timing`: a seat's clock running out
(:mod:`service.clocks`) and a server bot's turn, due a short delay after the step that made a
bot seat one that must act (the delay lets a person follow the table). The store keeps only the
earliest; when it comes, the replica that fires it looks again at what is due (a bot's turn
before a clock: the bot's delay is shorter than any clock it could be racing).

Server bots are the reference bots of the client package (:mod:`tricktable.bots`): the server
may import it, the reverse never. A bot seat sees only its own view, like any seat, and has no
token; it acts when its seat must act.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tricktable import facts
from tricktable.bots import EXPERT, make_bot
from tricktable.bots.base import History, sees
from tricktable.bots.expert import DEFAULT_MS as EXPERT_MS
from tricktable.legal import legal_moves
from tricktable.v1 import moves_pb2

from engine.core.chance import Chance
from engine.core.events import Event
from engine.core.moves import Move
from engine.core.rules import Rules
from service import clocks as clock_rules
from service import convert
from service.clocks import Clocks, TimeControl
from service.store.base import GameRecord, SeatRecord, Timing

_PLAY_CARD = "play_card"

#: The reference bots a seat may be given.
BOT_KINDS = ("random", "heuristic", EXPERT)


def decision_s(kind: str) -> float:
    """How long every decision of a server bot of this kind takes, forced or not.

    The expert answers a forced move (a single legal one) at once and searches any other for
    its time budget, so how long its move took would tell the table that it had one legal
    move: that it holds exactly one card of the suit led, say. A public signal must not tell
    a card (DESIGN.md decision 5), so each of its moves is held until its budget has passed
    (service.deadlines); only an overrun, which the machine's load makes, is not padded. The
    other bots decide in well under a millisecond whatever their cards: not paced."""
    return EXPERT_MS / 1000 if kind == EXPERT else 0.0  # a seat's kind is one of BOT_KINDS


def wants_history(kind: str) -> bool:
    """Whether a bot of this kind is shown what its seat has seen (the game's events): only
    then are they read for its move."""
    return kind == EXPERT


def bot_seats(seats: Iterable[SeatRecord | None]) -> frozenset[int]:
    return frozenset(n for n, s in enumerate(seats) if s is not None and s.bot)


def time_control(record: GameRecord) -> TimeControl | None:
    return None if record.time_control is None else TimeControl.from_data(record.time_control)


def scheduled(record: GameRecord) -> bool:
    """Whether the game schedules anything (a clock or a server bot)."""
    return record.time_control is not None or bool(bot_seats(record.seats))


def next_timing(
    record: GameRecord,
    must_act: Iterable[int],
    now_ms: int,
    *,
    bot_delay_ms: int,
    mover: int | None = None,
    timed_out: int | None = None,
) -> Timing | None:
    """The game's timing after a step at ``now_ms`` (``record`` is the game before it; its
    ``timing`` None: play begins now) that leaves ``must_act`` to act (empty once the game has
    ended). ``mover``: the seat that moved; ``timed_out``: the seat whose clock ran out.
    None when the game schedules nothing."""
    if not scheduled(record):
        return None
    acting = tuple(must_act)
    tc = time_control(record)
    clocks: Clocks | None = None
    if tc is not None:
        held = record.timing.clocks if record.timing is not None else None
        if held is None:
            clocks = clock_rules.start(tc, record.seat_count, acting, now_ms)
        elif timed_out is not None:
            clocks = clock_rules.after_timeout(
                tc, Clocks.from_data(held), timed_out, acting, now_ms
            )
        else:
            clocks = clock_rules.after_move(tc, Clocks.from_data(held), mover, acting, now_ms)
    due: list[int] = []
    if tc is not None and clocks is not None:
        out = clock_rules.next_timeout(tc, clocks)
        if out is not None:
            due.append(out[0])
    if bot_seats(record.seats) & set(acting):
        due.append(now_ms + bot_delay_ms)
    return Timing(clocks.to_data() if clocks is not None else None, min(due, default=None))


def clocks_of(record: GameRecord) -> tuple[TimeControl, Clocks] | None:
    tc = time_control(record)
    if tc is None:
        return None
    if record.timing is None or record.timing.clocks is None:
        return tc, clock_rules.start(tc, record.seat_count, (), 0)  # every clock stopped, full
    return tc, Clocks.from_data(record.timing.clocks)


def bot_to_move(record: GameRecord, must_act: Iterable[int]) -> int | None:
    """The bot seat that moves now, when a bot seat must act (the lowest of several)."""
    bots = bot_seats(record.seats) & set(must_act)
    return min(bots) if bots else None


def bot_move(
    kind: str,
    rules: Rules[Any],
    state: Any,
    seat: int,
    *,
    seed: bytes,
    version: int,
    cards_only: bool = False,
    events: Sequence[Event] = (),
    options: Mapping[str, Any] | None = None,
) -> Move:
    """The reference bot's move for ``seat``, decided on the seat's own view only, and, for a
    bot that looks at it (the expert), on what the seat has seen: ``events``, the game's events
    from its start (each projected for the seat here, as its stream would give them), and the
    game's ``options``, as a ``DecideRequest`` carries them. A random or expert bot is seeded
    from the game's secret chance under ``bot:<version>``, so a replay with the seed makes the
    same move; the heuristic bots are deterministic. ``cards_only``: when the seat may play a
    card, the bot chooses among its card plays alone (a timeout's move never claims, closes,
    marries or exchanges)."""
    if not facts.known(rules.name):  # the bots read the game's facts as a client would
        facts.learn([convert.game_type_to_proto(rules.game_type())])
    # Lay-asides as one choice, not hundreds of listed moves: the bots read either form alike.
    view = convert.view_to_proto(rules.view(state, seat), compact_lay_aside=True)
    listed = legal_moves(view)
    legal: Sequence[moves_pb2.Move] = listed
    if cards_only and _PLAY_CARD in listed.kinds():
        legal = [m for m in listed if m.WhichOneof("kind") == _PLAY_CARD]
    bot = make_bot(kind, rules.name, seed=Chance(seed).randint(f"bot:{version}", 0, 2**31 - 1))
    if sees(bot):
        history = History(options=dict(options or {}))
        history.add(convert.event_to_proto(rules.project(e, seat)) for e in events)
        bot.see(history)  # type: ignore[attr-defined]  # sees(bot) said it can
    chosen = bot(view, legal)
    if chosen is None or chosen not in legal:
        chosen = legal[0]  # the seat must act: a bot letting its turn pass takes the first move
    return convert.move_from_proto(chosen)


def auto_move(rules: Rules[Any], state: Any, seat: int, seed: bytes, version: int) -> Move:
    """The AUTO_MOVE policy, the least harmful move for a seat whose clock ran out: the move
    the game's rules name for the decision (:meth:`~engine.core.rules.Rules.timeout_move`:
    pass where passing is legal, the lowest bid, Sixty-Six's draw and declined exchange), else
    the heuristic reference bot's choice on the seat's own view, among its card plays alone
    when it may play a card (never a claim, a close, a marriage or an exchange). Recorded as
    an ordinary move; a replay with the seed makes it again."""
    named = rules.timeout_move(state, seat)
    if named is not None:
        return named
    return bot_move("heuristic", rules, state, seat, seed=seed, version=version, cards_only=True)


def bot_kinds(given: Mapping[int, str], seat_count: int) -> dict[int, str]:
    """Checked bot seats: every seat of the game, every kind a reference bot's."""
    out = {}
    for seat, kind in given.items():
        if not 0 <= seat < seat_count:
            raise ValueError(f"bot_seats: the game has seats 0..{seat_count - 1}, not {seat}")
        if kind not in BOT_KINDS:
            raise ValueError(f"bot_seats: seat {seat}: no bot {kind!r}; one of {BOT_KINDS}")
        out[seat] = kind
    return out
