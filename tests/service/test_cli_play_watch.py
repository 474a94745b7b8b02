"""``tricktable play`` and ``tricktable watch`` against a real server.

``play``: every game played to its final score from scripted input, with bad input refused and
asked again, moves the server refuses explained, and quitting (``q``, end of input, Ctrl-C)
resigning the game. ``watch``: a game played by bot threads followed to the end, where no card
appears in the output before the event that makes it public, and the table drawn again at the
end of each trick.
"""

from __future__ import annotations

import io
import itertools
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial

import pytest
from rich.console import Console
from tricktable import cards as C
from tricktable.bots import make_bot
from tricktable.bots.runner import play_seats
from tricktable.cli import build_parser, main, play, watch
from tricktable.client import Client, Seat, time_control
from tricktable.v1 import events_pb2
from tricktable.v1 import game_service_pb2 as pb

from service.running import ServerThread
from tests.clients.test_render import CardKey, cards_in, cards_shown
from tests.servers import running_server

#: The shortest game of each kind: one deal, or a match to one game point.
SHORT: dict[str, list[str]] = {
    "ninety-nine": ["game_length_deals=1"],
    "counterpoint": ["target_score=1"],
    "sixty-six": ["target_game_points=1"],
    "nominations": ["end_mode=deals", "deal_count=1"],
}
GAMES = sorted(SHORT)


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    # Server bots move at once: whole games stay quick (a person is given a delay to follow).
    with running_server(bot_delay_s=0.0) as served:
        yield served.server


@pytest.fixture
def client(server: ServerThread) -> Iterator[Client]:
    with Client(server.address) as connected:
        yield connected


def new_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=120, color_system=None), out


def option_args(game: str) -> list[str]:
    return [arg for option in SHORT[game] for arg in ("--option", option)]


# -- play -------------------------------------------------------------------------------------


def confirmation(prompt: str) -> str | None:
    """The answer that agrees to a confirmation prompt (bid cards to send, leaving the game);
    None for the prompt of a move."""
    if prompt.startswith("lay aside: ") and prompt.endswith("Enter sends it, n chooses again> "):
        return ""
    if prompt == play.CONFIRM_QUIT:
        return "y"
    return None


class Script:
    """Answers the prompts: the given answers first (an exception class is raised, as Ctrl-C or
    end of input would be), then ``then`` forever."""

    def __init__(
        self, first: Sequence[str | type[BaseException]], then: str = "1", *, clocked: bool = False
    ) -> None:
        self.first = list(first)
        self.then = then
        self.clocked = clocked
        self.answers: list[str] = []
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        confirmed = confirmation(prompt)
        if confirmed is not None:
            return confirmed
        self.prompts.append(prompt)
        if self.clocked:
            assert re.fullmatch(r"Your move \(\d+:\d\d(\.\d)? left\)> ", prompt), prompt
        else:
            assert prompt == play.PROMPT
        answer = self.first.pop(0) if self.first else self.then
        if isinstance(answer, type):
            raise answer
        self.answers.append(answer)
        return answer


def run_play(
    address: str, game: str, read: Callable[[str], str], *extra: str
) -> tuple[int, str, str]:
    """Run ``tricktable play`` on the server: its exit code, its output and the game's id."""
    console, out = new_console()
    argv = ["play", game, "--address", address, "--seed", f"cli:{game}", *option_args(game)]
    code = play.run(build_parser().parse_args([*argv, *extra]), console=console, read=read)
    text = out.getvalue()
    found = re.search(r"game ([0-9a-f]+), you are seat", text)
    assert found, text
    return code, text, found.group(1)


def moves_by(client: Client, game_id: str, seat: int) -> int:
    return sum(
        1
        for batch in client.stream(game_id)
        if batch.HasField("seat") and batch.seat == seat and not batch.HasField("resigned_seat")
    )


