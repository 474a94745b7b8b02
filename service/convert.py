"""All conversion between the protocol (``tricktable.v1``) and the engine's types.

Moves, events, views and game details are converted by one rule, not one function per type: an
engine dataclass maps to the proto message of the same name, field by field, by name. How a value
is written follows the proto field's type:

- ``Card`` ⇄ a card id; ``CardList`` (presence) ⇄ a tuple of cards or None (hidden);
  ``repeated Card`` ⇄ a tuple of cards; ``repeated SeatCards`` ⇄ one entry per seat, None when
  the viewer may not see that seat's cards;
- ``Suit`` ⇄ a suit 0..3, or None as ``SUIT_UNSPECIFIED``;
- ``repeated OptionalInt32/OptionalBool/OptionalString`` ⇄ a tuple whose entries may be None;
- ``Move`` ⇄ an engine move (the ``kind`` oneof's case is the move's ``kind``);
- a oneof named like a dataclass field (``View.detail``) ⇄ a dataclass of the case's type;
- another message ⇄ the dataclass of its name; ``optional`` scalars ⇄ a value or None.

So a game that lands with new moves, events or a detail joins the protocol by adding messages to
``proto/`` only. ``tests/service/test_convert.py`` holds every registered kind to a complete
mapping and round-trips real games. Values coming from clients are checked here: a malformed card
or an empty oneof is an ``InvalidRequest`` before the engine sees the move.
"""

from __future__ import annotations

import dataclasses
import operator
import typing
from collections.abc import Callable, Iterable, Mapping
from functools import cache, lru_cache
from typing import Any

from google.protobuf.message import Message
from tricktable.v1 import (
    cards_pb2,
    clocks_pb2,
    events_pb2,
    game_service_pb2,
    game_types_pb2,
    moves_pb2,
    values_pb2,
    views_pb2,
)

from engine import game_names, get_rules
from engine.core import cards as C
from engine.core.events import EVENT_TYPES, Event
from engine.core.memo import Memo
from engine.core.moves import MOVE_TYPES, Move
from engine.core.options import OptionSpec, OptionValue
from engine.core.rules import GameType
from engine.core.view import View
from service.clocks import FORFEIT, SeatClockView
from service.errors import InvalidRequest, rejection
from service.game_service import MoveResult, ProjectedBatch, SeatPresenceView
from service.play import PlayStep
from service.store.base import ABANDONED, FINISHED, GameRecord

_PROTO_MODULES = (cards_pb2, values_pb2, moves_pb2, events_pb2, views_pb2)
_OPTIONAL_WRAPPERS = frozenset({"OptionalInt32", "OptionalBool", "OptionalString"})
_SUIT_ENUM = "tricktable.v1.Suit"
#: Message fields the service fills beside the engine's (the engine knows no clock).
SERVICE_FIELDS: Mapping[str, frozenset[str]] = {"View": frozenset({"clocks", "presence"})}

# -- cards -----------------------------------------------------------------------------------


def card_to_proto(c: int) -> cards_pb2.Card:
    if c == C.JOKER:
        return cards_pb2.Card(suit=cards_pb2.SUIT_UNSPECIFIED, rank=cards_pb2.RANK_JOKER)
    return cards_pb2.Card(
        suit=cards_pb2.Suit.ValueType((c >> 4) + 1), rank=cards_pb2.Rank.ValueType(c & 15)
    )


def card_from_proto(msg: cards_pb2.Card) -> int:
    suit, rank = int(msg.suit), int(msg.rank)
    if rank == cards_pb2.RANK_JOKER and suit == cards_pb2.SUIT_UNSPECIFIED:
        return C.JOKER
    if 2 <= rank <= 14 and 1 <= suit <= 4:
        return C.card(rank, suit - 1)
    raise InvalidRequest(f"not a card: suit {suit}, rank {rank}", reason="MALFORMED_CARD")


def suit_to_proto(suit: int | None) -> cards_pb2.Suit.ValueType:
    return cards_pb2.Suit.ValueType(0 if suit is None else suit + 1)


def suit_from_proto(value: int) -> int | None:
    if not 0 <= value <= 4:
        raise InvalidRequest(f"not a suit: {value}", reason="MALFORMED_MOVE")
    return None if value == 0 else value - 1


# -- the dataclass ⇄ message rule -------------------------------------------------------------


