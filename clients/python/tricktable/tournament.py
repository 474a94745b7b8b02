"""Bot-vs-bot tournaments over the service: a round robin with seat rotation, optionally with
duplicate deals, many games at once, standings with confidence intervals and ratings.

    from tricktable.client import Client
    from tricktable.tournament import Entrant, TournamentConfig, run_tournament

    config = TournamentConfig(
        game="counterpoint",
        entrants=(Entrant("heuristic", "heuristic"), Entrant("random", "random")),
        rounds=10,
        duplicate=True,
        seed="cup",
    )
    with Client("localhost:50051") as client:
        result = run_tournament(client, config, parallel=4)
    result.write_json("cup.json")

**Entrants** are named bots; a spec is anything :func:`tricktable.bots.make_bot` takes:
``random``, ``heuristic``, ``grpc://host:port`` (a ``BotService``) or ``package.module:attr``.

**Schedule.** A *table* is a choice of entrants for the game's seats: with at least as many
entrants as seats, every combination of distinct entrants (a round robin over all of them);
with fewer, every way to fill the seats that seats each entrant at least once (2 entrants at 3
seats: A A B and A B B), so no entrant is favoured. Each table is played in every *rotation*
(the table's seating shifted one seat at a time), so each of its entrants sits in each seat
once. A *set* is one table's rotations in one round; ``rounds`` sets are played per table.
With ``duplicate`` all games of a set share one deal seed: the same cards go round every seat,
which takes the luck of the deal out of the comparison. Without it every game has a seed of its
own. Every deal seed and every bot seed derives from the tournament seed, and each game is
played from one thread in a fixed order, so a run is reproducible whatever the parallelism.

**Standings**, per entrant, count *seat-games*: an entrant that fills two seats of a game
played it twice. Shared wins count a share (two winners: a half each). The win rate's 95%
interval is Wilson's score interval, which treats seat-games as independent trials: games of a
duplicate set, and two seats of one game, are not quite, so read it as a guide. The mean score
is the mean final score of the entrant's seats (one game and one set of options per tournament,
so scores are comparable). Ratings are openskill's Plackett-Luce model, updated game by game in
game order with the game's ranking: the winners first (tied), then the others by final score
(ties tied). An entrant that fills several seats of a game is rated as each of them and keeps
the sum of their changes to ``mu``, and the product of their reductions of ``sigma``; the
ordinal is ``mu - 3 sigma``. Standings are ordered by ordinal.

**Clocks.** With ``move_time_s`` every game has a time control (and ``bank_s``, and with
``forfeit_after`` the seat forfeits at that many timeouts in one game). A bot then has its
seat's remaining time to answer; one that hangs or crashes is left behind and the server's clock
plays for it, or forfeits it (the game is abandoned and the other seats share the win), so a
broken entrant loses its games instead of stalling the tournament. Each seat's timeouts are
counted per game and per entrant (``timeouts`` in the standings, the JSON and both CSVs).

**Exports** (:meth:`TournamentResult.write_json`, :meth:`~TournamentResult.write_standings_csv`,
:meth:`~TournamentResult.write_games_csv`): the JSON holds everything (the configuration, every
game and the standings); the standings CSV has one row per entrant; the games CSV one row per
seat of each game (a long table: game, set, table, round, rotation, seed id, game id, seat,
entrant, score, win share, rank, moves).
"""

from __future__ import annotations

import csv
import hashlib
import itertools
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from statistics import NormalDist
from typing import Any

from openskill.models import PlackettLuce
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from tricktable.bots import make_bot
from tricktable.bots.base import Bot
from tricktable.bots.runner import play_game
from tricktable.bots.service import RemoteBot
from tricktable.client import Client, OptionValue, time_control
from tricktable.errors import TricktableError
from tricktable.v1 import clocks_pb2

FORMAT = "tricktable-tournament/1"
#: Player names are limited by the server.
MAX_NAME = 64


# -- entrants and configuration ---------------------------------------------------------------


