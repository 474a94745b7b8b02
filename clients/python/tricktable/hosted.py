"""Hosted tournaments: the server runs the tournament (``TournamentService``), and this only
creates it and follows its standings. Nobody has to keep a laptop open: any replica advances
it, and anyone may follow it (``StreamTournament``) or read it (``GetTournament``).

    from tricktable.client import Client
    from tricktable.hosted import create_hosted, follow

    with Client("localhost:50051") as client:
        made = create_hosted(client, "counterpoint", ["heuristic", "random"], rounds=10)
        for event in follow(client, made.tournament.tournament_id):
            ...

Entrants are the server's reference bots by name (``random``, ``heuristic``) or registered
bot ids (:func:`tricktable.bots.connected.register`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tricktable.client import Client, OptionValue, option_value
from tricktable.v1 import clocks_pb2, tournament_service_pb2_grpc
from tricktable.v1 import tournament_service_pb2 as tpb


def _stub(client: Client) -> tournament_service_pb2_grpc.TournamentServiceStub:
    return tournament_service_pb2_grpc.TournamentServiceStub(client.channel)


def create_hosted(
    client: Client,
    game: str,
    entrants: Sequence[str],
    *,
    rounds: int = 1,
    duplicate: bool = False,
    games_at_once: int = 4,
    seed: bytes = b"",
    options: Mapping[str, OptionValue] | None = None,
    clock: clocks_pb2.TimeControl | None = None,
    name: str = "",
) -> tpb.CreateTournamentResponse:
    """Create a round robin on the server; keep the creator token to cancel it."""
    request = tpb.CreateTournamentRequest(
        game_type=game,
        round_robin=tpb.RoundRobin(rounds=rounds, duplicate=duplicate),
        entrants=list(entrants),
        games_at_once=games_at_once,
        seed=seed,
        name=name,
    )
    for key, value in (options or {}).items():
        request.options[key].CopyFrom(option_value(value))
    if clock is not None:
        request.time_control.CopyFrom(clock)
    response: tpb.CreateTournamentResponse = _stub(client).CreateTournament(request)
    return response


def follow(
    client: Client, tournament_id: str, from_version: int = 0
) -> Iterator[tpb.StreamTournamentResponse]:
    """Every event of the tournament from ``from_version``, until it ends."""
    yield from _stub(client).StreamTournament(
        tpb.StreamTournamentRequest(tournament_id=tournament_id, from_version=from_version)
    )


def get(client: Client, tournament_id: str) -> tpb.GetTournamentResponse:
    response: tpb.GetTournamentResponse = _stub(client).GetTournament(
        tpb.GetTournamentRequest(tournament_id=tournament_id)
    )
    return response


def standings_table(title: str, rows: Sequence[tpb.StandingRow], duplicate: bool) -> Table:
    table = Table(
        title=title, caption="win share: 95% Wilson interval; rating: openskill Plackett-Luce"
    )
    headings = ["#", "entrant", "games", "wins", "win share", "95% CI", "score", "mu ± σ"]
    headings += ["ordinal", *(["duplicate"] if duplicate else []), "forfeits"]
    for heading in headings:
        table.add_column(heading, justify="left" if heading == "entrant" else "right")
    for r in rows:
        cells = [
            str(r.rank),
            r.name,
            str(r.games),
            f"{r.wins:g}",
            f"{r.win_share:.1%}",
            f"{100 * r.win_share_low:.1f}–{100 * r.win_share_high:.1f}",
            f"{r.mean_score:.1f}",
            f"{r.mu:.1f} ± {r.sigma:.1f}",
            f"{r.ordinal:.1f}",
            *([f"{r.duplicate_score:+.1f}"] if duplicate else []),
            str(r.forfeits),
        ]
        table.add_row(*cells)
    return table


def follow_with_progress(
    client: Client, made: tpb.Tournament, *, quiet: bool = False, console: Console | None = None
) -> tpb.StreamTournamentResponse:
    """Follow the tournament with a progress bar (on a terminal); its last event (the end)."""
    console = console or Console(stderr=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=quiet or not console.is_terminal,
    )
    task = progress.add_task("games", total=made.games_total)
    last = tpb.StreamTournamentResponse()
    with progress:
        for event in follow(client, made.tournament_id):
            last = event
            if event.HasField("game_ended"):
                progress.advance(task)
    return last
