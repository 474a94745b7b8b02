"""The tournament room put together for one replica: its store (beside the games' own: Redis
when the games are in Redis, else memory), the desk, the runner that advances tournaments, and
the servicer both doors serve."""

from __future__ import annotations

from tricktable.v1 import tournament_service_pb2

from service.config import ServerConfig
from service.game_service import GameService
from service.proxies import ClientAddresses
from service.store.base import GameStore
from service.store.redis import RedisStore
from service.store.redis_notify import MoveNotifier
from service.tournaments.advance import Advancer
from service.tournaments.bot_store import Stores, memory_stores
from service.tournaments.desk import TournamentDesk
from service.tournaments.ladder import LadderRunner
from service.tournaments.limits import TournamentGate, TournamentLimits
from service.tournaments.redis_bots import redis_stores
from service.tournaments.runner import TournamentRunner
from service.tournaments.servicer import TournamentServicer


class Tournaments:
    SERVICE_NAME = tournament_service_pb2.DESCRIPTOR.services_by_name["TournamentService"].full_name

    def __init__(
        self,
        config: ServerConfig,
        games: GameService,
        stores: Stores | None = None,
        limits: TournamentLimits | None = None,
    ) -> None:
        if stores is None:
            stores = (
                redis_stores(
                    config.redis_url,
                    cluster=config.redis_cluster,
                    notifier=_notifier_of(games.store),
                )
                if config.redis_url
                else memory_stores()
            )
        self.stores = stores
        if limits is None:
            limits = TournamentLimits(
                running_tournaments=config.limits.running_tournaments, bots=config.limits.bots
            )
        self.advancer = Advancer(games, stores)
        self.advancer.called.trust(config.bot_ca_file)
        self.desk = TournamentDesk(games, stores, TournamentGate(limits), self.advancer)
        self.runner = TournamentRunner(self.advancer, stores.tournaments, games.store)
        self.ladder = LadderRunner(
            games, stores, self.advancer.called, games_at_once=config.ladder_games_at_once
        )
        self.servicer = TournamentServicer(
            self.desk, ClientAddresses(config.limits.trusted_proxies)
        )

    def start(self) -> None:
        self.runner.start()
        self.ladder.start()

    def close_streams(self) -> None:
        self.desk.close_streams()

    async def stop(self) -> None:
        await self.runner.stop()
        await self.ladder.stop()
        await self.advancer.called.close()
        await self.stores.close()


def _notifier_of(store: GameStore) -> MoveNotifier | None:
    """The game store's move notifier, which the tournaments' store shares (one subscription
    per process for the games, the tournaments and the bots' seats); None: it has none."""
    return store.notifier if isinstance(store, RedisStore) else None
