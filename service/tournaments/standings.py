"""Standings from the results counted, pure. Win share with its 95% Wilson interval, mean score
and openskill rating are the client tournament's (:func:`tricktable.tournament.standings`: one
rule, written once), folded over the results in schedule order, so the standings are a function
of the set of results, whatever order replicas counted them in. For a duplicate tournament each
entrant also gets its duplicate score: its score less the mean score of the other holders of the
same cards (the same seat of the same deal)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from tricktable import tournament as client

from service.tournaments.schedule import Slot
from service.tournaments.spec import Entrant


@dataclass(frozen=True, slots=True)
class Result:
    """How a scheduled game ended: each seat's final score, the winning seats, and the seats
    that lost by forfeit (an unavailable bot, a clock)."""

    number: int
    game_id: str
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    forfeits: tuple[int, ...] = ()

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str | bytes) -> Result:
        return cls.from_json_data(json.loads(text))

    @classmethod
    def from_json_data(cls, data: dict[str, Any]) -> Result:
        return cls(
            number=data["number"],
            game_id=data["game_id"],
            scores=tuple(data["scores"]),
            winners=tuple(data["winners"]),
            forfeits=tuple(data.get("forfeits", ())),
        )


@dataclass(frozen=True, slots=True)
class Row:
    rank: int
    entrant: int
    name: str
    games: int
    wins: float
    win_share: float
    win_share_low: float
    win_share_high: float
    mean_score: float
    mu: float
    sigma: float
    ordinal: float
    duplicate_score: float
    forfeits: int

    def to_data(self) -> dict[str, object]:
        return asdict(self)


class Folds:
    """Each tournament's standings fold over its first results, kept between calls (one
    replica's cache, never the truth): the fold over games 0..k-1 once all of them are counted,
    so a count adds the few games past that prefix rather than rating every game again. Results
    counted out of order are folded in schedule order all the same, so the standings do not
    depend on the cache. Keeps the last :data:`KEPT` tournaments."""

    KEPT = 256

    def __init__(self) -> None:
        self._folds: dict[str, tuple[int, client.StandingsFold]] = {}

    def fold(
        self, key: str, names: Sequence[client.Entrant], records: Sequence[client.GameRecord]
    ) -> client.StandingsFold:
        """The fold over ``records`` (in schedule order: numbers 0, 1, … first)."""
        kept = self._folds.get(key)
        done, fold = kept if kept is not None else (0, client.StandingsFold(names))
        if done > len(records) or any(r.number != n for n, r in enumerate(records[:done])):
            done, fold = 0, client.StandingsFold(names)
        prefix = done
        while prefix < len(records) and records[prefix].number == prefix:
            fold.add(records[prefix])
            prefix += 1
        self._folds.pop(key, None)
        self._folds[key] = (prefix, fold)
        while len(self._folds) > self.KEPT:
            self._folds.pop(next(iter(self._folds)))
        rest = records[prefix:]
        if not rest:
            return fold
        out = fold.copy()
        for record in rest:
            out.add(record)
        return out


def standings(
    entrants: Sequence[Entrant],
    slots: Sequence[Slot],
    results: Mapping[int, Result],
    *,
    duplicate: bool,
    folds: Folds | None = None,
    key: str = "",
) -> list[Row]:
    """The table over ``results`` (by game number), best first. With ``folds``, the fold of
    ``key``'s earlier results is reused (the table is the same without)."""
    counted = [(slots[n], results[n]) for n in sorted(results)]
    names = [client.Entrant(str(e.index), e.bot) for e in entrants]
    records = [
        client.GameRecord(
            number=slot.number,
            set=0,
            table=slot.table,
            round=slot.round,
            rotation=slot.rotation,
            seats=tuple(str(s) for s in slot.seats),
            seed_id=slot.deal_id,
            game_id=result.game_id,
            scores=result.scores,
            winners=result.winners,
            moves=0,
        )
        for slot, result in counted
    ]
    if folds is not None:
        table = folds.fold(key, names, records).standings()
    else:
        table = client.standings(names, records)
    dup = duplicate_scores(counted) if duplicate else {}
    forfeits: dict[int, int] = defaultdict(int)
    for slot, result in counted:
        for seat in result.forfeits:
            forfeits[slot.seats[seat]] += 1
    return [
        Row(
            rank=row.rank,
            entrant=int(row.name),
            name=entrants[int(row.name)].name,
            games=row.games,
            wins=row.wins,
            win_share=row.win_rate,
            win_share_low=row.ci_low,
            win_share_high=row.ci_high,
            mean_score=row.mean_score,
            mu=row.mu,
            sigma=row.sigma,
            ordinal=row.ordinal,
            duplicate_score=dup.get(int(row.name), 0.0),
            forfeits=forfeits[int(row.name)],
        )
        for row in table
    ]


def duplicate_scores(counted: Iterable[tuple[Slot, Result]]) -> dict[int, float]:
    """Each entrant's mean, over its seats whose cards someone else also held, of its score
    less the mean score of those other holders."""
    holders: dict[tuple[str, int], list[tuple[int, int]]] = defaultdict(list)
    for slot, result in counted:
        for seat, entrant in enumerate(slot.seats):
            holders[(slot.deal_id, seat)].append((entrant, result.scores[seat]))
    margins: dict[int, list[float]] = defaultdict(list)
    for held in holders.values():
        for i, (entrant, score) in enumerate(held):
            others = [s for j, (e, s) in enumerate(held) if j != i and e != entrant]
            if others:
                margins[entrant].append(score - sum(others) / len(others))
    return {e: sum(m) / len(m) for e, m in margins.items()}
