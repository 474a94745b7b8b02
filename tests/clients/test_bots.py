"""The bot SDK against a real server: both styles of a live table (event stream and polling),
a dropped connection, a bot that thinks too long or cheats, every reference bot playing whole
games of its game, heuristic bots beating random ones by a clear margin, and bots served over
BotService."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from tricktable.bots import HEURISTIC, RandomBot, RemoteBot, make_bot, serve_bot
from tricktable.bots.arena import GAMES, binomial_tail, measure, seat_count
from tricktable.bots.base import Move, View, may_wait
from tricktable.bots.runner import BotError, BotRunner, play_game, run_table
from tricktable.client import Client, RetryPolicy, time_control
from tricktable.errors import InvalidArgument
from tricktable.v1 import bot_service_pb2, bot_service_pb2_grpc, moves_pb2
from tricktable.v1 import game_service_pb2 as pb

from service.running import ServerThread
from tests.clients.proxy import Proxy
from tests.conftest import free_port

#: Shorter games, so that whole games stay quick.
SHORT: dict[str, dict[str, bool | int | str]] = {
    "ninety-nine": {"game_length_deals": 3},
    "counterpoint": {"target_score": 60},
    "sixty-six": {"target_game_points": 4},
    "nominations": {"target_score": 40},
}


@pytest.mark.parametrize("style", ["play", "stream", "poll", "poll-interval"])
@pytest.mark.parametrize("game", ["counterpoint", "sixty-six"])
def test_a_live_table_of_bot_threads_plays_to_the_end(
    client: Client, game: str, style: str
) -> None:
    created = client.create(game, SHORT[game], seed=f"live:{game}:{style}".encode())
    bots = {0: make_bot("heuristic", game), 1: make_bot("random", game, seed=1)}
    finals = run_table(
        client,
        created.game_id,
        bots,
        style="poll" if style == "poll-interval" else style,  # type: ignore[arg-type]
        poll_interval_s=0.005,
        wait_for_turn=style == "poll",  # long polls; "poll-interval" asks at an interval
    )
    assert set(finals) == {0, 1}
    for seat, final in finals.items():
        assert final.game.status == pb.GAME_STATUS_FINISHED and final.view.viewer == seat
    assert finals[0].view.winners == finals[1].view.winners and finals[0].view.winners


def test_a_bot_started_before_the_table_fills_waits_for_it(client: Client) -> None:
    game = client.create("counterpoint", SHORT["counterpoint"], seed=b"early")
    first = client.join(game.game_id, 0)
    runner = BotRunner(first, RandomBot(1), style="stream", poll_interval_s=0.01)
    result: list[pb.GetGameResponse] = []
    thread = threading.Thread(target=lambda: result.append(runner.run()), daemon=True)
    thread.start()
    time.sleep(0.1)
    assert thread.is_alive() and runner.moves_made == 0
    second = client.join(game.game_id, 1)
    BotRunner(second, RandomBot(2), style="poll", poll_interval_s=0.005).run()
    thread.join(30)
    assert result and result[0].game.status == pb.GAME_STATUS_FINISHED and runner.moves_made


@pytest.mark.parametrize("style", ["play", "stream", "poll"])
def test_a_bot_keeps_playing_through_dropped_connections(server: ServerThread, style: str) -> None:
    with Client(server.address) as client, Proxy(server.address) as proxy:
        game = client.create("counterpoint", SHORT["counterpoint"], seed=f"drops:{style}".encode())
        with Client(proxy.address) as flaky:
            seat = flaky.join(game.game_id, 0)
            runner = BotRunner(seat, make_bot("heuristic", "counterpoint"), style=style)  # type: ignore[arg-type]
            result: list[pb.GetGameResponse] = []
            thread = threading.Thread(target=lambda: result.append(runner.run()), daemon=True)
            thread.start()
            other = BotRunner(client.join(game.game_id, 1), RandomBot(5), style="stream")
            other_thread = threading.Thread(target=other.run, daemon=True)
            other_thread.start()
            while thread.is_alive() and proxy.drops < 4:
                time.sleep(0.05)
                proxy.drop()
            thread.join(60)
            other_thread.join(60)
    assert proxy.drops >= 2
    assert result and result[0].game.status == pb.GAME_STATUS_FINISHED
    assert runner.moves_made > 10


def test_a_bot_that_thinks_too_long_forfeits_the_move_to_the_fallback(client: Client) -> None:
    calls: list[float] = []
    fallbacks: list[Move] = []

    def slow(view: View, legal: Sequence[Move]) -> Move | None:
        calls.append(time.monotonic())
        if len(calls) == 1:
            time.sleep(1.5)  # thinks far too long, once
        return legal[-1]

    def fallback(view: View, legal: Sequence[Move]) -> Move | None:
        fallbacks.append(legal[0])
        return legal[0]

    game = client.create("counterpoint", SHORT["counterpoint"], seed=b"slow")
    seat = client.join(game.game_id, 0)
    other = BotRunner(client.join(game.game_id, 1), RandomBot(3), style="poll")
    threading.Thread(target=other.run, daemon=True).start()
    runner = BotRunner(seat, slow, style="stream", think_timeout_s=0.3, fallback=fallback)
    final = runner.run()
    assert final.game.status == pb.GAME_STATUS_FINISHED
    assert runner.timeouts >= 1 and len(fallbacks) == runner.timeouts
    assert calls[1] - calls[0] < 1.5  # the game went on without waiting for the slow answer


def test_an_unreachable_remote_bot_forfeits_its_moves_to_the_fallback(client: Client) -> None:
    gone = RemoteBot(f"127.0.0.1:{free_port()}", timeout_s=0.5, retry=RetryPolicy(attempts=1))
    game = client.create("counterpoint", SHORT["counterpoint"], seed=b"unreachable")
    other = BotRunner(client.join(game.game_id, 1), RandomBot(2), style="stream")
    threading.Thread(target=other.run, daemon=True).start()
    runner = BotRunner(client.join(game.game_id, 0), gone, style="poll")
    final = runner.run()
    gone.close()
    assert final.game.status == pb.GAME_STATUS_FINISHED
    assert runner.timeouts >= runner.moves_made > 10  # every decision fell back


def test_a_bot_returning_an_illegal_move_is_stopped(client: Client) -> None:
    game = client.create("counterpoint", seed=b"cheat")
    seats = [client.join(game.game_id, n) for n in range(2)]

    def cheat(view: View, legal: Sequence[Move]) -> Move | None:
        return Move(claim=moves_pb2.Claim())

    with pytest.raises(BotError):
        BotRunner(seats[0], cheat).run()
    assert client.get(game.game_id).game.version == 0


@pytest.mark.parametrize("bot", ["random", "heuristic"])
@pytest.mark.parametrize("game", GAMES)
def test_each_reference_bot_plays_whole_games(client: Client, game: str, bot: str) -> None:
    bots = [make_bot(bot, game, seed=n) for n in range(seat_count(client, game))]
    result = play_game(client, game, bots, options=SHORT[game], seed=f"{game}:{bot}".encode())
    assert result.final.game.status == pb.GAME_STATUS_FINISHED and result.winners
    assert max(result.scores) == max(result.scores[w] for w in result.winners)
    assert result.moves == result.final.game.version  # every version was one bot's move


def test_the_random_bot_lets_optional_chances_pass() -> None:
    view = View(viewer=1, to_act=[0, 1])
    claim = Move(claim=moves_pb2.Claim())
    assert may_wait(view, [claim]) and RandomBot(0)(view, [claim]) is None
    assert not may_wait(View(viewer=1, to_act=[1]), [claim])
    # A server that tells must from may: a seat in may_act but not in to_act may wait.
    assert may_wait(View(viewer=1, to_act=[0], may_act=[0, 1]), [claim])
    assert not may_wait(View(viewer=1, to_act=[1], may_act=[0, 1]), [claim])


@pytest.mark.parametrize("style", ["stream", "poll"])
def test_a_bot_still_makes_an_optional_move_it_wants(client: Client, style: str) -> None:
    """The seat not on lead is not to act in Sixty-Six between tricks, but it may claim: a
    runner whose bot wants to claim does so without waiting for the other seat."""
    game = client.create("sixty-six", {"preset": "gamefarm"}, seed=f"claim:{style}".encode())
    seats = [client.join(game.game_id, n, f"p{n}") for n in range(2)]
    (leader,) = client.get(game.game_id).view.to_act
    other = seats[1 - leader]

    def claims(view: View, legal: Sequence[Move]) -> Move | None:
        return next((m for m in legal if m.WhichOneof("kind") == "claim"), None)

    stop = threading.Event()
    runner = BotRunner(other, claims, style="stream" if style == "stream" else "poll", stop=stop)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            runner.run()
        except BaseException as error:  # reported below
            errors.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 20
        while client.get(game.game_id).game.version < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop.set()  # the runner ends at its next look at the game
    thread.join(2)
    assert not errors and runner.moves_made >= 1
    public = client.get(game.game_id).view
    assert public.deal_no >= 2 or public.finished  # the claim ended the first deal


#: Games per game type for the margin test, and the wins each heuristic bot must reach. Under
#: the null hypothesis (the heuristic does no better than random: 1/seats) each threshold has a
#: one-sided binomial p-value below 0.01. Nominations is played to its full target: short games
#: there are decided by one failed contract paying everybody else alike.
MARGINS = {
    "ninety-nine": (9, 7),
    "counterpoint": (12, 11),
    "sixty-six": (12, 11),
    "nominations": (16, 9),
}
MARGIN_OPTIONS = {**SHORT, "nominations": {}}


@pytest.mark.parametrize("game", GAMES)
def test_each_heuristic_bot_beats_random_bots_by_a_clear_margin(client: Client, game: str) -> None:
    games, needed = MARGINS[game]
    assert binomial_tail(needed, games, 1 / seat_count(client, game)) < 0.01
    result = measure(client, game, games, options=MARGIN_OPTIONS[game], seed="margin")
    assert result.wins >= needed, result


def test_measurements_are_reproducible(client: Client) -> None:
    runs = [measure(client, "sixty-six", 2, options=SHORT["sixty-six"], seed="again") for _ in "ab"]
    assert runs[0] == runs[1]


def test_a_bot_served_over_bot_service_plays_a_whole_game(client: Client) -> None:
    hosted = serve_bot(
        lambda game: make_bot("heuristic", game), name="heuristic", games=["sixty-six"]
    )
    try:
        remote = make_bot(f"grpc://{hosted.address}", "sixty-six")
        assert isinstance(remote, RemoteBot)
        assert remote.describe().name == "heuristic"
        bots = [remote, make_bot("random", "sixty-six", seed=4)]
        result = play_game(client, "sixty-six", bots, options=SHORT["sixty-six"], seed=b"remote")
        assert result.final.game.status == pb.GAME_STATUS_FINISHED
        assert result.winners == [0]  # the heuristic bot, over the wire, beats the random one
        remote.close()
    finally:
        hosted.stop()


@contextmanager
def bot_command(*args: str, cwd: Path | None = None) -> Iterator[tuple[str, str, RemoteBot]]:
    """``python -m tricktable.bots.serve`` with ``args`` on a free port, in a process of its
    own: the line it printed first, its address, and a RemoteBot of it."""
    address = f"127.0.0.1:{free_port()}"
    command = [sys.executable, "-m", "tricktable.bots.serve", *args]
    command += ["--port", address.rsplit(":", 1)[1]]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=cwd)
    try:
        assert process.stdout is not None
        first = process.stdout.readline().strip()
        remote = RemoteBot(address)
        try:
            yield first, address, remote
        finally:
            remote.close()
    finally:
        process.terminate()
        process.wait(10)


def test_the_bot_command_serves_a_reference_bot_as_a_process_of_its_own() -> None:
    with bot_command("--bot", "random") as (first, address, remote):
        assert first == f"serving the random bot at {address}"
        assert remote.describe().name == "random"
        legal = [Move(claim=moves_pb2.Claim())]
        view = View(game="sixty-six", viewer=0, to_act=[0], legal_moves=legal)
        assert remote(view, legal) == legal[0]


def test_bot_service_refuses_a_spectators_view_and_games_it_does_not_play() -> None:
    hosted = serve_bot(lambda game: RandomBot(0), games=["counterpoint"])
    try:
        with grpc.insecure_channel(hosted.address) as channel:
            stub = bot_service_pb2_grpc.BotServiceStub(channel)
            with pytest.raises(grpc.RpcError) as spectator:
                stub.Decide(
                    bot_service_pb2.DecideRequest(game_id="g", view=View(game="counterpoint"))
                )
            assert spectator.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        remote = RemoteBot(hosted.address)
        with pytest.raises(InvalidArgument):
            remote(View(game="sixty-six", viewer=0), [])
        remote.close()
    finally:
        hosted.stop()


def test_the_heuristic_registry_covers_every_game(client: Client) -> None:
    assert set(HEURISTIC) == {game_type.name for game_type in client.game_types()}
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("clever", "counterpoint")


def test_the_bot_command_hosts_a_bot_by_import_path(tmp_path: Path) -> None:
    (tmp_path / "firstbots.py").write_text(
        "def make(game):\n"
        "    assert game == 'counterpoint'\n"
        "    return lambda view, legal: legal[0]\n"
    )
    args = ("--bot", "firstbots:make", "--game", "counterpoint", "--name", "first")
    with bot_command(*args, cwd=tmp_path) as (first, address, remote):
        assert first == f"serving the first bot at {address}"
        described = remote.describe()
        assert (described.name, list(described.games)) == ("first", ["counterpoint"])
        legal = [Move(play_card=moves_pb2.PlayCard()), Move(call=moves_pb2.Call(call="x"))]
        view = View(game="counterpoint", viewer=0, to_act=[0], legal_moves=legal)
        assert remote(view, legal) == legal[0]


@pytest.mark.parametrize("spec", ["nomodule_here:make", "grpc://127.0.0.1:1", "clever"])
def test_the_bot_command_refuses_a_bot_it_cannot_host(spec: str) -> None:
    command = [sys.executable, "-m", "tricktable.bots.serve", "--bot", spec, "--port", "0"]
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "error:" in done.stderr


@pytest.mark.parametrize("style", ["stream", "poll"])
def test_runners_in_a_clocked_game_leave_a_hung_bot_to_the_server_clock(
    client: Client, style: str
) -> None:
    """No think timeout of the runner's own: the seat's clock bounds the bot, and a bot that
    never answers loses by the clock (here forfeits at its second timeout)."""
    never = threading.Event()

    def hangs(view: View, legal: Sequence[Move]) -> Move | None:
        never.wait()
        return None

    clock = time_control(0.3, forfeit_after=2)
    game = client.create("counterpoint", SHORT["counterpoint"], clock=clock)
    finals = run_table(
        client,
        game.game_id,
        {0: hangs, 1: make_bot("heuristic", "counterpoint")},
        style="stream" if style == "stream" else "poll",
        timeout_s=60,
    )
    final = finals[1]
    assert final.game.status == pb.GAME_STATUS_ABANDONED and final.game.resigned_seat == 0
    assert [c.timeouts for c in final.view.clocks] == [2, 0]


ROOT = Path(__file__).resolve().parents[2]


def test_the_arena_through_dev_py_imports_a_bot_from_the_callers_directory(
    tmp_path: Path,
) -> None:
    """The README's way (`python3 dev.py ...`) finds mybots.py where the caller stands."""
    (tmp_path / "mybots.py").write_text(
        "def make(game, seed=None):\n    return lambda view, legal: legal[-1]\n"
    )
    command = [sys.executable, str(ROOT / "dev.py"), "tricktable-arena", "--bot", "mybots:make"]
    command += ["--game", "counterpoint", "--games", "1"]
    done = subprocess.run(
        command, cwd=tmp_path, check=False, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    measured = json.loads(done.stdout.splitlines()[-1])
    assert (measured["game"], measured["bot"], measured["games"]) == (
        "counterpoint",
        "mybots:make",
        1,
    )


def test_the_arena_refuses_a_bot_it_cannot_import_with_a_message(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "tricktable.bots.arena", "--bot", "nomodule_here:make"]
    done = subprocess.run(
        command, cwd=tmp_path, check=False, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "cannot import 'nomodule_here'" in done.stderr and "Traceback" not in done.stderr


class _CountingCalls(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Counts a channel's unary calls by method name."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        self.calls[details.method.rpartition("/")[2]] += 1
        return continuation(details, request)


def test_a_game_played_from_one_thread_asks_whose_turn_it_is_of_its_streams(
    server: ServerThread,
) -> None:
    # play_game (tournaments) plays every seat on its stream from one thread: the streams tell
    # it whose turn comes next, where a public GetGame after every move cost a unary call each.
    counting = _CountingCalls()
    with grpc.insecure_channel(server.address) as channel:
        client = Client(grpc.intercept_channel(channel, counting))
        bots = [make_bot("heuristic", "counterpoint"), RandomBot(4)]
        result = play_game(client, "counterpoint", bots, options=SHORT["counterpoint"], seed=b"one")
    assert result.final.view.finished and result.moves > 20
    assert counting.calls["GetGame"] == 2  # the public view at the start, the result at the end
    assert counting.calls["SubmitMove"] == 0
