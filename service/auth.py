"""Seat tokens (DESIGN.md decision 6): random secrets; only their SHA-256 is ever stored."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable

from service.errors import Unauthenticated
from service.store.base import SeatRecord

_BEARER = "bearer "
MAX_TOKEN_LENGTH = 128


def new_token() -> str:
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bearer_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` header; None when there is none."""
    for key, value in metadata or ():
        if key.lower() != "authorization":
            continue
        text = value.decode() if isinstance(value, bytes) else value
        if not text.lower().startswith(_BEARER):
            raise Unauthenticated("authorization must be 'Bearer <seat token>'")
        token = text[len(_BEARER) :].strip()
        if not token or len(token) > MAX_TOKEN_LENGTH:
            raise Unauthenticated("malformed seat token")
        return token
    return None


def seat_of(token: str, seats: Iterable[SeatRecord | None]) -> int | None:
    """The seat a token belongs to, compared in constant time; None if it is no seat's."""
    digest = token_hash(token)
    found = None
    for seat, record in enumerate(seats):
        if record is None:
            continue
        if hmac.compare_digest(record.token_hash, digest):
            found = seat
        # A seat its player took again from other devices (service.identity) has their
        # tokens too.
        for device in record.devices:
            if hmac.compare_digest(device, digest):
                found = seat
    return found
