"""The web door through real sockets, without a browser: every RPC over Connect JSON, Connect
binary and gRPC-Web against a real server, answered exactly as over native gRPC (same messages,
same projections, same codes and ErrorInfo reasons), CORS for allowed and refused origins, and
StreamEvents live over both web protocols."""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc, moves_pb2

from tests.servers import Served, running_server
from tests.service.support import Client, Table, auth, error_info
from tests.web.support import PROTOCOLS, SERVICE, WebClient, WebError, envelope, envelopes

ORIGIN = "https://cards.example.com"


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with running_server(web_port=0, web_origins=(ORIGIN,)) as served:
        yield served


@pytest.fixture
def native(served: Served) -> Client:
    return served[1]


@pytest.fixture(params=PROTOCOLS)
def web(request: pytest.FixtureRequest, served: Served) -> Iterator[WebClient]:
    client = WebClient(served.web_url, request.param)
    yield client
    client.close()


def native_stream(native: Client, game_id: str, token: str | None) -> list[pb.StreamEventsResponse]:
    request = pb.StreamEventsRequest(game_id=game_id, from_version=0)
    return list(native.stub.StreamEvents(request, metadata=auth(token)))


def submit(
    web: WebClient, game_id: str, token: str, move: moves_pb2.Move, version: int, **more: Any
) -> pb.SubmitMoveResponse:
    request = pb.SubmitMoveRequest(
        game_id=game_id,
        move=move,
        expected_version=version,
        request_id=uuid.uuid4().hex,
        **more,
    )
    return web.call("SubmitMove", request, pb.SubmitMoveResponse, token)


def test_every_rpc_answers_as_native_grpc_does(web: WebClient, native: Client) -> None:
    types = web.call("ListGameTypes", pb.ListGameTypesRequest(), pb.ListGameTypesResponse)
    assert types == native.stub.ListGameTypes(pb.ListGameTypesRequest())
    assert {t.name for t in types.game_types} == {
        "counterpoint",
        "ninety-nine",
        "sixty-six",
        "nominations",
    }

    created = web.call(
        "CreateGame",
        pb.CreateGameRequest(game_type="counterpoint", seed=b"web door"),
        pb.CreateGameResponse,
    )
    game_id = created.game.game_id
    lobby = web.call(
        "ListGames",
        pb.ListGamesRequest(game_type="counterpoint", page_size=100),
        pb.ListGamesResponse,
    )
    assert game_id in {g.game_id for g in lobby.games} or lobby.next_page_token

    tokens = []
    for seat in (0, 1):
        joined = web.call(
            "JoinGame",
            pb.JoinGameRequest(game_id=game_id, seat=seat, player_name=f"web{seat}"),
            pb.JoinGameResponse,
        )
        assert joined.seat == seat
        tokens.append(joined.seat_token)

    # The same view, projected for the same viewer, through either door.
    for token in (None, *tokens):
        got = web.call("GetGame", pb.GetGameRequest(game_id=game_id), pb.GetGameResponse, token)
        assert got == native.get(game_id, token)

    version = 0
    for _ in range(8):
        state = native.get(game_id, tokens[0])
        seat = state.view.to_act[0]
        mine = web.call(
            "GetGame", pb.GetGameRequest(game_id=game_id), pb.GetGameResponse, tokens[seat]
        )
        moved = submit(web, game_id, tokens[seat], mine.view.legal_moves[0], mine.game.version)
        assert moved.version == mine.game.version + 1
        version = moved.version
    assert native.get(game_id).game.version == version

    left = web.call(
        "LeaveGame", pb.LeaveGameRequest(game_id=game_id), pb.LeaveGameResponse, tokens[1]
    )
    assert left.game.status == pb.GAME_STATUS_ABANDONED
    assert left.game.resigned_seat == 1

    # The whole stream (it ends with the resignation), for a seat and for a spectator.
    for token in (tokens[0], None):
        request = pb.StreamEventsRequest(game_id=game_id, from_version=0)
        streamed = list(web.stream("StreamEvents", request, pb.StreamEventsResponse, token))
        assert streamed == native_stream(native, game_id, token)
        assert [b.version for b in streamed] == list(range(version + 2))

    record = web.call(
        "GetGameRecord", pb.GetGameRecordRequest(game_id=game_id), pb.GetGameRecordResponse
    )
    assert record == native.stub.GetGameRecord(pb.GetGameRecordRequest(game_id=game_id))


