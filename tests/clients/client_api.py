"""The public API of the client package (``tricktable-client``), as a listing committed in
``clients/python/API.txt``: every public module's top-level names, and the signatures of its
functions and of its classes' public methods. ``tests/clients/test_api_version.py`` compares it
with the code, so an API change cannot go unnoticed: it comes with a new listing, a new version
in ``clients/python/pyproject.toml`` and a CHANGELOG entry.

    python3 dev.py python -m tests.clients.client_api > clients/python/API.txt

The bot SDK's modules (``tricktable.bots``) and the generated protocol (``tricktable.v1``, whose
compatibility ``proto/breaking.py`` guards) are not listed; nor are the commands (``cli``).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clients" / "python" / "tricktable"
LISTING = ROOT / "clients" / "python" / "API.txt"
MODULES = (
    "aio",
    "cards",
    "client",
    "errors",
    "facts",
    "legal",
    "move_text",
    "playstream",
    "records",
    "render",
    "server_time",
    "tls",
    "tournament",
)
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _signature(obj: Any) -> str:
    try:
        return _ADDRESS.sub("", str(inspect.signature(obj)))
    except (TypeError, ValueError):
        return "(...)"


def _top_level_names(module: str) -> list[str]:
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in dict.fromkeys(names) if not n.startswith("_")]


def listing() -> list[str]:
    lines: list[str] = []
    for module in MODULES:
        loaded = importlib.import_module(f"tricktable.{module}")
        for name in _top_level_names(module):
            obj = getattr(loaded, name)
            where = f"tricktable.{module}.{name}"
            if inspect.isclass(obj) and obj.__module__ == loaded.__name__:
                lines.append(f"class {where}")
                for attr, member in sorted(vars(obj).items()):
                    if attr.startswith("_") and attr != "__init__":
                        continue
                    if inspect.isfunction(member):
                        lines.append(f"  {where}.{attr}{_signature(member)}")
                    elif isinstance(member, property):
                        lines.append(f"  {where}.{attr} (property)")
            elif inspect.isfunction(obj):
                lines.append(f"def {where}{_signature(obj)}")
            else:
                lines.append(where)
    return lines


if __name__ == "__main__":
    sys.stdout.write("\n".join(listing()) + "\n")
