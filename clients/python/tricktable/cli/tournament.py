"""``tricktable tournament``: a bot-vs-bot series over the service (see
:mod:`tricktable.tournament` for the schedule, the standings and the exported files)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from rich.console import Console

from tricktable import hosted
from tricktable.bots.runner import BotError, Stalled
from tricktable.cli.common import (
    add_game_argument,
    add_option_argument,
    add_tls_arguments,
    parse_options,
    tls_options,
    typed_options,
)
from tricktable.cli.local_server import local_server
from tricktable.client import Client, OptionValue
from tricktable.errors import TricktableError
from tricktable.tournament import (
    Entrant,
    TournamentConfig,
    TournamentInterrupted,
    check_entrants,
    print_standings,
    progress_bar,
    run_tournament,
)
from tricktable.v1 import tournament_service_pb2 as tpb

DEFAULT_ENTRANTS = ["heuristic", "random"]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "tournament",
        help="a round robin between bots over the service, with standings and ratings",
    )
    add_game_argument(p)
    p.add_argument(
        "--entrant",
        "-e",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="a bot (repeatable): SPEC is random, heuristic, grpc://HOST:PORT (a BotService) or "
        "package.module:attr (a bot factory); a bare SPEC names itself "
        "(default: heuristic and random)",
    )
    add_option_argument(p)
    p.add_argument(
        "--rounds",
        type=int,
        default=10,
        help="sets per table; a set plays the table in every seat rotation (default 10)",
    )
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="the games of a set share their deal: the same cards go round every seat",
    )
    p.add_argument(
        "--move-time",
        type=_seconds,
        metavar="TIME",
        help="play every game with a clock: TIME per move (e.g. 2s, 500ms); a bot that hangs "
        "or crashes loses its moves (and with --forfeit-after its games) to the clock",
    )
    p.add_argument(
        "--bank", type=_seconds, default=0.0, metavar="TIME", help="a time bank per seat"
    )
    p.add_argument(
        "--forfeit-after",
        type=int,
        default=0,
        metavar="N",
        help="with --move-time: a seat forfeits the game at its Nth timeout (default 0: never)",
    )
    p.add_argument("--parallel", type=int, default=4, help="games played at once (default 4)")
    p.add_argument("--seed", default="tournament", help="every deal and bot seed derives from it")
    p.add_argument(
        "--address",
        help="a running server (default: start one, when the server package is installed)",
    )
    p.add_argument(
        "--hosted",
        action="store_true",
        help="the server runs the tournament (TournamentService) and this follows it; "
        "entrants are reference bots (random, heuristic) or registered bot ids, and "
        "--parallel is the games it plays at once",
    )
    p.add_argument("--json", metavar="FILE", help="write everything (config, games, standings)")
    p.add_argument("--csv", metavar="FILE", help="write the standings, one row per entrant")
    p.add_argument("--games-csv", metavar="FILE", help="write one row per seat of each game")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    add_tls_arguments(p)
    p.set_defaults(run=run)


#: The exit status of a command stopped by Ctrl-C (SIGINT), as shells report it: 128 + 2.
INTERRUPTED = 130


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except KeyboardInterrupt:  # before the games began, or while the results were written
        print("tricktable tournament: interrupted", file=sys.stderr, flush=True)
        return INTERRUPTED


def _run(args: argparse.Namespace) -> int:
    if args.hosted:
        return _run_hosted(args)
    raw = parse_options(args.option)
    try:
        entrants = tuple(Entrant.parse(text) for text in args.entrant or DEFAULT_ENTRANTS)
        config = TournamentConfig(
            game=args.game,
            entrants=entrants,
            rounds=args.rounds,
            duplicate=args.duplicate,
            seed=args.seed,
            options={},  # typed by the server's game type, once connected
            move_time_s=args.move_time,
            bank_s=args.bank,
            forfeit_after=args.forfeit_after,
        )
        check_entrants(config.entrants, config.game)  # before a server is started for them
    except ValueError as error:
        raise SystemExit(f"tricktable: {error}") from None
    if args.parallel < 1:
        raise SystemExit("tricktable: --parallel must be at least 1")
    tls = tls_options(args) if args.address else {}  # a server started here is plaintext
    stopped: TournamentInterrupted | None = None
    with _server(args.address) as address, Client(address, timeout_s=30.0, **tls) as client:
        try:
            config = replace(config, options=_options(client, args.game, raw))
        except ValueError as error:
            print(f"tricktable: {error}", flush=True)
            return 2
        except TricktableError as error:  # no server there
            raise SystemExit(f"tricktable: {error}") from None
        try:
            with progress_bar(quiet=args.quiet) as hooks:
                result = run_tournament(
                    client,
                    config,
                    parallel=args.parallel,
                    on_schedule=hooks.on_schedule,
                    on_game=hooks.on_game,
                )
        except TournamentInterrupted as interrupted:  # told below, once the client is closed
            stopped = interrupted
        except ValueError as error:  # a bad entrant spec, a game the server does not offer
            raise SystemExit(f"tricktable: {error}") from None
        except (TricktableError, BotError, Stalled) as error:  # the server, or a bot, failed
            raise SystemExit(f"tricktable: {error}") from None
    if stopped is not None:
        return _interrupted(stopped)
    print_standings(result)
    if args.json:
        result.write_json(args.json)
    if args.csv:
        result.write_standings_csv(args.csv)
    if args.games_csv:
        result.write_games_csv(args.games_csv)
    return 0


def _run_hosted(args: argparse.Namespace) -> int:
    """Create the tournament on the server and follow it: a progress bar, then the table."""
    raw = parse_options(args.option)
    seed = args.seed.encode()
    if not 1 <= len(seed) <= 64:
        raise SystemExit("tricktable: --seed must be 1 to 64 bytes")
    entrants = [Entrant.parse(text).spec for text in args.entrant or DEFAULT_ENTRANTS]
    clock = None
    if args.move_time is not None:
        config = TournamentConfig(
            game=args.game,
            entrants=tuple(Entrant(e, e) for e in entrants),
            move_time_s=args.move_time,
            bank_s=args.bank,
            forfeit_after=args.forfeit_after,
        )
        clock = config.clock
    tls = tls_options(args) if args.address else {}
    with _server(args.address) as address, Client(address, timeout_s=30.0, **tls) as client:
        try:
            options = _options(client, args.game, raw)
            made = hosted.create_hosted(
                client,
                args.game,
                entrants,
                rounds=args.rounds,
                duplicate=args.duplicate,
                games_at_once=args.parallel,
                seed=seed,
                options=options,
                clock=clock,
            )
            print(f"tournament {made.tournament.tournament_id} created", flush=True)
            last = hosted.follow_with_progress(client, made.tournament, quiet=args.quiet)
            final = hosted.get(client, made.tournament.tournament_id)
        except ValueError as error:
            raise SystemExit(f"tricktable: {error}") from None
        except grpc.RpcError as error:
            raise SystemExit(f"tricktable: {error.code().name}: {error.details()}") from None
    t = final.tournament
    deals = "duplicate deals" if args.duplicate else "a deal per game"
    title = f"{args.game}: {t.games_ended} games, {deals}, seed {args.seed!r}"
    Console().print(
        hosted.standings_table(title, last.ended.standings or t.standings, args.duplicate)
    )
    if args.json:
        Path(args.json).write_text(json_format.MessageToJson(final) + "\n")
    return 0 if t.status == tpb.TOURNAMENT_STATUS_FINISHED else 1


def _interrupted(stopped: TournamentInterrupted) -> int:
    """Say what finished: the finished games' standings (an incomplete schedule, so not every
    table was played in every seat), and that no file was written."""
    finished = len(stopped.result.games)
    print(
        f"tricktable tournament: interrupted: {finished} of {stopped.scheduled} games finished"
        + (f", {stopped.unfinished} in play left unfinished" if stopped.unfinished else "")
        + "; no files written",
        file=sys.stderr,
        flush=True,
    )
    if finished:
        print("Standings of the finished games only (the schedule is incomplete):", flush=True)
        print_standings(stopped.result)
    return INTERRUPTED


def _seconds(text: str) -> float:
    """A duration: ``2s``, ``500ms``, ``1.5`` (seconds)."""
    value = text.strip().lower()
    try:
        if value.endswith("ms"):
            return float(value[:-2]) / 1000
        return float(value.removesuffix("s"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (e.g. 2s, 500ms)") from None


def _options(client: Client, game: str, given: dict[str, str]) -> dict[str, OptionValue]:
    """The options typed as the server's game declares them (ValueError: no such game or
    option), so the tournament's files record 4, not "4"."""
    types = {t.name: t for t in client.game_types()}
    if game not in types:
        raise ValueError(f"the server has no game {game!r} (it has {', '.join(sorted(types))})")
    return typed_options(given, types[game])


@contextmanager
def _server(address: str | None) -> Iterator[str]:
    if address:
        yield address
    else:
        with local_server("tournament") as started:
            yield started
