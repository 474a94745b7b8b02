"""What crosses the wire, read as the engine's values: views, events and moves from the protocol
(``tricktable.v1``) as the engine's dataclasses. The one reader of that rule: the server reads
clients' moves with it (``service/convert.py``, which also writes by the same rule), and the
expert reads its views and events with it, to build its seat's information set
(``Rules.information_set_from``) and simulate. It needs the engine (the client package's
``engine`` extra), so it lives in the expert's package, the only part of the client package that
imports the engine.

The rule: an engine dataclass maps to the message of the same name, field by field, by name.
``Card`` is a card id (the Joker has no suit), ``CardList`` a tuple, ``SeatCards`` a tuple or
None (hidden), ``Suit`` 0..3 or None as ``SUIT_UNSPECIFIED``, another enum the lower-case name
of its value without the enum's prefix (``SIXTY_SIX_REASON_FALSE_OUT`` is ``"false_out"``) or
None as the value 0, ``Optional*`` wrappers a value or None, ``Move`` an engine move (the
``kind`` oneof's case), a oneof named like a field the dataclass of its case, another message
the dataclass of its name. A compact lay-aside (``View.lay_aside_choice``) is the engine's lazy
choice of the same cards.

When this module is imported, each engine type's fields are paired, from the proto
descriptors, with the function that reads each one (``_READERS``); reading a value walks its
type's pairs (reading the descriptors on every conversion doubled the cost of a view). A value
that is no engine value (a malformed card, an empty oneof) raises :class:`WireError`.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Iterable
from typing import Any

from google.protobuf.message import Message

from engine import game_names, get_rules
from engine.core import cards as C
from engine.core.events import EVENT_TYPES, Event
from engine.core.laying_aside import LayAsideChoices
from engine.core.moves import MOVE_TYPES, Move
from engine.core.view import View
from tricktable.v1 import cards_pb2, events_pb2, moves_pb2, values_pb2, views_pb2

#: Reads the value of the field ``name`` of a message: ``read(message, name)`` (``getattr``
#: for a plain scalar).
Reader = Callable[[Any, str], Any]

_PROTO_MODULES = (cards_pb2, values_pb2, moves_pb2, events_pb2, views_pb2)
SUIT_ENUM = "tricktable.v1.Suit"


class WireError(ValueError):
    """A message that is no engine value; ``reason``: the protocol's reason code for it."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


def card_from_proto(msg: cards_pb2.Card) -> int:
    suit, rank = int(msg.suit), int(msg.rank)
    if rank == cards_pb2.RANK_JOKER and suit == cards_pb2.SUIT_UNSPECIFIED:
        return C.JOKER
    if 2 <= rank <= 14 and 1 <= suit <= 4:
        return C.card(rank, suit - 1)
    raise WireError(f"not a card: suit {suit}, rank {rank}", "MALFORMED_CARD")


def suit_from_proto(value: int) -> int | None:
    if not 0 <= value <= 4:
        raise WireError(f"not a suit: {value}", "MALFORMED_MOVE")
    return None if value == 0 else value - 1


def _read_card_list(msg: cards_pb2.CardList) -> tuple[int, ...]:
    return tuple([card_from_proto(c) for c in msg.cards])


def _read_seat_cards(msg: cards_pb2.SeatCards) -> tuple[int, ...] | None:
    return tuple([card_from_proto(c) for c in msg.cards]) if msg.visible else None


def _read_optional(msg: Any) -> Any:
    return msg.value if msg.HasField("value") else None


# -- the rule's two sides ---------------------------------------------------------------------


def message_classes() -> dict[str, type[Message]]:
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


def is_suit(field: Any) -> bool:
    return field.enum_type is not None and field.enum_type.full_name == SUIT_ENUM


def enum_words(enum: Any) -> dict[int, str]:
    """An enum's values as the engine names them: ``SIXTY_SIX_REASON_FALSE_OUT`` is
    ``"false_out"`` (the prefix is the name of the value 0 without ``UNSPECIFIED``)."""
    prefix = enum.values_by_number[0].name.removesuffix("UNSPECIFIED")
    return {v.number: v.name.removeprefix(prefix).lower() for v in enum.values if v.number}


# -- reading ------------------------------------------------------------------------------------


def from_proto(msg: Message) -> Any:
    """The engine dataclass of a message's name."""
    cls, fields = _READERS[type(msg)]
    return cls(**{name: read(msg, name) for name, read in fields})


