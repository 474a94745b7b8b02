"""The bot SDK: what a bot is (:mod:`.base`), how it plays a live game (:mod:`.runner`), how it
is served as a process of its own (:mod:`.service`), and the reference bots: a random bot for
every game and a rules-aware heuristic bot per game.

    from tricktable.bots import make_bot, run_bot
    run_bot(seat, make_bot("heuristic", "counterpoint"), style="stream")
"""

from __future__ import annotations

from collections.abc import Callable

from tricktable.bots.base import Bot, Move, View, may_wait
from tricktable.bots.counterpoint import CounterpointBot
from tricktable.bots.ninety_nine import NinetyNineBot
from tricktable.bots.nominations import NominationsBot
from tricktable.bots.random_bot import RandomBot
from tricktable.bots.runner import BotRunner, GameResult, play_game, play_seats, run_bot, run_table
from tricktable.bots.service import RemoteBot, serve_bot
from tricktable.bots.sixty_six import SixtySixBot

#: The heuristic bot of each game, by game type name.
HEURISTIC: dict[str, Callable[[], Bot]] = {
    "ninety-nine": NinetyNineBot,
    "counterpoint": CounterpointBot,
    "sixty-six": SixtySixBot,
    "nominations": NominationsBot,
}


REMOTE_PREFIX = "grpc://"


def make_bot(name: str, game: str, seed: int | str | None = None) -> Bot:
    """A fresh bot for one seat of one game: ``"random"``, ``"heuristic"``, or
    ``"grpc://host:port"`` for a bot served as a ``BotService``."""
    if name.startswith(REMOTE_PREFIX):
        return RemoteBot(name.removeprefix(REMOTE_PREFIX))
    if name == "random":
        return RandomBot(seed)
    if name == "heuristic":
        if game not in HEURISTIC:
            raise ValueError(f"no heuristic bot for {game!r}; known: {sorted(HEURISTIC)}")
        return HEURISTIC[game]()
    raise ValueError(f"unknown bot {name!r}: 'random' or 'heuristic'")


__all__ = [
    "HEURISTIC",
    "Bot",
    "BotRunner",
    "CounterpointBot",
    "GameResult",
    "Move",
    "NinetyNineBot",
    "NominationsBot",
    "RandomBot",
    "RemoteBot",
    "SixtySixBot",
    "View",
    "make_bot",
    "may_wait",
    "play_game",
    "play_seats",
    "run_bot",
    "run_table",
    "serve_bot",
]
