"""All conversion between the protocol (``tricktable.v1``) and the engine's types.

Moves, events, views and game details are converted by one rule, not one function per type: an
engine dataclass maps to the proto message of the same name, field by field, by name. How a value
is written follows the proto field's type:

- ``Card`` ⇄ a card id; ``CardList`` (presence) ⇄ a tuple of cards or None (hidden);
  ``repeated Card`` ⇄ a tuple of cards; ``repeated SeatCards`` ⇄ one entry per seat, None when
  the viewer may not see that seat's cards;
- ``Suit`` ⇄ a suit 0..3, or None as ``SUIT_UNSPECIFIED``; another enum ⇄ the lower-case
  name of its value without the enum's prefix (``SIXTY_SIX_REASON_FALSE_OUT`` ⇄
  ``"false_out"``), or None as the value 0 (``…_UNSPECIFIED``);
- ``repeated OptionalInt32/OptionalBool/OptionalString`` ⇄ a tuple whose entries may be None;
- ``Move`` ⇄ an engine move (the ``kind`` oneof's case is the move's ``kind``);
- a oneof named like a dataclass field (``View.detail``) ⇄ a dataclass of the case's type;
- another message ⇄ the dataclass of its name; ``optional`` scalars ⇄ a value or None.

So a game that lands with new moves, events or a detail joins the protocol by adding messages to
``proto/`` only. ``tests/service/test_convert.py`` holds every registered kind to a complete
mapping and round-trips real games. Values coming from clients are checked here: a malformed card
or an empty oneof is an ``InvalidRequest`` before the engine sees the move.

How each engine type's fields are written and read is taken from the proto descriptors once,
when this module is imported (``_FILLERS``, ``_READERS``). The caches are ``_shared_message``
and the wire form of each entry of a repeated card, move, trick or event field
(``_entries_writer``) and of each view's detail and trick on the table (``_wire_writer``): a
view lists every legal move, hundreds when bid cards are laid aside, every completed trick of
its deal and 20 cards or more; a game's moves, tricks, events and details repeat.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, cast

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
from engine.core.laying_aside import LayAsideChoices
from engine.core.memo import Memo
from engine.core.moves import MOVE_TYPES, Move
from engine.core.options import OptionSpec, OptionValue
from engine.core.rules import GameType
from engine.core.view import View
from service.clocks import FORFEIT, SeatClockView
from service.errors import InvalidRequest, rejection
from service.results import MoveResult, PlayStep, ProjectedBatch, SeatPresenceView
from service.store.base import ABANDONED, FINISHED, GameRecord

_PROTO_MODULES = (cards_pb2, values_pb2, moves_pb2, events_pb2, views_pb2)
_SUIT_ENUM = "tricktable.v1.Suit"
#: Message fields the service fills beside the engine's (the engine knows no clock).
SERVICE_FIELDS: Mapping[str, frozenset[str]] = {
    "View": frozenset({"clocks", "presence", "lay_aside_choice"})
}

# -- cards -----------------------------------------------------------------------------------


def card_to_proto(c: int) -> cards_pb2.Card:
    out = cards_pb2.Card()
    _fill_card(out, c)
    return out


def _fill_card(target: cards_pb2.Card, c: int) -> None:
    if c == C.JOKER:
        target.rank = cards_pb2.RANK_JOKER  # the joker has no suit
    else:
        target.suit = cards_pb2.Suit.ValueType((c >> 4) + 1)
        target.rank = cards_pb2.Rank.ValueType(c & 15)


def _wire_forms(
    message: type[Message], fill: Writer
) -> tuple[Memo[Any, bytes], Callable[[Any], bytes]]:
    """Values' wire forms in a ``message`` written by ``fill`` (the message holding the value
    alone, serialized), kept once made: the memo to look them up in, and what makes one that is
    missing."""
    forms: Memo[Any, bytes] = Memo(65_536)

    def make(value: Any) -> bytes:
        holder = message()
        fill(holder, value)
        return forms.keep(value, holder.SerializeToString())

    return forms, make


def _entries_writer(message: type[Message], name: str, fill: Writer) -> Writer:
    """How a list of values is written into the repeated message field ``name`` of a
    ``message``: each value's wire form as that field's entry (``message`` holding it alone
    there, written by ``fill``, serialized), made once per value, the list's joined and parsed
    into the target at once. Appending messages copies each, and upb copies a message by
    encoding and parsing it, one by one: for a hand of 16 cards that cost four times as much.
    The parse appends the same entries, so the message, and the bytes sent, are the same. A
    new value is filled in its entry, not built and copied in: a deal's tricks, its scoring
    and many events are new, and the copy cost 3% of a play step's conversion (recorded
    Counterpoint steps, caches cold: 105.8k instructions a step, 102.6k so)."""
    entries, entry_bytes = _wire_forms(
        message, lambda holder, value: fill(getattr(holder, name).add(), value)
    )

    def write(msg: Any, values: Iterable[Any]) -> None:
        values = tuple(values)  # read twice when one is new (a tuple is not copied)
        try:  # hits are the rule: looked up in one ``map``, 4% of a play step's conversion
            data = b"".join(map(entries.__getitem__, values))
        except KeyError:  # a value not seen yet: its entry is made
            data = b"".join([entries.get(v) or entry_bytes(v) for v in values])
        msg.MergeFromString(data)

    return write


def _wire_writer(message: type[Message], fill: Writer) -> Writer:
    """How a value is written into a ``message`` by ``fill`` when the value repeats whole: its
    wire form (``message`` holding it alone, serialized), made once per value and parsed into
    the target. A view's ``detail`` is the same for every view of a deal but for a field or
    two, and it holds the last deal's scoring (bids, cards laid aside, the game's result):
    filled field by field it was a fifth of a play step's conversion (Counterpoint: 130.7k
    instructions a step, 105.9k so); the trick on the table, seen by every seat until the next
    card, 1.5% more. The parse sets the same fields, so the message, and the bytes sent, are
    the same."""
    wires, wire = _wire_forms(message, fill)

    def write(msg: Any, value: Any) -> None:
        msg.MergeFromString(wires.get(value) or wire(value))

    return write


def _cards_writer(message: type[Message], name: str) -> Writer:
    """Cards appended to a ``repeated Card`` field (a view holds 20 cards or more)."""
    return _entries_writer(message, name, _fill_card)


_fill_card_list_cards = _cards_writer(cards_pb2.CardList, "cards")
_fill_seat_cards_cards = _cards_writer(cards_pb2.SeatCards, "cards")
_fill_choice_cards = _cards_writer(views_pb2.LayAsideChoice, "cards")


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


def _message_classes() -> dict[str, type[Message]]:
    """Every message of the engine's kinds, by name."""
    return {
        name: getattr(module, name)
        for module in _PROTO_MODULES
        for name in module.DESCRIPTOR.message_types_by_name
    }


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


