"""The proto ⇄ engine adapter: every engine kind has a complete mapping, and real games
round-trip (every projected view and event, for every seat and the spectator), in the listed
and the compact lay-aside form."""

from __future__ import annotations

import ast
import dataclasses
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from tricktable.v1 import cards_pb2, events_pb2, moves_pb2, views_pb2
from tricktable.v1 import game_service_pb2 as pb

from engine import game_names, get_rules
from engine.core import cards as C
from engine.core.events import EVENT_TYPES, Event
from engine.core.laying_aside import LayAsideChoices
from engine.core.moves import (
    MOVE_TYPES,
    Call,
    ChooseSeat,
    Claim,
    CloseStock,
    Cut,
    LayAside,
    Move,
    PlayCard,
)
from engine.core.options import OptionValue
from service import convert
from service.errors import InvalidRequest
from service.game_service import MoveResult, ProjectedBatch, project_events
from service.play import MoveAnswer, PlayStep
from service.play import SeatView as PlaySeatView
from service.store.base import GameRecord
from tests.engine.golden_games import GAMES
from tests.service import wire_golden


def _message_fields(name: str) -> set[str]:
    desc = convert._message_classes()[name].DESCRIPTOR
    # proto3 `optional` fields sit in a synthetic oneof named "_<field>"; real oneofs (View's
    # detail) stand for one dataclass field each.
    real = {o.name for o in desc.oneofs if o.name != "_" + o.fields[0].name}
    plain = {
        f.name
        for f in desc.fields
        if f.containing_oneof is None or f.containing_oneof.name not in real
    }
    return plain | real


def _case_types(message: type, oneof: str) -> dict[str, str]:
    cases = message.DESCRIPTOR.oneofs_by_name[oneof].fields  # type: ignore[attr-defined]
    return {f.name: f.message_type.name for f in cases}


@pytest.mark.parametrize("name", sorted(convert.engine_types()))
def test_every_engine_type_has_a_message_with_exactly_its_fields(name: str) -> None:
    cls = convert.engine_types()[name]
    assert name in convert._message_classes(), f"no proto message {name}: add it to proto/"
    service_fields = convert.SERVICE_FIELDS.get(name, frozenset())
    assert {f.name for f in dataclasses.fields(cls)} == _message_fields(name) - service_fields


@pytest.mark.parametrize("kind", sorted(MOVE_TYPES))
def test_every_move_kind_is_a_case_of_move(kind: str) -> None:
    assert _case_types(moves_pb2.Move, "kind").get(kind) == MOVE_TYPES[kind].__name__


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_every_event_kind_is_a_case_of_event(kind: str) -> None:
    assert _case_types(events_pb2.Event, "kind").get(kind) == EVENT_TYPES[kind].__name__


@pytest.mark.parametrize("game", game_names())
def test_every_game_has_a_detail_case_in_view(game: str) -> None:
    module_details = {t.__name__ for t in convert.detail_types()}
    detail_cases = set(_case_types(views_pb2.View, "detail").values())
    assert module_details <= detail_cases
    rules = get_rules(game)
    view = rules.view(rules.new_game({}, b"seed"), None)
    assert type(view.detail).__name__ in detail_cases


def test_every_card_round_trips_and_the_joker_has_no_suit() -> None:
    every = [*C.deck(range(2, 15)), C.JOKER]
    for c in every:
        assert convert.card_from_proto(convert.card_to_proto(c)) == c
    assert convert.card_to_proto(C.parse("AS")) == cards_pb2.Card(
        suit=cards_pb2.SUIT_SPADES, rank=cards_pb2.RANK_ACE
    )
    assert convert.card_to_proto(C.JOKER).suit == cards_pb2.SUIT_UNSPECIFIED


@pytest.mark.parametrize(
    ("suit", "rank"),
    [(0, 14), (5, 14), (1, 0), (1, 1), (1, 15), (0, 0), (2, 99)],
)
def test_a_malformed_card_is_an_invalid_request(suit: int, rank: int) -> None:
    with pytest.raises(InvalidRequest) as caught:
        convert.card_from_proto(cards_pb2.Card(suit=suit, rank=rank))  # type: ignore[arg-type]
    assert caught.value.reason == "MALFORMED_CARD"


def test_an_empty_move_is_an_invalid_request() -> None:
    with pytest.raises(InvalidRequest):
        convert.move_from_proto(moves_pb2.Move())


