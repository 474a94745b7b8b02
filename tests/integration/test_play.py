"""Integration: a real server on a free port, on the embedded store and on a real Redis.

Every game is played to the end by random bots that only know the protocol; two clients race
the same move; a stream disconnects and resumes; and each seat and the spectator receive exactly
the engine's projection for them, which never holds another seat's hidden cards.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import grpc
import pytest
import redis
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import moves_pb2

from engine import game_names, get_rules
from engine.core.events import CardsLaidAside, DealStarted, Event
from engine.core.fields import cards_in
from service import convert
from tests.servers import Served
from tests.service.support import Client, Table, auth, clients, error_info, play_random_game

PASS = moves_pb2.Move(call=moves_pb2.Call(call="pass"))


def _stream(client: Client, game_id: str, token: str | None, from_version: int = 0) -> Any:
    request = pb.StreamEventsRequest(game_id=game_id, from_version=from_version)
    return client.stub.StreamEvents(request, metadata=auth(token))


@pytest.mark.parametrize("game", game_names())
def test_bots_play_a_whole_game_through_grpc(client: Client, game: str) -> None:
    options: dict[str, object] = {}
    if game == "ninety-nine":
        options["game_length_deals"] = 3
    if game == "nominations":
        options["target_score"] = 30
    table = client.table(game, options, seed=f"bots:{game}".encode())
    final = play_random_game(client, table, random.Random(game))
    assert final.game.status == pb.GAME_STATUS_FINISHED
    assert final.view.finished and list(final.view.winners)
    batches = list(_stream(client, table.game_id, None))  # a finished game's stream ends
    assert [b.version for b in batches] == list(range(final.game.version + 1))
    assert batches[-1].events[-1].WhichOneof("kind") == "game_over"
    # a finished game takes no more moves, and says why
    with pytest.raises(grpc.RpcError) as caught:
        client.move(table.game_id, table.tokens[0], PASS, final.game.version)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(caught.value).reason == "GAME_OVER"


def _race(calls: list[Callable[[], object]]) -> list[object]:
    """Run the calls at the same moment from separate threads; each result or RpcError."""
    start = threading.Barrier(len(calls))
    outcomes: list[object] = [None] * len(calls)

    def run(i: int) -> None:
        start.wait()
        try:
            outcomes[i] = calls[i]()
        except grpc.RpcError as err:
            outcomes[i] = err

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    return outcomes


def test_two_clients_racing_the_same_move_exactly_one_wins(
    served: Served,
) -> None:
    server, client = served
    table = client.table("counterpoint")
    with clients(server.address, 2) as racers:
        for _ in range(5):
            public = client.get(table.game_id, table.tokens[0])
            seat = public.view.to_act[0]
            mine = client.get(table.game_id, table.tokens[seat])
            version = mine.game.version
            move = mine.view.legal_moves[0]
            token = table.tokens[seat]
            outcomes = _race([partial(r.move, table.game_id, token, move, version) for r in racers])
            wins = [o for o in outcomes if isinstance(o, pb.SubmitMoveResponse)]
            losses: list[Any] = [o for o in outcomes if isinstance(o, grpc.RpcError)]
            assert len(wins) == 1 and len(losses) == 1
            assert losses[0].code() == grpc.StatusCode.ABORTED
            assert error_info(losses[0]).metadata["current_version"] == str(version + 1)
            assert client.get(table.game_id).game.version == version + 1


def test_players_racing_for_one_seat_exactly_one_gets_it(
    served: Served,
) -> None:
    server, client = served
    game = client.create("ninety-nine")
    request = pb.JoinGameRequest(game_id=game.game_id, seat=1)
    with clients(server.address, 6) as racers:
        outcomes = _race([partial(r.stub.JoinGame, request) for r in racers])
    joined = [o for o in outcomes if isinstance(o, pb.JoinGameResponse)]
    refused: list[Any] = [o for o in outcomes if isinstance(o, grpc.RpcError)]
    assert len(joined) == 1 and len(refused) == 5
    assert {error_info(e).reason for e in refused} == {"SEAT_TAKEN"}
    view = client.get(game.game_id, joined[0].seat_token)
    assert [s.taken for s in view.game.seats] == [False, True, False]


def test_a_stream_that_disconnects_resumes_without_gaps_or_repeats(client: Client) -> None:
    table = client.table("counterpoint", seed=b"resume")
    rng = random.Random(7)
    received: list[int] = []

    def advance(moves: int) -> None:
        for _ in range(moves):
            public = client.get(table.game_id, table.tokens[0])
            seat = rng.choice(list(public.view.to_act))
            mine = client.get(table.game_id, table.tokens[seat])
            legal = mine.view.legal_moves
            client.move(
                table.game_id,
                table.tokens[seat],
                legal[rng.randrange(len(legal))],
                mine.game.version,
            )

    advance(6)
    stream = _stream(client, table.game_id, table.tokens[1])
    for batch in stream:
        received.append(batch.version)
        if batch.version == 3:
            break
    stream.cancel()  # the client goes away in the middle
    advance(5)
    resumed = _stream(client, table.game_id, table.tokens[1], from_version=received[-1] + 1)
    for batch in resumed:
        received.append(batch.version)
        if batch.version == 11:
            break
    resumed.cancel()
    assert received == list(range(12))


def test_idle_streams_hold_no_store_connection_each_and_all_see_the_next_move(
    served: Served, store_kind: str, request: pytest.FixtureRequest
) -> None:
    """Open streams wait for a commit the way turn waiters do: with Redis, woken by the
    replica's one subscription rather than a blocking read per stream, so many spectators do
    not cost a Redis connection each."""
    client = served[1]
    table = client.table("counterpoint", seed=b"idle streams")
    on_redis = store_kind == "redis"
    inspector = redis.Redis.from_url(request.getfixturevalue("redis_url")) if on_redis else None

    def redis_clients() -> int:
        assert inspector is not None
        return int(inspector.info("clients")["connected_clients"])

    before = redis_clients() if on_redis else 0
    streams = [_stream(client, table.game_id, None) for _ in range(12)]
    try:
        assert [next(s).version for s in streams] == [0] * 12  # each now waits for version 1
        time.sleep(0.3)
        if on_redis:
            # One connection per waiting stream would add twelve; the replica's subscription
            # (and a pooled connection or two) may be new.
            assert redis_clients() - before < 6
        client.play_first(table.game_id, table.tokens[0], 0)
        assert [next(s).version for s in streams] == [1] * 12
    finally:
        for s in streams:
            s.cancel()
        if inspector is not None:
            inspector.close()


def _recorded_playout(
    client: Client, table: Table, rng: random.Random, moves: int
) -> list[tuple[int, Any]]:
    played: list[tuple[int, Any]] = []
    for _ in range(moves):
        public = client.get(table.game_id, table.tokens[0])
        if public.view.finished:
            break
        seat = rng.choice(list(public.view.to_act))
        mine = client.get(table.game_id, table.tokens[seat])
        legal = mine.view.legal_moves
        move = legal[rng.randrange(len(legal))]
        client.move(table.game_id, table.tokens[seat], move, mine.game.version)
        played.append((seat, convert.move_from_proto(move)))
    return played


def _hidden_from(event: Event, viewer: int | None) -> set[int]:
    """Cards of an event the viewer may not see: other seats' dealt hands and bid cards."""
    if isinstance(event, DealStarted):
        return {c for seat, h in enumerate(event.hands) if seat != viewer for c in h or ()}
    if isinstance(event, CardsLaidAside) and event.seat != viewer:
        return set(event.cards or ())
    return set()


@pytest.mark.parametrize("game", game_names())
def test_each_seat_and_the_spectator_receive_only_their_projection(
    client: Client, game: str
) -> None:
    rules = get_rules(game)
    seed = f"visibility:{game}".encode()
    table = client.table(game, seed=seed)
    played = _recorded_playout(client, table, random.Random(game), 60)
    version = client.get(table.game_id).game.version
    state = rules.new_game(dict(client.get(table.game_id).game.options and {}), seed)
    _ = state
    options = {
        k: convert.option_value_from_proto(v)
        for k, v in client.get(table.game_id).game.options.items()
    }
    final, full = rules.replay(options, seed, played)
    for viewer in (None, *range(rules.seats)):
        token = None if viewer is None else table.tokens[viewer]
        got: list[Event] = []
        stream = _stream(client, table.game_id, token)
        for batch in stream:
            got.extend(convert.event_from_proto(e) for e in batch.events)
            if batch.version == version:
                break
        stream.cancel()
        assert got == [rules.project(e, viewer) for e in full]
        for sent, original in zip(got, full, strict=True):
            assert not cards_in(sent) & _hidden_from(original, viewer)
        view = convert.view_from_proto(client.get(table.game_id, token).view)
        assert view == rules.view(final, viewer)