@cache
def _message_classes() -> dict[str, type[Message]]:
    out: dict[str, type[Message]] = {}
    for module in _PROTO_MODULES:
        for name in module.DESCRIPTOR.message_types_by_name:
            out[name] = getattr(module, name)
    return out


def engine_types() -> dict[str, type]:
    """Every engine dataclass that crosses the wire, by name: moves, events, views, each game's
    detail, and every dataclass those hold (found through their type hints)."""
    roots: list[type] = [View, *MOVE_TYPES.values(), *EVENT_TYPES.values(), *detail_types()]
    found: dict[str, type] = {}
    while roots:
        cls = roots.pop()
        if cls.__name__ in found:
            continue
        found[cls.__name__] = cls
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            roots.extend(_dataclasses_in(hints[f.name]))
    return found


def _dataclasses_in(hint: Any) -> list[type]:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return [hint]
    return [c for arg in typing.get_args(hint) for c in _dataclasses_in(arg)]


def detail_types() -> list[type]:
    """Each registered game's detail dataclass, as its rules declare it."""
    return [get_rules(name).detail_type for name in game_names()]


_ENGINE_TYPES: dict[str, type] = {}


def _engine_type(name: str) -> type:
    if name not in _ENGINE_TYPES:
        _ENGINE_TYPES.update(engine_types())
    return _ENGINE_TYPES[name]


# How a dataclass field is written, decided once per class from the proto field's type.
_SCALAR, _SCALARS, _SUIT, _SUITS, _CARD, _CARDS, _CARD_LIST, _SEAT_CARDS = range(8)
_WRAPPED, _MOVE, _MOVES, _MESSAGE, _MESSAGES, _ONEOF, _HISTORY = range(8, 15)

#: Repeated messages whose items are immutable history (a deal's completed tricks): every view
#: of the deal lists them all again, so each item's wire bytes are cached by value.
_HISTORY_MESSAGES = frozenset({"TrickView"})


@dataclasses.dataclass(frozen=True, slots=True)
class _Slot:
    name: str  # the dataclass field, and the proto field or oneof of the same name
    mode: int
    presence: bool = False  # an optional scalar: unset means None
    cases: Mapping[str, str] = dataclasses.field(default_factory=dict)  # oneof: type -> case


@cache
def _plan(cls: type) -> tuple[_Slot, ...]:
    """The slots of ``cls`` (KeyError: a field with no proto mapping is a bug)."""
    desc = _message_classes()[cls.__name__].DESCRIPTOR
    slots = []
    for f in dataclasses.fields(cls):
        pf = desc.fields_by_name.get(f.name)
        if pf is None:
            oneof = desc.oneofs_by_name[f.name]
            cases = {x.message_type.name: x.name for x in oneof.fields if x.message_type}
            slots.append(_Slot(f.name, _ONEOF, cases=cases))
            continue
        kind = pf.message_type.name if pf.message_type is not None else None
        suit = pf.enum_type is not None and pf.enum_type.full_name == _SUIT_ENUM
        if pf.is_repeated:
            mode = {"Card": _CARDS, "SeatCards": _SEAT_CARDS, "Move": _MOVES}.get(
                kind or "", _WRAPPED if kind in _OPTIONAL_WRAPPERS else _MESSAGES
            )
            if kind in _HISTORY_MESSAGES:
                mode = _HISTORY
            if kind is None:
                mode = _SUITS if suit else _SCALARS
        else:
            mode = {"Card": _CARD, "CardList": _CARD_LIST, "Move": _MOVE}.get(kind or "", _MESSAGE)
            if kind is None:
                mode = _SUIT if suit else _SCALAR
        slots.append(_Slot(f.name, mode, presence=pf.has_presence and kind is None))
    return tuple(slots)


_CARD_MESSAGES: dict[int, cards_pb2.Card] = {
    c: card_to_proto(c) for c in (*C.deck(range(2, 15)), C.JOKER)
}


def to_proto(obj: Any) -> Message:
    """An engine dataclass as the message of the same name."""
    msg = _message_classes()[type(obj).__name__]()
    _fill(msg, obj)
    return msg


def _fill(msg: Any, obj: Any) -> None:
    filler = _FILLERS.get(obj.__class__)
    if filler is None:
        filler = _FILLERS[obj.__class__] = _compile_filler(obj.__class__)
    filler(msg, obj)