@dataclass(frozen=True)
class Entrant:
    """A named bot: ``spec`` is what :func:`~tricktable.bots.make_bot` takes."""

    name: str
    spec: str

    @classmethod
    def parse(cls, text: str) -> Entrant:
        """``NAME=SPEC``, or a bare ``SPEC`` that is also the name."""
        name, sep, spec = text.partition("=")
        if not sep:
            name, spec = text, text
        name, spec = name.strip(), spec.strip()
        if not name or not spec:
            raise ValueError(f"entrant {text!r}: expected NAME=SPEC")
        return cls(name, spec)


@dataclass(frozen=True)
class TournamentConfig:
    game: str
    entrants: tuple[Entrant, ...]
    rounds: int = 1
    duplicate: bool = False
    seed: str = "tournament"
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    move_time_s: float | None = None  # a time control for every game; None: no clock
    bank_s: float = 0.0
    forfeit_after: int = 0  # with a clock: a seat forfeits at this many timeouts (0: never)

    def __post_init__(self) -> None:
        names = [e.name for e in self.entrants]
        if len(names) < 2:
            raise ValueError("a tournament needs at least two entrants")
        if len(set(names)) != len(names):
            raise ValueError(f"entrant names must differ: {names}")
        for name in names:
            if len(name) > MAX_NAME:
                raise ValueError(f"entrant name {name!r} is longer than {MAX_NAME} characters")
        if self.rounds < 1:
            raise ValueError("rounds must be at least 1")
        if self.move_time_s is not None and (self.move_time_s < 0 or self.bank_s < 0):
            raise ValueError("the move time and the bank must not be negative")

    @property
    def clock(self) -> clocks_pb2.TimeControl | None:
        if self.move_time_s is None:
            return None
        return time_control(self.move_time_s, self.bank_s, forfeit_after=self.forfeit_after)

    def to_data(self, seats: int) -> dict[str, Any]:
        data: dict[str, Any] = {
            "game": self.game,
            "seats": seats,
            "entrants": [asdict(e) for e in self.entrants],
            "rounds": self.rounds,
            "duplicate": self.duplicate,
            "seed": self.seed,
            "options": dict(self.options),
        }
        if self.move_time_s is not None:
            data["clock"] = {
                "move_time_s": self.move_time_s,
                "bank_s": self.bank_s,
                "forfeit_after": self.forfeit_after,
            }
        return data


def check_entrants(entrants: Sequence[Entrant], game: str) -> None:
    """Make each entrant's bot once, so that a bad spec fails before any game is played; a
    remote bot is asked to describe itself (is it there, does it play this game?)."""
    for entrant in entrants:
        try:
            bot = make_bot(entrant.spec, game, "check")
        except ValueError as error:
            raise ValueError(f"entrant {entrant.name!r}: {error}") from error
        try:
            if isinstance(bot, RemoteBot):
                games = bot.describe().games
                if games and game not in games:
                    raise ValueError(
                        f"entrant {entrant.name!r}: the bot at {entrant.spec} plays "
                        f"{', '.join(games)}, not {game}"
                    )
        except TricktableError as error:
            raise ValueError(f"entrant {entrant.name!r}: {entrant.spec}: {error}") from error
        finally:
            close_bot(bot)


def close_bot(bot: Bot) -> None:
    close = getattr(bot, "close", None)  # a remote bot's channel
    if callable(close):
        close()


# -- the schedule -----------------------------------------------------------------------------


