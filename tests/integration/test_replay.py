"""Game records through a real server: exported once a game has ended (never while it runs),
re-played through the engine, round-tripped through JSON, and a tampered record is caught."""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from tricktable.cli import main
from tricktable.client import Client as SdkClient
from tricktable.errors import TricktableError
from tricktable.v1 import clocks_pb2
from tricktable.v1 import game_service_pb2 as pb

from engine import game_names, get_rules
from engine.record import verify
from service.records import record_from_json, record_from_proto, record_to_json
from tests.servers import Served
from tests.service.support import Client, error_info, play_random_game

SHORT: dict[str, dict[str, object]] = {
    "ninety-nine": {"game_length_deals": 2},
    "nominations": {"deal_count": 2, "shuffle_between_deals": False},
    "sixty-six": {"target_game_points": 3},
    "counterpoint": {},
}
SEED = b"a secret seed, never in a record"


@pytest.fixture
def sdk(served: Served) -> Iterator[SdkClient]:
    with SdkClient(served[0].address) as connected:
        yield connected


def _options(game: str) -> dict[str, object]:
    valid = {o.name for o in get_rules(game).game_type().options}
    return {k: v for k, v in SHORT[game].items() if k in valid}


@pytest.mark.parametrize("game", game_names())
def test_an_ended_game_exports_a_record_that_replays(
    client: Client, sdk: SdkClient, game: str
) -> None:
    table = client.table(game, _options(game), seed=SEED)
    final = play_random_game(client, table, random.Random(game))
    record = sdk.record(table.game_id)
    assert record.status == pb.GAME_STATUS_FINISHED
    assert len(record.steps) == final.game.version + 1
    assert [s.version for s in record.steps] == list(range(final.game.version + 1))
    outcome = verify(record_from_proto(record))
    assert outcome is not None
    assert list(record.totals) == list(outcome.totals) == [s.score for s in final.view.seats]
    assert list(record.winners) == list(outcome.winners) == list(final.view.winners)
    assert [s.player_name for s in record.seats] == [f"bot{i}" for i in range(len(record.seats))]
    # the record is the game dealt from this seed: its first pack is the engine's
    state, _ = get_rules(game).replay(dict(record_from_proto(record).options), SEED, [])
    assert get_rules(game).opening_events(state) == list(record_from_proto(record).steps[0].events)
    # and it survives its JSON form
    assert record_from_json(record_to_json(record)) == record


def test_the_seed_is_not_in_a_record(client: Client, sdk: SdkClient) -> None:
    table = client.table("counterpoint", {}, seed=SEED)
    play_random_game(client, table, random.Random(1))
    record = sdk.record(table.game_id)
    wire = record.SerializeToString()
    text = record_to_json(record)
    for form in (SEED, SEED.hex().encode(), base64.b64encode(SEED)):
        assert form not in wire and form.decode() not in text


@pytest.mark.parametrize("moves", [0, 3])
def test_no_record_while_the_game_runs(client: Client, sdk: SdkClient, moves: int) -> None:
    table = client.table("ninety-nine", {}, seed=SEED)
    rng = random.Random(moves)
    for _ in range(moves):
        state = client.get(table.game_id, table.tokens[0])
        seat = state.view.to_act[0]
        mine = client.get(table.game_id, table.tokens[seat])
        move = mine.view.legal_moves[rng.randrange(len(mine.view.legal_moves))]
        client.move(table.game_id, table.tokens[seat], move, mine.game.version)
    with pytest.raises(grpc.RpcError) as caught:
        client.stub.GetGameRecord(pb.GetGameRecordRequest(game_id=table.game_id))
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(caught.value).reason == "GAME_NOT_FINISHED"
    with pytest.raises(TricktableError) as sdk_caught:
        sdk.record(table.game_id)
    assert sdk_caught.value.reason == "GAME_NOT_FINISHED"
    # a game still waiting for players is refused too
    waiting = client.create("counterpoint", {})
    with pytest.raises(TricktableError, match="has not ended"):
        sdk.record(waiting.game_id)