def to_proto(obj: Any) -> Message:
    """An engine dataclass as the message of the same name."""
    msg = _MESSAGES[type(obj).__name__]()
    _fill(msg, obj)
    return msg


def _fill(msg: Any, obj: Any) -> None:
    """Write the fields of ``obj`` into ``msg``, a message of its name. A field that is None
    stays unset: an unset message, an unset optional scalar."""
    _FILLERS[type(obj)](msg, obj)


Writer = Callable[[Any, Any], None]
#: How ``_filler``'s code stores a field's value, with the function ``_writer`` chose for it:
#: ``_SET`` stores the value itself (there is no function), ``_CONVERT`` what the function makes
#: of it; ``_EXTEND`` appends the values to a repeated scalar field; ``_PRESENT`` fills the
#: message of a singular field with the function (present even when all its fields keep their
#: defaults); ``_ITEMS`` fills one added entry of a repeated message field with it per value;
#: ``_CALL`` hands the message and the value to the function, ``_ENTRIES`` too for a repeated
#: field. The repeated ones store nothing for no values: an empty repeated field is not sent.
_SET, _CONVERT, _EXTEND, _PRESENT, _ITEMS, _CALL, _ENTRIES = (
    "set",
    "convert",
    "extend",
    "present",
    "items",
    "call",
    "entries",
)
_REPEATED = (_EXTEND, _ITEMS, _ENTRIES)
#: The code of each, for a field ``{name}`` whose function is ``write_{name}``.
_STORE_CODE = {
    _SET: ["        msg.{name} = value"],
    _CONVERT: ["        msg.{name} = write_{name}(value)"],
    _EXTEND: ["        msg.{name}.extend(value)"],
    _PRESENT: [
        "        item = msg.{name}",
        "        item.SetInParent()",
        "        write_{name}(item, value)",
    ],
    _ITEMS: [
        "        items = msg.{name}",
        "        for item in value:",
        "            write_{name}(items.add(), item)",
    ],
    _CALL: ["        write_{name}(msg, value)"],
    _ENTRIES: ["        write_{name}(msg, value)"],
}


