"""One vocabulary of error reasons: ``tricktable.v1.ErrorReason`` in ``proto/`` names every
reason the server can put in ``google.rpc.ErrorInfo.reason``, and nothing else.

The engine keeps its own ``Reason`` enum (it knows nothing of protobuf) and the service raises
its errors with a reason; both must be names of the published enum, so a client in any language
can switch on them. The service's reasons are found in its source (class attributes and
``reason=`` arguments), and in the reader of protobuf into engine values it shares with the
bots (``tricktable.bots.expert.wire``, whose ``WireError`` the service turns into its own error
with the same reason), so a new reason written there fails here until the protocol documents it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from google.rpc import error_details_pb2
from tricktable.v1 import errors_pb2

from engine.core.errors import Reason
from service import errors as service_errors
from service.errors import GENERIC_MESSAGE, STATUS_CODES, TricktableError, status_of

ROOT = Path(__file__).resolve().parents[2]
#: The client package's reader the service reads requests through (service/convert.py).
WIRE = ROOT / "clients" / "python" / "tricktable" / "bots" / "expert" / "wire.py"
PUBLISHED = set(errors_pb2.ErrorReason.keys()) - {"ERROR_REASON_UNSPECIFIED"}


def _error_makers() -> set[str]:
    """The names a reason is given through: the service's error classes, and helpers that make
    one (a function whose name starts with ``_bad``)."""
    classes = {name for name, value in vars(service_errors).items() if isinstance(value, type)}
    return {n for n in classes if issubclass(getattr(service_errors, n), TricktableError)}


def _service_reasons() -> dict[str, str]:
    """Every reason string the service's source gives an error, with where it stands: the
    ``reason`` of an error class, and the ``reason=`` of a call that makes an error."""
    makers = _error_makers()
    found: dict[str, str] = {}
    for path in [*sorted((ROOT / "service").rglob("*.py")), WIRE]:
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            values: list[ast.expr] = []
            if isinstance(node, ast.Call):
                callee = node.func
                name = callee.id if isinstance(callee, ast.Name) else getattr(callee, "attr", "")
                if name in makers or name.startswith("_bad"):
                    values = [k.value for k in node.keywords if k.arg == "reason"]
                elif name == "WireError":  # WireError(message, reason)
                    values = [
                        *node.args[1:2],
                        *(k.value for k in node.keywords if k.arg == "reason"),
                    ]
            elif isinstance(node, ast.ClassDef):
                for statement in node.body:
                    if isinstance(statement, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == "reason" for t in statement.targets
                    ):
                        values.append(statement.value)
            for value in values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found[value.value] = f"{path.relative_to(ROOT)}:{value.lineno}"
    return found


def test_every_engine_reason_is_published() -> None:
    assert {r.value for r in Reason} - PUBLISHED == set()


def test_every_reason_the_service_raises_is_published() -> None:
    found = _service_reasons()
    assert "MISSING_TOKEN" in found  # the scan does see the service's reasons
    unpublished = {reason: where for reason, where in found.items() if reason not in PUBLISHED}
    assert unpublished == {}


def test_every_published_reason_is_used() -> None:
    internal = status_of(RuntimeError())[2]  # the reason of every unexpected exception
    used = {r.value for r in Reason} | set(_service_reasons()) | {internal}
    assert PUBLISHED - used == set()


def test_an_unexpected_exception_reports_the_published_internal_reason() -> None:
    code, message, reason, _ = status_of(RuntimeError("secret detail"))
    assert (code.name, message, reason) == ("INTERNAL", GENERIC_MESSAGE, "INTERNAL")
    assert reason in PUBLISHED


def test_every_service_error_class_has_a_published_reason() -> None:
    for cls in STATUS_CODES:
        if issubclass(cls, TricktableError):
            assert cls.reason in PUBLISHED, cls


def test_proto_ships_what_another_language_needs_to_decode_errors() -> None:
    """A client generated from proto/ alone finds Status, ErrorInfo and RetryInfo there."""
    rpc = ROOT / "proto" / "google" / "rpc"
    assert "message Status {" in (rpc / "status.proto").read_text()
    details = (rpc / "error_details.proto").read_text()
    for message in ("ErrorInfo", "RetryInfo"):
        assert f"message {message} {{" in details
    # the shipped copies describe the same messages this server sends
    assert error_details_pb2.ErrorInfo.DESCRIPTOR.full_name == "google.rpc.ErrorInfo"
