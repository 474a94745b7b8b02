"""Measure a bot against random bots: one bot under test, every other seat a random bot, over
many games through a real server; the tested seat rotates from game to game. Deterministic for a
given seed (game seeds and random bots' seeds derive from it), so a result can be reproduced.

    python -m tricktable.bots.arena --address localhost:50051 --games 200
    python -m tricktable.bots.arena --bot grpc://localhost:50061   # a bot behind BotService
    tricktable-arena --bot mybots:make --games 200    # a server of its own (tricktable serve,
                                                      # when the server package is installed)

Prints one JSON object per game type: games, wins (shared wins count a share), the win rate,
what a random bot would expect (1 / seats) and the one-sided binomial p-value of doing at least
this well by chance.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass

from tricktable.bots import HEURISTIC, make_bot
from tricktable.bots.runner import play_game
from tricktable.cli.local_server import local_server
from tricktable.client import Client, OptionValue

#: The games the arena can measure: those with a reference (heuristic) bot.
GAMES = tuple(sorted(HEURISTIC))


def seat_count(client: Client, game: str) -> int:
    """The game's seats, as the server describes the game (ListGameTypes)."""
    for game_type in client.game_types():
        if game_type.name == game:
            return game_type.seats
    raise ValueError(f"the server offers no game {game!r}")


@dataclass(frozen=True)
class Measurement:
    game: str
    bot: str
    games: int
    wins: float
    win_rate: float
    random_expectation: float
    p_value: float
    moves: int


def binomial_tail(successes: int, trials: int, p: float) -> float:
    """P(X >= successes) for X ~ Binomial(trials, p)."""
    return sum(
        math.comb(trials, k) * p**k * (1 - p) ** (trials - k) for k in range(successes, trials + 1)
    )


def measure(
    client: Client,
    game: str,
    games: int,
    *,
    bot: str = "heuristic",
    options: Mapping[str, OptionValue] | None = None,
    seed: str = "arena",
) -> Measurement:
    seats = seat_count(client, game)
    wins = 0.0
    moves = 0
    for number in range(games):
        hero = number % seats
        bots = [
            make_bot(bot if s == hero else "random", game, f"{seed}:{number}:{s}")
            for s in range(seats)
        ]
        try:
            result = play_game(
                client, game, bots, options=options, seed=f"{seed}:{game}:{number}".encode()
            )
        finally:
            for each in bots:
                close = getattr(each, "close", None)  # a remote bot's channel
                if close is not None:
                    close()
        moves += result.moves
        if hero in result.winners:
            wins += 1 / len(result.winners)
    expected = 1 / seats
    return Measurement(
        game=game,
        bot=bot,
        games=games,
        wins=wins,
        win_rate=wins / games,
        random_expectation=expected,
        p_value=binomial_tail(math.floor(wins), games, expected),
        moves=moves,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Measure a bot against random bots.")
    parser.add_argument(
        "--address", help="a running server (default: start one, when the server is installed)"
    )
    parser.add_argument("--game", action="append", choices=GAMES, help="(default: all)")
    parser.add_argument("--games", type=int, default=100, help="games per game type")
    parser.add_argument("--bot", default="heuristic", help="the bot measured")
    parser.add_argument("--seed", default="arena")
    args = parser.parse_args(argv)
    games = args.game or list(GAMES)
    try:  # a bad name or import path fails here, before any server or game starts
        for game in games:
            make_bot(args.bot, game)
    except ValueError as error:
        parser.error(str(error))

    def run(address: str) -> None:
        with Client(address, timeout_s=30.0) as client:
            for game in games:
                result = measure(client, game, args.games, bot=args.bot, seed=args.seed)
                print(json.dumps(asdict(result)), flush=True)

    if args.address:
        run(args.address)
    else:
        with local_server("arena") as address:
            run(address)
    return 0


if __name__ == "__main__":
    sys.exit(main())
