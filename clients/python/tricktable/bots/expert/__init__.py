"""The expert reference bot (``expert``, ``expert:ms=50``): determinized search with the rules
engine. It needs the engine (``pip install ./engine "./clients/python[engine]"``); the rest of
the client package never imports this package, so the client works without the engine and the
bot registry (:func:`tricktable.bots.make_bot`) imports it only when an expert is asked for.
"""

from __future__ import annotations

from tricktable.bots.expert.bot import DEFAULT_MS, ExpertBot

__all__ = ["DEFAULT_MS", "ExpertBot"]
