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
mapping, round-trips real games and holds every view, event and play step of the golden games
to the bytes recorded under ``tests/fixtures/golden_wire/``. Values coming from clients are
checked here: a malformed card or an empty oneof is an ``InvalidRequest`` before the engine sees
the move.

The rule is applied by plain functions. When this module is imported, each engine type's
fields are paired, from the proto descriptors, with the function that writes each one
(``_PLANS``); converting a value walks its type's pairs. Reading is the client package's
``tricktable.bots.expert.wire`` (the one reader: the expert reads its views and events by the
same rule; it lives with the expert, the client package's only part that needs the engine), its
malformed values refused here as an ``InvalidRequest``. Reading the
descriptors on every conversion instead doubled the cost of converting a view. Two tables of
wire forms remain, each with its measured figure where it is made: each card's as the entry of
each ``repeated Card`` field, made at import (``_cards_writer``), and the one cache, of the
parts of a view that repeat from view to view: the deal's tricks, the legal moves and the
game's detail (``_kept``).

The service's own values (a move's result, a batch of events, a play step, a seat's presence)
are read by their shape (``MoveOutcome``, ``Batch``, ``Step``, ``SeatPresence``): this module
stands below the modules that define them and imports none of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from google.protobuf.message import Message
from tricktable.bots.expert import wire
from tricktable.v1 import (
    cards_pb2,
    clocks_pb2,
    events_pb2,
    game_service_pb2,
    game_types_pb2,
    moves_pb2,
    views_pb2,
)

from engine.core import cards as C
from engine.core.events import Event
from engine.core.laying_aside import LayAsideChoices
from engine.core.memo import Memo
from engine.core.moves import Move
from engine.core.options import OptionSpec, OptionValue
from engine.core.rules import GameType
from engine.core.view import View
from service.clocks import FORFEIT, SeatClockView
from service.errors import InvalidRequest, rejection
from service.store.base import ABANDONED, FINISHED, GameRecord

T = TypeVar("T")

#: The rule's two sides, as the reader finds them: the engine's dataclasses that cross the wire
#: and the protocol's messages, by name (``tests/service/test_convert.py`` holds them to a
#: complete mapping).
engine_types = wire.engine_types
detail_types = wire.detail_types
_message_classes = wire.message_classes
#: Message fields the service fills beside the engine's (the engine knows no clock).
SERVICE_FIELDS: Mapping[str, frozenset[str]] = {
    "View": frozenset({"clocks", "presence", "lay_aside_choice"})
}

# -- the service's values, by their shape -------------------------------------------------------


class SeatPresence(Protocol):
    """A seat's presence (``service.game_service.SeatPresenceView``)."""

    @property
    def seat(self) -> int: ...
    @property
    def connected(self) -> bool: ...
    @property
    def last_seen_ms(self) -> int: ...


class MoveOutcome(Protocol):
    """A move's result as SubmitMove answers it (``service.game_service.MoveResult``)."""

    @property
    def version(self) -> int: ...
    @property
    def events(self) -> Sequence[Event]: ...
    @property
    def view(self) -> View: ...
    @property
    def view_version(self) -> int: ...
    @property
    def clocks(self) -> Iterable[SeatClockView]: ...


class Batch(Protocol):
    """One version's events as a viewer sees them (``service.game_service.ProjectedBatch``)."""

    @property
    def version(self) -> int: ...
    @property
    def seat(self) -> int | None: ...
    @property
    def events(self) -> Sequence[Event]: ...
    @property
    def resigned_seat(self) -> int | None: ...
    @property
    def rematch(self) -> Mapping[str, Any] | None: ...


class Answer(Protocol):
    """The answer to a streamed move (``service.play.MoveAnswer``)."""

    @property
    def request_id(self) -> str: ...
    @property
    def version(self) -> int | None: ...
    @property
    def error(self) -> Exception | None: ...


class SeatViewAt(Protocol):
    """A seat's view at a version, with the clocks there (``service.play.SeatView``)."""

    @property
    def version(self) -> int: ...
    @property
    def view(self) -> View: ...
    @property
    def clocks(self) -> Iterable[SeatClockView]: ...


class Step(Protocol):
    """What one step of a play stream tells a seat (``service.play.PlayStep``)."""

    @property
    def answer(self) -> Answer | None: ...
    @property
    def batches(self) -> Sequence[Batch]: ...
    @property
    def view(self) -> SeatViewAt | None: ...


# -- cards -----------------------------------------------------------------------------------

#: Every card a game deals: the 52 and the joker.
_EVERY_CARD = (*C.deck(range(2, 15)), C.JOKER)


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


def card_from_proto(msg: cards_pb2.Card) -> int:
    return _checked(wire.card_from_proto, msg)


def suit_to_proto(suit: int | None) -> cards_pb2.Suit.ValueType:
    return cards_pb2.Suit.ValueType(0 if suit is None else suit + 1)


def suit_from_proto(value: int) -> int | None:
    return _checked(wire.suit_from_proto, value)


def _checked(read: Callable[[Any], T], value: Any) -> T:
    """``read(value)``, a value that is no engine value refused as an ``InvalidRequest``."""
    try:
        return read(value)
    except wire.WireError as e:
        raise InvalidRequest(str(e), reason=e.reason) from None


#: Fills a message with a value: ``fill(message, value)``.
Filler = Callable[[Any, Any], None]
#: Writes a value into the field ``name`` of a message: ``write(message, name, value)``
#: (``setattr`` for a plain scalar).
Writer = Callable[[Any, str, Any], None]


def _cards_writer(message: type[Message], name: str) -> Writer:
    """How cards are written into the ``repeated Card`` field ``name`` of a ``message``: each
    card's wire form as an entry of that field (``message`` holding that card alone there,
    serialized by protobuf), made here for every card, joined and parsed into the target at
    once. A table of 53 entries a field, made at import, not a cache: nothing is added to it
    later. A view holds 20 cards or more (the hand, the trick, the cards of the deal's tricks),
    and upb adds an entry with a call per entry and per field, or copies a message by encoding
    and parsing it, one by one; the parse of the joined entries appends the same entries, so
    the message, and the bytes sent, are the same. Counterpoint, the play stream's steps,
    instructions counted under callgrind: 541k a move with the cards added one by one, 409k
    so; 15 µs of the 414 µs of server CPU a streamed move takes through the service, 3.7%."""
    entries: dict[int, bytes] = {}
    for c in _EVERY_CARD:
        holder = message()
        _fill_card(getattr(holder, name).add(), c)
        entries[c] = holder.SerializeToString()

    def write(msg: Any, _name: str, cards: Sequence[int]) -> None:
        if cards:
            msg.MergeFromString(b"".join([entries[c] for c in cards]))

    return write


def _write_card(msg: Any, name: str, c: int) -> None:
    _fill_card(getattr(msg, name), c)


_write_card_list_cards = _cards_writer(cards_pb2.CardList, "cards")
_write_seat_cards_cards = _cards_writer(cards_pb2.SeatCards, "cards")
_write_choice_cards = _cards_writer(views_pb2.LayAsideChoice, "cards")


def _fill_card_list(target: cards_pb2.CardList, cards: Sequence[int]) -> None:
    _write_card_list_cards(target, "cards", cards)


def _fill_seat_cards(target: cards_pb2.SeatCards, cards: Sequence[int] | None) -> None:
    if cards is not None:  # None: the viewer may not see this seat's cards
        target.visible = True
        _write_seat_cards_cards(target, "cards", cards)


def _fill_optional(target: Any, value: Any) -> None:
    if value is not None:
        target.value = value


# -- the dataclass ⇄ message rule -------------------------------------------------------------


def to_proto(obj: Any) -> Message:
    """An engine dataclass as the message of the same name."""
    msg = _MESSAGES[type(obj).__name__]()
    _fill(msg, obj)
    return msg


#: How an engine type is written into its message: its fields, each with the function that
#: writes its value (``_writer``), in two groups. The first are the fields without presence
#: (plain scalars, enums, repeated fields): a false value (0, False, "", None, an empty tuple)
#: is their default, never sent, so it is not written. The others (optional scalars, suits,
#: cards, messages, oneofs) are written unless None: an optional 0 is sent, suit 0 is clubs,
#: a message is present even when all its fields keep their defaults. Skipping the defaults
#: matters: every write is a call into upb (a view's many empty lists and zeros).
Plan = tuple[tuple[tuple[str, Writer], ...], tuple[tuple[str, Writer], ...]]


def _fill(msg: Any, obj: Any) -> None:
    """Write the fields of ``obj`` into ``msg``, a message of its name. A field that is None
    stays unset: an unset message, an unset optional scalar."""
    _fill_by(_PLANS[type(obj)], msg, obj)


def _fill_by(plan: Plan, msg: Any, obj: Any) -> None:
    loose, present = plan
    for name, write in loose:
        value = getattr(obj, name)
        if value:
            write(msg, name, value)
    for name, write in present:
        value = getattr(obj, name)
        if value is not None:
            write(msg, name, value)


def _fill_present(target: Any, value: Any) -> None:
    """Fill a singular message field, present even when all its fields keep their defaults."""
    target.SetInParent()
    _fill_by(_PLANS[type(value)], target, value)


def _plan(cls: type) -> Plan:
    """How the fields of ``cls`` are written into its message: each field's writer, chosen
    from the message's descriptor once."""
    message = _MESSAGES[cls.__name__]
    fields: Any = message.DESCRIPTOR.fields_by_name
    loose: list[tuple[str, Writer]] = []
    present: list[tuple[str, Writer]] = []
    for f in dataclasses.fields(cls):
        field = fields.get(f.name)  # None: a oneof
        has_default = (
            field is not None
            and (field.is_repeated or not field.has_presence)
            and field.message_type is None
            and not wire.is_suit(field)
        )
        (loose if has_default else present).append((f.name, _writer(message, f.name)))
    return tuple(loose), tuple(present)


def _writer(message: type[Message], name: str) -> Writer:
    """How the engine value of field ``name`` is written into a ``message``."""
    write = _plain_writer(message, name)
    if (message.DESCRIPTOR.name, name) in _KEPT:
        field = message.DESCRIPTOR.fields_by_name.get(name)
        return _kept(message, name, write, repeated=field is not None and field.is_repeated)
    return write


def _plain_writer(message: type[Message], name: str) -> Writer:
    """How the engine value of field ``name`` is written into a ``message``, field by field."""
    desc: Any = message.DESCRIPTOR
    field = desc.fields_by_name.get(name)
    if field is None:  # a oneof named like the field: the case is the value's type
        return _case_writer(
            {
                _ENGINE_TYPES[c.message_type.name]: c.name
                for c in desc.oneofs_by_name[name].fields
                if c.message_type.name in _ENGINE_TYPES
            }
        )
    if field.message_type is not None:
        kind = field.message_type.name
        if kind == "Card":
            return _cards_writer(message, name) if field.is_repeated else _write_card
        fill = _MESSAGE_FILLERS.get(kind, _fill)
        return _entries_writer(fill) if field.is_repeated else _present_writer(fill)
    if wire.is_suit(field):
        return _write_suits if field.is_repeated else _write_suit
    if field.enum_type is not None:
        return _enum_writer({word: n for n, word in wire.enum_words(field.enum_type).items()})
    if field.is_repeated:
        return _write_values
    return setattr


def _case_writer(cases: Mapping[type, str]) -> Writer:
    """A oneof's: the case named for the value's type, present."""

    def write(msg: Any, _name: str, value: Any) -> None:
        _fill_present(getattr(msg, cases[type(value)]), value)

    return write


def _present_writer(fill: Filler) -> Writer:
    """A singular message field's: present even when all its fields keep their defaults."""

    def write(msg: Any, name: str, value: Any) -> None:
        target = getattr(msg, name)
        target.SetInParent()
        fill(target, value)

    return write


def _entries_writer(fill: Filler) -> Writer:
    """A repeated message field's: one entry filled per value."""

    def write(msg: Any, name: str, values: Iterable[Any]) -> None:
        add = getattr(msg, name).add
        for value in values:
            fill(add(), value)

    return write


#: The fields of a view whose wire forms are kept (``_kept``): (message, field).
_KEPT = frozenset({("View", "tricks"), ("View", "legal_moves"), ("View", "detail")})


def _kept(message: type[Message], name: str, write: Writer, repeated: bool) -> Writer:
    """The one cache of this module: how the values of a view's field that repeat from view
    to view are written, as their wire forms, each made once by ``write`` (``message`` holding
    the value alone in field ``name``, serialized) and parsed into the target; for a repeated
    field, the entries' forms joined and parsed at once. The parse sets the same fields and
    appends the same entries, so the message, and the bytes sent, are the same. It serves the
    fields in ``_KEPT``: the deal's completed tricks (every view of the deal shows them), the
    legal moves (the same cards are played game after game) and the game's detail (the same for
    every view of a deal but for a field or two, and it holds the last deal's scoring). Written
    field by field, each of those is a call into upb per field and per entry.

    What it saves, Counterpoint (the benchmark's game), two random games' play steps as the
    play stream sends them (compact lay-asides), instructions counted under callgrind: 768k a
    move field by field, 409k with this cache (tricks and legal moves 191k, the detail 167k);
    at this machine's 8.7 instructions a ns that is 41 µs of the 414 µs of server CPU a
    streamed move takes through the service (``bench service --store redis``), 10% (the
    tricks and moves 5.3%, the detail 4.7%). Values are keys: engine values are immutable and
    compare by type and fields, so ``ChooseSeat(1)`` and ``Cut(1)`` keep their own forms."""
    forms: Memo[Any, bytes] = Memo(65_536)

    def form(value: Any) -> bytes:
        holder = message()
        write(holder, name, (value,) if repeated else value)
        return forms.keep(value, holder.SerializeToString())

    def write_entries(msg: Any, _name: str, values: Iterable[Any]) -> None:
        get = forms.get
        msg.MergeFromString(b"".join([get(v) or form(v) for v in values]))

    def write_one(msg: Any, _name: str, value: Any) -> None:
        msg.MergeFromString(forms.get(value) or form(value))

    return write_entries if repeated else write_one


def _enum_writer(numbers: Mapping[str, int]) -> Writer:
    def write(msg: Any, name: str, word: str) -> None:
        setattr(msg, name, numbers[word])

    return write


def _write_suit(msg: Any, name: str, suit: int) -> None:
    setattr(msg, name, suit + 1)


def _write_suits(msg: Any, name: str, suits: Iterable[int | None]) -> None:
    getattr(msg, name).extend([suit_to_proto(s) for s in suits])


def _write_values(msg: Any, name: str, values: Iterable[Any]) -> None:
    getattr(msg, name).extend(values)


def from_proto(msg: Message) -> Any:
    """The engine dataclass of a message's name (raises InvalidRequest on a malformed card);
    read by the one reader of the rule, ``tricktable.engine_wire``."""
    return _checked(wire.from_proto, msg)


# -- moves, events, views ---------------------------------------------------------------------


def move_to_proto(move: Move) -> moves_pb2.Move:
    out = moves_pb2.Move()
    fill_move(out, move)
    return out


def fill_move(target: moves_pb2.Move, move: Move) -> None:
    """Write a move into an (empty) Move message: the case named by the move's kind."""
    _fill_present(getattr(target, move.kind), move)


def move_from_proto(msg: moves_pb2.Move) -> Move:
    move: Move = _checked(wire.move_from_proto, msg)
    return move


def event_to_proto(event: Event) -> events_pb2.Event:
    out = events_pb2.Event()
    fill_event(out, event)
    return out


def fill_event(target: events_pb2.Event, event: Event) -> None:
    """Write an event into an (empty) Event message: the case named by the event's kind."""
    _fill_present(getattr(target, event.kind), event)


def fill_events(
    target: game_service_pb2.StreamEventsResponse | game_service_pb2.SubmitMoveResponse,
    events: Iterable[Event],
) -> None:
    """Append events to the ``events`` field of ``target``, each filled in its own entry."""
    add = target.events.add
    for event in events:
        fill_event(add(), event)


def event_from_proto(msg: events_pb2.Event) -> Event:
    event: Event = _checked(wire.event_from_proto, msg)
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
        _fill_by(_VIEW_BUT_MOVES, target, view)
        fill_lay_aside_choice(target.lay_aside_choice, view.legal_moves)
    else:
        _fill_by(_VIEW, target, view)


def fill_lay_aside_choice(target: views_pb2.LayAsideChoice, choices: LayAsideChoices) -> None:
    """The engine's lazy lay-asides as the protocol's choice: the viewer's own hand (the only
    cards in it) and how many of them to lay aside. Which lay-asides are legal stays the
    engine's rule: this writes what its choices hold."""
    _write_choice_cards(target, "cards", choices.cards)
    target.count = choices.choose


def view_from_proto(msg: views_pb2.View) -> View:
    view: View = _checked(wire.view_from_proto, msg)
    return view


#: The messages that are not an engine dataclass of their name, and how each is written.
_MESSAGE_FILLERS: dict[str, Filler] = {
    "Card": _fill_card,
    "CardList": _fill_card_list,
    "SeatCards": _fill_seat_cards,
    "OptionalInt32": _fill_optional,
    "OptionalBool": _fill_optional,
    "OptionalString": _fill_optional,
    "Move": fill_move,
}
#: The two sides of the rule by name, and how each engine type is written and read. Games
#: register when ``engine`` is imported, so the tables are complete once this module is.
_MESSAGES: dict[str, type[Message]] = wire.MESSAGES
_ENGINE_TYPES: dict[str, type] = wire.ENGINE_TYPES
_PLANS: dict[type, Plan] = {cls: _plan(cls) for cls in _ENGINE_TYPES.values()}
_VIEW: Plan = _PLANS[View]
#: The compact form's: a view but its legal moves (written as one ``lay_aside_choice``).
_VIEW_BUT_MOVES: Plan = (
    tuple(entry for entry in _VIEW[0] if entry[0] != "legal_moves"),
    tuple(entry for entry in _VIEW[1] if entry[0] != "legal_moves"),
)


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
    result: MoveOutcome, compact_lay_aside: bool = False
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
    presence: Iterable[SeatPresence] = (),
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
    access = record.access
    # Never a code, nor a code's hash: whether the table is private, and its reserved seats.
    # A game created without a visibility has no access, and its summary reads as before.
    if access is not None:
        out.visibility = (
            game_service_pb2.VISIBILITY_UNLISTED
            if access.unlisted
            else game_service_pb2.VISIBILITY_PUBLIC
        )
        out.reserved_seats.extend(s for s in sorted(access.reserved) if not record.seats[s])
    return out


def batch_to_proto(batch: Batch) -> game_service_pb2.StreamEventsResponse:
    out = game_service_pb2.StreamEventsResponse()
    fill_batch(out, batch)
    return out


def fill_batch(out: game_service_pb2.StreamEventsResponse, batch: Batch) -> None:
    out.version = batch.version
    fill_events(out, batch.events)
    if batch.seat is not None:
        out.seat = batch.seat
    if batch.resigned_seat is not None:
        out.resigned_seat = batch.resigned_seat
    if batch.rematch is not None:
        out.rematch.CopyFrom(rematch_to_proto(batch.rematch))


def rematch_to_proto(offer: Mapping[str, Any]) -> game_service_pb2.RematchOffer:
    """A rematch offer (service.rematch's data) on the wire."""
    return game_service_pb2.RematchOffer(accepted=offer["accepted"], game_id=offer["game_id"])


# -- the play stream --------------------------------------------------------------------------


def play_response(step: Step, compact_lay_aside: bool = False) -> game_service_pb2.PlayResponse:
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