_FILLERS: dict[type, Callable[[Any, Any], None]] = {}

# How each mode writes the value ``v`` of field ``{n}`` (the dataclass field and the proto
# field or oneof of the same name); ``{num}`` is the proto field's number, ``{cases}`` the name
# of the oneof's type -> case table in the filler's globals.
_WRITERS = {
    _SCALAR: ["msg.{n} = v"],
    _SCALARS: ["msg.{n}.extend(v)"],
    _CARD: ["msg.{n}.CopyFrom(cards[v])"],
    _CARDS: ["msg.{n}.extend([cards[c] for c in v])"],
    _CARD_LIST: ["t = msg.{n}", "t.SetInParent()", "t.cards.extend([cards[c] for c in v])"],
    _SEAT_CARDS: [
        "items = msg.{n}",
        "for hand in v:",
        "    entry = items.add()",
        "    if hand is not None:",
        "        entry.visible = True",
        "        entry.cards.extend([cards[c] for c in hand])",
    ],
    _SUIT: ["msg.{n} = v + 1"],  # suit_to_proto of a suit that is not None
    _SUITS: ["msg.{n}.extend([0 if s is None else s + 1 for s in v])"],
    _WRAPPED: [
        "items = msg.{n}",
        "for item in v:",
        "    entry = items.add()",
        "    if item is not None:",
        "        entry.value = item",
    ],
    _MOVE: ["msg.{n}.CopyFrom(_move_message(v))"],
    # Parsed from cached wire bytes: far cheaper than copying hundreds of messages.
    _MOVES: ["if v:", "    msg.MergeFromString(_moves_bytes({num}, v))"],
    # Completed tricks never change: each is encoded once, then reused.
    _HISTORY: [
        "if v:",
        "    msg.MergeFromString(b''.join([_framed_message({num}, t) for t in v]))",
    ],
    _MESSAGE: ["t = msg.{n}", "t.SetInParent()", "_fill(t, v)"],
    _MESSAGES: ["items = msg.{n}", "for item in v:", "    _fill(items.add(), item)"],
    _ONEOF: ["t = getattr(msg, {cases}[v.__class__.__name__])", "t.SetInParent()", "_fill(t, v)"],
}


def _compile_filler(cls: type) -> Callable[[Any, Any], None]:
    """The function that writes a ``cls`` into its message: the plan's slots as straight-line
    code, compiled once per class, so a fill runs no per-field dispatch. An absent value (None)
    leaves the field unset: an unset message, an unset optional scalar."""
    desc = _message_classes()[cls.__name__].DESCRIPTOR
    scope: dict[str, Any] = {
        "cards": _CARD_MESSAGES,
        "_fill": _fill,
        "_move_message": _move_message,
        "_moves_bytes": _moves_bytes,
        "_framed_message": _framed_message,
    }
    lines = [f"def fill_{cls.__name__}(msg, obj):"]
    for i, slot in enumerate(_plan(cls)):
        cases = f"_cases_{i}"
        scope[cases] = dict(slot.cases)
        field = desc.fields_by_name.get(slot.name)
        number = field.number if field is not None else 0
        lines += [f"    v = obj.{slot.name}", "    if v is not None:"]
        lines += [
            "        " + line.format(n=slot.name, num=number, cases=cases)
            for line in _WRITERS[slot.mode]
        ]
    lines.append("    return None")
    exec(compile("\n".join(lines), f"<fill {cls.__name__}>", "exec"), scope)
    filler: Callable[[Any, Any], None] = scope[f"fill_{cls.__name__}"]
    return filler


def from_proto(msg: Message) -> Any:
    """The engine dataclass of a message's name (raises InvalidRequest on a malformed card)."""
    cls = _engine_type(msg.DESCRIPTOR.name)
    return cls(**{slot.name: _get(msg, slot) for slot in _plan(cls)})