def _field_readers(cls: type) -> tuple[type, tuple[tuple[str, Reader], ...]]:
    """How ``cls`` is read from its message: the class, and each field's reader, chosen from
    the message's descriptor once."""
    desc = MESSAGES[cls.__name__].DESCRIPTOR
    return cls, tuple((f.name, _field_reader(desc, f.name)) for f in dataclasses.fields(cls))


def _field_reader(desc: Any, name: str) -> Reader:
    """How the engine value of the field or oneof ``name`` is read from a message of type
    ``desc``."""
    field = desc.fields_by_name.get(name)
    if field is None:  # a oneof named like the field
        return _read_case
    if field.message_type is not None:
        read = _MESSAGE_READERS.get(field.message_type.name, from_proto)
        return _entries_reader(read) if field.is_repeated else _present_reader(read)
    if field.is_repeated:
        return _read_suits if is_suit(field) else _read_values
    word: Callable[[int], Any] | None = None
    if is_suit(field):
        word = suit_from_proto
    elif field.enum_type is not None:
        word = enum_words(field.enum_type).get  # 0 (unspecified) or unknown: None
    if word is None:
        return _read_present if field.has_presence else getattr
    return _word_reader(word, field.has_presence)


def _read_case(msg: Any, name: str) -> Any:
    case = msg.WhichOneof(name)
    return None if case is None else from_proto(getattr(msg, case))


def _entries_reader(read: Callable[[Any], Any]) -> Reader:
    def entries(msg: Any, name: str) -> tuple[Any, ...]:
        return tuple([read(item) for item in getattr(msg, name)])

    return entries


def _present_reader(read: Callable[[Any], Any]) -> Reader:
    def present(msg: Any, name: str) -> Any:
        return read(getattr(msg, name)) if msg.HasField(name) else None

    return present


def _word_reader(word: Callable[[int], Any], presence: bool) -> Reader:
    def read(msg: Any, name: str) -> Any:
        if presence and not msg.HasField(name):
            return None
        return word(getattr(msg, name))

    return read


def _read_suits(msg: Any, name: str) -> tuple[int | None, ...]:
    return tuple([suit_from_proto(s) for s in getattr(msg, name)])


def _read_values(msg: Any, name: str) -> tuple[Any, ...]:
    return tuple(getattr(msg, name))


def _read_present(msg: Any, name: str) -> Any:
    return getattr(msg, name) if msg.HasField(name) else None


def move_from_proto(msg: moves_pb2.Move) -> Move:
    case = msg.WhichOneof("kind")
    if case is None:
        raise WireError("the move is empty", "MALFORMED_MOVE")
    move: Move = from_proto(getattr(msg, case))
    return move


def event_from_proto(msg: events_pb2.Event) -> Event:
    case = msg.WhichOneof("kind")
    if case is None:
        raise WireError("the event is empty", "INVALID_REQUEST")
    event: Event = from_proto(getattr(msg, case))
    return event


def events_from_proto(msgs: Iterable[events_pb2.Event]) -> list[Event]:
    return [event_from_proto(m) for m in msgs]


def view_from_proto(msg: views_pb2.View) -> View:
    view: View = from_proto(msg)
    if msg.HasField("lay_aside_choice"):  # the compact form: the choice is the legal moves
        choice = msg.lay_aside_choice
        hand = C.mask_of(card_from_proto(c) for c in choice.cards)
        view = dataclasses.replace(view, legal_moves=LayAsideChoices(hand, choice.count))
    return view


#: The expert's short names for the readers.
move = move_from_proto
event = event_from_proto
events = events_from_proto
view = view_from_proto

#: The messages that are not an engine dataclass of their name, and how each is read.
_MESSAGE_READERS: dict[str, Callable[[Any], Any]] = {
    "Card": card_from_proto,
    "CardList": _read_card_list,
    "SeatCards": _read_seat_cards,
    "OptionalInt32": _read_optional,
    "OptionalBool": _read_optional,
    "OptionalString": _read_optional,
    "Move": move_from_proto,
}

#: The two sides of the rule by name. Games register when ``engine`` is imported, so the
#: tables are complete once this module is.
MESSAGES: dict[str, type[Message]] = message_classes()
ENGINE_TYPES: dict[str, type] = engine_types()
_READERS: dict[type[Message], tuple[type, tuple[tuple[str, Reader], ...]]] = {
    MESSAGES[name]: _field_readers(cls) for name, cls in ENGINE_TYPES.items()
}