def _fillers() -> dict[type, Writer]:
    """``_filler`` for every engine type, each compiled after the types its fields hold, so
    that it calls their fillers directly rather than through ``_fill``. With a field's
    message, entries or values stored in the filler's own code (``_STORE_CODE``) instead of
    by a function per field, a play step's conversion cost 7% less (play_response 266k
    instructions a move to 247k in Counterpoint, 385k to 358k in Ninety-Nine)."""
    fillers: dict[type, Writer] = {}
    started: set[str] = set()

    def fill_of(kind: str) -> Writer:
        cls = _ENGINE_TYPES.get(kind)
        if cls is None or (kind in started and cls not in fillers):  # unknown, or a cycle
            return _fill
        if cls not in fillers:
            started.add(kind)
            fillers[cls] = _filler(cls, fill_of)
        return fillers[cls]

    for kind in _ENGINE_TYPES:
        fill_of(kind)
    return fillers


def _filler(
    cls: type, fill_of: Callable[[str], Writer], skip: frozenset[str] = frozenset()
) -> Writer:
    """``_fill`` for ``cls``: its fields' writers as one straight-line function, compiled
    once. A view's conversion is mostly this per-field dispatch (some 50 fields a view, in
    seats, tricks and details); written out, a plain scalar is one attribute store instead of
    a lookup, a call and a ``setattr``, and a play step's conversion costs a tenth less (236k
    instructions to 213k in Counterpoint). What is written stays ``_writer``'s choice, so the
    rule stays written once. The fields in ``skip`` are not written."""
    desc = _MESSAGES[cls.__name__].DESCRIPTOR
    lines = ["def fill(msg, obj):"]
    writers: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        name = f.name
        if name in skip:
            continue
        assert name.isidentifier()  # a dataclass field's name, pasted into the code below
        store, write = _writer(desc, name, fill_of)
        guard = "if value:" if store in _REPEATED else "if value is not None:"
        lines += [f"    value = obj.{name}", f"    {guard}"]
        lines += [line.format(name=name) for line in _STORE_CODE[store]]
        if write is not None:
            writers[f"write_{name}"] = write
    if len(lines) == 1:
        lines.append("    pass")
    code: dict[str, Any] = {}
    exec("\n".join(lines), writers, code)  # code made of dataclass field names only
    fill: Writer = code["fill"]
    return fill


