"""Hostile input through every door of a running server: native gRPC, the play stream, and the
web port in Connect JSON, Connect binary and gRPC-Web (and what else arrives there: gRPC over
HTTP/1.1, unknown content types, GET, other HTTP methods).

Each request is one case drawn from a seeded generator: a method of the service (every RPC), a
request that is structured (a message with fields set to hostile values: other games' ids,
garbage, edge numbers, moves of any kind), mutated (bytes flipped, cut short, garbage appended,
random bytes) or oversized; on the web port also its framing (envelopes cut short, lengths that
lie, compressed flags with and without an agreed encoding, gzip that is not gzip, trailing bytes,
two messages, end and trailer flags) and its headers (every header the protocols read: timeouts,
encodings, accepted encodings, protocol version, content types, the seat token, bytes that are
not UTF-8). The play stream is opened well on a real seat, then sent a malformed, repeated or
hostile message.

What is checked of every answer (a *violation* otherwise): no UNKNOWN, INTERNAL or deadline left
to expire, no HTTP 5xx (Connect's 501, which its protocol mandates for the ``unimplemented`` code,
is the one kind of 5xx it allows), an answer that parses in its protocol, and no game changed by
a refused request (each request that names one of the run's games is compared with the game's
public state before it). The run's games are real tables with every seat taken.

``tricktable bench fuzz --requests N`` (service/cli/bench.py) runs it against a ``serve`` process
of its own and prints the counts per door and status as JSON; the project's tests run a bounded
count with a fixed seed (tests/service/test_fuzz_doors.py).
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import json
import os
import queue
import random
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import httpx
from google.protobuf import descriptor, json_format
from google.protobuf.message import DecodeError, Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import game_service_pb2_grpc, moves_pb2

from benchmarks.redis_server import free_port
from engine import game_names

SERVICE = "tricktable.v1.GameService"
WEB_PROTOCOLS = ("connect-json", "connect-proto", "grpc-web")
#: The doors, as the counts name them.
DOORS = ("grpc", "play", *(f"web:{p}" for p in WEB_PROTOCOLS), "web:other")
#: gRPC codes that say the server failed (or never answered), not the client.
SERVER_FAULTS = {"UNKNOWN", "INTERNAL", "DEADLINE_EXCEEDED", "UNAVAILABLE", "DATA_LOSS"}
CONNECT_FAULTS = {"unknown", "internal", "deadline_exceeded", "unavailable", "data_loss"}
#: The service's methods: name → (request class, kind).
METHODS: dict[str, tuple[type[Message], str]] = {}
for _m in pb.DESCRIPTOR.services_by_name["GameService"].methods:
    _kind = (
        "stream_stream"
        if _m.client_streaming
        else "unary_stream"
        if _m.server_streaming
        else "unary_unary"
    )
    METHODS[_m.name] = (getattr(pb, _m.input_type.name), _kind)
#: Methods that change a game when they are accepted.
MUTATING = {"JoinGame", "SubmitMove", "LeaveGame"}
TIMEOUT_S = 5.0
#: How long a stream that was accepted may stay silent: it waits for the game's next version.
WAITING_S = 1.5
WAITING = "OK (stream open, waiting for the next version)"
GRPC_CODE_NAMES = {code.value[0]: code.name for code in grpc.StatusCode}


@dataclass
class Outcome:
    door: str
    status: str
    violation: str | None = None
    case: str = ""


@dataclass
class Tally:
    """Counts per door and status, and the violations with a few examples."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)
    violations: dict[str, Counter[str]] = field(default_factory=dict)
    examples: list[dict[str, str]] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        self.counts.setdefault(outcome.door, Counter())[outcome.status] += 1
        if outcome.violation is not None:
            key = f"{outcome.status}: {outcome.violation}"
            self.violations.setdefault(outcome.door, Counter())[key] += 1
            if len(self.examples) < 40:
                self.examples.append(
                    {
                        "door": outcome.door,
                        "status": outcome.status,
                        "violation": outcome.violation,
                        "case": outcome.case[:300],
                    }
                )

    @property
    def requests(self) -> int:
        return sum(sum(c.values()) for c in self.counts.values())

    @property
    def violation_count(self) -> int:
        return sum(sum(c.values()) for c in self.violations.values())

    def as_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "violations": self.violation_count,
            "counts": {door: dict(sorted(c.items())) for door, c in sorted(self.counts.items())},
            "violations_by_door": {
                door: dict(sorted(c.items())) for door, c in sorted(self.violations.items())
            },
            "examples": self.examples,
        }


def envelope(data: bytes, flags: int = 0, length: int | None = None) -> bytes:
    return struct.pack(">BI", flags, len(data) if length is None else length) + data


# --- values --------------------------------------------------------------------------------


