"""``python3 dev.py tricktable serve``: SIGTERM and SIGINT sent to the wrapper's process reach
the server, which shuts down gracefully, and the wrapper's exit status is the server's."""

from __future__ import annotations

import signal
import sys

import pytest

from service.readiness import LIVENESS
from tests.servers import is_serving, serve_process


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_wrapper_stops_the_server_with_its_status(sig: signal.Signals) -> None:
    wrapper = (sys.executable, "dev.py", "tricktable")
    with serve_process("--grace", "1", command=wrapper) as served:
        served.proc.send_signal(sig)
        assert served.proc.wait(20) == 0
        assert '"event": "stopped"' in served.log()  # the server itself shut down
        assert not is_serving(served.address, LIVENESS)  # and no orphan holds the port
