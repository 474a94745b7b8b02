"""Per-client limits on the web door: the gRPC door's own ``Limits`` (one set of buckets and
stream counts per replica), asked before each Connect or gRPC-Web call with the client's address
and headers; a refusal is RESOURCE_EXHAUSTED with the same ErrorInfo and RetryInfo as natively,
in Connect's error details and gRPC-Web's grpc-status-details-bin. Real sockets throughout."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import httpx
import pytest
from tricktable.v1 import game_service_pb2 as pb

from service.limits import LimitsConfig, Rate
from tests.servers import Served, running_server, store_fields
from tests.web.support import PROTOCOLS, SERVICE, WebClient, WebError, connect_error

RESOURCE_EXHAUSTED = 8
INVALID_ARGUMENT = 3
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
    "limited", [LimitsConfig(create_game=Rate(SLOW, 5), open_games=0, rate_wait_s=0)], indirect=True
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
    "limited", [LimitsConfig(create_game=Rate(SLOW, 3), open_games=0, rate_wait_s=0)], indirect=True
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


@pytest.mark.parametrize(
    "limited", [LimitsConfig(seat_submit_move=Rate(SLOW, 2), rate_wait_s=0)], indirect=True
)
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


@pytest.mark.parametrize(
    "limited", [LimitsConfig(refused_moves=Rate(SLOW, 3), rate_wait_s=0)], indirect=True
)
def test_refused_web_moves_spend_the_addresses_budget_and_played_ones_do_not(
    limited: Served,
) -> None:
    """Issue 25's seat flood, on the web door: moves played there keep the address' budget
    of refused moves whole; moves refused as the client's mistake spend it, from any seat; then
    a move is refused for the budget on both doors (one budget per address)."""
    native, url = limited.client, limited.web_url
    table = native.table("counterpoint")
    web = WebClient(url, "connect-proto")
    try:
        for _ in range(10):  # more than the budget, all played
            token, seen = next(
                (token, seen)
                for token in table.tokens
                if (seen := native.get(table.game_id, token)).view.legal_moves
            )
            move = pb.SubmitMoveRequest(
                game_id=table.game_id,
                move=seen.view.legal_moves[0],
                expected_version=seen.game.version,
                request_id=f"played-{seen.game.version}",
            )
            web.call("SubmitMove", move, pb.SubmitMoveResponse, token)
        empty = pb.SubmitMoveRequest(game_id=table.game_id)
        for number in range(3):
            with pytest.raises(WebError) as bad:
                web.call("SubmitMove", empty, pb.SubmitMoveResponse, table.tokens[number % 2])
            assert bad.value.code == INVALID_ARGUMENT
        with pytest.raises(WebError) as caught:
            web.call("SubmitMove", empty, pb.SubmitMoveResponse, table.tokens[0])
        assert "refused SubmitMove" in _refused(caught, "RATE_LIMITED").message
        token, seen = next(
            (token, seen)
            for token in table.tokens
            if (seen := native.get(table.game_id, token)).view.legal_moves
        )
        with pytest.raises(grpc.RpcError) as natively:  # a legal move, refused for the budget
            native.move(table.game_id, token, seen.view.legal_moves[0], seen.game.version)
        assert natively.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
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


#: The cap of the race test, how far below it the race starts, and how many creates race.
CAP, START_BELOW, RACERS = 50, 5, 200


async def _web_creates(url: str, count: int) -> Counter[str]:
    """``count`` Connect CreateGame calls at once, each on a connection of its own: their
    outcomes by HTTP status, code and ErrorInfo reason."""
    request = pb.CreateGameRequest(game_type="counterpoint").SerializeToString()
    headers = {"content-type": "application/proto", "connect-protocol-version": "1"}
    pool = httpx.Limits(max_connections=count, max_keepalive_connections=count)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=pool) as http:

        async def create() -> str:
            reply = await http.post(f"/{SERVICE}/CreateGame", content=request, headers=headers)
            if reply.status_code == 200:
                pb.CreateGameResponse.FromString(reply.content)
                return "200"
            error = connect_error(reply.json(), reply.status_code, reply.headers)
            reason = "" if error.info is None else error.info.reason
            return f"{reply.status_code} {error.code} {reason}"

        return Counter(await asyncio.gather(*(create() for _ in range(count))))


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_concurrent_web_creates_meet_the_open_games_cap_exactly(
    request: pytest.FixtureRequest, store: str
) -> None:
    """The race that admitted 99-186 games of a cap of 50 (the count checked, the store awaited,
    the game recorded) and answered HTTP 500 (a list of games changed while it was re-read)."""
    limits = LimitsConfig(create_game=Rate(0, 1), open_games=CAP, open_games_recount_s=0)
    with running_server(web_port=0, limits=limits, **store_fields(request, store)) as served:
        games = [served.client.create("counterpoint") for _ in range(CAP - START_BELOW)]
        refused = f"429 {RESOURCE_EXHAUSTED} TOO_MANY_OPEN_GAMES"
        outcomes = asyncio.run(_web_creates(served.web_url, RACERS))
        assert outcomes == Counter({"200": START_BELOW, refused: RACERS - START_BELOW})
        # One fills: exactly one more game, however many race for its place.
        for seat in range(2):
            served.client.stub.JoinGame(pb.JoinGameRequest(game_id=games[0].game_id, seat=seat))
        assert asyncio.run(_web_creates(served.web_url, 50)) == Counter({"200": 1, refused: 49})
        # The native door counts the same games.
        with pytest.raises(grpc.RpcError) as natively:
            served.client.create("counterpoint")
        assert natively.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    "limited", [LimitsConfig(create_game=Rate(10, 20), open_games=0, rate_wait_s=0)], indirect=True
)
def test_a_web_refusal_says_to_wait_until_the_bucket_is_full_again(
    limited: Served, protocol: str
) -> None:
    web = WebClient(limited.web_url, protocol)
    request = pb.CreateGameRequest(game_type="counterpoint")
    try:
        for _ in range(1000):  # the burst of 20, and what comes back meanwhile
            try:
                web.call("CreateGame", request, pb.CreateGameResponse)
            except WebError as refusal:
                error = refusal
                break
        else:
            raise AssertionError("1,000 creates at a rate of 10 a second were never refused")
        assert error.code == RESOURCE_EXHAUSTED and error.retry is not None
        # Refused with less than one token left: 1.9 to 2 seconds until the bucket is full.
        assert 1.9 < error.retry.retry_delay.ToNanoseconds() / 1e9 <= 2.0
    finally:
        web.close()


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("limited", [LimitsConfig()], indirect=True)
def test_an_oversized_web_message_is_refused_without_a_retry_info(
    limited: Served, protocol: str
) -> None:
    game_id = limited.client.create("counterpoint").game_id
    web = WebClient(limited.web_url, protocol)
    try:
        with pytest.raises(WebError) as caught:
            big = pb.JoinGameRequest(game_id=game_id, player_name="x" * 100_000)
            web.call("JoinGame", big, pb.JoinGameResponse)
    finally:
        web.close()
    assert caught.value.code == RESOURCE_EXHAUSTED
    assert caught.value.retry is None
    assert all(not seat.taken for seat in limited.client.get(game_id).game.seats)


@pytest.mark.parametrize(
    "limited", [LimitsConfig(calls_per_address=1, calls_per_seat=1)], indirect=True
)
def test_a_held_web_call_does_not_hold_its_seat_or_address_place(limited: Served) -> None:
    """One place per address and per seat: a GetGame holding for the next version over the web
    keeps neither, so the seat's move goes through at once (were it kept, the move would wait
    the hold's 30 seconds)."""
    native = limited.client
    table = native.table("counterpoint")
    seat = next(
        s for s, t in enumerate(table.tokens) if native.get(table.game_id, t).view.legal_moves
    )
    token = table.tokens[seat]
    version = native.get(table.game_id, token).game.version
    holder, mover = (
        WebClient(limited.web_url, "connect-proto"),
        WebClient(limited.web_url, "grpc-web"),
    )
    try:
        with ThreadPoolExecutor(1) as pool:
            hold = pb.GetGameRequest(game_id=table.game_id, after_version=version)
            held = pool.submit(holder.call, "GetGame", hold, pb.GetGameResponse, token)
            time.sleep(0.5)
            assert not held.done()
            mine = mover.call(
                "GetGame",
                pb.GetGameRequest(game_id=table.game_id),
                pb.GetGameResponse,
                token,
                10_000,
            )
            move = pb.SubmitMoveRequest(
                game_id=table.game_id,
                move=mine.view.legal_moves[0],
                expected_version=version,
                request_id="held",
            )
            mover.call("SubmitMove", move, pb.SubmitMoveResponse, token, 10_000)
            assert held.result(timeout=10).game.version == version + 1
    finally:
        holder.close()
        mover.close()