def test_moves_round_trip_by_kind() -> None:
    for move in (PlayCard(C.parse("TD")), LayAside.of(C.parse_many("7C 8H 9S")), Call("reveal")):
        msg = convert.move_to_proto(move)
        assert msg.WhichOneof("kind") == move.kind
        assert convert.move_from_proto(msg) == move


@pytest.mark.parametrize("game", game_names())
def test_a_random_game_round_trips_every_view_event_and_move(game: str) -> None:
    rules = get_rules(game)
    rng = random.Random(game)
    state = rules.new_game({}, f"convert:{game}".encode())
    events = list(rules.opening_events(state))
    viewers = (None, *range(rules.seats))
    for _ in range(400):
        if state.finished:
            break
        for viewer in viewers:
            view = rules.view(state, viewer)
            assert convert.view_from_proto(convert.view_to_proto(view)) == view
        seat = rng.choice(rules.to_act(state))
        legal = rules.legal_moves(state, seat)
        move = legal[rng.randrange(len(legal))]
        assert convert.move_from_proto(convert.move_to_proto(move)) == move
        state, step = rules.apply(state, seat, move)
        events.extend(step)
    for event in events:
        for viewer in viewers:
            projected = rules.project(event, viewer)
            assert convert.event_from_proto(convert.event_to_proto(projected)) == projected


@pytest.mark.parametrize("value", [True, False, 0, -3, 100_000, "", "revised"])
def test_option_values_round_trip_with_their_type(value: OptionValue) -> None:
    back = convert.option_value_from_proto(convert.option_value_to_proto(value))
    assert back == value and type(back) is type(value)


@pytest.mark.parametrize("game", game_names())
def test_game_types_publish_every_option_with_its_default(game: str) -> None:
    game_type = get_rules(game).game_type()
    msg = convert.game_type_to_proto(game_type)
    assert (msg.name, msg.seats) == (game_type.name, game_type.seats)
    assert [o.name for o in msg.options] == [o.name for o in game_type.options]
    for spec, published in zip(game_type.options, msg.options, strict=True):
        assert convert.option_value_from_proto(published.default_value) == spec.default
        assert tuple(published.choices) == spec.choices
        assert published.description == spec.description
        assert published.HasField("minimum") == (spec.minimum is not None)
        presets = {p.when: convert.options_from_proto(p.defaults) for p in published.presets}
        assert presets == {k: dict(v) for k, v in spec.sets.items()}


def _record(game: str, seats: int) -> GameRecord:
    """A game's record as the lobby would hand it to a response (an empty table)."""
    return GameRecord(
        game_id="g",
        game_type=game,
        options={},
        seed=b"s",
        seat_count=seats,
        created_at_ms=1,
        seats=(None,) * seats,
        snapshot=b"",
    )


def _random_steps(
    game: str, seed: str, rng: random.Random, steps: int = 149
) -> Iterator[tuple[int, int, Any, list[Event]]]:
    """A random game's first ``steps`` moves: (version, mover, state after, events)."""
    rules = get_rules(game)
    state = rules.new_game({}, seed.encode())
    for version in range(1, steps + 1):
        if state.finished:
            return
        mover = rng.choice(rules.to_act(state))
        legal = rules.legal_moves(state, mover)
        state, events = rules.apply(state, mover, legal[rng.randrange(len(legal))])
        yield version, mover, state, events


def _events_one_by_one(events: list[Event]) -> list[events_pb2.Event]:
    """Events as the servicer once wrote them: each event's message built and copied in."""
    copied = []
    for event in events:
        msg = events_pb2.Event()
        getattr(msg, event.kind).CopyFrom(convert.to_proto(event))
        copied.append(msg)
    return copied


def _built_one_by_one(obj: Any) -> Any:
    """An engine dataclass's message with each dataclass it holds in a singular field or a
    oneof (a view's detail, its last deal, the deal's result) built on its own and copied in,
    independently of the wire forms ``convert`` keeps for a view's detail (``convert._kept``)."""
    nested = {
        f.name: value
        for f in dataclasses.fields(obj)
        if dataclasses.is_dataclass(value := getattr(obj, f.name))
    }
    msg: Any = convert.to_proto(dataclasses.replace(obj, **dict.fromkeys(nested)))
    for name, value in nested.items():
        field = name
        if name not in msg.DESCRIPTOR.fields_by_name:  # a oneof: the case of the value's type
            cases = msg.DESCRIPTOR.oneofs_by_name[name].fields
            field = next(c.name for c in cases if c.message_type.name == type(value).__name__)
        getattr(msg, field).CopyFrom(_built_one_by_one(value))
    return msg


