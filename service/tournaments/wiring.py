"""The tournament room put together for one replica: its store (beside the games' own: Redis
when the games are in Redis, else memory), the desk, the runner that advances tournaments, and
the servicer both doors serve."""

from __future__ import annotations

from tricktable.v1 import tournament_service_pb2

from service.config import ServerConfig
from service.game_service import GameService
from service.proxies import ClientAddresses
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
                redis_stores(config.redis_url, cluster=config.redis_cluster)
                if config.redis_url
                else memory_stores()
            )
        self.stores = stores
        self.desk = TournamentDesk(
            games, stores, TournamentGate(limits or TournamentLimits()),
            stream_wait_s=config.stream_wait_s,
        )  # fmt: skip
        self.advancer = Advancer(games, stores)
        self.advancer.called.trust(config.bot_ca_file)
        self.runner = TournamentRunner(self.advancer, stores.tournaments)
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
