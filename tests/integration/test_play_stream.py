"""The play stream (GameService.Play) against a real server, on the embedded store and on Redis.

Whole games are played by random bots each holding one stream; every seat receives every version
once and in order, exactly the engine's projection of each event for it and the engine's view of
the game for it (so no card it may not see); a refused move is answered with its status and the
stream goes on; a resent request is answered with its first result; a stream resumes from a
version and misses nothing; and a stream that cannot be served ends with the status that says why.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import moves_pb2

from engine import game_names, get_rules
from engine.core.events import event_from_data
from engine.core.fields import cards_in
from engine.core.moves import move_from_data
from service import convert
from service.running import ServerThread
from tests.integration.test_play import _hidden_from
from tests.servers import Served
from tests.service.support import WAIT_FOR_TURN, Client, PlayLine, Table, seat_view

EMPTY = moves_pb2.Move()


def reason_of(error: pb.PlayError) -> error_details_pb2.ErrorInfo:
    for detail in error.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info
    raise AssertionError("no ErrorInfo in the move's error")


@dataclass
class Seen:
    """What one seat's stream delivered."""

    batches: list[pb.StreamEventsResponse] = field(default_factory=list)
    views: list[pb.PlayView] = field(default_factory=list)
    results: list[pb.PlayMoveResult] = field(default_factory=list)
    #: Accepted moves answered in a step without the seat's view.
    answered_without_view: int = 0
    ended: str = ""


def play_seat(line: PlayLine, seat: int, rng: random.Random) -> Seen:
    """A random bot on one stream: moves whenever a view says the seat is to act, until the
    stream ends (the game's end)."""
    seen = Seen()
    pending = False
    try:
        for response in line.call:
            assert response.WhichOneof("kind") == "step"
            step = response.step
            if step.HasField("result"):
                pending = False
                seen.results.append(step.result)
                if step.result.HasField("error"):
                    # Seats that lay cards aside at once may race: another was first.
                    assert step.result.error.code == grpc.StatusCode.ABORTED.value[0]
                elif not step.HasField("view"):
                    seen.answered_without_view += 1
            seen.batches.extend(step.events)
            if step.HasField("view"):
                seen.views.append(step.view)
            latest = seen.views[-1] if seen.views else None
            if latest is None or pending or latest.version < len(seen.batches) - 1:
                continue  # a move unanswered, or a view that is not of the latest version
            view = latest.view
            if seat in view.to_act and view.legal_moves and not view.finished:
                legal = view.legal_moves
                line.move(legal[rng.randrange(len(legal))], latest.version)
                pending = True
        seen.ended = "OK"
    except grpc.RpcError as err:
        seen.ended = err.code().name
    finally:
        line.close()
    return seen


def stored(server: ServerThread, game_id: str) -> tuple[Any, list[Any], list[Any]]:
    """The game's record, its full stored batches and its moves, from the server's store."""
    assert server.server is not None
    store = server.server.store

    async def read() -> tuple[Any, list[Any], list[Any]]:
        return (
            await store.load(game_id),
            await store.read_events(game_id, 0),
            await store.moves(game_id),
        )

    return server.call(read)


def states_by_version(record: Any, moves: list[Any]) -> list[Any]:
    """The engine's state at every version, re-played from the seed."""
    rules = get_rules(record.game_type)
    states = [rules.new_game(record.options, record.seed)]
    for made in moves:
        state, _ = rules.apply(states[-1], made.seat, move_from_data(made.move))
        states.append(state)
    return states


def _options(game: str) -> dict[str, object]:
    if game == "ninety-nine":
        return {"game_length_deals": 2}
    if game == "nominations":
        return {"target_score": 20}
    return {}


