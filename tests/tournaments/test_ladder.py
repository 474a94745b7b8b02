"""The rated ladder: two called bots that opted in are matched into rated games by the server
alone, each game rating them once; the one that plays heuristic ends above the one that plays
at random."""

from __future__ import annotations

import time

from tricktable.bots import make_bot
from tricktable.bots.connected import register
from tricktable.bots.service import serve_bot
from tricktable.client import Client
from tricktable.v1 import tournament_service_pb2 as tpb

from tests.servers import running_server
from tests.tournaments.support import stub

GAME = "counterpoint"
GAMES = 8


def test_the_ladder_rates_a_random_bot_below_a_heuristic_one() -> None:
    heuristic = serve_bot(lambda game: make_bot("heuristic", game), games=[GAME])
    rand = serve_bot(lambda game: make_bot("random", game, 5), games=[GAME])
    try:
        with running_server(bot_delay_s=0, ladder_games_at_once=2) as served:
            with Client(served.address) as client:
                register(
                    client, "clever", [GAME], endpoint=f"grpc://{heuristic.address}", ladder=True
                )
                register(client, "dice", [GAME], endpoint=f"grpc://{rand.address}", ladder=True)
                register(client, "bystander", [GAME], endpoint="grpc://127.0.0.1:1", ladder=False)
            channel, tournaments = stub(served.address)
            with channel:
                deadline = time.monotonic() + 300  # a bound on a hang, not a timed assertion
                while True:
                    ladder = tournaments.GetLadder(tpb.GetLadderRequest(game_type=GAME))
                    if min(r.games for r in ladder.rows) >= GAMES:
                        break
                    assert time.monotonic() < deadline, ladder
                    time.sleep(0.2)
                served.server.stop()
    finally:
        heuristic.stop()
        rand.stop()
    rows = {r.name: r for r in ladder.rows}
    assert set(rows) == {"clever", "dice"}  # only bots that opted in
    assert rows["clever"].games == rows["dice"].games  # each game rated both, once
    assert [r.name for r in ladder.rows] == ["clever", "dice"]
    assert rows["clever"].ordinal > rows["dice"].ordinal and rows["clever"].mu > rows["dice"].mu
    assert rows["clever"].win_share_low <= rows["clever"].win_share <= rows["clever"].win_share_high
    assert all(r.available for r in ladder.rows)
