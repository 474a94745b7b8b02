"""The address' budget of refused moves (``refused_moves``) on the play stream: a move sent on a
stream takes a token as SubmitMove does and gives it back unless the game refused it as the
client's mistake, so a hundred streams from one address flooding refused moves are bounded per
address, not only per seat; played moves on streams never spend it; and SubmitMove and the
streams' moves share the one budget. Deterministic: no token comes back during a test (the
refill is 1,000 s a token), moves are never let wait for one (``rate_wait_s=0``: refused at
once), and no test reads the clock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc
import pytest
from google.rpc import error_details_pb2
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import moves_pb2

from service.errors import GameNotPlayable, LimitExceeded, StoreUnavailable
from service.game_service import GameService
from service.limits import Limits, LimitsConfig, Rate
from service.play import Incoming, MoveAsk, PlaySession
from service.store.memory import MemoryStore
from tests.servers import running_server
from tests.service.games import seated
from tests.service.support import Client, PlayLine, Table, auth, error_info

#: Refill so slow that a test never sees a token come back (1,000 s a token).
SLOW = 0.001
EMPTY = moves_pb2.Move()
PEER = "ipv4:10.0.0.1:1"


def _seat(number: int) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer seat-{number}")]


def _reason(error: pb.PlayError) -> str:
    for detail in error.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return ""


def _to_act(client: Client, table: Table) -> tuple[int, pb.GetGameResponse]:
    """The seat with a legal move, and its GetGame."""
    return next(
        (seat, mine)
        for seat, token in enumerate(table.tokens)
        if (mine := client.get(table.game_id, token)).view.legal_moves
    )


def _play_on_streams(client: Client, table: Table, lines: list[PlayLine], moves: int) -> None:
    """``moves`` legal moves, each on the stream of the seat to act, each accepted."""
    for _ in range(moves):
        seat, mine = _to_act(client, table)
        sent = lines[seat].move(mine.view.legal_moves[0], mine.game.version)
        answer, _ = lines[seat].until("result")
        assert answer.result.request_id == sent
        assert answer.result.WhichOneof("outcome") == "version", answer.result.error.message


def _refused_on_stream(line: PlayLine, move: moves_pb2.Move, version: int) -> pb.PlayError:
    sent = line.move(move, version)
    answer, _ = line.until("result")
    assert answer.result.request_id == sent
    assert answer.result.WhichOneof("outcome") == "error"
    return answer.result.error


def _open(client: Client, table: Table) -> list[PlayLine]:
    lines = [PlayLine(client, table.game_id, token) for token in table.tokens]
    for line in lines:
        line.until("view")
    return lines


def test_a_play_streams_move_settles_its_token_as_a_submit_move_does() -> None:
    """``Limits.move`` takes the move's token and gives its settle: a move played, one refused
    by the server or a limit, or one that never ran (cancelled in its wait) gives it back; one
    refused as the client's mistake keeps it. The same decision as SubmitMove's."""

    async def scenario() -> None:
        limits = Limits(LimitsConfig(refused_moves=Rate(SLOW, 2), rate_wait_s=0))
        for number in range(500):  # played, from many seats of one address
            settle = await limits.move(PEER, _seat(number % 50))
            assert settle is not None
            settle(None)
        settle = await limits.move(PEER, _seat(0))
        assert settle is not None
        settle(StoreUnavailable("down"))  # not the client's mistake
        settle = await limits.move(PEER, _seat(0))
        assert settle is not None
        settle(GameNotPlayable("not your turn"))
        settle(None)  # settled once: a later call changes nothing
        # A SubmitMove refused as the client's mistake spends the same budget.
        place = await limits.enter("/tricktable.v1.GameService/SubmitMove", PEER, _seat(1))
        assert place is not None
        place.settle(GameNotPlayable("not your turn"))
        place.leave()
        with pytest.raises(LimitExceeded) as refused:
            await limits.move(PEER, _seat(2))
        assert "refused SubmitMove" in refused.value.message
        # A move waiting for its token that is cancelled (the stream ended) keeps none.
        waiting_limits = Limits(LimitsConfig(refused_moves=Rate(SLOW, 1), rate_wait_s=10_000))
        settle = await waiting_limits.move(PEER, _seat(0))
        assert settle is not None
        settle(GameNotPlayable("not your turn"))
        waiting = asyncio.ensure_future(waiting_limits.move(PEER, _seat(1)))
        await asyncio.sleep(0)
        assert not waiting.done()  # in its address' queue, for a token 1,000 s away
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        _, delay = waiting_limits._refused_moves.queue("10.0.0.1", 10_000)
        assert delay == pytest.approx(1 / SLOW)  # the next is promised the same token

    asyncio.run(scenario())


def _never_read() -> MoveAsk:
    raise AssertionError("a move left in the inbox of a session that ended is never read")


def test_moves_a_stream_never_answered_keep_no_token() -> None:
    """A session that ends (the client went away) with moves still in its inbox, admitted but
    never run: each gives its token back. The moves arrive while the session waits for its
    opening step to be taken, and the stream is closed before it takes them."""

    async def scenario() -> None:
        limits = Limits(LimitsConfig(refused_moves=Rate(SLOW, 3), rate_wait_s=0))
        games = GameService(MemoryStore())
        game_id, tokens = await seated(games)
        all_in = asyncio.Event()

        async def three_moves() -> AsyncIterator[Incoming]:
            for number in range(3):
                settle = await limits.move(PEER, _seat(0))
                assert settle is not None
                yield f"m{number}", _never_read, settle
            all_in.set()
            await asyncio.Event().wait()  # sends no more

        steps = PlaySession(games, game_id, tokens[0], 1).items(three_moves())
        opening = await anext(steps)
        assert opening.view is not None
        await all_in.wait()  # the three are in the inbox: the budget is spent while they wait
        with pytest.raises(LimitExceeded):
            await limits.move(PEER, _seat(1))
        await steps.aclose()  # type: ignore[attr-defined]
        for _ in range(3):  # given back, none answered
            settle = await limits.move(PEER, _seat(1))
            assert settle is not None
            settle(GameNotPlayable("not your turn"))
        with pytest.raises(LimitExceeded):
            await limits.move(PEER, _seat(1))
        assert (await games.get_game(game_id, tokens[0]))[0].version == 0

    asyncio.run(scenario())


def test_refused_moves_on_play_streams_spend_the_address_budget() -> None:
    """Two games from one address, a stream per seat (four streams): thirty moves played on
    them keep a budget of 4 whole; then four moves refused by the games (stale, out of turn,
    empty), spread over the four streams, spend it, and the next move on any stream of the
    address, a legal one at the right version, is answered RATE_LIMITED (a RetryInfo, the
    stream going on) without touching the game; so is the address' next SubmitMove."""
    limits = LimitsConfig(refused_moves=Rate(SLOW, 4), rate_wait_s=0)
    with running_server(limits=limits) as (_, client):
        tables = [client.table("counterpoint") for _ in range(2)]
        lines = [_open(client, table) for table in tables]
        try:
            for table, table_lines in zip(tables, lines, strict=True):
                _play_on_streams(client, table, table_lines, 15)
            for number in range(4):
                table, table_lines = tables[number % 2], lines[number % 2]
                seat = number // 2
                mine = client.get(table.game_id, table.tokens[seat])
                move = mine.view.legal_moves[0] if mine.view.legal_moves else EMPTY
                error = _refused_on_stream(table_lines[seat], move, 1)  # version 1: stale
                assert error.code != grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], error.message
            for table, table_lines in zip(tables, lines, strict=True):
                seat, mine = _to_act(client, table)
                error = _refused_on_stream(
                    table_lines[seat], mine.view.legal_moves[0], mine.game.version
                )
                assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
                assert _reason(error) == "RATE_LIMITED"
                assert "refused SubmitMove" in error.message
                assert client.get(table.game_id).game.version == mine.game.version
            table = tables[0]
            seat, mine = _to_act(client, table)
            with pytest.raises(grpc.RpcError) as caught:
                client.move(
                    table.game_id, table.tokens[seat], mine.view.legal_moves[0], mine.game.version
                )
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error_info(caught.value).reason == "RATE_LIMITED"
        finally:
            for table_lines in lines:
                for line in table_lines:
                    line.close()


