"""Every line a server writes is structured (issue 25): the standard ``logging`` records of its
libraries (Hypercorn, asyncio, grpc), warnings and uncaught exceptions are rendered as its own
lines are, tracebacks inside the line; and hostile web traffic leaves no plain line in a
``serve`` process's stderr."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import httpx
from tricktable.v1 import game_service_pb2 as pb

from tests.conftest import free_port
from tests.servers import ROOT, serve_process
from tests.web.support import SERVICE, envelope

_LOGGING_EVERYTHING = """
import logging, threading, warnings
import structlog
from service.logs import configure
configure(json=True, level="info", final=True)
structlog.get_logger("tricktable").info("one of ours", game_id="g")
try:
    1 / 0
except ZeroDivisionError:
    logging.getLogger("tricktable.web").exception("Error in ASGI Framework")
logging.getLogger("asyncio").error("Unhandled exception in client_connected_cb")
logging.getLogger("hypercorn.error").info("Running on http://127.0.0.1:1 (a library's info)")
warnings.warn("a library's warning")
thread = threading.Thread(target=lambda: 1 / 0, name="worker")
thread.start()
thread.join()
raise RuntimeError("uncaught in the main thread")
"""


def _json_lines(text: str) -> list[dict[str, object]]:
    lines = [line for line in text.splitlines() if line.strip()]
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            raise AssertionError(f"a line that is not JSON: {line!r}\n{text}") from None
    return parsed


def test_library_records_warnings_and_uncaught_exceptions_are_json_lines() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LOGGING_EVERYTHING],
        check=False,  # it ends with an uncaught exception on purpose
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    lines = _json_lines(done.stderr)
    events = [line["event"] for line in lines]
    assert events[0] == "one of ours"
    assert "Error in ASGI Framework" in events
    framework = lines[events.index("Error in ASGI Framework")]
    assert framework["logger"] == "tricktable.web" and framework["level"] == "error"
    assert "ZeroDivisionError" in str(framework["exception"])
    assert "Unhandled exception in client_connected_cb" in events
    assert not any("Running on" in str(e) for e in events), "a library's info lines stay out"
    assert any("a library's warning" in str(e) for e in events)
    thread = lines[events.index("uncaught exception in a thread")]
    assert thread["thread"] == "worker" and "ZeroDivisionError" in str(thread["exception"])
    main = lines[events.index("uncaught exception")]
    assert "uncaught in the main thread" in str(main["exception"])
    assert all("timestamp" in line and "level" in line for line in lines)


def test_hostile_web_traffic_leaves_only_json_lines() -> None:
    web_port = free_port()
    with serve_process("--web-port", str(web_port), "--log-format", "json") as server:
        base = f"http://127.0.0.1:{web_port}"
        path = f"/{SERVICE}/ListGameTypes"
        body = envelope(pb.ListGameTypesRequest().SerializeToString())
        upgrade = {
            "connection": "Upgrade",
            "upgrade": "websocket",
            "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
            "sec-websocket-version": "13",
        }
        with httpx.Client(base_url=base, timeout=30) as http:
            # What printed tracebacks before: a WebSocket handshake, gRPC over HTTP/1.1.
            assert http.get(path, headers=upgrade).status_code == 403
            grpc_h1 = http.post(path, headers={"content-type": "application/grpc"}, content=body)
            assert grpc_h1.status_code == 415
            bad_gzip = http.post(
                path,
                headers={"content-type": "application/proto", "content-encoding": "gzip"},
                content=b"not gzip",
            )
            assert bad_gzip.status_code == 400
        with httpx.Client(base_url=base, timeout=30, http1=False, http2=True) as h2:
            # An answer before the body was read: Hypercorn's HTTP/2 KeyError before.
            big = envelope(b"\x0a" * 20_000)
            headers = {"content-type": "application/grpc-web+proto", "grpc-timeout": "1Z"}
            for _ in range(3):
                assert h2.post(path, headers=headers, content=big).status_code == 200
        time.sleep(0.5)  # what the server logs of the last calls
        lines = _json_lines(server.log())
        assert server.proc.poll() is None
    assert lines and lines[0]["event"] == "serving"
    assert not [line for line in lines if line["level"] in ("error", "critical")], lines


_WRITES = """
import json, logging, sys
import structlog
from service.logs import configure

class Recorder:
    def __init__(self):
        self.writes = []
    def write(self, text):
        self.writes.append(text)
        return len(text)
    def flush(self):
        pass
    def isatty(self):
        return False

recorder = sys.stderr = Recorder()
configure(json=True, level="info", final=True)
structlog.get_logger("tricktable").info("one of ours", game_id="g")
logging.getLogger("hypercorn.error").error("a library's")
sys.stdout.write(json.dumps(recorder.writes))
"""


def test_each_line_is_one_write_so_processes_sharing_stderr_never_mix_lines() -> None:
    """``serve --workers`` and ``tricktable cluster`` run processes that share one stderr. A
    line written in two parts (the text, then its newline: what ``print`` does on Python's
    unbuffered stderr) lets another process's line land between them, two JSON objects on one
    line; one write of a line and its newline is never split (O_APPEND files, pipes up to 4 KiB)."""
    done = subprocess.run(
        [sys.executable, "-c", _WRITES],
        check=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    writes = json.loads(done.stdout)
    assert len(writes) == 2, writes
    for write in writes:
        assert write.endswith("\n") and write.count("\n") == 1, writes
        json.loads(write)
