"""A tournament's events, as kept in the store (JSON, one per version) and read back by the
doors: a game started, a game ended with its result and the standings after it, the end."""

from __future__ import annotations

import json
from collections.abc import Sequence

from service.tournaments.standings import Result, Row

STARTED = "started"
ENDED = "ended"
END = "end"


def started(number: int, game_id: str) -> str:
    return json.dumps({"kind": STARTED, "number": number, "game_id": game_id})


def ended(result: Result, rows: Sequence[Row]) -> str:
    return json.dumps(
        {"kind": ENDED, "result": json.loads(result.to_json()), "standings": _rows(rows)}
    )


def end(status: str, rows: Sequence[Row]) -> str:
    return json.dumps({"kind": END, "status": status, "standings": _rows(rows)})


def _rows(rows: Sequence[Row]) -> list[dict[str, object]]:
    return [row.to_data() for row in rows]


def rows_of(data: list[dict[str, object]]) -> list[Row]:
    return [Row(**row) for row in data]  # type: ignore[arg-type]
