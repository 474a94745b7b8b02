"""Player identity (issue 29, optional): an operator that already has accounts starts the
server with a way to verify its own signed tokens, ``--auth-jwt-secret`` (HS256, a shared
secret) or ``--auth-jwks FILE`` (RS256 or ES256, public keys as a JSON Web Key Set), and a call
may then carry such a token, a JWT whose ``sub`` is the player id, as ``x-player-token: <jwt>``.

The token is verified here with PyJWT, and nothing else of it is kept: a seat taken with it
records the player id (service.lobby, service.matchmaking). An expired, malformed or wrongly
signed token (or one signed with an algorithm the server was not given: no ``none``, no HS256
with a public key) is UNAUTHENTICATED (INVALID_PLAYER_TOKEN), before anything is read or
written. A server started with neither flag verifies no token and ignores the header: everything
works as before, with seat tokens.

Why a header of its own, not ``authorization``: that header carries the seat token, which
every seat call reads (on the hot path, hashed and compared); a player token is read only by
the calls that take seats or list them, and a call may carry both.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jwt

from service.errors import Unauthenticated

PLAYER_HEADER = "x-player-token"
#: The longest player token read; a JWT of ordinary claims is well under it.
MAX_PLAYER_TOKEN = 4096
#: The longest player id (``sub``) kept.
MAX_PLAYER_ID = 128
_ASYMMETRIC = ("RS256", "ES256")


def player_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The call's ``x-player-token``; None when it has none."""
    for key, value in metadata or ():
        if key.lower() == PLAYER_HEADER:
            return value.decode(errors="replace") if isinstance(value, bytes) else value
    return None


def _refused(why: str) -> Unauthenticated:
    return Unauthenticated(f"the player token is refused: {why}", reason="INVALID_PLAYER_TOKEN")


class Identity:
    """Verifies the operator's player tokens: with a shared ``secret`` (HS256), or with the
    public keys of a JSON Web Key Set (``jwks``: its JSON text; RS256, ES256)."""

    def __init__(self, *, secret: str | None = None, jwks: str | None = None) -> None:
        if (secret is None) == (jwks is None):
            raise ValueError("player identity takes a secret or a JWKS, one of them")
        if secret is not None and len(secret.encode()) < 32:
            raise ValueError("--auth-jwt-secret must be at least 32 bytes (HS256's key size)")
        self._secret = secret
        self._keys: list[jwt.PyJWK] = []
        if jwks is not None:
            try:
                found = jwt.PyJWKSet.from_json(jwks).keys
            except (jwt.PyJWKSetError, jwt.PyJWKError, ValueError) as exc:
                raise ValueError(f"the JWKS cannot be read: {exc}") from None
            self._keys = [k for k in found if k.algorithm_name in _ASYMMETRIC]
            if not self._keys:
                raise ValueError("the JWKS holds no RS256 or ES256 key")

    @classmethod
    def from_file(cls, path: str) -> Identity:
        return cls(jwks=Path(path).read_text())

    def player_of(self, token: str) -> str:
        """The player id a valid token carries; UNAUTHENTICATED (INVALID_PLAYER_TOKEN) else."""
        if not token or len(token) > MAX_PLAYER_TOKEN:
            raise _refused("malformed")
        try:
            if self._secret is not None:
                claims = jwt.decode(
                    token, self._secret, algorithms=["HS256"], options={"require": ["sub"]}
                )
            else:
                key = self._key_of(token)
                claims = jwt.decode(
                    token, key, algorithms=[key.algorithm_name], options={"require": ["sub"]}
                )
        except jwt.ExpiredSignatureError:
            raise _refused("expired") from None
        except jwt.InvalidSignatureError:
            raise _refused("wrongly signed") from None
        except jwt.PyJWTError:
            raise _refused("malformed, or not signed as this server verifies") from None
        return _player_id(claims)

    def _key_of(self, token: str) -> jwt.PyJWK:
        kid = jwt.get_unverified_header(token).get("kid")
        if kid is None and len(self._keys) == 1:
            return self._keys[0]
        for key in self._keys:
            if key.key_id == kid:
                return key
        raise _refused("signed with a key this server does not hold")


def _player_id(claims: dict[str, Any]) -> str:
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub or len(sub) > MAX_PLAYER_ID:
        raise _refused(f"its sub must be a player id of 1 to {MAX_PLAYER_ID} characters")
    if any(ord(ch) < 32 for ch in sub):
        raise _refused("its sub holds control characters")
    return sub


def from_flags(secret: str | None, jwks_file: str | None) -> Identity | None:
    """The server's identity from its flags (None: neither given)."""
    if secret is None and jwks_file is None:
        return None
    if secret is not None and jwks_file is not None:
        raise ValueError("--auth-jwt-secret and --auth-jwks are one or the other")
    return Identity(secret=secret) if secret is not None else Identity.from_file(str(jwks_file))


__all__ = ["PLAYER_HEADER", "Identity", "from_flags", "player_token"]