class Values:
    """Hostile field values, some of them the run's real ids and tokens."""

    def __init__(self, rng: random.Random, pool: Pool) -> None:
        self.rng = rng
        self.pool = pool

    def string(self) -> str:
        r = self.rng
        table = self.pool.pick()
        choices: list[Callable[[], str]] = [
            lambda: table.game_id,
            lambda: "",
            lambda: uuid.uuid4().hex,
            lambda: "x" * r.choice((1, 64, 65, 300, 5000)),
            lambda: r.choice(game_names()),
            lambda: "nominations\x00",
            lambda: "\u00e9\U0001f0a1" * r.randrange(1, 40),
            lambda: "../../etc/passwd",
            lambda: " " + table.game_id,
            lambda: r.choice(("pass", "declare", "misere", "10", "-1", "NaN", "null")),
            lambda: "".join(chr(r.randrange(0x20, 0x2FF)) for _ in range(r.randrange(0, 20))),
        ]
        return r.choice(choices)()

    def integer(self, signed: bool = True) -> int:
        r = self.rng
        edge = [0, 1, 2, 3, 4, 7, 13, 52, 99, 2**31 - 1, 2**32 - 1, 2**63 - 1]
        if signed:
            edge += [-1, -(2**31), -(2**63)]
        if r.random() < 0.6:
            return r.choice(edge)
        return r.randrange(-5, 60) if signed else r.randrange(0, 60)

    def fill(self, msg: Message, depth: int = 0) -> Message:
        """Sets some of ``msg``'s fields to hostile values (recursively, a few levels deep)."""
        r = self.rng
        # (protobuf's stubs name two FieldDescriptor classes, the C one and the Python one)
        fields: list[Any] = list(msg.DESCRIPTOR.fields)
        r.shuffle(fields)
        oneofs_done: set[str] = set()
        for f in fields[: r.randrange(0, len(fields) + 1)]:
            if f.containing_oneof is not None:
                if f.containing_oneof.name in oneofs_done:
                    continue
                oneofs_done.add(f.containing_oneof.name)
            self._set(msg, f, depth)
        return msg

    def _set(self, msg: Message, f: descriptor.FieldDescriptor, depth: int) -> None:
        r = self.rng
        repeated = f.is_repeated
        count = r.randrange(0, 4) if repeated else 1
        for _ in range(count):
            if f.type == f.TYPE_MESSAGE:
                entry = f.message_type
                assert entry is not None
                if entry.GetOptions().map_entry:
                    key_field = entry.fields_by_name["key"]
                    value_field = entry.fields_by_name["value"]
                    key = self.string() if key_field.type == f.TYPE_STRING else self.integer()
                    target = getattr(msg, f.name)
                    if value_field.type == f.TYPE_MESSAGE:
                        if depth < 3:
                            self.fill(target[key], depth + 1)
                    else:
                        # a value the field's type cannot hold: another one next time
                        with contextlib.suppress(TypeError, ValueError):
                            target[key] = self._scalar(value_field)
                    continue
                if depth >= 3:
                    return
                child = getattr(msg, f.name).add() if repeated else getattr(msg, f.name)
                if not repeated:
                    child.SetInParent()
                self.fill(child, depth + 1)
                continue
            value = self._scalar(f)
            with contextlib.suppress(TypeError, ValueError):
                if repeated:
                    getattr(msg, f.name).append(value)
                else:
                    setattr(msg, f.name, value)

    def _scalar(self, f: descriptor.FieldDescriptor) -> Any:
        r = self.rng
        if f.type == f.TYPE_STRING:
            return self.string()
        if f.type == f.TYPE_BYTES:
            return r.randbytes(r.randrange(0, 40))
        if f.type == f.TYPE_BOOL:
            return r.random() < 0.5
        if f.type == f.TYPE_ENUM:
            assert f.enum_type is not None
            return r.choice([v.number for v in f.enum_type.values] + [99, -1])
        if f.type in (f.TYPE_DOUBLE, f.TYPE_FLOAT):
            return r.choice((0.0, -1.0, 1e308, float("nan"), float("inf"), 0.5))
        unsigned = f.type in (f.TYPE_UINT32, f.TYPE_UINT64, f.TYPE_FIXED32, f.TYPE_FIXED64)
        value = self.integer(signed=not unsigned)
        bits = 32 if f.type in (f.TYPE_INT32, f.TYPE_UINT32, f.TYPE_SINT32, f.TYPE_FIXED32,
                                f.TYPE_SFIXED32) else 64  # fmt: skip
        if unsigned:
            return value % (2**bits)
        return max(-(2 ** (bits - 1)), min(2 ** (bits - 1) - 1, value))

    def bytes_of(self, valid: bytes, max_bytes: int) -> tuple[str, bytes]:
        """A mutation of ``valid``'s bytes: (what was done, the bytes)."""
        r = self.rng
        kind = r.randrange(7)
        if kind == 0:
            return "random", r.randbytes(r.randrange(0, 120))
        if kind == 1 and valid:
            data = bytearray(valid)
            for _ in range(r.randrange(1, 4)):
                data[r.randrange(len(data))] = r.randrange(256)
            return "flipped", bytes(data)
        if kind == 2 and valid:
            return "cut", valid[: r.randrange(len(valid))]
        if kind == 3:
            return "appended", valid + r.randbytes(r.randrange(1, 8))
        if kind == 4:
            return "oversized", valid + b"\x0a" + b"\xff\xff\x03" + b"x" * (max_bytes + 10)
        if kind == 5:
            return "bad-tag", b"\x0f" + r.randbytes(r.randrange(0, 10))
        return "empty", b""


# --- the run's games -----------------------------------------------------------------------


@dataclass
class Table:
    game_id: str
    tokens: list[str]