def _table_after_bids(native: Client) -> tuple[Table, int]:
    """A Counterpoint table past the bids (laid aside by both seats): its seat to play."""
    table = native.table("counterpoint")
    for token in table.tokens:
        native.play_first(table.game_id, token)
    return table, native.get(table.game_id).view.to_act[0]


def _in_thread(call: Any) -> queue.Queue[Any]:
    answers: queue.Queue[Any] = queue.Queue()

    def run() -> None:
        try:
            answers.put(call())
        except Exception as exc:  # handed to the test thread
            answers.put(exc)

    threading.Thread(target=run, daemon=True).start()
    return answers


def _wait_for_version(native: Client, game_id: str, version: int) -> None:
    deadline = time.monotonic() + 30
    while native.get(game_id).game.version < version:
        assert time.monotonic() < deadline, "the game did not reach the version"
        time.sleep(0.02)


def test_wait_for_turn_holds_the_answer_until_the_seat_is_to_act(
    web: WebClient, native: Client
) -> None:
    table, first = _table_after_bids(native)
    other = 1 - first
    waited = _in_thread(
        lambda: web.call(
            "GetGame",
            pb.GetGameRequest(game_id=table.game_id, wait_for_turn=True),
            pb.GetGameResponse,
            table.tokens[other],
            timeout_ms=20_000,
        )
    )
    time.sleep(0.3)
    assert waited.empty(), "the waiting seat was answered before its turn"
    native.play_first(table.game_id, table.tokens[first])
    got = waited.get(timeout=30)
    assert isinstance(got, pb.GetGameResponse), got
    assert other in got.view.to_act

    # SubmitMove with wait_for_turn: committed at once, answered at the mover's next turn.
    mine = native.get(table.game_id, table.tokens[other])
    moving = _in_thread(
        lambda: submit(
            web,
            table.game_id,
            table.tokens[other],
            mine.view.legal_moves[0],
            mine.game.version,
            wait_for_turn=True,
        )
    )
    _wait_for_version(native, table.game_id, mine.game.version + 1)
    theirs = native.get(table.game_id, table.tokens[first])
    if first in theirs.view.to_act:  # the trick goes on: the other seat's move ends the wait
        native.move(
            table.game_id, table.tokens[first], theirs.view.legal_moves[0], theirs.game.version
        )
    moved = moving.get(timeout=30)
    assert isinstance(moved, pb.SubmitMoveResponse), moved
    assert moved.version == mine.game.version + 1
    assert other in moved.view.to_act or moved.view.finished
    assert moved.view_version == native.get(table.game_id).game.version


# -- errors --------------------------------------------------------------------------------


def _native_rejection(native: Client, method: str, request: Message, token: str | None) -> Any:
    with pytest.raises(grpc.RpcError) as caught:
        getattr(native.stub, method)(request, metadata=auth(token))
    err: Any = caught.value
    return err.code().value[0], error_info(err)


def _web_rejection(web: WebClient, method: str, request: Message, token: str | None) -> WebError:
    reply = {
        "GetGame": pb.GetGameResponse,
        "SubmitMove": pb.SubmitMoveResponse,
        "CreateGame": pb.CreateGameResponse,
        "JoinGame": pb.JoinGameResponse,
        "LeaveGame": pb.LeaveGameResponse,
        "GetGameRecord": pb.GetGameRecordResponse,
    }[method]
    with pytest.raises(WebError) as caught:
        web.call(method, request, reply, token)
    return caught.value


