"""TournamentService on the web door (Connect, JSON and binary, and gRPC-Web), answering as
over native gRPC: a tournament created, followed to its end, read back; a wrong creator token
refused PERMISSION_DENIED; the ladder read."""

from __future__ import annotations

import pytest
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.protocol import ProtocolType
from tricktable.v1 import tournament_service_pb2 as tpb
from tricktable.v1.tournament_service_connect import TournamentServiceClientSync

from tests.servers import running_server
from tests.tournaments.support import create_request


@pytest.mark.parametrize(
    ("protocol", "json"),
    [(ProtocolType.CONNECT, True), (ProtocolType.CONNECT, False), (ProtocolType.GRPC_WEB, False)],
)
def test_tournaments_over_the_web_door(protocol: ProtocolType, json: bool) -> None:
    with running_server(bot_delay_s=0, web_port=0) as served:
        client = TournamentServiceClientSync(served.web_url, protocol=protocol, proto_json=json)
        made = client.create_tournament(
            create_request(["heuristic", "random"], options={"target_score": 30})
        )
        tid = made.tournament.tournament_id
        events = list(client.stream_tournament(tpb.StreamTournamentRequest(tournament_id=tid)))
        got = client.get_tournament(tpb.GetTournamentRequest(tournament_id=tid))
        with pytest.raises(ConnectError) as wrong:
            client.cancel_tournament(
                tpb.CancelTournamentRequest(tournament_id=tid),
                headers={"authorization": "Bearer not-it"},
            )
        ladder = client.get_ladder(tpb.GetLadderRequest(game_type="counterpoint"))
        listed = client.list_tournaments(tpb.ListTournamentsRequest())
    assert events[-1].ended.status == tpb.TOURNAMENT_STATUS_FINISHED
    assert got.tournament.status == tpb.TOURNAMENT_STATUS_FINISHED and len(got.games) == 2
    assert wrong.value.code == Code.PERMISSION_DENIED
    assert ladder.game_type == "counterpoint" and not ladder.rows
    assert [t.tournament_id for t in listed.tournaments] == [tid]
