"""Per-client limits on the web door: the gRPC door's own ``Limits`` (one set of buckets and
stream counts per replica), asked before each Connect or gRPC-Web call with the client's address
and headers; a refusal is RESOURCE_EXHAUSTED with the same ErrorInfo and RetryInfo as natively,
in Connect's error details and gRPC-Web's grpc-status-details-bin. Real sockets throughout."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tricktable.v1 import game_service_pb2 as pb

from service.limits import LimitsConfig, Rate
from tests.servers import Served, running_server
from tests.web.support import PROTOCOLS, WebClient, WebError

RESOURCE_EXHAUSTED = 8
#: Refill so slow that a test never sees a token come back.
SLOW = 0.001


@pytest.fixture
def limited(request: pytest.FixtureRequest) -> Iterator[Served]:
    """A server with the test's limits (its ``limited`` parameter) and the web door."""
    with running_server(web_port=0, limits=request.param) as served:
        yield served


def _refused(caught: Any, reason: str) -> WebError:
    error: WebError = caught.value
    assert error.code == RESOURCE_EXHAUSTED, error
    assert error.info is not None and error.info.reason == reason
    assert error.retry is not None and error.retry.retry_delay.ToNanoseconds() > 0
    return error


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    "limited", [LimitsConfig(create_game=Rate(SLOW, 5), open_games=0)], indirect=True
)
def test_a_burst_of_create_game_meets_the_limit(limited: Served, protocol: str) -> None:
    web = WebClient(limited.web_url, protocol)
    request = pb.CreateGameRequest(game_type="counterpoint")
    try:
        created = [web.call("CreateGame", request, pb.CreateGameResponse) for _ in range(5)]
        assert len({c.game.game_id for c in created}) == 5  # what is under the limit works
        for _ in range(3):
            with pytest.raises(WebError) as caught:
                web.call("CreateGame", request, pb.CreateGameResponse)
            error = _refused(caught, "RATE_LIMITED")
            if protocol != "grpc-web":
                assert error.http_status == 429  # Connect's mapping of RESOURCE_EXHAUSTED
        # Other methods have buckets of their own.
        web.call("ListGameTypes", pb.ListGameTypesRequest(), pb.ListGameTypesResponse)
    finally:
        web.close()


@pytest.mark.parametrize(
    "limited", [LimitsConfig(create_game=Rate(SLOW, 3), open_games=0)], indirect=True
)
def test_both_doors_draw_on_one_bucket_per_address(
    limited: Served,
) -> None:
    native, url = limited.client, limited.web_url
    for _ in range(2):
        native.create("counterpoint")
    web = WebClient(url, "connect-json")
    request = pb.CreateGameRequest(game_type="counterpoint")
    try:
        web.call("CreateGame", request, pb.CreateGameResponse)  # the third from 127.0.0.1
        with pytest.raises(WebError) as caught:
            web.call("CreateGame", request, pb.CreateGameResponse)
        _refused(caught, "RATE_LIMITED")
    finally:
        web.close()
    with pytest.raises(grpc.RpcError) as natively:
        native.create("counterpoint")
    assert natively.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


@pytest.mark.parametrize("limited", [LimitsConfig(seat_submit_move=Rate(SLOW, 2))], indirect=True)
def test_submit_move_is_limited_per_seat_token(limited: Served) -> None:
    native, url = limited.client, limited.web_url
    table = native.table("counterpoint")
    web = WebClient(url, "connect-json")
    # A move of nothing is refused as a bad request, but it is a call all the same.
    request = pb.SubmitMoveRequest(game_id=table.game_id)
    try:
        for _ in range(2):
            with pytest.raises(WebError) as bad:
                web.call("SubmitMove", request, pb.SubmitMoveResponse, table.tokens[0])
            assert bad.value.code != RESOURCE_EXHAUSTED
        with pytest.raises(WebError) as caught:
            web.call("SubmitMove", request, pb.SubmitMoveResponse, table.tokens[0])
        _refused(caught, "RATE_LIMITED")
        # The other seat, from the same address, has its own bucket.
        with pytest.raises(WebError) as other:
            web.call("SubmitMove", request, pb.SubmitMoveResponse, table.tokens[1])
        assert other.value.code != RESOURCE_EXHAUSTED
    finally:
        web.close()


@pytest.mark.parametrize("limited", [LimitsConfig(streams_per_replica=1)], indirect=True)
def test_open_web_streams_are_counted_until_they_end(
    limited: Served,
) -> None:
    native, url = limited.client, limited.web_url
    table = native.table("counterpoint")
    request = pb.StreamEventsRequest(game_id=table.game_id, from_version=0)
    first, second = WebClient(url, "connect-proto"), WebClient(url, "grpc-web")
    try:
        held: Any = first.stream("StreamEvents", request, pb.StreamEventsResponse)
        assert next(held).version == 0
        with pytest.raises(WebError) as caught:
            list(second.stream("StreamEvents", request, pb.StreamEventsResponse))
        _refused(caught, "TOO_MANY_STREAMS")
        # Natively too: one count for the replica.
        with pytest.raises(grpc.RpcError) as natively:
            next(iter(native.stub.StreamEvents(request)))
        assert natively.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        held.close()
        first.close()
        deadline = time.monotonic() + 20
        while True:  # the departed watcher's stream ends, and its place is free again
            try:
                again: Any = second.stream("StreamEvents", request, pb.StreamEventsResponse)
                assert next(again).version == 0
                again.close()
                break
            except WebError as refused:
                assert refused.info is not None and refused.info.reason == "TOO_MANY_STREAMS"
                assert time.monotonic() < deadline, "the closed stream is still counted"
                time.sleep(0.1)
    finally:
        first.close()
        second.close()
