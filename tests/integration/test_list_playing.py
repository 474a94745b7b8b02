"""ListGames' games in play (GAME_STATUS_PLAYING), through a real server on each store: the
public games being played are listed for watching, open ones are not, unlisted ones never, an
ended game leaves the list, and a status it cannot list by is refused."""

from __future__ import annotations

import grpc
import pytest
from tricktable.v1 import game_service_pb2 as pb

from tests.service.support import Client, auth, error_info


@pytest.fixture(scope="module", params=["memory", "redis"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _listed(client: Client, status: pb.GameStatus.ValueType) -> list[str]:
    """Every game ListGames gives for ``status``, page by page."""
    found, token = [], ""
    while True:
        request = pb.ListGamesRequest(page_size=2, page_token=token, status=status)
        page = client.stub.ListGames(request)
        found += [g.game_id for g in page.games]
        token = page.next_page_token
        if not token:
            return found


def _playing(
    client: Client, visibility: pb.Visibility.ValueType = pb.VISIBILITY_PUBLIC
) -> tuple[str, list[str]]:
    made = client.stub.CreateGame(
        pb.CreateGameRequest(game_type="sixty-six", visibility=visibility)
    )
    tokens = [
        client.stub.JoinGame(
            pb.JoinGameRequest(
                game_id=made.game.game_id, player_name=f"p{s}", invite_code=made.invite_code
            )
        ).seat_token
        for s in range(2)
    ]
    return made.game.game_id, tokens


def test_games_in_play_are_listed_for_watching(client: Client) -> None:
    first, tokens = _playing(client)
    second, _ = _playing(client)
    hidden, _ = _playing(client, pb.VISIBILITY_UNLISTED)
    waiting = client.stub.CreateGame(pb.CreateGameRequest(game_type="sixty-six")).game.game_id

    playing = _listed(client, pb.GAME_STATUS_PLAYING)
    assert first in playing and second in playing
    assert playing.index(first) < playing.index(second)  # by creation, as the open list
    assert hidden not in playing and waiting not in playing
    opened = _listed(client, pb.GAME_STATUS_WAITING)
    assert waiting in opened and first not in opened
    assert _listed(client, pb.GAME_STATUS_UNSPECIFIED) == opened  # as before the field
    page = client.stub.ListGames(pb.ListGamesRequest(status=pb.GAME_STATUS_PLAYING))
    summary = next(g for g in page.games if g.game_id == first)
    assert summary.status == pb.GAME_STATUS_PLAYING and all(s.taken for s in summary.seats)

    client.stub.LeaveGame(pb.LeaveGameRequest(game_id=first), metadata=auth(tokens[0]))
    assert first not in _listed(client, pb.GAME_STATUS_PLAYING)  # resigned: ended


@pytest.mark.parametrize("status", [pb.GAME_STATUS_FINISHED, pb.GAME_STATUS_ABANDONED, 99])
def test_a_status_the_lobby_does_not_list_by_is_refused(client: Client, status: int) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        client.stub.ListGames(pb.ListGamesRequest(status=status))  # type: ignore[arg-type]
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error_info(caught.value).reason == "INVALID_STATUS"
