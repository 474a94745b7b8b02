"""Game stores: the ``GameStore`` port and its adapters (memory, Redis)."""

from service.store.base import (
    EventBatch,
    GameRecord,
    GameStore,
    LobbyPosition,
    MoveRecord,
    SeatRecord,
)

__all__ = ["EventBatch", "GameRecord", "GameStore", "LobbyPosition", "MoveRecord", "SeatRecord"]
