"""The Prometheus endpoint (``serve --metrics-port``), scraped over HTTP from a real server, and
wait_for_turn through gRPC."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from prometheus_client.parser import text_string_to_metric_families
from tricktable.v1 import clocks_pb2, views_pb2
from tricktable.v1 import game_service_pb2 as pb

from service.cli import build_parser
from service.errors import StoreUnavailable
from service.metrics import method_name
from service.running import ServerThread
from service.store.base import GameRecord
from service.store.memory import MemoryStore
from tests.servers import running_server
from tests.service.support import Client, auth


class FlakyStore(MemoryStore):
    """A memory store that can be switched off, like a Redis that went away."""

    down = False

    async def load(self, game_id: str) -> GameRecord:
        if self.down:
            raise StoreUnavailable("the game store is unavailable (test)")
        return await super().load(game_id)


@pytest.fixture
def served() -> Iterator[tuple[ServerThread, Client, FlakyStore]]:
    store = FlakyStore()
    with running_server(lambda: store, stream_wait_s=0.1, metrics_port=0) as (server, client):
        yield server, client, store


Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(server: ServerThread) -> Samples:
    assert server.server is not None and server.server.metrics_port
    url = f"http://127.0.0.1:{server.server.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.status == 200
        text = response.read().decode()
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_the_metrics_endpoint_counts_rpcs_games_latency_and_store_errors(
    served: tuple[ServerThread, Client, FlakyStore],
) -> None:
    server, client, store = served
    table = client.table("counterpoint", seed=b"metrics")
    client.play_first(table.game_id, table.tokens[0], 0)
    with pytest.raises(grpc.RpcError) as stale:  # seat 1 decided on version 0
        client.play_first(table.game_id, table.tokens[1], 0)
    assert stale.value.code() == grpc.StatusCode.ABORTED
    with pytest.raises(grpc.RpcError):
        client.get("no-such-game")
    client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
    )
    store.down = True
    with pytest.raises(grpc.RpcError) as down:
        client.get(table.game_id)
    assert down.value.code() == grpc.StatusCode.UNAVAILABLE
    store.down = False

    samples = scrape(server)
    assert value(samples, "tricktable_rpcs_total", method="CreateGame", code="OK") == 1
    assert value(samples, "tricktable_rpcs_total", method="JoinGame", code="OK") == 2
    assert value(samples, "tricktable_rpcs_total", method="SubmitMove", code="OK") == 1
    assert value(samples, "tricktable_rpcs_total", method="SubmitMove", code="ABORTED") == 1
    assert value(samples, "tricktable_rpcs_total", method="GetGame", code="NOT_FOUND") == 1
    assert value(samples, "tricktable_rpcs_total", method="GetGame", code="UNAVAILABLE") == 1
    assert value(samples, "tricktable_rpcs_total", method="LeaveGame", code="OK") == 1
    assert value(samples, "tricktable_store_errors_total", method="GetGame") == 1
    assert value(samples, "tricktable_games_created_total", game_type="counterpoint") == 1
    ended = {"game_type": "counterpoint", "status": "abandoned"}
    assert value(samples, "tricktable_games_ended_total", **ended) == 1
    assert value(samples, "tricktable_submit_move_seconds_count") == 1
    assert value(samples, "tricktable_submit_move_seconds_bucket", le="+Inf") == 1
    assert 0 < value(samples, "tricktable_submit_move_seconds_sum") < 10


def test_the_metrics_endpoint_times_each_fired_deadline(
    served: tuple[ServerThread, Client, FlakyStore],
) -> None:
    server, client, _ = served
    tc = clocks_pb2.TimeControl(move_ms=100, on_timeout=clocks_pb2.TIMEOUT_POLICY_FORFEIT)
    game = client.stub.CreateGame(
        pb.CreateGameRequest(game_type="sixty-six", time_control=tc, bot_seats={1: "random"})
    ).game
    client.stub.JoinGame(pb.JoinGameRequest(game_id=game.game_id, seat=0))
    ended = client.stub.GetGame(pb.GetGameRequest(game_id=game.game_id, after_version=0))
    while ended.game.status == pb.GAME_STATUS_PLAYING:
        ended = client.stub.GetGame(
            pb.GetGameRequest(game_id=game.game_id, after_version=ended.game.version)
        )
    samples = scrape(server)
    fired = value(samples, "tricktable_deadline_fire_delay_seconds_count", kind="timeout")
    fired += value(samples, "tricktable_deadline_fire_delay_seconds_count", kind="bot")
    assert fired == ended.game.version >= 1


def test_there_is_no_metrics_endpoint_unless_asked_for() -> None:
    with running_server() as (server, _):
        assert server.server is not None and server.server.metrics_port is None


def test_serve_takes_a_metrics_port_a_turn_wait_and_an_open_ttl() -> None:
    argv = ["serve", "--metrics-port", "9464", "--turn-wait", "5", "--open-ttl", "600"]
    args = build_parser().parse_args(argv)
    assert (args.metrics_port, args.turn_wait, args.open_ttl) == (9464, 5.0, 600)
    defaults = build_parser().parse_args(["serve"])
    assert defaults.metrics_port is None and defaults.open_ttl == 86400


def test_methods_are_labelled_by_their_short_name() -> None:
    assert method_name("/tricktable.v1.GameService/SubmitMove") == "SubmitMove"
    assert method_name("/grpc.health.v1.Health/Check") == "grpc.health.v1.Health/Check"


def test_a_bot_plays_one_call_per_move_with_wait_for_turn(
    served: tuple[ServerThread, Client, FlakyStore],
) -> None:
    """Each seat's bot in its own thread: GetGame(wait_for_turn) once, then only SubmitMove
    (wait_for_turn), each reply being the seat's next decision point."""
    _, client, _ = served
    table = client.table("counterpoint", {"target_score": 1}, seed=b"one-call")
    calls = [0, 0]
    finals = [views_pb2.View(), views_pb2.View()]
    errors: list[BaseException] = []

    def bot(seat: int) -> None:
        try:
            token = table.tokens[seat]
            wait = pb.GetGameRequest(game_id=table.game_id, wait_for_turn=True)
            mine = client.stub.GetGame(wait, metadata=auth(token))
            view, version = mine.view, mine.game.version
            for _ in range(400):
                if view.finished:
                    break
                if not view.legal_moves:
                    mine = client.stub.GetGame(wait, metadata=auth(token))
                    view, version = mine.view, mine.game.version
                    continue
                request = pb.SubmitMoveRequest(
                    game_id=table.game_id,
                    move=view.legal_moves[0],
                    expected_version=version,
                    request_id=uuid.uuid4().hex,
                    wait_for_turn=True,
                )
                try:
                    result = client.stub.SubmitMove(request, metadata=auth(token))
                except grpc.RpcError as err:
                    assert err.code() == grpc.StatusCode.ABORTED  # both laid aside at once
                    mine = client.stub.GetGame(wait, metadata=auth(token))
                    view, version = mine.view, mine.game.version
                    continue
                calls[seat] += 1
                assert result.view_version >= result.version
                view, version = result.view, result.view_version
                assert view.finished or seat in view.to_act
            finals[seat] = view
        except BaseException as exc:  # reported by the test thread
            errors.append(exc)

    threads = [threading.Thread(target=bot, args=(seat,)) for seat in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert finals[0].finished and finals[1].finished
    final = client.get(table.game_id)
    assert final.view.finished and final.game.version == sum(calls)


def test_process_metrics_gauges_no_created_twins_and_only_the_metrics_path(
    served: tuple[ServerThread, Client, FlakyStore],
) -> None:
    server, client, _ = served
    table = client.table("counterpoint", seed=b"gauges")
    stream = client.stub.StreamEvents(
        pb.StreamEventsRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
    )
    next(stream)  # open: the game's opening batch came
    held: list[pb.GetGameResponse] = []
    waiting = threading.Thread(
        target=lambda: held.append(
            client.stub.GetGame(
                pb.GetGameRequest(game_id=table.game_id, after_version=0), timeout=60
            )
        )
    )
    waiting.start()

    def gauges() -> tuple[float, float, float]:
        samples = scrape(server)
        return (
            value(samples, "tricktable_open_streams", method="StreamEvents"),
            value(samples, "tricktable_live_games"),
            value(samples, "tricktable_waiting_players"),
        )

    wait_until(lambda: gauges() == (1, 1, 2))  # the stream and the held call wait on one game
    client.play_first(table.game_id, table.tokens[0], 0)  # the held call answers
    waiting.join(60)
    assert held and held[0].game.version == 1
    stream.cancel()
    wait_until(lambda: gauges() == (0, 0, 0))
    samples = scrape(server)
    names = {name for name, _ in samples}
    assert {"process_cpu_seconds_total", "process_resident_memory_bytes"} <= names
    assert any(n.startswith("python_gc_") for n in names) and "python_info" in names
    assert not [n for n in names if n.endswith("_created")]
    assert server.server is not None
    base = f"http://127.0.0.1:{server.server.metrics_port}"
    for path in ("/", "/favicon.ico", "/metrics/x", "/other"):
        with pytest.raises(urllib.error.HTTPError) as missing:
            urllib.request.urlopen(base + path, timeout=10)
        assert missing.value.code == 404, path


def test_every_metric_is_listed_in_the_deploy_readme(
    served: tuple[ServerThread, Client, FlakyStore],
) -> None:
    server, client, _ = served
    client.table("counterpoint", seed=b"listed")
    assert server.server is not None
    url = f"http://127.0.0.1:{server.server.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=10) as response:
        families = list(text_string_to_metric_families(response.read().decode()))
    readme = (Path(__file__).resolve().parents[2] / "deploy" / "README.md").read_text()
    ours = [f.name for f in families if f.name.startswith("tricktable_")]
    assert len(ours) >= 9
    for name in ours:
        shown = name + ("_total" if f"{name}_total" in readme else "")
        assert f"`{shown}" in readme, f"{name} is not listed in deploy/README.md"
    assert "`process_*`" in readme and "`python_*`" in readme


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30  # only keeps a broken build from hanging
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.02)