def _error_cases(native: Client) -> list[tuple[str, str, Message, str | None, int, str]]:
    table, first = _table_after_bids(native)
    idle = 1 - first
    idle_view = native.get(table.game_id, table.tokens[idle])
    card = idle_view.view.seats[idle].hand.cards[0]
    version = idle_view.game.version
    play = moves_pb2.Move(play_card=moves_pb2.PlayCard(card=card))

    def move(**fields: Any) -> pb.SubmitMoveRequest:
        return pb.SubmitMoveRequest(
            game_id=table.game_id, request_id=uuid.uuid4().hex, **{"move": play, **fields}
        )

    unknown = "0123456789abcdef"
    return [
        ("unknown game", "GetGame", pb.GetGameRequest(game_id=unknown), None, 5, "GAME_NOT_FOUND"),
        (
            "malformed id",
            "GetGame",
            pb.GetGameRequest(game_id="no such"),
            None,
            3,
            "INVALID_REQUEST",
        ),
        (
            "bad token",
            "GetGame",
            pb.GetGameRequest(game_id=table.game_id),
            "not-a-seat-token",
            16,
            "INVALID_TOKEN",
        ),
        (
            "no token",
            "SubmitMove",
            move(expected_version=version),
            None,
            16,
            "MISSING_TOKEN",
        ),
        (
            "wrong seat",
            "SubmitMove",
            move(expected_version=version, seat=first),
            table.tokens[idle],
            7,
            "WRONG_SEAT",
        ),
        (
            "not your turn",
            "SubmitMove",
            move(expected_version=version),
            table.tokens[idle],
            9,
            "NOT_YOUR_TURN",
        ),
        (
            "stale version",
            "SubmitMove",
            move(expected_version=version + 5),
            table.tokens[idle],
            10,
            "STALE_VERSION",
        ),
        (
            "unknown game type",
            "CreateGame",
            pb.CreateGameRequest(game_type="chess"),
            None,
            3,
            "UNKNOWN_GAME",
        ),
        (
            "seat taken",
            "JoinGame",
            pb.JoinGameRequest(game_id=table.game_id, seat=0),
            None,
            9,
            "SEAT_TAKEN",
        ),
        (
            "record of a running game",
            "GetGameRecord",
            pb.GetGameRecordRequest(game_id=table.game_id),
            None,
            9,
            "GAME_NOT_FINISHED",
        ),
        (
            "leaving without a token",
            "LeaveGame",
            pb.LeaveGameRequest(game_id=table.game_id),
            None,
            16,
            "MISSING_TOKEN",
        ),
    ]


def test_errors_have_the_native_code_reason_and_metadata(web: WebClient, native: Client) -> None:
    for name, method, request, token, code, reason in _error_cases(native):
        native_code, native_info = _native_rejection(native, method, request, token)
        assert (native_code, native_info.reason) == (code, reason), name
        got = _web_rejection(web, method, request, token)
        assert got.code == code, name
        assert got.info is not None, f"{name}: no ErrorInfo"
        assert got.info == native_info, name
        assert got.message, name
        if web.protocol != "grpc-web":
            status = {3: 400, 5: 404, 7: 403, 9: 400, 10: 409, 16: 401}[code]
            assert got.http_status == status, name
        if name == "stale version":
            assert dict(got.info.metadata) == {"current_version": "2"}


def test_a_rejected_move_changes_nothing(web: WebClient, native: Client) -> None:
    table, first = _table_after_bids(native)
    before = [native.get(table.game_id, t) for t in (None, *table.tokens)]
    idle = 1 - first
    card = before[1 + idle].view.seats[idle].hand.cards[0]
    move = moves_pb2.Move(play_card=moves_pb2.PlayCard(card=card))
    with pytest.raises(WebError) as caught:
        submit(web, table.game_id, table.tokens[idle], move, before[0].game.version)
    assert caught.value.info is not None and caught.value.info.reason == "NOT_YOUR_TURN"
    assert [native.get(table.game_id, t) for t in (None, *table.tokens)] == before


@pytest.mark.parametrize(
    ("protocol", "body"),
    [
        ("connect-json", b'{"gameId": '),
        ("connect-json", b'{"noSuchField": 1}'),
        ("connect-proto", b"\xff\xff\xff\xff"),
        ("grpc-web", b"\x00\x00\x00\x00\x04\xff\xff\xff\xff"),
    ],
)
def test_malformed_bytes_are_invalid_argument(served: Served, protocol: str, body: bytes) -> None:
    web = WebClient(served.web_url, protocol)
    try:
        with pytest.raises(WebError) as caught:
            web.call_raw("GetGame", body, pb.GetGameResponse)
    finally:
        web.close()
    assert caught.value.code == 3
    assert caught.value.info is not None
    assert (caught.value.info.reason, caught.value.info.domain) == (
        "MALFORMED_REQUEST",
        "tricktable",
    )


def test_an_oversized_request_is_resource_exhausted(web: WebClient) -> None:
    request = pb.JoinGameRequest(game_id="abc", player_name="x" * 100_000)
    with pytest.raises(WebError) as caught:
        web.call("JoinGame", request, pb.JoinGameResponse)
    assert caught.value.code == 8


def test_the_readme_curl_call_works(served: Served) -> None:
    """``curl -H 'content-type: application/json' -d '{}' .../ListGameTypes``: no Connect
    header at all, as curl sends it."""
    reply = httpx.post(
        f"{served.web_url}/{SERVICE}/ListGameTypes",
        content=b"{}",
        headers={"content-type": "application/json"},
    )
    assert reply.status_code == 200
    assert {t["name"] for t in reply.json()["gameTypes"]} >= {"ninety-nine", "counterpoint"}


# -- CORS ----------------------------------------------------------------------------------