@pytest.mark.parametrize("game", GAMES)
def test_a_person_plays_a_whole_game_against_bots_to_the_final_score(
    server: ServerThread, client: Client, game: str
) -> None:
    script = Script(["zz", "0", "999", "", "?", "table", "1h"])
    code, text, game_id = run_play(server.address, game, script, "--name", "ann")
    assert code == 0
    for refusal in (
        "I don't understand 'zz'",
        "there is no move 0",
        "there is no move 999",
        "type a move",
        "'table' shows the table again",
        "I don't understand '1h'",
    ):
        assert refusal in text
    final = client.get(game_id)
    assert final.game.status == pb.GAME_STATUS_FINISHED
    assert final.game.seats[0].player_name == "ann"
    assert final.game.seats[1].player_name == "heuristic"
    last = text.strip().splitlines()[-1]
    assert last.startswith("Game over.") and "Final scores:" in last
    for seat in final.view.seats:
        label = "you" if seat.seat == 0 else f"seat {seat.seat} (heuristic)"
        assert f"{label} {seat.score}" in last
    # Every "1" made one move, except where the game moved on while it was typed.
    ones = script.answers.count("1")
    moved_on = text.count("The game moved on while you were choosing")
    assert moves_by(client, game_id, 0) == ones - moved_on > 0


class Cheater:
    """Plays the first legal move, but once tries a card of another suit than the one led while
    holding that suit, and once a card it does not hold; reads the table from the output."""

    HAND = re.compile(r"Your hand: (.*?)\s*│")
    TABLE = re.compile(r"On the table \(led by .*?\): (.*?)\s*│")

    def __init__(self, out: Callable[[], str]) -> None:
        self.out = out
        self.tried: list[str] = []

    def __call__(self, prompt: str) -> str:
        confirmed = confirmation(prompt)
        if confirmed is not None:
            return confirmed
        text = self.out()
        last_table = text[text.rfind("╭") :]
        hand_line = self.HAND.search(last_table)
        table_line = self.TABLE.search(last_table)
        if hand_line is None or table_line is None:
            return "1"
        hand = [c for c in hand_line.group(1).split() if cards_shown(c)]
        led = [c for c in table_line.group(1).split() if cards_shown(c)]
        if "not held" not in self.tried and led:
            self.tried.append("not held")
            return led[0]  # on the table, so not in this hand
        if "off suit" not in self.tried and led:
            suit = led[0][-1]
            off = [c for c in hand if c[-1] != suit]
            if off and any(c[-1] == suit for c in hand):
                self.tried.append("off suit")
                return off[0]
        return "1"


def test_a_move_the_server_refuses_is_explained_and_asked_again(
    server: ServerThread, client: Client
) -> None:
    console, out = new_console()
    cheater = Cheater(out.getvalue)
    argv = ["play", "ninety-nine", "--address", server.address, "--seed", "refused"]
    args = build_parser().parse_args([*argv, *option_args("ninety-nine")])
    assert play.run(args, console=console, read=cheater) == 0
    text = out.getvalue()
    assert cheater.tried == ["not held", "off suit"]
    assert "(CARD_NOT_IN_HAND)" in text
    assert "Not allowed: you must follow the suit led (MUST_FOLLOW_SUIT)" in text
    assert text.strip().splitlines()[-1].startswith("Game over.")


@pytest.mark.parametrize("leave", ["q", EOFError, KeyboardInterrupt])
def test_leaving_mid_game_resigns_it(
    server: ServerThread, client: Client, leave: str | type[BaseException]
) -> None:
    code, text, game_id = run_play(
        server.address, "counterpoint", Script(["1", "1", leave]), "--seat", "1"
    )
    assert code == 0
    assert "You resigned and left: the game is over." in text
    game = client.get(game_id).game
    assert game.status == pb.GAME_STATUS_ABANDONED and game.resigned_seat == 1
    assert moves_by(client, game_id, 1) == 2


