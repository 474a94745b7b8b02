"""Admitted abuse must not starve others (issue 25): a call over its rate waits for its turn
in its own client's queue, and a seat's flood holds no more of its address' places than the
seat's own; a play stream's moves count against the same move rates as SubmitMove, and its
opening against the open streams. Real servers and sockets; no timed assertion (a flood is
held for a refill that takes 1,000 seconds, and the tests watch the queues, not the clock)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc, moves_pb2

from service.auth import token_hash
from service.limits import Buckets, Limits, LimitsConfig, Rate
from tests.servers import running_server
from tests.service.support import PlayLine, auth, error_info

#: Refill so slow that a test never sees a token come back (1,000 s a token).
SLOW = 0.001
EMPTY = moves_pb2.Move()


def test_calls_over_the_rate_are_promised_the_next_tokens_in_turn() -> None:
    now = [0.0]
    buckets = Buckets(Rate(2, 2), clock=lambda: now[0])
    assert buckets.queue("a", 1.0) == (True, 0.0)
    assert buckets.queue("a", 1.0) == (True, 0.0)  # the burst
    # Then each waits for a token of its own: the next comes in 0.5 s, the one after in 1 s.
    admitted, delay = buckets.queue("a", 1.0)
    assert admitted and delay == pytest.approx(0.5)
    admitted, delay = buckets.queue("a", 1.0)
    assert admitted and delay == pytest.approx(1.0)
    # The next token is further away than the call may wait: refused, and told how long the
    # bucket takes to fill again, the tokens promised to the waiting calls included (2 s).
    admitted, retry = buckets.queue("a", 1.0)
    assert not admitted and retry == pytest.approx(2.0)
    assert buckets.queue("b", 1.0) == (True, 0.0)  # another client has its own bucket
    now[0] = 2.0  # the promised tokens came and were spent; two more since
    assert buckets.queue("a", 0.0) == (True, 0.0)
    # Without patience, as a stream's opening: refused at once (take's answer).
    assert buckets.take("a") == 0.0
    assert buckets.take("a") == pytest.approx(1.0)


def test_a_call_waits_for_its_turn_and_gives_its_places_back_when_cancelled() -> None:
    async def scenario() -> None:
        limits = Limits(LimitsConfig(seat_submit_move=Rate(SLOW, 1), rate_wait_s=10_000))
        seat = [("authorization", "Bearer seat-token")]
        method = "/tricktable.v1.GameService/SubmitMove"
        first = await limits.enter(method, "ipv4:10.0.0.1:1", seat)
        assert first is not None
        first.leave()
        waiting = asyncio.ensure_future(limits.enter(method, "ipv4:10.0.0.1:2", seat))
        await asyncio.sleep(0)  # it takes its places, then waits for a token
        assert not waiting.done()
        assert limits.seat_calls.busy(token_hash("seat-token")) == 1
        assert limits.address_calls.busy("10.0.0.1") == 1
        waiting.cancel()  # the client went away: its places are given back
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert limits.seat_calls.busy(token_hash("seat-token")) == 0
        assert limits.address_calls.busy("10.0.0.1") == 0

    asyncio.run(scenario())


def _until(condition: Callable[[], bool], what: str) -> None:
    """Wait for a state of the server (not a time: the bound only reports a failure)."""
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_a_seats_flood_waits_behind_itself_while_the_other_seats_calls_go_through() -> None:
    """Twenty moves at once on one seat, whose bucket is empty: one waits for its token holding
    the seat's one place and one of its address' two, the others wait behind it in the seat's
    queue; the other seat, from the same address, is answered meanwhile, move and read, and so
    is a call with no seat. With the address' place taken first (as before issue 25), the flood
    held both places of the address and the other seat's calls waited behind it."""
    limits = LimitsConfig(
        seat_submit_move=Rate(SLOW, 1),
        rate_wait_s=10_000,
        calls_per_seat=1,
        calls_per_address=2,
    )
    with running_server(limits=limits) as (served, client):
        running = served.server
        assert running is not None
        table = client.table("counterpoint")
        flooder, other = table.tokens
        seat_key = token_hash(flooder)
        empty = pb.SubmitMoveRequest(game_id=table.game_id, request_id="flood")

        async def flood_and_watch() -> None:
            async with grpc.aio.insecure_channel(served.address) as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                # The seat's one token is spent on a first move (refused as empty, but counted).
                with pytest.raises(grpc.aio.AioRpcError) as first:
                    await stub.SubmitMove(empty, metadata=auth(flooder), timeout=30)
                assert first.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                calls = [
                    asyncio.ensure_future(stub.SubmitMove(empty, metadata=auth(flooder)))
                    for _ in range(20)
                ]
                try:
                    await asyncio.to_thread(
                        _until,
                        lambda: running.limits.seat_calls.busy(seat_key) == 20,
                        "the flood reached the server",
                    )
                    # The flood holds one place of its address (its seat's one call in
                    # progress, waiting for a token), not both.
                    assert running.limits.address_calls.busy("127.0.0.1") == 1
                    seen = await stub.GetGame(
                        pb.GetGameRequest(game_id=table.game_id), metadata=auth(other), timeout=30
                    )
                    assert seen.game.game_id == table.game_id
                    with pytest.raises(grpc.aio.AioRpcError) as moved:
                        await stub.SubmitMove(
                            pb.SubmitMoveRequest(game_id=table.game_id, request_id="honest"),
                            metadata=auth(other),
                            timeout=30,
                        )
                    assert moved.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # admitted
                    await stub.ListGames(pb.ListGamesRequest(), timeout=30)
                    # Meanwhile every call of the flood still waits, none was answered.
                    assert not any(call.done() for call in calls)
                    assert running.limits.seat_calls.busy(seat_key) == 20
                finally:
                    for call in calls:
                        call.cancel()
                await asyncio.to_thread(
                    _until,
                    lambda: running.limits.seat_calls.busy(seat_key) == 0,
                    "the cancelled flood gave its places back",
                )
                assert running.limits.address_calls.busy("127.0.0.1") == 0

        asyncio.run(flood_and_watch())


