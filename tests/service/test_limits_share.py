"""Issue 25's rest: reads have a rate (per address and per seat); the process' calls in
progress are shared fairly between addresses (a place given up goes to the waiting address with
the fewest calls running, so an address with many seats cannot starve the others); a full
queue's refusal says how long the queue needs to drain. Deterministic: the tests watch queues
and the order of admission, never the clock (the refill rates are so slow that no token comes
back during a test)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc

from service.auth import token_hash
from service.errors import LimitExceeded
from service.limits import FairShare, Gates, Limits, LimitsConfig, Rate, holding
from tests.servers import running_server
from tests.service.support import auth, error_info, retry_after_s

#: Refill so slow that a test never sees a token come back (1,000 s a token).
SLOW = 0.001
SERVICE = "/tricktable.v1.GameService/"


def _limited(call: Callable[[], Any], reason: str = "RATE_LIMITED") -> float:
    """The call is refused RESOURCE_EXHAUSTED with ``reason``: its RetryInfo's delay."""
    with pytest.raises(grpc.RpcError) as caught:
        call()
    err = caught.value
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err.details()
    assert error_info(err).reason == reason
    return retry_after_s(err)


# -- reads --------------------------------------------------------------------------------------


def test_a_seats_reads_have_a_rate_of_their_own() -> None:
    """Three reads for the seat, then its GetGame is refused with the time until its bucket is
    full again (three tokens at one per 1,000 s: about 3,000 s); the other seat, from the same
    address, reads on; a refused read changes nothing and its seat's moves are not held back."""
    limits = LimitsConfig(seat_read_calls=Rate(SLOW, 3), rate_wait_s=0)
    with running_server(limits=limits) as (_, client):
        table = client.table("counterpoint")
        mine, other = table.tokens
        for _ in range(3):
            assert client.get(table.game_id, mine).game.game_id == table.game_id
        delay = _limited(lambda: client.get(table.game_id, mine))
        assert 2900 < delay <= 3000
        # GetGameRecord (refused before it is decoded: the bucket is asked first) shares it.
        record = pb.GetGameRecordRequest(game_id=table.game_id)
        _limited(lambda: client.stub.GetGameRecord(record, metadata=auth(mine)))
        assert client.get(table.game_id, other).game.game_id == table.game_id
        with pytest.raises(grpc.RpcError) as moved:  # a move of nothing: admitted, refused
            client.stub.SubmitMove(
                pb.SubmitMoveRequest(game_id=table.game_id, request_id="r"), metadata=auth(mine)
            )
        assert moved.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert client.get(table.game_id).game.version == 0


def test_an_addresses_reads_share_one_budget() -> None:
    """Every read method draws on one bucket per address: four reads of four kinds spend it,
    the fifth (any kind) is refused; writes have buckets of their own."""
    limits = LimitsConfig(read_calls=Rate(SLOW, 4), rate_wait_s=0)
    with running_server(limits=limits) as (_, client):
        made = client.create("counterpoint")  # CreateGame: not a read
        stub = client.stub
        stub.GetGame(pb.GetGameRequest(game_id=made.game_id))
        stub.ListGames(pb.ListGamesRequest())
        stub.ListGameTypes(pb.ListGameTypesRequest())
        with pytest.raises(grpc.RpcError) as early:  # no record before the end: still a read
            stub.GetGameRecord(pb.GetGameRecordRequest(game_id=made.game_id))
        assert early.value.code() != grpc.StatusCode.RESOURCE_EXHAUSTED
        delay = _limited(lambda: stub.ListGames(pb.ListGamesRequest()))
        assert 3900 < delay <= 4000
        _limited(lambda: stub.GetGame(pb.GetGameRequest(game_id=made.game_id)))
        client.create("counterpoint")  # creates are not held back by the reads
        joined = stub.JoinGame(pb.JoinGameRequest(game_id=made.game_id))
        assert joined.seat_token


def test_reads_over_the_rate_wait_their_turn_rather_than_fail() -> None:
    """A seat's reads at one every 50 ms, a burst of one: five GetGame calls at once are all
    answered (a polling page is paced, not refused)."""
    limits = LimitsConfig(seat_read_calls=Rate(20, 1), rate_wait_s=30)
    with running_server(limits=limits) as (served, client):
        table = client.table("counterpoint")

        async def five() -> list[int]:
            async with grpc.aio.insecure_channel(served.address) as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                request = pb.GetGameRequest(game_id=table.game_id)
                answers = await asyncio.gather(
                    *(
                        stub.GetGame(request, metadata=auth(table.tokens[0]), timeout=60)
                        for _ in range(5)
                    )
                )
                return [answer.view.viewer for answer in answers]

        assert asyncio.run(five()) == [0] * 5


# -- a full queue says when it will have drained ------------------------------------------------


