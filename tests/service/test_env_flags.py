"""Every ``tricktable serve`` flag can be set by its TRICKTABLE_* variable, which ``--help``
and deploy/README.md both list; a flag on the command line wins over the variable."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from service.cli import build_parser, main
from service.cli.env_flags import env_name, flags
from service.limits import Rate
from service.proxies import network_list

ROOT = Path(__file__).resolve().parents[2]


def _serve_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    serve: argparse.ArgumentParser = sub.choices["serve"]
    return serve


def _sample(action: argparse.Action) -> tuple[str, object]:
    """A value for the variable, other than the default, and what it parses to."""
    if action.dest == "trusted_proxies":  # repeatable; the variable: comma-separated
        return "10.0.0.0/8, fd00::/8", tuple(network_list("10.0.0.0/8 fd00::/8"))
    if action.choices is not None:
        choice = next(c for c in action.choices if c != action.default)
        return str(choice), choice
    if isinstance(action, argparse._StoreTrueAction):
        return "yes", True
    if action.type == Rate.parse:
        return "7/9", Rate(7, 9)
    if action.type is int:
        return "7", 7
    if action.type is float:
        return "7.5", 7.5
    return "some-value", "some-value"


def test_every_serve_flag_has_a_variable_listed_in_help_and_the_deploy_readme() -> None:
    parser = _serve_parser()
    readme = (ROOT / "deploy" / "README.md").read_text()
    help_text = " ".join(parser.format_help().split())
    actions = list(flags(parser))
    assert len(actions) > 20
    for action in actions:
        name = env_name(action)
        assert name.startswith("TRICKTABLE_")
        assert name in help_text.replace("TRICKTABLE_ ", "TRICKTABLE_"), action.option_strings
        assert f"`{name}`" in readme, f"{name} is not in deploy/README.md"
        assert f"`{action.option_strings[0]}`" in readme


def test_every_serve_variable_sets_its_flag_and_the_command_line_wins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    actions = list(flags(_serve_parser()))
    for action in actions:
        monkeypatch.setenv(env_name(action), _sample(action)[0])
    args = build_parser().parse_args(["serve"])
    for action in actions:
        assert getattr(args, action.dest) == _sample(action)[1], env_name(action)
    overridden = build_parser().parse_args(["serve", "--port", "1234"])
    assert overridden.port == 1234


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("TRICKTABLE_PORT", "abc", "expected a whole number"),
        ("TRICKTABLE_GRACE", "soon", "expected a number"),
        ("TRICKTABLE_LOG_FORMAT", "xml", "expected one of"),
        ("TRICKTABLE_REDIS_CLUSTER", "maybe", "expected 1/0"),
    ],
)
def test_a_bad_variable_is_refused_with_its_name(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    value: str,
    reason: str,
) -> None:
    """The variable is named, with its value, when ``serve`` runs: ``TRICKTABLE_PORT='abc'``;
    other commands are not refused for a variable only ``serve`` reads."""
    monkeypatch.setenv(name, value)
    assert build_parser().parse_args(["health", "--timeout", "1"]).timeout == 1
    with pytest.raises(SystemExit) as exited:
        main(["serve", "--port", "0"] if name != "TRICKTABLE_PORT" else ["serve"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"{name}={value!r}: {reason}" in err, err
