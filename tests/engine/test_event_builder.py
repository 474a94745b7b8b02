"""``builder``: the fast event constructor gives exactly what the dataclass constructor gives."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest

from engine.core.codec import to_data
from engine.core.events import EVENT_TYPES, CardDrawn, TrickWon, builder


def _values(cls: type, salt: int) -> dict[str, object]:
    # Dataclasses do not check types, so distinct hashable values per field show any mix-up.
    return {f.name: (f.name, salt, i) for i, f in enumerate(dataclasses.fields(cls))}


def _refusal(obj: object, name: str) -> type[BaseException]:
    with pytest.raises((TypeError, AttributeError)) as refused:
        setattr(obj, name, "x")
    return refused.type


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_a_built_event_is_the_constructed_one(kind: str) -> None:
    cls = EVENT_TYPES[kind]
    build = builder(cls)
    for salt in range(3):
        values = _values(cls, salt)
        made = cls(**values)
        built = build(*values.values())
        assert type(built) is cls
        assert built == made and made == built
        assert hash(built) == hash(made)
        assert repr(built) == repr(made)
        assert dataclasses.astuple(built) == dataclasses.astuple(made)
        assert build(**values) == made  # keywords work too
        assert pickle.loads(pickle.dumps(built)) == made
        for name in [f.name for f in dataclasses.fields(cls)]:
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(built, name, 0)  # still frozen
        # Python 3.11 quirk: a frozen slotted dataclass refuses other names with a TypeError
        # (its __setattr__ refers to the class before slots), or AttributeError (no such slot).
        # Whatever it is, the built object behaves as the constructed one.
        assert _refusal(built, "kind") == _refusal(made, "kind")
        assert _refusal(built, "other") == _refusal(made, "other")
    assert build(*_values(cls, 0).values()) != build(*_values(cls, 1).values())


def test_a_builder_takes_the_fields_defaults() -> None:
    assert builder(CardDrawn)(1, 5) == CardDrawn(seat=1, stock_left=5)
    assert builder(CardDrawn)(1, 5, True, 40) == CardDrawn(1, 5, face_up=True, card=40)
    won = builder(TrickWon)(3, 1, 0, (4, 5))
    assert won == TrickWon(trick_no=3, winner=1, leader=0, cards=(4, 5)) and won.points == 0
    assert to_data(won) == to_data(TrickWon(3, 1, 0, (4, 5), 0))
    with pytest.raises(TypeError):
        builder(TrickWon)(3, 1)  # a field without a default is required


@dataclass(frozen=True)
class _NoSlots:
    a: int


@dataclass(slots=True)
class _NotFrozen:
    a: int


@dataclass(frozen=True, slots=True)
class _PostInit:
    a: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "a", self.a + 1)


@dataclass(frozen=True, slots=True)
class _Factory:
    a: tuple[int, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class _NotInInit:
    a: int = field(default=0, init=False)


@pytest.mark.parametrize("cls", [_NoSlots, _NotFrozen, _PostInit, _Factory, _NotInInit])
def test_a_builder_refuses_classes_it_would_build_differently(cls: type) -> None:
    with pytest.raises(TypeError):
        builder(cls)
