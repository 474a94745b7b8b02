"""Ctrl-C in ``tricktable cluster --replicas N``: a terminal sends SIGINT to its whole foreground
process group. The replicas and the Redis the command started run in groups of their own, so the
signal reaches the command alone, which passes it on to the replicas once and stops the Redis
after them: every replica drains with its Redis still there (no store warning in their logs),
all exit, and the command exits 0. (With the Redis in the command's group, Ctrl-C stopped the
Redis at once, under replicas still draining.)"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
from pathlib import Path

import pytest

from tests.integration.test_local_cluster import _free, free_run, start_cluster, wait_for
from tests.servers import is_serving


def children_of(pid: int) -> dict[int, int]:
    """The processes whose parent is ``pid``: each one's process group (from /proc)."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[1]) == pid:  # (state, ppid, pgrp, ...)
            found[int(stat.parent.name)] = int(fields[2])
    return found


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_ctrl_c_stops_the_replicas_then_the_redis_quietly(tmp_path: Path) -> None:
    grpc_base, web_base = free_run(2), free_run(2)
    out = tmp_path / "out"
    proc = start_cluster(out, grpc_base, web_base)  # in the group a terminal would signal
    children: dict[int, int] = {}
    try:
        addresses = [f"127.0.0.1:{grpc_base + i}" for i in range(2)]
        wait_for(lambda: all(is_serving(a) for a in addresses), "both replicas")
        redis = re.search(r"Redis: redis://127\.0\.0\.1:(\d+)/0", out.read_text())
        assert redis is not None, out.read_text()
        children = children_of(proc.pid)
        assert len(children) == 3  # two replicas and a redis-server
        assert proc.pid not in children.values()  # out of the Ctrl-C's reach

        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        assert proc.wait(60) == 0
        assert not any(running(pid) for pid in children)  # waited for by the command
        assert _free(int(redis.group(1)))  # the Redis it started is gone too
        logs = [json.loads(line) for line in out.read_text().splitlines() if line.startswith("{")]
        assert sum(1 for entry in logs if entry["event"] == "stopped") == 2, logs
        assert [e for e in logs if e["level"] not in ("info", "debug")] == []  # drained quietly
        assert "Traceback" not in out.read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        for pid in children:  # in groups of their own: ended one by one
            if running(pid):
                os.kill(pid, signal.SIGKILL)


def ended(pid: int) -> bool:
    """Gone, or a zombie (its parent died: whoever adopted it may not reap it at once)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal")
def test_a_killed_cluster_command_takes_its_replicas_and_redis_with_it(tmp_path: Path) -> None:
    """SIGKILL (the OOM killer, a `kill -9`) leaves the command no chance to stop anything: the
    kernel tells each replica and the Redis instead, and none is left orphaned on its port."""
    grpc_base = free_run(2)
    proc = start_cluster(tmp_path / "out", grpc_base, -1, own_session=False)
    children: dict[int, int] = {}
    try:
        addresses = [f"127.0.0.1:{grpc_base + i}" for i in range(2)]
        wait_for(lambda: all(is_serving(a) for a in addresses), "both replicas")
        children = children_of(proc.pid)
        assert len(children) == 3  # two replicas and a redis-server

        proc.kill()
        proc.wait(10)
        wait_for(lambda: all(ended(pid) for pid in children), "the orphans to end")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        for pid in children:
            if not ended(pid):
                os.kill(pid, signal.SIGKILL)
