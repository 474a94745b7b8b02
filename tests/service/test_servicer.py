"""The servicer over MemoryStore, through a real server in this process: lobby, seats, views,
idempotent moves, leaving, the seed's secrecy, snapshot repair, health and reflection."""

from __future__ import annotations

import dataclasses
import gc
import hashlib

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from tricktable.v1 import game_service_pb2 as pb

from engine import game_names, get_rules
from service.server import GC_GEN0_THRESHOLD, tune_runtime
from service.store.memory import MemoryStore
from tests.servers import Served
from tests.service.support import Client, auth


def test_list_game_types_publishes_every_game_with_seats_and_option_defaults(
    client: Client,
) -> None:
    types = {t.name: t for t in client.stub.ListGameTypes(pb.ListGameTypesRequest()).game_types}
    assert set(types) == set(game_names())
    for name, published in types.items():
        game_type = get_rules(name).game_type()
        assert published.seats == game_type.seats
        assert {o.name for o in published.options} == {o.name for o in game_type.options}
        assert list(published.move_kinds) == list(game_type.move_kinds)
    edition = next(o for o in types["ninety-nine"].options if o.name == "edition")
    assert edition.default_value.string_value == "classic"
    assert list(edition.choices) == ["classic", "revised"]


def test_a_new_game_waits_in_the_lobby_until_its_seats_are_taken(client: Client) -> None:
    game = client.create("counterpoint", {"target_score": 50})
    assert game.status == pb.GAME_STATUS_WAITING
    assert game.options["target_score"].int_value == 50
    assert game.options["tie_rule"].string_value == "draw"  # defaults filled in
    lobby = client.stub.ListGames(pb.ListGamesRequest(game_type="counterpoint", page_size=100))
    assert game.game_id in [g.game_id for g in lobby.games]
    first = client.stub.JoinGame(pb.JoinGameRequest(game_id=game.game_id, player_name="ann"))
    second = client.stub.JoinGame(pb.JoinGameRequest(game_id=game.game_id, player_name="bob"))
    assert (first.seat, second.seat) == (0, 1)
    assert first.seat_token != second.seat_token
    assert second.game.status == pb.GAME_STATUS_PLAYING
    assert [s.player_name for s in second.game.seats] == ["ann", "bob"]
    lobby = client.stub.ListGames(pb.ListGamesRequest(game_type="counterpoint", page_size=100))
    assert game.game_id not in [g.game_id for g in lobby.games]


def test_the_lobby_filters_by_game_and_pages(client: Client) -> None:
    ids = [client.create("ninety-nine").game_id for _ in range(5)]
    seen: list[str] = []
    token = ""
    while True:
        page = client.stub.ListGames(
            pb.ListGamesRequest(game_type="ninety-nine", page_size=2, page_token=token)
        )
        assert len(page.games) <= 2
        assert all(g.game_type == "ninety-nine" for g in page.games)
        seen += [g.game_id for g in page.games]
        token = page.next_page_token
        if not token:
            break
    assert set(ids) <= set(seen)
    assert len(seen) == len(set(seen))


def test_a_seat_sees_its_own_hand_and_a_spectator_sees_none(client: Client) -> None:
    table = client.table("ninety-nine")
    spectator = client.get(table.game_id).view
    assert not spectator.HasField("viewer")
    assert not spectator.legal_moves
    assert not any(s.HasField("hand") for s in spectator.seats)
    for seat, token in enumerate(table.tokens):
        view = client.get(table.game_id, token).view
        assert view.viewer == seat
        assert [s.HasField("hand") for s in view.seats] == [s == seat for s in range(3)]
        assert len(view.seats[seat].hand.cards) == 12
        assert len(view.legal_moves) == 220  # 12 choose 3 ways to lay the bid aside


def test_a_retried_request_returns_the_first_result_and_applies_once(client: Client) -> None:
    table = client.table("counterpoint")
    move = client.get(table.game_id, table.tokens[0]).view.legal_moves[7]
    first = client.move(table.game_id, table.tokens[0], move, 0, request_id="retry-me")
    again = client.move(table.game_id, table.tokens[0], move, 0, request_id="retry-me")
    assert first.version == again.version == 1
    assert list(first.events) == list(again.events)
    assert client.get(table.game_id).game.version == 1


def test_a_move_returns_the_movers_events_and_view(client: Client) -> None:
    table = client.table("counterpoint")
    move = client.get(table.game_id, table.tokens[1]).view.legal_moves[0]
    result = client.move(table.game_id, table.tokens[1], move, 0)
    assert result.view.viewer == 1
    laid = result.events[0].cards_laid_aside
    assert (laid.seat, list(laid.cards.cards)) == (1, list(move.lay_aside.cards))
    assert list(result.view.seats[1].aside.cards) == list(move.lay_aside.cards)
    assert list(result.view.to_act) == [0]


