"""Player identity (issue 29): a server started with --auth-jwt-secret (HS256) or --auth-jwks
(RS256, ES256) reads the operator's JWT from ``x-player-token``: a seat taken with it is the
player's, taken again from another device, listed by ListMyGames. A bad token (expired,
malformed, wrongly signed, an algorithm not allowed) is UNAUTHENTICATED and changes nothing."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from tricktable.v1 import game_service_pb2 as pb

from service.config import REDIS_URL_ENV
from tests.servers import Served, running_server, serve_process
from tests.service.support import Client, auth, error_info

SECRET = "a test secret of thirty-two bytes or more, for HS256"


def _token(player: str, *, key: Any = SECRET, alg: str = "HS256", **claims: Any) -> str:
    return jwt.encode({"sub": player, "exp": int(time.time()) + 600, **claims}, key, alg)


def _as(token: str) -> list[tuple[str, str]]:
    return [("x-player-token", token)]


@pytest.fixture(scope="module", params=["memory", "redis"])
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    fields: dict[str, Any] = {"auth_jwt_secret": SECRET}
    if request.param == "redis":
        fields["redis_url"] = request.getfixturevalue("redis_url")
    with running_server(**fields) as served:
        yield served


def _refused(call: Any, code: grpc.StatusCode, reason: str) -> None:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    assert caught.value.code() == code, caught.value.details()
    assert error_info(caught.value).reason == reason


def _join(client: Client, game_id: str, who: str | None, **fields: Any) -> pb.JoinGameResponse:
    request = pb.JoinGameRequest(game_id=game_id, player_name="n", **fields)
    joined: pb.JoinGameResponse = client.stub.JoinGame(request, metadata=_as(who) if who else None)
    return joined


def test_a_players_seat_is_taken_again_from_another_device(client: Client) -> None:
    alice = _token("alice")
    game = client.create("sixty-six")
    first = _join(client, game.game_id, alice)
    again = _join(client, game.game_id, _token("alice"))  # another device, a new token
    assert again.seat == first.seat and again.seat_token != first.seat_token
    for token in (first.seat_token, again.seat_token):
        assert client.get(game.game_id, token).view.viewer == first.seat
    # The seat is still one: another player takes the other one, and the table fills.
    bob = _join(client, game.game_id, _token("bob"))
    assert bob.seat != first.seat and bob.game.status == pb.GAME_STATUS_PLAYING
    mine = client.stub.ListMyGames(pb.ListMyGamesRequest(), metadata=_as(alice)).games
    assert [(g.game.game_id, g.seat) for g in mine][:1] == [(game.game_id, first.seat)]
    assert game.game_id not in {
        g.game.game_id
        for g in client.stub.ListMyGames(
            pb.ListMyGamesRequest(), metadata=_as(_token("carol"))
        ).games
    }
    # The seat token of either device plays, and leaves (resigns) for the player.
    client.stub.LeaveGame(
        pb.LeaveGameRequest(game_id=game.game_id), metadata=auth(again.seat_token)
    )
    assert client.get(game.game_id).game.status == pb.GAME_STATUS_ABANDONED


def test_a_bad_player_token_is_unauthenticated_and_changes_nothing(client: Client) -> None:
    game = client.create("sixty-six")
    expired = _token("alice", exp=int(time.time()) - 60)
    wrong_key = _token("alice", key="another secret of thirty-two bytes, or more")
    unsigned = jwt.encode({"sub": "alice"}, "", "none")
    no_sub = jwt.encode({"exp": int(time.time()) + 60}, SECRET, "HS256")
    for bad in (expired, wrong_key, unsigned, no_sub, "not.a.jwt", "x" * 5000):
        _refused(
            lambda bad=bad: _join(client, game.game_id, bad),
            grpc.StatusCode.UNAUTHENTICATED,
            "INVALID_PLAYER_TOKEN",
        )
        _refused(
            lambda bad=bad: client.stub.ListMyGames(pb.ListMyGamesRequest(), metadata=_as(bad)),
            grpc.StatusCode.UNAUTHENTICATED,
            "INVALID_PLAYER_TOKEN",
        )
    assert not any(s.taken for s in client.get(game.game_id).game.seats)
    _refused(
        lambda: client.stub.ListMyGames(pb.ListMyGamesRequest()),
        grpc.StatusCode.UNAUTHENTICATED,
        "MISSING_PLAYER_TOKEN",
    )


def test_a_seat_kept_for_a_player_is_taken_with_their_identity(client: Client) -> None:
    made = client.stub.CreateGame(
        pb.CreateGameRequest(
            game_type="sixty-six",
            visibility=pb.VISIBILITY_UNLISTED,
            reserved_seats=[pb.SeatReservation(seat=1, player_id="dora")],
        )
    )
    assert dict(made.seat_invite_codes) == {}
    game_id = made.game.game_id
    _refused(
        lambda: _join(client, game_id, _token("eve"), invite_code=made.invite_code, seat=1),
        grpc.StatusCode.FAILED_PRECONDITION,
        "SEAT_RESERVED",
    )
    dora = _join(client, game_id, _token("dora"))  # no code needed: the seat is hers
    assert dora.seat == 1
    eve = _join(client, game_id, _token("eve"), invite_code=made.invite_code)
    assert eve.seat == 0


def test_quick_play_and_rematch_keep_the_players_seats(client: Client) -> None:
    clock = {"move_ms": int(time.time() * 1000) % 3_000_000 + 60_000}
    request = pb.QuickPlayRequest(game_type="sixty-six", player_name="q")
    request.time_control.move_ms = clock["move_ms"]
    first = client.stub.QuickPlay(request, metadata=_as(_token("fay")), timeout=60)
    next(first)
    second = list(client.stub.QuickPlay(request, metadata=_as(_token("gus")), timeout=60))
    fay = next(r for r in first if r.WhichOneof("kind") == "matched").matched
    gus = second[-1].matched
    mine = client.stub.ListMyGames(pb.ListMyGamesRequest(), metadata=_as(_token("fay"))).games
    assert (mine[0].game.game_id, mine[0].seat) == (fay.game_id, fay.seat)
    again = _join(client, fay.game_id, _token("fay"))  # from another device
    assert again.seat == fay.seat
    client.stub.LeaveGame(pb.LeaveGameRequest(game_id=fay.game_id), metadata=auth(gus.seat_token))
    ask = pb.RematchRequest(game_id=fay.game_id)
    client.stub.Rematch(ask, metadata=auth(again.seat_token))
    offer = client.stub.Rematch(ask, metadata=auth(gus.seat_token)).rematch
    mine = client.stub.ListMyGames(pb.ListMyGamesRequest(), metadata=_as(_token("gus"))).games
    assert (mine[0].game.game_id, mine[0].seat) == (offer.game_id, (gus.seat + 1) % 2)


def _jwks(where: Path) -> tuple[Path, rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey]:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    rsa_jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(rsa_key.public_key()))
    ec_jwk = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(ec_key.public_key()))
    keys = [
        {**rsa_jwk, "kid": "r1", "alg": "RS256", "use": "sig"},
        {**ec_jwk, "kid": "e1", "alg": "ES256", "use": "sig"},
    ]
    path = where / "jwks.json"
    path.write_text(json.dumps({"keys": keys}))
    return path, rsa_key, ec_key


def test_tricktable_serve_verifies_rs256_and_es256_with_a_jwks_file(
    tmp_path: Path, redis_url: str
) -> None:
    path, rsa_key, ec_key = _jwks(tmp_path)
    with serve_process("--auth-jwks", str(path), env={REDIS_URL_ENV: redis_url}) as server:
        client = server.client
        game = client.create("sixty-six")
        by_rsa = _token("hal", key=rsa_key, alg="RS256")
        rs = jwt.encode(
            {"sub": "hal", "exp": int(time.time()) + 60}, rsa_key, "RS256", headers={"kid": "r1"}
        )
        es = jwt.encode(
            {"sub": "hal", "exp": int(time.time()) + 60}, ec_key, "ES256", headers={"kid": "e1"}
        )
        seat = _join(client, game.game_id, rs).seat
        assert _join(client, game.game_id, es).seat == seat  # the same player, either key
        assert by_rsa  # a token without kid: refused, the JWKS holds two keys
        _refused(
            lambda: _join(client, game.game_id, by_rsa),
            grpc.StatusCode.UNAUTHENTICATED,
            "INVALID_PLAYER_TOKEN",
        )
        # HS256 signed with the public key's text: the algorithm confusion is refused.
        forged = jwt.encode(
            {"sub": "hal"}, path.read_text() + "x" * 32, "HS256", headers={"kid": "r1"}
        )
        _refused(
            lambda: _join(client, game.game_id, forged),
            grpc.StatusCode.UNAUTHENTICATED,
            "INVALID_PLAYER_TOKEN",
        )
        assert SECRET not in server.log()


def test_without_identity_the_header_is_ignored_and_my_games_is_refused() -> None:
    with running_server() as served:
        client = served.client
        game = client.create("sixty-six")
        joined = _join(client, game.game_id, _token("ivy"))
        assert client.get(game.game_id, joined.seat_token).view.viewer == joined.seat
        _refused(
            lambda: client.stub.ListMyGames(pb.ListMyGamesRequest(), metadata=_as(_token("ivy"))),
            grpc.StatusCode.UNAUTHENTICATED,
            "MISSING_PLAYER_TOKEN",
        )


def test_serve_refuses_a_short_secret_or_an_unreadable_jwks(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    for flags in (("--auth-jwt-secret", "short"), ("--auth-jwks", str(bad))):
        with pytest.raises(AssertionError, match="exited"), serve_process(*flags):
            pass
