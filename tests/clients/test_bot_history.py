"""Bots get what their seat has seen: a bot with a ``see`` method is shown its seat's history
(every event since the game began, and the game's options) before each decision, by every way
the SDK plays a seat (one thread for a whole table, a runner per seat in each style, a game with
clocks) and through a ``BotService`` (the ``DecideRequest``'s events and options). At every
decision, the information set built from that history (``information_set_from``, the remote
bot's way) equals the engine's own for the seat in the game as the server played it.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from typing import Any

import pytest
from tricktable.bots.base import History, Move, View, may_wait, options_of, sees
from tricktable.bots.expert import wire
from tricktable.bots.runner import play_game, run_table
from tricktable.bots.service import RemoteBot, serve_bot
from tricktable.client import Client, time_control
from tricktable.v1 import bot_service_pb2, game_types_pb2

from engine import get_rules
from service import convert

#: Short games of each game: a few deals.
OPTIONS: dict[str, dict[str, Any]] = {
    "counterpoint": {"target_score": 40},
    "sixty-six": {"target_game_points": 3},
    "ninety-nine": {"game_length_deals": 2},
    "nominations": {"target_score": 60, "shuffle_between_deals": False},
}


class Recorder:
    """Plays a seeded random legal move (lets optional chances pass) and, at each decision,
    builds its seat's information set from the history it was shown."""

    def __init__(self, game: str, seed: object = 0) -> None:
        self.rules = get_rules(game)
        self.rng = random.Random(str(seed))
        self.history: History | None = None
        self.decisions: list[tuple[Any, Any]] = []  # (the view without its moves, the set)

    def see(self, history: History) -> None:
        self.history = history

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        history = self.history
        assert history is not None and history.complete
        seen = wire.view(view)
        info = self.rules.information_set_from(seen, wire.events(history.events), history.options)
        self.decisions.append((_bare(seen), info))
        if may_wait(view, legal):
            return None
        return legal[self.rng.randrange(len(legal))]


def _bare(view: Any) -> Any:
    """A view without its legal moves (a lay-aside's lazy choice compares by identity)."""
    return dataclasses.replace(view, legal_moves=())


def engine_sets(client: Client, game_id: str, game: str, seed: bytes) -> list[list[Any]]:
    """Per seat, (view, information set) at every version of the game as the server played it,
    rebuilt from its record and seed with the engine."""
    record = client.record(game_id)
    rules = get_rules(game)
    options = options_of(record.options)
    state = rules.new_game(options, seed)
    seen: list[list[Any]] = [[] for _ in range(rules.seats)]

    def note() -> None:
        for seat in range(rules.seats):
            seen[seat].append((_bare(rules.view(state, seat)), rules.information_set(state, seat)))

    note()
    for step in record.steps[1:]:
        if step.HasField("move"):
            state, _ = rules.apply(state, step.seat, convert.move_from_proto(step.move))
            note()
    return seen


def check(recorders: Sequence[Recorder], expected: list[list[Any]]) -> int:
    """Every set a bot built is the engine's for its seat at that view; the number checked."""
    checked = 0
    for seat, recorder in enumerate(recorders):
        assert recorder.decisions, f"seat {seat} never decided"
        for decision in recorder.decisions:
            assert decision in expected[seat], f"seat {seat}: a set the engine never gave it"
            checked += 1
    return checked


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_a_table_played_from_one_thread_shows_each_bot_its_history(
    client: Client, game: str
) -> None:
    seed = f"history:{game}".encode()
    recorders = [Recorder(game, n) for n in range(get_rules(game).seats)]
    result = play_game(client, game, recorders, options=OPTIONS[game], seed=seed)
    assert check(recorders, engine_sets(client, result.game_id, game, seed)) > 20


