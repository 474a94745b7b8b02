"""StreamTournament and BotSession wait on the store's notifications, not by polling it: an
event made on one replica wakes the streams of another (on one Redis and on a Redis Cluster),
through the one subscription each process already keeps for the games; an idle tournament
stream sends Redis no command, and an idle session only its bot's online mark (every 2 s)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator

import grpc
import pytest
import redis
from tricktable.v1 import game_service_pb2 as gpb
from tricktable.v1 import game_service_pb2_grpc
from tricktable.v1 import tournament_service_pb2 as tpb

from benchmarks.streams import commandstats
from tests.conftest import redis_server
from tests.servers import Served, running_server, store_fields
from tests.service.support import auth, error_info
from tests.tournaments.replicas import (
    connected_bot,
    following,
    pause_sweep,
    resume_sweep,
    server_of,
    tournament,
    until,
    waiting_tournament,
)
from tests.tournaments.support import create_request, stub

#: Commands a replica sends whatever its streams do: readiness' PING, the deadline sweep's and
#: the ladders' looks at their indexes (ZRANGE, ZRANGEBYSCORE), and the inspector's own INFO.
_NOT_STREAMS = {"ping", "zrange", "zrangebyscore", "info"}


@pytest.fixture
def own_redis_url() -> Iterator[str]:
    """A Redis of the test's own: the session's holds other tests' tournaments and games,
    which this test's replica would advance (real work, but not what an idle stream costs)."""
    with redis_server() as (url, _):
        yield url


def _spent(inspector: redis.Redis, window_s: float) -> dict[str, int]:
    """The commands Redis ran in the next ``window_s`` seconds, but the replica's own."""
    before = commandstats(inspector)
    time.sleep(window_s)
    after = commandstats(inspector)
    return {
        name: calls - before.get(name, 0)
        for name, calls in after.items()
        if calls != before.get(name, 0) and name not in _NOT_STREAMS
    }


def _listening(served: Served, channels: list[str]) -> bool:
    """Whether the replica hears the notifications of ``channels`` now: its pattern
    subscription is live (one Redis), or it is subscribed to each one's channel (a cluster)."""
    notifier = server_of(served).store.notifier  # type: ignore[attr-defined]
    if hasattr(notifier, "following"):
        return all(notifier.following(c) for c in channels)
    return bool(notifier.subscribed.is_set())


def _settle(served: Served) -> None:
    """Until the replica's subscription is live, and a while after: when it comes up it wakes
    every waiter to read once (a notification may have been missed before), which is not what
    an idle stream costs."""
    until(lambda: _listening(served, []), bool)
    time.sleep(0.5)


@pytest.mark.parametrize("store", ["redis", "redis-cluster"])
def test_a_stream_and_a_session_on_one_replica_are_woken_by_events_of_another(
    request: pytest.FixtureRequest, store: str
) -> None:
    fields = store_fields(request, store)
    with running_server(**fields) as a, running_server(**fields) as b:
        # The tournaments' store waits on the replica's one subscription, the games' own.
        assert server_of(b).tournaments.stores.tournaments.notifier is server_of(b).store.notifier  # type: ignore[attr-defined]
        for replica in (a, b):
            pause_sweep(replica)  # nothing happens until A's sweep is resumed
        # B's streams never read again unasked: only a notification can wake them.
        following(b).recheck_s = math.inf
        following(b).online_refresh_s = math.inf
        channel_a, on_a = stub(a.address)
        channel_b, on_b = stub(b.address)
        with channel_a, channel_b:
            north, south = connected_bot(on_a, "north"), connected_bot(on_a, "south")
            made = waiting_tournament(on_a, [north.bot_id, south.bot_id])
            tid = made.tournament.tournament_id
            stream = on_b.StreamTournament(
                tpb.StreamTournamentRequest(tournament_id=tid, from_version=1), timeout=120
            )
            session = on_b.BotSession(
                tpb.BotSessionRequest(), metadata=auth(north.bot_token), timeout=120
            )
            try:
                until(lambda: following(b).waiting, lambda n: n == 2)
                until(lambda: _listening(b, [f"t.{tid}", f"b.{north.bot_id}"]), bool)
                _settle(b)  # and each has read once since, woken by the subscription coming up
                until(lambda: following(b).waiting, lambda n: n == 2)
                resume_sweep(a)  # A starts the first game and hands its seats
                started = next(stream)
                seat = next(session)
                on_a.CancelTournament(
                    tpb.CancelTournamentRequest(tournament_id=tid),
                    metadata=auth(made.creator_token),
                )
                rest = list(stream)
            finally:
                stream.cancel()
                session.cancel()
    assert started.version == 1 and started.game_started.game.number == 0
    assert seat.seat_given.game_id == started.game_started.game.game_id
    assert seat.seat_given.tournament_id == tid and seat.seat_given.seat_token
    assert [e.version for e in rest] == [2]
    assert rest[0].ended.status == tpb.TOURNAMENT_STATUS_CANCELLED