async def _web_list_games(url: str, count: int) -> Counter[str]:
    """``count`` Connect ListGames calls at once, each on a connection of its own: their
    outcomes by HTTP status, code and ErrorInfo reason (a refusal's RetryInfo checked)."""
    headers = {"content-type": "application/proto", "connect-protocol-version": "1"}
    pool = httpx.Limits(max_connections=count, max_keepalive_connections=count)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=pool) as http:

        async def call() -> str:
            reply = await http.post(f"/{SERVICE}/ListGames", content=b"", headers=headers)
            if reply.status_code == 200:
                return "200"
            error = connect_error(reply.json(), reply.status_code, reply.headers)
            assert error.retry is not None and error.retry.retry_delay.ToNanoseconds() > 0
            reason = "" if error.info is None else error.info.reason
            return f"{reply.status_code} {error.code} {reason}"

        return Counter(await asyncio.gather(*(call() for _ in range(count))))


def test_web_calls_past_the_cap_wait_or_are_refused(redis_url: str) -> None:
    """One place per address: with none waiting, some of 100 racing web calls are refused
    (TOO_MANY_CALLS, HTTP 429), the rest answered; with room to wait, all are answered. On
    Redis, where a call awaits the store and so overlaps the others."""
    refusing = LimitsConfig(calls_per_address=1, queued_calls=0)
    with running_server(web_port=0, limits=refusing, redis_url=redis_url) as served:
        outcomes = asyncio.run(_web_list_games(served.web_url, 100))
    assert set(outcomes) == {"200", f"429 {RESOURCE_EXHAUSTED} TOO_MANY_CALLS"}, outcomes
    waiting = LimitsConfig(calls_per_address=1)
    with running_server(web_port=0, limits=waiting, redis_url=redis_url) as served:
        assert asyncio.run(_web_list_games(served.web_url, 100)) == Counter({"200": 100})


