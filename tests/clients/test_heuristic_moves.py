"""The heuristic bots choose the same moves as they always have: a few seeded games of each game
with a heuristic bot in every seat, the moves chosen hashed in the order they were chosen.

The hashes were produced by the bots as they stood before their hand estimates and play rules
moved to :mod:`tricktable.bots.judgement` (shared with the expert's playout policies), by this
test run on commit f679da8: a change to what a heuristic bot chooses changes a hash, and a
change meant to alter the bots' play updates these hashes on purpose."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import pytest
from tricktable.bots import make_bot
from tricktable.bots.arena import seat_count
from tricktable.bots.base import Bot, Move, View
from tricktable.bots.runner import play_game
from tricktable.client import Client

from tests.clients.test_bots import SHORT

#: sha256 of the moves chosen in the seeded games of each game (see the module's docstring).
EXPECTED = {
    "ninety-nine": "52b45e775fcf2ad6e802b985d76a9868e61f3f3473c5b4726fd1efc62c799ec4",
    "nominations": "199c7ecd194bb07ab5949cca3c2f25c9b82280231ace0d4321ab7a3b9a94625d",
    "counterpoint": "a7ea4f1348bb170e6280d82573cce01c82edb2aca0768a7927ab9613e9bf5bbb",
    "sixty-six": "9147440270ad323cde7f9de3cb39ad90c4acc135327b63c59f81cb7fa1ca2b52",
}
SEEDS = ("same-moves:1", "same-moves:2", "same-moves:3")


def logged(bot: Bot, log: list[bytes]) -> Bot:
    def play(view: View, legal: Sequence[Move]) -> Move | None:
        move = bot(view, legal)
        log.append(move.SerializeToString(deterministic=True) if move is not None else b"-")
        return move

    return play


@pytest.mark.parametrize("game", sorted(EXPECTED))
def test_the_heuristic_bots_choose_the_moves_they_always_chose(client: Client, game: str) -> None:
    digest = hashlib.sha256()
    for seed in SEEDS:
        log: list[bytes] = []
        bots = [logged(make_bot("heuristic", game), log) for _ in range(seat_count(client, game))]
        result = play_game(client, game, bots, options=SHORT[game], seed=seed.encode())
        assert result.final.view.finished and len(log) > 20
        for move in log:
            digest.update(len(move).to_bytes(4, "big") + move)
    assert digest.hexdigest() == EXPECTED[game]
