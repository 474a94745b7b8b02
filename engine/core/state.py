"""The base of every game state: cheap copies and a versioned, JSON snapshot.

States are plain mutable objects whose fields hold only JSON-ready values (ints, strings, bools,
None, and lists of those), plus the immutable options and chance objects. The engine's public
``apply`` copies the state and mutates the copy, so callers always get a new state and the old
one is untouched. A copy must be cheap (it happens on every move): the attribute dict is copied
and each list a state declares in ``copied`` is copied once. Nested lists and the other fields
are never mutated in place, only replaced, which the "apply leaves the old state unchanged"
property test enforces.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from typing import Any, ClassVar, Self

from engine.core.chance import Chance
from engine.core.codec import json_encoder
from engine.core.errors import BadSnapshot, EngineError, Reason
from engine.core.events import event_from_data, event_to_data
from engine.core.memo import Memo
from engine.core.options import options_to_data


class GameState:
    #: bump when the fields change meaning; an old snapshot is then rebuilt from the moves
    schema: ClassVar[int] = 1
    game: ClassVar[str] = ""
    options: Any
    chance: Chance
    # The match bookkeeping every game keeps (see Rules: starting a match, closing a deal).
    deal_no: int
    dealer: int
    scores: Sequence[int]  # each seat's total
    finished: bool
    winners: Sequence[int]
    last_result: Any  # the last deal's DealScored event, for views (None before the first)
    phase: str
    hands: Sequence[int]  # each seat's cards, as a mask
    #: fields stored outside ``data``: immutable, shared by copies
    _shared: ClassVar[frozenset[str]] = frozenset({"options", "chance"})
    #: fields holding an event object (or None): kept as the immutable event while playing,
    #: written as event data only when a snapshot is taken (converting on every deal is slow)
    _event_fields: ClassVar[frozenset[str]] = frozenset({"last_result"})

    #: The list fields that moves change in place (``hands[seat] &= ...``, ``trick.append``):
    #: ``clone`` copies exactly these. Every other field is shared between a state and its
    #: copies, so it must only ever be replaced, never changed in place (the conformance suite's
    #: "apply leaves the old state unchanged" property holds every game to this).
    copied: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        annotated: set[str] = set()
        for klass in cls.__mro__:
            annotated.update(getattr(klass, "__annotations__", {}))
        unknown = [name for name in cls.copied if name not in annotated]
        if unknown:
            raise TypeError(f"{cls.__name__}.copied names fields it does not declare: {unknown}")

    def clone(self) -> Self:
        new = object.__new__(type(self))
        d = self.__dict__.copy()
        for key in self.copied:
            d[key] = d[key].copy()
        new.__dict__ = d
        return new

    def fields_data(self) -> dict[str, Any]:
        # A copy less the shared fields: quicker than filtering every field (each snapshot).
        data = self.__dict__.copy()
        for key in self._shared:
            data.pop(key, None)
        return data

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, GameState)
        return (
            self.fields_data() == other.fields_data()
            and self.options == other.options
            and self.chance.to_data() == other.chance.to_data()
        )

    __hash__ = None  # type: ignore[assignment]

    def snapshot(self) -> bytes:
        """The state as JSON (keys sorted): ``game``, ``schema``, ``options``, ``chance`` and
        ``state``. A move takes one, so the part that a game never changes (its name, schema,
        options and chance, shared by all its states) is encoded once per game and kept; only
        ``state``, the last key, is encoded each time."""
        head = _HEADS.get(id(self.chance))
        if head is None or head[0] is not self.chance or head[1] is not self.options:
            head = _HEADS.keep(id(self.chance), (self.chance, self.options, self._head()))
        return head[2] + self._state_json().encode() + b"}"

    def _state_json(self) -> str:
        """The ``state`` value of the snapshot: the fields as sorted JSON. An event field's
        JSON is spliced in as encoded once per event (see ``_event_json``): a deal's result
        is most of what there is to encode, and it stays the same through the deal."""
        data = self.fields_data()
        spliced = []
        for key in self._event_fields:
            event = data.get(key)
            if event is not None:
                data[key] = 0  # a stand-in, replaced below
                spliced.append((key, event))
        text = _encode(data)
        # One encode of the whole dict, then the stand-in replaced: cheaper than encoding the
        # fields around the event in pieces. A key's text with its value (``"key":0``) occurs
        # once: state keys are unique, values hold no objects, and a quote within a string is
        # written escaped.
        for key, event in spliced:
            name = _key_json(key)
            text = text.replace(f"{name}:0", f"{name}:{_event_json(event)}", 1)
        return text

    def _head(self) -> bytes:
        """The snapshot's JSON up to its ``state`` value: the other keys all sort before it."""
        fixed = {
            "game": self.game,
            "schema": self.schema,
            "options": options_to_data(self.options),
            "chance": self.chance.to_data(),
        }
        return _encode(fixed)[:-1].encode() + b',"state":'

    @classmethod
    def restore(cls, blob: bytes, options: Any) -> Self:
        try:
            payload = json.loads(blob)
            if payload["game"] != cls.game or payload["schema"] != cls.schema:
                raise BadSnapshot(
                    Reason.BAD_SNAPSHOT,
                    f"snapshot is {payload['game']} schema {payload['schema']}, "
                    f"this engine reads {cls.game} schema {cls.schema}",
                )
            new = object.__new__(cls)
            new.__dict__.update(payload["state"])
            for key in cls._event_fields:
                if new.__dict__.get(key) is not None:
                    new.__dict__[key] = event_from_data(new.__dict__[key])
            new.options = options
            new.chance = Chance.from_data(payload["chance"])
        except BadSnapshot:
            raise
        except (ValueError, KeyError, TypeError, AssertionError, EngineError) as exc:
            raise BadSnapshot(Reason.BAD_SNAPSHOT, f"unreadable snapshot: {exc}") from None
        return new


@cache
def _key_json(key: str) -> str:
    """A field name as a JSON key (the event fields': one encoding each, not one per move)."""
    return _encode(key)


def _event_json(event: Any) -> str:
    """An event field's JSON, encoded once per event object: a state keeps the same event
    (the last deal's result) through a whole deal, and every move takes a snapshot. The table
    holds the event itself, so an id is never reused while its entry is kept."""
    held = _EVENT_JSON.get(id(event))
    if held is not None and held[0] is event:
        return held[1]
    return _EVENT_JSON.keep(id(event), (event, _encode(event_to_data(event))))[1]


#: Sorted, compact JSON; one encoder for every snapshot (json.dumps with options makes one
#: per call). No check for circular references, which costs a dict insert and delete per list
#: encoded: state data is a tree of plain values (see the module docstring).
_encode = json_encoder(separators=(",", ":"), sort_keys=True, check_circular=False)
_EVENT_JSON: Memo[int, tuple[Any, str]] = Memo(8192)
#: Each game's snapshot head (see GameState.snapshot), by its chance object: held here with its
#: options, so an id is never reused while its entry is kept.
_HEADS: Memo[int, tuple[Chance, Any, bytes]] = Memo(8192)


def read_snapshot_header(blob: bytes) -> tuple[str, int, dict[str, Any]]:
    """The game name, schema and options of a snapshot, to pick the rules that restore it."""
    try:
        payload = json.loads(blob)
        return str(payload["game"]), int(payload["schema"]), dict(payload["options"])
    except (ValueError, KeyError, TypeError) as exc:
        raise BadSnapshot(Reason.BAD_SNAPSHOT, f"unreadable snapshot: {exc}") from None
