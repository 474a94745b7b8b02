"""The compact lay-aside (``compact_lay_aside``) against a real server, through real gRPC: a
view asked for it carries the seat's hand and the count and lists no lay-aside; one not asked
for is unchanged; :mod:`tricktable.legal` reads the compact form as exactly the listed one (same
moves, same order, same membership), so the bots, the terminal's move parsing and rendering
decide the same on both; and the bots play whole games on it, through every runner style."""

from __future__ import annotations

import io
import random
from collections.abc import Sequence
from itertools import permutations

import pytest
from rich.console import Console, RenderableType
from tricktable import cards as C
from tricktable.bots import RandomBot, make_bot
from tricktable.bots.base import Bot, Move, View
from tricktable.bots.runner import Style, play_game, run_table
from tricktable.client import Client, Seat
from tricktable.legal import LegalMoves, expanded, lay_aside_move, lay_asides, legal_moves
from tricktable.move_text import MoveInputError, parse_move
from tricktable.render import render_moves
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import moves_pb2

pytestmark = pytest.mark.usefixtures("game_facts")

#: Each game that lays cards aside, with short options and its hand size at the lay-aside.
GAMES = {
    "counterpoint": ({"target_score": 60}, 16),
    "ninety-nine": ({"game_length_deals": 2}, 12),
}


def _seated(client: Client, game: str, tag: str) -> list[Seat]:
    options, _ = GAMES[game]
    created = client.create(game, options, seed=f"compact:{game}:{tag}".encode())
    return [client.join(created.game_id, n, f"p{n}") for n in range(len(created.seats))]


def _text(renderable: RenderableType) -> str:
    out = io.StringIO()
    Console(file=out, width=160, color_system=None).print(renderable)
    return out.getvalue()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_get_game_asked_for_it_carries_the_hand_and_count_and_lists_no_lay_aside(
    client: Client, game: str
) -> None:
    _, hand_size = GAMES[game]
    seat = _seated(client, game, "get")[0]
    compact = seat.get(compact_lay_aside=True).view
    listed = seat.get().view
    assert not compact.legal_moves
    hand = list(compact.seats[seat.seat].hand.cards)
    assert len(hand) == hand_size
    # The choice is the seat's own hand, nothing else: no card it may not see.
    assert list(compact.lay_aside_choice.cards) == hand
    assert compact.lay_aside_choice.count == 3
    assert not listed.HasField("lay_aside_choice")
    assert len(listed.legal_moves) == {16: 560, 12: 220}[hand_size]
    # The compact form says the same thing in far fewer bytes.
    assert expanded(compact) == listed
    assert compact.ByteSize() * 5 < listed.ByteSize()
    # A spectator has no legal moves, asked or not.
    public = client.get(seat.game_id, compact_lay_aside=True).view
    assert not public.legal_moves and not public.HasField("lay_aside_choice")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_legal_moves_read_the_compact_form_as_the_listed_one(client: Client, game: str) -> None:
    seat = _seated(client, game, "same")[0]
    compact = legal_moves(seat.get(compact_lay_aside=True).view)
    listed = list(seat.get().view.legal_moves)
    assert isinstance(compact, LegalMoves) and compact.choice_size == len(listed)
    assert len(compact) == len(listed) and list(compact) == listed
    rng = random.Random(game)
    for index in [0, 1, len(listed) - 1, *rng.sample(range(len(listed)), 20)]:
        assert compact[index] == listed[index] and compact[index - len(listed)] == listed[index]
    assert compact[3:9] == listed[3:9]
    with pytest.raises(IndexError):
        compact[len(listed)]
    assert compact.kinds() == {"lay_aside"}
    assert [(i, list(cards)) for i, cards in lay_asides(compact)] == [
        (i, list(m.lay_aside.cards)) for i, m in enumerate(listed)
    ]
    for index in rng.sample(range(len(listed)), 20):
        places = [compact.cards.index(c) for c in listed[index].lay_aside.cards]
        assert compact.choice_index(places) == index


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_lay_aside_is_in_the_compact_choice_exactly_when_it_is_legal(
    client: Client, game: str
) -> None:
    seat = _seated(client, game, "contains")[0]
    view = seat.get(compact_lay_aside=True).view
    legal = legal_moves(view)
    hand = list(view.lay_aside_choice.cards)
    for order in permutations(hand[:3]):  # the server takes the cards in any order
        assert lay_aside_move(list(order)) in legal
    foreign = next(
        C.card(f"{r}{s}") for r in "23456789TJQKA" for s in "CHSD" if C.card(f"{r}{s}") not in hand
    )
    assert lay_aside_move([hand[0], hand[1], foreign]) not in legal  # not in the hand
    assert lay_aside_move(hand[:2]) not in legal  # too few
    assert lay_aside_move(hand[:4]) not in legal  # too many
    assert lay_aside_move([hand[0], hand[0], hand[1]]) not in legal  # a card twice
    assert moves_pb2.Move(call=moves_pb2.Call(call="pass")) not in legal


