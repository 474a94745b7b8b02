"""The service's one error model (DESIGN.md decision 7) and its one status table.

Every error the service raises on purpose is a ``TricktableError`` with a stable, machine-readable
``reason`` (it becomes ``google.rpc.ErrorInfo.reason``) and optional ``metadata`` (ErrorInfo's
metadata, e.g. ``current_version`` for a stale move). Engine errors keep their own classes and
``Reason`` values. :data:`STATUS_CODES` is the single place that decides which status code each
class becomes; the interceptor reads it, and anything not in it is INTERNAL with a generic message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import grpc
from google.protobuf import any_pb2
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2

from engine.core.errors import (
    EngineError,
    IllegalMove,
    InvalidMove,
    InvalidOptions,
    UnknownGame,
)

ERROR_DOMAIN = "tricktable"


class TricktableError(Exception):
    """An error with a meaning a client can act on. Subclasses fix ``reason`` unless given."""

    reason: str = "ERROR"

    def __init__(
        self, message: str, *, reason: str | None = None, metadata: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        if reason is not None:
            self.reason = reason
        self.metadata: dict[str, str] = dict(metadata or {})


class InvalidRequest(TricktableError):
    """A malformed or oversized request, rejected before anything is loaded."""

    reason = "INVALID_REQUEST"


class GameNotFound(TricktableError):
    reason = "GAME_NOT_FOUND"

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id!r}")


class Unauthenticated(TricktableError):
    """No seat token where one is needed, or a token that is no seat's at this game."""

    reason = "INVALID_TOKEN"


class PermissionDenied(TricktableError):
    """A valid seat token used for another seat."""

    reason = "WRONG_SEAT"


class TicketNotFound(TricktableError):
    """A quick play ticket the queue does not hold: never made, cancelled, or gone past its
    grace time."""

    reason = "UNKNOWN_TICKET"

    def __init__(self) -> None:
        super().__init__("no such quick play ticket: it was cancelled, or left the queue")


class SeatUnavailable(TricktableError):
    """The requested seat is taken (or no seat is open)."""

    reason = "SEAT_TAKEN"


class GameNotPlayable(TricktableError):
    """The game accepts no move now for a reason outside the rules (waiting, abandoned)."""

    reason = "GAME_NOT_STARTED"


class VersionConflict(TricktableError):
    """The move was decided on another version than the current one: refresh and decide again."""

    reason = "STALE_VERSION"

    def __init__(self, current_version: int) -> None:
        super().__init__(
            f"the game is at version {current_version}",
            metadata={"current_version": str(current_version)},
        )
        self.current_version = current_version


class VersionAhead(TricktableError):
    """A stream asked to start after the game's next version: nothing to wait for there."""

    reason = "VERSION_AHEAD"

    def __init__(self, current_version: int, asked: int) -> None:
        super().__init__(
            f"the game is at version {current_version}: a stream starts at "
            f"{current_version + 1} at the latest, not {asked}",
            metadata={"current_version": str(current_version)},
        )
        self.current_version = current_version


class LimitExceeded(TricktableError):
    """A client asked for more than a limit allows (service.limits): try again after
    ``retry_after_s`` (the status carries it as a google.rpc.RetryInfo)."""

    reason = "RATE_LIMITED"

    def __init__(self, message: str, retry_after_s: float, *, reason: str | None = None) -> None:
        super().__init__(message, reason=reason)
        self.retry_after_s = retry_after_s


class StoreUnavailable(TricktableError):
    reason = "STORE_UNAVAILABLE"


class ShuttingDown(TricktableError):
    """The server is shutting down: a long-lived call ends so its client reconnects elsewhere."""

    reason = "SERVER_SHUTTING_DOWN"


#: The one table: error class → status code. Looked up along the class's MRO, so a subclass
#: inherits its parent's row unless it has its own.
STATUS_CODES: Mapping[type[Exception], grpc.StatusCode] = {
    InvalidRequest: grpc.StatusCode.INVALID_ARGUMENT,
    GameNotFound: grpc.StatusCode.NOT_FOUND,
    TicketNotFound: grpc.StatusCode.NOT_FOUND,
    Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
    PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
    SeatUnavailable: grpc.StatusCode.FAILED_PRECONDITION,
    GameNotPlayable: grpc.StatusCode.FAILED_PRECONDITION,
    VersionConflict: grpc.StatusCode.ABORTED,
    VersionAhead: grpc.StatusCode.OUT_OF_RANGE,
    StoreUnavailable: grpc.StatusCode.UNAVAILABLE,
    ShuttingDown: grpc.StatusCode.UNAVAILABLE,
    LimitExceeded: grpc.StatusCode.RESOURCE_EXHAUSTED,
    # engine errors
    IllegalMove: grpc.StatusCode.FAILED_PRECONDITION,
    InvalidMove: grpc.StatusCode.INVALID_ARGUMENT,
    InvalidOptions: grpc.StatusCode.INVALID_ARGUMENT,
    UnknownGame: grpc.StatusCode.INVALID_ARGUMENT,
}

GENERIC_MESSAGE = "internal error"


def status_of(exc: BaseException) -> tuple[grpc.StatusCode, str, str, dict[str, str]]:
    """(code, message, reason, metadata) for an exception; unknown ones become INTERNAL."""
    for cls in type(exc).__mro__:
        code = STATUS_CODES.get(cls)
        if code is None:
            continue
        if isinstance(exc, TricktableError):
            return code, exc.message, exc.reason, exc.metadata
        if isinstance(exc, EngineError):
            return code, exc.message, exc.reason.value, {}
    # Anything else is a bug (an unreadable snapshot is repaired by a replay before this).
    return grpc.StatusCode.INTERNAL, GENERIC_MESSAGE, "INTERNAL", {}


@dataclass(frozen=True, slots=True)
class Rejection:
    """What a refused call answers, whichever door it came through (gRPC, Connect, gRPC-Web,
    one move on the play stream): the status code, the message, the ErrorInfo and, for a limit,
    a RetryInfo saying when to try again."""

    code: grpc.StatusCode
    message: str
    info: error_details_pb2.ErrorInfo
    retry: error_details_pb2.RetryInfo | None = None

    @property
    def details(self) -> list[Message]:
        return [self.info] if self.retry is None else [self.info, self.retry]

    def status(self) -> status_pb2.Status:
        """As a ``google.rpc.Status`` with the details packed."""
        packed = []
        for detail in self.details:
            packed.append(any_pb2.Any())
            packed[-1].Pack(detail)
        return status_pb2.Status(code=self.code.value[0], message=self.message, details=packed)


def rejection(exc: BaseException) -> Rejection:
    code, message, reason, metadata = status_of(exc)
    info = error_details_pb2.ErrorInfo(reason=reason, domain=ERROR_DOMAIN, metadata=metadata)
    retry = None
    if isinstance(exc, LimitExceeded):
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.FromNanoseconds(max(1, int(exc.retry_after_s * 1e9)))
    return Rejection(code, message, info, retry)
