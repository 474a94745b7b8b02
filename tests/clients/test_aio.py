"""The asyncio client against a real server: the same guarantees as the synchronous one (seat
tokens, versions, idempotent retries, stale moves reported, errors with reasons, streams that
survive a dropped connection)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
import grpc.aio
import pytest
from tricktable.aio import AsyncClient, AsyncSeat
from tricktable.client import RetryPolicy, time_control
from tricktable.errors import IllegalMove, NotFound, StaleVersion, Unauthenticated, Unavailable
from tricktable.v1 import game_service_pb2 as pb

from service.running import ServerThread
from tests.clients.proxy import Proxy
from tests.conftest import free_port

T = TypeVar("T")


def _run(server: ServerThread, body: Callable[[AsyncClient], Awaitable[T]]) -> T:
    """``body`` with a client made inside its own event loop (grpc.aio channels belong to one)."""

    async def main() -> T:
        async with AsyncClient(server.address) as client:
            return await body(client)

    return asyncio.run(main())


async def _seats(client: AsyncClient, game_type: str, seed: bytes = b"") -> list[AsyncSeat]:
    game = await client.create(game_type, seed=seed)
    return [await client.join(game.game_id, n, f"p{n}") for n in range(len(game.seats))]


async def _advance(seats: list[AsyncSeat], moves: int, rng: random.Random) -> None:
    for _ in range(moves):
        public = await seats[0].client.get(seats[0].game_id)
        seat = seats[rng.choice(list(public.view.to_act))]
        legal = (await seat.get()).view.legal_moves
        await seat.submit(legal[rng.randrange(len(legal))])


def test_create_join_get_submit_and_list(server: ServerThread) -> None:
    async def body(client: AsyncClient) -> None:
        assert {t.name for t in await client.game_types()} >= {"counterpoint", "sixty-six"}
        game = await client.create("counterpoint", {"target_score": 50}, seed=b"aio")
        assert game.options["target_score"].int_value == 50
        listed = [g.game_id async for g in client.list_games("counterpoint", page_size=1)]
        assert game.game_id in listed
        first = await client.join(game.game_id, player_name="ann")
        second = await client.join(game.game_id, player_name="bob")
        assert (first.seat, second.seat) == (0, 1)
        state = await first.get()
        assert state.game.status == pb.GAME_STATUS_PLAYING and first.version == 0
        assert not state.view.seats[1].HasField("hand")  # the other hand stays hidden
        answer = await first.submit(state.view.legal_moves[0])
        assert answer.version == 1 == first.version
        again = client.seat(game.game_id, 0, first.token)
        assert (await again.get()).view.viewer == 0

    _run(server, body)


def test_errors_carry_the_code_and_the_reason(server: ServerThread) -> None:
    async def body(client: AsyncClient) -> None:
        with pytest.raises(NotFound) as missing:
            await client.get("no-such-game")
        assert missing.value.reason == "GAME_NOT_FOUND"
        a, _ = await _seats(client, "counterpoint", seed=b"errors")
        legal = (await a.get()).view.legal_moves
        with pytest.raises(Unauthenticated):
            await client.submit(a.game_id, "not-a-token", legal[0], 0)
        await a.submit(legal[0])
        with pytest.raises(IllegalMove) as refused:
            await a.submit(legal[0])  # its three cards are laid aside already
        assert refused.value.reason
        assert (await client.get(a.game_id)).game.version == 1  # nothing changed

    _run(server, body)


def test_a_stale_move_is_refreshed_and_reported(server: ServerThread) -> None:
    async def body(client: AsyncClient) -> None:
        a, b = await _seats(client, "counterpoint", seed=b"stale")
        first_a = (await a.get()).view.legal_moves[0]
        first_b = (await b.get()).view.legal_moves[0]
        await b.submit(first_b)  # the game moves on under a's feet
        with pytest.raises(StaleVersion) as stale:
            await a.submit(first_a)
        current = stale.value.current
        assert current is not None and current.game.version == 1 == a.version
        assert stale.value.current_version == 1
        assert (await a.submit(current.view.legal_moves[0])).version == 2

    _run(server, body)


class _LoseFirstAnswer(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """The first SubmitMove reaches the server, its answer is lost on the way back."""

    def __init__(self) -> None:
        self.request_ids: list[str] = []

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        call = await continuation(details, request)
        if details.method.endswith(b"/SubmitMove"):  # grpc.aio gives the method as bytes
            self.request_ids.append(request.request_id)
            if len(self.request_ids) == 1:
                await call  # the server applied it
                raise grpc.aio.AioRpcError(
                    grpc.StatusCode.UNAVAILABLE,
                    grpc.aio.Metadata(),
                    grpc.aio.Metadata(),
                    details="connection lost",
                )
        return call


def test_a_retried_move_reuses_its_request_id_and_applies_once(server: ServerThread) -> None:
    async def main() -> None:
        lossy = _LoseFirstAnswer()
        channel = grpc.aio.insecure_channel(server.address, interceptors=[lossy])
        async with AsyncClient(channel, retry=RetryPolicy(initial_s=0.01)) as client:
            a, _ = await _seats(client, "counterpoint")
            answer = await a.submit((await a.get()).view.legal_moves[0])
            assert len(lossy.request_ids) == 2 and len(set(lossy.request_ids)) == 1
            assert answer.version == 1 and (await client.get(a.game_id)).game.version == 1
        await channel.close()

    asyncio.run(main())


def test_retries_give_up_with_unavailable() -> None:
    async def main() -> None:
        address = f"127.0.0.1:{free_port()}"  # nothing listens there
        retry = RetryPolicy(attempts=2, initial_s=0.01)
        async with AsyncClient(address, timeout_s=0.5, retry=retry) as client:
            with pytest.raises(Unavailable) as down:
                await client.get("any")
        assert down.value.retryable

    asyncio.run(main())


def test_a_stream_resumes_after_a_dropped_connection_without_gaps_or_repeats(
    server: ServerThread,
) -> None:
    async def body(client: AsyncClient) -> list[int]:
        seats = await _seats(client, "counterpoint", seed=b"aio drop")
        rng = random.Random(3)
        await _advance(seats, 4, rng)
        received: list[int] = []
        with Proxy(server.address) as proxy:
            async with AsyncClient(proxy.address, retry=RetryPolicy(initial_s=0.01)) as flaky:
                async for batch in flaky.stream(seats[1].game_id, seats[1].token):
                    received.append(batch.version)
                    if batch.version in (2, 6):
                        proxy.drop()  # the link goes down mid-stream...
                        await _advance(seats, 3, rng)  # ...while the game goes on
                    if batch.version == 9:
                        break
            assert proxy.drops == 2
        return received

    assert _run(server, body) == list(range(10))


def test_a_finished_games_stream_ends_and_its_record_is_given(server: ServerThread) -> None:
    async def body(client: AsyncClient) -> None:
        seats = await _seats(client, "sixty-six", seed=b"aio short")
        rng = random.Random(1)
        with pytest.raises(IllegalMove) as running:
            await client.record(seats[0].game_id)
        assert running.value.reason == "GAME_NOT_FINISHED"
        while not (await client.get(seats[0].game_id)).view.finished:
            await _advance(seats, 1, rng)
        final = (await client.get(seats[0].game_id)).game.version
        versions = [b.version async for b in seats[0].stream()]
        assert versions == list(range(final + 1))
        record = await client.record(seats[0].game_id)
        assert len(record.steps) == final + 1 and record.deals  # the opening, then each move

    _run(server, body)


def test_leaving_frees_the_seat_before_the_start(server: ServerThread) -> None:
    async def body(client: AsyncClient) -> None:
        game = await client.create("counterpoint")
        seat = await client.join(game.game_id)
        left = await seat.leave()
        assert left.status == pb.GAME_STATUS_WAITING
        assert (await client.join(game.game_id)).seat == 0  # open again

    _run(server, body)


def test_the_async_client_creates_clocked_games_and_waits_for_changes(server: ServerThread) -> None:
    async def body(client: AsyncClient) -> None:
        game = await client.create("counterpoint", clock=time_control(0.2), bot_seats={0: "random"})
        assert game.time_control.move_ms == 200 and game.seats[0].bot == "random"
        me = await client.join(game.game_id, 1, "me")
        state = await me.get()
        later = await me.get(after_version=state.game.version)
        assert later.game.version > state.game.version and len(later.view.clocks) == 2

    _run(server, body)
