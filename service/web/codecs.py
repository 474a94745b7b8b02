"""Malformed request bytes are INVALID_ARGUMENT on the web door too (DESIGN.md decision 7).

connect-python 0.9 lets a decoding failure (bad protobuf bytes, bad JSON, an unknown field)
escape as a bare exception, which it answers as ``unknown`` with the parser's text, both before
any interceptor runs. Its codecs are looked up by name in one registry at every call, so each is
wrapped once: a failure becomes our ``InvalidRequest``, answered like every other error, with its
``ErrorInfo``. The wire format itself stays connect-python's (``tests/web`` pins the behaviour).
"""

from __future__ import annotations

from typing import Any

from connectrpc import _codec

from service.errors import InvalidRequest, rejection
from service.web.adapter import connect_error


class StrictCodec:
    """A codec whose decoding failures are the caller's fault, said so."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def name(self) -> str:
        name: str = self.inner.name()
        return name

    def encode(self, message: Any) -> bytes:
        data: bytes = self.inner.encode(message)
        return data

    def decode(self, data: bytes | bytearray, message: Any) -> Any:
        try:
            return self.inner.decode(data, message)
        except Exception:
            refused = InvalidRequest(
                f"the request is not a valid {self.name()} {message.DESCRIPTOR.full_name}",
                reason="MALFORMED_REQUEST",
            )
            raise connect_error(rejection(refused)) from None


def install() -> None:
    """Wrap every registered codec (idempotent)."""
    registry: dict[str, Any] = _codec._codecs
    for name, codec in list(registry.items()):
        if not isinstance(codec, StrictCodec):
            registry[name] = StrictCodec(codec)
