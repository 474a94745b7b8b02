"""Limits through a real server over real sockets: call rates per address and per seat, open
games per address, open streams per connection and per replica, idle connections. A refusal is
RESOURCE_EXHAUSTED with an ErrorInfo reason and a RetryInfo; what is under a limit works."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc

from service.auth import token_hash
from service.errors import LimitExceeded
from service.limits import Buckets, Gates, Limits, LimitsConfig, Rate, holding
from service.proxies import address_of
from tests.servers import running_server, store_fields
from tests.service.support import (
    Client,
    auth,
    clients,
    error_info,
    play_random_game,
    retry_after_s,
)


def _refused(err: Any, *reasons: str) -> None:
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err.details()
    assert error_info(err).reason in reasons
    assert retry_after_s(err) > 0


def test_a_burst_of_2000_create_game_calls_meets_the_default_limit() -> None:
    with running_server() as (_, client):
        codes: Counter[str] = Counter()
        started = time.monotonic()
        refusal: Any = None
        for _ in range(2000):
            try:
                client.create("counterpoint")
                codes["OK"] += 1
            except grpc.RpcError as err:
                codes[err.code().name] += 1
                refusal = err
                # Past its burst a create waits for its token (a sequential client is paced
                # at the rate, not refused), so the open games' cap comes first: a client that
                # ignores RetryInfo is refused on at the create rate, 15 s more of the same.
                if codes[err.code().name] >= 20:
                    break
        elapsed = time.monotonic() - started
        print(f"\n2,000 CreateGame in {elapsed:.2f} s from one client: {dict(codes)}")
        assert set(codes) == {"OK", "RESOURCE_EXHAUSTED"}
        # The rate, or on a slow machine the open games (500) first.
        _refused(refusal, "RATE_LIMITED", "TOO_MANY_OPEN_GAMES")
        limit = LimitsConfig().create_game
        # The bucket: its burst at once, then its rate (with slack for a slow machine's clock).
        assert codes["OK"] <= limit.burst + limit.per_s * (elapsed + 1)
        # The lobby holds only the games that were accepted.
        listed, token = 0, ""
        while True:
            page = client.stub.ListGames(pb.ListGamesRequest(page_size=100, page_token=token))
            listed += len(page.games)
            token = page.next_page_token
            if not token:
                break
        assert listed == codes["OK"]


def test_a_seat_token_has_its_own_move_rate() -> None:
    limits = LimitsConfig(seat_submit_move=Rate(1, 3), rate_wait_s=0)  # refused, never waiting
    with running_server(limits=limits) as (_, client):
        table = client.table("counterpoint")
        bad = pb.SubmitMoveRequest(game_id=table.game_id, request_id="r")  # no move: invalid

        def submit(token: str) -> grpc.StatusCode:
            try:
                client.stub.SubmitMove(bad, metadata=auth(token))
            except grpc.RpcError as err:
                if err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED:
                    _refused(err, "RATE_LIMITED")
                return err.code()
            return grpc.StatusCode.OK

        first = [submit(table.tokens[0]) for _ in range(5)]
        assert first[:3] == [grpc.StatusCode.INVALID_ARGUMENT] * 3
        assert first[3:] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2
        # The other seat, from the same address, is not limited by the first seat's calls.
        assert submit(table.tokens[1]) == grpc.StatusCode.INVALID_ARGUMENT


def test_open_games_per_address_count_only_games_still_waiting_for_players() -> None:
    limits = LimitsConfig(open_games=3, open_games_recount_s=0)  # re-read at every create
    with running_server(limits=limits) as (_, client):
        games = [client.create("counterpoint") for _ in range(3)]
        with pytest.raises(grpc.RpcError) as caught:
            client.create("counterpoint")
        _refused(caught.value, "TOO_MANY_OPEN_GAMES")
        for seat in range(2):  # one of them fills: it no longer counts
            client.stub.JoinGame(pb.JoinGameRequest(game_id=games[0].game_id, seat=seat))
        client.create("counterpoint")
        with pytest.raises(grpc.RpcError) as again:
            client.create("counterpoint")
        _refused(again.value, "TOO_MANY_OPEN_GAMES")


def test_an_address_at_its_open_games_cap_is_re_read_at_most_once_in_a_while() -> None:
    """The re-read at the cap reads every game of the address (500 at the default cap): it is
    done at most once every ``open_games_recount_s``, and between re-reads the verdict stands.
    A game filled right after a re-read frees its place only at the next one (here not within
    the test: once every 1,000 s), where a re-read at every create would admit the next."""
    limits = LimitsConfig(open_games=3, open_games_recount_s=1000)
    with running_server(limits=limits) as (_, client):
        games = [client.create("counterpoint") for _ in range(3)]
        with pytest.raises(grpc.RpcError) as caught:  # re-read: all three still open
            client.create("counterpoint")
        _refused(caught.value, "TOO_MANY_OPEN_GAMES")
        for seat in range(2):
            client.stub.JoinGame(pb.JoinGameRequest(game_id=games[0].game_id, seat=seat))
        with pytest.raises(grpc.RpcError) as again:  # not re-read again so soon
            client.create("counterpoint")
        _refused(again.value, "TOO_MANY_OPEN_GAMES")


def _stream(stub: Any, game_id: str) -> Any:
    call = stub.StreamEvents(pb.StreamEventsRequest(game_id=game_id), timeout=30)
    assert next(call).version == 0
    return call


def _stream_refused(stub: Any, game_id: str) -> None:
    call = stub.StreamEvents(pb.StreamEventsRequest(game_id=game_id), timeout=30)
    with pytest.raises(grpc.RpcError) as caught:
        next(call)
    _refused(caught.value, "TOO_MANY_STREAMS")


def test_open_streams_per_connection_and_per_replica() -> None:
    limits = LimitsConfig(streams_per_connection=2, streams_per_replica=3)
    with running_server(limits=limits) as (server, client):
        game_id = client.create("counterpoint").game_id
        one = Client(server.address, own_connection=True)
        two = Client(server.address, own_connection=True)
        try:
            a, b = _stream(one.stub, game_id), _stream(one.stub, game_id)
            _stream_refused(one.stub, game_id)  # the connection's two are open
            c = _stream(two.stub, game_id)  # another connection: the replica's third
            _stream_refused(two.stub, game_id)  # the replica's three are open
            a.cancel()  # a stream that ends frees its place
            deadline = time.monotonic() + 10
            while True:
                try:
                    d = _stream(one.stub, game_id)
                    break
                except grpc.RpcError:
                    assert time.monotonic() < deadline, "a cancelled stream kept its place"
                    time.sleep(0.05)
            for call in (b, c, d):
                call.cancel()
        finally:
            one.close()
            two.close()


def test_an_idle_connection_is_closed_and_the_client_reconnects() -> None:
    with running_server(limits=LimitsConfig(max_connection_idle_s=0.3)) as (server, _):
        own = Client(server.address, own_connection=True)
        channel, stub = own.channel, own.stub
        states: list[grpc.ChannelConnectivity] = []
        went_idle = threading.Event()

        def seen(state: grpc.ChannelConnectivity) -> None:
            states.append(state)
            if grpc.ChannelConnectivity.READY in states and state == (
                grpc.ChannelConnectivity.IDLE
            ):
                went_idle.set()

        channel.subscribe(seen, try_to_connect=False)
        try:
            stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=10)
            assert went_idle.wait(15), f"the server did not close the idle connection: {states}"
            stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=10)  # reconnects by itself
        finally:
            channel.unsubscribe(seen)
            own.close()


def test_normal_play_stays_under_the_default_limits() -> None:
    with running_server() as (_, client):
        for i in range(3):
            table = client.table("counterpoint", seed=b"limits %d" % i)
            assert play_random_game(client, table, random.Random(i)).view.finished


def test_buckets_refill_at_their_rate_and_say_how_long_to_wait() -> None:
    now = [0.0]
    buckets = Buckets(Rate(2, 3), clock=lambda: now[0])
    assert [buckets.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    # Refused: the wait is until the bucket is full again (3 tokens at 2 a second), not until
    # the next token (0.5 s), which would invite retrying at the edge of the rate.
    assert buckets.take("a") == pytest.approx(1.5)
    assert buckets.take("b") == 0.0  # another client has its own bucket
    now[0] = 0.5
    assert buckets.take("a") == 0.0  # one call's worth came back
    assert buckets.take("a") == pytest.approx(1.5)  # and was spent: the whole refill again
    now[0] = 1.0
    assert buckets.take("a") == 0.0
    now[0] = 1.25  # half a token back: the rest of the refill is 1.25 s
    assert buckets.take("a") == pytest.approx(1.25)
    assert Buckets(Rate(0, 1)).take("a") == 0.0  # rate 0: no limit


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:127.0.0.1:5678", "127.0.0.1"),
        ("ipv6:[::1]:5678", "::1"),
        ("unix:/tmp/socket", "unix"),
    ],
)
def test_the_client_address_is_the_peer_without_its_port(peer: str, address: str) -> None:
    assert address_of(peer) == address


def test_rates_parse_from_flags() -> None:
    assert Rate.parse("10/50") == Rate(10, 50)
    assert Rate.parse("10") == Rate(10, 10)
    assert Rate.parse("0") == Rate(0, 1)
    with pytest.raises(argparse.ArgumentTypeError, match="RATE"):
        Rate.parse("fast")


def test_limits_reach_a_real_client_over_the_wire_with_its_own_address() -> None:
    # The refusal names the address the server saw: the client's, not the server's.
    with running_server(limits=LimitsConfig(create_game=Rate(1, 1), rate_wait_s=0)) as (_, client):
        client.create("counterpoint")
        with pytest.raises(grpc.RpcError) as caught:
            client.create("counterpoint")
        assert "127.0.0.1" in (caught.value.details() or "")
        assert retry_after_s(caught.value) == pytest.approx(1.0, abs=0.5)


def test_the_client_waits_as_the_server_says_and_its_move_goes_through() -> None:
    from tricktable.client import Client as GameClient
    from tricktable.errors import RateLimited

    with running_server(limits=LimitsConfig(submit_move=Rate(1, 1), rate_wait_s=0)) as (server, _):
        client = GameClient(server.address)
        with client:
            game = client.create("counterpoint")
            first, second = client.join(game.game_id), client.join(game.game_id)
            first.submit(first.get().view.legal_moves[0])
            started = time.monotonic()
            # Refused at once (the address' one call a second is spent), retried after the
            # RetryInfo's delay with the same request id: applied once.
            second.submit(second.get().view.legal_moves[0])
            assert time.monotonic() - started >= 0.5
            assert first.get().game.version == 2
            # A refusal the client gives up on is a RateLimited with the server's delay.
            error = RateLimited(grpc.StatusCode.RESOURCE_EXHAUSTED, "slow down", "RATE_LIMITED")
            assert not error.retryable  # without a RetryInfo
            error.retry_after_s = 2.0
            assert error.retryable and error.wait_s(0.1) == 2.0


# -- the open-games cap under a race ------------------------------------------------------------

#: The cap of the race tests, how far below it the race starts, and how many creates race.
CAP, START_BELOW, RACERS = 50, 5, 200


async def _native_creates(address: str, count: int) -> Counter[str]:
    """``count`` CreateGame calls at once over one native channel: their outcomes by status
    code (and, for RESOURCE_EXHAUSTED, reason)."""
    async with grpc.aio.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        request = pb.CreateGameRequest(game_type="counterpoint")

        async def create() -> str:
            try:
                await stub.CreateGame(request, timeout=60)
            except grpc.aio.AioRpcError as err:
                status = rpc_status.from_call(err)
                reasons = [] if status is None else _reasons(status.details)
                return f"{err.code().name} {' '.join(reasons)}".strip()
            return "OK"

        return Counter(await asyncio.gather(*(create() for _ in range(count))))


def _reasons(details: Any) -> list[str]:
    found = []
    for detail in details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            found.append(info.reason)
    return found


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_concurrent_creates_meet_the_open_games_cap_exactly(
    request: pytest.FixtureRequest, store: str
) -> None:
    limits = LimitsConfig(create_game=Rate(0, 1), open_games=CAP, open_games_recount_s=0)
    with running_server(limits=limits, **store_fields(request, store)) as (server, client):
        games = [client.create("counterpoint") for _ in range(CAP - START_BELOW)]
        outcomes = asyncio.run(_native_creates(server.address, RACERS))
        assert outcomes == Counter(
            {"OK": START_BELOW, "RESOURCE_EXHAUSTED TOO_MANY_OPEN_GAMES": RACERS - START_BELOW}
        )
        # Once one fills, exactly one more may be created, however many race for it.
        for seat in range(2):
            client.stub.JoinGame(pb.JoinGameRequest(game_id=games[0].game_id, seat=seat))
        outcomes = asyncio.run(_native_creates(server.address, 50))
        assert outcomes == Counter({"OK": 1, "RESOURCE_EXHAUSTED TOO_MANY_OPEN_GAMES": 49})


# -- calls in progress per address and per seat -------------------------------------------------


def test_calls_past_the_cap_wait_for_a_place_in_the_order_they_came() -> None:
    async def scenario() -> None:
        gates = Gates(2, 3, "from here")
        first = await gates.enter("a", "GetGame")
        second = await gates.enter("a", "GetGame")
        assert first is not None and second is not None
        entered: list[int] = []

        async def later(n: int) -> None:
            leave = await gates.enter("a", "GetGame")
            entered.append(n)
            assert leave is not None
            await asyncio.sleep(0)
            leave()

        waiting = [asyncio.create_task(later(n)) for n in range(3)]
        await asyncio.sleep(0.01)
        assert entered == [] and gates.busy("a") == 5  # two in progress, three waiting
        # Another client is not behind them.
        other = await gates.enter("b", "GetGame")
        assert other is not None
        # Past the queue: refused with a delay, and nothing of it stays.
        with pytest.raises(LimitExceeded) as refused:
            await gates.enter("a", "GetGame")
        assert refused.value.reason == "TOO_MANY_CALLS" and refused.value.retry_after_s > 0
        assert gates.busy("a") == 5
        first()
        first()  # a place is given up once, whatever calls it again
        assert gates.busy("a") == 4  # one waiter has the place: two in progress, two wait
        await asyncio.sleep(0.01)
        assert entered == [0, 1, 2]  # first come, first served
        second()
        other()
        await asyncio.gather(*waiting)
        assert gates.busy("a") == gates.busy("b") == 0

    asyncio.run(scenario())


def test_a_waiting_call_that_goes_away_keeps_no_place() -> None:
    async def scenario() -> None:
        gates = Gates(1, 10, "from here")
        held = await gates.enter("a", "SubmitMove")
        assert held is not None
        gone = asyncio.create_task(gates.enter("a", "SubmitMove"))
        await asyncio.sleep(0.01)
        gone.cancel()  # its client went away while it waited
        with contextlib.suppress(asyncio.CancelledError):
            await gone
        assert gates.busy("a") == 1
        # A waiter handed the place just as it is cancelled passes it on.
        handed = asyncio.create_task(gates.enter("a", "SubmitMove"))
        after = asyncio.create_task(gates.enter("a", "SubmitMove"))
        await asyncio.sleep(0.01)
        held()
        handed.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await handed
        leave = await asyncio.wait_for(after, 5)
        assert leave is not None and gates.busy("a") == 1
        leave()
        assert gates.busy("a") == 0

    asyncio.run(scenario())


def test_a_call_that_holds_for_other_players_gives_its_places_up() -> None:
    async def scenario() -> None:
        limits = Limits(LimitsConfig(calls_per_address=1, calls_per_seat=1, queued_calls=0))
        seat = [("authorization", "Bearer seat-token")]
        method = "/tricktable.v1.GameService/GetGame"
        place = await limits.in_progress(method, "ipv4:10.0.0.1:1000", seat)
        assert place is not None
        with pytest.raises(LimitExceeded):  # queued_calls=0: refused rather than queued
            await limits.in_progress(method, "ipv4:10.0.0.1:1001", None)
        holding()  # the call now waits for the other players
        again = await limits.in_progress(method, "ipv4:10.0.0.1:1002", seat)
        assert again is not None
        place.leave()  # the held call ends: its places were already given up
        assert (
            limits.address_calls.busy("10.0.0.1")
            == limits.seat_calls.busy(token_hash("seat-token"))
            == 1
        )
        again.leave()
        assert limits.address_calls.busy("10.0.0.1") == 0
        # Streams and other services are not counted here.
        assert await limits.in_progress("/grpc.health.v1.Health/Check", "ipv4:x:1", None) is None

    asyncio.run(scenario())


def test_a_held_call_does_not_hold_its_seat_or_address_place_on_a_real_server() -> None:
    """One place per address and per seat: a GetGame holding for the next version keeps
    neither, so the seat's own move (a GetGame and a SubmitMove) goes through at once and wakes
    it; were the place kept, the move would wait for the hold's 30 seconds."""
    limits = LimitsConfig(calls_per_address=1, calls_per_seat=1)
    with running_server(limits=limits) as (server, client):
        table = client.table("counterpoint")
        seat = next(
            s for s, t in enumerate(table.tokens) if client.get(table.game_id, t).view.legal_moves
        )
        token = table.tokens[seat]
        version = client.get(table.game_id, token).game.version
        with clients(server.address, 1) as (other,), ThreadPoolExecutor(1) as pool:
            hold = pb.GetGameRequest(game_id=table.game_id, after_version=version)
            held = pool.submit(other.stub.GetGame, hold, metadata=auth(token), timeout=60)
            time.sleep(0.5)  # the hold has begun
            assert not held.done()
            mine = client.stub.GetGame(
                pb.GetGameRequest(game_id=table.game_id), metadata=auth(token), timeout=10
            )
            move = pb.SubmitMoveRequest(
                game_id=table.game_id,
                move=mine.view.legal_moves[0],
                expected_version=version,
                request_id="held",
            )
            client.stub.SubmitMove(move, metadata=auth(token), timeout=10)
            assert held.result(timeout=10).game.version == version + 1


