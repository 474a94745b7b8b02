"""``serve --idle-ttl`` through a real server, on the embedded store and on Redis: a full game
nobody plays ends as abandoned, the stream ends, and its record verifies."""

from __future__ import annotations

import pytest
from tricktable.v1 import game_service_pb2 as pb

from engine.record import verify
from tests.integration.test_clocks import record_of, watch_until
from tests.integration.test_play import _stream
from tests.servers import running_server, store_fields


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_a_full_game_nobody_plays_ends_as_abandoned(
    store: str, request: pytest.FixtureRequest
) -> None:
    with running_server(idle_ttl_s=0.4, **store_fields(request, store)) as (_, client):
        table = client.table("nominations")
        waiting = client.create("counterpoint")  # never full: not ended for idleness
        ended = watch_until(client, table.game_id, 1)
        assert ended.game.status == pb.GAME_STATUS_ABANDONED
        assert not ended.game.HasField("resigned_seat")
        batches = list(_stream(client, table.game_id, None))  # ends with the game
        assert batches[-1].events[0].game_abandoned.reason == "idle"
        assert verify(record_of(client, table.game_id)) is None
        assert client.get(waiting.game_id).game.status == pb.GAME_STATUS_WAITING
