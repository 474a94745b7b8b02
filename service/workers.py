"""``tricktable serve --workers N``: N server processes on one port, for machines with more cores.

One Python process uses one core at a time; N processes do not share memory, so they keep games
where they can all reach them (Redis: required) and each listens on the same port with
SO_REUSEPORT, the kernel spreading new connections between them. This process only supervises:
it starts the workers, passes SIGTERM and SIGINT on to them (each drains gracefully), and when
one of them ends, stops the others and exits with the first non-zero status (an orchestrator then
restarts the whole set, as it would a single server). Killed outright (SIGKILL, the OOM killer),
it cannot pass anything on: on Linux each worker is told by the kernel instead (SIGTERM when its
parent dies, see :func:`die_with_parent`), so no server is left orphaned on its port.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from types import FrameType

_RUN_CLI = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"
#: How long workers get to stop once told, beyond their own --grace.
_STOP_MARGIN_S = 10.0
#: prctl(2)'s option that names the signal a process gets when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the kernel send the child SIGTERM when this process dies, even
    by SIGKILL, which leaves no chance to stop it (Linux's prctl; None elsewhere). It runs
    between fork and exec, so only in a process with no other thread yet (a supervisor, before
    it starts its children): there, nothing another thread holds can block it. prctl is looked
    up here, before the fork; the child also ends at once if this process died before the
    child asked (it would never be told)."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()
    term = int(signal.SIGTERM)

    def in_child() -> None:
        prctl(_PR_SET_PDEATHSIG, term)
        if os.getppid() != parent:
            os._exit(1)

    return in_child


def worker_args(argv: Sequence[str], index: int, metrics_port: int | None) -> list[str]:
    """A worker's ``serve`` arguments: the supervisor's, without --workers, sharing the port;
    the metrics endpoint, when there is one on a fixed port, moves to ``port + index``."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in ("--workers", "--metrics-port"):
            skip = "=" not in arg
            continue
        out.append(arg)
    if metrics_port is not None:
        out += ["--metrics-port", str(metrics_port + index if metrics_port else 0)]
    return [*out, "--reuse-port"]


def supervise(argv: Sequence[str], workers: int, metrics_port: int | None, grace_s: float) -> int:
    """Run ``workers`` servers until a signal or a worker's end; their exit status."""
    return supervise_all([worker_args(argv, i, metrics_port) for i in range(workers)], grace_s)


def supervise_all(
    commands: Sequence[Sequence[str]], grace_s: float, *, own_groups: bool = False
) -> int:
    """Run one ``tricktable`` process per argument list (``serve ...``) until a signal or the
    end of one of them, then stop them all; the first non-zero exit status (also for
    ``tricktable cluster``'s replicas). ``own_groups``: each in a process group of its own, so
    that a terminal's Ctrl-C reaches only this process, which passes it on once."""
    # A worker is one server: TRICKTABLE_WORKERS, which may have set --workers here, must not
    # make each worker a supervisor in turn.
    env = {k: v for k, v in os.environ.items() if k != "TRICKTABLE_WORKERS"}
    group = 0 if own_groups else None
    tied = die_with_parent()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _RUN_CLI, *args],
            env=env,
            process_group=group,
            preexec_fn=tied,  # noqa: PLW1509 (no thread yet: see die_with_parent)
        )
        for args in commands
    ]
    stopping: list[int] = []

    def forward(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signum)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    try:
        while all(proc.poll() is None for proc in procs) and not stopping:
            time.sleep(0.2)
        if not stopping:  # a worker ended on its own: the set stops with it
            forward(signal.SIGTERM, None)
        deadline = time.monotonic() + grace_s + _STOP_MARGIN_S
        for proc in procs:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    return next((proc.returncode for proc in procs if proc.returncode), 0)
