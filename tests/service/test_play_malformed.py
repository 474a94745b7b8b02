"""A malformed message on a play stream after a good opening ends the stream with
INVALID_ARGUMENT, every time.

The message is decoded by the reader task while the writer may be sending the opening step; an
abort from the reader then raced grpc's own write ("too many operations"), the server logged an
unexpected error and the client waited for its deadline (about 1 in 200). The race is widest when
the bad bytes follow the opening at once, so each attempt sends both together, many times."""

from __future__ import annotations

import random

import grpc
import pytest
from tricktable.v1 import game_service_pb2 as pb

from tests.service.support import Client, Table, auth

PLAY = "/tricktable.v1.GameService/Play"
ATTEMPTS = 400
TIMEOUT_S = 3.0  # a client left waiting shows as DEADLINE_EXCEEDED


@pytest.fixture(scope="module")
def table(client: Client) -> Table:
    return client.table("ninety-nine", seed=b"play malformed")


def _not_a_play_request(rng: random.Random) -> bytes:
    """Bytes protobuf cannot parse as a PlayRequest (a field tag of wire type 7 does not exist)."""
    return bytes([0x0F]) + rng.randbytes(rng.randrange(0, 12))


def test_a_malformed_message_after_a_good_open_is_invalid_argument_every_time(
    client: Client, table: Table
) -> None:
    play = client.channel.stream_stream(PLAY)
    opening = pb.PlayRequest(open=pb.PlayOpen(game_id=table.game_id)).SerializeToString()
    rng = random.Random(25)
    seen: dict[str, int] = {}
    for attempt in range(ATTEMPTS):
        bad = _not_a_play_request(rng)
        with pytest.raises(grpc.RpcError) as caught:
            # The opening step may arrive before the refusal: read to the end either way.
            list(play(iter([opening, bad]), timeout=TIMEOUT_S, metadata=auth(table.tokens[0])))
        err: grpc.Call = caught.value
        seen[err.code().name] = seen.get(err.code().name, 0) + 1
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, (attempt, err.code(), err.details())
        assert "malformed request" in (err.details() or "")
    assert seen == {"INVALID_ARGUMENT": ATTEMPTS}
    # The game is as it was: nothing a refused stream sent was applied.
    assert client.get(table.game_id).game.version == 0
