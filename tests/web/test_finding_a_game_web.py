"""Finding a game (issue 29) through the web door, over each web protocol, against a real
server: an unlisted table and its invite code, QuickPlay's stream, a Rematch."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator

import jwt
import pytest
from tricktable.v1 import clocks_pb2
from tricktable.v1 import game_service_pb2 as pb

from tests.servers import Served, running_server
from tests.web.support import PROTOCOLS, WebClient, WebError


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with running_server(web_port=0) as served:
        yield served


@pytest.fixture(params=PROTOCOLS)
def web(request: pytest.FixtureRequest, served: Served) -> Iterator[WebClient]:
    client = WebClient(served.web_url, request.param)
    yield client
    client.close()


def test_an_unlisted_table_is_joined_with_its_code_over_the_web(web: WebClient) -> None:
    made = web.call(
        "CreateGame",
        pb.CreateGameRequest(game_type="sixty-six", visibility=pb.VISIBILITY_UNLISTED),
        pb.CreateGameResponse,
    )
    game_id = made.game.game_id
    listed = web.call("ListGames", pb.ListGamesRequest(page_size=100), pb.ListGamesResponse)
    assert game_id not in {g.game_id for g in listed.games}
    with pytest.raises(WebError) as caught:
        web.call("JoinGame", pb.JoinGameRequest(game_id=game_id), pb.JoinGameResponse)
    assert caught.value.info is not None and caught.value.info.reason == "INVALID_INVITE"
    joined = web.call(
        "JoinGame",
        pb.JoinGameRequest(game_id=game_id, invite_code=made.invite_code),
        pb.JoinGameResponse,
    )
    assert joined.seat_token
    revoked = web.call(
        "RevokeInvite",
        pb.RevokeInviteRequest(game_id=game_id, invite_code=made.invite_code, reissue=True),
        pb.RevokeInviteResponse,
    )
    assert revoked.invite_code and revoked.invite_code != made.invite_code


def test_quick_play_and_a_rematch_over_the_web(web: WebClient) -> None:
    clock = clocks_pb2.TimeControl(move_ms=random.randrange(60_000, 3_600_000))
    request = pb.QuickPlayRequest(game_type="sixty-six", time_control=clock, player_name="w")
    first = web.stream("QuickPlay", request, pb.QuickPlayResponse)
    assert next(first).queued.ticket
    second = list(web.stream("QuickPlay", request, pb.QuickPlayResponse))
    matched = [second[-1].matched, next(first).matched]
    assert {m.seat for m in matched} == {0, 1} and matched[0].game_id == matched[1].game_id
    game_id = matched[0].game_id
    web.call(
        "LeaveGame",
        pb.LeaveGameRequest(game_id=game_id),
        pb.LeaveGameResponse,
        matched[0].seat_token,
    )
    ask = pb.RematchRequest(game_id=game_id)
    offers = [web.call("Rematch", ask, pb.RematchResponse, m.seat_token).rematch for m in matched]
    assert offers[0].game_id == "" and offers[1].game_id
    assert list(offers[1].accepted) == [0, 1]


def test_a_player_token_is_read_over_the_web() -> None:
    secret = "a web test secret of thirty-two bytes or more"
    token = jwt.encode({"sub": "web-player", "exp": int(time.time()) + 600}, secret, "HS256")
    with running_server(web_port=0, auth_jwt_secret=secret) as served:
        web = WebClient(served.web_url, "connect-proto")
        try:
            web.http.headers["x-player-token"] = token
            made = web.call(
                "CreateGame", pb.CreateGameRequest(game_type="sixty-six"), pb.CreateGameResponse
            )
            joined = web.call(
                "JoinGame", pb.JoinGameRequest(game_id=made.game.game_id), pb.JoinGameResponse
            )
            mine = web.call("ListMyGames", pb.ListMyGamesRequest(), pb.ListMyGamesResponse)
            assert [(g.game.game_id, g.seat) for g in mine.games] == [
                (made.game.game_id, joined.seat)
            ]
            web.http.headers["x-player-token"] = token + "x"
            with pytest.raises(WebError) as caught:
                web.call("ListMyGames", pb.ListMyGamesRequest(), pb.ListMyGamesResponse)
            assert caught.value.info is not None
            assert caught.value.info.reason == "INVALID_PLAYER_TOKEN"
        finally:
            web.close()
