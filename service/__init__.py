"""Tricktable's service layer: the gRPC server, its game stores, and the command line.

Its rooms, and what each may import, are drawn in ``service/README.md``. Reading order:
``errors`` (the one error model) → ``results`` and ``convert`` (what the service answers, proto ⇄
engine) → ``game_service`` (the rooms put together: ``lobby``, ``moves``, ``deadlines``,
``reads``, over ``tables`` and the one commit builder ``commit``) → ``store`` (the GameStore port
and its memory and Redis adapters) → ``servicer`` + ``interceptors`` (the thin gRPC edge) →
``server`` (the composition root) → ``cli``.
"""
