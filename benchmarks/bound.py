"""The service benchmark's *bound*: what a move costs the server when it does a move's I/O and
nothing else.

The floor (:mod:`benchmarks.service`) is a bare unary call with one store round trip. A move
played with ``wait_for_turn`` necessarily does more than that, whatever the game logic costs:
its request and answer are real messages (the answer is a seat's view, with its legal moves),
it commits through the store's compare-and-set script with a snapshot, a move and an event
batch, and it waits for the other seat's commit to be announced (with Redis, by the replica's
pub/sub subscription) before it answers. The bound server does exactly that, through the same
store code the real server uses, with payloads recorded beforehand from real games of the
benchmarked type (engine and conversion work happen at start-up, never per call): the moves'
snapshots and event batches, and the answers the real server would have sent.

So ``moves/bound`` says how much of a move's server time is the service's own logic (auth,
engine, views, conversion, metrics), and ``bound/floor`` how far the best this design could do
lies above the floor. Two seats per table play in strict alternation, so each knows the versions
it moves at without being told (seat 0 at 0, 2, 4, …; seat 1 at 1, 3, 5, …).
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import moves_pb2

from benchmarks.single_method import serve_method
from engine import get_rules
from engine.core.events import event_to_data
from engine.core.moves import move_to_data
from engine.core.options import options_to_data
from engine.playout import random_move
from service import convert, event_loop
from service.config import REDIS_URL_ENV, ServerConfig
from service.game_service import MoveResult
from service.store.base import (
    ACTIVE,
    Commit,
    EventBatch,
    GameRecord,
    GameStore,
    MoveRecord,
    SeatRecord,
)
from service.store.memory import MemoryStore
from service.store.redis import RedisStore

BOUND_METHOD = "/tricktable.bench.Bound/Move"
#: How long one wait for the other seat's commit lasts before it is asked again.
_WAIT_S = 1.0


@dataclass(frozen=True, slots=True)
class RecordedMove:
    """One move of a real game, as the store and the mover's answer carry it."""

    seat: int
    move: Mapping[str, Any]  # move_to_data
    snapshot: bytes  # the state after the move
    events: tuple[Mapping[str, Any], ...]  # event_to_data of the full events
    answer: pb.SubmitMoveResponse  # what the mover got, once it was to act again


def recorded_moves(game: str, games: int = 2, seed: int = 0) -> list[RecordedMove]:
    """Every move of ``games`` random games of ``game``, each with the answer the server gives
    its mover under ``wait_for_turn``: the events projected for the mover, and the mover's view
    once it is to act again (or once the game has ended)."""
    rules = get_rules(game)
    rng = random.Random(seed)
    randbelow = rng._randbelow  # type: ignore[attr-defined]  # as engine.playout draws
    recorded: list[RecordedMove] = []
    for number in range(games):
        state = rules.new_game(rules.options({}), f"bound-{seed}-{number}".encode())
        version = 0
        waiting: dict[int, tuple[int, list[Any], RecordedMove]] = {}  # answers still owed
        while not state.finished:
            seat, move = random_move(rules, state, randbelow)
            state, events = rules.apply(state, seat, move)
            version += 1
            step = RecordedMove(
                seat=seat,
                move=move_to_data(move),
                snapshot=rules.snapshot(state),
                events=tuple(event_to_data(e) for e in events),
                answer=pb.SubmitMoveResponse(),
            )
            projected = [rules.project(e, seat) for e in events]
            waiting[seat] = (version, projected, step)
            recorded.append(step)
            answered = range(rules.seats) if state.finished else rules.to_act(state)
            for ready in answered:
                if ready in waiting:
                    moved_at, events_seen, made = waiting.pop(ready)
                    result = MoveResult(
                        moved_at, events_seen, rules.view(state, ready), view_version=version
                    )
                    made.answer.CopyFrom(convert.submit_move_response(result))
    return recorded


def bound_table_ids(prefix: str, tables: int) -> list[str]:
    return [f"{prefix}-{i}" for i in range(tables)]


async def _create_tables(store: GameStore, game: str, ids: list[str], snapshot: bytes) -> None:
    rules = get_rules(game)
    options = options_to_data(rules.options({}))
    seated = SeatRecord(token_hash="", player_name="bound")
    for game_id in ids:
        record = GameRecord(
            game_id=game_id,
            game_type=game,
            options=options,
            seed=bytes(32),
            seat_count=rules.seats,
            created_at_ms=int(time.time() * 1000),
            seats=(seated,) * rules.seats,
            snapshot=snapshot,
        )
        await store.create(record, EventBatch(version=0, seat=None))


