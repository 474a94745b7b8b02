"""Field markers for the cards inside moves, events and views.

Card-bearing fields are declared with these helpers, so code can find every card a message holds
without knowing its type: the serializer writes them as card names, and the leak tests collect
them to prove a viewer never receives a card it may not see.

- ``card_field()``: one card id, or None.
- ``cards_field()``: a tuple of card ids, or None when hidden.
- ``per_seat_cards_field()``: a tuple with one entry per seat, each a tuple of cards or None.
- ``named_card_field()``: a card referred to by name only, such as the card a Nominations
  declarer calls. Naming a card says nothing about where it lies, so the leak tests do not count
  it as seen; the codec still writes it as a card name.
"""

from __future__ import annotations

import dataclasses
from typing import Any

CARD = "card"
CARDS = "cards"
PER_SEAT = "per_seat_cards"
NAMED = "named_card"


def card_field(**kw: Any) -> Any:
    return dataclasses.field(metadata={"cards": CARD}, **kw)


def cards_field(**kw: Any) -> Any:
    return dataclasses.field(metadata={"cards": CARDS}, **kw)


def per_seat_cards_field(**kw: Any) -> Any:
    return dataclasses.field(metadata={"cards": PER_SEAT}, **kw)


def named_card_field(**kw: Any) -> Any:
    return dataclasses.field(metadata={"cards": NAMED}, **kw)


def card_kind(f: dataclasses.Field[Any]) -> str | None:
    kind = f.metadata.get("cards")
    return kind if isinstance(kind, str) else None


def cards_in(obj: object) -> set[int]:
    """Every card id held anywhere in a (nested) dataclass value."""
    found: set[int] = set()
    _collect(obj, found)
    return found


def _collect(obj: object, found: set[int]) -> None:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            kind = card_kind(f)
            if kind is None:
                _collect(value, found)
            elif kind != NAMED:
                _collect_cards(value, found)
    elif isinstance(obj, tuple | list):
        for item in obj:
            _collect(item, found)


def _collect_cards(value: object, found: set[int]) -> None:
    if value is None:
        return
    if isinstance(value, int) and not isinstance(value, bool):
        found.add(value)
    elif isinstance(value, tuple | list):
        for item in value:
            _collect_cards(item, found)