CONNECT_HEADERS = "authorization,content-type,connect-protocol-version,connect-timeout-ms"
GRPC_WEB_HEADERS = "authorization,content-type,x-grpc-web,x-user-agent,grpc-timeout"


def _preflight(served: Served, origin: str, headers: str, **more: str) -> httpx.Response:
    return httpx.options(
        f"{served.web_url}/{SERVICE}/SubmitMove",
        headers={
            "origin": origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": headers,
            **more,
        },
    )


@pytest.mark.parametrize("headers", [CONNECT_HEADERS, GRPC_WEB_HEADERS])
def test_a_preflight_from_an_allowed_origin_names_that_origin(served: Served, headers: str) -> None:
    reply = _preflight(served, ORIGIN, headers)
    assert reply.status_code == 200
    assert reply.headers["access-control-allow-origin"] == ORIGIN
    assert "access-control-allow-credentials" not in reply.headers
    allowed = {h.strip().lower() for h in reply.headers["access-control-allow-headers"].split(",")}
    assert set(headers.split(",")) <= allowed
    assert "POST" in reply.headers["access-control-allow-methods"]
    assert "Origin" in reply.headers["vary"]


@pytest.mark.parametrize(
    "origin", ["https://evil.example.com", "https://cards.example.com.evil.com", "null"]
)
def test_a_preflight_from_another_origin_is_refused(served: Served, origin: str) -> None:
    host = origin.removeprefix("https://")
    reply = _preflight(served, origin, CONNECT_HEADERS, host=host)  # never the Host header
    assert reply.status_code == 400
    assert "access-control-allow-origin" not in reply.headers


def test_an_allowed_origin_may_read_the_status_headers(served: Served) -> None:
    for protocol in PROTOCOLS:
        web = WebClient(served.web_url, protocol, origin=ORIGIN)
        try:
            with pytest.raises(WebError) as caught:
                web.call(
                    "GetGame", pb.GetGameRequest(game_id="0123456789abcdef"), pb.GetGameResponse
                )
        finally:
            web.close()
        headers = caught.value.headers
        assert headers["access-control-allow-origin"] == ORIGIN
        exposed = {h.strip().lower() for h in headers["access-control-expose-headers"].split(",")}
        assert {"grpc-status", "grpc-message", "grpc-status-details-bin"} <= exposed


def test_another_origin_gets_no_cors_grant(served: Served) -> None:
    web = WebClient(served.web_url, "connect-json", origin="https://evil.example.com")
    try:
        web.call("ListGameTypes", pb.ListGameTypesRequest(), pb.ListGameTypesResponse)
        assert "access-control-allow-origin" not in web.last_headers
    finally:
        web.close()


# -- StreamEvents --------------------------------------------------------------------------


class Watcher:
    """A stream followed on a thread of its own: its batches, then "end" (or the error)."""

    def __init__(self, web: WebClient, game_id: str, token: str | None) -> None:
        self.web = web
        self.arrived: queue.Queue[Any] = queue.Queue()
        self.seen: list[pb.StreamEventsResponse] = []
        request = pb.StreamEventsRequest(game_id=game_id, from_version=0)
        stream = web.stream("StreamEvents", request, pb.StreamEventsResponse, token)
        threading.Thread(target=self._follow, args=(stream,), daemon=True).start()

    def _follow(self, stream: Iterator[pb.StreamEventsResponse]) -> None:
        try:
            for batch in stream:
                self.arrived.put(batch)
            self.arrived.put("end")
        except Exception as exc:  # handed to the test thread
            self.arrived.put(exc)

    def next(self) -> Any:
        item = self.arrived.get(timeout=30)
        if isinstance(item, pb.StreamEventsResponse):
            self.seen.append(item)
        return item