def test_bots_are_chosen_per_other_seat_and_bad_requests_are_refused(
    server: ServerThread, client: Client
) -> None:
    code, _, game_id = run_play(
        server.address, "ninety-nine", Script(["q"]), "--seat", "1", "--bot", "random"
    )
    assert code == 0
    seats = client.get(game_id).game.seats
    assert [s.player_name for s in seats] == ["random", "player", "heuristic"]
    assert [s.bot for s in seats] == ["random", "", "heuristic"]  # played by the server
    console, out = new_console()
    for extra, message in [
        (["--seat", "3"], "--seat must be 0 to 2"),
        (["--bot", "random"] * 3, "3 bots given for 2 other seats"),
        (["--bot", "clever"], "unknown bot 'clever'"),
        (["--option", "edtion=classic"], "edtion"),
    ]:
        argv = ["play", "ninety-nine", "--address", server.address, *extra]
        assert play.run(build_parser().parse_args(argv), console=console, read=Script([])) == 2
        assert message in out.getvalue()


def test_a_clocked_game_shows_every_clock_and_the_time_left_at_the_prompt(
    server: ServerThread, client: Client
) -> None:
    script = Script(["1", "q"], clocked=True)
    code, text, game_id = run_play(
        server.address, "counterpoint", script, "--move-time", "60", "--bank", "30"
    )
    assert code == 0 and len(script.prompts) == 2
    assert "clock" in text and "+0:30" in text
    assert client.get(game_id).game.time_control.move_ms == 60_000


def test_a_choice_made_while_others_lay_aside_at_the_same_time_still_stands(
    client: Client,
) -> None:
    """The player decides on bid cards while the bots lay theirs aside: the version moved on,
    but the choice stands, so it is sent again at the new version without asking again."""
    game_id, seats = create_table(client, "ninety-nine", "stale:lay-aside")
    bots = {n: make_bot("heuristic", "ninety-nine") for n in (1, 2)}
    others = play.BotThreads({n: seats[n] for n in (1, 2)})
    answers: list[str] = []

    def read(prompt: str) -> str:
        confirmed = confirmation(prompt)
        if confirmed is not None:
            return confirmed
        if not answers:  # the others lay aside after this seat saw the game
            for n in (1, 2):
                state = seats[n].get()
                move = bots[n](state.view, list(state.view.legal_moves))
                assert move is not None
                seats[n].submit(move)
            others.start(bots)
        answers.append("1")
        return "1"

    console, out = new_console()
    try:
        play.Player(seats[0], console, read, ["me", "bot1", "bot2"]).run()
    finally:
        others.close()
    text = out.getvalue()
    assert "You lay 3 cards aside" in text and "moved on" not in text
    assert moves_by(client, game_id, 0) == len(answers)
    assert client.get(game_id).game.status == pb.GAME_STATUS_FINISHED


def test_a_choice_does_not_stand_once_the_deal_or_phase_changed() -> None:
    def state(deal: int, phase: str, to_act: list[int], legal: list[str]) -> pb.GetGameResponse:
        response = pb.GetGameResponse()
        response.view.deal_no, response.view.phase = deal, phase
        response.view.to_act.extend(to_act)
        for name in legal:
            response.view.legal_moves.add().play_card.card.CopyFrom(C.card(name))
        return response

    before = state(1, "play", [0], ["QS", "KS"])
    move = before.view.legal_moves[0]
    assert play.still_stands(before, state(1, "play", [0], ["QS"]), move, 0)
    assert not play.still_stands(before, state(2, "play", [0], ["QS"]), move, 0)
    assert not play.still_stands(before, state(1, "lead", [0], ["QS"]), move, 0)
    assert not play.still_stands(before, state(1, "play", [1], ["QS"]), move, 0)
    assert not play.still_stands(before, state(1, "play", [0], ["KS"]), move, 0)


def test_play_starts_its_own_server_and_reads_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bare number names bid cards, sent once confirmed (Enter); q leaves once confirmed (y).
    monkeypatch.setattr(sys, "stdin", io.StringIO("zz\n1\n\nq\ny\n"))
    assert main(["play", "counterpoint", "--seed", "stdin"]) == 0
    out = capsys.readouterr().out
    assert "I don't understand 'zz'" in out
    assert "You lay 3 cards aside" in out
    assert "You resigned and left: the game is over." in out


# -- watch ------------------------------------------------------------------------------------

#: A watch line that tells an event: the version, right-aligned, then the event.
EVENT_LINE = re.compile(r"^ *(\d+) (\S.*)$")


