"""Golden playthroughs: one complete recorded game per game and variant, under ``golden/``.

Each file holds a game's options, seed and accepted moves, and, for the opening and after every
move, the full events, each seat's and the spectator's view, the seats to act and a digest of
the snapshot. ``test_golden.py`` re-plays the moves and compares everything, so any change of
behaviour shows up as the first line that differs (like OpenSpiel's playthrough files).

A deliberate change of behaviour is re-recorded with::

    python3 dev.py python -m tests.engine.golden_games

which plays each game again from its seed, choosing moves with the recorded bot seed, and
rewrites the files; review the diff before committing it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine import get_rules
from engine.core.codec import cards_to_data, to_data
from engine.core.fields import card_kind
from engine.core.moves import Call, move_from_data, move_to_data
from engine.core.rules import Rules

GOLDEN = Path(__file__).parent / "golden"

#: (file name, game, options, game seed, bot seed): one complete game each. Games are kept
#: short where an option allows it, so the files stay small enough to read in a diff.
GAMES: tuple[tuple[str, str, dict[str, object], bytes, int], ...] = (
    ("counterpoint", "counterpoint", {"target_score": 60}, b"golden-counterpoint", 1),
    (
        "ninety-nine-classic",
        "ninety-nine",
        {"edition": "classic", "game_length_deals": 3},
        b"golden-ninety-nine",
        21,
    ),
    (
        "ninety-nine-revised",
        "ninety-nine",
        {"edition": "revised", "target_score": 40},
        b"golden-ninety-nine-revised",
        21,
    ),
    ("sixty-six-gamefarm", "sixty-six", {"preset": "gamefarm"}, b"golden-sixty-six", 163),
    ("sixty-six-pagat", "sixty-six", {"preset": "pagat"}, b"golden-sixty-six-pagat", 155),
    (
        "nominations",
        "nominations",
        {"end_mode": "deals", "deal_count": 2, "double_hand_cut": "cutter_chooses"},
        b"golden-nominations",
        240,
    ),
    (
        "nominations-double-hand",
        "nominations",
        {"end_mode": "deals", "deal_count": 1, "double_hand_cut": "cutter_chooses"},
        b"golden-nominations-double-hand",
        0,
    ),
)

#: Games whose recording bot passes in an auction three times in four when it may, so that all
#: four pass and the double hand (stacked, cut by the cutter's choice, dealt again) is recorded.
PASSING: frozenset[str] = frozenset({"nominations-double-hand"})


def plain(value: Any, kind: str | None = None) -> Any:
    """Any engine value as JSON-ready data, cards by name (moves and events by their codec)."""
    if value is None:
        return None
    if kind is not None:
        return cards_to_data(value, kind)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "kind"):
            return to_data(value)
        return {
            f.name: plain(getattr(value, f.name), card_kind(f)) for f in dataclasses.fields(value)
        }
    if isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, Sequence):
        return [plain(v) for v in value]
    raise TypeError(f"no data form for {value!r}")


def move_text(data: dict[str, Any]) -> str:
    """A move's data form on one line: ``"play_card AS"``, ``"lay_aside 6C,7C,8C"``."""
    parts = [str(data["type"])]
    for key, value in data.items():
        if key != "type":
            parts.append(",".join(value) if isinstance(value, list) else str(value))
    return " ".join(parts)


def choose(rng: random.Random, legal: Sequence[Any], passing: bool = False) -> Any:
    """The recording bot: uniformly random, except that it claims only one time in eight when
    it has another move (a random claim ends a Sixty-Six deal before the stock is played), and
    a ``passing`` bot passes three times in four when it may."""
    if passing and Call("pass") in legal and rng.randrange(4):
        return Call("pass")
    move = legal[rng.randrange(len(legal))]
    if type(move).kind == "claim" and len(legal) > 1 and rng.randrange(8):
        others = [m for m in legal if type(m).kind != "claim"]
        move = others[rng.randrange(len(others))]
    return move


def moment(rules: Rules[Any], state: Any, events: Sequence[Any]) -> dict[str, Any]:
    """Everything observable after one step: events, to_act, every view, the snapshot."""
    views: dict[str, Any] = {}
    for viewer in (*range(rules.seats), None):
        view = plain(rules.view(state, viewer))
        # Legal moves written one short string each: a lay-aside offers hundreds.
        view["legal_moves"] = [move_text(m) for m in view["legal_moves"]]
        views["spectator" if viewer is None else str(viewer)] = view
    return {
        "events": [plain(e) for e in events],
        "to_act": list(rules.to_act(state)),
        "views": views,
        "snapshot_sha256": hashlib.sha256(rules.snapshot(state)).hexdigest(),
    }


def record(
    game: str, options: dict[str, object], seed: bytes, bot_seed: int, passing: bool = False
) -> dict[str, Any]:
    """Play one complete game with random legal moves and record every step."""
    rules = get_rules(game)
    rng = random.Random(bot_seed)
    state = rules.new_game(options, seed)
    steps = [{"seat": None, "move": None, **moment(rules, state, rules.opening_events(state))}]
    while not state.finished:
        acting = rules.to_act(state)
        seat = acting[rng.randrange(len(acting))]
        legal = rules.legal_moves(state, seat)
        move = choose(rng, legal, passing)
        state, events = rules.apply(state, seat, move)
        steps.append({"seat": seat, "move": move_to_data(move), **moment(rules, state, events)})
    outcome = rules.outcome(state)
    assert outcome is not None
    return {
        "game": game,
        "options": options,
        "seed": seed.hex(),
        "bot_seed": bot_seed,
        "outcome": {"totals": list(outcome.totals), "winners": list(outcome.winners)},
        "steps": steps,
    }


def replay(recorded: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded game's moves played again: the steps as this engine gives them."""
    rules = get_rules(recorded["game"])
    state = rules.new_game(recorded["options"], bytes.fromhex(recorded["seed"]))
    steps = [{"seat": None, "move": None, **moment(rules, state, rules.opening_events(state))}]
    for step in recorded["steps"][1:]:
        state, events = rules.apply(state, step["seat"], move_from_data(step["move"]))
        steps.append({"seat": step["seat"], "move": step["move"], **moment(rules, state, events)})
    return steps


def path_of(name: str) -> Path:
    return GOLDEN / f"{name}.json"


def write(recorded: dict[str, Any], path: Path) -> None:
    """One step per line, so a diff points at the step that changed."""
    head = {k: v for k, v in recorded.items() if k != "steps"}
    lines = [json.dumps(head, sort_keys=True, ensure_ascii=False)]
    lines += [json.dumps(s, sort_keys=True, ensure_ascii=False) for s in recorded["steps"]]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def read(path: Path) -> dict[str, Any]:
    first, *rest = path.read_text(encoding="utf-8").splitlines()
    recorded: dict[str, Any] = json.loads(first)
    recorded["steps"] = [json.loads(line) for line in rest]
    return recorded


def main(argv: list[str]) -> int:
    GOLDEN.mkdir(exist_ok=True)
    for name, game, options, seed, bot_seed in GAMES:
        if argv and name not in argv:
            continue
        recorded = record(game, options, seed, bot_seed, name in PASSING)
        write(recorded, path_of(name))
        print(f"{name}: {len(recorded['steps']) - 1} moves -> {path_of(name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