@pytest.mark.parametrize("game", game_names())
def test_responses_filled_in_place_equal_responses_built_from_copied_messages(game: str) -> None:
    # SubmitMove and GetGame answers are written straight into the response; the bytes must be
    # those of the messages built one by one and copied in, as the servicer did before.
    rules = get_rules(game)
    record = _record(game, rules.seats)
    for version, seat, state, events in _random_steps(game, f"fill:{game}", random.Random(5)):
        result = MoveResult(
            version=version,
            events=[rules.project(e, seat) for e in events],
            view=rules.view(state, seat),
        )
        expected = pb.SubmitMoveResponse(
            version=result.version,
            events=_events_one_by_one(result.events),
            view=cast(views_pb2.View, convert.to_proto(result.view)),
            view_version=result.view_version,
        )
        got = convert.submit_move_response(result)
        assert got.SerializeToString() == expected.SerializeToString()
        got_game = convert.get_game_response(record, result.view)
        expected_game = pb.GetGameResponse(
            game=convert.summary_to_proto(record),
            view=cast(views_pb2.View, convert.to_proto(result.view)),
        )
        assert got_game.SerializeToString() == expected_game.SerializeToString()


@pytest.mark.parametrize("game", game_names())
def test_play_steps_equal_steps_built_from_copied_messages(game: str) -> None:
    # A play step's events and view are written as cached wire entries; the bytes must be those
    # of the messages built one by one, for every seat (each gets its own projection of the
    # same events, so most entries are cache hits) at every step of a real game.
    rules = get_rules(game)
    for version, mover, state, events in _random_steps(game, f"play:{game}", random.Random(7)):
        for seat in range(rules.seats):
            projected = project_events(rules, list(events), seat)
            view = rules.view(state, seat)
            answer = MoveAnswer(f"r{version}", version) if seat == mover else None
            step = PlayStep(answer, [ProjectedBatch(version, mover, projected, None)])
            step.view = PlaySeatView(version, view)
            expected = pb.PlayStep(
                events=[
                    pb.StreamEventsResponse(
                        version=version, seat=mover, events=_events_one_by_one(projected)
                    )
                ],
                view=pb.PlayView(version=version, view=_built_one_by_one(view)),
            )
            if answer is not None:
                expected.result.request_id = answer.request_id
                expected.result.version = version
            got = convert.play_response(step)
            assert got.SerializeToString() == pb.PlayResponse(step=expected).SerializeToString()


def test_moves_of_different_kinds_with_equal_values_keep_their_own_messages() -> None:
    # Moves' messages are cached by move: ChooseSeat(1) and Cut(1), or the same card played and
    # laid aside, are equal in value but never one message.
    moves: list[Move] = [ChooseSeat(1), Cut(1), PlayCard(C.card(14, 0)), LayAside((C.card(14, 0),))]
    moves += [ChooseSeat(1), CloseStock(), Claim()]
    messages = [convert.move_to_proto(m) for m in moves]
    assert [m.WhichOneof("kind") for m in messages] == [m.kind for m in moves]
    assert [convert.move_from_proto(m) for m in messages] == moves


def test_a_move_with_a_malformed_card_is_refused() -> None:
    bad = moves_pb2.Move()
    bad.play_card.card.rank = cards_pb2.Rank.ValueType(99)
    with pytest.raises(InvalidRequest):
        convert.move_from_proto(bad)


# -- the compact lay-aside (compact_lay_aside) --------------------------------------------------

_LAY_ASIDE_GAMES = ("counterpoint", "ninety-nine")


def _lay_aside_views(game: str) -> list[tuple[Any, Any]]:
    """(rules, view) for every viewer at every step of a random game of a few deals."""
    rules = get_rules(game)
    rng = random.Random(f"compact:{game}")
    state = rules.new_game({}, f"compact:{game}".encode())
    out = []
    for _ in range(150):
        if state.finished:
            break
        out += [(rules, rules.view(state, viewer)) for viewer in (None, *range(rules.seats))]
        seat = rng.choice(rules.to_act(state))
        legal = rules.legal_moves(state, seat)
        state, _ = rules.apply(state, seat, legal[rng.randrange(len(legal))])
    return out