def test_unknown_or_malformed_game_ids(client: Client) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        client.stub.GetGameRecord(pb.GetGameRecordRequest(game_id="g-no-such-game"))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as caught:
        client.stub.GetGameRecord(pb.GetGameRecordRequest(game_id=""))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_an_abandoned_game_has_a_record_with_the_resignation(
    client: Client, sdk: SdkClient
) -> None:
    table = client.table("counterpoint", {}, seed=SEED)
    state = client.get(table.game_id, table.tokens[0])
    seat = state.view.to_act[0]
    client.play_first(table.game_id, table.tokens[seat])
    sdk.leave(table.game_id, table.tokens[1])
    record = sdk.record(table.game_id)
    assert record.status == pb.GAME_STATUS_ABANDONED
    assert record.resigned_seat == 1 and not record.totals
    assert record.steps[-1].resigned_seat == 1 and not record.steps[-1].HasField("move")
    assert verify(record_from_proto(record)) is None


def test_replay_command_exports_and_checks(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, client = served
    table = client.table("sixty-six", _options("sixty-six"), seed=SEED)
    play_random_game(client, table, random.Random(5))
    out = tmp_path / "record.json"
    assert main(["replay", table.game_id, "--address", server.address, "-o", str(out)]) == 0
    assert "checked sixty-six" in capsys.readouterr().err
    data = json.loads(out.read_text())
    assert data["game_id"] == table.game_id and data["steps"][0]["version"] == "0"
    assert main(["replay", "--check", str(out)]) == 0
    assert "checked sixty-six" in capsys.readouterr().err
    # swap two cards of the first pack: the record no longer re-plays
    pack = data["chance"][[c["label"] for c in data["chance"]].index("pack:1")]["pack"]["cards"]
    pack[0], pack[1] = pack[1], pack[0]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    assert main(["replay", "--check", str(tampered)]) == 1
    assert "does NOT re-play" in capsys.readouterr().err
    # the export goes to stdout without -o
    assert main(["replay", table.game_id, "--address", server.address, "--no-check"]) == 0
    assert json.loads(capsys.readouterr().out)["game_type"] == "sixty-six"


def test_replay_command_refuses_a_running_game_and_bad_use(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, client = served
    table = client.table("counterpoint", {}, seed=SEED)
    assert main(["replay", table.game_id, "--address", server.address]) == 1
    assert "GAME_NOT_FINISHED" in capsys.readouterr().err
    assert main(["replay"]) == 2
    garbage = tmp_path / "garbage.json"
    garbage.write_text('{"steps": "nope"}')
    assert main(["replay", "--check", str(garbage)]) == 1
    assert "not a game record" in capsys.readouterr().err
    assert main(["replay", "--check", str(tmp_path / "missing.json")]) == 2


def test_replay_command_checks_a_game_the_clock_played_and_forfeited(
    served: Served, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server, client = served
    clock = clocks_pb2.TimeControl(move_ms=100, forfeit_after=3)
    created = client.stub.CreateGame(
        pb.CreateGameRequest(game_type="sixty-six", time_control=clock)
    ).game
    for seat in range(2):
        client.stub.JoinGame(pb.JoinGameRequest(game_id=created.game_id, seat=seat))
    state = client.get(created.game_id)
    while state.game.status == pb.GAME_STATUS_PLAYING:
        request = pb.GetGameRequest(game_id=created.game_id, after_version=state.game.version)
        state = client.stub.GetGame(request, timeout=30)
    out = tmp_path / "clocked.json"
    assert main(["replay", created.game_id, "--address", server.address, "-o", str(out)]) == 0
    said = capsys.readouterr().err
    assert "made by the clock" in said and "forfeited on time" in said
    assert main(["replay", "--check", str(out)]) == 0