def _writer(
    desc: Any, name: str, fill_of: Callable[[str], Writer]
) -> tuple[str, Callable[..., Any] | None]:
    """How the engine value of field ``name`` is written into a message of type ``desc``: how
    ``_filler``'s code stores it, and with what (None for ``_SET`` and ``_EXTEND``: the field's
    value as it is, ints, bools or strings). ``fill_of`` gives the filler of an engine type."""
    field = desc.fields_by_name.get(name)
    if field is None:  # a oneof named like the field: the case is the value's type
        cases = {
            _ENGINE_TYPES[c.message_type.name]: (c.name, fill_of(c.message_type.name))
            for c in desc.oneofs_by_name[name].fields
            if c.message_type.name in _ENGINE_TYPES
        }

        def write_case(msg: Any, value: Any) -> None:
            case, fill = cases[type(value)]
            item = getattr(msg, case)
            item.SetInParent()
            fill(item, value)

        # A view's detail, a deal's result: the same for many views (``_wire_writer``).
        return _CALL, _wire_writer(_MESSAGES[desc.name], write_case)
    kind = field.message_type.name if field.message_type is not None else None
    if kind == "Move" and field.is_repeated:
        return _ENTRIES, _entries_writer(_MESSAGES[desc.name], name, _fill_move_case)
    if kind == "TrickView":  # the deal's tricks and the trick on the table: many views show them
        fill = fill_of(kind)
        if field.is_repeated:
            return _ENTRIES, _entries_writer(_MESSAGES[desc.name], name, fill)
        return _CALL, _wire_writer(
            _MESSAGES[desc.name], lambda msg, trick: _fill_present(getattr(msg, name), trick, fill)
        )
    if kind == "Card" and field.is_repeated:
        return _ENTRIES, _cards_writer(_MESSAGES[desc.name], name)
    if kind is not None:
        fill = _MESSAGE_FILLERS.get(kind) or fill_of(kind)
        return (_ITEMS if field.is_repeated else _PRESENT), fill
    if _is_suit(field) and field.is_repeated:
        return _ENTRIES, lambda msg, value: getattr(msg, name).extend(
            [suit_to_proto(s) for s in value]
        )
    if _is_suit(field):
        return _CONVERT, suit_to_proto
    if field.enum_type is not None:
        numbers = {word: number for number, word in _enum_words(field.enum_type).items()}
        return _CONVERT, numbers.__getitem__
    if field.is_repeated:
        return _EXTEND, None
    return _SET, None


def _fill_present(target: Any, value: Any, fill: Writer) -> None:
    """Fill a singular message field, present even when all its fields keep their defaults."""
    target.SetInParent()
    fill(target, value)


def _fill_seat_cards(target: cards_pb2.SeatCards, cards: Iterable[int] | None) -> None:
    if cards is not None:  # None: the viewer may not see this seat's cards
        target.visible = True
        _fill_seat_cards_cards(target, cards)


def _fill_optional(target: Any, value: Any) -> None:
    if value is not None:
        target.value = value


def _is_suit(field: Any) -> bool:
    return field.enum_type is not None and field.enum_type.full_name == _SUIT_ENUM


def _enum_words(enum: Any) -> dict[int, str]:
    """An enum's values as the engine names them: ``SIXTY_SIX_REASON_FALSE_OUT`` is
    ``"false_out"`` (the prefix is the name of the value 0 without ``UNSPECIFIED``)."""
    prefix = enum.values_by_number[0].name.removesuffix("UNSPECIFIED")
    return {v.number: v.name.removeprefix(prefix).lower() for v in enum.values if v.number}


def from_proto(msg: Message) -> Any:
    """The engine dataclass of a message's name (raises InvalidRequest on a malformed card)."""
    return _READERS[type(msg)](msg)


Reader = Callable[[Any], Any]