class Pool:
    """A few real games with every seat taken, renewed when one ends."""

    def __init__(self, stub: game_service_pb2_grpc.GameServiceStub, rng: random.Random) -> None:
        self.stub = stub
        self.rng = rng
        self.tables: list[Table] = [self._new(name) for name in game_names()]

    def _new(self, game_type: str) -> Table:
        game = self.stub.CreateGame(
            pb.CreateGameRequest(game_type=game_type, seed=b"fuzz"), timeout=TIMEOUT_S
        ).game
        tokens = [
            self.stub.JoinGame(
                pb.JoinGameRequest(game_id=game.game_id, seat=seat, player_name=f"fuzz{seat}"),
                timeout=TIMEOUT_S,
            ).seat_token
            for seat in range(len(game.seats))
        ]
        return Table(game.game_id, tokens)

    def pick(self) -> Table:
        return self.rng.choice(self.tables)

    def find(self, game_id: str) -> Table | None:
        for table in self.tables:
            if table.game_id == game_id:
                return table
        return None

    def snapshot(self, game_id: str) -> bytes:
        """The game's public state: version, status and public view (without the seats'
        presence, which a stream opened and refused may change: it is not the game's)."""
        got = self.stub.GetGame(pb.GetGameRequest(game_id=game_id), timeout=TIMEOUT_S)
        got.view.ClearField("presence")
        state: bytes = got.game.SerializeToString(deterministic=True)
        view: bytes = got.view.SerializeToString(deterministic=True)
        return state + view

    def renew(self) -> None:
        """Replaces the games that ended (finished, abandoned) with new ones."""
        for i, table in enumerate(self.tables):
            got = self.stub.GetGame(pb.GetGameRequest(game_id=table.game_id), timeout=TIMEOUT_S)
            if got.view.finished or got.game.status != pb.GAME_STATUS_PLAYING:
                self.tables[i] = self._new(got.game.game_type)

    def legal_move(self, table: Table) -> tuple[str, moves_pb2.Move, int] | None:
        """A seat to act's token, a legal move of it and the version."""
        public = self.stub.GetGame(pb.GetGameRequest(game_id=table.game_id), timeout=TIMEOUT_S)
        if not public.view.to_act:
            return None
        seat = self.rng.choice(list(public.view.to_act))
        token = table.tokens[seat]
        mine = self.stub.GetGame(
            pb.GetGameRequest(game_id=table.game_id),
            metadata=[("authorization", f"Bearer {token}")],
            timeout=TIMEOUT_S,
        )
        if not mine.view.legal_moves:
            return None
        return token, self.rng.choice(list(mine.view.legal_moves)), mine.game.version


# --- requests ------------------------------------------------------------------------------


@dataclass
class Request:
    """A request of one method: its message (when it is one) and bytes, the game it names."""

    method: str
    how: str
    data: bytes
    message: Message | None
    game_id: str | None
    token: str | None


class Requests:
    """Structured, mutated and oversized requests of every method."""

    def __init__(self, values: Values, pool: Pool, max_bytes: int) -> None:
        self.values = values
        self.pool = pool
        self.max_bytes = max_bytes
        self.rng = values.rng

    def token(self, table: Table) -> str | None:
        r = self.rng
        pick = r.randrange(6)
        if pick <= 1:
            return r.choice(table.tokens)
        if pick == 2:
            return r.choice(self.pool.pick().tokens)
        if pick == 3:
            return None
        if pick == 4:
            return uuid.uuid4().hex
        return self.values.string() or "x"

    def structured(self, method: str, table: Table) -> Message:
        """A plausible request of ``method`` on ``table`` with hostile values mixed in."""
        request_class = METHODS[method][0]
        msg = request_class()
        if "game_id" in msg.DESCRIPTOR.fields_by_name:
            msg.game_id = table.game_id  # type: ignore[attr-defined]
        if method == "SubmitMove":
            assert isinstance(msg, pb.SubmitMoveRequest)
            msg.request_id = uuid.uuid4().hex
            msg.move.CopyFrom(self.move())
        if method == "CreateGame":
            assert isinstance(msg, pb.CreateGameRequest)
            msg.game_type = self.rng.choice(game_names())
        self.values.fill(msg)
        # Calls that wait (for a turn, a version) wait on purpose: that is not hostile input.
        for name in ("wait_for_turn", "after_version"):
            if name in msg.DESCRIPTOR.fields_by_name:
                msg.ClearField(name)
        return msg

    def move(self) -> moves_pb2.Move:
        move = moves_pb2.Move()
        kind = self.rng.choice(move.DESCRIPTOR.oneofs[0].fields)
        getattr(move, kind.name).SetInParent()
        self.values.fill(getattr(move, kind.name))
        return move

    def make(self, method: str) -> Request:
        table = self.pool.pick()
        msg = self.structured(method, table)
        valid = msg.SerializeToString()
        token = self.token(table)
        how = "structured"
        data = valid
        if self.rng.random() < 0.4:
            how, data = self.values.bytes_of(valid, self.max_bytes)
        elif method == "SubmitMove" and self.rng.random() < 0.3:
            legal = self.pool.legal_move(table)
            if legal is not None:
                token, move, version = legal
                msg = pb.SubmitMoveRequest(
                    game_id=table.game_id,
                    move=move,
                    expected_version=version + self.rng.choice((0, 0, 1, -1)),
                    request_id=uuid.uuid4().hex,
                )
                how, data = "legal-move", msg.SerializeToString()
        game_id = getattr(msg, "game_id", None) if how in ("structured", "legal-move") else None
        return Request(method, how, data, msg, game_id, token)


def _parses(request_class: type[Message], data: bytes) -> bool:
    try:
        request_class.FromString(data)
    except DecodeError:
        return False
    return True


# --- the doors -----------------------------------------------------------------------------


