"""Timeouts at the service level with an injected clock (no sleeping): a sweep fires a clock
that ran out once, through a compare-and-set commit; AUTO_MOVE plays the documented move,
FORFEIT and forfeit_after abandon the game; a move racing its timeout: exactly one wins; the
record says which moves the clock made and verifies."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import pytest

from engine import get_rules
from engine.core.events import TimedOut
from engine.core.moves import move_to_data
from engine.record import timed_out, verify
from service.clocks import FORFEIT, TimeControl
from service.errors import VersionConflict
from service.game_service import GameService
from service.scheduler import Scheduler
from service.store.base import ABANDONED, ACTIVE
from service.store.memory import MemoryStore
from service.turns import auto_move
from tests.service.games import FakeClock, seated

Body = Callable[[GameService, Scheduler, FakeClock], Awaitable[None]]


def run(body: Body) -> None:
    async def main() -> None:
        clock = FakeClock()
        games = GameService(MemoryStore(), clock=clock, stream_wait_s=0.05)
        await body(games, Scheduler(games, clock=clock), clock)

    asyncio.run(main())


async def clocked(games: GameService, game_type: str, tc: TimeControl) -> tuple[str, list[str]]:
    return await seated(games, game_type, seed=b"timeouts", time_control=tc)


def test_clocks_start_when_the_table_fills_and_are_shown_to_everyone() -> None:
    async def body(games: GameService, sweeper: Scheduler, clock: FakeClock) -> None:
        tc = TimeControl(move_ms=1000, bank_ms=2000)
        record = await games.create_game("counterpoint", {}, b"x", time_control=tc)
        assert record.timing is None and all(not c.running for c in games.clocks(record))
        await games.join_game(record.game_id, 0, "a")
        clock.now += 100
        assert not await sweeper.sweep() and (await games.store.load(record.game_id)).version == 0
        await games.join_game(record.game_id, 1, "b")
        record, view = await games.get_game(record.game_id, None)
        running = [c for c in games.clocks(record) if c.running]
        assert [c.seat for c in running] == list(view.to_act)
        assert running[0].deadline_ms == int(clock.now * 1000) + 3000

    run(body)


def test_a_clock_that_runs_out_auto_moves_once_by_the_documented_policy() -> None:
    async def body(games: GameService, sweeper: Scheduler, clock: FakeClock) -> None:
        game_id, _ = await clocked(games, "counterpoint", TimeControl(move_ms=500, bank_ms=500))
        record, public = await games.get_game(game_id, None)
        assert public.to_act == (0, 1)  # both lay aside at once: the lowest seat's clock first
        seat = 0
        rules = get_rules("counterpoint")
        _, state = await games._state(record)
        expected = auto_move(rules, state, seat, record.seed, 1)
        assert expected in rules.legal_moves(state, seat)
        clock.now += 0.999
        await sweeper.sweep()
        assert (await games.store.load(game_id)).version == 0  # not yet
        clock.now += 0.001
        await sweeper.sweep()
        await sweeper.sweep()  # seat 1's clock ran out at the same time: fired next
        record = await games.store.load(game_id)
        assert record.version == 2 and sweeper.fired == 2
        await sweeper.sweep()
        assert (await games.store.load(game_id)).version == 2  # each timeout fires once
        batches = await games.store.read_events(game_id, 1)
        assert [(b.seat, b.events[0]) for b in batches] == [
            (n, {"type": "timed_out", "seat": n, "auto_move": True}) for n in (0, 1)
        ]
        made = await games.store.moves(game_id)
        assert made[0].seat == seat and made[0].move == move_to_data(expected)
        seen = {c.seat: c for c in games.clocks(record)}
        assert seen[seat].timeouts == 1 and seen[seat].bank_ms_left == 0
        assert seen[1].timeouts == 1

    run(body)


@pytest.mark.parametrize("policy", ["forfeit", "forfeit_after"])
def test_forfeit_abandons_the_game_with_the_seat_as_loser(policy: str) -> None:
    async def body(games: GameService, sweeper: Scheduler, clock: FakeClock) -> None:
        tc = (
            TimeControl(move_ms=100, on_timeout=FORFEIT)
            if policy == "forfeit"
            else TimeControl(move_ms=100, forfeit_after=2)
        )
        game_id, _ = await clocked(games, "sixty-six", tc)
        timeouts = 0
        while (record := await games.store.load(game_id)).status == ACTIVE:
            clock.now += 0.1
            await sweeper.sweep()
            timeouts += 1
            assert timeouts < 20
        assert record.status == ABANDONED and record.resigned_seat is not None
        last = (await games.store.read_events(game_id, record.version))[0]
        assert last.resigned_seat == record.resigned_seat
        assert last.events == ({"type": "timed_out", "seat": last.seat, "auto_move": False},)
        _, full = await games.game_record(game_id)
        assert verify(full) is None and full.resigned_seat == record.resigned_seat
        assert isinstance(timed_out(full.steps[-1]), TimedOut)
        if policy == "forfeit_after":
            # The forfeiting seat timed out once before (auto-moved), then forfeited.
            by_clock = [s for s in full.steps if timed_out(s) is not None]
            loser = [s for s in by_clock if s.seat == record.resigned_seat]
            assert len(loser) == 2 and loser[0].move is not None and loser[1].move is None

    run(body)


def test_a_deserted_game_is_played_to_its_end_by_the_clock_and_its_record_verifies() -> None:
    async def body(games: GameService, sweeper: Scheduler, clock: FakeClock) -> None:
        game_id, _ = await clocked(games, "counterpoint", TimeControl(move_ms=100))
        for _ in range(5000):
            record = await games.store.load(game_id)
            if record.status != ACTIVE:
                break
            clock.now += 0.1
            await sweeper.sweep()
        assert record.status == "finished"
        _, full = await games.game_record(game_id)
        outcome = verify(full)
        assert outcome is not None and outcome == full.outcome
        assert all(timed_out(s) for s in full.steps[1:])

    run(body)


def test_a_move_racing_its_timeout_exactly_one_wins() -> None:
    async def body(games: GameService, sweeper: Scheduler, clock: FakeClock) -> None:
        for first in ("move", "clock"):
            game_id, tokens = await clocked(games, "sixty-six", TimeControl(move_ms=100))
            record, public = await games.get_game(game_id, None)
            (seat,) = public.to_act  # the one clock running
            _, mine = await games.get_game(game_id, tokens[seat])
            clock.now += 0.2  # past the deadline, not yet fired
            move = games.submit_move(
                game_id,
                tokens[seat],
                mine.legal_moves[0],
                expected_version=0,
                request_id=uuid.uuid4().hex,
            )
            if first == "move":
                await move
                assert await games.fire_due(game_id) is None  # the clock lost
            else:
                assert await games.fire_due(game_id) is not None
                with pytest.raises(VersionConflict):
                    await move
            record = await games.store.load(game_id)
            assert record.version == 1
            (batch,) = await games.store.read_events(game_id, 1)
            assert (batch.events[0]["type"] == "timed_out") == (first == "clock")

    run(body)


def test_a_resignation_stops_every_clock() -> None:
    async def body(games: GameService, sweeper: Scheduler, clock: FakeClock) -> None:
        game_id, tokens = await clocked(games, "counterpoint", TimeControl(move_ms=100))
        await games.leave_game(game_id, tokens[0])
        record = await games.store.load(game_id)
        assert record.timing is not None and record.timing.deadline_ms is None
        clock.now += 10
        await sweeper.sweep()
        assert (await games.store.load(game_id)).version == record.version

    run(body)


def test_an_optional_move_starts_no_clock() -> None:
    async def body(games: GameService, sweeper: Scheduler, clock: FakeClock) -> None:
        tc = TimeControl(move_ms=1000)
        record = await games.create_game("sixty-six", {"preset": "gamefarm"}, b"o", time_control=tc)
        for seat in (0, 1):
            await games.join_game(record.game_id, seat, f"p{seat}")
        record, public = await games.get_game(record.game_id, None)
        (leader,) = public.to_act
        running = {c.seat for c in games.clocks(record) if c.running}
        assert running == {leader} and set(public.may_act) == {0, 1}

    run(body)