def _reader(cls: type) -> Reader:
    """``from_proto`` for the message of ``cls``: its fields' readers as one straight-line
    function, compiled once, like ``_filler``. Reading the descriptors field by field on every
    move that came in cost twice as much: 29.5k instructions a move, 16.7k so (Counterpoint).
    What is read stays ``_field_reader``'s choice, so the rule stays written once."""
    lines = ["def read(msg):", "    return cls("]
    readers: dict[str, Any] = {"cls": cls}
    desc = _MESSAGES[cls.__name__].DESCRIPTOR
    for f in dataclasses.fields(cls):
        name = f.name
        assert name.isidentifier()  # a dataclass field's name, pasted into the code below
        read = _field_reader(desc, name)
        if read is None:
            lines.append(f"        {name}=msg.{name},")
        else:
            readers[f"read_{name}"] = read
            lines.append(f"        {name}=read_{name}(msg),")
    lines.append("    )")
    code: dict[str, Any] = {}
    exec("\n".join(lines), readers, code)  # code made of dataclass field names only
    reader: Reader = code["read"]
    return reader


def _field_reader(desc: Any, name: str) -> Reader | None:
    """How the engine value of the field or oneof ``name`` is read from a message of type
    ``desc``; None when it is the field's value as it is (a singular int, bool or string
    without presence), read by ``_reader``'s code itself."""
    field = desc.fields_by_name.get(name)
    if field is None:  # a oneof named like the field

        def read_case(msg: Any) -> Any:
            case = msg.WhichOneof(name)
            return None if case is None else from_proto(getattr(msg, case))

        return read_case
    if field.message_type is not None:
        read: Reader = _MESSAGE_READERS.get(field.message_type.name, from_proto)
        if field.is_repeated:
            return lambda msg: tuple([read(item) for item in getattr(msg, name)])
        return lambda msg: read(getattr(msg, name)) if msg.HasField(name) else None
    if field.is_repeated:
        if _is_suit(field):
            return lambda msg: tuple([suit_from_proto(s) for s in getattr(msg, name)])
        return lambda msg: tuple(getattr(msg, name))
    word: Reader | None = None
    if _is_suit(field):
        word = suit_from_proto
    elif field.enum_type is not None:
        word = _enum_words(field.enum_type).get  # 0 (unspecified) or unknown: None
    if not field.has_presence:
        return None if word is None else lambda msg: word(getattr(msg, name))
    if word is None:
        return lambda msg: getattr(msg, name) if msg.HasField(name) else None
    return lambda msg: word(getattr(msg, name)) if msg.HasField(name) else None


def _read_card_list(msg: cards_pb2.CardList) -> tuple[int, ...]:
    return tuple(card_from_proto(c) for c in msg.cards)


def _read_seat_cards(msg: cards_pb2.SeatCards) -> tuple[int, ...] | None:
    return tuple(card_from_proto(c) for c in msg.cards) if msg.visible else None


def _read_optional(msg: Any) -> Any:
    return msg.value if msg.HasField("value") else None


# -- moves, events, views ---------------------------------------------------------------------


def move_to_proto(move: Move) -> moves_pb2.Move:
    out = moves_pb2.Move()
    fill_move(out, move)
    return out


def fill_move(target: moves_pb2.Move, move: Move) -> None:
    """Write a move into an (empty) Move message."""
    target.CopyFrom(cast(moves_pb2.Move, _shared_message(move)))


@lru_cache(maxsize=65_536)
def _shared_message(move: Move) -> Message:
    """A move as a Move message, never handed out itself, only copied: a game's moves repeat.
    (A view's legal moves, hundreds in a lay-aside, are written as wire entries.)"""
    out = moves_pb2.Move()
    _fill_move_case(out, move)
    return out


def _fill_move_case(target: moves_pb2.Move, move: Move) -> None:
    """Write a move into an (empty) Move message: the case named by the move's kind."""
    _fill_present(getattr(target, move.kind), move, _fill)


def move_from_proto(msg: moves_pb2.Move) -> Move:
    case = msg.WhichOneof("kind")
    if case is None:
        raise InvalidRequest("the move is empty", reason="MALFORMED_MOVE")
    move: Move = from_proto(getattr(msg, case))
    return move


def event_to_proto(event: Event) -> events_pb2.Event:
    out = events_pb2.Event()
    fill_event(out, event)
    return out


