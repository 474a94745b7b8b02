"""A game record's JSON is byte-stable: the same game gives the same bytes, whatever order its
maps' entries (the options) were built or arrived in, at any depth, whoever exports it (the
client's ``tricktable replay``, the server's tools), and it stays protobuf's JSON mapping."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from google.protobuf import json_format
from tricktable.records import record_to_json
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_types_pb2

from service import records
from tests.servers import running_server
from tests.service.support import auth

ROOT = Path(__file__).resolve().parents[2]
OPTIONS = {
    "target_score": game_types_pb2.OptionValue(int_value=1),
    "high_readings": game_types_pb2.OptionValue(bool_value=True),
    "deal_batches": game_types_pb2.OptionValue(string_value="ones"),
    "first_dealer": game_types_pb2.OptionValue(string_value="random"),
}


def record_with(order: list[str]) -> pb.GameRecord:
    record = pb.GameRecord(game_id="g1", game_type="counterpoint")
    for name in order:
        record.options[name].CopyFrom(OPTIONS[name])
    return record


def test_the_options_print_in_one_order_whatever_order_they_were_built_in() -> None:
    names = sorted(OPTIONS)
    texts = {
        record_to_json(record_with(order)) for order in (names, names[::-1], names[1:] + names[:1])
    }
    assert len(texts) == 1
    (text,) = texts
    data = json.loads(text)
    assert list(data["options"]) == names
    # protobuf's JSON mapping, only the maps' order settled: it parses back to the record
    assert json_format.Parse(text, pb.GameRecord()) == record_with(names)
    assert data == json.loads(
        json_format.MessageToJson(
            record_with(names[::-1]),
            preserving_proto_field_name=True,
            always_print_fields_with_no_presence=True,
        )
    )
    assert records.record_to_json(record_with(names[::-1])) == text  # the server's tools too


def test_two_exports_of_one_ended_game_are_the_same_bytes(tmp_path: Path) -> None:
    with running_server() as served:
        client = served.client
        table = client.table("counterpoint", {"target_score": "1"}, seed=b"byte-stable")
        client.stub.LeaveGame(
            pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
        )
        exports = []
        for n in range(2):
            out = tmp_path / f"record{n}.json"
            done = subprocess.run(
                [
                    *(sys.executable, "-m", "tricktable.cli", "replay", table.game_id),
                    *("--address", served.address, "--no-check", "-o", str(out)),
                ],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            exports.append(out.read_bytes())
    assert exports[0] == exports[1]
    options = list(json.loads(exports[0])["options"])
    assert options == sorted(options) and len(options) > 3
