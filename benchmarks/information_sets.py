"""How fast a search bot can determinize: information sets and sampled states per CPU-second.

For each game, the positions of a few random games (every seat at every decision) are collected
first; then ``information_set`` and ``sample_state`` are timed over them, separately, with the
process's CPU clock. Prints one line per game: sets per CPU-second and samples per CPU-second.

    python3 dev.py python -m benchmarks.information_sets [--games N]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from engine import get_rules
from engine.core.moves import Claim

VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("ninety-nine", {}),
    ("counterpoint", {}),
    ("sixty-six", {}),
    ("nominations", {}),
]


def positions(game: str, options: dict[str, object], games: int) -> list[tuple[Any, int]]:
    rules = get_rules(game)
    out: list[tuple[Any, int]] = []
    for n in range(games):
        seed = f"bench-{n}".encode()
        rng = random.Random(seed)
        state = rules.new_game(options, seed)
        for _ in range(300):
            if state.finished:
                break
            out.extend((state, seat) for seat in range(rules.seats))
            # Any seat with a move may make it; a claim is drawn again nine times in ten, so
            # that Sixty-Six deals are played on (their later positions are the search's).
            for _ in range(10):
                mover = rng.choice(rules.movers(state))
                legal = rules.legal_moves(state, mover)
                move = legal[rng.randrange(len(legal))]
                if not isinstance(move, Claim) or rng.random() < 0.1:
                    break
            state, _ = rules.apply(state, mover, move)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args(argv)
    rng = random.Random(1)
    for game, options in VARIANTS:
        rules = get_rules(game)
        at = positions(game, options, args.games)
        start = time.process_time()
        infos = [rules.information_set(state, seat) for state, seat in at]
        sets = time.process_time() - start
        start = time.process_time()
        for info in infos:
            rules.sample_state(info, rng)
        samples = time.process_time() - start
        print(
            f"{game:12s} {len(infos):6d} positions  "
            f"information_set {len(infos) / sets:9.0f}/s  "
            f"sample_state {len(infos) / samples:9.0f}/s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