@pytest.mark.parametrize(
    "limited", [LimitsConfig(seat_submit_move=Rate(20, 1), rate_wait_s=30)], indirect=True
)
def test_web_moves_over_the_seats_rate_wait_their_turn_rather_than_fail(limited: Served) -> None:
    """A seat with a burst of 1 and a token every 50 ms: four web moves at once (each refused
    as empty, so nothing changes) all reach the handler; the ones over the rate waited for
    their tokens, in the seat's queue, as over native gRPC."""
    table = limited.client.table("counterpoint")
    request = pb.SubmitMoveRequest(game_id=table.game_id, request_id="paced")

    def move(protocol: str) -> int:
        web = WebClient(limited.web_url, protocol)
        try:
            web.call("SubmitMove", request, pb.SubmitMoveResponse, table.tokens[0])
        except WebError as error:
            return error.code
        finally:
            web.close()
        return 0

    with ThreadPoolExecutor(4) as pool:
        codes = list(pool.map(move, ["connect-proto", "connect-json", "grpc-web", "connect-proto"]))
    assert codes == [INVALID_ARGUMENT] * 4
    assert limited.client.get(table.game_id).game.version == 0


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize(
    "limited", [LimitsConfig(seat_read_calls=Rate(SLOW, 3), rate_wait_s=0)], indirect=True
)
def test_web_reads_are_limited_per_seat_token(limited: Served, protocol: str) -> None:
    """A seat's three reads spend its burst; its fourth is refused with the time until its
    bucket is full again (three tokens at one per 1,000 s), over the web as natively, from one
    budget for both doors; the other seat reads on."""
    native = limited.client
    table = native.table("counterpoint")
    request = pb.GetGameRequest(game_id=table.game_id)
    web = WebClient(limited.web_url, protocol)
    try:
        for _ in range(2):
            web.call("GetGame", request, pb.GetGameResponse, table.tokens[0])
        native.get(table.game_id, table.tokens[0])  # the third, natively
        with pytest.raises(WebError) as caught:
            web.call("GetGame", request, pb.GetGameResponse, table.tokens[0])
        error = _refused(caught, "RATE_LIMITED")
        assert error.retry is not None
        assert 2900 < error.retry.retry_delay.ToNanoseconds() / 1e9 <= 3000
        if protocol != "grpc-web":
            assert error.http_status == 429
        with pytest.raises(grpc.RpcError) as natively:
            native.get(table.game_id, table.tokens[0])
        assert natively.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        seen = web.call("GetGame", request, pb.GetGameResponse, table.tokens[1])
        assert seen.view.viewer == 1
    finally:
        web.close()


@pytest.mark.parametrize(
    "limited", [LimitsConfig(read_calls=Rate(SLOW, 4), rate_wait_s=0)], indirect=True
)
def test_an_addresses_reads_share_one_budget_on_both_doors(limited: Served) -> None:
    native = limited.client
    game_id = native.create("counterpoint").game_id
    web = WebClient(limited.web_url, "connect-proto")
    try:
        web.call("ListGames", pb.ListGamesRequest(), pb.ListGamesResponse)
        web.call("GetGame", pb.GetGameRequest(game_id=game_id), pb.GetGameResponse)
        native.stub.ListGameTypes(pb.ListGameTypesRequest())
        web.call("ListGameTypes", pb.ListGameTypesRequest(), pb.ListGameTypesResponse)
        with pytest.raises(WebError) as caught:
            web.call("ListGames", pb.ListGamesRequest(), pb.ListGamesResponse)
        _refused(caught, "RATE_LIMITED")
        with pytest.raises(grpc.RpcError) as natively:
            native.get(game_id)
        assert natively.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        # Writes have their own buckets.
        web.call("JoinGame", pb.JoinGameRequest(game_id=game_id), pb.JoinGameResponse)
    finally:
        web.close()