class Fuzz:
    """One seeded run against a server's gRPC address and web URL (None: no web door)."""

    def __init__(
        self,
        address: str,
        web_url: str | None,
        seed: int = 0,
        *,
        max_message_bytes: int = 64 * 1024,
    ) -> None:
        self.rng = random.Random(seed)
        self.channel = grpc.insecure_channel(
            address, options=[("grpc.max_send_message_length", 8 * max_message_bytes)]
        )
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)
        self.pool = Pool(self.stub, self.rng)
        self.values = Values(self.rng, self.pool)
        self.requests = Requests(self.values, self.pool, max_message_bytes)
        self.max_bytes = max_message_bytes
        self.web_url = web_url
        self.http = httpx.Client(base_url=web_url, timeout=TIMEOUT_S) if web_url else None
        # HTTP/2 without TLS (prior knowledge), as gRPC clients and some proxies speak it.
        self.http2 = (
            httpx.Client(base_url=web_url, timeout=TIMEOUT_S, http1=False, http2=True)
            if web_url
            else None
        )
        self.tally = Tally()

    def close(self) -> None:
        self.channel.close()
        if self.http is not None:
            self.http.close()
        if self.http2 is not None:
            self.http2.close()

    def run(self, requests: int, doors: tuple[str, ...] = DOORS) -> Tally:
        """``requests`` cases spread evenly over ``doors``, in a seeded order."""
        if self.http is None:
            doors = tuple(d for d in doors if not d.startswith("web"))
        for i in range(requests):
            door = doors[i % len(doors)]
            if i % 50 == 49:
                self.pool.renew()
            self.tally.add(self.one(door))
        return self.tally

    def one(self, door: str) -> Outcome:
        if door == "grpc":
            return self.native()
        if door == "play":
            return self.play()
        if door == "web:other":
            return self.web_other()
        return self.web(door.removeprefix("web:"))

    # .. the change check ..

    def _guarded(
        self, door: str, game_id: str | None, call: Callable[[], tuple[str, bool]], case: str
    ) -> Outcome:
        """Runs ``call`` (→ status, whether it was refused), comparing the named game before
        and after when it was refused."""
        table = self.pool.find(game_id) if game_id else None
        before = self.pool.snapshot(table.game_id) if table is not None else None
        status, refused = call()
        violation = None
        if table is not None and refused and self.pool.snapshot(table.game_id) != before:
            violation = "a refused request changed the game"
        return Outcome(door, status, violation, case)

    # .. native gRPC ..

    def native(self) -> Outcome:
        method = self.rng.choice([m for m in METHODS if m != "Play"])
        request = self.requests.make(method)
        kind = METHODS[method][1]
        metadata = self._metadata(request.token)
        path = f"/{SERVICE}/{method}"
        case = f"{method} {request.how} {request.data[:80]!r} metadata={metadata!r}"

        def call() -> tuple[str, bool]:
            code = _native_call(self.channel, path, kind, request.data, metadata)
            return code, code != "OK"

        game = request.game_id if method in MUTATING else None
        outcome = self._guarded("grpc", game, call, case)
        if outcome.violation is None and outcome.status in SERVER_FAULTS:
            outcome.violation = "a server error"
        # Malformed bytes are INVALID_ARGUMENT; unless the call is refused before its bytes are
        # read (an oversized message by grpc, a malformed token by the limits).
        plain = metadata == [("authorization", f"Bearer {request.token}")] or not metadata
        if (
            outcome.violation is None
            and not _parses(METHODS[method][0], request.data)
            and outcome.status != "INVALID_ARGUMENT"
            and not (request.how == "oversized" and outcome.status == "RESOURCE_EXHAUSTED")
            and not (not plain and outcome.status == "UNAUTHENTICATED")
        ):
            outcome.violation = "malformed bytes not INVALID_ARGUMENT"
        return outcome

    def _metadata(self, token: str | None) -> list[tuple[str, str]]:
        r = self.rng
        if token is None:
            return []
        if not token.isascii() or not token.isprintable():
            # grpc refuses such a value before sending it: its bytes as hex instead.
            token = token.encode().hex()
        pick = r.randrange(8)
        if pick == 0:
            return [("authorization", f"Basic {token}")]
        if pick == 1:
            return [("authorization", token)]
        if pick == 2:
            return [("authorization", f"Bearer {token}"), ("authorization", "Bearer x")]
        if pick == 3:
            return [("authorization", "Bearer " + "t" * r.choice((100, 5000)))]
        return [("authorization", f"Bearer {token}")]

    # .. the play stream ..

    def play(self) -> Outcome:
        r = self.rng
        table = self.pool.pick()
        seat = r.randrange(len(table.tokens))
        token: str | None = table.tokens[seat]
        opening = pb.PlayRequest(open=pb.PlayOpen(game_id=table.game_id))
        if r.random() < 0.2:  # a hostile opening
            token = self.requests.token(table)
            self.values.fill(opening.open)
            opening.open.wait_for_turn = r.random() < 0.5
        open_bytes = opening.SerializeToString()
        what = r.randrange(6)
        follow: bytes | None
        request_id = uuid.uuid4().hex
        if what == 0:
            how, follow = self.values.bytes_of(
                pb.PlayRequest(
                    move=pb.PlayMove(move=self.requests.move(), request_id=request_id)
                ).SerializeToString(),
                self.max_bytes,
            )
        elif what == 1:
            how, follow = "second-open", open_bytes
        elif what == 2:
            how, follow = "empty-request", b""
        elif what == 3:
            how, follow = "bad-tag", b"\x0f" + r.randbytes(r.randrange(0, 10))
        elif what == 4:
            move = pb.PlayMove(move=self.requests.move(), request_id=request_id)
            self.values.fill(move)
            request_id = move.request_id
            how, follow = "hostile-move", pb.PlayRequest(move=move).SerializeToString()
        else:
            how, follow = "nothing", None
        malformed = follow is not None and not _parses(pb.PlayRequest, follow)
        case = f"Play {how} open={opening!r} then {follow[:80] if follow else None!r}"

        metadata = self._metadata(token)
        good_open = (
            opening.open.game_id == table.game_id
            and not opening.open.from_version
            and metadata == [("authorization", f"Bearer {table.tokens[seat]}")]
        )

        def call() -> tuple[str, bool]:
            status, answered_ok = _play_call(self.channel, open_bytes, follow, metadata, request_id)
            return status, not answered_ok

        outcome = self._guarded("play", table.game_id, call, case)
        if outcome.violation is None and outcome.status.split(" ")[0] in SERVER_FAULTS:
            outcome.violation = "a server error"
        if (
            outcome.violation is None
            and malformed
            # A game that ended ends its stream after the opening, reading nothing more.
            and outcome.status not in ("INVALID_ARGUMENT", "RESOURCE_EXHAUSTED", "OK (ended)")
            and good_open
        ):
            outcome.violation = "a malformed message after a good open not INVALID_ARGUMENT"
        return outcome

    # .. the web port ..

    def web(self, protocol: str) -> Outcome:
        r = self.rng
        method = r.choice(list(METHODS))
        kind = METHODS[method][1]
        request = self.requests.make(method) if method != "Play" else None
        msg = request.message if request is not None else pb.PlayRequest()
        data = request.data if request is not None else b""
        token = request.token if request is not None else None
        streaming = kind != "unary_unary"
        codec = "json" if protocol == "connect-json" else "proto"
        if (
            codec == "json"
            and msg is not None
            and request is not None
            and request.how in ("structured", "legal-move")
        ):
            data = json_format.MessageToJson(msg).encode()
        elif codec == "json" and r.random() < 0.5:
            data = r.choice((b"{", b"[]", b'{"gameId": 5}', b'{"nope": 1}', b"\xff\xfe", data))
        headers: dict[str, str | bytes] = {}
        if protocol == "grpc-web":
            content_type = "application/grpc-web+proto"
            headers["x-grpc-web"] = "1"
        elif streaming:
            content_type = f"application/connect+{codec}"
        else:
            content_type = f"application/{codec}"
        headers["content-type"] = content_type
        if protocol != "grpc-web":
            headers["connect-protocol-version"] = "1"
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        enveloped = protocol == "grpc-web" or streaming
        how = request.how if request is not None else "play"
        body, framing = self._framed(data, enveloped, headers, protocol, streaming)
        header_how = self._web_headers(headers, protocol, streaming)
        case = (
            f"{method} {protocol} {how} framing={framing} headers={header_how} body={body[:80]!r}"
        )
        game = request.game_id if request is not None and method in MUTATING else None

        def call() -> tuple[str, bool]:
            return self._post(method, headers, body)

        outcome = self._guarded(f"web:{protocol}", game, call, case)
        return self._judge_web(outcome)

    def _framed(
        self,
        data: bytes,
        enveloped: bool,
        headers: dict[str, str | bytes],
        protocol: str,
        streaming: bool,
    ) -> tuple[bytes, str]:
        r = self.rng
        if not enveloped:
            if r.random() < 0.25:
                pick = r.randrange(4)
                name = "content-encoding"
                if pick == 0:
                    headers[name] = "gzip"
                    return gzip.compress(data), "gzip"
                if pick == 1:
                    headers[name] = "gzip"
                    return data or b"x", "gzip-not-gzip"
                if pick == 2:
                    headers[name] = r.choice(("br", "GZIP", "identity", "x", ""))
                    return data, f"encoding={headers[name]!r}"
                headers[name] = "gzip"
                return gzip.compress(data)[:-4], "gzip-cut"
            if r.random() < 0.05:
                return data + b"x" * (self.max_bytes + 1), "oversized"
            return data, "plain"
        encoding = "grpc-encoding" if protocol == "grpc-web" else "connect-content-encoding"
        pick = r.randrange(14)
        if pick == 0:
            return envelope(data)[: r.randrange(0, 5 + len(data))], "truncated"
        if pick == 1:
            return envelope(data, length=r.choice((2**32 - 1, self.max_bytes + 1))), "lying-length"
        if pick == 2:
            return envelope(data, flags=1), "compressed-no-encoding"
        if pick == 3:
            headers[encoding] = "gzip"
            return envelope(gzip.compress(data), flags=1), "gzip"
        if pick == 4:
            headers[encoding] = "gzip"
            return envelope(data or b"x", flags=1), "gzip-not-gzip"
        if pick == 5:
            headers[encoding] = r.choice(("br", "x", "GZIP", ""))
            return envelope(data, flags=r.choice((0, 1))), f"encoding={headers[encoding]!r}"
        if pick == 6:
            return envelope(data, flags=r.choice((2, 0x80, 0xFF, 4))), "odd-flags"
        if pick == 7:
            return envelope(data) + envelope(data), "two-messages"
        if pick == 8:
            return b"", "no-message"
        if pick == 9:
            return envelope(data) + r.randbytes(r.randrange(1, 5)), "trailing-bytes"
        if pick == 10:
            return envelope(b"x" * (self.max_bytes + 1)), "oversized"
        if pick == 11:
            headers[encoding] = "gzip"
            bomb = gzip.compress(b"\x00" * (self.max_bytes * 20))
            return envelope(bomb, flags=1), "gzip-bomb"
        return envelope(data), "plain"

    def _web_headers(
        self, headers: dict[str, str | bytes], protocol: str, streaming: bool
    ) -> list[str]:
        """Mutates a few headers the protocols read; names what it did."""
        r = self.rng
        done: list[str] = []
        for _ in range(r.choice((0, 0, 1, 1, 2, 3))):
            pick = r.randrange(11)
            if pick == 0:
                headers["grpc-timeout"] = r.choice(
                    ("1S", "100m", "abc", "1Z", "99999999999H", "", "-1S", "1.5S", " 1S",
                     "99999999H", "0n", "5u", "\uff11S", "S", "123456789S")
                )  # fmt: skip
                done.append(f"grpc-timeout={headers['grpc-timeout']!r}")
            elif pick == 1:
                headers["connect-timeout-ms"] = r.choice(
                    ("100", "0", "-5", "abc", "99999999999", "1e3", "+5", "\uff11\uff12",
                     "1_000", "", "5000", "9999999999")
                )  # fmt: skip
                done.append(f"connect-timeout-ms={headers['connect-timeout-ms']!r}")
            elif pick == 2:
                name = r.choice(
                    ("accept-encoding", "connect-accept-encoding", "grpc-accept-encoding")
                )
                headers[name] = r.choice(("gzip", "br", "gzip, identity", "*", "", "x;q=0"))
                done.append(f"{name}={headers[name]!r}")
            elif pick == 3:
                headers["connect-protocol-version"] = r.choice(("2", "", "1.0", "x"))
                done.append(f"connect-protocol-version={headers['connect-protocol-version']!r}")
            elif pick == 4:
                ct = str(headers.get("content-type", ""))
                headers["content-type"] = r.choice(
                    (
                        ct + "; charset=utf-8",
                        ct.upper(),
                        "application/connect+json" if not streaming else "application/json",
                        "application/grpc-web+json",
                        "application/grpc-web",
                        "application/grpc-web-text",
                        "application/xml",
                        "",
                    )
                )
                done.append(f"content-type={headers['content-type']!r}")
            elif pick == 5:
                headers["authorization"] = r.choice(
                    (b"Bearer \xff\xfe", "Basic Zm9vOmJhcg==", "Bearer", "Bearer " + "t" * 5000)
                )
                done.append(f"authorization={headers['authorization']!r:.40}")
            elif pick == 6:
                headers["x-junk"] = bytes(r.randrange(0x80, 0x100) for _ in range(6))
                done.append("non-utf8-header")
            elif pick == 7:
                headers.pop("content-type", None)
                done.append("no-content-type")
            elif pick == 8:
                headers["grpc-encoding" if protocol == "grpc-web" else "content-encoding"] = (
                    r.choice(("gzip", "deflate", "snappy"))
                )
                done.append("stray-encoding")
            elif pick == 9:
                headers["te"] = "trailers"
                headers["x-user-agent"] = "\u00e9".encode().decode("latin-1")
                done.append("te+x-user-agent")
            else:
                headers["origin"] = r.choice(("https://evil.example", "null", "x"))
                done.append("origin")
        return done

    def _post(self, method: str, headers: dict[str, str | bytes], body: bytes) -> tuple[str, bool]:
        assert self.http is not None
        waits = method == "StreamEvents"
        try:
            with self.http.stream(
                "POST",
                f"/{SERVICE}/{method}",
                headers=_wire(headers),
                content=body,
                timeout=WAITING_S if waits else TIMEOUT_S,
            ) as reply:
                return _web_status(reply)
        except httpx.TimeoutException:
            if waits:
                return WAITING, False
            return "no answer (timeout)", True
        except httpx.HTTPError as exc:
            return f"no answer ({type(exc).__name__})", True

    def web_other(self) -> Outcome:
        """What else reaches the web port: gRPC over HTTP/1.1, GET, other HTTP methods,
        unknown content types, unknown paths."""
        assert self.http is not None
        r = self.rng
        method = r.choice(list(METHODS))
        request = self.requests.make(method) if method != "Play" else None
        data = request.data if request is not None else b""
        pick = r.randrange(9)
        if pick == 8:
            return self._judge_web(self._raw_http(method, data))
        headers: dict[str, str | bytes] = {}
        path = f"/{SERVICE}/{method}"
        verb = "POST"
        client: httpx.Client | None = self.http
        if pick == 6:
            # gRPC where it is spoken (HTTP/2); httpx reads no trailers, so a trailers-only
            # answer (headers) is judged, else the HTTP status alone.
            client = self.http2
            headers["content-type"] = r.choice(("application/grpc", "application/grpc+proto"))
            headers["te"] = "trailers"
            headers[r.choice(("grpc-timeout", "grpc-encoding", "x-ok"))] = r.choice(
                ("abc", "1Z", "99999999999H", "gzip", "1S")
            )
            body = r.choice((envelope(data), envelope(data, flags=1), envelope(data)[:3]))
            how = f"gRPC over HTTP/2 {headers!r}"
        elif pick == 7:
            verb = "GET"
            headers.update(
                {
                    "connection": "Upgrade",
                    "upgrade": "websocket",
                    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
                    "sec-websocket-version": "13",
                }
            )
            path = r.choice((path, "/", "/index.html", "/nope"))
            body = b""
            how = f"websocket upgrade {path}"
        elif pick == 0:
            headers["content-type"] = r.choice(
                ("application/grpc", "application/grpc+proto", "application/grpc+json")
            )
            body = envelope(data)
            how = f"gRPC over HTTP/1.1 ({headers['content-type']!r})"
        elif pick == 1:
            verb = "GET"
            data = data[:2048]  # a URL has a length the client library keeps to
            query = {
                "message": r.choice(
                    (
                        base64.urlsafe_b64encode(data).decode(),
                        data.decode("latin-1"),
                        "%%%",
                        "{}",
                    )
                ),
                "encoding": r.choice(("proto", "json", "xml", "")),
                "base64": r.choice(("1", "0", "x")),
                "compression": r.choice(("gzip", "identity", "br")),
                "connect": "v1",
            }
            path += "?" + urllib.parse.urlencode(query)
            body = b""
            how = f"GET {query['encoding']} {query['compression']}"
        elif pick == 2:
            verb = r.choice(("PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"))
            body = data
            headers["content-type"] = "application/proto"
            how = verb
        elif pick == 3:
            headers["content-type"] = r.choice(
                ("text/plain", "application/octet-stream", "multipart/form-data", "application/")
            )
            body = data
            how = f"content-type {headers['content-type']!r}"
        elif pick == 4:
            path = r.choice((f"/{SERVICE}/Nope", f"/{SERVICE}/", f"/{SERVICE}//GetGame", "/x.Y/Z"))
            headers["content-type"] = "application/proto"
            body = data
            how = f"path {path}"
        else:
            headers["content-type"] = "application/grpc-web+proto"
            headers["grpc-timeout"] = r.choice(("abc", "1Z", "99999999999H"))
            body = envelope(data)
            how = f"grpc-web timeout {headers['grpc-timeout']!r}"
        case = f"{method} {how} body={body[:60]!r}"
        assert client is not None
        try:
            with client.stream(verb, path, headers=_wire(headers), content=body) as reply:
                status, _ = _web_status(reply)
        except httpx.HTTPError as exc:
            status = f"no answer ({type(exc).__name__})"
        return self._judge_web(Outcome("web:other", status, None, case))

    def _raw_http(self, method: str, data: bytes) -> Outcome:
        """HTTP itself mis-framed, over a socket of its own: a request line or target that is
        not HTTP, a body shorter or longer than its length, broken chunks, HTTP/2 garbage."""
        assert self.web_url is not None
        r = self.rng
        path = f"/{SERVICE}/{method}".encode()
        head = b"Host: x\r\ncontent-type: application/proto\r\n"
        cases = {
            "request line": b"GARBAGE " + r.randbytes(8).replace(b"\n", b"") + b"\r\n\r\n",
            "target not ASCII": b"POST " + path + b"\xff HTTP/1.1\r\n" + head + b"\r\n",
            "query not UTF-8": b"POST " + path + b"?\xff=\xfe HTTP/1.1\r\n" + head + b"\r\n",
            "length longer than body": b"POST " + path + b" HTTP/1.1\r\n" + head
            + b"content-length: 100\r\n\r\n" + data[:10],
            "length shorter than body": b"POST " + path + b" HTTP/1.1\r\n" + head
            + b"content-length: 1\r\n\r\n" + data + b"GET / HTTP/1.1\r\n\r\n",
            "broken chunks": b"POST " + path + b" HTTP/1.1\r\n" + head
            + b"transfer-encoding: chunked\r\n\r\nzz\r\n" + data + b"\r\n0\r\n\r\n",
            "two lengths": b"POST " + path + b" HTTP/1.1\r\n" + head
            + b"content-length: 1\r\ncontent-length: 2\r\n\r\nab",
            "HTTP/2 garbage": b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + r.randbytes(40),
        }  # fmt: skip
        how = r.choice(sorted(cases))
        host, _, port = self.web_url.removeprefix("http://").rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=TIMEOUT_S) as sock:
                sock.sendall(cases[how])
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_WR)  # the client has said all it will
                first = sock.recv(64)
        except TimeoutError:
            return Outcome("web:other", "no answer (timeout)", None, f"raw {how}")
        except OSError as exc:
            first = b"" if isinstance(exc, ConnectionResetError) else b"?"
        if first.startswith(b"HTTP/1.1 "):
            status = f"raw HTTP {int(first[9:12])}"
        elif not first:
            status = "raw: closed without an answer"
        else:
            status = "raw: answered (HTTP/2 frames)"
        return Outcome("web:other", status, None, f"raw {how}")

    @staticmethod
    def _judge_web(outcome: Outcome) -> Outcome:
        if outcome.violation is not None:
            return outcome
        status = outcome.status
        code = status.split(" ")[0]
        http = int(status.rsplit("HTTP ", 1)[1]) if "HTTP " in status else 0
        if status.startswith("no answer") or status.startswith("garbled"):
            outcome.violation = "no answer in the protocol"
        elif code in CONNECT_FAULTS:
            outcome.violation = "a server error"
        elif http >= 500 and not (http == 501 and code == "unimplemented"):
            outcome.violation = "HTTP 5xx"
        return outcome