def test_idle_tournament_streams_cost_no_redis_command(own_redis_url: str) -> None:
    inspector = redis.Redis.from_url(own_redis_url)
    with running_server(redis_url=own_redis_url) as served:
        channel, tournaments = stub(served.address)
        with channel:
            bots = [connected_bot(tournaments, n).bot_id for n in ("east", "west")]
            made = waiting_tournament(tournaments, bots)
            tid = made.tournament.tournament_id
            version = until(
                lambda: tournament(tournaments, tid).tournament, lambda t: t.games_started == 1
            ).version
            # The sweep re-reads a held tournament every second (and when its games move):
            # that is its work (a look at each game under way), not the streams'.
            pause_sweep(served)
            request = tpb.StreamTournamentRequest(tournament_id=tid)
            streams = [tournaments.StreamTournament(request, timeout=120) for _ in range(30)]
            try:
                for s in streams:  # each reads what there is, then waits
                    assert [next(s).version for _ in range(version)] == list(range(1, version + 1))
                until(lambda: following(served).waiting, lambda n: n == 30)
                _settle(served)
                spent = _spent(inspector, 2.5)
                # One subscription for the whole process, however many streams.
                pubsub = inspector.client_list(_type="pubsub")
                tournaments.CancelTournament(
                    tpb.CancelTournamentRequest(tournament_id=tid),
                    metadata=auth(made.creator_token),
                )
                ends = [next(s) for s in streams]
            finally:
                for s in streams:
                    s.cancel()
    inspector.close()
    assert spent == {}
    assert len(pubsub) == 1
    assert {e.version for e in ends} == {version + 1}
    assert all(e.ended.status == tpb.TOURNAMENT_STATUS_CANCELLED for e in ends)


def test_idle_bot_sessions_cost_only_their_online_marks(own_redis_url: str) -> None:
    inspector = redis.Redis.from_url(own_redis_url)
    sessions_open = 8
    with running_server(redis_url=own_redis_url) as served:
        channel, tournaments = stub(served.address)
        with channel:
            north, south = connected_bot(tournaments, "north"), connected_bot(tournaments, "south")
            made = waiting_tournament(tournaments, [north.bot_id, south.bot_id])
            sessions = [
                tournaments.BotSession(
                    tpb.BotSessionRequest(), metadata=auth(north.bot_token), timeout=120
                )
                for _ in range(sessions_open)
            ]
            try:
                seats = [next(s).seat_given for s in sessions]  # the first game's seat
                pause_sweep(served)
                until(lambda: following(served).waiting, lambda n: n == sessions_open)
                _settle(served)
                spent = _spent(inspector, 2.5)
            finally:
                for s in sessions:
                    s.cancel()
            tournaments.CancelTournament(
                tpb.CancelTournamentRequest(tournament_id=made.tournament.tournament_id),
                metadata=auth(made.creator_token),
            )
    inspector.close()
    assert len({(s.game_id, s.seat) for s in seats}) == 1
    # Each session marks its bot online (SET) and reads its seats once every 2 s: at most
    # twice each in 2.5 s (polling every 0.2 s, as they did, was 12 times each).
    assert set(spent) <= {"set", "lrange"}, spent
    assert spent.get("set", 0) <= 2 * sessions_open
    assert spent.get("lrange", 0) <= 2 * sessions_open


