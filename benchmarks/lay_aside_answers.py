"""What a lay-aside answer costs, listed and compact (``compact_lay_aside``), in-process.

    python3 dev.py python -m benchmarks.lay_aside_answers [--reps 2000]

For the first view of a deal in Counterpoint (16 cards: 560 lay-asides) and Ninety-Nine (12
cards: 220), it times the server's part of a Play stream's answer (the engine's view of the seat,
its conversion into a PlayResponse, serialization) and the bot's part (parsing the bytes, reading
the legal moves with :func:`tricktable.legal.legal_moves`, picking a uniformly random one), and
prints one JSON line per game with the answer's bytes. Timings are best-of-five means, in µs;
compare them within one run, not across machines.
"""

from __future__ import annotations

import argparse
import json
import random
import timeit
from collections.abc import Callable

from tricktable.legal import legal_moves
from tricktable.v1 import game_service_pb2 as pb

from engine import get_rules
from service import convert
from service.play import PlayStep, SeatView


def _best_us(run: Callable[[], object], reps: int) -> float:
    return min(timeit.repeat(run, number=reps, repeat=5)) / reps * 1e6


def measure(game: str, reps: int) -> dict[str, object]:
    rules = get_rules(game)
    state = rules.new_game({}, f"lay-aside answers:{game}".encode())
    seat = rules.to_act(state)[0]
    rng = random.Random(0)
    out: dict[str, object] = {"game": game, "lay_asides": len(rules.legal_moves(state, seat))}
    for form, compact in (("listed", False), ("compact", True)):

        def answer(compact: bool = compact) -> bytes:
            step = PlayStep(view=SeatView(version=1, view=rules.view(state, seat)))
            return convert.play_response(step, compact).SerializeToString()

        data = answer()

        def bot(data: bytes = data) -> object:
            view = pb.PlayResponse.FromString(data).step.view.view
            legal = legal_moves(view)
            return legal[rng.randrange(len(legal))]

        out[f"{form}_bytes"] = len(data)
        out[f"{form}_server_us"] = round(_best_us(answer, reps), 1)
        out[f"{form}_bot_us"] = round(_best_us(bot, reps), 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    args = parser.parse_args()
    for game in ("counterpoint", "ninety-nine"):
        print(json.dumps(measure(game, args.reps)))


if __name__ == "__main__":
    main()