def tables(names: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """Every table: combinations of distinct entrants, or, with fewer entrants than seats,
    every multiset of them that seats each at least once."""
    if len(names) >= seats:
        return list(itertools.combinations(names, seats))
    return [
        table
        for table in itertools.combinations_with_replacement(names, seats)
        if set(table) == set(names)
    ]


def rotations(table: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The table's seating shifted by 0, 1, … seats: entrant ``table[i]`` sits at seat
    ``(i + r) % seats`` in rotation ``r``."""
    n = len(table)
    return [tuple(table[(seat - r) % n] for seat in range(n)) for r in range(n)]


def derive_seed(seed: str, *parts: object) -> bytes:
    return hashlib.sha256(":".join([seed, *map(str, parts)]).encode()).digest()


@dataclass(frozen=True)
class ScheduledGame:
    number: int
    set: int
    table: int
    round: int
    rotation: int
    seats: tuple[str, ...]  # the entrant at each seat
    seed: bytes = field(repr=False)

    @property
    def seed_id(self) -> str:
        """Names the deal without giving its seed away: games with equal ids share cards."""
        return hashlib.sha256(b"seed-id:" + self.seed).hexdigest()[:12]


def schedule(
    names: Sequence[str], seats: int, rounds: int, *, duplicate: bool, seed: str
) -> list[ScheduledGame]:
    """Every game, in order: round by round, table by table, rotation by rotation."""
    games: list[ScheduledGame] = []
    all_tables = tables(names, seats)
    for round_number in range(rounds):
        for table_number, table in enumerate(all_tables):
            set_number = round_number * len(all_tables) + table_number
            for rotation, seating in enumerate(rotations(table)):
                deal = (table_number, round_number) if duplicate else (len(games),)
                games.append(
                    ScheduledGame(
                        number=len(games),
                        set=set_number,
                        table=table_number,
                        round=round_number,
                        rotation=rotation,
                        seats=seating,
                        seed=derive_seed(seed, "deal", *deal),
                    )
                )
    return games


# -- playing ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameRecord:
    number: int
    set: int
    table: int
    round: int
    rotation: int
    seats: tuple[str, ...]
    seed_id: str
    game_id: str
    scores: tuple[int, ...]
    winners: tuple[int, ...]  # seat numbers
    moves: int
    timeouts: tuple[int, ...] = ()  # per seat (a game without a clock: none)

    @property
    def shares(self) -> tuple[float, ...]:
        """Each seat's share of the win."""
        share = 1 / len(self.winners) if self.winners else 0.0
        return tuple(share if seat in self.winners else 0.0 for seat in range(len(self.seats)))

    @property
    def ranks(self) -> tuple[int, ...]:
        """Each seat's place (1 is best): winners first, then by final score; ties share."""
        keys = [(seat in self.winners, score) for seat, score in enumerate(self.scores)]
        return tuple(1 + sum(other > key for other in keys) for key in keys)

    def to_data(self) -> dict[str, Any]:
        data = asdict(self)
        data["winner_entrants"] = sorted({self.seats[seat] for seat in self.winners})
        data["ranks"] = list(self.ranks)
        return data


def play_scheduled(
    client: Client,
    config: TournamentConfig,
    game: ScheduledGame,
) -> GameRecord:
    """Play one scheduled game: a fresh bot per seat, every seat from this thread."""
    specs = {e.name: e.spec for e in config.entrants}
    bots: list[Bot] = []
    try:
        for seat, name in enumerate(game.seats):
            bot_seed = f"{config.seed}:bot:{game.number}:{seat}"
            bots.append(make_bot(specs[name], config.game, bot_seed))
        result = play_game(
            client,
            config.game,
            bots,
            options=config.options,
            seed=game.seed,
            names=game.seats,
            clock=config.clock,
        )
    finally:
        for bot in bots:
            close_bot(bot)
    return GameRecord(
        number=game.number,
        set=game.set,
        table=game.table,
        round=game.round,
        rotation=game.rotation,
        seats=game.seats,
        seed_id=game.seed_id,
        game_id=result.game_id,
        scores=tuple(result.scores),
        winners=tuple(result.winners),
        moves=result.moves,
        timeouts=tuple(result.timeouts),
    )


def seat_count(client: Client, game: str) -> int:
    offered = {t.name: t.seats for t in client.game_types()}
    if game not in offered:
        raise ValueError(f"the server offers no game {game!r}; it offers {sorted(offered)}")
    return offered[game]


class TournamentInterrupted(Exception):
    """Ctrl-C (KeyboardInterrupt) stopped the tournament: ``result`` holds the games that had
    finished (its standings are theirs alone); ``unfinished`` games were being played and were
    left as they were (their threads end as the client's channel closes)."""

    def __init__(self, result: TournamentResult, scheduled: int, unfinished: int) -> None:
        super().__init__(
            f"interrupted: {len(result.games)} of {scheduled} games finished, "
            f"{unfinished} left unfinished"
        )
        self.result = result
        self.scheduled = scheduled
        self.unfinished = unfinished


def run_tournament(
    client: Client,
    config: TournamentConfig,
    *,
    parallel: int = 1,
    on_game: Callable[[GameRecord], None] | None = None,
    on_schedule: Callable[[Sequence[ScheduledGame]], None] | None = None,
) -> TournamentResult:
    """Play the whole tournament through ``client``, ``parallel`` games at a time (threads
    sharing the client's channel). ``on_schedule`` is told the games before play starts and
    ``on_game`` each game as it ends (in the calling thread). The first failing game stops the
    tournament: games not yet started are cancelled and its error is raised. Ctrl-C while the
    games are played raises :class:`TournamentInterrupted` at once, with the finished games."""
    if parallel < 1:
        raise ValueError("parallel must be at least 1")
    seats = seat_count(client, config.game)
    check_entrants(config.entrants, config.game)
    games = schedule(
        [e.name for e in config.entrants],
        seats,
        config.rounds,
        duplicate=config.duplicate,
        seed=config.seed,
    )
    if on_schedule is not None:
        on_schedule(games)
    records: list[GameRecord] = []
    pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="tournament")
    futures: list[Future[GameRecord]] = []
    wait = True
    try:
        futures = [pool.submit(play_scheduled, client, config, game) for game in games]
        for future in as_completed(futures):
            records.append(future.result())  # a failed game raises its error here
            if on_game is not None:
                on_game(records[-1])
    except KeyboardInterrupt:
        # Not waiting for the games in play (a game can take minutes): the caller closes the
        # client, which ends their calls. Games that finished meanwhile still count.
        wait = False
        pool.shutdown(wait=False, cancel_futures=True)
        counted = {r.number for r in records}
        for future in futures:
            ended = future.done() and not future.cancelled() and future.exception() is None
            if ended and future.result().number not in counted:
                records.append(future.result())
        unfinished = sum(1 for f in futures if not f.done())
        records.sort(key=lambda r: r.number)
        partial = TournamentResult(config, seats, records, standings(config.entrants, records))
        raise TournamentInterrupted(partial, len(games), unfinished) from None
    finally:
        # On an error the games not yet started are dropped; those playing finish.
        pool.shutdown(wait=wait, cancel_futures=True)
    records.sort(key=lambda r: r.number)
    return TournamentResult(config, seats, records, standings(config.entrants, records))


# -- standings --------------------------------------------------------------------------------

#: openskill's conservative rating: mu less three standard deviations.
ORDINAL_SIGMAS = 3.0


def wilson_interval(successes: float, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval for a binomial proportion (it stays inside [0, 1] and behaves at
    rates near 0 or 1, unlike the normal approximation). Fractional successes (shared wins) are
    taken as they are."""
    if trials <= 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    rate = successes / trials
    denominator = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials)) / denominator
    # The interval always holds the rate; clamping keeps rounding (0 wins: 1e-17) from moving it.
    return (max(0.0, min(rate, centre - half)), min(1.0, max(rate, centre + half)))


@dataclass(frozen=True)
class Standing:
    rank: int
    name: str
    spec: str
    games: int  # seat-games
    wins: float
    win_rate: float
    ci_low: float
    ci_high: float
    mean_score: float
    mu: float
    sigma: float
    ordinal: float
    timeouts: int = 0  # over all its seat-games


@dataclass
class _Tally:
    games: int = 0
    wins: float = 0.0
    score: int = 0
    timeouts: int = 0


class StandingsFold:
    """The standings folded game by game: :func:`standings` over every record at once, or kept
    and extended as games end (a server keeping a tournament's standings adds each game once,
    instead of folding every game again). ``copy`` is cheap (per entrant, not per game)."""

    def __init__(self, entrants: Sequence[Entrant]) -> None:
        self.entrants = tuple(entrants)
        self._model = PlackettLuce()
        self._mu = {e.name: self._model.mu for e in entrants}
        self._sigma = {e.name: self._model.sigma for e in entrants}
        self._tally = {e.name: _Tally() for e in entrants}

    def copy(self) -> StandingsFold:
        out = StandingsFold.__new__(StandingsFold)
        out.entrants, out._model = self.entrants, self._model
        out._mu, out._sigma = dict(self._mu), dict(self._sigma)
        out._tally = {name: replace(t) for name, t in self._tally.items()}
        return out

    def add(self, record: GameRecord) -> None:
        """Rate one more game (games are rated in the order added)."""
        model, mu, sigma, tally = self._model, self._mu, self._sigma, self._tally
        teams = [[model.rating(mu=mu[name], sigma=sigma[name])] for name in record.seats]
        rated = model.rate(teams, ranks=list(record.ranks))
        before_mu, before_sigma = dict(mu), dict(sigma)
        for seat, name in enumerate(record.seats):
            after = rated[seat][0]
            # Several seats of one entrant: each seat's change counts (see the module's notes).
            mu[name] += after.mu - before_mu[name]
            sigma[name] *= after.sigma / before_sigma[name]
            tally[name].games += 1
            tally[name].wins += record.shares[seat]
            tally[name].score += record.scores[seat]
            tally[name].timeouts += record.timeouts[seat] if record.timeouts else 0

    def standings(self) -> list[Standing]:
        mu, sigma = self._mu, self._sigma
        rows = []
        for entrant in self.entrants:
            t = self._tally[entrant.name]
            low, high = wilson_interval(t.wins, t.games)
            rows.append(
                Standing(
                    rank=0,
                    name=entrant.name,
                    spec=entrant.spec,
                    games=t.games,
                    wins=t.wins,
                    win_rate=t.wins / t.games if t.games else 0.0,
                    ci_low=low,
                    ci_high=high,
                    mean_score=t.score / t.games if t.games else 0.0,
                    mu=mu[entrant.name],
                    sigma=sigma[entrant.name],
                    ordinal=mu[entrant.name] - ORDINAL_SIGMAS * sigma[entrant.name],
                    timeouts=t.timeouts,
                )
            )
        rows.sort(key=lambda s: (-s.ordinal, -s.win_rate, s.name))
        return [Standing(**{**asdict(row), "rank": n}) for n, row in enumerate(rows, start=1)]


def standings(entrants: Sequence[Entrant], records: Sequence[GameRecord]) -> list[Standing]:
    """Each entrant's record and rating over ``records`` (rated in the order given)."""
    fold = StandingsFold(entrants)
    for record in records:
        fold.add(record)
    return fold.standings()


# -- results and exports ----------------------------------------------------------------------

STANDINGS_COLUMNS = [
    "rank",
    "name",
    "spec",
    "games",
    "wins",
    "win_rate",
    "ci_low",
    "ci_high",
    "mean_score",
    "mu",
    "sigma",
    "ordinal",
    "timeouts",
]
GAMES_COLUMNS = [
    "game",
    "set",
    "table",
    "round",
    "rotation",
    "seed_id",
    "game_id",
    "seat",
    "entrant",
    "score",
    "win_share",
    "rank",
    "moves",
    "timeouts",
]


@dataclass(frozen=True)
class TournamentResult:
    config: TournamentConfig
    seats: int
    games: list[GameRecord]
    standings: list[Standing]

    def to_data(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "config": self.config.to_data(self.seats),
            "games": [g.to_data() for g in self.games],
            "standings": [asdict(s) for s in self.standings],
        }

    def write_json(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_data(), indent=2) + "\n", encoding="utf-8")

    def write_standings_csv(self, path: str | Path) -> None:
        with Path(path).open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, STANDINGS_COLUMNS)
            writer.writeheader()
            writer.writerows(asdict(s) for s in self.standings)

    def write_games_csv(self, path: str | Path) -> None:
        with Path(path).open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, GAMES_COLUMNS)
            writer.writeheader()
            for g in self.games:
                for seat, name in enumerate(g.seats):
                    writer.writerow(
                        {
                            "game": g.number,
                            "set": g.set,
                            "table": g.table,
                            "round": g.round,
                            "rotation": g.rotation,
                            "seed_id": g.seed_id,
                            "game_id": g.game_id,
                            "seat": seat,
                            "entrant": name,
                            "score": g.scores[seat],
                            "win_share": g.shares[seat],
                            "rank": g.ranks[seat],
                            "moves": g.moves,
                            "timeouts": g.timeouts[seat] if g.timeouts else 0,
                        }
                    )


