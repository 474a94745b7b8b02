"""Issue 25's seat flood: one address with many seats, each within its own move rate, sending
moves the game refuses (out of turn, a stale version). Each refusal costs the server as much as
a move played, and a hundred seats' rates added up were more than the process could serve, so
the refusals are budgeted per address (``refused_moves``): a move holds a token of it until it
is answered, and gives it back unless it was refused as the client's mistake. An address whose
moves are played (a tournament's bots) never spends it; one whose moves are refused spends it,
then its moves take their turn at its rate. Deterministic: no token comes back during a test
(the refill is 1,000 s a token), and no test reads the clock."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from tricktable.v1 import moves_pb2

from service.errors import GameNotPlayable, LimitExceeded, StoreUnavailable
from service.limits import Limits, LimitsConfig, Rate, holding
from tests.servers import running_server
from tests.service.support import error_info

#: Refill so slow that a test never sees a token come back (1,000 s a token).
SLOW = 0.001
MOVE = "/tricktable.v1.GameService/SubmitMove"
READ = "/tricktable.v1.GameService/GetGame"


def _seat(number: int) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer seat-{number}")]


def test_refused_moves_spend_the_address_budget_and_played_ones_do_not() -> None:
    async def scenario() -> None:
        limits = Limits(LimitsConfig(refused_moves=Rate(SLOW, 3), rate_wait_s=0))
        # A thousand moves played, on many seats from one address: none spends the budget.
        for number in range(1000):
            place = await limits.enter(MOVE, "ipv4:10.0.0.1:1", _seat(number % 100))
            assert place is not None
            place.settle(None)
            place.leave()
        # Refusals that are not the client's (the store down) or a limit's give it back too.
        for error in (StoreUnavailable("down"), LimitExceeded("slow down", 1.0)):
            place = await limits.enter(MOVE, "ipv4:10.0.0.1:1", _seat(0))
            assert place is not None
            place.settle(error)
            place.leave()
        # Three moves refused by the game, each from a seat of its own (each seat's own rate
        # far from spent): the address' budget is.
        for number in range(3):
            place = await limits.enter(MOVE, "ipv4:10.0.0.1:1", _seat(number))
            assert place is not None
            place.settle(GameNotPlayable("not your turn"))
            place.leave()
        with pytest.raises(LimitExceeded) as refused:
            await limits.enter(MOVE, "ipv4:10.0.0.1:1", _seat(50))
        assert "refused SubmitMove" in refused.value.message
        assert refused.value.retry_after_s > 0
        # Its reads are not moves; another address has a budget of its own.
        assert await limits.enter(READ, "ipv4:10.0.0.1:1", _seat(50)) is not None
        other = await limits.enter(MOVE, "ipv4:10.0.0.2:1", _seat(99))
        assert other is not None

    asyncio.run(scenario())


def test_a_move_that_holds_or_never_runs_keeps_no_token() -> None:
    async def scenario() -> None:
        limits = Limits(LimitsConfig(refused_moves=Rate(SLOW, 1), rate_wait_s=0))
        # A move played that then holds for the other seats (wait_for_turn) gives its token
        # back as it starts to hold; its answer later settles nothing more.
        place = await limits.enter(MOVE, "ipv4:10.0.0.1:1", _seat(0))
        assert place is not None
        holding()
        place.settle(GameNotPlayable("the game ended while it held"))
        place.leave()
        place = await limits.enter(MOVE, "ipv4:10.0.0.1:1", _seat(1))
        assert place is not None  # the one token was back
        place.settle(GameNotPlayable("not your turn"))
        place.leave()
        # The budget spent: a move that waits for its token and is cancelled keeps none.
        limits = Limits(LimitsConfig(refused_moves=Rate(SLOW, 1), rate_wait_s=10_000))
        place = await limits.enter(MOVE, "ipv4:10.0.0.1:1", _seat(0))
        assert place is not None
        place.settle(GameNotPlayable("not your turn"))
        place.leave()
        waiting = asyncio.ensure_future(limits.enter(MOVE, "ipv4:10.0.0.1:1", _seat(1)))
        await asyncio.sleep(0)
        assert not waiting.done()  # in its address' queue, for a token 1,000 s away
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        # Its token given back, the next caller is promised the same one, not one after it.
        _, delay = limits._refused_moves.queue("10.0.0.1", 10_000)
        assert delay == pytest.approx(1 / SLOW)

    asyncio.run(scenario())


def test_a_flood_of_refused_moves_over_the_wire_is_held_to_the_budget() -> None:
    """A table played from one address: every move played keeps the budget whole; then moves
    out of turn and stale ones, from both seats, spend it, and the next is refused as
    RATE_LIMITED though neither seat is near its own rate."""
    limits = LimitsConfig(refused_moves=Rate(SLOW, 4), rate_wait_s=0)
    with running_server(limits=limits) as (_, client):
        table = client.table("counterpoint")
        played = 0
        for _ in range(30):  # the budget is 4: these are all played
            for token in table.tokens:
                mine = client.get(table.game_id, token)
                if mine.view.legal_moves:
                    client.move(table.game_id, token, mine.view.legal_moves[0], mine.game.version)
                    played += 1
                    break
        assert played == 30
        refused = []
        for number in range(4):  # both seats: a stale version, out of turn, an empty move
            token = table.tokens[number % 2]
            mine = client.get(table.game_id, token)
            move = mine.view.legal_moves[0] if mine.view.legal_moves else moves_pb2.Move()
            with pytest.raises(grpc.RpcError) as caught:
                client.move(table.game_id, token, move, 1)
            refused.append(caught.value.code())
        assert grpc.StatusCode.RESOURCE_EXHAUSTED not in refused
        # The next move, a legal one at the right version, waits for a token 1,000 s away:
        # refused at once (no wait allowed here), and the game is not changed.
        token, mine = next(
            (token, seen)
            for token in table.tokens
            if (seen := client.get(table.game_id, token)).view.legal_moves
        )
        with pytest.raises(grpc.RpcError) as caught:
            client.move(table.game_id, token, mine.view.legal_moves[0], mine.game.version)
        assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error_info(caught.value).reason == "RATE_LIMITED"
        assert "refused SubmitMove" in (caught.value.details() or "")
        assert client.get(table.game_id).game.version == mine.game.version


def test_all_of_a_flooding_addresses_places_fit_in_the_rate_wait_by_default() -> None:
    """With the budget spent, every call holding one of its address' places waits for its
    token (none is refused at once and sent again by a flood that ignores RetryInfo), so the
    address' further calls wait in its queue, where they cost nothing."""
    config = LimitsConfig()
    assert config.refused_moves.per_s * config.rate_wait_s >= config.calls_per_address
    assert config.refused_moves.burst >= config.calls_per_address  # a runner's moves in flight
