"""Host a reference bot as a ``BotService`` process (the ``tricktable-bot`` command).

python -m tricktable.bots.serve --bot heuristic --port 50061
"""

from __future__ import annotations

import argparse
import sys

from tricktable.bots import HEURISTIC, make_bot
from tricktable.bots.service import serve_bot


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a reference bot as a BotService.")
    parser.add_argument("--bot", choices=["random", "heuristic"], default="heuristic")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50061)
    args = parser.parse_args(argv)
    server = serve_bot(
        lambda game: make_bot(args.bot, game),
        f"{args.host}:{args.port}",
        name=args.bot,
        games=sorted(HEURISTIC) if args.bot == "heuristic" else (),
    )
    print(f"serving the {args.bot} bot at {server.address}", flush=True)
    server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