def create_table(client: Client, game: str, seed: str) -> tuple[str, list[Seat]]:
    options = dict(option.split("=") for option in SHORT[game])
    created = client.create(game, options, seed=seed.encode())
    seats = [client.join(created.game_id, n, f"bot{n}") for n in range(len(created.seats))]
    return created.game_id, seats


def run_watch(address: str, game_id: str, *extra: str) -> tuple[threading.Thread, io.StringIO]:
    console, out = new_console()
    args = build_parser().parse_args(["watch", game_id, "--address", address, *extra])
    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(watch.run(args, console=console)))
    thread.start()
    return thread, out


def wait_for(condition: Callable[[], bool], what: str) -> None:
    """Wait for the watcher (another thread) to have printed something; a generous bound only
    keeps a broken build from hanging."""
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.005)


Positioned = tuple[int, events_pb2.Event]


def known_by_then(events: Sequence[Positioned]) -> list[set[CardKey]]:
    """For each event, the cards the events told of so far in its deal, and those of the last
    deal's result (a new deal's table shows it, as the last deal)."""
    known: list[set[CardKey]] = []
    this_deal: set[CardKey] = set()
    last_result: set[CardKey] = set()
    for _, event in events:
        kind = event.WhichOneof("kind")
        if kind == "deal_started":
            this_deal = set()
        this_deal |= cards_in(event)
        if kind == "deal_scored":
            last_result = cards_in(event)
        known.append(this_deal | last_result)
    return known


@pytest.mark.parametrize("game", GAMES)
def test_watch_follows_a_bot_game_and_shows_no_card_before_it_is_public(
    server: ServerThread, client: Client, game: str
) -> None:
    game_id, seats = create_table(client, game, f"watch:{game}")
    watcher, out = run_watch(server.address, game_id)
    wait_for(lambda: "Watching game" in out.getvalue(), "the first table")
    play_seats(seats, [make_bot("heuristic", game) for _ in seats])
    watcher.join(60)
    assert not watcher.is_alive()
    text = out.getvalue()
    lines = text.splitlines()
    final = client.get(game_id)
    assert final.game.status == pb.GAME_STATUS_FINISHED
    scores = ", ".join(f"seat {s.seat} (bot{s.seat}) {s.score}" for s in final.view.seats)
    assert lines[-1].startswith("Game over.") and lines[-1].endswith(f"Final scores: {scores}")

    # The events as the spectator is sent them, and as each seat is: aligned one to one.
    public = [(b.version, e) for b in client.stream(game_id) for e in b.events]
    private = [[(b.version, e) for b in seat.stream() for e in b.events] for seat in seats]
    assert all([v for v, _ in p] == [v for v, _ in public] for p in private)
    told_by = known_by_then(public)
    seats_knew_by = [known_by_then(p) for p in private]
    start = int(re.search(r"at version (\d+)", text).group(1))  # type: ignore[union-attr]
    shown_events = [i for i, (version, _) in enumerate(public) if version > start]
    event_lines = [line for line in lines if EVENT_LINE.match(line)]
    assert len(event_lines) == len(shown_events)

    # Walk the output: every card shown is one the spectator's events made public by then, and
    # none is a card only a seat knew of at that moment (a hand, a card drawn, bid cards).
    position = max(i for i, (version, _) in enumerate(public) if version <= start)
    upcoming = iter(shown_events)
    hidden_seen = 0
    for line in lines:
        found = EVENT_LINE.match(line)
        if found:
            position = next(upcoming)
            assert int(found.group(1)) == public[position][0]
        told = told_by[position]
        hidden = set().union(*(knew[position] for knew in seats_knew_by)) - told
        hidden_seen += bool(hidden)
        shown = cards_shown(line)
        assert shown <= told, f"{line!r} shows {shown - told} before they were public"
        assert not shown & hidden
    assert hidden_seen, "the check saw hidden cards to keep out"
    assert text.count("╭") >= 2, "a table at the start and at the end"


def printed(out: io.StringIO, text: str) -> bool:
    return text in out.getvalue()


