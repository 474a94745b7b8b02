"""Run bots against live games.

* :class:`BotRunner` plays one seat of a live game for a bot, in one of three styles:
  ``"play"`` (the default, and the cheapest) plays on the seat's play stream
  (:mod:`tricktable.playstream`): one long-lived call that brings the seat's view whenever it is
  to act and carries its moves; ``"stream"`` follows the game's event stream and looks at the
  game (a unary call) whenever it changes; ``"poll"`` uses request/response only, for networks
  where long-lived streams are a problem: with ``wait_for_turn`` (the default) the server holds
  each answer until the seat is to act, so a move costs one call; without it the runner asks at
  an interval. Every style waits for the table to fill, submits at the version it decided on,
  decides again when the game moved on meanwhile, reconnects after a dropped connection (the
  client's retries and resumable streams), and bounds the bot's thinking time: a bot that takes
  longer than ``think_timeout_s`` forfeits that move to ``fallback``. In a game with a clock
  and no ``think_timeout_s``, the server's clock is the bound: a bot still thinking when its
  seat's clock runs out is left behind and the server moves for the seat.
* :func:`play_game` plays every seat of one game from a single thread, in a fixed order: with a
  fixed game seed and seeded bots a whole game is reproducible, which is what measuring bots
  against each other needs. In a game with a clock (``clock``) a bot is given the time its
  seat's clock has left; one that does not answer in time, or fails, is left behind and the
  server's clock moves for its seat (or forfeits it), so a hung or broken bot cannot stall the
  game.

A bot with a ``see`` method (:class:`~tricktable.bots.base.SeeingBot`) is shown its seat's
:class:`~tricktable.bots.base.History` before each decision: every event the seat has seen since
the game began (taken from the stream the style plays on; the polling style reads the missing
batches from the event stream just before a decision) and the game's options. Other bots are
played as before, and no events are kept for them.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, Literal

from tricktable import facts
from tricktable.bots.base import Bot, History, Move, View, options_of, sees
from tricktable.client import Client, OptionValue, Seat
from tricktable.errors import IllegalMove, StaleVersion, TricktableError
from tricktable.legal import legal_moves
from tricktable.playstream import PlayStream
from tricktable.v1 import clocks_pb2
from tricktable.v1 import game_service_pb2 as pb

Style = Literal["play", "stream", "poll"]
STYLES = ("play", "stream", "poll")
_OVER = (pb.GAME_STATUS_FINISHED, pb.GAME_STATUS_ABANDONED)


class BotError(Exception):
    """A bot returned a move that is not one of its legal moves."""


def learn_facts(client: Client, game: str) -> None:
    """Bots read their games' facts from the server's game types: ask once per game."""
    if not facts.known(game):
        client.game_types()


def first_legal(view: View, legal: Sequence[Move]) -> Move | None:
    return legal[0] if legal else None


def is_over(state: pb.GetGameResponse) -> bool:
    return state.game.status in _OVER or state.view.finished


@dataclass
class _Position:
    """What the runner last knew: the version and the seat's view at it."""

    version: int
    view: View
    over: bool


