"""Tricktable for Python: everything a frontend or a bot needs, and nothing of the server.

* ``tricktable.v1`` — the generated protocol (messages and typed gRPC stubs).
* :mod:`tricktable.client` — a thin typed client: create, join (keeps the seat token), get,
  submit (versions, idempotent retries, stale moves reported), resumable event streams.
* :mod:`tricktable.aio` — the same client for asyncio programs, over ``grpc.aio``.
* :mod:`tricktable.errors` — failed calls as exceptions with the status code and reason.
* :mod:`tricktable.cards` — card names, suits, ranks and card points over the proto ``Card``.
* :mod:`tricktable.render` — a view, an event, the legal moves drawn for a terminal (rich).
* :mod:`tricktable.move_text` — moves as people read and type them.
* :mod:`tricktable.bots` — the bot SDK (a bot is one callable: view and legal moves in, a move
  out), live-game runners (event stream or polling), ``BotService`` hosting and remote bots,
  and the reference bots: random for every game, a heuristic bot per game.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    #: This package's version: it changes with its API (clients/python/CHANGELOG.md).
    __version__ = version("tricktable-client")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
