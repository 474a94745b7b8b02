"""``tricktable serve`` as an operator runs it: a separate process, JSON logs, health checking,
Redis from the environment, and a graceful shutdown on SIGTERM that ends streams cleanly."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tricktable.v1 import game_service_pb2 as pb

from service.config import REDIS_URL_ENV
from tests.conftest import free_port
from tests.service.support import Client, auth

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def serve(
    env: dict[str, str] | None = None, *args: str
) -> Iterator[tuple[subprocess.Popen[str], Client]]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from service.cli import main; sys.exit(main())",
            "serve",
            "--port",
            str(port),
            "--grace",
            "2",
            *args,
        ],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    client = Client(f"127.0.0.1:{port}")
    try:
        health = health_pb2_grpc.HealthStub(client.channel)
        deadline = time.monotonic() + 20
        while True:
            try:
                reply = health.Check(health_pb2.HealthCheckRequest(), timeout=0.5)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    break
            except grpc.RpcError:
                pass
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the server did not become healthy"
            time.sleep(0.1)
        yield proc, client
    finally:
        client.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def _log_lines(proc: subprocess.Popen[str]) -> list[dict[str, object]]:
    assert proc.stderr is not None
    return [json.loads(line) for line in proc.stderr.read().splitlines() if line.strip()]


def test_sigterm_ends_streams_cleanly_and_exits_zero() -> None:
    with serve() as (proc, client):
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
        mine = client.get(table.game_id, table.tokens[0])
        client.move(table.game_id, table.tokens[0], mine.view.legal_moves[0], 0)
        time.sleep(0.3)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        watcher.join(10)
        assert ended == ["clean"]
        assert received == [0, 1]
        logs = _log_lines(proc)
        events = [line["event"] for line in logs]
        assert "serving" in events and "shutting down" in events and events[-1] == "stopped"
        accepted = next(line for line in logs if line["event"] == "move accepted")
        assert accepted["game_id"] == table.game_id and accepted["seat"] == 0
        assert accepted["request_id"] and accepted["level"] == "info"


def test_the_redis_url_comes_from_the_environment(redis_url: str) -> None:
    with serve({REDIS_URL_ENV: redis_url}) as (proc, client):
        game = client.create("ninety-nine")
        stored = redis.Redis.from_url(redis_url)
        assert stored.hget(f"tt:{{{game.game_id}}}:meta", "game_type") == b"ninety-nine"
        stored.close()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        serving = next(line for line in _log_lines(proc) if line["event"] == "serving")
        assert serving["store"] == "redis"


def test_health_turns_not_serving_when_the_server_shuts_down() -> None:
    from service.config import ServerConfig
    from service.running import ServerThread

    server = ServerThread(ServerConfig(port=0, grace_s=1.0, stream_wait_s=0.2)).start()
    channel = grpc.insecure_channel(server.address)
    seen: list[int] = []
    try:
        watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest())
        first = next(watch)
        seen.append(first.status)
        stopper = threading.Thread(target=server.stop)
        stopper.start()
        with contextlib.suppress(grpc.RpcError):  # the watch closes once the server is down
            seen.extend(reply.status for reply in watch)
        stopper.join(15)
    finally:
        channel.close()
    assert seen[0] == health_pb2.HealthCheckResponse.SERVING
    assert health_pb2.HealthCheckResponse.NOT_SERVING in seen[1:]


def test_a_call_waiting_for_its_turn_answers_when_the_server_shuts_down() -> None:
    from service.config import ServerConfig
    from service.running import ServerThread

    server = ServerThread(ServerConfig(port=0, grace_s=3.0, stream_wait_s=0.2)).start()
    client = Client(server.address)
    try:
        table = client.table("counterpoint", seed=b"shutdown-wait")
        for seat in (0, 1):  # both lay their bid cards aside; then one seat leads
            mine = client.get(table.game_id, table.tokens[seat])
            client.move(table.game_id, table.tokens[seat], mine.view.legal_moves[0], seat)
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
    finally:
        client.close()
