"""A server of one's own for a command given no ``--address``: ``tricktable serve`` started as a
process on a free local port, used once it answers, stopped at the end.

The client package never imports the server: it runs the ``serve`` command that the server
package adds to ``tricktable`` when it is installed (entry point group ``tricktable.commands``),
with the interpreter running this one, so it is the server installed beside this client.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from tricktable.cli.common import INSTALL_SERVER
from tricktable.client import Client, RetryPolicy
from tricktable.errors import TricktableError

#: How long a starting server may take to answer (imports and all, on a loaded machine).
START_TIMEOUT_S = 60.0
#: The variables that configure ``tricktable serve`` (TRICKTABLE_REDIS_URL...): a server of
#: one's own is the plain in-memory one, whatever the environment says.
_SERVE_PREFIX = "TRICKTABLE_"


class NoServer(SystemExit):
    """No address given, and no server package to start a server with."""


def can_start() -> bool:
    from tricktable.cli import has_command  # noqa: PLC0415 (tricktable.cli imports this)

    return has_command("serve")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers(address: str) -> bool:
    try:
        with Client(address, timeout_s=1.0, retry=RetryPolicy(attempts=1)) as client:
            client.game_types()
    except TricktableError:
        return False
    return True


@contextmanager
def local_server(command: str, serve_args: Sequence[str] = ()) -> Iterator[str]:
    """Start ``tricktable serve`` on a free port and yield its address once it answers.

    ``command`` names the caller in the message given when the server package is missing.
    The server's log goes to a temporary file, shown only if it fails to start.
    """
    if not can_start():
        raise NoServer(
            f"tricktable {command}: give --address HOST:PORT: starting a server of its own "
            f"needs the server package ({INSTALL_SERVER}), which is not installed"
        )
    env = {k: v for k, v in os.environ.items() if not k.startswith(_SERVE_PREFIX)}
    port = free_port()
    address = f"127.0.0.1:{port}"
    argv = [sys.executable, "-m", "tricktable.cli", "serve", "--host", "127.0.0.1"]
    argv += ["--port", str(port), "--grace", "1", "--log-level", "warning", *serve_args]
    with tempfile.TemporaryFile("w+") as log:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
        )
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while not _answers(address):
                if process.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise SystemExit(
                        f"tricktable {command}: the server it started did not answer:\n"
                        + log.read()[-2000:]
                    )
                time.sleep(0.1)
            yield address
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
