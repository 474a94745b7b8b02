"""The server's commands of ``tricktable``: ``serve``, ``cluster``, ``simulate``, ``bench`` and
``health``.

The ``tricktable`` command itself is the client package's (:mod:`tricktable.cli`); this package
adds these commands to it through the entry point group ``tricktable.commands`` (pyproject.toml),
each entry point loading only its own module. :func:`main` is the whole command with them, for
the server's own processes (``serve --workers`` starts its workers so) and tests, whether or not
the entry points are installed.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import tricktable.cli


def server_commands() -> dict[str, tricktable.cli.Register]:
    from service.cli import bench, cluster, health, serve, simulate  # noqa: PLC0415 (see above)

    return {
        "serve": serve.register,
        "cluster": cluster.register,
        "simulate": simulate.register,
        "bench": bench.register,
        "health": health.register,
    }


def build_parser() -> argparse.ArgumentParser:
    return tricktable.cli.build_parser(server_commands())


def main(argv: Sequence[str] | None = None) -> int:
    return tricktable.cli.main(argv, server_commands())