def bound_handler(
    store: GameStore, moves: list[RecordedMove]
) -> Callable[[pb.SubmitMoveRequest, Any], Awaitable[pb.SubmitMoveResponse]]:
    """The bound's one method: commit the next recorded move at the expected version (a request
    without a move commits nothing); with ``wait_for_turn``, answer once a later version is
    announced."""
    upcoming = itertools.cycle(moves)

    async def move(request: pb.SubmitMoveRequest, context: Any) -> pb.SubmitMoveResponse:
        context.invocation_metadata()  # the real servicer reads the seat token from it
        game_id, version = request.game_id, request.expected_version
        step = next(upcoming)
        if request.HasField("move"):
            commit = Commit(
                expected_version=version,
                snapshot=step.snapshot,
                batch=EventBatch(
                    version=version + 1,
                    seat=step.seat,
                    events=step.events,
                    request_id=request.request_id,
                ),
                status=ACTIVE,
                move=MoveRecord(seat=step.seat, move=step.move, request_id=request.request_id),
            )
            version = await store.commit(game_id, commit)
        while (
            request.wait_for_turn
            and await store.wait_for_version(game_id, version, _WAIT_S) is None
        ):
            pass
        return step.answer

    return move


def redis_store(url: str) -> RedisStore:
    """The store on ``url``: a cluster's seed node when the environment says so
    (``TRICKTABLE_REDIS_CLUSTER``), as for the server the benchmark starts."""
    return RedisStore.from_url(url, cluster=ServerConfig.redis_cluster_from(False))


async def serve_bound(
    port: int, redis_url: str | None, game: str, prefix: str, tables: int
) -> None:
    """The bound's server, in a process of its own like the floor's. Runs until SIGTERM."""
    store: GameStore = redis_store(redis_url) if redis_url else MemoryStore()
    moves = recorded_moves(game)
    await _create_tables(store, game, bound_table_ids(prefix, tables), moves[0].snapshot)
    handler = grpc.unary_unary_rpc_method_handler(
        bound_handler(store, moves),
        request_deserializer=pb.SubmitMoveRequest.FromString,
        response_serializer=pb.SubmitMoveResponse.SerializeToString,
    )
    await serve_method(port, BOUND_METHOD, handler, store)


async def play_bound(
    channel: grpc.aio.Channel,
    ids: list[str],
    seconds: float,
    on_start: Callable[[], None],
    on_stop: Callable[[], None],
) -> tuple[int, float]:
    """(moves, elapsed seconds): two seats per table, alternating, for ``seconds``;
    ``on_start`` and ``on_stop`` mark the measured interval (CPU meters)."""
    call = channel.unary_unary(
        BOUND_METHOD,
        request_serializer=pb.SubmitMoveRequest.SerializeToString,
        response_deserializer=pb.SubmitMoveResponse.FromString,
    )
    auth = [("authorization", f"Bearer {uuid.uuid4().hex}")]
    card = moves_pb2.Move(play_card=moves_pb2.PlayCard(card=convert.card_to_proto(0)))
    moves = 0
    deadline = time.perf_counter() + seconds

    async def seat(game_id: str, first: bool) -> None:
        nonlocal moves
        version = 0 if first else 1
        if not first:  # the other seat moves first: wait for it
            wait = pb.SubmitMoveRequest(game_id=game_id, request_id="wait", wait_for_turn=True)
            await call(wait, metadata=auth)
        while time.perf_counter() < deadline:
            await call(move_at(game_id, version, wait_for_turn=True), metadata=auth)
            moves += 1
            version += 2
        # A last move that does not wait releases the other seat's waiting call, so every call
        # ends with an answer and none is left to cancel.
        await call(move_at(game_id, version, wait_for_turn=False), metadata=auth)

    def move_at(game_id: str, version: int, *, wait_for_turn: bool) -> pb.SubmitMoveRequest:
        return pb.SubmitMoveRequest(
            game_id=game_id,
            move=card,
            expected_version=version,
            request_id=uuid.uuid4().hex,
            wait_for_turn=wait_for_turn,
        )

    started = time.perf_counter()
    on_start()
    seats = asyncio.gather(*(seat(i, first) for i in ids for first in (True, False)))
    await asyncio.sleep(max(0.0, deadline - time.perf_counter()))
    counted, elapsed = moves, time.perf_counter() - started
    on_stop()
    await seats
    return counted, elapsed


if __name__ == "__main__":  # python -m benchmarks.bound PORT GAME PREFIX TABLES
    if len(sys.argv) != 5:
        raise SystemExit("usage: python -m benchmarks.bound PORT GAME PREFIX TABLES")
    port_arg, game_arg, prefix_arg, tables_arg = sys.argv[1:]
    url = os.environ.get(REDIS_URL_ENV) or None
    event_loop.run(  # the loop of the server it is compared with
        serve_bound(int(port_arg), url, game_arg, prefix_arg, int(tables_arg)),
        event_loop.from_environment(),
    )