def test_a_seat_sees_no_card_until_every_seat_is_taken(client: Client) -> None:
    """Else a player could take a seat, look, leave and take another: seat-hopping."""
    game = client.create("counterpoint")
    first = client.stub.JoinGame(pb.JoinGameRequest(game_id=game.game_id, seat=0))
    waiting = client.get(game.game_id, first.seat_token).view
    assert not waiting.HasField("viewer") and not waiting.legal_moves
    assert not any(s.HasField("hand") for s in waiting.seats)
    opening = next(
        iter(
            client.stub.StreamEvents(
                pb.StreamEventsRequest(game_id=game.game_id), metadata=auth(first.seat_token)
            )
        )
    )
    assert not any(h.visible for h in opening.events[0].deal_started.hands)
    client.stub.JoinGame(pb.JoinGameRequest(game_id=game.game_id, seat=1))
    seated = client.get(game.game_id, first.seat_token).view
    assert seated.viewer == 0 and len(seated.seats[0].hand.cards) == 16


def test_leaving_before_the_start_frees_the_seat_and_voids_the_token(client: Client) -> None:
    game = client.create("counterpoint")
    joined = client.stub.JoinGame(pb.JoinGameRequest(game_id=game.game_id, seat=1))
    left = client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=game.game_id), metadata=auth(joined.seat_token)
    )
    assert left.game.status == pb.GAME_STATUS_WAITING
    assert not left.game.seats[1].taken
    with pytest.raises(grpc.RpcError) as caught:
        client.get(game.game_id, joined.seat_token)
    assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
    again = client.stub.JoinGame(pb.JoinGameRequest(game_id=game.game_id, seat=1))
    assert again.seat == 1


def test_resigning_abandons_the_game_and_ends_its_stream(client: Client) -> None:
    table = client.table("counterpoint")
    left = client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[0])
    )
    assert left.game.status == pb.GAME_STATUS_ABANDONED
    assert left.game.resigned_seat == 0
    batches = list(client.stub.StreamEvents(pb.StreamEventsRequest(game_id=table.game_id)))
    assert [b.version for b in batches] == [0, 1]
    assert batches[-1].resigned_seat == 0


def test_the_seed_never_leaves_the_server(served: Served) -> None:
    server, client = served
    seed = b"tournament-seed-0042"
    table = client.table("ninety-nine", seed=seed)
    payloads = [client.stub.ListGames(pb.ListGamesRequest()).SerializeToString()]
    for _ in range(6):
        public = client.get(table.game_id, table.tokens[0])
        seat = public.view.to_act[0]
        mine = client.get(table.game_id, table.tokens[seat])
        result = client.move(
            table.game_id, table.tokens[seat], mine.view.legal_moves[0], mine.game.version
        )
        payloads += [
            public.SerializeToString(),
            mine.SerializeToString(),
            result.SerializeToString(),
        ]
    for token in (None, *table.tokens):
        stream = client.stub.StreamEvents(
            pb.StreamEventsRequest(game_id=table.game_id), metadata=auth(token), timeout=0.5
        )
        with pytest.raises(grpc.RpcError):  # the deadline ends the live stream
            for batch in stream:
                payloads.append(batch.SerializeToString())
    blob = b"".join(payloads)
    assert seed not in blob and seed.hex().encode() not in blob
    record = server.call(lambda: server.server.store.load(table.game_id))  # type: ignore[union-attr]
    assert record.seed == seed  # it is stored, just never sent


def test_only_a_hash_of_each_seat_token_is_stored(served: Served) -> None:
    server, client = served
    table = client.table("counterpoint")
    record = server.call(lambda: server.server.store.load(table.game_id))  # type: ignore[union-attr]
    for token, seat in zip(table.tokens, record.seats, strict=True):
        assert seat is not None
        assert seat.token_hash == hashlib.sha256(token.encode()).hexdigest()
        assert token not in repr(record)


def test_an_unreadable_snapshot_is_rebuilt_from_the_moves(
    served: Served,
) -> None:
    server, client = served
    table = client.table("counterpoint")
    for token in table.tokens:
        mine = client.get(table.game_id, token)
        client.move(table.game_id, token, mine.view.legal_moves[3], mine.game.version)
    before = [client.get(table.game_id, t) for t in (None, *table.tokens)]
    store = server.server.store  # type: ignore[union-attr]
    assert isinstance(store, MemoryStore)

    async def corrupt() -> None:
        game = store._games[table.game_id]
        game.record = dataclasses.replace(game.record, snapshot=b"{not json")

    server.call(corrupt)
    assert [client.get(table.game_id, t) for t in (None, *table.tokens)] == before
    leader = before[0].view.to_act[0]
    mine = client.get(table.game_id, table.tokens[leader])
    moved = client.move(table.game_id, table.tokens[leader], mine.view.legal_moves[0], 2)
    assert moved.version == 3


def test_health_reports_serving_and_reflection_lists_the_service(
    served: Served,
) -> None:
    _, client = served
    health = health_pb2_grpc.HealthStub(client.channel)
    for service in ("", "tricktable.v1.GameService"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.RpcError) as caught:  # a handler's own status passes unchanged
        health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    reflection = reflection_pb2_grpc.ServerReflectionStub(client.channel)
    replies = reflection.ServerReflectionInfo(
        iter([reflection_pb2.ServerReflectionRequest(list_services="")])
    )
    names = {s.name for r in replies for s in r.list_services_response.service}
    assert "tricktable.v1.GameService" in names


def test_tune_runtime_freezes_startup_objects_and_raises_the_young_gc_threshold() -> None:
    before = gc.get_threshold()
    try:
        tune_runtime()
        assert gc.get_threshold() == (GC_GEN0_THRESHOLD, before[1], before[2])
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
