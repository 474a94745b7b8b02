"""``tricktable play GAME``: play a game in the terminal against bots.

The player takes one seat; bots take the others. The reference bots (``heuristic``, ``random``) are
the server's own (``CreateGame`` bot seats): the server plays them, a short delay after their turn
comes, as it would for a person alone at a web page. Any other bot (``grpc://``, an import path)
runs here, each on a thread of its own through the bot SDK
(:class:`tricktable.bots.runner.BotRunner`); the player and such bots play on their seats' play
streams. Without ``--address`` a server of its own is started (``tricktable serve``, which needs
the server package). With ``--move-time`` the game has a clock: the table shows every seat's time
left, the clocks tick while the player waits or thinks, and a player who takes too long has a
move played for them. The player follows the game's event stream as their seat sees it: the events
since the last prompt are printed one per line, then the table, the numbered legal moves and a
prompt. A move the server refuses (``MUST_FOLLOW_SUIT``...) is explained and the prompt repeats.
``q`` (confirmed), end of input or Ctrl-C leaves the game, which resigns it once it has started.

While the player thinks, the game goes on (:mod:`tricktable.cli.prompting`): the others' moves,
and the server's move when the player's clock runs out, are shown as they come, and the prompt
comes back when the seat is to act again. Bid cards are confirmed before they are sent, with the
bid they make (``lay aside: 6♣ 10♣ K♣ = bid 9``).
"""

from __future__ import annotations

import argparse
import contextlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from tricktable.bots import make_bot
from tricktable.bots.base import Bot, may_wait
from tricktable.bots.runner import BotRunner
from tricktable.cli.common import (
    add_game_argument,
    add_option_argument,
    add_tls_arguments,
    parse_options,
    tls_options,
)
from tricktable.cli.local_server import local_server
from tricktable.cli.prompting import LineReader, LiveStream
from tricktable.cli.ticking import Ticking
from tricktable.client import Client, Seat, time_control
from tricktable.errors import IllegalMove, StaleVersion, TricktableError
from tricktable.legal import legal_moves
from tricktable.move_text import MoveInputError, NotLegalNow, lay_aside_text, parse_move
from tricktable.render import (
    TITLES,
    Seats,
    duration,
    event_line,
    render_moves,
    render_view,
    result_text,
    sentence,
)
from tricktable.server_time import ServerTime
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import moves_pb2, views_pb2

Read = Callable[[str], str]
#: The game as a seat sees it: a GetGame answer, or a view its play stream brought.
State = pb.GetGameResponse | pb.PlayView

PROMPT = "Your move> "
QUIT_WORDS = frozenset({"q", "quit", "exit", "leave", "resign"})
#: Asked before ``q`` leaves a game (which resigns it once it has started).
CONFIRM_QUIT = "Leave the game? Once it has started, leaving resigns it. y: leave> "
#: How often a prompt looks for the server's messages while the player types.
POLL_S = 0.05
HELP = (
    "Type the number of a move, or name it: a card (QS, Q♠, 10h, th, Jk), several cards to "
    "lay them aside (7c qh as: shown with the bid they make, Enter sends them), or a word: "
    "pass, declare, reveal, claim, close, draw, "
    "exchange, marriage hearts, bid 10, misere, open misere, cut 12, seat 2, and for a "
    "Nominations contract a suit or nt with the card you call (spades AH). "
    "'table' shows the table again, 'q' leaves the game (you are asked first)."
)
#: The bots the server plays itself (CreateGame bot_seats); others run in this process.
SERVER_BOTS = frozenset({"random", "heuristic"})
#: Refusals that mean the game ended while the player chose (a bot resigned): nothing to ask.
GAME_ENDED = frozenset({"GAME_OVER", "GAME_ABANDONED"})


def register(sub: Any) -> None:
    p = sub.add_parser("play", help="play a game in the terminal against bots")
    add_game_argument(p)
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="SPEC",
        help="the bot of the next other seat, in seat order (repeatable): heuristic, random or "
        "grpc://HOST:PORT; seats without one get the heuristic bot",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="HOST:PORT",
        help="play on this server (default: start one, when the server package is installed)",
    )
    add_option_argument(p)
    p.add_argument("--seed", default=None, help="deal the same cards (and random bot moves) again")
    p.add_argument(
        "--move-time",
        type=float,
        default=None,
        metavar="SECONDS",
        help="play with a clock: this much time per move (the server moves for you after it)",
    )
    p.add_argument(
        "--bank", type=float, default=0.0, metavar="SECONDS", help="with --move-time: a time bank"
    )
    p.add_argument("--name", default="player", help="your name at the table (default player)")
    add_tls_arguments(p)
    p.set_defaults(run=run)


