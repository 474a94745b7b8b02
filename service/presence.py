"""Who is at the table: a seat counts as connected while it was seen (a call, or an open stream,
on any replica) within :data:`PRESENCE_WINDOW_MS`; a server bot's seat always is. Seeing a seat
is a store write, made at most about once a second per seat by each replica.
"""

from __future__ import annotations

from service.results import SeatPresenceView
from service.store.base import GameRecord
from service.tables import Tables

#: A seat counts as connected this long after it was last seen (a call, or an open stream).
PRESENCE_WINDOW_MS = 5000
#: A replica notes a seat as seen at most this often (presence is a store write).
_TOUCH_EVERY_MS = 1000
_TOUCHED_MAX = 65_536


class Presence:
    def __init__(self, tables: Tables) -> None:
        self._tables = tables
        self._touched: dict[tuple[str, int], int] = {}  # (game, seat) -> when this replica noted it

    async def touch(self, game_id: str, seat: int | None) -> None:
        """Note the seat as present (throttled: a store write at most every second or so)."""
        if seat is None:
            return
        now = self._tables.now_ms()
        key = (game_id, seat)
        if now - self._touched.get(key, -_TOUCH_EVERY_MS) < _TOUCH_EVERY_MS:
            return
        if len(self._touched) >= _TOUCHED_MAX:
            self._touched.clear()  # only a throttle: forgetting costs one more write each
        self._touched[key] = now
        await self._tables.store.presence.touch(game_id, seat, now)

    async def of(self, record: GameRecord) -> tuple[SeatPresenceView, ...]:
        """Each seat's presence now: a seat seen in the last few seconds (by any replica) is
        connected; a server bot's seat always is."""
        seen = await self._tables.store.presence.seen(record.game_id)
        now = self._tables.now_ms()
        return tuple(
            SeatPresenceView(
                seat=n,
                connected=bool(s is not None and s.bot)
                or now - seen.get(n, -PRESENCE_WINDOW_MS - 1) <= PRESENCE_WINDOW_MS,
                last_seen_ms=seen.get(n, 0),
            )
            for n, s in enumerate(record.seats)
        )