def _get(msg: Any, slot: _Slot) -> Any:
    mode, name = slot.mode, slot.name
    if mode == _ONEOF:
        case = msg.WhichOneof(name)
        return None if case is None else from_proto(getattr(msg, case))
    raw = getattr(msg, name)
    if mode == _SCALAR:
        return None if slot.presence and not msg.HasField(name) else raw
    if mode == _SCALARS:
        return tuple(raw)
    if mode == _SUIT:
        return suit_from_proto(raw)
    if mode == _SUITS:
        return tuple(suit_from_proto(s) for s in raw)
    if mode == _CARDS:
        return tuple(card_from_proto(c) for c in raw)
    if mode == _SEAT_CARDS:
        return tuple(tuple(card_from_proto(c) for c in e.cards) if e.visible else None for e in raw)
    if mode == _WRAPPED:
        return tuple(e.value if e.HasField("value") else None for e in raw)
    if mode == _MOVES:
        return tuple(move_from_proto(m) for m in raw)
    if mode in (_MESSAGES, _HISTORY):
        return tuple(from_proto(e) for e in raw)
    if not msg.HasField(name):
        return None
    if mode == _CARD:
        return card_from_proto(raw)
    if mode == _CARD_LIST:
        return tuple(card_from_proto(c) for c in raw.cards)
    if mode == _MOVE:
        return move_from_proto(raw)
    return from_proto(raw)  # _MESSAGE


# -- moves, events, views ---------------------------------------------------------------------


@lru_cache(maxsize=8192)
def _move_message(move: Move) -> moves_pb2.Move:
    """Moves are immutable and a view lists hundreds (every way to lay a bid aside), so their
    messages are built once and copied. The cached message is never handed out itself."""
    out = moves_pb2.Move()
    getattr(out, move.kind).CopyFrom(to_proto(move))
    return out


def _moves_bytes(field_number: int, moves: Iterable[Move]) -> bytes:
    """Moves as the elements of a ``repeated Move`` field numbered ``field_number``, on the
    wire: joined from each move's cached bytes (tag, length, message).

    The cache is looked up by the move's field values, one table per move class, rather than by
    the move: a move dataclass hashes and compares in Python, its tuple of values in C, and a
    view of a lay-aside lists hundreds of moves (560 in Counterpoint)."""
    out = []
    cls: Any = None
    key: Callable[[Any], Any] = _no_key
    table: Memo[Any, bytes] = Memo(0)  # replaced by the first move's class table
    for move in moves:
        if move.__class__ is not cls:
            cls = move.__class__
            key, table = _move_table(field_number, cls)
        k = key(move)
        framed = table.get(k)
        if framed is None:
            framed = table.keep(k, _framed(field_number, _move_message(move).SerializeToString()))
        out.append(framed)
    return b"".join(out)


#: Legal moves come from a finite set per game; the limit only bounds memory if that changes.
_MOVE_TABLE_LIMIT = 100_000


def _no_key(_: Any) -> tuple[()]:
    return ()


@cache
def _move_table(field_number: int, cls: type) -> tuple[Callable[[Any], Any], Memo[Any, bytes]]:
    """How to key a move of ``cls`` by its values, and its table of framed bytes."""
    names = [f.name for f in dataclasses.fields(cls)]
    key: Callable[[Any], Any] = operator.attrgetter(*names) if names else _no_key
    return key, Memo(_MOVE_TABLE_LIMIT)


@lru_cache(maxsize=4096)
def _framed_message(field_number: int, obj: Any) -> bytes:
    """An immutable dataclass as one element of a repeated message field, on the wire."""
    return _framed(field_number, to_proto(obj).SerializeToString())


def _framed(field_number: int, body: bytes) -> bytes:
    return _varint(field_number << 3 | 2) + _varint(len(body)) + body


_SMALL_VARINTS = [bytes([n]) for n in range(128)]


def _varint(n: int) -> bytes:
    if n < 128:
        return _SMALL_VARINTS[n]
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def move_to_proto(move: Move) -> moves_pb2.Move:
    out = moves_pb2.Move()
    out.CopyFrom(_move_message(move))
    return out


def move_from_proto(msg: moves_pb2.Move) -> Move:
    case = msg.WhichOneof("kind")
    if case is None:
        raise InvalidRequest("the move is empty", reason="MALFORMED_MOVE")
    move: Move = from_proto(getattr(msg, case))
    return move


def incoming_move(msg: moves_pb2.Move) -> Move:
    """A client's move, by its wire bytes: bots send the moves their view listed, a small set,
    and the same bytes always mean the same (immutable) move. A malformed move raises as
    ``move_from_proto`` does and is not kept."""
    key = msg.SerializeToString()
    move = _INCOMING.get(key)
    if move is None:
        move = _INCOMING.keep(key, move_from_proto(msg))
    return move


