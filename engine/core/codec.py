"""Plain-data form of moves and events: JSON-ready dicts with cards written by name.

``to_data`` and ``from_data`` are exact inverses for every registered message type (a round-trip
property test covers each). The ``type`` key names the message; card fields (see
:mod:`engine.core.fields`) are written as ``"AS"``-style names, so stored move logs and exported
records are readable and do not depend on internal card ids.
"""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, TypeVar, cast

from engine.core import cards as C
from engine.core.errors import InvalidMove, Reason
from engine.core.fields import CARD, CARDS, NAMED, PER_SEAT, card_kind

T = TypeVar("T")

_PLAIN = frozenset({int, str, bool, float})


def to_data(obj: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": obj.kind}
    for name, kind in _fields_of(obj.__class__):
        out[name] = _encode(getattr(obj, name), kind)
    return out


@cache
def _fields_of(cls: type) -> tuple[tuple[str, str | None], ...]:
    """A message class's fields and card kinds, read once: every committed move writes its
    events (and every snapshot its last deal's result) through ``to_data``."""
    return tuple((f.name, card_kind(f)) for f in dataclasses.fields(cls))


def _encode(value: Any, kind: str | None) -> Any:
    if value is None:
        return None
    if kind is None and value.__class__ in _PLAIN:
        return value  # the common case, before the dataclass and sequence tests
    if kind is not None:
        return cards_to_data(value, kind)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_data(value)
    if isinstance(value, tuple | list):
        return [_encode(v, None) for v in value]
    return value


def json_encoder(**options: Any) -> Callable[[Any], str]:
    """``json.JSONEncoder(**options).encode``, the encoder made once for the hot paths (a
    move's snapshot and stored records) and kept: ``json.dumps`` with any option but the
    defaults makes a new encoder on every call. The text is json's own, byte for byte.

    Only json's public API: ``encode`` still builds its C encoder anew on each call, about
    7k instructions (callgrind, Python 3.11): some 20k for a move's three encodes, about 1.5%
    of the 1.3M instructions of a move through the service. Building the C encoder once
    (``_json.make_encoder``) saved them, through a private CPython API, which is not worth it."""
    return json.JSONEncoder(**options).encode


def cards_to_data(value: Any, kind: str) -> Any:
    """A card field's value (see :mod:`engine.core.fields`) with its cards written by name."""
    if kind in (CARD, NAMED):
        return C.name(value)
    if kind == CARDS:
        return [C.name(c) for c in value]
    if kind == PER_SEAT:
        return [None if h is None else [C.name(c) for c in h] for h in value]
    raise ValueError(f"no card field kind {kind!r}")


def from_data(data: Mapping[str, Any], registry: Mapping[str, type[T]]) -> T:
    """Build a message from its data form; raise InvalidMove on any malformation."""
    if not isinstance(data, Mapping):
        raise InvalidMove(Reason.MALFORMED_MOVE, "expected an object")
    kind = data.get("type")
    cls = registry.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InvalidMove(Reason.MALFORMED_MOVE, f"unknown message type {kind!r}")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            if f.default is not dataclasses.MISSING:
                continue
            raise InvalidMove(Reason.MALFORMED_MOVE, f"{kind}: missing field {f.name!r}")
        try:
            value = data[f.name]
            if isinstance(value, Mapping):  # a nested message (a deal's result): by its type
                kwargs[f.name] = from_data(value, _nested_types(cast(type, cls), f.name))
                continue
            kwargs[f.name] = _decode(value, card_kind(f))
        except (ValueError, TypeError) as exc:
            raise InvalidMove(Reason.MALFORMED_MOVE, f"{kind}.{f.name}: {exc}") from None
    extra = set(data) - {"type"} - {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    if extra:
        raise InvalidMove(Reason.MALFORMED_MOVE, f"{kind}: unknown field {sorted(extra)[0]!r}")
    return cls(**kwargs)


@cache
def _nested_types(cls: type, name: str) -> dict[str, type]:
    """The message classes field ``name`` of ``cls`` may hold, by kind (from its type hint)."""
    return {t.kind: t for t in _dataclasses_in(typing.get_type_hints(cls)[name])}


def _dataclasses_in(hint: Any) -> list[Any]:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return [hint]
    return [c for arg in typing.get_args(hint) for c in _dataclasses_in(arg)]


def _decode(value: Any, kind: str | None) -> Any:
    if value is None:
        return None
    if kind in (CARD, NAMED):
        return _card(value)
    if kind == CARDS:
        if not isinstance(value, list | tuple):
            raise TypeError("expected a list of cards")
        return tuple(_card(v) for v in value)
    if kind == PER_SEAT:
        return tuple(None if h is None else tuple(_card(c) for c in h) for h in value)
    if isinstance(value, list):
        return tuple(value)
    return value


def _card(value: Any) -> int:
    if isinstance(value, str):
        return C.parse(value)
    raise TypeError(f"expected a card name, got {value!r}")