def fill_event(target: events_pb2.Event, event: Event) -> None:
    """Write an event into an (empty) Event message: the case named by the event's kind."""
    _fill_present(getattr(target, event.kind), event, _fill)


#: The responses that carry events, and how each writes them: as their wire entries.
_EVENT_WRITERS: dict[type[Message], Writer] = {
    m: _entries_writer(m, "events", fill_event)
    for m in (game_service_pb2.StreamEventsResponse, game_service_pb2.SubmitMoveResponse)
}


def fill_events(
    target: game_service_pb2.StreamEventsResponse | game_service_pb2.SubmitMoveResponse,
    events: Iterable[Event],
) -> None:
    """Append events to the ``events`` field of ``target``, each written as its wire entry
    (``_entries_writer``). A game's events repeat: every seat's batch holds the same public
    events, and the same cards are played game after game. Building each event's message and
    appending it (a copy) cost an eighth of a play step's conversion (play_response 305k
    instructions a move, 266k so, in Counterpoint)."""
    _EVENT_WRITERS[type(target)](target, events)


def event_from_proto(msg: events_pb2.Event) -> Event:
    case = msg.WhichOneof("kind")
    if case is None:
        raise InvalidRequest("the event is empty")
    event: Event = from_proto(getattr(msg, case))
    return event


def view_to_proto(view: View, compact_lay_aside: bool = False) -> views_pb2.View:
    out = views_pb2.View()
    fill_view(out, view, compact_lay_aside)
    return out


def fill_view(target: views_pb2.View, view: View, compact_lay_aside: bool = False) -> None:
    """Write a view into an (empty) View message, such as a response's ``view``: written in
    place, a view's legal moves are not built once and copied again. ``compact_lay_aside``
    (the request's flag): a lay-aside is written as one ``lay_aside_choice``, not as moves."""
    target.SetInParent()
    if compact_lay_aside and isinstance(view.legal_moves, LayAsideChoices):
        _fill_view_but_moves(target, view)
        fill_lay_aside_choice(target.lay_aside_choice, view.legal_moves)
    else:
        _fill_view(target, view)


def fill_lay_aside_choice(target: views_pb2.LayAsideChoice, choices: LayAsideChoices) -> None:
    """The engine's lazy lay-asides as the protocol's choice: the viewer's own hand (the only
    cards in it) and how many of them to lay aside. Which lay-asides are legal stays the
    engine's rule: this writes what its choices hold."""
    _fill_choice_cards(target, choices.cards)
    target.count = choices.choose


def view_from_proto(msg: views_pb2.View) -> View:
    view: View = from_proto(msg)
    if msg.HasField("lay_aside_choice"):  # the compact form: the choice is the legal moves
        choice = msg.lay_aside_choice
        hand = C.mask_of(card_from_proto(c) for c in choice.cards)
        view = dataclasses.replace(view, legal_moves=LayAsideChoices(hand, choice.count))
    return view


#: The messages that are not an engine dataclass of their name, and how each is written.
_MESSAGE_FILLERS: dict[str, Writer] = {
    "Card": _fill_card,
    "CardList": _fill_card_list_cards,
    "SeatCards": _fill_seat_cards,
    "OptionalInt32": _fill_optional,
    "OptionalBool": _fill_optional,
    "OptionalString": _fill_optional,
    "Move": fill_move,
}
_MESSAGE_READERS: dict[str, Reader] = {
    "Card": card_from_proto,
    "CardList": _read_card_list,
    "SeatCards": _read_seat_cards,
    "OptionalInt32": _read_optional,
    "OptionalBool": _read_optional,
    "OptionalString": _read_optional,
    "Move": move_from_proto,
}

