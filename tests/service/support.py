"""The tests' own client of a real server (over the generated stub, so that what it checks is the
server, not the SDK) and its helpers: error details, a seat's play stream, random play. The
servers themselves are :mod:`tests.servers`."""

from __future__ import annotations

import queue
import random
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc, game_types_pb2, moves_pb2, views_pb2


def auth(token: str | None) -> list[tuple[str, str]]:
    return [] if token is None else [("authorization", f"Bearer {token}")]


@dataclass
class Table:
    """A game with every seat joined: its id and each seat's token."""

    game_id: str
    tokens: list[str] = field(default_factory=list)


class Client:
    """A thin synchronous client over the generated stub."""

    def __init__(self, address: str, *, own_connection: bool = False) -> None:
        # own_connection: a subchannel pool of its own, so a connection of its own rather than
        # one shared with every other channel to the address (grpc's default).
        options = [("grpc.use_local_subchannel_pool", 1)] if own_connection else []
        self.channel = grpc.insecure_channel(address, options=options)
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def create(
        self, game_type: str, options: Mapping[str, object] | None = None, seed: bytes = b""
    ) -> pb.GameSummary:
        request = pb.CreateGameRequest(game_type=game_type, seed=seed)
        for name, value in (options or {}).items():
            request.options[name].CopyFrom(option_value(value))
        response: pb.CreateGameResponse = self.stub.CreateGame(request)
        return response.game

    def table(
        self, game_type: str, options: Mapping[str, object] | None = None, seed: bytes = b""
    ) -> Table:
        return self.seat_all(self.create(game_type, options, seed))

    def seat_all(self, game: pb.GameSummary) -> Table:
        """Every seat of ``game`` joined (player names bot0, bot1, ...)."""
        table = Table(game.game_id)
        for seat in range(len(game.seats)):
            joined = self.stub.JoinGame(
                pb.JoinGameRequest(game_id=game.game_id, seat=seat, player_name=f"bot{seat}")
            )
            table.tokens.append(joined.seat_token)
        return table

    def get(self, game_id: str, token: str | None = None) -> pb.GetGameResponse:
        response: pb.GetGameResponse = self.stub.GetGame(
            pb.GetGameRequest(game_id=game_id), metadata=auth(token)
        )
        return response

    def move(
        self,
        game_id: str,
        token: str | None,
        move: moves_pb2.Move,
        version: int,
        request_id: str | None = None,
    ) -> pb.SubmitMoveResponse:
        request = pb.SubmitMoveRequest(
            game_id=game_id,
            move=move,
            expected_version=version,
            request_id=request_id or uuid.uuid4().hex,
        )
        response: pb.SubmitMoveResponse = self.stub.SubmitMove(request, metadata=auth(token))
        return response

    def play_first(
        self, game_id: str, token: str, version: int | None = None
    ) -> pb.SubmitMoveResponse:
        """The seat's first legal move, expecting ``version`` (None: the version it reads)."""
        mine = self.get(game_id, token)
        expected = mine.game.version if version is None else version
        return self.move(game_id, token, mine.view.legal_moves[0], expected)


@contextmanager
def clients(address: str, count: int) -> Iterator[list[Client]]:
    """``count`` clients of the server at ``address``, each on a connection of its own (as
    separate players are), closed afterwards."""
    made = [Client(address, own_connection=True) for _ in range(count)]
    try:
        yield made
    finally:
        for client in made:
            client.close()


def seat_view(response: pb.GetGameResponse) -> views_pb2.View:
    """GetGame's view as the seat's play stream gives it: without presence, which only GetGame
    reads (a store read per view; the stream's own seat is present by holding it)."""
    view = views_pb2.View()
    view.CopyFrom(response.view)
    del view.presence[:]
    return view