_INCOMING: Memo[bytes, Move] = Memo(65_536)  # clients may send anything: bounded


def event_to_proto(event: Event) -> events_pb2.Event:
    out = events_pb2.Event()
    fill_event(out, event)
    return out


def fill_event(target: events_pb2.Event, event: Event) -> None:
    """Write an event into an (empty) Event message in place: no message built and copied."""
    case = getattr(target, event.kind)
    case.SetInParent()  # an event with no fields still names its case
    _fill(case, event)


def fill_events(target: Any, events: Iterable[Event]) -> None:
    """Append events to a ``repeated Event`` field in place."""
    for event in events:
        fill_event(target.add(), event)


def event_from_proto(msg: events_pb2.Event) -> Event:
    case = msg.WhichOneof("kind")
    if case is None:
        raise InvalidRequest("the event is empty")
    event: Event = from_proto(getattr(msg, case))
    return event


def view_to_proto(view: View) -> views_pb2.View:
    out = views_pb2.View()
    fill_view(out, view)
    return out


def fill_view(target: views_pb2.View, view: View) -> None:
    """Write a view into an (empty) View message in place, such as a response's ``view``: a
    lay-aside view holds hundreds of moves, which copying a built message would copy again."""
    target.SetInParent()
    _fill(target, view)


def view_from_proto(msg: views_pb2.View) -> View:
    view: View = from_proto(msg)
    return view


# -- game types and options -------------------------------------------------------------------

_OPTION_KINDS = {
    "bool": game_types_pb2.OPTION_KIND_BOOL,
    "int": game_types_pb2.OPTION_KIND_INT,
    "choice": game_types_pb2.OPTION_KIND_CHOICE,
}


def option_value_to_proto(value: OptionValue) -> game_types_pb2.OptionValue:
    if isinstance(value, bool):
        return game_types_pb2.OptionValue(bool_value=value)
    if isinstance(value, int):
        return game_types_pb2.OptionValue(int_value=value)
    return game_types_pb2.OptionValue(string_value=value)


def option_value_from_proto(msg: game_types_pb2.OptionValue) -> OptionValue:
    case = msg.WhichOneof("value")
    if case is None:
        raise InvalidRequest("an option value is empty", reason="INVALID_OPTION_VALUE")
    value: OptionValue = getattr(msg, case)
    return value


def options_to_proto(options: Mapping[str, OptionValue], target: Any) -> None:
    """Fill a ``map<string, OptionValue>`` field."""
    for name, value in options.items():
        target[name].CopyFrom(option_value_to_proto(value))


def options_from_proto(source: Mapping[str, game_types_pb2.OptionValue]) -> dict[str, OptionValue]:
    return {name: option_value_from_proto(value) for name, value in source.items()}


def option_spec_to_proto(spec: OptionSpec) -> game_types_pb2.OptionSpec:
    out = game_types_pb2.OptionSpec(
        name=spec.name,
        kind=_OPTION_KINDS[spec.kind],
        default_value=option_value_to_proto(spec.default),
        description=spec.description,
        choices=list(spec.choices),
    )
    if spec.minimum is not None:
        out.minimum = spec.minimum
    if spec.maximum is not None:
        out.maximum = spec.maximum
    for when, defaults in spec.sets.items():
        preset = out.presets.add(when=when)
        options_to_proto(defaults, preset.defaults)
    return out


def game_type_to_proto(game_type: GameType) -> game_types_pb2.GameType:
    return game_types_pb2.GameType(
        name=game_type.name,
        title=game_type.title,
        seats=game_type.seats,
        summary=game_type.summary,
        options=[option_spec_to_proto(s) for s in game_type.options],
        move_kinds=list(game_type.move_kinds),
    )


def events_to_proto(events: Iterable[Event]) -> list[events_pb2.Event]:
    return [event_to_proto(e) for e in events]


def submit_move_response(result: MoveResult) -> game_service_pb2.SubmitMoveResponse:
    out = game_service_pb2.SubmitMoveResponse(
        version=result.version, view_version=result.view_version
    )
    fill_events(out.events, result.events)
    fill_view(out.view, result.view)
    fill_clocks(out.view, result.clocks)
    return out


