"""The reference bots never time out at sensible move times (issue 12).

A clocked tournament of every game type, the heuristic bot against the random one, through a
real server: every game ends, and neither entrant loses a single turn to the clock. The move
time (10 s, no bank: brisk for a person, and what a bot tournament would set) is far above the
milliseconds the bots need, so a timeout here means a bot that stalls; 2 s once failed on a
machine with a load average of 12, which says nothing about the bots.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tricktable.client import Client, OptionValue
from tricktable.tournament import Entrant, TournamentConfig, run_tournament

from service.running import ServerThread

#: Short matches: whole games, a few deals each.
SHORT: dict[str, dict[str, OptionValue]] = {
    "ninety-nine": {"game_length_deals": 3},
    "counterpoint": {"target_score": 60},
    "sixty-six": {"target_game_points": 4},
    "nominations": {"end_mode": "deals", "deal_count": 4},
}

ENTRANTS = (Entrant("heuristic", "heuristic"), Entrant("random", "random"))


@pytest.fixture(scope="module")
def module_client(server: ServerThread) -> Iterator[Client]:
    with Client(server.address, timeout_s=30.0) as connected:
        yield connected


@pytest.mark.parametrize("game", sorted(SHORT))
def test_reference_bots_never_time_out_at_a_brisk_clock(module_client: Client, game: str) -> None:
    config = TournamentConfig(
        game,
        ENTRANTS,
        options=SHORT[game],
        seed=f"keep-time-{game}",
        move_time_s=10.0,
        forfeit_after=1,  # one timeout would forfeit the game: a lost turn cannot hide
    )
    result = run_tournament(module_client, config, parallel=2)
    assert result.games, "the tournament played no game"
    assert [record.timeouts for record in result.games] == [
        (0,) * len(record.seats) for record in result.games
    ]
    assert {s.name: s.timeouts for s in result.standings} == {"heuristic": 0, "random": 0}
