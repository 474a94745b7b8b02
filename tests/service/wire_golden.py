"""The bytes on the wire for every golden game (``tests/engine/golden``), as digests.

For the opening and after every move of each recorded game, every viewer's (each seat's and the
spectator's) view in the listed and the compact lay-aside form, its projection of the step's
events (each event alone, and as a ``StreamEventsResponse``), its ``PlayResponse`` (the mover's
with the answer to its move, another seat's with a refusal, both forms), the mover's
``SubmitMoveResponse`` and every viewer's ``GetGameResponse`` (with clocks and presence) are
converted and serialized; each kind's bytes of one step are hashed together. The digests are
under ``tests/fixtures/golden_wire/``, one line per step, and ``test_convert.py`` converts
everything again and compares, so a rewrite of ``service/convert.py`` that changes one byte a
client receives fails at the step and kind that differ.

The files were made with main's ``service/convert.py`` of the time (commit e65021e), before its
generated fillers and wire caches were replaced by plain code. A deliberate change of the wire
form is recorded again with::

    python3 dev.py python -m tests.service.wire_golden

and the diff reviewed: a changed line is a change of what clients receive.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from google.protobuf.message import Message

from engine import get_rules
from engine.core.events import Event
from engine.core.moves import move_from_data
from service import convert
from service.clocks import SeatClockView, TimeControl
from service.errors import VersionConflict
from service.game_service import MoveResult, ProjectedBatch, SeatPresenceView
from service.play import MoveAnswer, PlayStep, SeatView
from service.store.base import ACTIVE, FINISHED, GameRecord, SeatRecord
from tests.engine.golden_games import GAMES, path_of, read

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "golden_wire"

#: What is digested for each step, in this order (a line's keys).
KINDS = (
    "views",
    "compact_views",
    "events",
    "batches",
    "play",
    "compact_play",
    "submit",
    "get_game",
)


def _clocks(version: int, seats: int) -> tuple[SeatClockView, ...]:
    """Some clocks that change with every version (a clocked game's view carries them)."""
    return tuple(
        SeatClockView(
            seat=s,
            move_ms_left=1_000 * version + s,
            bank_ms_left=60_000 - version,
            running=s == version % seats,
            deadline_ms=0 if s != version % seats else 1_700_000_000_000 + version,
            timeouts=version % 3,
        )
        for s in range(seats)
    )


def _record(
    name: str, game: str, options: dict[str, Any], seats: int, version: int, finished: bool
) -> GameRecord:
    """The game's lobby record at ``version`` (every seat taken, the last a server bot)."""
    return GameRecord(
        game_id=f"golden-{name}",
        game_type=game,
        options=options,
        seed=b"s",
        seat_count=seats,
        created_at_ms=1_700_000_000_000,
        seats=tuple(
            SeatRecord(f"hash{s}", f"player {s}", "random" if s == seats - 1 else "")
            for s in range(seats)
        ),
        snapshot=b"",
        version=version,
        status=FINISHED if finished else ACTIVE,
        time_control=TimeControl(30_000, 120_000, 2_000).to_data(),
    )


def step_digests(name: str) -> Iterator[dict[str, str]]:
    """Each step's digests of the golden game ``name``: the opening's, then each move's."""
    recorded = read(path_of(name))
    game, options = recorded["game"], recorded["options"]
    rules = get_rules(game)
    state = rules.new_game(options, bytes.fromhex(recorded["seed"]))
    events: list[Event] = list(rules.opening_events(state))
    mover: int | None = None
    for version, step in enumerate(recorded["steps"]):
        if version:
            mover = step["seat"]
            state, events = rules.apply(state, mover, move_from_data(step["move"]))
        out: dict[str, list[bytes]] = {kind: [] for kind in KINDS}
        clocks = _clocks(version, rules.seats)
        presence = [
            SeatPresenceView(s, s != version % rules.seats, version) for s in range(rules.seats)
        ]
        record = _record(name, game, options, rules.seats, version, state.finished)
        refused = None if mover is None else (mover + 1) % rules.seats
        for viewer in (*range(rules.seats), None):
            view = rules.view(state, viewer)
            projected = [rules.project(e, viewer) for e in events]
            out["views"].append(_bytes(convert.view_to_proto(view)))
            out["compact_views"].append(_bytes(convert.view_to_proto(view, compact_lay_aside=True)))
            out["events"] += [_bytes(convert.event_to_proto(e)) for e in projected]
            batch = ProjectedBatch(version, mover, projected, None)
            out["batches"].append(_bytes(convert.batch_to_proto(batch)))
            out["get_game"].append(
                _bytes(convert.get_game_response(record, view, clocks, presence))
            )
            if viewer is None:
                continue
            answer = None
            if viewer == mover:
                answer = MoveAnswer(f"move-{version}", version)
            elif viewer == refused:
                answer = MoveAnswer(f"late-{version}", None, VersionConflict(version))
            for compact, kind in ((False, "play"), (True, "compact_play")):
                seat_step = PlayStep(answer, [batch], SeatView(version, view, clocks))
                out[kind].append(_bytes(convert.play_response(seat_step, compact)))
            if viewer == mover or (mover is None and viewer == 0):
                result = MoveResult(version, projected, view, clocks=clocks)
                out["submit"].append(_bytes(convert.submit_move_response(result)))
        yield {kind: _digest(parts) for kind, parts in out.items()}


def _bytes(msg: Message) -> bytes:
    # Deterministic: a map's entries (a game summary's options) in the order of their keys. Left
    # to itself, upb writes them in its hash table's order, which differs between processes.
    return msg.SerializeToString(deterministic=True)


def _digest(parts: list[bytes]) -> str:
    """One digest of several messages' bytes, each with its length (so that where one ends and
    the next begins counts too)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(len(part).to_bytes(4, "big"))
        h.update(part)
    return f"{len(parts)}:{h.hexdigest()[:24]}"


def fixture_of(name: str) -> Path:
    return FIXTURES / f"{name}.jsonl"


def read_digests(name: str) -> list[dict[str, str]]:
    lines = fixture_of(name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def main(argv: list[str]) -> int:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, *_ in GAMES:
        if argv and name not in argv:
            continue
        lines = [json.dumps(d, sort_keys=True) for d in step_digests(name)]
        fixture_of(name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{name}: {len(lines)} steps -> {fixture_of(name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