#: The two sides of the rule by name, and how each engine type is written. Games register when
#: ``engine`` is imported, so the tables are complete once this module is. Writers and readers
#: are chosen from the proto descriptors here, once, not on every conversion: reading the
#: descriptors field by field doubled the cost of converting a view.
_MESSAGES: dict[str, type[Message]] = _message_classes()
_ENGINE_TYPES: dict[str, type] = engine_types()
_FILLERS: dict[type, Writer] = _fillers()
_fill_view = _FILLERS[View]
#: The compact form's: a view but its legal moves, without a copy of the view made to empty
#: them (1.5% of a play step's conversion in Counterpoint, where a deal starts with lay-asides).
#: Its wire caches (tricks, detail) are its own: its views are a deal's first, few of a game's.
_fill_view_but_moves = _filler(
    View, lambda kind: _FILLERS[_ENGINE_TYPES[kind]], skip=frozenset({"legal_moves"})
)
_READERS: dict[type[Message], Reader] = {
    _MESSAGES[name]: _reader(cls) for name, cls in _ENGINE_TYPES.items()
}


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
    out = game_types_pb2.GameType(
        name=game_type.name,
        title=game_type.title,
        seats=game_type.seats,
        summary=game_type.summary,
        options=[option_spec_to_proto(s) for s in game_type.options],
        move_kinds=list(game_type.move_kinds),
        rank_order=[cards_pb2.Rank.ValueType(r) for r in game_type.rank_order],
        card_points=[
            game_types_pb2.RankValue(rank=cards_pb2.Rank.ValueType(r), value=p)
            for r, p in game_type.card_points.items()
        ],
    )
    reading = game_type.bid_reading
    if reading is not None:
        out.bid_reading.CopyFrom(
            game_types_pb2.BidCardReading(
                suit_values=[
                    game_types_pb2.SuitValue(suit=suit_to_proto(suit), value=v)
                    for suit, v in reading.suit_values.items()
                ],
                cards=reading.cards,
                high_reading_max=reading.high_reading_max,
                high_reading_add=reading.high_reading_add,
            )
        )
    return out


def events_to_proto(events: Iterable[Event]) -> list[events_pb2.Event]:
    return [event_to_proto(e) for e in events]


def submit_move_response(
    result: MoveResult, compact_lay_aside: bool = False
) -> game_service_pb2.SubmitMoveResponse:
    out = game_service_pb2.SubmitMoveResponse(
        version=result.version, view_version=result.view_version
    )
    fill_events(out, result.events)
    fill_view(out.view, result.view, compact_lay_aside)
    fill_clocks(out.view, result.clocks)
    return out


def get_game_response(
    record: GameRecord,
    view: View,
    clocks: Iterable[SeatClockView] = (),
    presence: Iterable[SeatPresenceView] = (),
    compact_lay_aside: bool = False,
) -> game_service_pb2.GetGameResponse:
    out = game_service_pb2.GetGameResponse(game=summary_to_proto(record))
    fill_view(out.view, view, compact_lay_aside)
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
    fill_events(out, batch.events)
    if batch.seat is not None:
        out.seat = batch.seat
    if batch.resigned_seat is not None:
        out.resigned_seat = batch.resigned_seat


# -- the play stream --------------------------------------------------------------------------


def play_response(step: PlayStep, compact_lay_aside: bool = False) -> game_service_pb2.PlayResponse:
    out = game_service_pb2.PlayResponse()
    target = out.step  # each submessage is looked up once: every lookup makes a wrapper
    answer = step.answer
    if answer is not None:
        result = target.result
        result.request_id = answer.request_id
        if answer.error is not None:
            # The same status SubmitMove would have ended with, carried as a message (PlayError
            # has google.rpc.Status's fields, so its wire form reads as one).
            result.error.MergeFromString(rejection(answer.error).status().SerializeToString())
        else:
            assert answer.version is not None
            result.version = answer.version
    if step.batches:
        batches = target.events
        for batch in step.batches:
            fill_batch(batches.add(), batch)
    seat_view = step.view
    if seat_view is not None:
        played = target.view
        played.version = seat_view.version
        view = played.view
        fill_view(view, seat_view.view, compact_lay_aside)
        fill_clocks(view, seat_view.clocks)
    return out