def test_calls_over_the_rate_wait_their_turn_rather_than_fail() -> None:
    """A seat with a burst of 1 and a token every 50 ms: five moves at once all reach the
    handler (each refused as empty, none as RESOURCE_EXHAUSTED): the ones over the rate waited
    for their tokens."""
    limits = LimitsConfig(seat_submit_move=Rate(20, 1), rate_wait_s=30)
    with running_server(limits=limits) as (served, client):
        table = client.table("counterpoint")
        empty = pb.SubmitMoveRequest(game_id=table.game_id, request_id="paced")

        async def five() -> list[grpc.StatusCode]:
            async with grpc.aio.insecure_channel(served.address) as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)

                async def one() -> grpc.StatusCode:
                    try:
                        await stub.SubmitMove(empty, metadata=auth(table.tokens[0]), timeout=60)
                    except grpc.aio.AioRpcError as err:
                        return err.code()
                    return grpc.StatusCode.OK

                return await asyncio.gather(*(one() for _ in range(5)))

        assert asyncio.run(five()) == [grpc.StatusCode.INVALID_ARGUMENT] * 5


# -- the play stream ----------------------------------------------------------------------------


def _details(error: Any) -> tuple[str, float]:
    """A PlayError's ErrorInfo reason and RetryInfo delay (0: none)."""
    reason, delay = "", 0.0
    for detail in error.details:
        info = error_details_pb2.ErrorInfo()
        retry = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            reason = info.reason
        elif detail.Unpack(retry):
            delay = retry.retry_delay.ToNanoseconds() / 1e9
    return reason, delay


def test_a_play_streams_moves_count_against_the_seats_move_rate() -> None:
    """Burst 3 for the seat: two moves on its stream and one SubmitMove spend it (each refused
    as empty, but counted); the stream's next move is answered RESOURCE_EXHAUSTED RATE_LIMITED
    with a RetryInfo, in the stream's own form (the move's error), and the stream goes on; the
    seat's SubmitMove is refused too (one budget); the other seat's stream is not limited."""
    limits = LimitsConfig(seat_submit_move=Rate(SLOW, 3), rate_wait_s=0)
    with running_server(limits=limits) as (_, client):
        table = client.table("counterpoint")
        line = PlayLine(client, table.game_id, table.tokens[0])
        try:
            line.until("view")
            for _ in range(2):
                sent = line.move(EMPTY, 0)
                answer, _ = line.until("result")
                assert answer.result.request_id == sent
                assert answer.result.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
            with pytest.raises(grpc.RpcError) as bad:
                client.stub.SubmitMove(
                    pb.SubmitMoveRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
                )
            assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT  # the third token
            for _ in range(2):  # refused, and the stream still answers the next move
                sent = line.move(EMPTY, 0)
                answer, _ = line.until("result")
                assert answer.result.request_id == sent
                error = answer.result.error
                assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
                reason, delay = _details(error)
                assert reason == "RATE_LIMITED" and delay > 0
            with pytest.raises(grpc.RpcError) as limited:
                client.stub.SubmitMove(
                    pb.SubmitMoveRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
                )
            assert limited.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error_info(limited.value).reason == "RATE_LIMITED"
        finally:
            line.close()
        other = PlayLine(client, table.game_id, table.tokens[1])
        try:
            other.until("view")
            other.move(EMPTY, 0)
            answer, _ = other.until("result")
            assert answer.result.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        finally:
            other.close()
        assert client.get(table.game_id).game.version == 0  # nothing refused was applied


def test_a_play_stream_counts_as_an_open_stream() -> None:
    limits = LimitsConfig(streams_per_replica=1)
    with running_server(limits=limits) as (_, client):
        table = client.table("counterpoint")
        first = PlayLine(client, table.game_id, table.tokens[0])
        try:
            first.until("view")
            second = PlayLine(client, table.game_id, table.tokens[1])
            try:
                with pytest.raises(grpc.RpcError) as refused:
                    second.next()
                assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert error_info(refused.value).reason == "TOO_MANY_STREAMS"
            finally:
                second.close()
        finally:
            first.close()