@pytest.mark.parametrize("style", ["play", "stream", "poll"])
def test_a_runner_keeps_the_history_in_every_style(client: Client, style: str) -> None:
    game, seed = "nominations", f"history:{style}".encode()
    created = client.create(game, OPTIONS[game], seed)
    recorders = [Recorder(game, n) for n in range(4)]
    run_table(client, created.game_id, dict(enumerate(recorders)), style=style, timeout_s=60)  # type: ignore[arg-type]
    assert check(recorders, engine_sets(client, created.game_id, game, seed)) > 20


def test_a_game_with_clocks_shows_each_bot_its_history(client: Client) -> None:
    game, seed = "sixty-six", b"history:clocked"
    recorders = [Recorder(game, n) for n in range(2)]
    result = play_game(
        client, game, recorders, options=OPTIONS[game], seed=seed, clock=time_control(60, 60)
    )
    assert check(recorders, engine_sets(client, result.game_id, game, seed)) > 10


def test_a_bot_service_is_sent_the_events_and_the_options(client: Client) -> None:
    """Through a BotService: the remote bot is sent each decision's new events (all of them at
    its first) and the options; its sets equal the engine's."""
    game, seed = "nominations", b"history:remote"
    hosted: list[Recorder] = []

    def factory(name: str) -> Recorder:
        hosted.append(Recorder(name, len(hosted)))
        return hosted[-1]

    server = serve_bot(factory)
    remotes = [RemoteBot(server.address, game_id=f"remote:{n}") for n in range(4)]
    assert all(sees(r) for r in remotes)
    try:
        result = play_game(client, game, remotes, options=OPTIONS[game], seed=seed)
    finally:
        for remote in remotes:
            remote.close()
        server.stop()
    hosted.sort(key=lambda r: r.decisions[0][0].viewer)
    assert [r.decisions[0][0].viewer for r in hosted] == [0, 1, 2, 3]
    assert check(hosted, engine_sets(client, result.game_id, game, seed)) > 20
    for recorder in hosted:
        assert recorder.history is not None
        assert recorder.history.options["target_score"] == 60
        assert recorder.history.options["shuffle_between_deals"] is False


def test_a_bot_service_keeps_a_tables_history_from_what_each_request_adds() -> None:
    """The host adds each request's events to the (game, seat)'s history; events_from_start
    begins it afresh; a first request without it leaves the history marked incomplete."""
    histories: list[History] = []
    news: list[list[Any]] = []  # what was new at each decision

    class Keeper:
        def see(self, history: History) -> None:
            histories.append(history)
            news.append(list(history.since_last))

        def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
            return legal[0] if legal else None

    rules = get_rules("counterpoint")
    state = rules.new_game({}, b"keeper")
    view = convert.view_to_proto(rules.view(state, 0))
    opening = [convert.event_to_proto(rules.project(e, 0)) for e in rules.opening_events(state)]
    server = serve_bot(lambda game: Keeper())
    remote = RemoteBot(server.address)
    try:
        stub = remote.stub
        stub.Decide(bot_service_pb2.DecideRequest(game_id="g", view=view, events=opening[:1]))
        assert not histories[-1].complete and len(histories[-1].events) == 1
        options = {"target_score": game_types_pb2.OptionValue(int_value=7)}
        request = bot_service_pb2.DecideRequest(
            game_id="g", view=view, events=opening, events_from_start=True, options=options
        )
        stub.Decide(request)
        kept = histories[-1]
        assert (
            kept.complete and list(kept.events) == opening and kept.options == {"target_score": 7}
        )
        stub.Decide(bot_service_pb2.DecideRequest(game_id="g", view=view, events=opening[:1]))
        assert len(kept.events) == len(opening) + 1 and news[-1] == opening[:1]
        assert news[-2] == opening
    finally:
        remote.close()
        server.stop()


def test_bots_without_see_are_called_as_before(client: Client) -> None:
    calls: list[int] = []

    def plain(view: View, legal: Sequence[Move]) -> Move | None:
        calls.append(len(legal))
        return None if may_wait(view, legal) else legal[0]

    assert not sees(plain)
    result = play_game(client, "counterpoint", [plain, plain], options={"target_score": 1})
    assert result.final.view.finished and calls