def test_a_full_queue_is_refused_with_the_time_it_needs_to_drain() -> None:
    async def scenario() -> None:
        gates = Gates(1, 100, "for this seat", drain_per_s=20)
        held = await gates.enter("seat", "SubmitMove")
        waiting = [asyncio.create_task(gates.enter("seat", "SubmitMove")) for _ in range(100)]
        await asyncio.sleep(0)
        with pytest.raises(LimitExceeded) as refused:
            await gates.enter("seat", "SubmitMove")
        # One running and 100 waiting, at 20 a second: 5.05 s, not the second it said before.
        assert refused.value.reason == "TOO_MANY_CALLS"
        assert refused.value.retry_after_s == pytest.approx(101 / 20)
        for task in waiting:
            task.cancel()
        await asyncio.gather(*waiting, return_exceptions=True)
        assert held is not None
        held()
        assert gates.busy("seat") == 0
        # A short queue still says at least a second; without a rate, a second.
        short = Gates(1, 0, "here", drain_per_s=1000)
        assert await short.enter("a", "GetGame") is not None
        with pytest.raises(LimitExceeded) as soon:
            await short.enter("a", "GetGame")
        assert soon.value.retry_after_s == 1.0

    asyncio.run(scenario())


def test_a_seats_full_queue_over_the_wire_says_when_it_drains() -> None:
    """A seat with one call in progress (a move waiting for its token) and five queued behind
    it: the seventh move is refused TOO_MANY_CALLS, told to come back when the six have passed
    at the seat's move rate (six at one per 1,000 s: 6,000 s), not in a second."""
    limits = LimitsConfig(
        seat_submit_move=Rate(SLOW, 1), rate_wait_s=100_000, calls_per_seat=1, queued_calls=5
    )
    with running_server(limits=limits) as (served, client):
        running = served.server
        assert running is not None
        table = client.table("counterpoint")
        token = table.tokens[0]
        empty = pb.SubmitMoveRequest(game_id=table.game_id, request_id="flood")

        async def flood() -> float:
            async with grpc.aio.insecure_channel(served.address) as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                with pytest.raises(grpc.aio.AioRpcError):  # the seat's one token, spent
                    await stub.SubmitMove(empty, metadata=auth(token), timeout=30)
                calls = [
                    asyncio.ensure_future(stub.SubmitMove(empty, metadata=auth(token)))
                    for _ in range(6)
                ]
                try:
                    for _ in range(3000):  # the flood reaches the server (not a timing)
                        if running.limits.seat_calls.busy(token_hash(token)) == 6:
                            break
                        await asyncio.sleep(0.01)
                    assert running.limits.seat_calls.busy(token_hash(token)) == 6
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await stub.SubmitMove(empty, metadata=auth(token), timeout=30)
                    err = refused.value
                    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert error_info(err).reason == "TOO_MANY_CALLS"
                    return retry_after_s(err)
                finally:
                    for call in calls:
                        call.cancel()

        assert asyncio.run(flood()) == pytest.approx(6 / SLOW)


# -- the process' calls in progress, shared fairly between addresses -------------------------


async def _enter(share: FairShare, key: str, log: list[str]) -> Callable[[], None]:
    leave = await share.enter(key)
    assert leave is not None
    log.append(key)
    return leave


def test_a_place_given_up_goes_to_the_waiting_address_with_the_fewest_calls_running() -> None:
    """Three places. Address A (many seats) takes all three and queues four more; then B and C
    ask for one each. As A's calls end, B and C get the next places (they have none running),
    then A's queue goes on in its own order; and while B has one running and A two, a place
    goes to B's second call before A's next."""

    async def scenario() -> None:
        share = FairShare(3)
        log: list[str] = []
        held = [await _enter(share, "A", log) for _ in range(3)]
        a_queue = [asyncio.create_task(_enter(share, "A", log)) for _ in range(4)]
        await asyncio.sleep(0)
        b_first = asyncio.create_task(_enter(share, "B", log))
        c_first = asyncio.create_task(_enter(share, "C", log))
        await asyncio.sleep(0)
        assert share.busy("A") == (3, 4) and share.busy("B") == (0, 1)
        assert share.running == 3
        held.pop(0)()  # one of A's ends: B waited with none running (before C, it came first)
        await asyncio.sleep(0)
        assert log == ["A", "A", "A", "B"]
        held.pop(0)()  # the next: C (none running), not A's four that waited longer
        await asyncio.sleep(0)
        assert log[-1] == "C"
        b_second = asyncio.create_task(_enter(share, "B", log))
        await asyncio.sleep(0)
        held.pop(0)()  # A has none running now, B one: A's oldest waiter
        await asyncio.sleep(0)
        assert log[-1] == "A" and share.busy("A") == (1, 3)
        (await b_first)()  # B: 0 running, A: 1 → B's second, though A's calls came first
        await asyncio.sleep(0)
        assert log[-1] == "B" and share.busy("B") == (1, 0)
        (await c_first)()  # C leaves: A's next (B has nothing waiting)
        await asyncio.sleep(0)
        assert log[-1] == "A" and share.busy("A") == (2, 2)
        (await b_second)()
        for task in a_queue:  # A's calls end one after another, its last ones come in
            (await task)()
            await asyncio.sleep(0)
        assert share.running == 0 and share.busy("A") == share.busy("B") == (0, 0)
        assert log.count("A") == 7

    asyncio.run(scenario())


