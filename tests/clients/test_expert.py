"""The expert bot (tricktable.bots.expert): at every decision of every game and variant it
answers one of its legal moves (or lets an optional chance pass), built on the very information
set the engine gives its seat; its time budget comes from its spec and the seat's clock, and it
searches until the budget is spent (measured on a clock of the test's, never the wall's); it
plays behind a BotService and in a tournament."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from tricktable import facts
from tricktable.bots import expert_settings, make_bot
from tricktable.bots.base import History, Move, View, may_wait
from tricktable.bots.expert import DEFAULT_MS, ExpertBot
from tricktable.bots.expert.bot import choose
from tricktable.bots.runner import play_game
from tricktable.bots.service import RemoteBot, serve_bot
from tricktable.client import Client
from tricktable.legal import legal_moves
from tricktable.tournament import Entrant, TournamentConfig, run_tournament
from tricktable.v1 import clocks_pb2

from engine import get_rules
from service import convert
from tests.engine.test_information_sets import VARIANTS

#: Decisions played per variant (every seat an expert, one sampled world each).
DECISIONS = 90


def one_world() -> Callable[[], float]:
    """A clock that reads 0 once, then far past any deadline: one world a decision."""
    readings = iter([0.0])
    return lambda: next(readings, 1e9)


def stepping(step_s: float) -> Callable[[], float]:
    """A clock that moves on ``step_s`` each time it is read."""
    ticks = iter(range(10**9))
    return lambda: next(ticks) * step_s


def decisions(
    game: str,
    options: Mapping[str, Any],
    seed: bytes,
    bots: list[ExpertBot],
    clock: Callable[[], Callable[[], float]] | None = one_world,
) -> Iterator[tuple[int, Any, View, Move | None]]:
    """Play a game with the engine, each seat's bot shown its seat's history as a runner would
    (its projected events, on the wire), yielding (seat, state, wire view, answer) at each
    decision; the answer is played (the first legal move when the bot lets a chance pass).
    ``clock``: a fresh clock for each decision's bot (None: the bots keep theirs)."""
    rules = get_rules(game)
    if not facts.known(game):
        facts.learn([convert.game_type_to_proto(rules.game_type())])
    state = rules.new_game(options, seed)
    histories = [History(options=dict(options)) for _ in bots]
    for seat, history in enumerate(histories):
        history.add(
            convert.event_to_proto(rules.project(e, seat)) for e in rules.opening_events(state)
        )
    while not state.finished:
        seat = rules.to_act(state)[0]
        view = convert.view_to_proto(rules.view(state, seat), compact_lay_aside=True)
        if clock is not None:
            bots[seat].clock = clock()
        bots[seat].see(histories[seat])
        histories[seat].decided()
        answer = bots[seat](view, legal_moves(view))
        yield seat, state, view, answer
        move = answer if answer is not None else legal_moves(view)[0]
        events = rules.apply_in_place(state, seat, convert.move_from_proto(move))
        for viewer, history in enumerate(histories):
            history.add(convert.event_to_proto(rules.project(e, viewer)) for e in events)


@pytest.mark.parametrize(("game", "options"), VARIANTS, ids=[f"{g}-{o}" for g, o in VARIANTS])
def test_the_expert_answers_a_legal_move_on_its_seats_information_set(
    game: str, options: Mapping[str, Any]
) -> None:
    rules = get_rules(game)
    bots = [ExpertBot(game, seed=n) for n in range(rules.seats)]
    kinds: dict[str, int] = defaultdict(int)
    for count, (seat, state, view, answer) in enumerate(
        decisions(game, options, f"expert:{game}".encode(), bots)
    ):
        legal = legal_moves(view)
        if answer is None:
            assert may_wait(view, legal), f"{game}: the expert let a decision it must make pass"
        else:
            assert answer in legal, f"{game}: {answer} is not legal"
        assert bots[seat].information_set(view) == rules.information_set(state, seat)
        if len(legal) > 1:
            kinds[legal[0].WhichOneof("kind") or ""] += 1
        if count >= DECISIONS:
            break
    assert "play_card" in kinds, kinds
    bidding = {"counterpoint": "lay_aside", "ninety-nine": "lay_aside", "nominations": "bid"}
    if game in bidding:
        assert bidding[game] in kinds or "call" in kinds, kinds
    assert sum(bot.worlds.count(1) for bot in bots) == sum(len(bot.worlds) for bot in bots)


def test_every_decision_kind_of_the_games_is_met() -> None:
    """Over whole short games, the expert decides every kind of choice each game offers."""
    met: dict[str, set[str]] = defaultdict(set)
    games = {
        "counterpoint": {"target_score": 30},
        "ninety-nine": {"game_length_deals": 2},
        "sixty-six": {"target_game_points": 3},
        "nominations": {"target_score": 40},
    }
    for game, options in games.items():
        bots = [ExpertBot(game, seed=n) for n in range(get_rules(game).seats)]
        for _, _, view, answer in decisions(game, options, b"kinds", bots):
            legal = legal_moves(view)
            if answer is not None and len(legal) > 1:
                assert answer in legal
                met[game].add(answer.WhichOneof("kind") or "")
    assert {"lay_aside", "play_card"} <= met["counterpoint"]
    assert {"lay_aside", "play_card"} <= met["ninety-nine"]
    assert {"play_card"} <= met["sixty-six"] and met["sixty-six"] & {
        "claim",
        "close_stock",
        "declare_marriage",
        "exchange_trump",
        "draw_cards",
    }
    assert {"play_card"} <= met["nominations"] and met["nominations"] & {"bid", "call"}


