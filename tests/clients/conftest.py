"""One real server (in-process, on the embedded MemoryStore) for the client and bot tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tricktable.client import Client

from service.config import ServerConfig
from service.running import ServerThread


@pytest.fixture(scope="package")
def server() -> Iterator[ServerThread]:
    with ServerThread(ServerConfig(port=0, grace_s=1.0, stream_wait_s=0.2)) as running:
        yield running


@pytest.fixture
def client(server: ServerThread) -> Iterator[Client]:
    with Client(server.address) as connected:
        yield connected


@pytest.fixture
def game_facts(client: Client) -> None:
    """The games' facts (tricktable.facts), learnt from the server as a client learns them."""
    client.game_types()
