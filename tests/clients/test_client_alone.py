"""The client package stands alone: nothing in clients/python imports the server or the engine,
and ``pip install ./clients/python`` into a fresh virtual environment (with its dependencies,
through the same pip configuration and pinned versions as the project's .venv) gives a
``tricktable`` command that plays, exports and tells games on a server it did not start, and
says plainly what needs the server package."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import venv
from pathlib import Path

import pytest
from tricktable.bots import make_bot
from tricktable.bots.runner import play_game
from tricktable.client import Client
from tricktable.records import record_to_json

from service.running import ServerThread

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"
#: The server's packages: the client must never import them.
SERVER_PACKAGES = frozenset({"service", "engine", "benchmarks"})


def server_imports(path: Path, root: Path = ROOT) -> list[str]:
    """Each import of a server package in a Python file, as ``file:line: module``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in {"import_module", "__import__"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        else:
            continue
        for name in names:
            if name.split(".")[0] in SERVER_PACKAGES:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {name}")
    return found


#: The expert bot simulates with the rules engine: it is the client's ``engine`` extra
#: (``pip install "./clients/python[engine]"``), imported only when an expert is asked for
#: (``make_bot("expert", ...)``), so the client alone never imports it.
EXPERT = CLIENT / "tricktable" / "bots" / "expert"


def test_nothing_in_the_client_package_imports_the_server_or_the_engine() -> None:
    files = sorted(CLIENT.rglob("*.py"))
    assert len(files) > 20 and CLIENT / "tricktable" / "cli" / "play.py" in files
    outside = [path for path in files if not in_expert(path)]
    assert len(outside) < len(files)  # the expert's modules are left out, and only they
    assert [hit for path in outside for hit in server_imports(path)] == []


def in_expert(path: Path) -> bool:
    """A module of the expert's package (wherever a build copied the package)."""
    parts = path.parts
    return any(parts[i : i + 3] == ("tricktable", "bots", "expert") for i in range(len(parts)))


def test_the_expert_imports_the_engine_and_nothing_of_the_server() -> None:
    hits = [hit for path in sorted(EXPERT.rglob("*.py")) for hit in server_imports(path)]
    assert hits and all(hit.endswith((": engine",)) or ": engine." in hit for hit in hits)


def test_only_the_registry_imports_the_expert_and_only_when_asked() -> None:
    """Nothing outside the expert's package imports it at module level: the registry does, in
    make_expert, by name."""
    found = []
    for path in sorted(CLIENT.rglob("*.py")):
        if in_expert(path):
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in tree.body:  # module level only
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.name}: {n}" for n in names if n.startswith("tricktable.bots.expert")]
    assert found == []


def test_the_import_scan_finds_each_way_of_importing(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os, engine.rules\n"
        "from service.running import ServerThread\n"
        "from . import service\n"  # a relative import of the client's own module: allowed
        "import importlib\n"
        "importlib.import_module('benchmarks.service')\n"
    )
    found = [hit.split(": ", 1)[1] for hit in server_imports(sample, tmp_path)]
    assert found == ["engine.rules", "service.running", "benchmarks.service"]


# -- the client installed alone -----------------------------------------------------------------


@pytest.fixture(scope="module")
def alone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the client package installed as a user would: not
    editable, with its dependencies, pinned by requirements.lock, from the pip configuration
    (index, find-links) that dev.py installs the project's .venv from. Its bin directory."""
    home = tmp_path_factory.mktemp("client-alone")
    venv.EnvBuilder(with_pip=True, clear=True).create(home / "venv")
    bin_dir = home / "venv" / ("Scripts" if os.name == "nt" else "bin")
    pip = [str(bin_dir / "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "install", "-c", str(ROOT / "requirements.lock"), str(CLIENT)],
        cwd=home,
        check=True,
        env={k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}},
        timeout=540,
    )
    return bin_dir


