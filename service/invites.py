"""Private tables (issue 29): an unlisted game's invite code, and the codes of seats kept for
named invitees.

A code is 128 random bits (22 url-safe characters): too many to guess at any rate the limits
allow. Like a seat token (service.auth) only its SHA-256 is stored, in the game's
:class:`~service.store.base.Access`; the code itself is shown once, to the creator, and is
never in a view, an event, a record or a log line. A code may be revoked (its hash cleared:
nothing matches it any more) or reissued; a seat reserved for an invitee stays reserved when
its code is revoked (only a reissued code takes it then).

Who may take which seat is decided here, from the game as loaded; the take itself is made
against that same access (``GameStore.take_seat(access=...)``), so a code revoked between the
check and the take takes nothing."""

from __future__ import annotations

import dataclasses
import hmac
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from service.auth import token_hash
from service.errors import InvalidRequest, PermissionDenied, SeatUnavailable
from service.store.base import Access, GameRecord


def new_code() -> str:
    return secrets.token_urlsafe(16)


@dataclass(frozen=True, slots=True)
class Invitations:
    """What the creator of a private table is told, once: the codes themselves."""

    invite_code: str = ""
    seat_codes: dict[int, str] | None = None


def new_access(
    unlisted: bool | None, reserved: Iterable[tuple[int, str]], seat_count: int
) -> tuple[Access | None, Invitations]:
    """The access of a new game and its codes (None and no codes: an ordinary public game, its
    visibility not asked for: it reads as every game did before visibility; ``unlisted`` False
    is a public game that says so).
    ``reserved``: (seat, player id) of each seat kept for an invitee; a seat kept for a player
    identity ("" : none) gets no code, the player's own token takes it."""
    kept = dict(reserved)
    for seat in kept:
        if not 0 <= seat < seat_count:
            raise InvalidRequest(
                f"reserved_seats: the game has seats 0..{seat_count - 1}", reason="UNKNOWN_SEAT"
            )
    if unlisted is None and not kept:
        return None, Invitations()
    unlisted = bool(unlisted)
    invite = new_code() if unlisted else ""
    seat_codes = {seat: new_code() for seat, player in sorted(kept.items()) if not player}
    access = Access(
        unlisted=unlisted,
        invite_hash=token_hash(invite) if invite else "",
        seat_hashes={seat: token_hash(code) for seat, code in seat_codes.items()},
        seat_players={seat: player for seat, player in kept.items() if player},
    )
    return access, Invitations(invite, seat_codes)


def _matches(stored: str, code_hash: str) -> bool:
    return bool(stored) and hmac.compare_digest(stored, code_hash)


def seats_open_to(
    record: GameRecord,
    code: str,
    wanted: int | None,
    open_seats: Sequence[int],
    player_id: str = "",
) -> list[int]:
    """The open seats a join with ``code`` ("" for none) and the caller's player identity
    ("" : none) may try, in order; refuses a join the game's access forbids
    (PERMISSION_DENIED INVALID_INVITE; SEAT_RESERVED)."""
    access = record.access
    candidates = [wanted] if wanted is not None else list(open_seats)
    if access is None:
        return candidates
    for seat, player in access.seat_players.items():
        if player_id and player == player_id and (wanted is None or wanted == seat):
            return [seat]  # kept for this player: an unlisted table's code is not needed
    code_hash = token_hash(code) if code else ""
    for seat, stored in access.seat_hashes.items():
        if code_hash and _matches(stored, code_hash):
            # An invitee's code takes its own seat, whatever seat was asked for.
            if wanted is not None and wanted != seat:
                raise SeatUnavailable(
                    f"this invite code is for seat {seat}", reason="SEAT_RESERVED"
                )
            return [seat]
    if access.unlisted and not _matches(access.invite_hash, code_hash):
        raise PermissionDenied(
            "this table is joined with its invite code (missing, wrong or revoked)",
            reason="INVALID_INVITE",
        )
    reserved = access.reserved
    if wanted is not None and wanted in reserved:
        raise SeatUnavailable(f"seat {wanted} is kept for an invitee", reason="SEAT_RESERVED")
    return [seat for seat in candidates if seat not in reserved]


def revoked(access: Access | None, code: str, reissue: bool) -> tuple[Access, str]:
    """``access`` with ``code`` revoked (or replaced, with ``reissue``: the new code is
    returned); a code that is not the game's is PERMISSION_DENIED (INVALID_INVITE)."""
    code_hash = token_hash(code)
    fresh = new_code() if reissue else ""
    fresh_hash = token_hash(fresh) if fresh else ""
    if access is not None:
        if _matches(access.invite_hash, code_hash):
            return dataclasses.replace(access, invite_hash=fresh_hash), fresh
        for seat, stored in access.seat_hashes.items():
            if _matches(stored, code_hash):
                seats = {**access.seat_hashes, seat: fresh_hash}
                return dataclasses.replace(access, seat_hashes=seats), fresh
    raise PermissionDenied("no such invite code at this game", reason="INVALID_INVITE")