def _code_name(err: grpc.RpcError) -> str:
    code = err.code()  # a failed call is a grpc.Call too
    return code.name if isinstance(code, grpc.StatusCode) else "UNKNOWN"


def _wire(headers: dict[str, str | bytes]) -> dict[bytes, bytes]:
    """Header values as bytes: a hostile string (a token of any characters) goes as UTF-8,
    without what HTTP/1.1 cannot carry at all (control characters, whitespace at either end),
    which the client library would refuse to send."""
    wire = {}
    for name, value in headers.items():
        raw = value if isinstance(value, bytes) else value.encode()
        wire[name.encode()] = bytes(b for b in raw if b >= 0x20 and b != 0x7F).strip(b" \t")
    return wire


def _native_call(
    channel: grpc.Channel,
    path: str,
    kind: str,
    data: bytes,
    metadata: list[tuple[str, str]],
) -> str:
    try:
        if kind == "unary_unary":
            channel.unary_unary(path)(data, timeout=TIMEOUT_S, metadata=metadata)
        else:
            # A well-formed request may open a stream that stays open: the first reply is
            # enough to know it was accepted; none within WAITING_S, and it waits for a
            # version to come (a start at the next version).
            responses = channel.unary_stream(path)(data, timeout=WAITING_S, metadata=metadata)
            try:
                next(responses)
            except StopIteration:
                pass
            finally:
                responses.cancel()
    except grpc.RpcError as err:
        if kind == "unary_stream" and err.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
            return WAITING
        return _code_name(err)
    return "OK"