# -- the terminal -----------------------------------------------------------------------------


def standings_table(result: TournamentResult) -> Table:
    """The standings as a rich table. On a narrow terminal the entrant names are shortened
    first; the numbers keep their width."""
    config = result.config
    deals = "duplicate deals" if config.duplicate else "a deal per game"
    table = Table(
        title=f"{config.game}: {len(result.games)} games, {deals}, seed {config.seed!r}",
        caption="win rate: 95% Wilson interval; rating: openskill Plackett-Luce",
    )
    headings: tuple[str, ...] = (
        "#",
        "entrant",
        "games",
        "wins",
        "win rate",
        "95% CI",
        "score",
        "mu ± σ",
        "ordinal",
    )
    rows: list[tuple[str, ...]] = [
        (
            str(s.rank),
            s.name,
            str(s.games),
            f"{s.wins:g}",
            f"{s.win_rate:.1%}",
            f"{100 * s.ci_low:.1f}–{100 * s.ci_high:.1f}",
            f"{s.mean_score:.1f}",
            f"{s.mu:.1f} ± {s.sigma:.1f}",
            f"{s.ordinal:.1f}",
        )
        for s in result.standings
    ]
    if config.move_time_s is not None:  # a clocked tournament counts each entrant's timeouts
        headings = (*headings, "timeouts")
        rows = [(*row, str(s.timeouts)) for row, s in zip(rows, result.standings, strict=True)]
    for index, heading in enumerate(headings):
        width = max(len(cell) for cell in [heading, *(row[index] for row in rows)])
        if heading == "entrant":
            table.add_column(heading, no_wrap=True, min_width=min(width, 12))
        else:
            table.add_column(heading, justify="right", no_wrap=True, min_width=width)
    for row in rows:
        table.add_row(*row)
    return table


def print_standings(result: TournamentResult, console: Console | None = None) -> None:
    """Print the standings table; into a file or a pipe at its full width (a terminal's
    width is the user's to choose)."""
    console = console or Console()
    table = standings_table(result)
    if not console.is_terminal:
        # Measured on a console wide enough not to clamp the measurement.
        needed = Console(file=console.file, width=10_000).measure(table).maximum
        console = Console(file=console.file, width=max(console.width, needed))
    console.print(table)


@dataclass
class ProgressHooks:
    """``run_tournament``'s callbacks driving a progress bar."""

    on_schedule: Callable[[Sequence[ScheduledGame]], None]
    on_game: Callable[[GameRecord], None]


@contextmanager
def progress_bar(console: Console | None = None, *, quiet: bool = False) -> Iterator[ProgressHooks]:
    """A rich progress bar on stderr (by default), shown only on a terminal and unless quiet."""
    console = console or Console(stderr=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=quiet or not console.is_terminal,
    )
    task = progress.add_task("games", total=None)

    def scheduled(games: Sequence[ScheduledGame]) -> None:
        progress.update(task, total=len(games))

    def ended(record: GameRecord) -> None:
        progress.advance(task)

    with progress:
        yield ProgressHooks(scheduled, ended)
