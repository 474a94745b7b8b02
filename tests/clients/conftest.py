"""One real server (in-process, on the embedded store) for all the client and bot tests, and a
client of the Python SDK (the one these tests check) per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tricktable.client import Client

from service.running import ServerThread
from tests.servers import running_server


@pytest.fixture(scope="package")
def server() -> Iterator[ServerThread]:
    with running_server() as served:
        yield served.server


@pytest.fixture
def client(server: ServerThread) -> Iterator[Client]:
    with Client(server.address) as connected:
        yield connected


@pytest.fixture
def game_facts(client: Client) -> None:
    """The games' facts (tricktable.facts), learnt from the server as a client learns them."""
    client.game_types()
