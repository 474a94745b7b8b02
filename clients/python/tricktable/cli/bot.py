"""``tricktable bot``: host a bot as a ``BotService`` (see :mod:`tricktable.bots.serve`), so
that a tournament anywhere can enter it as ``grpc://HOST:PORT``."""

from __future__ import annotations

from typing import Any

from tricktable.bots import serve


def register(sub: Any) -> None:
    p = sub.add_parser("bot", help="host a bot (yours or a reference bot) as a BotService")
    serve.add_arguments(p)
    p.set_defaults(run=lambda args: serve.run(args, p))
