"""Limits through a real server over real sockets: call rates per address and per seat, open
games per address, open streams per connection and per replica, idle connections. A refusal is
RESOURCE_EXHAUSTED with an ErrorInfo reason and a RetryInfo; what is under a limit works."""

from __future__ import annotations

import argparse
import random
import threading
import time
from collections import Counter
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tricktable.v1 import game_service_pb2 as pb

from service.limits import Buckets, LimitsConfig, Rate, address_of
from tests.servers import running_server
from tests.service.support import Client, auth, error_info, play_random_game


def _retry_after_s(err: Any) -> float:
    status = rpc_status.from_call(err)
    assert status is not None
    for detail in status.details:
        retry = error_details_pb2.RetryInfo()
        if detail.Unpack(retry):
            return float(retry.retry_delay.ToNanoseconds()) / 1e9
    raise AssertionError("no RetryInfo in the status details")


def _refused(err: Any, *reasons: str) -> None:
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, err.details()
    assert error_info(err).reason in reasons
    assert _retry_after_s(err) > 0


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
    with running_server(limits=LimitsConfig(seat_submit_move=Rate(1, 3))) as (_, client):
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
    with running_server(limits=LimitsConfig(open_games=3)) as (_, client):
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
    assert buckets.take("a") == pytest.approx(0.5)
    assert buckets.take("b") == 0.0  # another client has its own bucket
    now[0] = 0.5
    assert buckets.take("a") == 0.0  # one call's worth came back
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
    with running_server(limits=LimitsConfig(create_game=Rate(1, 1))) as (_, client):
        client.create("counterpoint")
        with pytest.raises(grpc.RpcError) as caught:
            client.create("counterpoint")
        assert "127.0.0.1" in (caught.value.details() or "")
        assert _retry_after_s(caught.value) == pytest.approx(1.0, abs=0.5)


def test_the_client_waits_as_the_server_says_and_its_move_goes_through() -> None:
    from tricktable.client import Client as GameClient
    from tricktable.errors import RateLimited

    with running_server(limits=LimitsConfig(submit_move=Rate(1, 1))) as (server, _):
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