class BotRunner:
    """Plays ``seat`` for ``bot`` until the game ends (or ``stop`` is set)."""

    def __init__(
        self,
        seat: Seat,
        bot: Bot,
        *,
        style: Style = "play",
        poll_interval_s: float = 0.05,
        think_timeout_s: float | None = None,
        fallback: Bot = first_legal,
        stop: threading.Event | None = None,
        wait_for_turn: bool = True,
    ) -> None:
        if style not in STYLES:
            raise ValueError(f"style must be one of {', '.join(STYLES)}, not {style!r}")
        self.seat = seat
        self.bot = bot
        self.style = style
        self.poll_interval_s = poll_interval_s
        self.think_timeout_s = think_timeout_s
        self.fallback = fallback
        self.stop = stop or threading.Event()
        # Long polls belong to the polling style; a streaming runner learns of changes anyway.
        self.wait_for_turn = wait_for_turn and style == "poll"
        self.moves_made = 0
        self.timeouts = 0
        #: What the seat has seen, kept for a bot that looks (None: the bot does not).
        self.history: History | None = History() if sees(bot) else None

    def run(self) -> pb.GetGameResponse:
        """Play to the end; returns the game as this seat sees it at the end."""
        state = self._wait_for_players()
        if self.history is not None:
            self.history.options = options_of(state.game.options)
        if self.style == "play":
            if not is_over(state) and not self.stop.is_set():
                # A bot that keeps the history needs every event: the stream begins at 0.
                self._play(state.game.version if self.history is None else -1)
            return self.seat.get()
        position = self._act(_position(state))
        if self.style == "stream":
            self._follow_stream(position)
        else:
            self._poll(position)
        return self.seat.get()

    def _wait_for_players(self) -> pb.GetGameResponse:
        # Joining a seat is not a version of the game, so the stream says nothing about it.
        while True:
            state = self.seat.get(compact_lay_aside=True)
            if state.game.status != pb.GAME_STATUS_WAITING or self.stop.is_set():
                return state
            self.stop.wait(self.poll_interval_s)

    def _play(self, version: int) -> None:
        """On the play stream: a move whenever the stream brings a view at which the seat is to
        act, until the game ends. Events are not needed: the view holds what a bot decides on,
        so a move is answered with the seat's next turn (wait_for_turn)."""
        play = self.seat.play(from_version=version + 1, compact_lay_aside=True, wait_for_turn=True)
        with play as stream:
            while not self.stop.is_set():
                turn = stream.turn()
                self._take(stream.events())
                view = turn.view
                if stream.ended or view.finished:
                    return
                legal = legal_moves(view)
                move = self._decide(view, legal, turn.version) if legal else None
                if move is None:  # nothing to play, or a chance the bot lets pass
                    stream.skip(turn.version)
                    continue
                if move not in legal:
                    raise BotError(f"seat {self.seat.seat}: {move} is not a legal move")
                try:
                    stream.move(move, turn.version)
                except StaleVersion:
                    continue  # the game moved on while the bot thought: the stream brings it
                except IllegalMove as refused:
                    if refused.reason in {"GAME_OVER", "GAME_ABANDONED"}:
                        return
                    raise
                self._take(stream.events())  # kept only for a bot that looks at them
                self.moves_made += 1

    def _follow_stream(self, position: _Position) -> None:
        if position.over:
            return
        for batch in self.seat.stream(from_version=position.version + 1):
            if self.stop.is_set():
                return
            if self.history is not None:
                # The stream began where the game stood: the batches before it are read first.
                catch_up(self.seat, self.history, batch.version - 1)
                self.history.add(batch.events, batch.version)
            if batch.version <= position.version:
                continue  # a move of ours, already seen in its answer
            position = self._act(_position(self.seat.get(compact_lay_aside=True)))
            if position.over:
                return

    def _poll(self, position: _Position) -> None:
        while not position.over and not self.stop.is_set():
            before = position.version
            state = self.seat.get(wait_for_turn=self.wait_for_turn, compact_lay_aside=True)
            position = self._act(_position(state))
            if position.version == before:  # nothing new (or a chance let pass): not too often
                self.stop.wait(self.poll_interval_s)

    def _act(self, position: _Position) -> _Position:
        """Move while this seat may act and the bot has something to play: the moves the game
        waits on (``to_act``) and, when the bot wants them, optional ones. The seat's own legal
        moves say when it may act: ``may_act`` is public and so does not list an optional move
        that only this seat can know of (an exchange of the trump nine it holds)."""
        while not position.over:
            legal = legal_moves(position.view)
            if not legal:
                break
            move = self._decide(position.view, legal, position.version)
            if move is None:
                break
            if move not in legal:
                raise BotError(f"seat {self.seat.seat}: {move} is not a legal move")
            try:
                answer = self.seat.submit(
                    move,
                    position.version,
                    wait_for_turn=self.wait_for_turn,
                    compact_lay_aside=True,
                )
            except StaleVersion as stale:
                # The game moved on while the bot thought: look again, decide again.
                if stale.current is None:
                    raise
                position = _position(stale.current)
                continue
            except IllegalMove as refused:
                if refused.reason in {"GAME_OVER", "GAME_ABANDONED"}:
                    return _Position(position.version, position.view, over=True)
                raise
            self.moves_made += 1
            version = max(answer.version, answer.view_version)
            position = _Position(version, answer.view, answer.view.finished)
        return position

    def _take(self, batches: Sequence[pb.StreamEventsResponse]) -> None:
        if self.history is not None:
            for batch in batches:
                self.history.add(batch.events, batch.version)

    def _decide(self, view: View, legal: Sequence[Move], version: int) -> Move | None:
        learn_facts(self.seat.client, view.game)
        if self.history is not None:
            catch_up(self.seat, self.history, version)
            self.bot.see(self.history)  # type: ignore[attr-defined]  # sees(bot) said it can
            self.history.decided()
        if self.think_timeout_s is None:
            left = _clock_left(view, self.seat.seat)
            if left is not None:
                # The server's clock bounds the bot: past it the server moves for the seat, so
                # the runner neither waits on nor sends a fallback of its own.
                ((_, move),) = _answers({self.seat.seat: (self.bot, view, legal, left)})
                return move
        try:
            if self.think_timeout_s is None:
                return self.bot(view, legal)
            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bot-think")
            future = pool.submit(self.bot, view, legal)
            try:
                return future.result(timeout=self.think_timeout_s)
            finally:
                pool.shutdown(wait=False)  # a bot still thinking is left to finish on its own
        except (FutureTimeout, TricktableError) as late:
            # Too slow, or a remote bot that cannot be reached in time: the move is forfeited
            # to the fallback. A remote bot that refuses the request is a real error.
            if isinstance(late, TricktableError) and not late.retryable:
                raise
            self.timeouts += 1
            return self.fallback(view, legal)


