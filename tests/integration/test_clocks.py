"""Integration with real short clocks (a few hundred ms), on the embedded store and on Redis:
a deserted game of every type moves on by the clock (AUTO_MOVE) or ends (FORFEIT), watched by
a spectator through GetGame's after_version; the records verify and say which moves the clock
made; a move racing its own timeout: exactly one wins; each seat and the spectator receive only
their projection in clocked games too. Timing-sensitive: assertions never bound speed tightly."""

from __future__ import annotations

import dataclasses
import random
import time
import uuid
from typing import Any

import grpc
import pytest
from tricktable.v1 import clocks_pb2
from tricktable.v1 import game_service_pb2 as pb

from engine import game_names, get_rules
from engine.core.events import Event, TimedOut
from engine.core.fields import cards_in
from engine.core.options import options_to_data
from engine.record import Record, timed_out, verify
from service import convert
from service.records import record_from_proto
from tests.integration.test_play import _hidden_from, _stream
from tests.service.support import Client, Table, auth

MOVE_MS = 150


def time_control(
    policy: clocks_pb2.TimeoutPolicy.ValueType, move_ms: int = MOVE_MS, **more: int
) -> clocks_pb2.TimeControl:
    return clocks_pb2.TimeControl(move_ms=move_ms, on_timeout=policy, **more)


def clocked_table(
    client: Client, game: str, tc: clocks_pb2.TimeControl, seed: bytes = b""
) -> Table:
    created = client.stub.CreateGame(
        pb.CreateGameRequest(game_type=game, seed=seed, time_control=tc)
    ).game
    assert created.time_control == tc
    return client.seat_all(created)


def watch_until(client: Client, game_id: str, version: int, limit_s: float = 60) -> Any:
    """A spectator waiting with after_version (no polling) until the game reaches ``version``
    or ends."""
    deadline = time.monotonic() + limit_s
    reply = client.stub.GetGame(pb.GetGameRequest(game_id=game_id))
    while reply.game.version < version and reply.game.status == pb.GAME_STATUS_PLAYING:
        assert time.monotonic() < deadline, f"stuck at version {reply.game.version}"
        seen = reply.game.version
        reply = client.stub.GetGame(
            pb.GetGameRequest(game_id=game_id, after_version=seen), timeout=30
        )
    return reply


def record_of(client: Client, game_id: str) -> Record:
    reply = client.stub.GetGameRecord(pb.GetGameRecordRequest(game_id=game_id))
    return record_from_proto(reply.record)


@pytest.mark.parametrize("game", game_names())
def test_a_deserted_game_moves_on_by_the_clock(client: Client, game: str) -> None:
    table = clocked_table(client, game, time_control(clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE))
    public = client.stub.GetGame(pb.GetGameRequest(game_id=table.game_id))
    running = [c.seat for c in public.view.clocks if c.running]
    assert running == list(public.view.to_act) and len(public.view.clocks) == len(table.tokens)
    assert all(c.deadline_ms > 0 for c in public.view.clocks if c.running)
    reached = watch_until(client, table.game_id, 3)
    assert reached.game.version >= 3
    assert sum(c.timeouts for c in reached.view.clocks) == reached.game.version
    client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
    )
    record = record_of(client, table.game_id)
    verify(record)  # the clock's moves re-play through the rules
    moves = [s for s in record.steps if s.move is not None]
    assert moves and all(timed_out(s) == TimedOut(s.seat or 0, auto_move=True) for s in moves)


@pytest.mark.parametrize("game", game_names())
def test_a_deserted_game_ends_by_forfeit(client: Client, game: str) -> None:
    seed = f"forfeit:{game}".encode()
    table = clocked_table(client, game, time_control(clocks_pb2.TIMEOUT_POLICY_FORFEIT), seed)
    # Who must act first, from the deal: the clock may have ended the game before a read, and
    # an ended game's view has no one to act (issue 25).
    rules = get_rules(game)
    first = rules.to_act(rules.new_game(options_to_data(rules.options({})), seed))
    ended = watch_until(client, table.game_id, 1)
    assert ended.game.status == pb.GAME_STATUS_ABANDONED
    assert ended.game.resigned_seat == min(first)
    record = record_of(client, table.game_id)
    assert verify(record) is None and record.resigned_seat == min(first)
    assert timed_out(record.steps[-1]) == TimedOut(min(first), auto_move=False)
    stream = _stream(client, table.game_id, None, from_version=1)
    (batch,) = list(stream)
    assert batch.resigned_seat == min(first)
    assert convert.event_from_proto(batch.events[0]) == TimedOut(min(first), auto_move=False)