def _play_call(
    channel: grpc.Channel,
    opening: bytes,
    follow: bytes | None,
    metadata: list[tuple[str, str]],
    request_id: str,
) -> tuple[str, bool]:
    """A play stream: the opening, then ``follow`` once the opening step arrived (or with it).
    (status, whether a move was accepted). The stream is read until it ends, or the follow-up
    is answered, or (nothing sent after the opening) the opening step arrived."""
    sent: queue.Queue[bytes | None] = queue.Queue()
    sent.put(opening)
    if follow is not None:
        sent.put(follow)
    call = channel.stream_stream(f"/{SERVICE}/Play")(
        iter(sent.get, None), timeout=TIMEOUT_S, metadata=metadata
    )
    accepted = False
    try:
        for raw in call:
            response = pb.PlayResponse.FromString(raw)
            result = response.step.result
            if follow is None:
                return "OK (opened)", False
            if response.step.HasField("result"):
                if result.HasField("error"):
                    name = GRPC_CODE_NAMES.get(result.error.code, str(result.error.code))
                    return f"{name} (move answered)", False
                accepted = result.request_id == request_id
                return "OK (move accepted)", accepted
        return "OK (ended)", False
    except grpc.RpcError as err:
        return _code_name(err), accepted
    finally:
        sent.put(None)
        call.cancel()