def catch_up(seat: Seat, history: History, version: int) -> None:
    """Read the event batches ``history`` lacks, up to game version ``version``, from the
    seat's event stream (a style that is not on a stream, or whose stream began late)."""
    if history.version >= version:
        return
    batches = seat.stream(from_version=history.version + 1)
    try:
        for batch in batches:
            history.add(batch.events, batch.version)
            if batch.version >= version:
                return
    finally:
        close = getattr(batches, "close", None)  # a generator: closing it ends the call
        if close is not None:
            close()


def _position(state: pb.GetGameResponse) -> _Position:
    return _Position(state.game.version, state.view, is_over(state))


def run_bot(
    seat: Seat,
    bot: Bot,
    *,
    style: Style = "play",
    poll_interval_s: float = 0.05,
    think_timeout_s: float | None = None,
) -> pb.GetGameResponse:
    """Play one seat for a bot until the game ends (see :class:`BotRunner`)."""
    runner = BotRunner(
        seat, bot, style=style, poll_interval_s=poll_interval_s, think_timeout_s=think_timeout_s
    )
    return runner.run()


# -- one game, every seat, one thread --------------------------------------------------------


@dataclass(frozen=True)
class GameResult:
    game_id: str
    final: pb.GetGameResponse
    moves: int  # made by the bots (not by the server's clock)

    @property
    def winners(self) -> list[int]:
        """The winners by the rules; in a game abandoned by a resignation (or a forfeit on
        time), every seat but the one that resigned."""
        game = self.final.game
        if game.status == pb.GAME_STATUS_ABANDONED and game.HasField("resigned_seat"):
            return [n for n in range(len(game.seats)) if n != game.resigned_seat]
        return list(self.final.view.winners)

    @property
    def timeouts(self) -> list[int]:
        """Each seat's timeouts (a game without a clock: none)."""
        counted = {c.seat: c.timeouts for c in self.final.view.clocks}
        return [counted.get(n, 0) for n in range(len(self.final.game.seats))]

    @property
    def scores(self) -> list[int]:
        return [s.score for s in self.final.view.seats]


class Stalled(Exception):
    """Seats are to act but every bot let its chance go by."""


def play_seats(seats: Sequence[Seat], bots: Sequence[Bot], max_moves: int = 100_000) -> GameResult:
    """Play a joined game to its end from this thread, each seat on its play stream: each time,
    the seats to act are asked in seat order and the first bot that answers moves.
    Deterministic for deterministic bots."""
    if len(seats) != len(bots):
        raise ValueError(f"{len(seats)} seats but {len(bots)} bots")
    moves = 0
    client = seats[0].client
    game_id = seats[0].game_id
    with contextlib.ExitStack() as streams:
        # Answered at once (not wait_for_turn): this thread plays every seat in turn, so a
        # move's answer must not wait for the other seats' moves.
        plays = [streams.enter_context(seat.play(compact_lay_aside=True)) for seat in seats]
        # Whose turn it is is public: the public view tells which streams bring a turn, at
        # the start; then the streams themselves do (_public_at).
        public = client.get(game_id)
        learn_facts(client, public.game.game_type)
        histories = _histories(bots, public.game.options)
        view, version = public.view, public.game.version
        while moves < max_moves:
            if view.finished or not view.to_act:
                return GameResult(game_id, client.get(game_id), moves)
            for number in _acting(view, plays, version):
                turn = plays[number].turn(since=version)
                legal = legal_moves(turn.view)
                if not legal:
                    continue
                _show(bots[number], histories[number], plays[number].events())
                move = bots[number](turn.view, legal)
                if move is None:
                    continue
                if move not in legal:
                    raise BotError(f"seat {number}: {move} is not a legal move")
                version = plays[number].move(move, turn.version)
                view = _public_at(plays, version, histories) or client.get(game_id).view
                moves += 1
                break
            else:
                raise Stalled(f"game {game_id}: seats {list(view.to_act)} all let it pass")
    raise Stalled(f"game {game_id} did not end within {max_moves} moves")


