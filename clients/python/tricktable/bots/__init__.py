"""The bot SDK: what a bot is (:mod:`.base`), how it plays a live game (:mod:`.runner`), how it
is served as a process of its own (:mod:`.service`), and the reference bots: a random bot for
every game, a rules-aware heuristic bot per game, and the expert (:mod:`.expert`: a search with
the rules engine, imported only when asked for, since it needs the engine extra).

    from tricktable.bots import make_bot, run_bot
    run_bot(seat, make_bot("heuristic", "counterpoint"))  # on the seat's play stream
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
from collections.abc import Callable
from typing import cast

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
#: The expert's name in a bot spec: ``expert``, or with settings, ``expert:ms=50``.
EXPERT = "expert"
#: The expert's settings a spec may give, each with how its value is read.
EXPERT_SETTINGS: dict[str, Callable[[str], float]] = {"ms": float}


def make_bot(name: str, game: str, seed: int | str | None = None) -> Bot:
    """A fresh bot for one seat of one game. ``name`` is one of:

    * ``"random"``: :class:`RandomBot`, seeded with ``seed``;
    * ``"heuristic"``: the game's heuristic bot (:data:`HEURISTIC`);
    * ``"expert"`` or ``"expert:ms=50"``: the expert (needs the engine extra), with its time
      budget per decision in milliseconds (default 200), seeded with ``seed``;
    * ``"grpc://host:port"``: a bot served as a ``BotService`` (:class:`RemoteBot`);
    * ``"package.module:attr"``: a bot factory imported from Python (see :func:`import_bot`).
    """
    if name.startswith(REMOTE_PREFIX):
        return RemoteBot(name.removeprefix(REMOTE_PREFIX))
    if name == "random":
        return RandomBot(seed)
    if name == "heuristic":
        if game not in HEURISTIC:
            raise ValueError(f"no heuristic bot for {game!r}; known: {sorted(HEURISTIC)}")
        return HEURISTIC[game]()
    if name == EXPERT or name.startswith(EXPERT + ":"):
        return make_expert(name, game, seed)
    if ":" in name:
        return import_bot(name, game, seed)
    raise ValueError(
        f"unknown bot {name!r}: 'random', 'heuristic', 'expert', 'grpc://host:port' or "
        "'package.module:attr'"
    )


def expert_settings(spec: str) -> dict[str, float]:
    """The settings of an expert spec: ``expert:ms=50`` is ``{"ms": 50.0}``."""
    _, _, given = spec.partition(":")
    settings: dict[str, float] = {}
    for item in filter(None, given.split(",")):
        key, equals, value = item.partition("=")
        if not equals or key not in EXPERT_SETTINGS:
            raise ValueError(
                f"bot {spec!r}: an expert setting is one of {sorted(EXPERT_SETTINGS)} as key=value"
            )
        try:
            settings[key] = EXPERT_SETTINGS[key](value)
        except ValueError:
            raise ValueError(f"bot {spec!r}: {key} must be a number, not {value!r}") from None
        if settings[key] <= 0:
            raise ValueError(f"bot {spec!r}: {key} must be positive")
    return settings


def make_expert(spec: str, game: str, seed: int | str | None = None) -> Bot:
    """The expert for ``spec`` (``expert``, ``expert:ms=50``), imported now: it needs the
    engine, which a client installed without the ``engine`` extra does not have."""
    settings = expert_settings(spec)
    if game not in HEURISTIC:
        raise ValueError(f"no expert bot for {game!r}; known: {sorted(HEURISTIC)}")
    try:
        expert = importlib.import_module("tricktable.bots.expert")
    except ImportError as error:
        raise ValueError(
            "the expert bot needs the rules engine: pip install ./engine "
            f'"./clients/python[engine]" ({error})'
        ) from error
    bot: Bot = expert.ExpertBot(game, seed=seed, **settings)
    return bot


def import_bot(path: str, game: str, seed: int | str | None = None) -> Bot:
    """A fresh bot from the factory at ``path`` (``"package.module:attr"``, where ``attr`` may
    be dotted: ``"module:Class.create"``).

    The factory is a bot class or any callable that returns a bot, and is called once per seat
    of each game, so the bot may keep memory for that game. It receives, as keyword arguments,
    whichever of ``game`` (the game type name) and ``seed`` (for bots that draw random numbers:
    reproducible runs) its signature names (both when it takes ``**kwargs``); other parameters
    must have defaults. So ``RandomBot`` gets ``seed``, ``CounterpointBot`` gets nothing, and
    ``def factory(game, seed=None)`` gets both. A plain bot function ``(view, legal)`` is not a
    factory: wrap it (``lambda: my_bot``)."""
    module_name, _, attr_path = path.partition(":")
    if not module_name or not attr_path:
        raise ValueError(f"bot {path!r}: an import path is 'package.module:attr'")
    # As `python -m` would (and uvicorn, gunicorn do): `mybots:make` finds mybots.py in the
    # caller's directory, which the sys.path of an installed command lacks.
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        target: object = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"bot {path!r}: cannot import {module_name!r}: {error}") from error
    for attr in attr_path.split("."):
        try:
            target = getattr(target, attr)
        except AttributeError:
            missing = f"{module_name!r} has no attribute {attr_path!r}"
            raise ValueError(f"bot {path!r}: {missing}") from None
    if not callable(target):
        raise ValueError(f"bot {path!r}: {attr_path!r} is not a class or a factory")
    bot = target(**_factory_arguments(path, target, {"game": game, "seed": seed}))
    if not callable(bot):
        raise ValueError(f"bot {path!r}: the factory returned {bot!r}, which is not a bot")
    return cast(Bot, bot)


def _factory_arguments(
    path: str, factory: Callable[..., object], offered: dict[str, object]
) -> dict[str, object]:
    """The keyword arguments of ``offered`` that ``factory`` takes; an error when it needs
    anything else."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: offer nothing
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return dict(offered)
    taken = {}
    for parameter in parameters:
        keyword = parameter.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        )
        if keyword and parameter.name in offered:
            taken[parameter.name] = offered[parameter.name]
        elif parameter.default is inspect.Parameter.empty and parameter.kind not in (
            inspect.Parameter.VAR_POSITIONAL,
        ):
            raise ValueError(
                f"bot {path!r}: the factory's parameter {parameter.name!r} is not one it can be "
                "given (a factory may take 'game' and 'seed'; a bot function must be wrapped)"
            )
    return taken


__all__ = [
    "EXPERT",
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
    "expert_settings",
    "import_bot",
    "make_bot",
    "make_expert",
    "may_wait",
    "play_game",
    "play_seats",
    "run_bot",
    "run_table",
    "serve_bot",
]
