"""``buf breaking`` (FILE rules) of the working tree's protocol against the previous commit.

    python3 dev.py python proto/breaking.py              # against HEAD~1 (what CI checks)
    python3 dev.py python proto/breaking.py --against main

Passes, saying why, when there is nothing to compare with: no previous commit, or a previous
commit without ``proto/buf.yaml`` (the protocol's first landing). Run from a fresh clone, the
working tree is HEAD, so this checks the last commit's protocol change.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="HEAD~1", help="git revision (default HEAD~1)")
    args = parser.parse_args(argv)
    resolved = _git("rev-parse", "--verify", "--quiet", f"{args.against}^{{commit}}")
    if resolved.returncode != 0:
        print(f"breaking.py: no revision {args.against!r}; nothing to compare with")
        return 0
    sha = resolved.stdout.strip()
    if _git("cat-file", "-e", f"{sha}:proto/buf.yaml").returncode != 0:
        print(f"breaking.py: {args.against} has no proto/buf.yaml (first landing); skipped")
        return 0
    # buf-bin installs buf beside this interpreter's scripts, which may not be on PATH
    installed = Path(sysconfig.get_path("scripts")) / "buf"
    buf = str(installed) if installed.exists() else shutil.which("buf")
    if buf is None:
        print("breaking.py: buf not found (pip install buf-bin)", file=sys.stderr)
        return 2
    against = f"{ROOT / '.git'}#ref={sha},subdir=proto"
    result = subprocess.run([buf, "breaking", "proto", "--against", against], cwd=ROOT, check=False)
    if result.returncode == 0:
        print(f"breaking.py: no breaking change against {args.against} ({sha[:12]})")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
