"""Every game of a round robin, pure: each table of entrants (every combination of distinct
entrants for the game's seats) in every seat rotation, ``rounds`` times; with ``duplicate`` the
rotations of a table in a round share one deal seed. The order and the seeds are the client's
own tournament's (:func:`tricktable.tournament.schedule`: one rule, written once), so a hosted
tournament and a client-side one with the same seed deal the same cards. Every seed derives
from the tournament's secret seed, so a rerun with the seed repeats every deal and pairing."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from tricktable.tournament import schedule as client_schedule
from tricktable.tournament import tables

from service.tournaments.spec import TournamentSpec


@dataclass(frozen=True, slots=True)
class Slot:
    """A scheduled game: its number, its entrant at each seat and its deal seed."""

    number: int
    round: int
    table: int
    rotation: int
    seats: tuple[int, ...]  # entrant indices
    seed: bytes
    deal_id: str  # names the deal, not its seed: equal ids share cards


@lru_cache(maxsize=64)
def _slots(
    entrants: int, seats: int, rounds: int, duplicate: bool, seed: bytes
) -> tuple[Slot, ...]:
    names = [str(n) for n in range(entrants)]
    return tuple(
        Slot(
            number=g.number,
            round=g.round,
            table=g.table,
            rotation=g.rotation,
            seats=tuple(int(s) for s in g.seats),
            seed=g.seed,
            deal_id=g.seed_id,
        )
        for g in client_schedule(names, seats, rounds, duplicate=duplicate, seed=seed.hex())
    )


def slots(spec: TournamentSpec) -> tuple[Slot, ...]:
    """Every game of the tournament, in order."""
    return _slots(len(spec.entrants), spec.seats, spec.rounds, spec.duplicate, spec.seed)


def game_count(entrants: int, seats: int, rounds: int) -> int:
    """How many games a round robin has, without listing them (the limits ask before any list
    is made)."""
    if entrants >= seats:
        table_count = math.comb(entrants, seats)
    else:
        table_count = len(tables([str(n) for n in range(entrants)], seats))
    return table_count * seats * rounds


def game_id(tournament_id: str, number: int) -> str:
    """The id of the game that plays scheduled game ``number``: fixed by the schedule, so
    whichever replica creates it creates the one game (the store refuses a second)."""
    return f"{tournament_id}-{number}"