def run(
    args: argparse.Namespace, *, console: Console | None = None, read: Read | None = None
) -> int:
    """Play one game. ``read`` asks for a line (default: the console's input, from stdin)."""
    console = console or Console()
    ask = read or console.input
    if args.address:
        with Client(args.address, **tls_options(args)) as client:
            return play(client, args, console, ask)
    with local_server("play") as address, Client(address) as client:
        return play(client, args, console, ask)


def play(client: Client, args: argparse.Namespace, console: Console, read: Read) -> int:
    types = {t.name: t for t in client.game_types()}
    if args.game not in types:
        console.print(f"tricktable: the server has no game {args.game!r}", markup=False)
        return 2
    players = types[args.game].seats
    if not 0 <= args.seat < players:
        console.print(f"tricktable: --seat must be 0 to {players - 1}", markup=False)
        return 2
    try:
        bots = choose_bots(args.game, args.seat, players, args.bot, args.seed)
    except ValueError as error:
        console.print(f"tricktable: {error}", markup=False)
        return 2
    seed = args.seed.encode() if args.seed is not None else b""
    served = {n: spec for n, (spec, _) in bots.items() if spec in SERVER_BOTS}
    clock = time_control(args.move_time, args.bank) if args.move_time is not None else None
    try:
        options = parse_options(args.option)
        game = client.create(args.game, options, seed, clock=clock, bot_seats=served)
    except TricktableError as error:
        console.print(f"tricktable: {error.message} [{error.reason}]", markup=False)
        return 2
    me = client.join(game.game_id, args.seat, args.name)
    table = BotThreads(
        {n: client.join(game.game_id, n, name) for n, (name, _) in bots.items() if n not in served}
    )
    names = [s.player_name for s in client.get(game.game_id).game.seats]
    console.print(
        Text.assemble(
            (f"{TITLES.get(args.game, args.game)}", "bold"),
            f": game {game.game_id}, you are seat {args.seat}. ",
            (
                "Type a move's number, a card (QS, Q♠, 10h) or a word; ? for help, q to leave.",
                "dim",
            ),
        )
    )
    table.start({n: bot for n, (_, bot) in bots.items() if n not in served})
    player = Player(me, console, read, names)
    if "high_readings" in game.options:
        player.high_readings = game.options["high_readings"].bool_value
    try:
        player.run()
    finally:
        table.close()
    for failure in table.failures:
        console.print(failure, style="red", markup=False)
    return 0


def choose_bots(
    game: str, seat: int, players: int, specs: Sequence[str], seed: str | None
) -> dict[int, tuple[str, Bot]]:
    """Each other seat's bot, in seat order: the ``--bot`` specs given, then heuristic bots."""
    others = [n for n in range(players) if n != seat]
    if len(specs) > len(others):
        raise ValueError(f"{len(specs)} bots given for {len(others)} other seats")
    chosen = list(specs) + ["heuristic"] * (len(others) - len(specs))
    return {
        n: (spec, make_bot(spec, game, seed=f"{seed}:{n}" if seed is not None else None))
        for n, spec in zip(others, chosen, strict=True)
    }


class BotThreads:
    """The other seats, each played by its bot on a thread of its own. A bot that fails resigns
    its seat, so that the game ends instead of waiting for it forever."""

    def __init__(self, seats: Mapping[int, Seat]) -> None:
        self.seats = dict(seats)
        self.stop = threading.Event()
        self.failures: list[str] = []
        self._threads: list[threading.Thread] = []

    def start(self, bots: Mapping[int, Bot]) -> None:
        for number, seat in self.seats.items():
            thread = threading.Thread(
                target=self._play, args=(seat, bots[number]), name=f"bot-{number}", daemon=True
            )
            self._threads.append(thread)
            thread.start()

    def _play(self, seat: Seat, bot: Bot) -> None:
        try:
            BotRunner(seat, bot, stop=self.stop).run()
        except Exception as error:  # reported to the player at the end
            self.failures.append(f"The bot at seat {seat.seat} failed: {error}")
            with contextlib.suppress(TricktableError):
                seat.leave()

    def close(self, timeout_s: float = 5.0) -> None:
        self.stop.set()
        for thread in self._threads:
            thread.join(timeout_s)


class Quit(Exception):
    """The player asked to leave."""


class MovedOn(Exception):
    """The game moved on while the player was choosing: the decision asked about is gone."""


