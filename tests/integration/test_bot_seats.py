"""Server bot seats through real servers: one person with the Python client finishes a game
against server bots of every other seat (embedded store and Redis); on two ``tricktable serve``
replicas sharing Redis, one killed with SIGKILL mid-game, the bots still play every turn
exactly once and the game ends."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest
from tricktable.bots import make_bot
from tricktable.bots.runner import BotRunner
from tricktable.client import Client as PyClient
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_types_pb2

from engine import game_names, get_rules
from engine.record import timed_out, verify
from service.config import REDIS_URL_ENV
from service.records import record_from_proto
from service.running import ServerThread
from tests.integration.test_clocks import record_of, watch_until
from tests.servers import running_server, serve_process, store_fields

SHORT: dict[str, dict[str, bool | int | str]] = {
    "ninety-nine": {"game_length_deals": 2},
    "counterpoint": {"target_score": 40},
    "sixty-six": {"target_game_points": 3},
    "nominations": {"target_score": 30},
}


@pytest.fixture(scope="module", params=["memory", "redis"])
def server(request: pytest.FixtureRequest) -> Iterator[ServerThread]:
    with running_server(bot_delay_s=0.01, **store_fields(request, request.param)) as served:
        yield served.server


@pytest.mark.parametrize("game", game_names())
def test_one_person_finishes_a_game_against_server_bots(server: ServerThread, game: str) -> None:
    seats = get_rules(game).seats
    with PyClient(server.address) as client:
        request = pb.CreateGameRequest(game_type=game, seed=f"alone:{game}".encode())
        for name, value in SHORT[game].items():
            request.options[name].int_value = int(value)
        for seat in range(1, seats):
            request.bot_seats[seat] = "heuristic" if seat % 2 else "random"
        created = client.stub.CreateGame(request).game
        assert [s.bot for s in created.seats][1:] == [request.bot_seats[n] for n in range(1, seats)]
        assert created.status == pb.GAME_STATUS_WAITING
        me = client.join(created.game_id, 0, "me")
        runner = BotRunner(me, make_bot("random", game, seed=1), style="poll")
        final = runner.run()
        assert final.game.status == pb.GAME_STATUS_FINISHED and final.view.finished
        record = record_from_proto(client.record(created.game_id))
    assert verify(record) == record.outcome
    mine = [s for s in record.steps if s.seat == 0 and s.move is not None]
    assert len(mine) == runner.moves_made  # every other move was a server bot's
    assert not any(timed_out(s) for s in record.steps)


def test_bots_play_on_when_a_replica_is_killed(redis_url: str) -> None:
    env = {REDIS_URL_ENV: redis_url}
    args = ("--bot-delay", "0.05")
    with serve_process(*args, env=env) as doomed, serve_process(*args, env=env) as other:
        first, second = doomed.client, other.client
        request = pb.CreateGameRequest(
            game_type="counterpoint",
            options={"target_score": game_types_pb2.OptionValue(int_value=40)},
            bot_seats={0: "heuristic", 1: "random"},
        )
        created = first.stub.CreateGame(request).game
        assert created.status == pb.GAME_STATUS_PLAYING  # every seat a bot: play begins now
        watch_until(first, created.game_id, 4)
        doomed.proc.send_signal(signal.SIGKILL)
        doomed.proc.wait(10)
        ended = watch_until(second, created.game_id, 10**9, limit_s=120)
        assert ended.game.status == pb.GAME_STATUS_FINISHED
        record = record_of(second, created.game_id)
    assert verify(record) == record.outcome  # one move per version, each legal in its turn
    assert len(record.steps) - 1 == ended.game.version
