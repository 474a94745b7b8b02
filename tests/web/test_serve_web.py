"""``tricktable serve --web-port`` as an operator runs it: the port and origins from flags or the
environment, one process serving both doors from one store, the same metrics, and SIGTERM
ending web streams cleanly."""

from __future__ import annotations

import json
import signal
import threading

import pytest
from tricktable.v1 import game_service_pb2 as pb

from service.cli import build_parser
from service.config import WEB_ORIGINS_ENV, WEB_PORT_ENV, ServerConfig
from tests.conftest import free_port
from tests.servers import running_server, serve_process
from tests.service.test_metrics import scrape, value
from tests.web.support import WebClient, WebError


def test_the_web_port_and_origins_come_from_flags_or_the_environment() -> None:
    args = build_parser().parse_args(
        [
            "serve",
            "--web-port",
            "8080",
            "--web-origin",
            "https://a.example",
            "--web-origin",
            "http://b.example:3000",
        ]
    )
    assert args.web_port == 8080
    assert ServerConfig.web_origins_from(args.web_origins) == (
        "https://a.example",
        "http://b.example:3000",
    )
    env = {WEB_PORT_ENV: "8081", WEB_ORIGINS_ENV: "https://a.example, https://c.example"}
    assert ServerConfig.web_port_from(None, env) == 8081
    assert ServerConfig.web_port_from(9000, env) == 9000  # a flag wins
    assert ServerConfig.web_origins_from(None, env) == ("https://a.example", "https://c.example")
    assert ServerConfig.web_port_from(None, {}) is None  # off unless asked for
    assert ServerConfig.web_origins_from(None, {}) == ()


@pytest.mark.parametrize(
    "origin", ["cards.example.com", "https://cards.example.com/", "ftp://x.example", "https://"]
)
def test_a_malformed_origin_is_refused(origin: str) -> None:
    with pytest.raises(ValueError, match="not an origin"):
        ServerConfig.web_origins_from([origin])


def test_a_malformed_web_port_is_refused() -> None:
    with pytest.raises(ValueError, match=WEB_PORT_ENV):
        ServerConfig.web_port_from(None, {WEB_PORT_ENV: "http"})


def test_web_calls_are_counted_like_native_ones() -> None:
    with running_server(web_port=0, metrics_port=0) as served:
        native = served.client
        web = WebClient(served.web_url, "connect-json")
        try:
            web.call(
                "CreateGame", pb.CreateGameRequest(game_type="counterpoint"), pb.CreateGameResponse
            )
            native.create("counterpoint")
            with pytest.raises(WebError):
                web.call(
                    "GetGame", pb.GetGameRequest(game_id="0123456789abcdef"), pb.GetGameResponse
                )
        finally:
            web.close()
        samples = scrape(served.server)
    assert value(samples, "tricktable_rpcs_total", method="CreateGame", code="OK") == 2
    assert value(samples, "tricktable_rpcs_total", method="GetGame", code="NOT_FOUND") == 1
    assert value(samples, "tricktable_games_created_total", game_type="counterpoint") == 2


def test_one_process_serves_both_doors_and_sigterm_ends_web_streams_cleanly() -> None:
    web_port = free_port()
    env = {WEB_PORT_ENV: str(web_port), WEB_ORIGINS_ENV: "https://cards.example.com"}
    with serve_process(env=env) as served:
        proc, native = served.proc, served.client
        web = WebClient(f"http://127.0.0.1:{web_port}", "grpc-web")
        table = native.table("counterpoint")  # made natively, seen through the web door
        got = web.call("GetGame", pb.GetGameRequest(game_id=table.game_id), pb.GetGameResponse)
        assert got == native.get(table.game_id)
        ended: list[object] = []
        started = threading.Event()

        def watch() -> None:
            request = pb.StreamEventsRequest(game_id=table.game_id)
            try:
                for batch in web.stream("StreamEvents", request, pb.StreamEventsResponse):
                    ended.append(batch.version)
                    started.set()
                ended.append("clean")
            except Exception as exc:  # handed to the test thread
                ended.append(exc)

        watcher = threading.Thread(target=watch)
        watcher.start()
        assert started.wait(20)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        watcher.join(10)
        web.close()
        assert ended == [0, "clean"]
        serving = next(line for line in served.log_lines() if line["event"] == "serving")
        assert serving["web_port"] == web_port


def test_the_door_benchmark_prints_moves_and_cpu_per_door(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A smoke run: the numbers' shape, never their size (benchmarks are not timed tests).
    A second a door, not less: on a loaded 2-core machine a 0.3 s run once counted no move
    (the game's creation and first answers took it all)."""
    from benchmarks.web_doors import main

    assert main(["--games", "1", "--seconds", "1.0", "--door", "grpc", "--door", "grpc-web"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["door"] for line in lines] == ["grpc", "grpc-web"]
    for line in lines:
        assert line["moves"] > 0 and line["moves_per_s"] > 0
        assert {"server_cpu_us_per_move", "moves_vs_grpc"} <= line.keys()
