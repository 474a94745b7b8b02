"""Hostile input through every door of a ``serve`` process (benchmarks/fuzz.py): native gRPC,
the play stream after a good opening, and the web port in Connect JSON, Connect binary and
gRPC-Web (and gRPC over both HTTP versions, GET, other methods, WebSocket handshakes). Every RPC,
every web protocol and content type, the headers the protocols read, truncated, oversized and
compressed frames: no UNKNOWN, no INTERNAL, no deadline left to expire, no HTTP 5xx (but
Connect's 501 for ``unimplemented``), no game changed by a refused request, the server still
serving and every line it wrote JSON.

A bounded count with a fixed seed; ``TRICKTABLE_FUZZ_DOORS=N`` sends N instead, and ``pytest -s``
prints the counts per door and status. ``tricktable bench fuzz --requests N`` runs a long one."""

from __future__ import annotations

import json
import os

from benchmarks.fuzz import DOORS, fuzz_process

COUNT = int(os.environ.get("TRICKTABLE_FUZZ_DOORS", "3000"))
SEED = 25


def test_every_door_answers_hostile_input_as_the_clients_error() -> None:
    result = fuzz_process(COUNT, SEED)
    print(json.dumps({k: result[k] for k in ("seconds", "requests", "counts")}, indent=1))
    assert result["requests"] == COUNT
    assert set(result["counts"]) == set(DOORS), "every door was driven"
    assert result["violations"] == 0, json.dumps(
        {"violations": result["violations_by_door"], "examples": result["examples"]}, indent=1
    )
    server = result["server"]
    assert server["alive"], "the server stopped serving"
    assert server["unstructured_lines"] == 0, server["unstructured_examples"]
    # The run met what it was built to send: refusals of each kind, and accepted calls too.
    grpc_codes = result["counts"]["grpc"]
    assert grpc_codes.get("INVALID_ARGUMENT", 0) > 0 and grpc_codes.get("OK", 0) > 0
    assert result["counts"]["play"].get("INVALID_ARGUMENT", 0) > 0
    for door in ("web:connect-json", "web:connect-proto", "web:grpc-web"):
        statuses = result["counts"][door]
        assert any(s.startswith("invalid_argument") for s in statuses), (door, statuses)
        assert any(s.startswith("ok") for s in statuses), (door, statuses)
