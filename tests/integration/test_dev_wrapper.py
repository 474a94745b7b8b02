"""``python3 dev.py tricktable serve``: SIGTERM and SIGINT sent to the wrapper's process reach
the server, which shuts down gracefully, and the wrapper's exit status is the server's."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]


def _serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="liveness"), timeout=0.5
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_wrapper_stops_the_server_with_its_status(sig: signal.Signals) -> None:
    port = free_port()
    address = f"127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "dev.py", "tricktable", "serve", "--port", str(port), "--grace", "1"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not _serving(address):
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        proc.send_signal(sig)
        assert proc.wait(20) == 0
        assert proc.stderr is not None
        assert '"event": "stopped"' in proc.stderr.read()  # the server itself shut down
        assert not _serving(address)  # and no orphan holds the port
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