def get_game_response(
    record: GameRecord,
    view: View,
    clocks: Iterable[SeatClockView] = (),
    presence: Iterable[SeatPresenceView] = (),
) -> game_service_pb2.GetGameResponse:
    out = game_service_pb2.GetGameResponse(game=summary_to_proto(record))
    fill_view(out.view, view)
    fill_clocks(out.view, clocks)
    for p in presence:
        out.view.presence.add(seat=p.seat, connected=p.connected, last_seen_ms=p.last_seen_ms)
    return out


# -- clocks -----------------------------------------------------------------------------------


def fill_clocks(target: views_pb2.View, clocks: Iterable[SeatClockView]) -> None:
    """A view's clocks (they are the service's, not the engine view's)."""
    for c in clocks:
        target.clocks.add(
            seat=c.seat,
            move_ms_left=c.move_ms_left,
            bank_ms_left=c.bank_ms_left,
            running=c.running,
            deadline_ms=c.deadline_ms,
            timeouts=c.timeouts,
        )


def time_control_to_proto(data: Mapping[str, Any]) -> clocks_pb2.TimeControl:
    """A stored time control (``service.clocks.TimeControl`` data) as the protocol shows it."""
    return clocks_pb2.TimeControl(
        move_ms=data["move_ms"],
        bank_ms=data["bank_ms"],
        increment_ms=data["increment_ms"],
        on_timeout=clocks_pb2.TIMEOUT_POLICY_FORFEIT
        if data["on_timeout"] == FORFEIT
        else clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE,
        forfeit_after=data["forfeit_after"],
    )


# -- the lobby --------------------------------------------------------------------------------


def game_status(record: GameRecord) -> game_service_pb2.GameStatus.ValueType:
    if record.status == FINISHED:
        return game_service_pb2.GAME_STATUS_FINISHED
    if record.status == ABANDONED:
        return game_service_pb2.GAME_STATUS_ABANDONED
    if record.full:
        return game_service_pb2.GAME_STATUS_PLAYING
    return game_service_pb2.GAME_STATUS_WAITING


def summary_to_proto(record: GameRecord) -> game_service_pb2.GameSummary:
    """The lobby's view of a game: everything but the seed, the snapshot and the seat tokens."""
    out = game_service_pb2.GameSummary(
        game_id=record.game_id,
        game_type=record.game_type,
        seats=[
            game_service_pb2.SeatStatus(
                seat=i,
                taken=s is not None,
                player_name=s.player_name if s else "",
                bot=s.bot if s else "",
            )
            for i, s in enumerate(record.seats)
        ],
        status=game_status(record),
        version=record.version,
        created_at_ms=record.created_at_ms,
    )
    options_to_proto(record.options, out.options)
    if record.resigned_seat is not None:
        out.resigned_seat = record.resigned_seat
    if record.time_control is not None:
        out.time_control.CopyFrom(time_control_to_proto(record.time_control))
    return out


def batch_to_proto(batch: ProjectedBatch) -> game_service_pb2.StreamEventsResponse:
    out = game_service_pb2.StreamEventsResponse()
    fill_batch(out, batch)
    return out


def fill_batch(out: game_service_pb2.StreamEventsResponse, batch: ProjectedBatch) -> None:
    out.version = batch.version
    fill_events(out.events, batch.events)
    if batch.seat is not None:
        out.seat = batch.seat
    if batch.resigned_seat is not None:
        out.resigned_seat = batch.resigned_seat


# -- the play stream --------------------------------------------------------------------------


def play_response(step: PlayStep) -> game_service_pb2.PlayResponse:
    out = game_service_pb2.PlayResponse()
    target = out.step
    answer = step.answer
    if answer is not None:
        target.result.request_id = answer.request_id
        if answer.error is not None:
            # The same status SubmitMove would have ended with, carried as a message (PlayError
            # has google.rpc.Status's fields, so its wire form reads as one).
            target.result.error.MergeFromString(
                rejection(answer.error).status().SerializeToString()
            )
        else:
            assert answer.version is not None
            target.result.version = answer.version
    for batch in step.batches:
        fill_batch(target.events.add(), batch)
    if step.view is not None:
        target.view.version = step.view.version
        fill_view(target.view.view, step.view.view)
        fill_clocks(target.view.view, step.view.clocks)
    return out
