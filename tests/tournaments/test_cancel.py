"""Cancelling a tournament ends its games under way, on two replicas sharing the store: each is
abandoned once (``GameAbandoned("cancelled")``) through the ordinary commit, whichever replica
ends it (the one that took the cancel, and the one whose sweep holds the tournament, both try),
so every stream of the game sees it end and its record still re-plays; no game starts after."""

from __future__ import annotations

import pytest
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import tournament_service_pb2 as tpb

from service.cli.record_check import check_record
from service.records import record_to_json
from tests.servers import running_server, store_fields
from tests.service.support import auth
from tests.tournaments.replicas import tournament, until
from tests.tournaments.support import create_request, stub


@pytest.mark.parametrize("store", ["redis", "redis-cluster"])
def test_cancel_ends_the_games_under_way_once_on_any_replica(
    request: pytest.FixtureRequest, store: str
) -> None:
    fields = store_fields(request, store)
    # Bots that wait 0.3 s before each move: the games are still being played when cancelled.
    with (
        running_server(bot_delay_s=0.3, **fields) as a,
        running_server(bot_delay_s=0.3, **fields) as b,
    ):
        channel_a, on_a = stub(a.address)
        channel_b, on_b = stub(b.address)
        with channel_a, channel_b:
            made = on_a.CreateTournament(
                create_request(["heuristic", "random"], rounds=20, games_at_once=2)
            )
            tid = made.tournament.tournament_id
            started = until(
                lambda: tournament(on_a, tid), lambda got: got.tournament.games_started == 2
            )
            game_ids = [g.game_id for g in started.games if g.started]
            # Both under way: a bot has moved in each.
            until(lambda: [a.client.get(g).game.version for g in game_ids], lambda v: min(v) >= 2)
            streams = [
                b.client.stub.StreamEvents(pb.StreamEventsRequest(game_id=gid), timeout=120)
                for gid in game_ids
            ]
            try:
                cancelled = on_b.CancelTournament(
                    tpb.CancelTournamentRequest(tournament_id=tid),
                    metadata=auth(made.creator_token),
                )
                after = tournament(on_a, tid)
                statuses = [a.client.get(gid).game.status for gid in game_ids]
                seen = [list(s) for s in streams]  # each ends with its game's end
            finally:
                for s in streams:
                    s.cancel()
            records = [
                a.client.stub.GetGameRecord(pb.GetGameRecordRequest(game_id=gid)).record
                for gid in game_ids
            ]
            later = tournament(on_b, tid)  # nothing started since, on either replica
    assert cancelled.tournament.status == tpb.TOURNAMENT_STATUS_CANCELLED
    assert after.tournament.games_started == 2 == later.tournament.games_started
    assert [g.game_id for g in later.games if g.started] == game_ids
    assert statuses == [pb.GAME_STATUS_ABANDONED] * 2
    for batches in seen:
        abandoned = [
            e.game_abandoned.reason
            for batch in batches
            for e in batch.events
            if e.WhichOneof("kind") == "game_abandoned"
        ]
        assert abandoned == ["cancelled"]  # once, in the game's last version
        assert batches[-1].events[0].WhichOneof("kind") == "game_abandoned"
        assert [x.version for x in batches] == list(range(len(batches)))
    for record in records:
        replays, verdict = check_record(record_to_json(record))
        assert replays, verdict
