"""Finding a game across replicas: two real server processes on one real Redis. The queue and
the rematch offer live in the store, so players on different replicas are matched together,
each seated exactly once; a ticket whose stream is gone past the grace time is never seated;
and an invite code never reaches a log line."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator

import grpc
import pytest
from tricktable.v1 import clocks_pb2
from tricktable.v1 import game_service_pb2 as pb

from service.config import REDIS_URL_ENV
from tests.servers import ServerProcess, serve_process
from tests.service.support import Client, auth, error_info

GRACE_S = 1.0


@pytest.fixture(scope="module")
def replicas(redis_url: str) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    env = {REDIS_URL_ENV: redis_url}
    flags = ("--quick-play-grace", str(GRACE_S), "--log-format", "json", "--log-level", "debug")
    with serve_process(*flags, env=env) as a, serve_process(*flags, env=env) as b:
        yield a, b


def _own_queue() -> clocks_pb2.TimeControl:
    """A time control no other test queues with: a queue of this test's own on a shared Redis."""
    return clocks_pb2.TimeControl(move_ms=random.randrange(60_000, 3_600_000))


def _matched(stream: Iterator[pb.QuickPlayResponse]) -> pb.QuickPlayMatched:
    return next(r for r in stream if r.WhichOneof("kind") == "matched").matched


def test_players_on_two_replicas_are_matched_once_and_a_gone_ticket_never_is(
    replicas: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = replicas[0].client, replicas[1].client
    clock = _own_queue()

    def queue(client: Client, name: str) -> Iterator[pb.QuickPlayResponse]:
        request = pb.QuickPlayRequest(game_type="nominations", time_control=clock, player_name=name)
        stream: Iterator[pb.QuickPlayResponse] = client.stub.QuickPlay(request, timeout=60)
        return stream

    first = queue(a, "first")
    assert next(first).queued.waiting == 1
    gone = queue(b, "gone")
    gone_ticket = next(gone).queued.ticket
    gone.cancel()  # type: ignore[attr-defined]  # the player disconnects ...
    time.sleep(GRACE_S * 2)  # ... and stays away past the grace time
    others = [queue(client, f"p{n}") for n, client in enumerate((b, a, b))]
    matched = [_matched(stream) for stream in (first, *others)]
    game_ids = {m.game_id for m in matched}
    assert len(game_ids) == 1 and sorted(m.seat for m in matched) == [0, 1, 2, 3]
    game_id = game_ids.pop()
    summary = a.get(game_id).game
    assert summary.status == pb.GAME_STATUS_PLAYING
    assert sorted(s.player_name for s in summary.seats) == ["first", "p0", "p1", "p2"]
    for m, client in zip(matched, (a, b, a, b), strict=True):
        assert client.get(game_id, m.seat_token).view.viewer == m.seat
    with pytest.raises(grpc.RpcError) as caught:
        list(b.stub.QuickPlay(pb.QuickPlayRequest(ticket=gone_ticket), timeout=30))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    assert error_info(caught.value).reason == "UNKNOWN_TICKET"


def test_racing_players_on_two_replicas_are_each_seated_once(
    replicas: tuple[ServerProcess, ServerProcess],
) -> None:
    clock = _own_queue()
    found: list[pb.QuickPlayMatched] = []
    lock = threading.Lock()

    def play(client: Client, n: int) -> None:
        request = pb.QuickPlayRequest(
            game_type="ninety-nine", time_control=clock, player_name=f"r{n}"
        )
        got = _matched(client.stub.QuickPlay(request, timeout=60))
        with lock:
            found.append(got)

    players = [threading.Thread(target=play, args=(replicas[n % 2].client, n)) for n in range(9)]
    for player in players:
        player.start()
    for player in players:
        player.join(60)
    assert len(found) == 9
    games: dict[str, list[int]] = {}
    for m in found:
        games.setdefault(m.game_id, []).append(m.seat)
    assert len(games) == 3 and all(sorted(s) == [0, 1, 2] for s in games.values())
    assert len({m.seat_token for m in found}) == 9


def test_a_rematch_accepted_on_two_replicas_starts_one_game(
    replicas: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = replicas[0].client, replicas[1].client
    table = a.table("sixty-six")
    b.stub.LeaveGame(pb.LeaveGameRequest(game_id=table.game_id), metadata=auth(table.tokens[1]))
    after = a.get(table.game_id).game.version + 1
    stream = a.stub.StreamEvents(
        pb.StreamEventsRequest(game_id=table.game_id, from_version=after, follow_rematch=True),
        metadata=auth(table.tokens[0]),
        timeout=30,
    )
    ask = pb.RematchRequest(game_id=table.game_id)
    answers: list[pb.RematchOffer] = []

    def accept(client: Client, token: str) -> None:
        answers.append(client.stub.Rematch(ask, metadata=auth(token)).rematch)

    both = [
        threading.Thread(target=accept, args=(a, table.tokens[0])),
        threading.Thread(target=accept, args=(b, table.tokens[1])),
    ]
    for t in both:
        t.start()
    for t in both:
        t.join(30)
    started = [o.game_id for o in answers if o.game_id]
    assert len(started) == 1
    heard = list(stream)
    assert heard[-1].rematch.game_id == started[0]
    assert list(heard[-1].rematch.accepted) == [0, 1]
    new = b.get(started[0], table.tokens[1])
    assert new.view.viewer == 0 and new.game.status == pb.GAME_STATUS_PLAYING


def test_an_invite_code_never_reaches_a_log(
    replicas: tuple[ServerProcess, ServerProcess],
) -> None:
    a, b = replicas[0].client, replicas[1].client
    made = a.stub.CreateGame(
        pb.CreateGameRequest(
            game_type="nominations",
            visibility=pb.VISIBILITY_UNLISTED,
            reserved_seats=[pb.SeatReservation(seat=3)],
        )
    )
    codes = [made.invite_code, *made.seat_invite_codes.values()]
    game_id = made.game.game_id
    b.stub.JoinGame(pb.JoinGameRequest(game_id=game_id, invite_code=made.invite_code))
    with pytest.raises(grpc.RpcError):  # a refused join is logged (debug): without the code
        b.stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=3, invite_code=made.invite_code))
    b.stub.JoinGame(pb.JoinGameRequest(game_id=game_id, invite_code=made.seat_invite_codes[3]))
    a.stub.RevokeInvite(pb.RevokeInviteRequest(game_id=game_id, invite_code=made.invite_code))
    logs = replicas[0].log() + replicas[1].log()
    assert game_id in logs  # the log does tell of the game ...
    assert not any(code in logs for code in codes)  # ... never of its codes
