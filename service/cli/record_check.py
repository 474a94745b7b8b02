"""The record checker that ``tricktable replay`` finds through the entry point group
``tricktable.record_checkers``: a record's JSON re-played through the engine with the recorded
chance only (engine.record.verify). Every move must be legal and every pack, event and total
must come out as recorded. The client package has no engine, so it checks nothing itself."""

from __future__ import annotations

from engine.record import RecordMismatch, timed_out, verify
from service.records import record_from_json, record_from_proto


def check_record(text: str) -> tuple[bool, str]:
    """Whether the record re-plays, and the verdict in a sentence."""
    try:
        record = record_from_proto(record_from_json(text))
        outcome = verify(record)
    except RecordMismatch as exc:
        return False, f"the record does NOT re-play: {exc}"
    moves = sum(1 for s in record.steps if s.move is not None)
    by_clock = sum(1 for s in record.steps if s.move is not None and timed_out(s))
    moves_text = f"{moves} moves" + (f" ({by_clock} made by the clock)" if by_clock else "")
    forfeit = record.steps[-1] if record.steps else None
    if outcome is None and forfeit is not None and timed_out(forfeit):
        result = f"abandoned: seat {record.resigned_seat} forfeited on time"
    elif outcome is None:
        result = f"abandoned: seat {record.resigned_seat} resigned"
    else:
        result = f"totals {list(outcome.totals)}, winners {list(outcome.winners)}"
    return True, f"checked {record.game_type}, {len(record.deals)} deals, {moves_text}; {result}"
