"""The import layering of service/ (service/README.md): every module has its place in one
declared order, and imports only modules placed before it, so no import circle can form and a
room never reaches into one above it. Imports inside functions count too: a lazy import is how
a circle hides."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVICE = Path(__file__).resolve().parents[2] / "service"

#: service/ from the ground up, in rooms (see service/README.md). A module may import only the
#: modules listed before it.
ORDER: tuple[tuple[str, ...], ...] = (
    # the ground: errors, configuration, metrics and the store, which know no game service
    (
        "service",
        "service.errors",
        "service.logs",
        "service.metrics",
        "service.event_loop",
        "service.reflection",
        "service.workers",
        "service.background",
        "service.clocks",
        "service.store.base",
        "service.store",
        "service.auth",
        "service.invites",
        "service.identity",
        "service.proxies",
        "service.limits",
        "service.config",
        "service.store.redis_pipe",
        "service.store.redis_notify",
        "service.store.redis_cluster",
        "service.store.memory",
        "service.store.redis",
        "service.readiness",
    ),
    # the words: what the service answers, and their wire forms
    ("service.results", "service.convert", "service.validate", "service.records"),
    # what a game schedules, and the server's own moves (pure)
    ("service.turns",),
    # what the rooms share: the one feed of the games' versions, the games served, presence
    ("service.feed", "service.tables", "service.presence"),
    # the one commit builder
    ("service.commit",),
    # the rooms
    (
        "service.reads",
        "service.moves",
        "service.deadlines",
        "service.lobby",
        "service.rematch",
        "service.matchmaking",
    ),
    # a seat's play stream, through its port
    ("service.play",),
    # the service put together, and the sweeper that fires its deadlines
    ("service.game_service", "service.scheduler"),
    # hosted tournaments (issue 27): a room over the game service, its store beside the games'
    (
        "service.tournaments",
        "service.tournaments.spec",
        "service.tournaments.schedule",
        "service.tournaments.standings",
        "service.tournaments.events",
        "service.tournaments.store",
        "service.tournaments.redis_store",
        "service.tournaments.quotas",
        "service.tournaments.bot_store",
        "service.tournaments.redis_bots",
        "service.tournaments.limits",
        "service.tournaments.seating",
        "service.tournaments.called",
        "service.tournaments.advance",
        "service.tournaments.runner",
        "service.tournaments.ladder",
        "service.tournaments.follow",
        "service.tournaments.desk",
        "service.tournaments.convert",
    ),
    # the doors and the process
    (
        "service.servicer",
        "service.tournaments.servicer",
        "service.interceptors",
        "service.web",
        "service.web.adapter",
        "service.web.codecs",
        "service.web.guard",
        "service.tournaments.web",
        "service.web.app",
        "service.web.server",
        "service.tournaments.wiring",
        "service.server",
        "service.running",
        "service.cli.common",
        "service.cli.env_flags",
        "service.cli.bench",
        "service.cli.health",
        "service.cli.simulate",
        "service.cli.record_check",
        "service.cli.serve",
        "service.cli.cluster",
        "service.cli",
    ),
)
_RANK = {name: n for n, name in enumerate(m for layer in ORDER for m in layer)}


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(SERVICE.rglob("*.py")):
        parts = path.relative_to(SERVICE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def imported(path: Path) -> set[str]:
    """The service modules ``path`` imports, anywhere in it (a function's body too)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "service"}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: a relative import"
            base = node.module or ""
            if base.split(".")[0] != "service":
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"  # `from service import convert` names a module
                out.add(sub if sub in MODULES else base)
    return out


def test_every_module_has_its_place() -> None:
    assert set(MODULES) == set(_RANK), "place new modules in ORDER (and service/README.md)"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imports_only_modules_below_it(name: str) -> None:
    above = sorted(m for m in imported(MODULES[name]) if _RANK[m] >= _RANK[name])
    assert above == [], f"{name} imports {above}, placed at or above it"


def test_the_check_sees_a_lazy_import_above(tmp_path: Path) -> None:
    # A function-level import of a higher module is caught, as the circle
    # convert -> game_service -> turns -> convert once hid in turns.bot_move.
    source = tmp_path / "lazy.py"
    source.write_text("def f():\n    from service import convert\n    return convert\n")
    assert imported(source) == {"service.convert"}
    assert _RANK["service.convert"] > _RANK["service.clocks"]


#: The most methods a class of service/ may have (STYLE: no class over ~20 methods): a class
#: that outgrows it is doing more than one thing and is split into parts.
MAX_METHODS = 20


def methods(path: Path) -> dict[str, int]:
    """How many methods (def and async def in its own body) each class in ``path`` has."""
    return {
        node.name: sum(
            isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) for item in node.body
        )
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.ClassDef)
    }


def test_no_class_has_more_than_twenty_methods() -> None:
    over = {
        f"{name}.{cls}": count
        for name, path in MODULES.items()
        for cls, count in methods(path).items()
        if count > MAX_METHODS
    }
    assert over == {}, f"classes over {MAX_METHODS} methods: split them into parts"


def test_the_method_count_sees_every_def_of_a_class(tmp_path: Path) -> None:
    source = tmp_path / "big.py"
    defs = "".join(f"    def m{n}(self): ...\n    async def a{n}(self): ...\n" for n in range(11))
    source.write_text(f"class Big:\n{defs}    class Inner:\n        def x(self): ...\n")
    assert methods(source) == {"Big": 22, "Inner": 1}
