"""Tricktable's rules engine: pure, deterministic Python with no I/O.

Importing the package registers every game; use :func:`get_rules` to reach one by its name.
"""

from engine import games as _games  # noqa: F401  (registers the games)
from engine.core.information import HiddenPlace, InformationSet
from engine.core.rules import GameType, Outcome, Rules, game_names, get_rules

__all__ = [
    "GameType",
    "HiddenPlace",
    "InformationSet",
    "Outcome",
    "Rules",
    "game_names",
    "get_rules",
]
