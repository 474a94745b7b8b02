"""Every flag of a command settable by an environment variable: ``--some-flag`` ⇄
``TRICKTABLE_SOME_FLAG`` (containers and orchestrators configure through the environment).

A flag given on the command line wins over its variable; the variable wins over the default.
Each flag's help names its variable, so ``--help`` lists them all.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator, Mapping

PREFIX = "TRICKTABLE_"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_name(action: argparse.Action) -> str:
    return PREFIX + action.dest.upper()


def flags(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    """The parser's options that take a setting (not --help, nor a hidden flag that one
    process passes another, such as a worker's --reuse-port)."""
    for action in parser._actions:  # argparse offers no public list
        hidden = action.help == argparse.SUPPRESS
        if action.option_strings and not isinstance(action, argparse._HelpAction) and not hidden:
            yield action


def from_environment(
    parser: argparse.ArgumentParser, environ: Mapping[str, str] = os.environ
) -> None:
    """Name each flag's variable in its help, and take its default from the variable when it
    is set (argparse converts a string default with the flag's type when the flag is absent)."""
    for action in flags(parser):
        name = env_name(action)
        action.help = f"{action.help or ''} [env {name}]".strip()
        if name not in environ:
            continue
        value = environ[name]
        if isinstance(action, argparse._StoreTrueAction | argparse._StoreFalseAction):
            lowered = value.strip().lower()
            if lowered not in _TRUE | _FALSE:
                action.default = BadValue(name, value, "expected 1/0, true/false, yes/no or on/off")
                continue
            action.default = (lowered in _TRUE) == isinstance(action, argparse._StoreTrueAction)
        else:
            action.default = _checked(name, value, action.type)


class BadValue:
    """A variable's value its flag's type refuses, kept until the command runs, where
    :func:`check_choices` names the variable (argparse itself would name only the flag, and
    would refuse it even for a command that never reads it)."""

    def __init__(self, name: str, value: str, reason: str) -> None:
        self.name, self.value, self.reason = name, value, reason

    def __str__(self) -> str:
        return f"{self.name}={self.value!r}: {self.reason}"


_EXPECTED: dict[object, str] = {int: "expected a whole number", float: "expected a number"}


def _checked(name: str, value: str, convert: object) -> str | BadValue:
    """The value, or a :class:`BadValue` when the flag's type cannot read it."""
    if not callable(convert):
        return value
    try:
        convert(value)
    except (TypeError, ValueError, argparse.ArgumentTypeError) as error:
        return BadValue(name, value, _EXPECTED.get(convert, str(error)))
    return value


def check_choices(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """argparse does not check a default against the flag's choices: a variable's value is;
    a value its flag's type refused is named with its variable (``TRICKTABLE_PORT='abc'``)."""
    for action in flags(parser):
        value = getattr(args, action.dest, None)
        if isinstance(value, BadValue):
            parser.error(str(value))
        if action.choices is not None and value is not None and value not in action.choices:
            choices = ", ".join(map(str, action.choices))
            parser.error(f"{env_name(action)}={value!r}: expected one of {choices}")
