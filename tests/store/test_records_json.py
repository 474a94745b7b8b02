"""The stored records' JSON is json.dumps's, byte for byte: the Lua scripts, older replicas and
exported records read what earlier versions wrote (the records encode with one kept encoder,
``engine.core.codec.json_encoder``, not through json.dumps)."""

from __future__ import annotations

import json

import pytest

from engine.core.codec import json_encoder
from service.store.base import EventBatch, MoveRecord

_EVENTS = (
    {"type": "card_played", "seat": 0, "card": "JS", "as_card": None},
    {"type": "deal_scored", "points": [8, 15], "made": [False, True], "note": 'é "q" \\ \u2603'},
    {"type": "big", "mask": 2**80 + 3, "ratio": 0.1, "nested": {"b": [1, [2, {}]], "a": []}},
)


@pytest.mark.parametrize("request_id", ["", "34ca52719405fca2", 'odd "id" é\n'])
def test_move_records_encode_as_json_dumps_does(request_id: str) -> None:
    record = MoveRecord(seat=1, move={"type": "play_card", "card": "JS"}, request_id=request_id)
    expected = json.dumps({"seat": 1, "move": dict(record.move), "request_id": request_id})
    assert record.to_json() == expected
    assert MoveRecord.from_json(record.to_json()) == record


@pytest.mark.parametrize("seat", [None, 0, 3])
def test_event_batches_encode_as_json_dumps_does(seat: int | None) -> None:
    batch = EventBatch(version=7, seat=seat, events=_EVENTS, resigned_seat=seat, request_id="r")
    expected = json.dumps(
        {
            "version": 7,
            "seat": seat,
            "events": list(_EVENTS),
            "resigned_seat": seat,
            "request_id": "r",
        }
    )
    assert batch.to_json() == expected
    assert EventBatch.from_json(batch.to_json()) == batch


@pytest.mark.parametrize(
    "options",
    [
        {"check_circular": False},
        {"check_circular": False, "separators": (",", ":"), "sort_keys": True},
        {"check_circular": False, "ensure_ascii": False},
        {},  # with the circular check: json's own encode
    ],
)
def test_the_kept_encoder_writes_what_json_dumps_writes(options: dict[str, object]) -> None:
    encode = json_encoder(**options)
    for value in [*_EVENTS, list(_EVENTS), "é", 5, None, 1.5]:
        assert encode(value) == json.dumps(value, **options)  # type: ignore[arg-type]


def test_the_kept_encoder_refuses_what_json_dumps_refuses() -> None:
    encode = json_encoder(check_circular=False)
    with pytest.raises(TypeError):
        encode({"x": object()})
    with pytest.raises(ValueError):
        json_encoder(check_circular=False, allow_nan=False)(float("nan"))