# -- the budget ---------------------------------------------------------------------------------


def test_the_budget_comes_from_the_spec() -> None:
    assert expert_settings("expert") == {} and expert_settings("expert:ms=50") == {"ms": 50.0}
    bot = make_bot("expert:ms=50", "counterpoint", seed=1)
    assert isinstance(bot, ExpertBot) and bot.budget_s == 0.05
    default = make_bot("expert", "nominations")
    assert isinstance(default, ExpertBot) and default.budget_s == DEFAULT_MS / 1000
    for bad in ("expert:ms=0", "expert:ms=-5", "expert:ms=fast", "expert:depth=3", "expert:ms"):
        with pytest.raises(ValueError, match="bot 'expert"):
            make_bot(bad, "counterpoint")
    with pytest.raises(ValueError, match="no expert bot"):
        make_bot("expert", "bridge")


def test_a_running_clock_shortens_the_budget() -> None:
    bot = ExpertBot("counterpoint", ms=50)
    rules = get_rules("counterpoint")
    view = convert.view_to_proto(rules.view(rules.new_game({}, b"clock"), 0))
    assert bot.budget(view) == 0.05
    view.clocks.append(clocks_pb2.SeatClock(seat=0, running=True, move_ms_left=300))
    assert bot.budget(view) == pytest.approx(0.03)  # a tenth of the time left
    view.clocks[0].running = False
    assert bot.budget(view) == 0.05


def search_at(ms: float, step_s: float) -> ExpertBot:
    """An expert that decided a Counterpoint card play with a stepping clock."""
    game = "counterpoint"
    bots = [ExpertBot(game, ms=ms, seed=n, clock=stepping(step_s)) for n in range(2)]
    for seat, _, view, _ in decisions(game, {}, b"budget", bots, clock=None):
        if view.phase == "play" and len(legal_moves(view)) > 2:
            return bots[seat]
    raise AssertionError("no card play")


def test_the_search_runs_until_its_budget_is_spent_on_its_clock() -> None:
    """Read on a clock that moves 1 ms a reading: the decision's search ends at the first
    reading at or past the budget, within one world's readings of it, and a budget four times
    larger samples more worlds."""
    short, long = search_at(20, 0.001), search_at(80, 0.001)
    for bot, budget in ((short, 0.02), (long, 0.08)):
        spent = bot.times[-1]
        assert budget <= spent <= budget + 0.001 * 20  # a world reads the clock once a move
    assert long.worlds[-1] > short.worlds[-1] >= 2


def test_choose_keeps_the_heuristics_move_unless_the_search_clearly_beats_it() -> None:
    assert choose([[1.0, 0.0]], prior=1) == 1  # one world proves nothing
    assert choose([[1.0, 0.0]], prior=None) == 0
    clear = [[1.0, 0.0], [1.2, 0.1], [0.9, 0.0], [1.1, 0.2]]
    assert choose(clear, prior=1) == 0
    noisy = [[1.0, 0.0], [-1.0, 0.0], [1.0, 0.0], [-0.8, 0.0]]
    assert choose(noisy, prior=1) == 1


# -- where it plays -----------------------------------------------------------------------------


def test_the_expert_plays_behind_a_bot_service(client: Client) -> None:
    server = serve_bot(lambda game: make_bot("expert:ms=5", game, seed=0), name="expert")
    remote = RemoteBot(server.address)
    try:
        assert remote.describe().name == "expert"
        result = play_game(
            client,
            "counterpoint",
            [remote, make_bot("heuristic", "counterpoint")],
            options={"target_score": 1},
            seed=b"remote expert",
        )
    finally:
        remote.close()
        server.stop()
    assert result.final.view.finished and result.moves > 13


def test_the_expert_plays_in_a_tournament(client: Client) -> None:
    config = TournamentConfig(
        game="sixty-six",
        entrants=(Entrant("expert", "expert:ms=5"), Entrant("heuristic", "heuristic")),
        rounds=1,
        duplicate=True,
        seed="expert cup",
        options={"target_game_points": 1},
    )
    result = run_tournament(client, config)
    assert len(result.games) == 2
    assert {s.name: s.games for s in result.standings} == {"expert": 2, "heuristic": 2}


def test_a_seeded_expert_on_a_fixed_clock_is_reproducible() -> None:
    def game_moves() -> list[Move | None]:
        bots = [ExpertBot("ninety-nine", seed=n) for n in range(3)]
        answers = []
        for n, (_, _, _, answer) in enumerate(decisions("ninety-nine", {}, b"same", bots)):
            answers.append(answer)
            if n > 40:
                break
        return answers

    assert game_moves() == game_moves()