def test_submit_move_and_stream_moves_share_one_budget() -> None:
    """Refusals by SubmitMove and on a stream add up: two of each spend a budget of 4, though
    neither way alone reached it; played moves both ways in between spend nothing; then a legal
    move is refused RATE_LIMITED both ways."""
    limits = LimitsConfig(refused_moves=Rate(SLOW, 4), rate_wait_s=0)
    with running_server(limits=limits) as (_, client):
        table = client.table("counterpoint")
        lines = _open(client, table)
        try:
            for round_ in range(2):
                _play_on_streams(client, table, lines, 5)
                for _ in range(5):  # played by SubmitMove
                    seat, mine = _to_act(client, table)
                    client.move(
                        table.game_id,
                        table.tokens[seat],
                        mine.view.legal_moves[0],
                        mine.game.version,
                    )
                with pytest.raises(grpc.RpcError) as refused:  # stale: the client's mistake
                    client.stub.SubmitMove(
                        pb.SubmitMoveRequest(
                            game_id=table.game_id,
                            move=EMPTY,
                            expected_version=1,
                            request_id=f"stale-{round_}",
                        ),
                        metadata=auth(table.tokens[round_]),
                    )
                assert refused.value.code() != grpc.StatusCode.RESOURCE_EXHAUSTED
                error = _refused_on_stream(lines[round_], EMPTY, 1)
                assert error.code != grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], error.message
            seat, mine = _to_act(client, table)
            error = _refused_on_stream(lines[seat], mine.view.legal_moves[0], mine.game.version)
            assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
            assert _reason(error) == "RATE_LIMITED"
            with pytest.raises(grpc.RpcError) as caught:
                client.move(
                    table.game_id, table.tokens[seat], mine.view.legal_moves[0], mine.game.version
                )
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert error_info(caught.value).reason == "RATE_LIMITED"
            assert client.get(table.game_id).game.version == mine.game.version
        finally:
            for line in lines:
                line.close()