def _web_status(reply: httpx.Response) -> tuple[str, bool]:
    """The status a web answer carries, in its protocol: (label, refused)."""
    http = reply.status_code
    content_type = reply.headers.get("content-type", "")
    if content_type.startswith("application/grpc-web") or content_type.startswith(
        "application/grpc"
    ):
        if "grpc-status" in reply.headers:  # trailers-only
            code = GRPC_CODE_NAMES.get(int(reply.headers["grpc-status"]), "?").lower()
            return f"{code} HTTP {http}", code != "ok"
        if not content_type.startswith("application/grpc-web"):
            return f"grpc (trailers unread) HTTP {http}", True
        return _enveloped_status(reply, http, grpc_web=True)
    if content_type.startswith("application/connect+"):
        return _enveloped_status(reply, http, grpc_web=False)
    body = reply.read()
    if http == 200:
        return f"ok HTTP {http}", False
    if content_type.startswith("application/json"):
        try:
            code = json.loads(body)["code"]
        except (ValueError, KeyError, TypeError):
            return f"garbled JSON error HTTP {http}", True
        return f"{code} HTTP {http}", True
    return f"HTTP {http}", True


def _enveloped_status(reply: httpx.Response, http: int, *, grpc_web: bool) -> tuple[str, bool]:
    """Reads envelopes until the end message (or a first data message of a live stream)."""
    buffer = b""
    for chunk in reply.iter_raw():
        buffer += chunk
        while len(buffer) >= 5:
            flags, size = struct.unpack(">BI", buffer[:5])
            if len(buffer) < 5 + size:
                break
            data, buffer = buffer[5 : 5 + size], buffer[5 + size :]
            if flags & 0x01:
                data = gzip.decompress(data)
            if grpc_web and flags & 0x80:
                trailers = dict(
                    (k.strip().lower(), v.strip())
                    for k, _, v in (
                        line.partition(":") for line in data.decode().split("\r\n") if line
                    )
                )
                code = GRPC_CODE_NAMES.get(int(trailers.get("grpc-status", "-1")), "garbled")
                return f"{code.lower()} HTTP {http}", code != "OK"
            if not grpc_web and flags & 0x02:
                end = json.loads(data or b"{}")
                if "error" in end:
                    return f"{end['error'].get('code', 'garbled')} HTTP {http}", True
                return f"ok HTTP {http}", False
            # A data message: a live stream answered; that is enough.
            return f"ok (streaming) HTTP {http}", False
    return f"garbled (no end message) HTTP {http}", True


