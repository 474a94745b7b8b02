"""What a tournament is, as created: its game, options, clocks, format, entrants, pace, seed and
the hash of its creator's token. Kept in the store as one JSON text; nothing in it changes after
creation (progress and results are kept beside it)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from engine.core.options import OptionValue

#: The reference bots an entrant may name (the server plays them itself: service.turns).
REFERENCE = "reference"
CALLED = "called"
CONNECTED = "connected"

RUNNING = "running"
FINISHED = "finished"
CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class Entrant:
    index: int  # its place in the request's entrants
    bot: str  # a registered bot id, or a reference bot's name
    name: str  # shown; distinct within the tournament
    kind: str = REFERENCE  # REFERENCE, CALLED or CONNECTED
    endpoint: str = ""  # a called bot's BotService address


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    tournament_id: str
    name: str
    game_type: str
    seats: int  # the game's seat count
    options: Mapping[str, OptionValue]  # every option, defaults filled in
    time_control: Mapping[str, Any] | None  # service.clocks.TimeControl data; None: no clock
    rounds: int
    duplicate: bool
    entrants: tuple[Entrant, ...]
    games_at_once: int
    seed: bytes  # secret: every deal seed derives from it
    creator_hash: str  # sha-256 of the creator token
    created_at_ms: int

    def to_json(self) -> str:
        data = asdict(self)
        data["seed"] = self.seed.hex()
        data["options"] = dict(self.options)
        data["time_control"] = dict(self.time_control) if self.time_control else None
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> TournamentSpec:
        data = json.loads(text)
        data["seed"] = bytes.fromhex(data["seed"])
        data["entrants"] = tuple(Entrant(**e) for e in data["entrants"])
        return cls(**data)
