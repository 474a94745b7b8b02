"""Finding a game is bounded per client by the same limits as the rest (issue 29), through a
real server: quick play tickets, invite codes reissued and rematch offers are each counted as
the seats they seek; a refusal is RESOURCE_EXHAUSTED with a RetryInfo, and changes nothing."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tricktable.v1 import game_service_pb2 as pb

from service.limits import LimitsConfig, Rate
from tests.servers import running_server
from tests.service.support import Client, auth, error_info


def _exhausted(call: Any, reason: str = "RATE_LIMITED") -> None:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    err = caught.value
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err.details()
    assert error_info(err).reason == reason
    status = rpc_status.from_call(err)
    assert status is not None
    retry = error_details_pb2.RetryInfo()
    assert any(d.Unpack(retry) for d in status.details) and retry.retry_delay.ToNanoseconds() > 0


def test_quick_play_tickets_and_rematch_offers_are_bounded_at_the_join_rate() -> None:
    limits = LimitsConfig(join_game=Rate(1 / 60, 2))  # two a minute, of each method
    with running_server(limits=limits) as served:
        client = served.client
        table = client.table("sixty-six")
        client.stub.LeaveGame(
            pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
        )
        ask = pb.RematchRequest(game_id=table.game_id)
        for _ in range(2):
            offer = client.stub.Rematch(ask, metadata=auth(table.tokens[0])).rematch
            assert list(offer.accepted) == [0]
        _exhausted(lambda: client.stub.Rematch(ask, metadata=auth(table.tokens[1])))
        # Refused, the rematch was not accepted: the offer stays seat 0's alone.
        stream = client.stub.StreamEvents(
            pb.StreamEventsRequest(game_id=table.game_id, from_version=0), timeout=30
        )
        assert [b.rematch.game_id for b in stream if b.HasField("rematch")] == []

        request = pb.QuickPlayRequest(game_type="counterpoint")
        first = client.stub.QuickPlay(request, timeout=30)
        assert next(first).queued.waiting == 1
        second = list(client.stub.QuickPlay(request, timeout=30))
        assert second[-1].WhichOneof("kind") == "matched"
        _exhausted(lambda: next(client.stub.QuickPlay(request, timeout=30)))
        first.cancel()


def test_invite_codes_are_reissued_at_the_create_rate() -> None:
    limits = LimitsConfig(create_game=Rate(1 / 60, 2))
    with running_server(limits=limits) as served:
        client: Client = served.client
        made = client.stub.CreateGame(
            pb.CreateGameRequest(game_type="sixty-six", visibility=pb.VISIBILITY_UNLISTED)
        )
        code = made.invite_code
        for _ in range(2):
            code = client.stub.RevokeInvite(
                pb.RevokeInviteRequest(game_id=made.game.game_id, invite_code=code, reissue=True)
            ).invite_code
        revoke = pb.RevokeInviteRequest(game_id=made.game.game_id, invite_code=code, reissue=True)
        _exhausted(lambda: client.stub.RevokeInvite(revoke))
        # Refused, the code was not revoked: it still takes a seat.
        client.stub.JoinGame(pb.JoinGameRequest(game_id=made.game.game_id, invite_code=code))


def test_waiting_tickets_are_open_streams_of_the_connection() -> None:
    limits = LimitsConfig(streams_per_connection=1)
    with running_server(limits=limits) as served:
        client = served.client
        waiting = client.stub.QuickPlay(pb.QuickPlayRequest(game_type="nominations"), timeout=30)
        assert next(waiting).queued.waiting == 1
        _exhausted(
            lambda: next(
                client.stub.QuickPlay(pb.QuickPlayRequest(game_type="ninety-nine"), timeout=30)
            ),
            "TOO_MANY_STREAMS",
        )
        waiting.cancel()
