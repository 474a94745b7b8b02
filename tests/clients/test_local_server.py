"""A server of one's own (``tricktable play`` or ``tournament`` without ``--address``, the arena):
``tricktable serve`` as a process of its own, used once it answers, gone afterwards, and the
plain in-memory server whatever ``TRICKTABLE_*`` variables the caller has set."""

from __future__ import annotations

import pytest
from tricktable.cli.local_server import local_server
from tricktable.client import Client, RetryPolicy
from tricktable.errors import TricktableError


def test_a_server_of_its_own_answers_then_is_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    # Set for the caller's own servers; a server of one's own must not try this Redis.
    monkeypatch.setenv("TRICKTABLE_REDIS_URL", "redis://127.0.0.1:1/0")
    with local_server("test") as address, Client(address) as client:
        assert {t.name for t in client.game_types()} >= {"counterpoint", "ninety-nine"}
        created = client.create("counterpoint")
        assert client.get(created.game_id).game.game_id == created.game_id
    with (
        Client(address, timeout_s=1.0, retry=RetryPolicy(attempts=1)) as client,
        pytest.raises(TricktableError),
    ):
        client.game_types()
