"""OpenSpiel's ``oh_hell`` (4 players) played at random, measured beside the engine.

``tricktable bench engine --against-openspiel`` prints this line after the engine's own, in the
same run and on the same machine, so the two figures compare (a shared machine's load varies
from run to run). OpenSpiel is optional (``pip install open-spiel``, or the engine's
``[openspiel]`` extra): it is imported only here, only when asked.

What is counted is the same as for the engine: player moves (bids and card plays), chosen
uniformly at random among the legal ones by a Python ``random.Random``, through OpenSpiel's
Python API (``legal_actions``/``apply_action``), per CPU second of this process. OpenSpiel
deals by chance nodes (one per card, and the number of tricks); those are drawn the same way
and their time is counted, but they are not moves, as the engine's deals are not.
"""

from __future__ import annotations

import importlib
import random
import time
from typing import Any


def available() -> str | None:
    """None when OpenSpiel can be imported, else why not (to print instead of a figure)."""
    try:
        importlib.import_module("pyspiel")  # imported only when asked (an optional library)
    except ImportError as exc:
        return f"OpenSpiel is not installed ({exc}); pip install open-spiel"
    return None


def measure(seconds: float, players: int = 4) -> dict[str, Any]:
    """Random playouts of ``oh_hell`` for about ``seconds`` of CPU time."""
    pyspiel: Any = importlib.import_module("pyspiel")
    game = pyspiel.load_game("oh_hell", {"players": players})
    rng = random.Random(0)
    randbelow = rng.randrange
    moves = chance = games = 0
    wall = time.perf_counter()
    start = time.process_time()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()  # uniform in oh_hell: deals and trick count
                state.apply_action(outcomes[randbelow(len(outcomes))][0])
                chance += 1
            else:
                legal = state.legal_actions()
                state.apply_action(legal[randbelow(len(legal))])
                moves += 1
        games += 1
        now = time.process_time()
        if now >= deadline:
            break
    cpu = now - start
    return {
        "game": "openspiel:oh_hell",
        "variant": f"players={players}",
        "apply": "in_place",
        "games": games,
        "moves": moves,
        "chance_moves": chance,
        "deals": games,
        "seconds": round(time.perf_counter() - wall, 3),
        "cpu_seconds": round(cpu, 3),
        "moves_per_s": round(moves / (time.perf_counter() - wall)),
        "moves_per_cpu_s": round(moves / cpu),
        "deals_per_s": round(games / (time.perf_counter() - wall), 1),
    }
