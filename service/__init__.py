"""Tricktable's service layer: the gRPC server, its game stores, and the command line.

Reading order: ``errors`` (the one error model) → ``convert`` (proto ⇄ engine) →
``game_service`` (what every RPC does, transport-free) → ``store`` (the GameStore port and its
memory and Redis adapters) → ``servicer`` + ``interceptors`` (the thin gRPC edge) → ``server``
(the composition root) → ``cli``.
"""
