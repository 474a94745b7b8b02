"""Structural checks of every request, before anything is loaded (STYLE.md §8).

They reject what no game could accept (oversized or malformed fields) with ``InvalidRequest``;
whether a move is legal is the engine's business, not this module's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tricktable.v1 import cards_pb2, clocks_pb2, game_types_pb2, moves_pb2
from tricktable.v1 import game_service_pb2 as pb

from service.clocks import BadTimeControl, TimeControl
from service.errors import InvalidRequest

MAX_ID = 64
MAX_NAME = 64
MAX_OPTIONS = 64
MAX_OPTION_TEXT = 64
MAX_SEED = 64
MAX_PAGE = 100
MAX_CARDS_IN_MOVE = 16
MAX_CALL = 32
MAX_SEAT = 15
MAX_PLAYER_ID = 128
MAX_CODE = 64  # an invite code or a quick play ticket (22 and 60 characters)
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_REQUEST_ID = re.compile(r"[\x21-\x7e]{1,64}")  # printable ASCII, no spaces


def _bad(message: str, reason: str = "INVALID_REQUEST") -> InvalidRequest:
    return InvalidRequest(message, reason=reason)


def game_id(value: str) -> str:
    if not _ID.fullmatch(value):
        raise _bad("game_id must be 1 to 64 letters, digits, '-' or '_'")
    return value


def _text(field: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise _bad(f"{field} is longer than {limit} characters")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise _bad(f"{field} holds control characters")


def _seat(value: int) -> None:
    if not 0 <= value <= MAX_SEAT:
        raise _bad(f"no seat {value}", reason="UNKNOWN_SEAT")


def options(values: Mapping[str, game_types_pb2.OptionValue]) -> None:
    if len(values) > MAX_OPTIONS:
        raise _bad(f"at most {MAX_OPTIONS} options")
    for name, value in values.items():
        _text("an option name", name, MAX_OPTION_TEXT)
        if value.WhichOneof("value") == "string_value":
            _text(f"option {name!r}", value.string_value, MAX_OPTION_TEXT)


def create_game(request: pb.CreateGameRequest) -> None:
    _text("game_type", request.game_type, MAX_ID)
    if not request.game_type:
        raise _bad("game_type is required")
    options(request.options)
    if len(request.seed) > MAX_SEED:
        raise _bad(f"the seed is longer than {MAX_SEED} bytes")
    if request.HasField("time_control"):
        time_control(request.time_control)
    for seat, kind in request.bot_seats.items():
        _seat(seat)
        _text("a bot name", kind, MAX_ID)
    if request.visibility not in _VISIBILITIES:
        raise _bad(f"visibility: no visibility {request.visibility}")
    if len(request.reserved_seats) > MAX_SEAT + 1:
        raise _bad(f"at most {MAX_SEAT + 1} reserved seats")
    for reserved in request.reserved_seats:
        _seat(reserved.seat)
        _text("reserved_seats.player_id", reserved.player_id, MAX_PLAYER_ID)
        if reserved.seat in request.bot_seats:
            raise _bad(f"seat {reserved.seat} is both a bot's and reserved")


#: Whether a CreateGameRequest.visibility makes the game unlisted, by value (None: not said,
#: public as every game was before visibility: its summary reads exactly as before).
_VISIBILITIES = {
    pb.VISIBILITY_UNSPECIFIED: None,
    pb.VISIBILITY_PUBLIC: False,
    pb.VISIBILITY_UNLISTED: True,
}


def unlisted(request: pb.CreateGameRequest) -> bool | None:
    return _VISIBILITIES[request.visibility]


def page_size(value: int) -> int:
    if not 0 <= value <= MAX_PAGE:
        raise _bad(f"page_size must be 0 to {MAX_PAGE}")
    return value


def ticket(value: str) -> str:
    _text("ticket", value, MAX_CODE)
    if not value:
        raise _bad("ticket is required")
    return value


def quick_play(request: pb.QuickPlayRequest) -> TimeControl | None:
    """A QuickPlay's shape; its checked time control (None: no clock)."""
    _text("player_name", request.player_name, MAX_NAME)
    _text("ticket", request.ticket, MAX_CODE)
    if request.ticket:
        return None  # a resume: the ticket names its queue
    _text("game_type", request.game_type, MAX_ID)
    if not request.game_type:
        raise _bad("game_type is required (or a ticket, to resume)")
    options(request.options)
    return time_control(request.time_control) if request.HasField("time_control") else None


def invite_code(value: str) -> str:
    _text("invite_code", value, MAX_CODE)
    return value


_POLICIES = {
    clocks_pb2.TIMEOUT_POLICY_UNSPECIFIED: "auto_move",  # the default
    clocks_pb2.TIMEOUT_POLICY_AUTO_MOVE: "auto_move",
    clocks_pb2.TIMEOUT_POLICY_FORFEIT: "forfeit",
}