def test_a_tournament_whose_games_wait_costs_the_sweep_no_redis_command(own_redis_url: str) -> None:
    """The sweep waits for a held tournament's next step (one of its games moving, or the
    tournament itself) on the replica's subscription instead of reading it every 0.1 s: with its
    safety re-read off, a running tournament whose games all wait for their players costs Redis
    nothing but the index's look (ZRANGEBYSCORE); and a game's end still wakes it, to count the
    game and start the next."""
    inspector = redis.Redis.from_url(own_redis_url)
    with running_server(redis_url=own_redis_url) as served:
        server_of(served).tournaments.runner.recheck_s = math.inf  # only a notification wakes it
        channel, tournaments = stub(served.address)
        with channel:
            north, south = connected_bot(tournaments, "north"), connected_bot(tournaments, "south")
            made = tournaments.CreateTournament(
                create_request([north.bot_id, south.bot_id], rounds=2, games_at_once=2)
            )
            tid = made.tournament.tournament_id
            until(lambda: tournament(tournaments, tid).tournament, lambda t: t.games_started == 2)
            _settle(served)
            spent = _spent(inspector, 2.5)
            # North leaves its first game: the game's end is what wakes the sweep.
            session = tournaments.BotSession(
                tpb.BotSessionRequest(), metadata=auth(north.bot_token), timeout=120
            )
            try:
                seat = next(session).seat_given
                game_service_pb2_grpc.GameServiceStub(channel).LeaveGame(
                    gpb.LeaveGameRequest(game_id=seat.game_id), metadata=auth(seat.seat_token)
                )
                after = until(
                    lambda: tournament(tournaments, tid).tournament, lambda t: t.games_started == 3
                )
            finally:
                session.cancel()
            tournaments.CancelTournament(
                tpb.CancelTournamentRequest(tournament_id=tid), metadata=auth(made.creator_token)
            )
    inspector.close()
    assert spent == {}, spent
    # the left game counted, and the next one started in its place
    assert after.status == tpb.TOURNAMENT_STATUS_RUNNING and after.games_ended == 1


def test_shutdown_ends_waiting_streams_and_sessions_with_unavailable() -> None:
    """A waiting stream is woken by the shutdown (not left to the grace period's cancel), and
    says so: UNAVAILABLE, SERVER_SHUTTING_DOWN, to resume on another replica."""
    with running_server(grace_s=30.0) as served:
        channel, tournaments = stub(served.address)
        with channel:
            north, south = connected_bot(tournaments, "north"), connected_bot(tournaments, "south")
            made = waiting_tournament(tournaments, [north.bot_id, south.bot_id])
            tid = made.tournament.tournament_id
            stream = tournaments.StreamTournament(
                tpb.StreamTournamentRequest(tournament_id=tid), timeout=120
            )
            session = tournaments.BotSession(
                tpb.BotSessionRequest(), metadata=auth(north.bot_token), timeout=120
            )
            assert next(stream).game_started.game.number == 0
            assert next(session).seat_given.tournament_id == tid
            until(lambda: following(served).waiting, lambda n: n == 2)
            stopping = threading.Thread(target=served.server.stop)
            stopping.start()
            ended = []
            for call in (stream, session):
                with pytest.raises(grpc.RpcError) as caught:
                    next(call)
                ended.append(caught.value)
            stopping.join(60)
    for err in ended:
        assert err.code() == grpc.StatusCode.UNAVAILABLE
        assert error_info(err).reason == "SERVER_SHUTTING_DOWN"
