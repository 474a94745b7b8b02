"""The protocol's tooling: generated code is current, buf lint passes, and the breaking-change
check compares with the previous commit (and lets a first landing through)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
from tricktable.v1 import clocks_pb2, views_pb2
from tricktable.v1 import game_service_pb2 as pb

ROOT = Path(__file__).resolve().parents[2]
BUF = str(Path(sysconfig.get_path("scripts")) / "buf")


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)


def test_the_checked_in_generated_code_is_current() -> None:
    result = _run(sys.executable, "proto/generate.py", "--check", cwd=ROOT)
    assert result.returncode == 0, result.stderr


def test_buf_lint_passes() -> None:
    result = _run(BUF, "lint", "proto", cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def _repo_with_protocol(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "proto", repo / "proto", ignore=shutil.ignore_patterns("__pycache__"))
    git = ("git", "-c", "user.name=t", "-c", "user.email=t@example.com")
    _run("git", "init", "-q", cwd=repo)
    (repo / "README").write_text("before the protocol\n")
    _run(*git, "add", "README", cwd=repo)
    _run(*git, "commit", "-qm", "no protocol yet", cwd=repo)
    return repo


def _commit(repo: Path, message: str) -> None:
    git = ("git", "-c", "user.name=t", "-c", "user.email=t@example.com")
    _run(*git, "add", "-A", cwd=repo)
    assert _run(*git, "commit", "-qm", message, cwd=repo).returncode == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_breaking_changes_fail_against_the_previous_commit(tmp_path: Path) -> None:
    repo = _repo_with_protocol(tmp_path)
    script = (sys.executable, "proto/breaking.py")
    _commit(repo, "first landing")
    first = _run(*script, cwd=repo)
    assert first.returncode == 0 and "first landing" in first.stdout
    moves = repo / "proto" / "tricktable" / "v1" / "moves.proto"
    text = moves.read_text()
    moves.write_text(
        text.replace(
            "message Cut {\n  int32 depth = 1;\n}",
            "message Cut {\n  int32 depth = 1;\n  int32 extra = 2;\n}",
        )
    )
    _commit(repo, "additive")
    assert _run(*script, cwd=repo).returncode == 0
    moves.write_text(text.replace("  int32 depth = 1;\n", ""))
    _commit(repo, "removes a field")
    broken = _run(*script, cwd=repo)
    assert broken.returncode != 0
    assert "depth" in broken.stdout + broken.stderr


def test_the_protocol_package_stands_alone_without_engine_server_or_redis() -> None:
    code = (
        "import sys\n"
        "from tricktable.v1 import game_service_pb2, game_service_pb2_grpc\n"
        "from tricktable.v1 import bot_service_pb2_grpc\n"
        "import tricktable.client, tricktable.errors, tricktable.cards\n"
        "import tricktable.bots, tricktable.bots.arena, tricktable.bots.serve\n"
        "stub = game_service_pb2_grpc.GameServiceStub\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    result = _run(sys.executable, "-c", code, cwd=ROOT / "clients" / "python")
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.split())
    assert "tricktable" in loaded and "grpc" in loaded
    assert not loaded & {"engine", "service", "redis", "structlog"}


def _message_of(message: Any, field: str) -> Any:
    """The message type of a message field (Any: the descriptor stubs allow None)."""
    return message.DESCRIPTOR.fields_by_name[field].message_type


def test_the_clock_contract_names_are_where_a_client_looks_for_them() -> None:
    """The issue's contract: CreateGameRequest.time_control of message TimeControl (move_ms,
    bank_ms, increment_ms, on_timeout, forfeit_after), enum TimeoutPolicy, View.clocks; the
    time control's types come with the game service's messages as well as in clocks."""
    assert pb.TimeControl is clocks_pb2.TimeControl
    fields: Any = pb.TimeControl.DESCRIPTOR.fields_by_name
    assert {name: fields[name].type for name in fields} == {
        "move_ms": fields["move_ms"].TYPE_INT64,
        "bank_ms": fields["bank_ms"].TYPE_INT64,
        "increment_ms": fields["increment_ms"].TYPE_INT64,
        "on_timeout": fields["on_timeout"].TYPE_ENUM,
        "forfeit_after": fields["forfeit_after"].TYPE_INT32,
    }
    assert fields["on_timeout"].enum_type.name == "TimeoutPolicy"
    assert pb.TimeoutPolicy.Name(pb.TIMEOUT_POLICY_AUTO_MOVE) == "TIMEOUT_POLICY_AUTO_MOVE"
    assert pb.TimeoutPolicy.Name(pb.TIMEOUT_POLICY_FORFEIT) == "TIMEOUT_POLICY_FORFEIT"
    assert (
        _message_of(pb.CreateGameRequest, "time_control").full_name == "tricktable.v1.TimeControl"
    )
    assert _message_of(pb.GameSummary, "time_control").name == "TimeControl"
    assert views_pb2.View.DESCRIPTOR.fields_by_name["clocks"].is_repeated
    assert _message_of(views_pb2.View, "clocks").name == "SeatClock"
    event = _message_of(pb.GameStep, "events")
    assert event.fields_by_name["timed_out"].message_type.name == "TimedOut"
