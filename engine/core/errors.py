"""Engine errors. Each carries a stable, machine-readable reason a bot can switch on.

The service maps ``IllegalMove`` to FAILED_PRECONDITION and ``InvalidOptions`` /
``InvalidMove`` to INVALID_ARGUMENT; ``reason`` becomes ``google.rpc.ErrorInfo.reason``.
Messages only ever mention the acting seat's own cards, so an error can be shown to the seat
that caused it without leaking anything.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    # moves
    GAME_OVER = "GAME_OVER"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    WRONG_PHASE = "WRONG_PHASE"
    UNKNOWN_SEAT = "UNKNOWN_SEAT"
    MOVE_NOT_ALLOWED = "MOVE_NOT_ALLOWED"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    MUST_FOLLOW_SUIT = "MUST_FOLLOW_SUIT"
    MUST_TRUMP = "MUST_TRUMP"
    MUST_BEAT = "MUST_BEAT"
    WRONG_NUMBER_OF_CARDS = "WRONG_NUMBER_OF_CARDS"
    DUPLICATE_CARDS = "DUPLICATE_CARDS"
    CALL_NOT_ALLOWED = "CALL_NOT_ALLOWED"
    BID_TOO_LOW = "BID_TOO_LOW"
    INVALID_SEAT_CHOICE = "INVALID_SEAT_CHOICE"
    MALFORMED_MOVE = "MALFORMED_MOVE"
    STOCK_NOT_OPEN = "STOCK_NOT_OPEN"
    NO_TRICK_WON = "NO_TRICK_WON"
    NO_TRUMP_NINE = "NO_TRUMP_NINE"
    NO_MARRIAGE = "NO_MARRIAGE"
    MARRIAGE_ALREADY_DECLARED = "MARRIAGE_ALREADY_DECLARED"
    MUST_LEAD_MARRIAGE = "MUST_LEAD_MARRIAGE"
    EXCHANGE_NOT_ALLOWED = "EXCHANGE_NOT_ALLOWED"
    CLOSE_NOT_ALLOWED = "CLOSE_NOT_ALLOWED"
    CLAIM_NOT_ALLOWED = "CLAIM_NOT_ALLOWED"
    MUST_BID = "MUST_BID"
    INVALID_CONTRACT = "INVALID_CONTRACT"
    INVALID_CUT = "INVALID_CUT"
    # options and state
    UNKNOWN_GAME = "UNKNOWN_GAME"
    UNKNOWN_OPTION = "UNKNOWN_OPTION"
    INVALID_OPTION_VALUE = "INVALID_OPTION_VALUE"
    BAD_SNAPSHOT = "BAD_SNAPSHOT"


class EngineError(Exception):
    reason: Reason = Reason.MALFORMED_MOVE

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.reason.value}: {self.message})"


class IllegalMove(EngineError):
    """A well-formed move the rules do not allow now. The state is unchanged."""


class InvalidMove(EngineError):
    """A move that is malformed whatever the state (wrong type for the game, bad card id)."""


class InvalidOptions(EngineError):
    """Game options that name an unknown option or give it a bad value."""


class UnknownGame(EngineError):
    def __init__(self, game: str) -> None:
        super().__init__(Reason.UNKNOWN_GAME, f"unknown game {game!r}")


class BadSnapshot(EngineError):
    """A serialized state this engine cannot read (other schema version, corrupt bytes)."""