@pytest.mark.parametrize("protocol", ["connect-json", "connect-proto", "grpc-web"])
def test_stream_events_arrive_live_projected_as_natively(
    served: Served, native: Client, protocol: str
) -> None:
    table = native.table("counterpoint")
    watchers = {
        token: Watcher(WebClient(served.web_url, protocol), table.game_id, token)
        for token in (None, table.tokens[0])
    }
    try:
        for watcher in watchers.values():
            assert watcher.next().version == 0
        for seat, bidder in enumerate(table.tokens):  # each bid arrives as it is made
            native.play_first(table.game_id, bidder)
            for watcher in watchers.values():
                batch = watcher.next()
                assert (batch.version, batch.seat) == (seat + 1, seat)
        resign = pb.LeaveGameRequest(game_id=table.game_id)
        native.stub.LeaveGame(resign, metadata=auth(table.tokens[1]))
        for viewer, watcher in watchers.items():
            assert watcher.next().resigned_seat == 1
            assert watcher.next() == "end"
            assert watcher.seen == native_stream(native, table.game_id, viewer)
    finally:
        for watcher in watchers.values():
            watcher.web.close()
    # The spectator saw each bid's count, never a card laid aside, nor any hand.
    spectator = watchers[None].seen
    laid = [
        e.cards_laid_aside for b in spectator for e in b.events if e.HasField("cards_laid_aside")
    ]
    assert [(e.seat, e.count, e.HasField("cards")) for e in laid] == [(0, 3, False), (1, 3, False)]
    dealt = [e.deal_started for e in spectator[0].events if e.HasField("deal_started")]
    assert dealt and all(not hand.cards for deal in dealt for hand in deal.hands)
    seat0 = watchers[table.tokens[0]].seen
    assert [
        e.cards_laid_aside.HasField("cards")
        for b in seat0
        for e in b.events
        if e.HasField("cards_laid_aside")
    ] == [True, False]


@pytest.mark.parametrize("protocol", ["connect-json", "connect-proto", "grpc-web"])
def test_a_stream_error_carries_its_error_info(served: Served, protocol: str) -> None:
    web = WebClient(served.web_url, protocol)
    request = pb.StreamEventsRequest(game_id="0123456789abcdef")
    try:
        with pytest.raises(WebError) as caught:
            list(web.stream("StreamEvents", request, pb.StreamEventsResponse))
    finally:
        web.close()
    assert caught.value.code == 5
    assert caught.value.info is not None and caught.value.info.reason == "GAME_NOT_FOUND"


async def _tasks() -> int:
    return len(asyncio.all_tasks())


def test_a_watcher_that_leaves_ends_its_stream() -> None:
    # A server of its own: on the module's, other tests' calls end at their own pace and move
    # the count of tasks both ways.
    with running_server(web_port=0) as served:
        server, native = served
        table = native.table("counterpoint")
        idle = server.call(_tasks)
        web = WebClient(served.web_url, "connect-proto")
        request = pb.StreamEventsRequest(game_id=table.game_id, from_version=0)
        stream: Any = web.stream("StreamEvents", request, pb.StreamEventsResponse)
        assert next(stream).version == 0
        assert server.call(_tasks) > idle
        stream.close()
        web.close()
        deadline = time.monotonic() + 20
        while server.call(_tasks) > idle:
            assert time.monotonic() < deadline, "the departed watcher's stream still runs"
            time.sleep(0.05)


def test_the_web_port_speaks_http2_too(served: Served, native: Client) -> None:
    """HTTP/2 without TLS (prior knowledge), for Connect and for a plain gRPC client."""
    with httpx.Client(http1=False, http2=True) as h2:
        reply = h2.post(
            f"{served.web_url}/{SERVICE}/ListGameTypes",
            content=b"{}",
            headers={"content-type": "application/json"},
        )
    assert (reply.http_version, reply.status_code) == ("HTTP/2", 200)
    address = served.web_url.removeprefix("http://")
    with grpc.insecure_channel(address) as channel:
        stub = game_service_pb2_grpc.GameServiceStub(channel)
        types = stub.ListGameTypes(pb.ListGameTypesRequest(), timeout=30)
    assert types == native.stub.ListGameTypes(pb.ListGameTypesRequest())


def test_the_web_table_is_served_at_the_root(served: Served) -> None:
    page = httpx.get(f"{served.web_url}/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert 'src="app.js?v=' in page.text  # by its content's hash (kept by browsers for good)
    script = httpx.get(f"{served.web_url}/app.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert httpx.get(f"{served.web_url}/no-such-file.png").status_code == 404
    assert httpx.get(f"{served.web_url}/../pyproject.toml").status_code == 404


def test_the_play_stream_is_refused_on_the_web_port_with_where_to_play(
    served: Served,
) -> None:
    """Both-ways streaming is the native port's: over the web a clear UNIMPLEMENTED says so."""
    opening = pb.PlayRequest(open=pb.PlayOpen(game_id="abc"))
    reply = httpx.post(
        f"{served.web_url}/{SERVICE}/Play",
        content=envelope(json_format.MessageToJson(opening).encode()),
        headers={"content-type": "application/connect+json"},
    )
    frames = list(envelopes(reply.content))
    flags, last = frames[-1]
    assert flags == 0x02
    error = json.loads(last)["error"]
    assert error["code"] == "unimplemented" and "gRPC port" in error["message"]
