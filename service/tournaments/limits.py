"""What one client may ask of the tournament service. Over a limit: ``LimitExceeded``
(RESOURCE_EXHAUSTED with a RetryInfo, as every limit of :mod:`service.limits`, whose buckets
these are). The rates and sizes are checked here, in the replica; the counts a client holds
(``running_tournaments``, ``bots``) in the store, across replicas (:mod:`.quotas`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from service.errors import LimitExceeded
from service.limits import Buckets, Rate

#: What a refusal of a tournament's size says to wait: its size will not shrink by waiting, but
#: a smaller tournament may be asked for at once; the RetryInfo is there as on every refusal.
SIZE_RETRY_S = 60.0


@dataclass(frozen=True, slots=True)
class TournamentLimits:
    create_tournament: Rate = field(default_factory=partial(Rate, 1, 20))  # per address
    register_bot: Rate = field(default_factory=partial(Rate, 1, 20))  # per address
    entrants: int = 32  # per tournament
    games_at_once: int = 64  # per tournament
    games: int = 100_000  # scheduled games per tournament
    running_tournaments: int = 10  # per address, across replicas (0: no limit)
    bots: int = 100  # registered per address, across replicas (0: no limit)


class TournamentGate:
    def __init__(
        self, limits: TournamentLimits, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limits = limits
        self._create = Buckets(limits.create_tournament, clock)
        self._register = Buckets(limits.register_bot, clock)

    def create(self, client: str, entrants: int, games_at_once: int, games: int) -> None:
        """``client``: the address the call is counted by (service.proxies.ClientAddresses)."""
        limits = self.limits
        if entrants > limits.entrants:
            raise LimitExceeded(
                f"a tournament has at most {limits.entrants} entrants, not {entrants}",
                SIZE_RETRY_S,
                reason="TOO_MANY_ENTRANTS",
            )
        if games_at_once > limits.games_at_once:
            raise LimitExceeded(
                f"a tournament plays at most {limits.games_at_once} games at once",
                SIZE_RETRY_S,
                reason="TOO_MANY_GAMES_AT_ONCE",
            )
        if games > limits.games:
            raise LimitExceeded(
                f"a tournament has at most {limits.games} games, not {games}",
                SIZE_RETRY_S,
                reason="TOO_MANY_GAMES",
            )
        wait = self._create.take(client)
        if wait > 0:
            raise LimitExceeded(f"too many tournaments created from {client}", wait)

    def register(self, client: str) -> None:
        wait = self._register.take(client)
        if wait > 0:
            raise LimitExceeded(f"too many bots registered from {client}", wait)
