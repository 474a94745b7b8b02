"""``tricktable serve`` as an operator runs it: a separate process, JSON logs, health checking,
Redis from the environment, and a graceful shutdown on SIGTERM that ends streams cleanly."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tricktable.v1 import game_service_pb2 as pb

from service import event_loop
from service.config import REDIS_URL_ENV
from tests.servers import running_server, serve_process
from tests.service.support import PlayLine, auth, error_info

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("loop", "runs_on"),
    [("auto", "uvloop" if event_loop.UVLOOP_INSTALLED else "asyncio"), ("asyncio", "asyncio")],
)
def test_sigterm_ends_streams_cleanly_and_exits_zero(loop: str, runs_on: str) -> None:
    with serve_process("--log-level", "debug", "--event-loop", loop) as served:
        proc, client = served.proc, served.client
        table = client.table("counterpoint")
        received: list[int] = []
        ended: list[str] = []

        def watch() -> None:
            stream = client.stub.StreamEvents(
                pb.StreamEventsRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
            )
            try:
                received.extend(batch.version for batch in stream)
                ended.append("clean")
            except grpc.RpcError as err:
                ended.append(err.code().name)

        watcher = threading.Thread(target=watch)
        watcher.start()
        client.play_first(table.game_id, table.tokens[0], 0)
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        watcher.join(10)
        assert ended == ["clean"]
        assert received == [0, 1]
        logs = served.log_lines()
        events = [line["event"] for line in logs]
        assert "serving" in events and "shutting down" in events and events[-1] == "stopped"
        assert next(line for line in logs if line["event"] == "serving")["event_loop"] == runs_on
        accepted = next(line for line in logs if line["event"] == "move accepted")
        assert accepted["game_id"] == table.game_id and accepted["seat"] == 0
        assert accepted["request_id"] and accepted["level"] == "debug"


def test_at_info_level_moves_are_not_logged_and_logs_to_a_pipe_are_json() -> None:
    with serve_process() as served:
        proc, client = served.proc, served.client
        table = client.table("counterpoint")
        client.play_first(table.game_id, table.tokens[0], 0)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        events = [line["event"] for line in served.log_lines()]  # every line parses as JSON
        assert "serving" in events and "move accepted" not in events


def test_logs_to_a_terminal_are_console_lines() -> None:
    main_fd, terminal_fd = os.openpty()
    script = (
        "import structlog; from service.logs import configure; configure(); "
        "structlog.get_logger().info('hello', game_id='g1')"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=ROOT, stderr=terminal_fd, timeout=60, check=True
        )
        assert done.returncode == 0
        os.close(terminal_fd)
        out = b""
        with contextlib.suppress(OSError):  # EIO once the terminal has no writer left
            while chunk := os.read(main_fd, 4096):
                out += chunk
    finally:
        os.close(main_fd)
    text = out.decode()
    assert "hello" in text and "game_id" in text and not text.lstrip().startswith("{")


def test_the_redis_url_comes_from_the_environment(redis_url: str) -> None:
    with serve_process(env={REDIS_URL_ENV: redis_url}) as served:
        proc, client = served.proc, served.client
        game = client.create("ninety-nine")
        stored = redis.Redis.from_url(redis_url)
        assert stored.hget(f"tt:{{{game.game_id}}}:meta", "game_type") == b"ninety-nine"
        stored.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        serving = next(line for line in served.log_lines() if line["event"] == "serving")
        assert serving["store"] == "redis"


def test_health_turns_not_serving_when_the_server_shuts_down() -> None:
    with running_server() as (server, client):
        watch = health_pb2_grpc.HealthStub(client.channel).Watch(health_pb2.HealthCheckRequest())
        seen = [next(watch).status]
        stopper = threading.Thread(target=server.stop)
        stopper.start()
        with contextlib.suppress(grpc.RpcError):  # the watch closes once the server is down
            seen.extend(reply.status for reply in watch)
        stopper.join(15)
    assert seen[0] == health_pb2.HealthCheckResponse.SERVING
    assert health_pb2.HealthCheckResponse.NOT_SERVING in seen[1:]


def test_a_call_waiting_for_its_turn_answers_when_the_server_shuts_down() -> None:
    with running_server(grace_s=3.0) as (server, client):
        table = client.table("counterpoint", seed=b"shutdown-wait")
        for seat in (0, 1):  # both lay their bid cards aside; then one seat leads
            client.play_first(table.game_id, table.tokens[seat], seat)
        leader = client.get(table.game_id).view.to_act[0]
        follower = 1 - leader
        replies: list[pb.GetGameResponse] = []
        failures: list[str] = []

        def wait() -> None:
            request = pb.GetGameRequest(game_id=table.game_id, wait_for_turn=True)
            try:
                replies.append(client.stub.GetGame(request, metadata=auth(table.tokens[follower])))
            except grpc.RpcError as err:
                failures.append(err.code().name)

        waiter = threading.Thread(target=wait)
        waiter.start()
        time.sleep(0.5)
        assert waiter.is_alive()  # held: the leader has not played
        started = time.monotonic()
        server.stop()
        waiter.join(10)
        assert failures == [] and len(replies) == 1
        assert time.monotonic() - started < 3.0  # ended by the shutdown, not by the grace period
        assert replies[0].game.version == 2 and follower not in replies[0].view.to_act


def test_sigterm_ends_play_streams_with_unavailable_so_their_clients_reconnect() -> None:
    with serve_process() as served:
        proc, client = served.proc, served.client
        table = client.table("counterpoint")
        line = PlayLine(client, table.game_id, table.tokens[0])
        try:
            line.until("view")
            proc.send_signal(signal.SIGTERM)
            with pytest.raises(grpc.RpcError) as caught:
                while True:
                    line.next()
        finally:
            line.close()
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert error_info(caught.value).reason == "SERVER_SHUTTING_DOWN"
        assert proc.wait(15) == 0
