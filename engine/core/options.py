"""Typed, validated game options, declared once.

A game's options are a frozen dataclass; each field is declared with :func:`option`, which
carries the spec's default, allowed values and description in the field's metadata. From that one
declaration we derive the published option list (``specs_of``), the defaults, and validation
(``build_options``): an unknown option or a bad value is an ``InvalidOptions`` error that names
it. Values may arrive typed (Python callers) or as strings (CLI, protocol); both are accepted.

An option may also set other options' defaults (``sets``): Ninety-Nine's ``edition`` picks the
default ``game_end``; Sixty-Six's ``preset`` picks a whole set of flags. Explicit values always win.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from engine.core.errors import InvalidOptions, Reason

OptionValue = bool | int | str
Kind = Literal["bool", "int", "choice"]

OptionsT = TypeVar("OptionsT")


@dataclass(frozen=True, slots=True)
class OptionSpec:
    name: str
    kind: Kind
    default: OptionValue
    description: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    # value of this option -> defaults it sets for other options
    sets: Mapping[str, Mapping[str, OptionValue]] = field(default_factory=dict)

    def coerce(self, raw: object, game: str) -> OptionValue:
        def bad(why: str) -> InvalidOptions:
            return InvalidOptions(
                Reason.INVALID_OPTION_VALUE, f"{game} option {self.name!r}: {why} (got {raw!r})"
            )

        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.lower() in {"true", "false", "1", "0", "yes", "no"}:
                return raw.lower() in {"true", "1", "yes"}
            raise bad("expected true or false")
        if self.kind == "int":
            if isinstance(raw, bool):
                raise bad("expected an integer")
            if isinstance(raw, int):
                value = raw
            elif isinstance(raw, str) and raw.strip().lstrip("-").isdigit():
                value = int(raw)
            else:
                raise bad("expected an integer")
            if self.minimum is not None and value < self.minimum:
                raise bad(f"must be at least {self.minimum}")
            if self.maximum is not None and value > self.maximum:
                raise bad(f"must be at most {self.maximum}")
            return value
        if not isinstance(raw, str) or raw not in self.choices:
            raise bad("expected one of " + ", ".join(self.choices))
        return raw


def option(
    default: OptionValue,
    description: str,
    *,
    choices: tuple[str, ...] = (),
    minimum: int | None = None,
    maximum: int | None = None,
    sets: Mapping[str, Mapping[str, OptionValue]] | None = None,
) -> Any:
    """Declare an option field. The return type is Any so it can stand as a field default."""
    if choices:
        kind: Kind = "choice"
    elif isinstance(default, bool):
        kind = "bool"
    else:
        kind = "int"
    meta = {
        "kind": kind,
        "description": description,
        "choices": choices,
        "minimum": minimum,
        "maximum": maximum,
        "sets": dict(sets or {}),
    }
    return field(default=default, metadata={"option": meta})


_SPECS: dict[type, tuple[OptionSpec, ...]] = {}


def specs_of(options_type: type) -> tuple[OptionSpec, ...]:
    """The published option specs of an options dataclass (computed once per type)."""
    cached = _SPECS.get(options_type)
    if cached is not None:
        return cached
    specs = []
    for f in dataclasses.fields(options_type):
        meta = f.metadata.get("option")
        if meta is None:
            continue
        specs.append(
            OptionSpec(
                name=f.name,
                kind=meta["kind"],
                default=f.default,  # type: ignore[arg-type]
                description=meta["description"],
                choices=meta["choices"],
                minimum=meta["minimum"],
                maximum=meta["maximum"],
                sets=meta["sets"],
            )
        )
    _SPECS[options_type] = result = tuple(specs)
    return result


def build_options(options_type: type[OptionsT], given: Mapping[str, object], game: str) -> OptionsT:
    """Validate ``given`` against the declared options and return the options object."""
    specs = {s.name: s for s in specs_of(options_type)}
    unknown = sorted(set(given) - set(specs))
    if unknown:
        raise InvalidOptions(
            Reason.UNKNOWN_OPTION,
            f"unknown {game} option {unknown[0]!r}; known options: {', '.join(specs)}",
        )
    values: dict[str, OptionValue] = {}
    for name, raw in given.items():
        values[name] = specs[name].coerce(raw, game)
    # Options that set other options' defaults apply first; explicit values always win.
    resolved: dict[str, OptionValue] = {}
    for spec in specs.values():
        if not spec.sets:
            continue
        chosen = values.get(spec.name, spec.default)
        for other, default in spec.sets.get(str(chosen), {}).items():
            resolved[other] = default
    resolved.update(values)
    return options_type(**resolved)


def first_dealer_option() -> Any:
    """The ``first_dealer`` flag every game has, alike: a secret random seat deals first, or
    seat 0 (for tests and fixed tournaments)."""
    return option(
        "random", "who deals first: a secret random seat, or seat 0", choices=("random", "seat0")
    )


def tie_rule_option(description: str) -> Any:
    """The ``tie_rule`` flag: equal leaders at the end share the result, or extra deals are
    played until one leads. Only the wording of the description differs between games."""
    return option("draw", description, choices=("draw", "extra_deal"))


def options_to_data(opts: object) -> dict[str, OptionValue]:
    return {f.name: getattr(opts, f.name) for f in dataclasses.fields(opts)}  # type: ignore[arg-type]
