"""The random bot: any game, a uniformly random legal move whenever the game waits on it."""

from __future__ import annotations

import random
from collections.abc import Sequence

from tricktable.bots.base import Move, View, may_wait


class RandomBot:
    """Seeded, so a game between random bots with a fixed game seed is reproducible. It lets
    optional chances go by (see :func:`~tricktable.bots.base.may_wait`): a random claim between
    tricks would end most Sixty-Six deals after one trick."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        if not legal or may_wait(view, legal):
            return None
        return legal[self.rng.randrange(len(legal))]