@pytest.mark.parametrize("game", _LAY_ASIDE_GAMES)
def test_a_compact_lay_aside_carries_the_viewers_hand_and_count_and_lists_no_move(
    game: str,
) -> None:
    compact_seen = 0
    for _rules, view in _lay_aside_views(game):
        msg = convert.view_to_proto(view, compact_lay_aside=True)
        if isinstance(view.legal_moves, LayAsideChoices):
            compact_seen += 1
            assert view.viewer is not None
            assert not msg.legal_moves
            hand = view.seats[view.viewer].hand
            # Exactly the viewer's own hand: no card it may not see (a hidden card of another
            # seat, the cards laid aside) can be in it.
            assert [convert.card_from_proto(c) for c in msg.lay_aside_choice.cards] == list(hand)
            assert msg.lay_aside_choice.count == 3
            assert len(view.legal_moves) == math.comb(len(hand), 3)
            # Everything else is the listed form's, byte for byte.
            listed = convert.view_to_proto(view)
            listed.ClearField("legal_moves")
            msg.ClearField("lay_aside_choice")
            assert msg.SerializeToString() == listed.SerializeToString()
        else:  # no lay-aside: the flag changes nothing
            assert not msg.HasField("lay_aside_choice")
            assert msg == convert.view_to_proto(view)
    assert compact_seen >= 2  # every seat's first view of the deal at least


@pytest.mark.parametrize("game", _LAY_ASIDE_GAMES)
def test_without_the_flag_every_lay_aside_is_listed_as_before(game: str) -> None:
    for _rules, view in _lay_aside_views(game)[:8]:
        msg = convert.view_to_proto(view)
        assert not msg.HasField("lay_aside_choice")
        assert [convert.move_from_proto(m) for m in msg.legal_moves] == list(view.legal_moves)


@pytest.mark.parametrize("game", _LAY_ASIDE_GAMES)
def test_the_compact_form_round_trips(game: str) -> None:
    for _rules, view in _lay_aside_views(game):
        back = convert.view_from_proto(convert.view_to_proto(view, compact_lay_aside=True))
        assert back == view
        assert list(back.legal_moves) == list(view.legal_moves)


def test_responses_write_the_compact_form_only_when_asked() -> None:
    rules = get_rules("counterpoint")
    state = rules.new_game({}, b"compact responses")
    view = rules.view(state, 0)
    assert isinstance(view.legal_moves, LayAsideChoices)
    result = MoveResult(version=3, events=[], view=view, view_version=3)
    record = _record(rules.name, rules.seats)
    listed = convert.submit_move_response(result)
    compact = convert.submit_move_response(result, compact_lay_aside=True)
    assert len(listed.view.legal_moves) == 560 and not listed.view.HasField("lay_aside_choice")
    assert not compact.view.legal_moves and len(compact.view.lay_aside_choice.cards) == 16
    game = convert.get_game_response(record, view, compact_lay_aside=True)
    assert game.view.lay_aside_choice == compact.view.lay_aside_choice
    assert len(convert.get_game_response(record, view).view.legal_moves) == 560
    # Smaller by far: one hand instead of 560 moves of three cards each.
    assert compact.ByteSize() * 10 < listed.ByteSize()


# -- the bytes on the wire of the golden games --------------------------------------------------


@pytest.mark.parametrize("name", [name for name, *_ in GAMES])
def test_every_view_event_and_step_of_a_golden_game_has_the_recorded_bytes(name: str) -> None:
    # Every viewer's view (listed and compact), events, event batch, play step, SubmitMove and
    # GetGame answer at every step of the recorded game, against the digests of the bytes main's
    # conversion made (tests/service/wire_golden.py recorded them before it was rewritten).
    recorded = wire_golden.read_digests(name)
    got = list(wire_golden.step_digests(name))
    assert len(got) == len(recorded), f"{name}: the golden game has other steps than recorded"
    for step, (want, now) in enumerate(zip(recorded, got, strict=True)):
        differ = [kind for kind in wire_golden.KINDS if want[kind] != now[kind]]
        assert not differ, f"{name} step {step}: the bytes of {', '.join(differ)} changed"


def test_convert_imports_nothing_that_stands_above_it_and_generates_no_code() -> None:
    # The service's modules import convert (the servicer, records, the bots' turns): convert
    # reads their values by shape and imports only the engine and the service's lower rooms.
    # An import of game_service or play closed the circle convert -> game_service -> turns ->
    # convert. And it is plain code: nothing is compiled from source at run time.
    tree = ast.parse(Path(convert.__file__).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    service = {m for m in imported if m.split(".")[0] == "service"}
    assert service <= {"service.clocks", "service.errors", "service.store.base"}, service
    called = {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    assert not called & {"exec", "eval", "compile"}
