"""What a client receives, as the engine's values: views, events and moves read from the
protocol, so a bot holding the engine can build its seat's information set
(``Rules.information_set_from``) and simulate.

The protocol's messages mirror the engine's dataclasses by name, field by field (the server
writes them by that rule, ``service/convert.py``); this module reads by the same rule, and only
reads: a client never writes an engine value to the wire. ``Card`` is a card id (the Joker has no
suit), ``CardList`` a tuple, ``SeatCards`` a tuple or None (hidden), ``Suit`` 0..3 or None, any
other enum the lower-case name of its value without the enum's prefix, ``Optional*`` wrappers a
value or None, a oneof named like a field the dataclass of its case. A compact lay-aside
(``View.lay_aside_choice``) is the engine's lazy choice of the same cards.
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
from tricktable.v1 import cards_pb2, events_pb2, moves_pb2, views_pb2

Reader = Callable[[Any, str], Any]


class WireError(ValueError):
    """A message that is no engine value (a malformed card, an empty oneof)."""


def card(msg: cards_pb2.Card) -> int:
    suit, rank = int(msg.suit), int(msg.rank)
    if rank == cards_pb2.RANK_JOKER and suit == cards_pb2.SUIT_UNSPECIFIED:
        return C.JOKER
    if 2 <= rank <= 14 and 1 <= suit <= 4:
        return C.card(rank, suit - 1)
    raise WireError(f"not a card: suit {suit}, rank {rank}")


def _suit(value: int) -> int | None:
    return None if value == 0 else value - 1


def _cards(msg: Any) -> tuple[int, ...]:
    return tuple([card(c) for c in msg.cards])


def _seat_cards(msg: Any) -> tuple[int, ...] | None:
    return _cards(msg) if msg.visible else None


def _optional(msg: Any) -> Any:
    return msg.value if msg.HasField("value") else None


def move(msg: moves_pb2.Move) -> Move:
    case = msg.WhichOneof("kind")
    if case is None:
        raise WireError("an empty move")
    read: Move = _read(getattr(msg, case))
    return read


def event(msg: events_pb2.Event) -> Event:
    case = msg.WhichOneof("kind")
    if case is None:
        raise WireError("an empty event")
    read: Event = _read(getattr(msg, case))
    return read


def events(msgs: Iterable[events_pb2.Event]) -> list[Event]:
    return [event(m) for m in msgs]


def view(msg: views_pb2.View) -> View:
    read: View = _read(msg)
    if msg.HasField("lay_aside_choice"):  # the compact form: the choice is the legal moves
        choice = msg.lay_aside_choice
        hand = C.mask_of(card(c) for c in choice.cards)
        read = dataclasses.replace(read, legal_moves=LayAsideChoices(hand, choice.count))
    return read


_SPECIAL: dict[str, Callable[[Any], Any]] = {
    "Card": card,
    "CardList": _cards,
    "SeatCards": _seat_cards,
    "OptionalInt32": _optional,
    "OptionalBool": _optional,
    "OptionalString": _optional,
    "Move": move,
}


def _engine_types() -> dict[str, type]:
    """Every engine dataclass that crosses the wire, by name (those the dataclasses of views,
    moves, events and each game's detail hold, found through their type hints)."""
    roots: list[type] = [View, *MOVE_TYPES.values(), *EVENT_TYPES.values()]
    roots += [get_rules(name).detail_type for name in game_names()]
    found: dict[str, type] = {}
    while roots:
        cls = roots.pop()
        if cls.__name__ in found:
            continue
        found[cls.__name__] = cls
        hints = typing.get_type_hints(cls)
        roots.extend(c for f in dataclasses.fields(cls) for c in _dataclasses_in(hints[f.name]))
    return found


def _dataclasses_in(hint: Any) -> list[type]:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return [hint]
    return [c for arg in typing.get_args(hint) for c in _dataclasses_in(arg)]


_TYPES = _engine_types()
_READERS: dict[type[Message], tuple[type, tuple[tuple[str, Reader], ...]]] = {}


def _read(msg: Message) -> Any:
    """The engine dataclass of a message's name."""
    entry = _READERS.get(type(msg))
    if entry is None:
        entry = _READERS[type(msg)] = _readers(type(msg))
    cls, fields = entry
    return cls(**{name: read(msg, name) for name, read in fields})


def _readers(message: type[Message]) -> tuple[type, tuple[tuple[str, Reader], ...]]:
    cls = _TYPES[message.DESCRIPTOR.name]
    desc = message.DESCRIPTOR
    return cls, tuple((f.name, _field_reader(desc, f.name)) for f in dataclasses.fields(cls))


def _field_reader(desc: Any, name: str) -> Reader:
    field = desc.fields_by_name.get(name)
    if field is None:  # a oneof named like the field
        return _read_case
    repeated = field.is_repeated
    if field.message_type is not None:
        one: Callable[[Any], Any] = _SPECIAL.get(field.message_type.name, _read)

        def entries(msg: Any, n: str) -> tuple[Any, ...]:
            return tuple([one(item) for item in getattr(msg, n)])

        def present(msg: Any, n: str) -> Any:
            return one(getattr(msg, n)) if msg.HasField(n) else None

        return entries if repeated else present
    word: Callable[[int], Any] | None = None
    if field.enum_type is not None:
        if field.enum_type.full_name == "tricktable.v1.Suit":
            word = _suit
        else:
            prefix = field.enum_type.values_by_number[0].name.removesuffix("UNSPECIFIED")
            words = {
                v.number: v.name.removeprefix(prefix).lower()
                for v in field.enum_type.values
                if v.number
            }
            word = words.get
    if repeated:
        if word is not None:
            convert = word
            return lambda msg, n: tuple([convert(v) for v in getattr(msg, n)])
        return lambda msg, n: tuple(getattr(msg, n))
    presence = field.has_presence
    if word is None:
        if presence:
            return lambda msg, n: getattr(msg, n) if msg.HasField(n) else None
        return getattr
    convert = word
    if presence:
        return lambda msg, n: convert(getattr(msg, n)) if msg.HasField(n) else None
    return lambda msg, n: convert(getattr(msg, n))


def _read_case(msg: Any, name: str) -> Any:
    case = msg.WhichOneof(name)
    return None if case is None else _read(getattr(msg, case))
