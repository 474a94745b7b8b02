"""Errors from a Tricktable server as Python exceptions.

Every failed call becomes a :class:`TricktableError` carrying the gRPC status code, the stable
machine-readable ``reason`` of the server's ``google.rpc.ErrorInfo`` (``NOT_YOUR_TURN``,
``MUST_FOLLOW_SUIT``, ``STALE_VERSION``...) and its metadata. A subclass per status code lets a
caller catch what it can act on (``except StaleVersion``) without comparing codes by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

if TYPE_CHECKING:
    from tricktable.v1 import game_service_pb2

#: Codes after which the same request may be sent again: nothing was decided, or the answer was
#: lost (a move is retried with the same request id, so it is never applied twice).
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})


class TricktableError(Exception):
    """A call the server (or the network) refused: status ``code``, ErrorInfo ``reason``."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        reason: str = "",
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(f"{code.name}: {reason or '-'}: {message}")
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata: dict[str, str] = dict(metadata or {})
        #: The server's google.rpc.RetryInfo: how long to wait before sending the call again.
        self.retry_after_s: float | None = None

    @property
    def retryable(self) -> bool:
        # A limit's refusal decided nothing: the same call may come again, after the delay.
        return self.code in RETRYABLE or (
            self.code == grpc.StatusCode.RESOURCE_EXHAUSTED and self.retry_after_s is not None
        )

    def wait_s(self, backoff_s: float) -> float:
        """How long to wait before a retry: the client's back-off, or longer if the server
        said so."""
        return max(backoff_s, self.retry_after_s or 0.0)


class InvalidArgument(TricktableError):
    """A malformed request or bad options (INVALID_ARGUMENT)."""


class NotFound(TricktableError):
    """No such game (NOT_FOUND)."""


class Unauthenticated(TricktableError):
    """No seat token where one is needed, or an unknown one (UNAUTHENTICATED)."""


class PermissionDenied(TricktableError):
    """A valid token used for another seat (PERMISSION_DENIED)."""


class IllegalMove(TricktableError):
    """The game refused the move or the request now (FAILED_PRECONDITION): not your turn, must
    follow suit, game over, seat taken..."""


class StaleVersion(TricktableError):
    """The move was decided on an old version (ABORTED). ``current`` holds the game as it is
    now, fetched by the client, so the caller decides again rather than resubmitting blindly."""

    current: game_service_pb2.GetGameResponse | None = None

    @property
    def current_version(self) -> int | None:
        value = self.metadata.get("current_version")
        return int(value) if value is not None else None


class RateLimited(TricktableError):
    """A server limit refused the call (RESOURCE_EXHAUSTED: ``RATE_LIMITED``,
    ``TOO_MANY_STREAMS``…); ``retry_after_s`` says when it may come again."""


class Unavailable(TricktableError):
    """The server or its store cannot be reached (UNAVAILABLE), after the client's retries."""


class DeadlineExceeded(TricktableError):
    """The call took longer than its deadline (DEADLINE_EXCEEDED), after the client's retries."""


_BY_CODE: Mapping[grpc.StatusCode, type[TricktableError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.FAILED_PRECONDITION: IllegalMove,
    grpc.StatusCode.ABORTED: StaleVersion,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
    grpc.StatusCode.RESOURCE_EXHAUSTED: RateLimited,
}


def _details(err: grpc.RpcError) -> list[Any]:
    try:
        status = rpc_status.from_call(err)
    except ValueError:  # a status whose details do not match its code and message
        return []
    return [] if status is None else list(status.details)


def _info_in(details: Iterable[any_pb2.Any]) -> error_details_pb2.ErrorInfo | None:
    for detail in details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info
    return None


def _retry_in(details: Iterable[any_pb2.Any]) -> float | None:
    for detail in details:
        retry = error_details_pb2.RetryInfo()
        if detail.Unpack(retry):
            return float(retry.retry_delay.ToNanoseconds()) / 1e9
    return None


def error_info(err: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ``ErrorInfo`` in a failed call's rich status, if it carries one."""
    return _info_in(_details(err))


def retry_info_s(err: grpc.RpcError) -> float | None:
    """The delay of the ``RetryInfo`` in a failed call's rich status, if it carries one."""
    return _retry_in(_details(err))


def from_rpc_error(err: grpc.RpcError) -> TricktableError:
    """The exception for a failed call: the class of its code, with reason and metadata."""
    return _error(err.code(), err.details() or "", _details(err))


def from_play_error(error: game_service_pb2.PlayError) -> TricktableError:
    """The exception for a move the play stream refused: what SubmitMove would have raised."""
    return _error(_CODES.get(error.code, grpc.StatusCode.UNKNOWN), error.message, error.details)


def _error(code: grpc.StatusCode, message: str, details: Iterable[any_pb2.Any]) -> TricktableError:
    details = list(details)
    info = _info_in(details)
    cls = _BY_CODE.get(code, TricktableError)
    error = (
        cls(code, message) if info is None else cls(code, message, info.reason, dict(info.metadata))
    )
    error.retry_after_s = _retry_in(details)
    return error


_CODES: Mapping[int, grpc.StatusCode] = {code.value[0]: code for code in grpc.StatusCode}