class Player:
    """One person at one seat: follows the seat's event stream and asks for a move whenever the
    game waits on it."""

    def __init__(self, seat: Seat, console: Console, read: Read, names: Sequence[str]) -> None:
        self.seat = seat
        self.console = console
        self.read = read
        self.names = list(names)
        self.seats = Seats(seat.seat, names)
        self._stream: LiveStream | None = None
        self.server_time = ServerTime()
        self.ticking = Ticking(console, self.seats, self.server_time)
        self._learnt = -1  # the version of the last view the server time was learnt from
        self.reader = LineReader(read, self._write)
        self._shown_at = 0.0  # when the current decision's table was shown (time.monotonic)
        #: The game's high readings of bid cards (Counterpoint's +100), for the lay-aside's bid.
        self.high_readings = True

    def _write(self, text: str) -> None:
        self.console.file.write(text)
        self.console.file.flush()

    def run(self) -> None:
        try:
            self._follow()
        except (Quit, KeyboardInterrupt):
            self._leave()
            return
        self._show_end()

    def _follow(self) -> None:
        with LiveStream(self.seat, compact_lay_aside=True) as stream:
            self._stream = stream
            while True:
                for batch in stream.events():
                    self._show_events(batch)
                if stream.ended:  # after the game's last events and the final view
                    return
                turn = stream.view
                self._learn(turn)
                # A view at which this seat is to act and has not acted, already received (with
                # the answer to its last move, say), or the next message from the server.
                if turn is not None and not turn.view.finished and stream.turn_ready():
                    if self._must_act(turn):
                        self._turn(turn)
                    else:
                        stream.skip(turn.version)  # only optional moves: not asked
                    continue
                with self.ticking.waiting(turn.view if turn is not None else None):
                    stream.receive()

    def _learn(self, state: pb.PlayView | None) -> None:
        """The server's time, from each view as it arrives."""
        if state is not None and state.version != self._learnt:
            self._learnt = state.version
            self.server_time.learn(state.view)

    def _must_act(self, state: State) -> bool:
        """The game waits on this seat. A seat whose only moves are optional (a Sixty-Six claim
        while the other seat leads) is not asked: the bots would not wait for an answer."""
        view = state.view
        legal = legal_moves(view)
        return self.seat.seat in view.to_act and bool(legal) and not may_wait(view, legal)

    def _show_events(self, batch: pb.StreamEventsResponse) -> None:
        for event in batch.events:
            self.console.print(event_line(event, self.seats), soft_wrap=True)
        if batch.HasField("resigned_seat"):
            who = self.seats.does(batch.resigned_seat, "resigns", "resign")
            self.console.print(f"{sentence(who)}: the game is over.", markup=False)

    def _turn(self, state: pb.PlayView) -> None:
        """Ask until a move is accepted, or until the game no longer waits on this decision."""
        self._show_table(state)
        while True:
            try:
                move = self._ask(state)
            except MovedOn:
                return  # the stream shows what happened, and asks again
            if move is None:
                self._show_table(state)
                continue
            if self._submit(move, state):
                return
            # Refused, with the reason shown: ask again on the same table.

    def _show_table(self, state: State) -> None:
        self.console.print(render_view(state.view, self.names))
        self.console.print(render_moves(legal_moves(state.view)))
        self._shown_at = time.monotonic()

    def _ask(self, state: pb.PlayView) -> moves_pb2.Move | None:
        """The move the player names; None to show the table again. Raises :class:`MovedOn`
        when the game moves on meanwhile (the player's clock ran out, say)."""
        legal = legal_moves(state.view)
        while True:
            text = self._line(state, lambda: prompt(state.view, self.seat.seat, self._now()))
            word = text.strip().lower()
            if word in QUIT_WORDS:
                if self._line(state, lambda: CONFIRM_QUIT).strip().lower() in {"y", "yes"}:
                    raise Quit
                continue
            if word in {"?", "help"}:
                self.console.print(HELP, markup=False)
                continue
            if word == "table":
                return None
            try:
                move = parse_move(text, legal)
            except NotLegalNow as not_legal:
                return not_legal.move  # the server says why it is not (MUST_FOLLOW_SUIT, ...)
            except MoveInputError as error:
                self.console.print(str(error), style="yellow", markup=False)
                continue
            if move.WhichOneof("kind") == "lay_aside" and not self._confirm_lay_aside(state, move):
                continue
            return move

    def _confirm_lay_aside(self, state: pb.PlayView, move: moves_pb2.Move) -> bool:
        """Bid cards are shown with the bid they make, and sent once the player agrees."""
        shown = lay_aside_text(move, state.view.game, self.high_readings)
        answer = self._line(state, lambda: f"{shown}. Enter sends it, n chooses again> ")
        return answer.strip().lower() in {"", "y", "yes"}

    def _now(self) -> int:
        return self.server_time.now_ms()

    def _line(self, state: pb.PlayView, text: Callable[[], str]) -> str:
        """A line the player types at the prompt ``text()``, while the game goes on: what the
        server tells meanwhile is shown at once, and the prompt written again. Raises
        :class:`MovedOn` when the decision is gone, :class:`Quit` at the end of input or Ctrl-C.
        A line finished before this decision's table was shown is not taken as its answer."""
        stream = self._stream
        assert stream is not None
        while True:
            try:
                with self.ticking.at_prompt(state.view):
                    self.reader.ask(text())
                    answer = None
                    while answer is None and not self._news(stream, state):
                        answer = self.reader.take(POLL_S)
            except KeyboardInterrupt:
                raise Quit from None
            if answer is not None:
                try:
                    line = answer.text()
                except (EOFError, KeyboardInterrupt):
                    raise Quit from None
                if answer.at >= self._shown_at:
                    return line
                self.console.print(
                    f"(not taken: {line.strip()!r} was typed before this table)", style="dim"
                )
                continue
            self._write("\n")  # off the prompt's line, for what happened meanwhile
            for batch in stream.events():
                self._show_events(batch)
            fresh = stream.view
            if stream.ended or fresh is None or not same_decision(state, fresh, self.seat.seat):
                raise MovedOn
            self._learn(fresh)

    def _news(self, stream: LiveStream, state: pb.PlayView) -> bool:
        """Whether the server told something to show while the player types: events, or the
        decision gone (a message that changes neither is taken quietly)."""
        stream.poll()
        fresh = stream.view
        if stream.ended or fresh is None or stream.has_events():
            return True
        return not same_decision(state, fresh, self.seat.seat)

    def _submit(self, move: moves_pb2.Move, state: pb.PlayView) -> bool:
        """True once the move is made, or when the game moved on so that it no longer stands
        (the stream then shows what happened, and asks again); False when it was refused."""
        stream = self._stream
        assert stream is not None
        while True:
            try:
                stream.move(move, state.version)
                return True
            except IllegalMove as refused:
                if refused.reason in GAME_ENDED:
                    return True
                self.console.print(
                    f"Not allowed: {refused.message} ({refused.reason})",
                    style="red",
                    markup=False,
                )
                return False
            except StaleVersion:
                fresh = stream.turn()  # the stream brings the game as it is now
                if stream.ended or not still_stands(state, fresh, move, self.seat.seat):
                    self.console.print("The game moved on while you were choosing.", style="dim")
                    return True
                state = fresh  # others acted at the same time (bid cards): the choice stands

    def _leave(self) -> None:
        try:
            summary = self.seat.leave()
        except TricktableError as error:
            self.console.print(f"Could not leave the game: {error.message}", markup=False)
            return
        if summary.status == pb.GAME_STATUS_ABANDONED:
            self.console.print("You resigned and left: the game is over.", markup=False)
        else:
            self.console.print("You left the game.", markup=False)

    def _show_end(self) -> None:
        final = self.seat.get()
        self.console.print(render_view(final.view, self.names))
        if final.game.status == pb.GAME_STATUS_ABANDONED:
            resigned = final.game.resigned_seat if final.game.HasField("resigned_seat") else None
            who = self.seats.label(resigned) if resigned is not None else "a player"
            scores = ", ".join(f"{self.seats.label(s.seat)} {s.score}" for s in final.view.seats)
            self.console.print(
                f"The game was abandoned: {who} resigned. Scores: {scores}",
                markup=False,
                soft_wrap=True,
            )
        elif final.view.finished:
            self.console.print(result_text(final.view, self.names), soft_wrap=True)