def run_alone(
    bin_dir: Path, cwd: Path, *argv: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """A program of the fresh environment, away from the repository (no PYTHONPATH, run in a
    folder of its own), so that only what was installed can be imported."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "TRICKTABLE_"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [str(bin_dir / argv[0]), *argv[1:]],
        check=False,
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def record(server: ServerThread) -> tuple[str, str]:
    """An ended game on the test's server: its id and its record's JSON."""
    with Client(server.address) as client:
        bots = [make_bot("heuristic", "counterpoint", f"alone:{n}") for n in range(2)]
        played = play_game(
            client, "counterpoint", bots, options={"target_score": 1}, seed=b"client alone"
        )
        return played.game_id, record_to_json(client.record(played.game_id))


def test_the_client_alone_cannot_import_the_server(alone: Path, tmp_path: Path) -> None:
    for package in SERVER_PACKAGES:
        found = run_alone(alone, tmp_path, "python", "-c", f"import {package}")
        assert found.returncode == 1 and "ModuleNotFoundError" in found.stderr, package
    where = run_alone(
        alone, tmp_path, "python", "-c", "import tricktable; print(tricktable.__file__)"
    )
    assert where.returncode == 0 and "site-packages" in where.stdout  # installed, not the repo's
    # The expert needs the engine extra, and says so; the other bots play without it.
    asked = "from tricktable.bots import make_bot; make_bot('{}', 'counterpoint')"
    expert = run_alone(alone, tmp_path, "python", "-c", asked.format("expert"))
    assert expert.returncode == 1 and "needs the rules engine" in expert.stderr
    assert "[engine]" in expert.stderr
    heuristic = run_alone(alone, tmp_path, "python", "-c", asked.format("heuristic"))
    assert heuristic.returncode == 0, heuristic.stderr


def test_the_client_alone_has_the_players_commands_and_not_the_servers(
    alone: Path, tmp_path: Path
) -> None:
    shown = run_alone(alone, tmp_path, "tricktable", "--help")
    assert shown.returncode == 0, shown.stderr
    commands = shown.stdout.split("positional arguments:")[1].split("options:")[0]
    for command in ("play", "watch", "tournament", "replay", "bot"):
        assert f"    {command}" in commands, command
    for command in ("serve", "simulate", "bench", "health"):
        assert command not in commands.split(), command
    assert shown.stderr == ""  # no command failed to load
    # Without an address there is no server to start, and the commands say why.
    for argv in (["tricktable", "play", "counterpoint"], ["tricktable-arena", "--games", "1"]):
        refused = run_alone(alone, tmp_path, *argv)
        assert refused.returncode != 0
        assert "give --address" in refused.stderr and "server package" in refused.stderr


def test_the_client_alone_plays_and_exports_and_tells_a_game(
    alone: Path, tmp_path: Path, server: ServerThread, record: tuple[str, str]
) -> None:
    game_id, text = record
    saved = tmp_path / "record.json"
    saved.write_text(text)
    told = run_alone(alone, tmp_path, "tricktable", "replay", "--show", str(saved))
    assert told.returncode == 0, told.stderr
    assert f"game {game_id}" in told.stdout and "Final scores:" in told.stdout
    assert "Winners:" in told.stdout and "plays" in told.stdout  # the moves, one per line
    # Checking re-plays through the engine: the client alone says that it needs the server.
    checked = run_alone(alone, tmp_path, "tricktable", "replay", "--check", str(saved))
    assert checked.returncode == 2 and "server package" in checked.stderr
    # Exported from a server it did not start: the same record, not checked.
    out = tmp_path / "exported.json"
    exported = run_alone(
        alone,
        tmp_path,
        "tricktable",
        "replay",
        game_id,
        "--address",
        server.address,
        "-o",
        str(out),
    )
    assert exported.returncode == 0, exported.stderr
    assert "exported, not checked" in exported.stderr
    assert json.loads(out.read_text()) == json.loads(text)  # maps print in any order
    # And a person plays there: one move, then leaves (resigning the game).
    played = run_alone(
        alone,
        tmp_path,
        "tricktable",
        "play",
        "counterpoint",
        "--address",
        server.address,
        stdin="1\n\nq\ny\n",  # bid cards confirmed (Enter), leaving too (y)
    )
    assert played.returncode == 0, played.stderr
    assert "You lay 3 cards aside" in played.stdout
    assert "You resigned and left: the game is over." in played.stdout


def test_the_projects_environment_checks_records_through_the_server_package(
    record: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Beside the server package, the same command checks (the server's entry points)."""
    from tricktable.cli import main

    saved = tmp_path / "record.json"
    saved.write_text(record[1])
    assert main(["replay", "--check", str(saved)]) == 0
    assert "checked counterpoint" in capsys.readouterr().err
