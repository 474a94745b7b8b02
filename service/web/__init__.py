"""The web door (DESIGN.md decision 10): the same GameService for browsers, over Connect (JSON
and binary) and gRPC-Web, on ``tricktable serve --web-port``.

connect-python serves both protocols from the stubs ``proto/generate.py`` writes beside the
``_pb2`` modules (``tricktable.v1.game_service_connect``); Hypercorn runs that ASGI application in
the event loop of the ``grpc.aio`` server. What is ours is thin: :mod:`.adapter` hands each call
to the same :class:`~service.servicer.GameServicer` and maps errors through the same table,
:mod:`.app` adds CORS and the reference web table's files, :mod:`.server` binds and stops it.
"""