def prompt(view: views_pb2.View, seat: int, now_ms: int | None = None) -> str:
    """The prompt, with the time the seat's clock has left when one runs: at server time
    ``now_ms``, or as the view was taken."""
    for clock in view.clocks:
        if clock.seat == seat and clock.running:
            ms = clock.move_ms_left + clock.bank_ms_left
            if now_ms is not None:
                ms = clock.deadline_ms - now_ms
            return f"Your move ({duration(ms)} left)> "
    return PROMPT


def same_decision(before: State, after: State, seat: int) -> bool:
    """Whether ``after`` asks ``seat`` the decision ``before`` asked: the same deal and phase,
    the seat still to act, the same legal moves (others laying bid cards aside meanwhile)."""
    b, a = before.view, after.view
    return (
        a.deal_no == b.deal_no
        and a.phase == b.phase
        and seat in a.to_act
        and list(a.legal_moves) == list(b.legal_moves)
        and a.lay_aside_choice == b.lay_aside_choice
    )


def still_stands(before: State, after: State, move: moves_pb2.Move, seat: int) -> bool:
    """Whether a choice made on ``before`` may be sent unchanged on ``after``: the same deal and
    phase, the seat still to act, the move still legal. Moves made meanwhile by seats acting at
    the same time (laying bid cards aside) do not change a decision taken without seeing them."""
    b, a = before.view, after.view
    same_turn = a.deal_no == b.deal_no and a.phase == b.phase and seat in a.to_act
    return same_turn and move in legal_moves(a)