def _acting(view: View, plays: Sequence[PlayStream], version: int) -> list[int]:
    """The seats that may act at ``version``: the public list (``may_act``; ``to_act`` from a
    server older than it), and a seat whose stream brought it a view there with legal moves,
    an optional move that only it can know of (an exchange of the trump nine it holds)."""
    acting = set(view.may_act or view.to_act)
    for number, play in enumerate(plays):
        mine = play.view
        if mine is not None and mine.version == version and legal_moves(mine.view):
            acting.add(number)
    return sorted(acting)


def _histories(bots: Sequence[Bot], options: Mapping[str, Any]) -> list[History | None]:
    """A history per seat whose bot looks at it (None for one that does not)."""
    return [History(options=options_of(options)) if sees(bot) else None for bot in bots]


def _show(
    bot: Bot, history: History | None, batches: Sequence[pb.StreamEventsResponse] = ()
) -> None:
    """Before a decision: take the seat's new batches and show the bot its history."""
    if history is None:
        return
    for batch in batches:
        history.add(batch.events, batch.version)
    bot.see(history)  # type: ignore[attr-defined]  # a history is kept only for such a bot
    history.decided()


def _public_at(
    plays: Sequence[PlayStream], version: int, histories: Sequence[History | None] = ()
) -> View | None:
    """A view of the game at ``version`` from the seats' streams, for what every view shows
    alike (who is to act or may act, whether the game is over); None when no seat was sent one
    there. Every stream hears of every version, and a seat that may act at it (every seat, at
    the game's end) gets its view in the same message: so the streams tell whose turn it is,
    where asking the server for the public view cost a unary call a move."""
    public: View | None = None
    for number, play in enumerate(plays):
        while play.version < version and not play.ended:
            play.receive()
        history = histories[number] if histories else None
        for batch in play.events():  # kept only for a bot that looks at them
            if history is not None:
                history.add(batch.events, batch.version)
        if public is None and play.view is not None and play.view.version == version:
            public = play.view.view
    return public


#: Thinking time for an optional move (no clock runs for it).
OPTIONAL_THINK_S = 0.5


def play_clocked_seats(
    seats: Sequence[Seat], bots: Sequence[Bot], max_moves: int = 100_000
) -> GameResult:
    """Like :func:`play_seats`, in a game with a clock: the bots of every seat that may act are
    asked at once (each seat's clock runs on its own), each given the time its clock has left
    (an optional move, :data:`OPTIONAL_THINK_S`). A bot that does not answer in time, or
    raises, is left behind (its thread thinks on as a daemon) and the game goes on when the
    server's clock moves for the seat. Answers are sent in seat order; one decided before
    another seat's move is sent if it is still legal, and a move the clock beat is refused as
    stale and the game looked at again."""
    if len(seats) != len(bots):
        raise ValueError(f"{len(seats)} seats but {len(bots)} bots")
    moves = 0
    client = seats[0].client
    game_id = seats[0].game_id
    state = client.get(game_id)
    learn_facts(client, state.game.game_type)
    histories = _histories(bots, state.game.options)
    while moves < max_moves:
        if is_over(state):
            return GameResult(game_id, client.get(game_id), moves)
        # Every seat is asked for its view: may_act is public and does not list an optional
        # move only its seat can know of (an exchange of the trump nine it holds).
        asked = {n: seat.get(compact_lay_aside=True) for n, seat in enumerate(seats)}
        if any(s.game.version != state.game.version for s in asked.values()):
            state = client.get(game_id)  # the game moved on meanwhile (the clock)
            continue
        made = 0
        legals = {n: legal_moves(mine.view) for n, mine in asked.items()}
        for n, legal in legals.items():
            history = histories[n]
            if legal and history is not None:
                catch_up(seats[n], history, state.game.version)
                _show(bots[n], history)
        for number, move in _answers(
            {
                n: (bots[n], asked[n].view, legal, _time_left(asked[n].view, n))
                for n, legal in legals.items()
                if legal
            }
        ):
            if move is None:
                continue
            if move not in legals[number]:
                raise BotError(f"seat {number}: {move} is not a legal move")
            if _send(seats[number], move, first=made == 0, decided_at=state.game.version):
                made += 1
        moves += made
        if made:
            state = client.get(game_id)
        else:  # nobody answered: the server's clock moves the game on
            state = client.get(game_id, after_version=state.game.version)
    raise Stalled(f"game {game_id} did not end within {max_moves} moves")


