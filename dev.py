#!/usr/bin/env python3
"""Run a project tool inside the project's own virtual environment, creating it first if needed.

    python3 dev.py tricktable simulate ninety-nine --games 100 --seed 1
    python3 dev.py pytest

Only the standard library is used here, so this works on a fresh machine with Python 3.11+.
The environment lives in .venv and is (re)installed from requirements.lock whenever
pyproject.toml or the lock file change, so every machine runs the same pinned versions.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".tricktable-installed"
INPUTS = (
    "pyproject.toml",
    "requirements.lock",
    "dev.py",
    "clients/python/pyproject.toml",
    "engine/pyproject.toml",
)


def _bin(name: str) -> Path:
    return VENV / ("Scripts" if os.name == "nt" else "bin") / name


def _fingerprint() -> str:
    digest = hashlib.sha256(sys.version.encode())
    for name in INPUTS:
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()


def ensure_venv() -> None:
    want = _fingerprint()
    if STAMP.exists() and STAMP.read_text() == want:
        return
    if not _bin("python").exists():
        print("dev.py: creating .venv", file=sys.stderr)
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    print("dev.py: installing pinned dependencies (requirements.lock)", file=sys.stderr)
    pip = [str(_bin("python")), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "-c", "requirements.lock", "pip"], cwd=ROOT, check=True)
    # The rules engine (engine/, imported as `engine`) is a distribution of its own, so that a bot
    # installs it alone; the server depends on it. Its folder is the package itself, where
    # "compat" mode (below) would put engine/ on sys.path (`engine.core` importable as `core`,
    # `engine` not at all), so it gets setuptools' default editable mode: a finder mapping the
    # name `engine` onto the folder. Installed first, it is what the server's dependency finds.
    subprocess.run(
        [*pip, "install", "-c", "requirements.lock", "-e", "engine"], cwd=ROOT, check=True
    )
    # "compat" editable mode puts the repo root on sys.path (a .pth file), so packages added
    # later are importable without reinstalling.
    # The client (clients/python: the protocol, the SDK and the `tricktable` command) is a
    # distribution of its own, so that a player installs it alone; the server depends on it and
    # adds its commands to `tricktable` through entry points.
    install = ["install", "-c", "requirements.lock", "--config-settings", "editable_mode=compat"]
    subprocess.run([*pip, *install, "-e", ".[dev]", "-e", "clients/python"], cwd=ROOT, check=True)
    if not _bin("tricktable").exists():
        # The `tricktable` script moved from the server's distribution to the client's: pip,
        # upgrading a .venv made before, removes the old owner's copy after writing the new one.
        client = [*install, "--no-deps", "--force-reinstall", "-e", "clients/python"]
        subprocess.run([*pip, *client], cwd=ROOT, check=True)
    STAMP.write_text(want)


def main(argv: list[str]) -> int:
    if sys.version_info < (3, 11):  # noqa: UP036  (this script may run on any python3)
        print("dev.py: Python 3.11 or newer is required", file=sys.stderr)
        return 2
    if not argv or argv[0] in {"-h", "--help"}:
        print(__doc__)
        return 0 if argv else 2
    ensure_venv()
    tool = _bin(argv[0])
    if not tool.exists():
        print(f"dev.py: no command {argv[0]!r} in .venv", file=sys.stderr)
        return 2
    env = dict(os.environ, VIRTUAL_ENV=str(VENV))
    env["PATH"] = f"{tool.parent}{os.pathsep}{env.get('PATH', '')}"
    # In the caller's directory, like any command: `--entrant mine=mybots:make` imports
    # mybots.py from there.
    if os.name == "posix":
        # The tool replaces this process: signals (SIGTERM from a supervisor, SIGINT from the
        # terminal) reach it directly and its exit status is ours. A child would leave the
        # server serving as an orphan when only this wrapper was sent SIGTERM.
        os.execve(tool, [str(tool), *argv[1:]], env)
    return subprocess.call([str(tool), *argv[1:]], env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
