"""Game records on the wire: :class:`engine.record.Record` to and from ``tricktable.v1.GameRecord``.

The record's JSON form (``tricktable replay``) is the protobuf JSON mapping of the message, so any
language with protobuf reads it; :func:`record_from_json` reads it back for checking.
"""

from __future__ import annotations

from google.protobuf import json_format
from tricktable import records as records_json
from tricktable.v1 import cards_pb2
from tricktable.v1 import game_service_pb2 as pb

from engine.core.rules import Outcome
from engine.record import Record, RecordMismatch, Step
from service import convert
from service.errors import InvalidRequest
from service.store.base import GameRecord

#: Chance outcomes drawn as a pack of cards; the others are numbers.
PACK_PREFIX = "pack:"


def record_to_proto(game: GameRecord, record: Record) -> pb.GameRecord:
    out = pb.GameRecord(
        game_id=game.game_id,
        game_type=record.game_type,
        seats=convert.summary_to_proto(game).seats,
        status=convert.game_status(game),
        created_at_ms=game.created_at_ms,
    )
    convert.options_to_proto(record.options, out.options)
    for label, outcome in record.chance.items():
        drawn = out.chance.add(label=label)
        if label.startswith(PACK_PREFIX):
            drawn.pack.CopyFrom(cards_pb2.CardList(cards=map(convert.card_to_proto, outcome)))
        else:
            (drawn.number,) = outcome
    for deal_no, pack in record.deals:
        out.deals.add(deal_no=deal_no, cards=map(convert.card_to_proto, pack))
    for step in record.steps:
        msg = out.steps.add(version=step.version, events=convert.events_to_proto(step.events))
        if step.seat is not None:
            msg.seat = step.seat
        if step.move is not None:
            msg.move.CopyFrom(convert.move_to_proto(step.move))
        if step.resigned_seat is not None:
            msg.resigned_seat = step.resigned_seat
    if record.outcome is not None:
        out.totals.extend(record.outcome.totals)
        out.winners.extend(record.outcome.winners)
    if record.resigned_seat is not None:
        out.resigned_seat = record.resigned_seat
    return out


def record_from_proto(msg: pb.GameRecord) -> Record:
    """The engine's record; RecordMismatch if a part of the message is malformed."""
    try:
        chance: dict[str, list[int]] = {}
        for drawn in msg.chance:
            case = drawn.WhichOneof("outcome")
            if case is None:
                raise RecordMismatch(f"chance outcome {drawn.label!r} is empty")
            chance[drawn.label] = (
                [convert.card_from_proto(c) for c in drawn.pack.cards]
                if case == "pack"
                else [drawn.number]
            )
        steps = [
            Step(
                version=s.version,
                seat=s.seat if s.HasField("seat") else None,
                move=convert.move_from_proto(s.move) if s.HasField("move") else None,
                events=tuple(convert.event_from_proto(e) for e in s.events),
                resigned_seat=s.resigned_seat if s.HasField("resigned_seat") else None,
            )
            for s in msg.steps
        ]
        return Record(
            game_type=msg.game_type,
            options=convert.options_from_proto(msg.options),
            chance=chance,
            deals=[(d.deal_no, [convert.card_from_proto(c) for c in d.cards]) for d in msg.deals],
            steps=steps,
            outcome=Outcome(tuple(msg.totals), tuple(msg.winners)) if msg.totals else None,
            resigned_seat=msg.resigned_seat if msg.HasField("resigned_seat") else None,
        )
    except InvalidRequest as exc:
        raise RecordMismatch(f"the record is malformed: {exc.message}") from None


def record_to_json(msg: pb.GameRecord) -> str:
    """The record's JSON, byte-stable (:func:`tricktable.records.record_to_json`)."""
    return records_json.record_to_json(msg)


def record_from_json(text: str) -> pb.GameRecord:
    """Parse a record's JSON; RecordMismatch if it is not one."""
    try:
        return json_format.Parse(text, pb.GameRecord())
    except json_format.ParseError as exc:
        raise RecordMismatch(f"not a game record: {exc}") from None