def tables_after_tricks(out: io.StringIO, tricks: int) -> bool:
    return out.getvalue().count("Last trick, won by") == tricks


def test_watch_draws_the_table_again_after_each_trick(server: ServerThread, client: Client) -> None:
    """The game is played a move at a time, waiting for the watcher after each; so the watcher
    is never behind, and draws the table after every trick."""
    game_id, seats = create_table(client, "counterpoint", "watch:tricks")
    watcher, out = run_watch(server.address, game_id)
    wait_for(lambda: "Watching game" in out.getvalue(), "the first table")
    bots = [make_bot("heuristic", "counterpoint") for _ in seats]
    tricks = 0
    while not client.get(game_id).view.finished:
        view = client.get(game_id).view
        seat = seats[view.to_act[0]]
        state = seat.get()
        move = bots[seat.seat](state.view, list(state.view.legal_moves))
        assert move is not None
        answer = seat.submit(move)
        if any(e.WhichOneof("kind") == "trick_won" for e in answer.events):
            tricks += 1
            wait_for(partial(tables_after_tricks, out, tricks), f"the table after trick {tricks}")
        else:
            wait_for(partial(printed, out, f"\n{answer.version:>5} "), f"version {answer.version}")
    watcher.join(30)
    assert not watcher.is_alive()
    assert tricks == 13
    text = out.getvalue()
    # The table after each trick shows that trick: the cards of the trick_won line before it.
    blocks = text.split("╭")
    for before, table in itertools.pairwise(blocks):
        won = [line for line in before.splitlines() if " wins trick " in line]
        if won:
            trick_cards = cards_shown(won[-1].split(":", 1)[1])
            last = next(line for line in table.splitlines() if "Last trick" in line)
            assert cards_shown(last) == trick_cards


def test_watch_replays_a_finished_game_from_a_version(server: ServerThread, client: Client) -> None:
    game_id, seats = create_table(client, "sixty-six", "watch:replay")
    play_seats(seats, [make_bot("heuristic", "sixty-six") for _ in seats])
    watcher, out = run_watch(server.address, game_id, "--from-version", "0")
    watcher.join(30)
    lines = out.getvalue().splitlines()
    events = [(b.version, e) for b in client.stream(game_id) for e in b.events]
    assert lines[0].startswith(f"Watching game {game_id} (Sixty-Six) from version 0")
    assert EVENT_LINE.match(lines[1]), "no table before the events it would run ahead of"
    assert [int(m.group(1)) for line in lines if (m := EVENT_LINE.match(line))] == [
        v for v, _ in events
    ]
    assert lines[-1].startswith("Game over. Winner:")


def test_watch_tells_of_a_resignation_and_of_an_unknown_game(
    server: ServerThread, client: Client
) -> None:
    game_id, seats = create_table(client, "counterpoint", "watch:resign")
    watcher, out = run_watch(server.address, game_id)
    wait_for(lambda: "Watching game" in out.getvalue(), "the first table")
    seats[1].leave()
    watcher.join(30)
    text = out.getvalue()
    assert "Seat 1 (bot1) resigns." in text
    assert (
        text.strip()
        .splitlines()[-1]
        .startswith("The game was abandoned: seat 1 (bot1) resigned. Scores: seat 0 (bot0) 0")
    )
    console, out = new_console()
    args = build_parser().parse_args(["watch", "0123456789abcdef", "--address", server.address])
    assert watch.run(args, console=console) == 1
    assert "NOT_FOUND" in out.getvalue()


def test_watch_shows_the_clocks_and_a_forfeit_on_time(server: ServerThread, client: Client) -> None:
    clock = time_control(0.3, forfeit=True)
    created = client.create("counterpoint", clock=clock)
    for n in range(2):
        client.join(created.game_id, n, f"p{n}")
    watcher, out = run_watch(server.address, created.game_id)
    watcher.join(30)
    text = out.getvalue()
    assert "clock" in text and "▶ 0:00" in text  # both seats lay aside at once: both run
    assert "Seat 0 (p0) runs out of time and forfeits" in text and "resigns." not in text
    assert "The game was abandoned: seat 0 (p0) resigned." in text