@WAIT_FOR_TURN
@pytest.mark.parametrize("game", game_names())
def test_seats_play_whole_games_on_their_streams_and_see_only_their_projection(
    served: Served, game: str, wait_for_turn: bool
) -> None:
    server, client = served
    table = client.table(game, _options(game), seed=f"play stream:{game}".encode())
    lines = [
        PlayLine(client, table.game_id, token, wait_for_turn=wait_for_turn)
        for token in table.tokens
    ]
    seen: list[Seen] = [Seen() for _ in lines]

    def run(seat: int) -> None:
        seen[seat] = play_seat(lines[seat], seat, random.Random(f"{game}:{seat}"))

    threads = [threading.Thread(target=run, args=(s,)) for s in range(len(lines))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    record, batches, moves = stored(server, table.game_id)
    assert record.status == "finished"
    rules = get_rules(game)
    states = states_by_version(record, moves)
    for seat, got in enumerate(seen):
        assert got.ended == "OK"
        # Every version once, in order, each event exactly the engine's projection for the seat.
        assert [b.version for b in got.batches] == list(range(record.version + 1))
        for sent, full in zip(got.batches, batches, strict=True):
            events = [convert.event_from_proto(e) for e in sent.events]
            originals = [event_from_data(e) for e in full.events]
            assert events == [rules.project(e, seat) for e in originals]
            for event, original in zip(events, originals, strict=True):
                assert not cards_in(event) & _hidden_from(original, seat)
        # Each view is the engine's view of the game for this seat at its version.
        assert got.views[0].version <= got.views[-1].version == record.version
        for view in got.views:
            assert convert.view_from_proto(view.view) == rules.view(states[view.version], seat)
        assert got.views[-1].view.finished
        accepted = [r.version for r in got.results if not r.HasField("error")]
        assert sorted(accepted) == [v for v, m in enumerate(moves, 1) if m.seat == seat]
        # With wait_for_turn every accepted move is answered with the seat's next view;
        # without it, a move after which the seat is not to act is answered on its own.
        assert (got.answered_without_view == 0) == wait_for_turn


@pytest.fixture
def table(client: Client) -> Table:
    return client.table("counterpoint", seed=b"play stream errors")


@pytest.fixture
def line(client: Client, table: Table) -> Iterator[PlayLine]:
    opened = PlayLine(client, table.game_id, table.tokens[0])
    yield opened
    opened.close()


def test_a_stream_opens_with_the_events_so_far_and_the_seat_view(
    client: Client, table: Table, line: PlayLine
) -> None:
    opening = line.next()  # one message: the events so far, then the view
    assert [b.version for b in opening.events] == [0] and not opening.HasField("result")
    assert opening.view.version == 0
    assert opening.view.view == seat_view(client.get(table.game_id, table.tokens[0]))


def test_a_refused_move_is_answered_with_its_status_and_the_stream_goes_on(
    client: Client, table: Table, line: PlayLine
) -> None:
    opening, _ = line.until("view")
    legal = opening.view.view.legal_moves
    refusals = {
        line.move(EMPTY, 0): (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_MOVE"),
        line.move(legal[0], 5): (grpc.StatusCode.ABORTED, "STALE_VERSION"),
    }
    for _ in refusals:
        answer, _ = line.until("result")
        code, reason = refusals[answer.result.request_id]
        error = answer.result.error
        assert error.code == code.value[0] and error.message
        info = reason_of(error)
        assert info.reason == reason and info.domain == "tricktable"
        if reason == "STALE_VERSION":
            assert info.metadata["current_version"] == "0"
        assert not answer.events and not answer.HasField("view")
    assert client.get(table.game_id).game.version == 0  # nothing changed
    # The same stream still plays: a legal move is accepted, its events in the same step.
    request_id = line.move(legal[0], 0)
    answer, _ = line.until("result")
    assert answer.result.request_id == request_id and answer.result.version == 1
    assert [(b.version, b.seat) for b in answer.events] == [(1, 0)]
    assert not answer.HasField("view")  # seat 0 has laid its cards aside: not to act
    # So a second lay-aside is refused.
    again = line.move(legal[1], 1)
    answer, _ = line.until("result")
    assert answer.result.request_id == again
    assert answer.result.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert client.get(table.game_id).game.version == 1


def test_a_resent_request_is_answered_with_its_first_result_and_applied_once(
    served: Served, table: Table, line: PlayLine
) -> None:
    server = served[0]
    opening, _ = line.until("view")
    move = opening.view.view.legal_moves[3]
    request_id = uuid.uuid4().hex
    line.move(move, 0, request_id)
    first, _ = line.until("result")
    # Resent (as after a lost answer), even at a version that is no longer current.
    line.move(move, 0, request_id)
    second, _ = line.until("result")
    assert first.result.version == second.result.version == 1
    _, _, moves = stored(server, table.game_id)
    assert len(moves) == 1


def _first_move_on_the_stream(line: PlayLine) -> None:
    """The stream's seat plays its first legal move at version 0 and hears the result."""
    opening, _ = line.until("view")
    line.move(opening.view.view.legal_moves[0], 0)
    line.until("result")


def _other_seat_moves(client: Client, table: Table) -> None:
    client.play_first(table.game_id, table.tokens[1])


def test_other_seats_moves_arrive_as_events_with_the_view_when_to_act(
    client: Client, table: Table, line: PlayLine
) -> None:
    _first_move_on_the_stream(line)
    # Seat 1 lays aside through the unary call: seat 0's stream gets version 2's events, and
    # in the same step its view if the play makes it the leader.
    _other_seat_moves(client, table)
    step, _ = line.until("events")
    assert [(b.version, b.seat) for b in step.events] == [(2, 1)]
    if 0 in client.get(table.game_id).view.to_act:
        assert step.view.version == 2
        assert step.view.view == seat_view(client.get(table.game_id, table.tokens[0]))
    else:
        assert not step.HasField("view")


def test_with_wait_for_turn_a_move_is_answered_with_the_seats_next_turn(
    client: Client, table: Table
) -> None:
    line = PlayLine(client, table.game_id, table.tokens[0], wait_for_turn=True)
    try:
        opening, _ = line.until("view")
        legal = opening.view.view.legal_moves
        # A refused move is answered at once, alone.
        stale = line.move(legal[0], 5)
        refused = line.next()
        assert refused.result.request_id == stale and refused.result.HasField("error")
        assert not refused.events and not refused.HasField("view")
        # Seat 0 lays aside; it is not to act again until seat 1 has moved (and, should seat 1
        # lead the first trick, played to it): until then its answer waits.
        request_id = line.move(legal[0], 0)
        while client.get(table.game_id).game.version < 1:
            time.sleep(0.01)
        while 0 not in client.get(table.game_id).view.to_act:
            _other_seat_moves(client, table)
        version = client.get(table.game_id).game.version
        step = line.next()
        assert step.result.request_id == request_id and step.result.version == 1
        assert [b.version for b in step.events] == list(range(1, version + 1))
        assert step.view.version == version
        assert step.view.view == seat_view(client.get(table.game_id, table.tokens[0]))
    finally:
        line.close()


def test_a_stream_resumes_from_a_version_and_misses_nothing(
    client: Client, table: Table, line: PlayLine
) -> None:
    _first_move_on_the_stream(line)
    line.close()  # gone before hearing of seat 1's move
    _other_seat_moves(client, table)
    resumed = PlayLine(client, table.game_id, table.tokens[0], from_version=2)
    try:
        opened = resumed.next()
        assert [(b.version, b.seat) for b in opened.events] == [(2, 1)]
        assert opened.view.version == 2  # every opening shows the seat its view
    finally:
        resumed.close()


def _opening_fails(client: Client, game_id: str, token: str | None, **open_: Any) -> Any:
    line = PlayLine(client, game_id, token, **open_)
    try:
        with pytest.raises(grpc.RpcError) as caught:
            line.next()
        return caught.value
    finally:
        line.close()


def test_a_stream_that_cannot_be_served_ends_with_the_status_that_says_why(
    client: Client, table: Table
) -> None:
    from tests.service.support import error_info

    cases = [
        (table.game_id, None, grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN"),
        (table.game_id, "not-a-token", grpc.StatusCode.UNAUTHENTICATED, "INVALID_TOKEN"),
        ("no-such-game", table.tokens[0], grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND"),
        ("bad id!", table.tokens[0], grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST"),
    ]
    for game_id, token, code, reason in cases:
        err = _opening_fails(client, game_id, token)
        assert (err.code(), error_info(err).reason) == (code, reason)
    # A table still waiting for players.
    waiting = client.create("counterpoint")
    joined = client.stub.JoinGame(pb.JoinGameRequest(game_id=waiting.game_id, seat=0))
    err = _opening_fails(client, waiting.game_id, joined.seat_token)
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(err).reason == "GAME_NOT_STARTED"


def test_a_start_beyond_the_next_version_is_refused_not_held(client: Client, table: Table) -> None:
    from tests.service.support import error_info

    # The game is at version 0: a stream may start at 1 at the latest, as StreamEvents.
    err = _opening_fails(client, table.game_id, table.tokens[0], from_version=2)
    assert err.code() == grpc.StatusCode.OUT_OF_RANGE
    info = error_info(err)
    assert (info.reason, info.metadata["current_version"]) == ("VERSION_AHEAD", "0")
    # The next version itself is a start: the stream opens and waits for it, with the view.
    line = PlayLine(client, table.game_id, table.tokens[0], from_version=1)
    try:
        opened = line.next()
        assert not opened.events and opened.view.version == 0
    finally:
        line.close()


def test_a_stream_must_open_first_and_only_once(client: Client, table: Table) -> None:
    auth = [("authorization", f"Bearer {table.tokens[0]}")]
    move = pb.PlayRequest(move=pb.PlayMove(move=EMPTY, request_id="r"))
    with pytest.raises(grpc.RpcError) as caught:
        list(client.stub.Play(iter([move]), metadata=auth))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    line = PlayLine(client, table.game_id, table.tokens[0])
    try:
        line.until("view")
        line.send(pb.PlayRequest(open=pb.PlayOpen(game_id=table.game_id)))
        with pytest.raises(grpc.RpcError) as caught:
            while True:
                line.next()
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        line.close()
