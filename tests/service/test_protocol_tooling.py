"""The protocol's tooling: generated code is current, buf lint passes, and the breaking-change
check compares with the previous commit (and lets a first landing through)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

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