def _send(seat: Seat, move: Move, *, first: bool, decided_at: int) -> bool:
    """Submit a move decided at version ``decided_at``; after another seat's move, only if it
    is still the seat's legal move. False when it was not sent or was refused (the clock came
    first, or the game ended)."""
    version = decided_at
    if not first:
        now = seat.get(compact_lay_aside=True)
        if is_over(now) or move not in legal_moves(now.view):
            return False
        version = now.game.version
    try:
        seat.submit(move, version)
    except StaleVersion:
        return False
    except IllegalMove as refused:
        if refused.reason not in {"GAME_OVER", "GAME_ABANDONED", "NOT_YOUR_TURN"}:
            raise
        return False
    return True


def _clock_left(view: View, seat: int) -> float | None:
    """The time the seat's running clock has left (None: no clock runs for it)."""
    for clock in view.clocks:
        if clock.seat == seat and clock.running:
            return (clock.move_ms_left + clock.bank_ms_left) / 1000
    return None


def _time_left(view: View, seat: int) -> float:
    left = _clock_left(view, seat)
    return OPTIONAL_THINK_S if left is None else left


def _answers(
    asked: Mapping[int, tuple[Bot, View, Sequence[Move], float]],
) -> Iterator[tuple[int, Move | None]]:
    """Every seat's bot asked at once; each answer as it comes, within that seat's time limit
    (else, or for a bot that fails, None). The threads are daemons, so a bot that never
    answers never holds up the program's exit."""
    answers: queue.Queue[tuple[int, Move | None]] = queue.Queue()

    def ask(number: int, bot: Bot, view: View, legal: Sequence[Move]) -> None:
        try:
            move = bot(view, legal)
        except Exception:  # a crashing bot is one that does not answer
            move = None
        answers.put((number, move))

    started = time.monotonic()
    limits = {n: started + entry[3] for n, entry in asked.items()}
    for number, (bot, view, legal, _) in asked.items():
        threading.Thread(
            target=ask, args=(number, bot, view, legal), name="bot-think", daemon=True
        ).start()
    while limits:
        wait = max(0.0, min(limits.values()) - time.monotonic())
        try:
            number, move = answers.get(timeout=wait)
        except queue.Empty:
            now = time.monotonic()
            for late in [n for n, limit in limits.items() if limit <= now]:
                del limits[late]
                yield late, None
            continue
        if limits.pop(number, None) is not None:  # not an answer given up on already
            yield number, move


def play_game(
    client: Client,
    game_type: str,
    bots: Sequence[Bot],
    *,
    options: Mapping[str, OptionValue] | None = None,
    seed: bytes = b"",
    names: Sequence[str] | None = None,
    clock: clocks_pb2.TimeControl | None = None,
) -> GameResult:
    """Create a game, seat one bot per seat (in seat order) and play it to the end; with a
    ``clock``, as :func:`play_clocked_seats` does."""
    game = client.create(game_type, options, seed, clock=clock)
    seats = [
        client.join(game.game_id, number, names[number] if names else f"bot{number}")
        for number in range(len(game.seats))
    ]
    if clock is not None:
        return play_clocked_seats(seats, bots)
    return play_seats(seats, bots)


def run_table(
    client: Client,
    game_id: str,
    bots: Mapping[int, Bot],
    *,
    style: Style = "play",
    timeout_s: float = 120.0,
    poll_interval_s: float = 0.05,
    think_timeout_s: float | None = None,
    wait_for_turn: bool = True,
) -> dict[int, pb.GetGameResponse]:
    """Join the given seats of a game and run each bot on its own thread until the game ends:
    a live table, as separate bot programs would play it. Returns each seat's final state."""
    seats = {number: client.join(game_id, number, f"bot{number}") for number in bots}
    stop = threading.Event()
    results: dict[int, pb.GetGameResponse] = {}
    errors: list[BaseException] = []

    def play(number: int) -> None:
        try:
            runner = BotRunner(
                seats[number],
                bots[number],
                style=style,
                stop=stop,
                poll_interval_s=poll_interval_s,
                think_timeout_s=think_timeout_s,
                wait_for_turn=wait_for_turn,
            )
            results[number] = runner.run()
        except BaseException as error:  # reported to the caller below
            errors.append(error)
            stop.set()

    threads = [threading.Thread(target=play, args=(n,), daemon=True) for n in bots]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout_s
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    stop.set()
    if errors:
        raise errors[0]
    if len(results) != len(bots):
        raise TimeoutError(f"game {game_id} did not end within {timeout_s} s")
    return results
