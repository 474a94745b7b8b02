"""``tricktable serve --workers N``: N server processes sharing one port through SO_REUSEPORT,
games kept in Redis (required), SIGTERM passed on to every worker."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from service.config import REDIS_URL_ENV
from service.workers import worker_args
from tests.servers import ROOT, SERVE, serve_process
from tests.service.support import clients


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def test_workers_share_one_port_and_stop_together(redis_url: str) -> None:
    with serve_process("--workers", "2", "--grace", "1", env={REDIS_URL_ENV: redis_url}) as served:
        proc = served.proc
        # Both workers serving (their own log lines say so), not only started: one still
        # starting when SIGTERM comes would not yet handle it.
        deadline = time.monotonic() + 30
        while served.log().count('"event": "serving"') < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = _children(proc.pid)
        assert len(workers) == 2
        # Each connection reaches one worker or the other; every game is in the shared Redis,
        # so a game made through one connection is played through another.
        with clients(served.address, 6) as connected:
            table = connected[0].table("counterpoint", seed=b"workers")
            for n, client in enumerate(connected[1:3]):
                client.play_first(table.game_id, table.tokens[n], n)
            assert connected[5].get(table.game_id).game.version == 2
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


@pytest.mark.parametrize(
    ("args", "env", "says"),
    [
        (["--workers", "2"], {}, "needs Redis"),
        (["--workers", "2", "--port", "0"], {REDIS_URL_ENV: "redis://127.0.0.1:1/0"}, "fixed"),
        (["--workers", "0"], {}, "at least 1"),
    ],
)
def test_workers_are_refused_without_what_they_need(
    args: list[str], env: dict[str, str], says: str
) -> None:
    environ = {k: v for k, v in os.environ.items() if k != REDIS_URL_ENV}
    done = subprocess.run(
        [*SERVE, "serve", *args],
        cwd=ROOT,
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and says in done.stderr


def test_a_worker_gets_the_arguments_but_workers_and_its_own_metrics_port() -> None:
    argv = ["serve", "--port", "7000", "--workers", "3", "--metrics-port=9464", "--grace", "2"]
    assert worker_args(argv, 2, 9464) == [
        "serve",
        "--port",
        "7000",
        "--grace",
        "2",
        "--metrics-port",
        "9466",
        "--reuse-port",
    ]
    assert worker_args(["serve", "--workers=2"], 0, None) == ["serve", "--reuse-port"]