def time_control(msg: clocks_pb2.TimeControl) -> TimeControl:
    """The checked time control of a request; INVALID_ARGUMENT names the field out of range
    (``time_control.move_ms``, ...; the ranges are in proto/tricktable/v1/clocks.proto)."""
    policy = _POLICIES.get(msg.on_timeout)
    if policy is None:
        raise _bad(
            f"time_control.on_timeout: no timeout policy {msg.on_timeout}",
            reason="INVALID_TIME_CONTROL",
        )
    tc = TimeControl(
        move_ms=msg.move_ms,
        bank_ms=msg.bank_ms,
        increment_ms=msg.increment_ms,
        on_timeout=policy,
        forfeit_after=msg.forfeit_after,
    )
    try:
        tc.check()
    except BadTimeControl as bad:
        raise InvalidRequest(
            f"time_control.{bad.field}: {bad}",
            reason="INVALID_TIME_CONTROL",
            metadata={"field": f"time_control.{bad.field}"},
        ) from None
    return tc


#: The statuses ListGames lists by (UNSPECIFIED reads as WAITING, as before the field).
_LISTED_STATUSES = frozenset(
    {pb.GAME_STATUS_UNSPECIFIED, pb.GAME_STATUS_WAITING, pb.GAME_STATUS_PLAYING}
)


def list_games(request: pb.ListGamesRequest) -> None:
    _text("game_type", request.game_type, MAX_ID)
    if not 0 <= request.page_size <= MAX_PAGE:
        raise _bad(f"page_size must be 0 to {MAX_PAGE}")
    if request.page_token and not _ID.fullmatch(request.page_token):
        raise _bad("malformed page_token", reason="INVALID_PAGE_TOKEN")
    if request.status not in _LISTED_STATUSES:
        raise _bad(
            "status must be GAME_STATUS_WAITING (games to join) or GAME_STATUS_PLAYING (games to"
            " watch)",
            reason="INVALID_STATUS",
        )


def join_game(request: pb.JoinGameRequest) -> None:
    game_id(request.game_id)
    if request.HasField("seat"):
        _seat(request.seat)
    _text("player_name", request.player_name, MAX_NAME)
    invite_code(request.invite_code)


def move(msg: moves_pb2.Move) -> None:
    case = msg.WhichOneof("kind")
    if case is None:
        raise _bad("the move is empty", reason="MALFORMED_MOVE")
    if case == "lay_aside" and len(msg.lay_aside.cards) > MAX_CARDS_IN_MOVE:
        raise _bad(f"at most {MAX_CARDS_IN_MOVE} cards in a move", reason="MALFORMED_MOVE")
    if case == "call":
        _text("call", msg.call.call, MAX_CALL)
    if case == "choose_seat":
        _seat(msg.choose_seat.seat)
    # A card or suit the move cannot do without must be there (an absent one reads as None).
    if case == "play_card" and not msg.play_card.HasField("card"):
        raise _bad("play_card needs a card", reason="MALFORMED_MOVE")
    if case == "declare_contract" and not msg.declare_contract.HasField("called"):
        raise _bad("declare_contract needs the called card", reason="MALFORMED_MOVE")
    if case == "declare_marriage" and msg.declare_marriage.suit == cards_pb2.SUIT_UNSPECIFIED:
        raise _bad("declare_marriage needs a suit", reason="MALFORMED_MOVE")
    if case == "bid":
        _text("bid contract", msg.bid.contract, MAX_CALL)


def _version_and_request(request: pb.SubmitMoveRequest | pb.PlayMove) -> None:
    if not _REQUEST_ID.fullmatch(request.request_id):
        raise _bad("request_id must be 1 to 64 printable characters without spaces")
    if request.expected_version < 0:
        raise _bad("expected_version must not be negative")


def submit_move(request: pb.SubmitMoveRequest) -> None:
    game_id(request.game_id)
    _version_and_request(request)
    if request.HasField("seat"):
        _seat(request.seat)
    move(request.move)


def get_game(request: pb.GetGameRequest) -> None:
    game_id(request.game_id)
    if request.HasField("after_version") and request.after_version < 0:
        raise _bad("after_version must not be negative")


def play_move(request: pb.PlayMove) -> None:
    """A move on the play stream: SubmitMove's checks of the fields it carries."""
    _version_and_request(request)
    move(request.move)


def play_open(request: pb.PlayRequest | None) -> pb.PlayOpen:
    """The request that opens a play stream."""
    if request is None or request.WhichOneof("kind") != "open":
        raise _bad("a play stream opens with PlayOpen (then sends moves)")
    game_id(request.open.game_id)
    if request.open.from_version < 0:
        raise _bad("from_version must not be negative")
    return request.open


def stream_events(request: pb.StreamEventsRequest) -> None:
    game_id(request.game_id)
    if request.from_version < 0:
        raise _bad("from_version must not be negative")
