"""The AUTO_MOVE policy's move at every decision of every game, over random games: legal, and
the least harmful by the rules (docs/proposed-rules-timeout.md): pass where passing is legal,
the lowest bid when a bid is due, never a claim, a close, a premium, a marriage or an exchange;
at a lead or follow a card, the heuristic reference bot's choice among the card plays."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import pytest

from engine import get_rules
from engine.core.moves import (
    Bid,
    Call,
    ChooseSeat,
    Claim,
    CloseStock,
    Cut,
    DeclareContract,
    DeclareMarriage,
    DrawCards,
    ExchangeTrump,
    LayAside,
    Move,
    PlayCard,
)
from engine.core.rules import Rules
from service.turns import auto_move

NEVER = (Claim, CloseStock, DeclareMarriage, ExchangeTrump)

# Each game's decisions (its phases) and the kinds of move a timeout may make there.
DECISIONS: dict[str, dict[str, tuple[type, ...]]] = {
    "counterpoint": {"lay_aside": (LayAside,), "play": (PlayCard,)},
    "ninety-nine": {
        "lay_aside": (LayAside,),
        "premium": (Call,),
        "name_leader": (ChooseSeat,),
        "play": (PlayCard,),
    },
    "nominations": {
        "auction": (Call, Bid),
        "cut": (Cut,),
        "declare": (DeclareContract,),
        "play": (PlayCard,),
    },
    "sixty-six": {
        "lead": (PlayCard,),
        "follow": (PlayCard,),
        "post_trick": (DrawCards,),
        "close_exchange": (Call,),
        "end_window": (Call,),
    },
}

OPTIONS: dict[str, list[dict[str, object]]] = {
    "counterpoint": [{}],
    "ninety-nine": [{}],
    "nominations": [{}, {"all_pass": "dealer_forced"}, {"double_hand_cut": "cutter_chooses"}],
    "sixty-six": [{}, {"exchange_on_opponent_close": True}],
}


def random_move(rules: Rules[Any], state: Any, seat: int, rng: random.Random) -> Move:
    """A random legal move, its kind drawn first so that rare choices (pass, reveal, close,
    claim) come up often enough to reach every decision."""
    legal = rules.legal_moves(state, seat)
    if len(legal) > 200:  # a lay-aside's hundreds of choices: any of them
        return legal[rng.randrange(len(legal))]
    by_kind: dict[tuple[type, str], list[Move]] = defaultdict(list)
    for m in legal:
        by_kind[(type(m), m.call if isinstance(m, Call) else "")].append(m)
    kinds = sorted(by_kind, key=str)
    if len(kinds) > 1 and rng.random() < 0.9:  # claim seldom, so deals reach their end window
        kinds = [k for k in kinds if k[0] is not Claim]
    return rng.choice(by_kind[rng.choice(kinds)])


def check(rules: Rules[Any], state: Any, seat: int, move: Move) -> None:
    legal = rules.legal_moves(state, seat)
    rules.apply(state, seat, move)  # raises if illegal
    assert not isinstance(move, NEVER), (state.phase, move)
    assert isinstance(move, DECISIONS[rules.name][state.phase]), (state.phase, move)
    if isinstance(move, Call):
        assert move.call in ("pass", "decline"), move
    passing = Call("pass")
    if state.phase in ("auction", "premium", "end_window") and passing in legal:
        assert move == passing
    if isinstance(move, Bid):  # a bid only when the dealer may not pass: the lowest of all
        assert passing not in legal and move == Bid("tricks", state.options.min_bid)


@pytest.mark.parametrize("game", sorted(DECISIONS))
def test_the_timeout_move_is_legal_and_least_harmful_at_every_decision(game: str) -> None:
    rules = get_rules(game)
    seen: set[str] = set()
    rng = random.Random(f"timeouts {game}")
    games = 0
    while seen != set(DECISIONS[game]) or games < 4:
        assert games < 60, f"{game}: decisions never reached: {set(DECISIONS[game]) - seen}"
        options = OPTIONS[game][games % len(OPTIONS[game])]
        seed = f"{game}:{games}".encode()
        state = rules.new_game(options, seed)
        version = 0
        while not state.finished:
            version += 1
            for seat in rules.to_act(state):
                check(rules, state, seat, auto_move(rules, state, seat, seed, version))
                seen.add(state.phase)
            seat = rng.choice(rules.movers(state))
            state, _ = rules.apply(state, seat, random_move(rules, state, seat, rng))
        games += 1


def test_a_timed_out_lead_plays_a_card_where_it_might_claim_close_or_marry() -> None:
    """The heuristic bot would exchange the trump nine or marry first; a timeout plays a card."""
    rules = get_rules("sixty-six")
    rng = random.Random("sixty-six lead")
    offered: set[type] = set()
    for n in range(30):
        seed = f"lead:{n}".encode()
        state = rules.new_game({}, seed)
        while not state.finished:
            for seat in rules.to_act(state):
                legal = rules.legal_moves(state, seat)
                kinds = {type(m) for m in legal}
                if state.phase == "lead" and kinds & set(NEVER):
                    offered |= kinds & set(NEVER)
                    move = auto_move(rules, state, seat, seed, 1)
                    assert isinstance(move, PlayCard) and move in legal
            seat = rng.choice(rules.movers(state))
            state, _ = rules.apply(state, seat, random_move(rules, state, seat, rng))
    assert offered >= {Claim, CloseStock, DeclareMarriage}