def test_calls_past_the_cap_are_refused_when_none_may_wait(redis_url: str) -> None:
    """One place per address, none waiting: of calls racing from one address some are refused
    (TOO_MANY_CALLS with a RetryInfo), the rest answered; with room to wait, all are answered.
    On Redis, where a call awaits the store (the embedded store answers without yielding, so
    its calls never overlap)."""

    async def race(address: str) -> Counter[str]:
        async with grpc.aio.insecure_channel(address) as channel:
            stub = game_service_pb2_grpc.GameServiceStub(channel)

            async def call() -> str:
                try:
                    await stub.ListGames(pb.ListGamesRequest(), timeout=30)
                except grpc.aio.AioRpcError as err:
                    status = rpc_status.from_call(err)
                    assert status is not None
                    assert _retry_delay_s(status.details) > 0
                    return f"{err.code().name} {' '.join(_reasons(status.details))}"
                return "OK"

            return Counter(await asyncio.gather(*(call() for _ in range(100))))

    refusing = LimitsConfig(calls_per_address=1, queued_calls=0)
    with running_server(limits=refusing, redis_url=redis_url) as (server, _):
        outcomes = asyncio.run(race(server.address))
    assert set(outcomes) == {"OK", "RESOURCE_EXHAUSTED TOO_MANY_CALLS"}, outcomes
    waiting = LimitsConfig(calls_per_address=1)
    with running_server(limits=waiting, redis_url=redis_url) as (server, _):
        assert asyncio.run(race(server.address)) == Counter({"OK": 100})


