"""The play stream across replicas: real server processes on one real Redis.

A seat's stream may be on any replica: the other seats' moves, committed through another, wake it
through the store's notifications. Races between replicas are settled by the store's atomic
compare-and-set, never by one process's memory: one request sent on two streams at once is applied
once and both are answered with its version; two different moves at one version, one wins.
"""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Iterator

import grpc
import pytest
from tricktable.v1 import game_service_pb2 as pb

from service.config import REDIS_URL_ENV
from tests.integration.test_play_stream import Seen, play_seat
from tests.servers import serve_process
from tests.service.support import WAIT_FOR_TURN, Client, PlayLine, Table


@pytest.fixture(scope="module")
def replicas(redis_url: str) -> Iterator[tuple[Client, Client]]:
    env = {REDIS_URL_ENV: redis_url}
    with serve_process(env=env) as a, serve_process(env=env) as b:
        yield a.client, b.client


@WAIT_FOR_TURN
def test_seats_on_two_replicas_play_a_whole_game_on_their_streams(
    replicas: tuple[Client, Client], wait_for_turn: bool
) -> None:
    a, b = replicas
    table = a.table("counterpoint", seed=b"two replicas")
    lines = [
        PlayLine(a, table.game_id, table.tokens[0], wait_for_turn=wait_for_turn),
        PlayLine(b, table.game_id, table.tokens[1], wait_for_turn=wait_for_turn),
    ]
    results: dict[int, Seen] = {}

    def run(seat: int) -> None:
        results[seat] = play_seat(lines[seat], seat, random.Random(seat))

    threads = [threading.Thread(target=run, args=(s,)) for s in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    final = a.get(table.game_id)
    assert final.game.status == pb.GAME_STATUS_FINISHED
    for got in results.values():
        assert got.ended == "OK"
        assert [batch.version for batch in got.batches] == list(range(final.game.version + 1))
        # Held answers come with the view of a version the other replica's moves made.
        assert (got.answered_without_view == 0) == wait_for_turn


def _streams_on_both(
    replicas: tuple[Client, Client], seed: bytes, seats: tuple[int, int]
) -> tuple[Table, list[PlayLine], list[pb.PlayStep]]:
    """A fresh Counterpoint table, a stream on replica A for ``seats[0]`` and one on replica
    B for ``seats[1]``, each opened (its opening step read)."""
    table = replicas[0].table("counterpoint", seed=seed)
    lines = [
        PlayLine(r, table.game_id, table.tokens[s]) for r, s in zip(replicas, seats, strict=True)
    ]
    return table, lines, [line.until("view")[0] for line in lines]


def test_one_request_sent_on_two_replicas_at_once_is_applied_once(
    replicas: tuple[Client, Client],
) -> None:
    a = replicas[0]
    table, lines, views = _streams_on_both(replicas, b"one request twice", seats=(0, 0))
    try:
        move, request_id = views[0].view.view.legal_moves[0], uuid.uuid4().hex
        for line in lines:
            line.move(move, 0, request_id)
        answers = [line.until("result")[0].result for line in lines]
        assert [r.version for r in answers] == [1, 1]
        assert not any(r.HasField("error") for r in answers)
        assert a.get(table.game_id).game.version == 1  # applied once
    finally:
        for line in lines:
            line.close()


def test_two_moves_at_one_version_on_two_replicas_exactly_one_wins(
    replicas: tuple[Client, Client],
) -> None:
    a = replicas[0]
    table, lines, views = _streams_on_both(replicas, b"two moves one version", seats=(0, 1))
    try:
        for line, view in zip(lines, views, strict=True):  # both lay aside at version 0
            line.move(view.view.view.legal_moves[0], 0)
        steps = [line.until("result") for line in lines]  # (the answer, the steps before it)
        answers = [answered.result for answered, _ in steps]
        won = [r for r in answers if not r.HasField("error")]
        lost = [r for r in answers if r.HasField("error")]
        assert [r.version for r in won] == [1] and len(lost) == 1
        assert lost[0].error.code == grpc.StatusCode.ABORTED.value[0]
        assert a.get(table.game_id).game.version == 1
        # The loser's stream brings version 1 and its view there (before its answer, or
        # after it): it decides again.
        loser = answers.index(lost[0])
        answered, before = steps[loser]
        seen = [*before, answered]
        while not any(s.view.version == 1 for s in seen):
            seen.append(lines[loser].next())
        assert [b.version for s in seen for b in s.events] == [1]
    finally:
        for line in lines:
            line.close()