@pytest.mark.parametrize("game", sorted(GAMES))
def test_bots_choose_the_same_move_on_either_form(client: Client, game: str) -> None:
    seat = _seated(client, game, "bots")[0]
    compact = seat.get(compact_lay_aside=True).view
    listed = seat.get().view
    for seed in range(12):  # a uniformly random k-subset: the same pick as among the listed
        on_compact = RandomBot(seed)(compact, legal_moves(compact))
        on_listed = RandomBot(seed)(listed, list(listed.legal_moves))
        assert on_compact == on_listed
    heuristic_compact = make_bot("heuristic", game)(compact, legal_moves(compact))
    heuristic_listed = make_bot("heuristic", game)(listed, list(listed.legal_moves))
    assert heuristic_compact == heuristic_listed and heuristic_compact is not None


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_terminal_reads_and_shows_a_compact_lay_aside_as_a_listed_one(
    client: Client, game: str
) -> None:
    seat = _seated(client, game, "terminal")[0]
    compact = legal_moves(seat.get(compact_lay_aside=True).view)
    listed = list(seat.get().view.legal_moves)
    assert _text(render_moves(compact)) == _text(render_moves(listed))
    chosen = listed[37]
    names = [C.name(c) for c in reversed(chosen.lay_aside.cards)]  # typed in any order
    assert parse_move(" ".join(names), compact) == parse_move(" ".join(names), listed) == chosen
    assert parse_move("lay " + " ".join(names), compact) == chosen
    assert parse_move("38", compact) == chosen
    for typed in (" ".join(names[:2]), "pass"):  # two cards: no lay-aside; no call at all
        with pytest.raises(MoveInputError):
            parse_move(typed, compact)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_play_stream_asked_for_it_brings_compact_views_and_takes_a_chosen_lay_aside(
    client: Client, game: str
) -> None:
    seats = _seated(client, game, "stream")
    with seats[0].play(compact_lay_aside=True) as stream, seats[1].play() as plain:
        turn = stream.turn()
        assert turn.view.HasField("lay_aside_choice") and not turn.view.legal_moves
        assert plain.turn().view.legal_moves and not plain.turn().view.HasField("lay_aside_choice")
        legal = legal_moves(turn.view)
        move = legal[random.Random(1).randrange(len(legal))]
        version = stream.move(move, turn.version)
        assert version == turn.version + 1
    after = seats[0].get(compact_lay_aside=True).view
    assert after.seats[0].aside_count == 3 and not legal_moves(after)


def test_submit_move_asked_for_it_answers_a_new_deal_compactly(client: Client) -> None:
    # The move that ends a deal is answered with the mover's view of the next deal's lay-aside.
    seats = _seated(client, "counterpoint", "submit")
    rng = random.Random(3)
    compact_answers = 0
    for _ in range(200):
        public = client.get(seats[0].game_id)
        if public.view.finished or compact_answers >= 2:
            break
        seat = seats[min(public.view.to_act)]
        state = seat.get(compact_lay_aside=True)
        legal = legal_moves(state.view)
        answer = seat.submit(legal[rng.randrange(len(legal))], compact_lay_aside=True)
        if legal_moves(answer.view) and legal_moves(answer.view)[0].WhichOneof("kind") == (
            "lay_aside"
        ):
            assert answer.view.HasField("lay_aside_choice") and not answer.view.legal_moves
            compact_answers += 1
    assert compact_answers >= 1


class _Watching:
    """A bot that records what it was handed at each lay-aside, then lets ``bot`` decide."""

    def __init__(self, bot: Bot, seen: list[tuple[bool, int]]) -> None:
        self.bot = bot
        self.seen = seen

    def __call__(self, view: View, legal: Sequence[Move]) -> Move | None:
        if view.HasField("lay_aside_choice") or (
            legal and legal[0].WhichOneof("kind") == "lay_aside"
        ):
            compact = isinstance(legal, LegalMoves) and legal.choice_size > 0
            self.seen.append((compact and not view.legal_moves, len(legal)))
        return self.bot(view, legal)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_bots_play_whole_games_on_compact_views(client: Client, game: str) -> None:
    options, hand_size = GAMES[game]
    seen: list[tuple[bool, int]] = []
    seats = {"counterpoint": 2, "ninety-nine": 3}[game]
    bots = [
        _Watching(make_bot("heuristic" if n % 2 else "random", game, seed=n), seen)
        for n in range(seats)
    ]
    result = play_game(client, game, bots, options=options, seed=b"compact whole game")
    assert result.final.view.finished and result.final.view.winners
    assert len(seen) >= seats  # every seat laid aside at least once
    assert all(compact for compact, _ in seen)
    assert {n for _, n in seen} == {{16: 560, 12: 220}[hand_size]}


@pytest.mark.parametrize("style", ["stream", "poll"])
def test_a_live_table_plays_on_compact_views_in_the_unary_styles(
    client: Client, style: Style
) -> None:
    options, _ = GAMES["counterpoint"]
    created = client.create("counterpoint", options, seed=f"compact:{style}".encode())
    seen: list[tuple[bool, int]] = []
    bots = {n: _Watching(make_bot("heuristic", "counterpoint"), seen) for n in (0, 1)}
    finals = run_table(client, created.game_id, bots, style=style, poll_interval_s=0.005)
    assert all(f.game.status == pb.GAME_STATUS_FINISHED for f in finals.values())
    assert seen and all(compact for compact, _ in seen)