def game_bytes(response: pb.GetGameResponse) -> bytes:
    """A GetGame answer as bytes, to compare what a viewer can read of the game before and
    after something: without the seats' presence, which a reading seat itself refreshes."""
    copy = pb.GetGameResponse()
    copy.CopyFrom(response)
    del copy.view.presence[:]
    return copy.SerializeToString(deterministic=True)


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo:
    """The ErrorInfo in a failed call's status details."""
    status = rpc_status.from_call(err)
    assert status is not None, "the error carries no status details"
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info
    raise AssertionError("no ErrorInfo in the status details")


def retry_after_s(err: grpc.RpcError) -> float:
    """The RetryInfo delay in a failed call's status details, in seconds."""
    status = rpc_status.from_call(err)
    assert status is not None, "the error carries no status details"
    for detail in status.details:
        retry = error_details_pb2.RetryInfo()
        if detail.Unpack(retry):
            return float(retry.retry_delay.ToNanoseconds()) / 1e9
    raise AssertionError("no RetryInfo in the status details")


def play_random_game(
    client: Client, table: Table, rng: random.Random, max_moves: int = 5000
) -> pb.GetGameResponse:
    """Random legal moves for whichever seat is to act, until the game ends. Generic over
    games: it only reads to_act and each seat's legal moves from the server."""
    state = client.get(table.game_id, table.tokens[0])
    for _ in range(max_moves):
        if state.view.finished:
            return state
        seat = rng.choice(list(state.view.to_act))
        mine = client.get(table.game_id, table.tokens[seat])
        legal = mine.view.legal_moves
        assert legal, f"seat {seat} is to act but has no legal move"
        move = legal[rng.randrange(len(legal))]
        client.move(table.game_id, table.tokens[seat], move, mine.game.version)
        state = client.get(table.game_id, table.tokens[0])
    raise AssertionError(f"the game did not end within {max_moves} moves")


def option_value(value: object) -> game_types_pb2.OptionValue:
    if isinstance(value, bool):
        return game_types_pb2.OptionValue(bool_value=value)
    if isinstance(value, int):
        return game_types_pb2.OptionValue(int_value=value)
    return game_types_pb2.OptionValue(string_value=str(value))


#: Play streams whose moves are answered at once, and with the seat's next turn
#: (PlayOpen.wait_for_turn): a test run in both.
WAIT_FOR_TURN = pytest.mark.parametrize(
    "wait_for_turn", [False, True], ids=["answered-at-once", "wait-for-turn"]
)


class PlayLine:
    """A seat's raw play stream (GameService.Play) over the generated stub: requests go in
    through a queue, responses are read one by one."""

    def __init__(
        self,
        client: Client,
        game_id: str,
        token: str | None,
        from_version: int = 0,
        *,
        wait_for_turn: bool = False,
    ) -> None:
        self._requests: queue.Queue[pb.PlayRequest | None] = queue.Queue()
        opening = pb.PlayOpen(
            game_id=game_id, from_version=from_version, wait_for_turn=wait_for_turn
        )
        self.send(pb.PlayRequest(open=opening))
        self.call = client.stub.Play(iter(self._requests.get, None), metadata=auth(token))

    def send(self, request: pb.PlayRequest) -> None:
        self._requests.put(request)

    def move(self, move: moves_pb2.Move, version: int, request_id: str | None = None) -> str:
        """Send a move; returns its request id."""
        request_id = request_id or uuid.uuid4().hex
        play = pb.PlayMove(move=move, expected_version=version, request_id=request_id)
        self.send(pb.PlayRequest(move=play))
        return request_id

    def next(self) -> pb.PlayStep:
        response: pb.PlayResponse = next(self.call)
        assert response.WhichOneof("kind") == "step"  # the parts of a step come in one message
        return response.step

    def until(self, part: str) -> tuple[pb.PlayStep, list[pb.PlayStep]]:
        """Steps up to the next one that has ``part`` (result, events or view): (that one,
        those before it)."""
        before: list[pb.PlayStep] = []
        while True:
            step = self.next()
            if step.events if part == "events" else step.HasField(part):  # type: ignore[arg-type]
                return step, before
            before.append(step)

    def close(self) -> None:
        self._requests.put(None)
        self.call.cancel()