# --- tricktable bench fuzz -----------------------------------------------------------------

_RUN_CLI = "import sys; from service.cli import main; sys.exit(main(sys.argv[1:]))"


def add_arguments(p: Any) -> None:
    p.add_argument("--requests", type=int, default=10_000, help="cases in all (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="the generator's seed (default 0)")
    p.add_argument(
        "--door",
        action="append",
        choices=DOORS,
        help="only these doors (repeatable; default all)",
    )
    p.add_argument(
        "--log-level",
        default="info",
        help="the server's log level (default info; debug logs every refused call)",
    )


def run(args: Any) -> int:
    """Fuzzes a ``serve`` process of its own; prints the counts as JSON. Exit status 1 when
    anything was violated, the server died or wrote a line that is not JSON."""
    result = fuzz_process(args.requests, args.seed, tuple(args.door or DOORS), args.log_level)
    print(json.dumps(result, indent=2))
    return 0 if result["violations"] == 0 and result["server"]["ok"] else 1


def fuzz_process(
    requests: int, seed: int, doors: tuple[str, ...] = DOORS, log_level: str = "info"
) -> dict[str, Any]:
    """``tricktable serve --web-port`` in a process of its own, fuzzed: the tally, the time
    taken, and what the server did (still serving, lines of its log that are not JSON)."""
    port, web_port = free_port(), free_port()
    command = [sys.executable, "-c", _RUN_CLI, "serve", "--port", str(port)]
    command += ["--web-port", str(web_port), "--log-format", "json", "--log-level", log_level]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRICKTABLE_REDIS")}
    with tempfile.TemporaryFile() as stderr:
        proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            address = f"127.0.0.1:{port}"
            _wait_serving(proc, address)
            fuzz = Fuzz(address, f"http://127.0.0.1:{web_port}", seed)
            try:
                start = time.perf_counter()
                tally = fuzz.run(requests, doors)
                seconds = time.perf_counter() - start
            finally:
                fuzz.close()
            alive = proc.poll() is None and _serving(address)
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        stderr.seek(0)
        lines = stderr.read().decode(errors="replace").splitlines()
    unstructured = [line for line in lines if line.strip() and not _is_json_object(line)]
    return {
        "seed": seed,
        "seconds": round(seconds, 1),
        **tally.as_json(),
        "server": {
            "ok": alive and not unstructured,
            "alive": alive,
            "log_lines": len(lines),
            "unstructured_lines": len(unstructured),
            "unstructured_examples": unstructured[:10],
        },
    }


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def _serving(address: str) -> bool:
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=2
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def _wait_serving(proc: Any, address: str, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not _serving(address):
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not become healthy")
        time.sleep(0.1)