def test_a_bad_time_control_is_refused_naming_the_field(client: Client) -> None:
    for tc, field in (
        (clocks_pb2.TimeControl(move_ms=-1), "time_control.move_ms"),
        (clocks_pb2.TimeControl(move_ms=10), "time_control.move_ms"),
        (clocks_pb2.TimeControl(move_ms=500, bank_ms=-1), "time_control.bank_ms"),
        (clocks_pb2.TimeControl(move_ms=500, increment_ms=-1), "time_control.increment_ms"),
        (clocks_pb2.TimeControl(move_ms=500, on_timeout=9), "time_control.on_timeout"),  # type: ignore[arg-type]
        (
            time_control(clocks_pb2.TIMEOUT_POLICY_FORFEIT, forfeit_after=2),
            "time_control.forfeit_after",
        ),
    ):
        with pytest.raises(grpc.RpcError) as err:
            client.stub.CreateGame(pb.CreateGameRequest(game_type="counterpoint", time_control=tc))
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert field in (err.value.details() or "")


def test_a_move_racing_its_own_timeout_exactly_one_wins(client: Client) -> None:
    outcomes = set()
    for trial in range(8):
        table = clocked_table(
            client, "sixty-six", time_control(clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE, move_ms=300)
        )
        public = client.stub.GetGame(pb.GetGameRequest(game_id=table.game_id))
        (seat,) = public.view.to_act
        mine = client.get(table.game_id, table.tokens[seat])
        deadline_ms = next(c.deadline_ms for c in mine.view.clocks if c.seat == seat)
        # Aim around the deadline: a little before, at, or after it.
        aim = deadline_ms / 1000 + (trial % 4 - 1) * 0.02
        time.sleep(max(0.0, aim - time.time()))
        try:
            client.move(table.game_id, table.tokens[seat], mine.view.legal_moves[0], 0)
            won = "move"
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.ABORTED
            won = "clock"
        outcomes.add(won)
        first = next(iter(_stream(client, table.game_id, None, from_version=1)))
        assert first.version == 1 and first.seat == seat
        by_clock = convert.event_from_proto(first.events[0]) == TimedOut(seat, auto_move=True)
        assert by_clock == (won == "clock"), "the loser's step was written"
        client.stub.LeaveGame(
            pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[seat])
        )
    assert outcomes  # which side wins each trial depends on the machine; each trial has one


@pytest.mark.parametrize("game", game_names())
def test_clocked_games_send_each_viewer_only_its_projection(client: Client, game: str) -> None:
    """Some moves by players, some by the clock: every viewer's stream is the engine's
    projection of the full events, holds no card hidden from it, and its view is the rules'."""
    rules = get_rules(game)
    seed = f"clocked-visibility:{game}".encode()
    table = clocked_table(
        client, game, time_control(clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE, move_ms=200), seed
    )
    rng = random.Random(game)
    for _ in range(6):
        public = client.get(table.game_id)
        if public.game.status != pb.GAME_STATUS_PLAYING:
            break
        if rng.random() < 0.5:  # let the clock move
            watch_until(client, table.game_id, public.game.version + 1)
            continue
        seat = rng.choice(list(public.view.to_act))
        mine = client.get(table.game_id, table.tokens[seat])
        legal = mine.view.legal_moves
        if not legal:
            continue  # the clock moved for it meanwhile
        try:
            client.move(
                table.game_id,
                table.tokens[seat],
                legal[rng.randrange(len(legal))],
                mine.game.version,
                uuid.uuid4().hex,
            )
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.ABORTED  # the clock came first
    watch_until(client, table.game_id, client.get(table.game_id).game.version + 1)
    client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
    )
    record = record_of(client, table.game_id)
    verify(record)
    assert any(timed_out(s) for s in record.steps), "the clock made no move"
    full: list[Event] = [e for s in record.steps for e in s.events]
    last = record.steps[-1].version
    played = [(s.seat, s.move) for s in record.steps if s.move is not None and s.seat is not None]
    final, _ = rules.replay(record.options, seed, played)
    for viewer in (None, *range(rules.seats)):
        token = None if viewer is None else table.tokens[viewer]
        got: list[Event] = []
        for batch in _stream(client, table.game_id, token):
            got.extend(convert.event_from_proto(e) for e in batch.events)
            if batch.version == last:
                break
        assert got == [rules.project(e, viewer) for e in full]
        for sent, original in zip(got, full, strict=True):
            assert not cards_in(sent) & _hidden_from(original, viewer)
        view = convert.view_from_proto(client.get(table.game_id, token).view)
        # The game ended by a resignation (issue 25): over, with no one to act.
        ended = dataclasses.replace(
            rules.view(final, viewer), finished=True, to_act=(), may_act=(), legal_moves=()
        )
        assert view == ended


def test_get_game_shows_each_seats_presence(client: Client) -> None:
    created = client.stub.CreateGame(
        pb.CreateGameRequest(game_type="counterpoint", bot_seats={1: "heuristic"})
    ).game
    token = client.stub.JoinGame(pb.JoinGameRequest(game_id=created.game_id, seat=0)).seat_token
    spectator = client.get(created.game_id)
    assert [(p.seat, p.connected) for p in spectator.view.presence] == [(0, False), (1, True)]
    client.get(created.game_id, token)
    seen = client.get(created.game_id).view.presence
    assert seen[0].connected and seen[0].last_seen_ms > 0