def _retry_delay_s(details: Any) -> float:
    for detail in details:
        retry = error_details_pb2.RetryInfo()
        if detail.Unpack(retry):
            return float(retry.retry_delay.ToNanoseconds()) / 1e9
    return 0.0


# -- what a refusal says about retrying ---------------------------------------------------------


def test_a_refusal_says_to_wait_until_the_bucket_is_full_again() -> None:
    """Its burst of 20 spent at 10 a second, a client is told to wait about 2 seconds (the
    refill), not the 0.1 second until its next token: refused with less than one token left,
    the wait is between 1.9 and 2 seconds however slowly the burst was spent."""
    with running_server(
        limits=LimitsConfig(create_game=Rate(10, 20), open_games=0, rate_wait_s=0)
    ) as (_, c):
        for _ in range(1000):
            try:
                c.create("counterpoint")
            except grpc.RpcError as refusal:
                _refused(refusal, "RATE_LIMITED")
                assert 1.9 < retry_after_s(refusal) <= 2.0
                return
        raise AssertionError("1,000 creates at a rate of 10 a second were never refused")


def test_an_oversized_message_is_refused_without_a_retry_info() -> None:
    """A message past the size limit is as large when sent again: its RESOURCE_EXHAUSTED says
    nothing of retrying, and the Python client gives up at once rather than retry it."""
    from tricktable.client import Client as GameClient
    from tricktable.errors import RateLimited

    with running_server() as (server, client):
        game_id = client.create("counterpoint").game_id
        big = pb.JoinGameRequest(game_id=game_id, player_name="x" * 100_000)
        with pytest.raises(grpc.RpcError) as caught:
            client.stub.JoinGame(big)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        status = rpc_status.from_call(caught.value)
        assert status is None or _retry_delay_s(status.details) == 0.0
        with GameClient(server.address) as sdk:
            started = time.monotonic()
            with pytest.raises(RateLimited) as given_up:
                sdk.join(game_id, player_name="x" * 100_000)
            assert given_up.value.retry_after_s is None and not given_up.value.retryable
            assert time.monotonic() - started < 5
        # Nobody joined.
        assert all(not seat.taken for seat in client.get(game_id).game.seats)