def test_a_waiting_call_that_goes_away_keeps_no_share() -> None:
    async def scenario() -> None:
        share = FairShare(1)
        held = await share.enter("a")
        assert held is not None
        gone = asyncio.create_task(share.enter("b"))
        await asyncio.sleep(0)
        gone.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await gone
        assert share.busy("b") == (0, 0)
        # Handed the place as it is cancelled: it passes the place on to the next waiter.
        handed = asyncio.create_task(share.enter("b"))
        after = asyncio.create_task(share.enter("c"))
        await asyncio.sleep(0)
        held()
        handed.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await handed
        leave = await asyncio.wait_for(after, 5)
        assert leave is not None and share.running == 1 and share.busy("c") == (1, 0)
        # Cancelled while waiting, after the place it waited for went to another: forgotten.
        late = asyncio.create_task(share.enter("d"))
        await asyncio.sleep(0)
        late.cancel()
        leave()  # the grant skips the cancelled waiter
        with contextlib.suppress(asyncio.CancelledError):
            await late
        assert share.running == 0 and share.busy("d") == (0, 0)
        assert await share.enter("e") is not None  # free again

    asyncio.run(scenario())


def test_a_call_waiting_for_its_token_or_holding_for_players_has_no_share() -> None:
    """One call in progress on the process: a move waiting for its seat's token does not take
    it (another address' read goes in meanwhile), and a call holding for other players gives
    it up (:func:`holding`)."""

    async def scenario() -> None:
        limits = Limits(
            LimitsConfig(seat_submit_move=Rate(SLOW, 1), rate_wait_s=100_000, calls_in_progress=1)
        )
        seat = [("authorization", "Bearer seat-token")]
        move, read = f"{SERVICE}SubmitMove", f"{SERVICE}GetGame"
        first = await limits.enter(move, "ipv4:10.0.0.1:1", seat)  # the seat's one token
        assert first is not None and limits.share.running == 1
        first.leave()
        waiting = asyncio.ensure_future(limits.enter(move, "ipv4:10.0.0.1:2", seat))
        await asyncio.sleep(0)
        assert not waiting.done() and limits.share.running == 0
        other = await limits.enter(read, "ipv4:10.0.0.2:1", None)
        assert other is not None and limits.share.busy("10.0.0.2") == (1, 0)

        async def held_read() -> None:
            place = await limits.enter(read, "ipv4:10.0.0.3:1", None)
            assert place is not None
            holding()  # now waits for other players
            await asyncio.sleep(3600)

        queued = asyncio.ensure_future(held_read())
        await asyncio.sleep(0)
        assert limits.share.busy("10.0.0.3") == (0, 1)  # waits for the one place
        other.leave()
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert limits.share.running == 0  # it got the place, then gave it up to hold
        assert await limits.enter(read, "ipv4:10.0.0.4:1", None) is not None
        for task in (waiting, queued):
            task.cancel()
        await asyncio.gather(waiting, queued, return_exceptions=True)

    asyncio.run(scenario())


def test_the_python_clients_play_stream_waits_as_a_refusal_says_before_it_reconnects() -> None:
    """One open stream on the replica, held by one seat: the other seat's play stream is
    refused TOO_MANY_STREAMS with a RetryInfo of a second; the client reconnects only after it
    (twice, its policy's patience: at least two seconds in all), where its own back-off would
    have tried again after 50 and 100 ms, then gives up with the server's delay in the error."""
    from tricktable.client import Client as GameClient
    from tricktable.client import RetryPolicy
    from tricktable.errors import RateLimited

    with running_server(limits=LimitsConfig(streams_per_replica=1)) as (server, _):
        with GameClient(server.address, retry=RetryPolicy(attempts=3)) as client:
            game = client.create("counterpoint")
            first, second = client.join(game.game_id), client.join(game.game_id)
            held = first.play()
            try:
                held.receive()  # open: the replica's one stream
                started = time.monotonic()
                with pytest.raises(RateLimited) as refused, second.play() as stream:
                    stream.turn()
                waited = time.monotonic() - started
            finally:
                held.close()
        assert refused.value.reason == "TOO_MANY_STREAMS"
        assert refused.value.retry_after_s == pytest.approx(1.0)
        assert waited >= 2.0  # a lower bound only: two sleeps of the server's second
