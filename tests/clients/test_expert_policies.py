"""The expert's playout policies and game models (tricktable.bots.expert.policies): the moves
they choose on positions built for the purpose, that sampled worlds stay consistent with what the
seat has seen once modelled, and the decisions the expert takes with them."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tricktable import facts
from tricktable.bots.expert import ExpertBot
from tricktable.bots.expert import policies as P
from tricktable.bots.expert.search import OWN_SEARCH_CARDS, Search
from tricktable.legal import legal_moves

from engine import get_rules
from engine.core import cards as C
from engine.core.moves import Bid, Call, DeclareContract, LayAside, PlayCard
from engine.games import ninety_nine as nn
from engine.games import nominations as nom
from service import convert
from tests.clients.test_expert import decisions


def give(state: Any, seat: int, cards: list[int]) -> None:
    """Swap cards between the hands so that ``seat`` holds exactly ``cards`` (each taken from
    whoever held it, in exchange for one of the seat's unwanted cards)."""
    wanted = C.mask_of(cards)
    spare = [c for c in C.cards_of(state.hands[seat]) if not wanted >> c & 1]
    for c in cards:
        if state.hands[seat] >> c & 1:
            continue
        holder = next(h for h in range(len(state.hands)) if state.hands[h] >> c & 1)
        out = spare.pop()
        state.hands[holder] = state.hands[holder] & ~(1 << c) | 1 << out
        state.hands[seat] = state.hands[seat] & ~(1 << out) | 1 << c


def ninety_nine_at_lay_aside() -> tuple[Any, int]:
    """A Ninety-Nine deal at the bid cards with a trump suit other than diamonds: the state
    and a seat to decide."""
    rules = get_rules("ninety-nine")
    for n in range(200):
        state = rules.new_game({}, f"policies {n}".encode())
        if state.trump not in (None, C.DIAMONDS) and state.turn_up >> 4 != C.DIAMONDS:
            return state, rules.to_act(state)[0]
    raise AssertionError("no such deal")


def weak_twelve(state: Any) -> list[int]:
    """Twelve low cards (6 to 9) of the three suits that are not trumps, diamonds among them."""
    suits = [s for s in range(4) if s != state.trump][:3]
    cards = [C.card(r, s) for s in suits for r in (6, 7, 8, 9)]
    assert state.turn_up not in cards
    return cards


# -- Ninety-Nine --------------------------------------------------------------------------------


def test_a_hand_without_honours_or_trumps_lays_aside_a_bid_of_nothing() -> None:
    state, seat = ninety_nine_at_lay_aside()
    give(state, seat, weak_twelve(state))
    choices = P.nn_lay_asides(state, C.cards_of(state.hands[seat]))
    cost, aside = choices[0]
    assert nn.bid_value(state, aside) == 0 and cost == 0
    assert aside == C.mask_of([C.card(r, C.DIAMONDS) for r in (6, 7, 8)])  # the lowest three
    assert [c for c, _ in choices] == sorted(c for c, _ in choices)
    move = P.nn_policy(state, seat, get_rules("ninety-nine").legal_moves(state, seat))
    assert move == LayAside.of(C.cards_of(aside))


def test_a_hand_of_aces_and_trumps_bids_high() -> None:
    state, seat = ninety_nine_at_lay_aside()
    trump = state.trump
    others = [s for s in range(4) if s != trump]
    strong = [c for c in (C.card(r, trump) for r in range(14, 7, -1)) if c != state.turn_up][:5]
    strong += [C.card(14, s) for s in others] + [C.card(13, s) for s in others]
    strong += [c for c in (C.card(6, s) for s in others) if c != state.turn_up][:1]
    give(state, seat, strong)
    (_, aside), *_ = P.nn_lay_asides(state, C.cards_of(state.hands[seat]))
    assert nn.bid_value(state, aside) >= 6


def test_the_expert_lays_aside_the_obvious_bid() -> None:
    """A seeded expert, searching, lays aside the three low diamonds of a hand that should
    take no trick (a bid of 0)."""
    state, seat = ninety_nine_at_lay_aside()
    give(state, seat, weak_twelve(state))
    rules = get_rules("ninety-nine")
    if not facts.known("ninety-nine"):
        facts.learn([convert.game_type_to_proto(rules.game_type())])
    view = convert.view_to_proto(rules.view(state, seat), compact_lay_aside=True)
    ticks = iter(range(10**9))
    bot = ExpertBot("ninety-nine", ms=40, seed=7, clock=lambda: next(ticks) * 0.001)
    answer = bot(view, legal_moves(view))
    assert answer is not None and answer.WhichOneof("kind") == "lay_aside"
    laid = convert.move_from_proto(answer)
    assert isinstance(laid, LayAside) and nn.bid_value(state, C.mask_of(laid.cards)) == 0
    assert bot.worlds[-1] >= 2  # searched, not just the prior


def play_state(needs: int) -> tuple[Any, int]:
    """A Ninety-Nine trick where the seat to play last holds a card that wins it (the Ace of
    the suit led, no trump on the table) and one that does not (the Six), having taken ``needs``
    tricks fewer than its bid."""
    bots = [ExpertBot("ninety-nine", seed=n) for n in range(3)]
    for n in range(40):
        for _, state, _, _ in decisions("ninety-nine", {}, f"play {n}".encode(), bots):
            if len(state.trick) == 2 and not state.history:
                table = [c if c != C.JOKER else state.turn_up for c in state.trick]
                suit = table[0] >> 4
                above, below = C.card(14, suit), C.card(6, suit)
                trumped = state.trump is not None and any(c >> 4 == state.trump for c in table)
                mine = {*table, state.turn_up}
                if (trumped and suit != state.trump) or above in mine or below in mine:
                    break
                seat = state.turn
                rest = [c for c in C.cards_of(state.hands[seat]) if c >> 4 not in (suit, 4)][:7]
                for o in range(3):
                    for c in (above, below):
                        state.hands[o] &= ~(1 << c)
                        state.aside[o] &= ~(1 << c)
                state.hands[seat] = C.mask_of([above, below, *rest])
                state.tricks_won[seat] = nn.bid_value(state, state.aside[seat]) - needs
                if state.tricks_won[seat] < 0:
                    break
                return state, seat
    raise AssertionError("no such trick")


def test_a_seat_wins_while_its_bid_needs_tricks_and_ducks_once_made() -> None:
    rules = get_rules("ninety-nine")
    for needs, wins in ((1, True), (0, False)):
        state, seat = play_state(needs)
        move = P.nn_policy(state, seat, rules.legal_moves(state, seat))
        assert isinstance(move, PlayCard)
        assert (move.card & 15 == 14) is wins


def test_modelled_worlds_stay_consistent_with_the_seats_view() -> None:
    """The others' bid cards are redrawn from their own unplayed cards only: the seat's view of
    a modelled world is its view of the real state, at every decision of a deal."""
    rules = get_rules("ninety-nine")
    bots = [ExpertBot("ninety-nine", seed=n) for n in range(3)]
    rng = random.Random(3)
    redrawn = 0
    for count, (seat, state, _, _) in enumerate(decisions("ninety-nine", {}, b"model", bots)):
        info = rules.information_set(state, seat)
        world = rules.sample_state(info, rng)
        before = list(world.aside)
        P.nn_model_asides(world, seat)
        redrawn += world.aside != before
        assert rules.view(world, seat) == rules.view(state, seat)
        for other in range(3):
            assert C.count(world.aside[other]) == C.count(state.aside[other])
        if count > 60:
            break
    assert redrawn


# -- Nominations --------------------------------------------------------------------------------


def nominations_first_follow() -> tuple[Any, int]:
    """A Nominations deal in play under a number contract at the first trick's second card:
    the state and the seat to play."""
    rules = get_rules("nominations")
    bots = [ExpertBot("nominations", seed=n) for n in range(4)]
    for n in range(40):
        for _, state, _, _ in decisions("nominations", {}, f"noms {n}".encode(), bots):
            if state.contract is not None and len(state.trick) == 1 and not state.history:
                if state.contract == nom.TRICKS:
                    return state, rules.to_act(state)[0]
                break
    raise AssertionError("no such deal")


def test_against_a_misere_every_seat_ducks_and_otherwise_wins() -> None:
    """The seat to follow holds a card of the suit led below the led card and one above it:
    against a misère it plays under; in a number contract (no side-mate known) it wins."""
    rules = get_rules("nominations")
    state, seat = nominations_first_follow()
    led = state.trick[0] = C.card(9, state.trick[0] >> 4)
    above, below = led + 1, led - 1
    rest = [c for c in C.cards_of(state.hands[seat]) if c >> 4 != led >> 4][:11]
    for o in range(4):
        state.hands[o] &= ~(1 << above | 1 << below | 1 << led)
    state.hands[seat] = C.mask_of([above, below, *rest])
    state.holder = state.declarer  # a solo: the seat's side is itself alone
    move = P.nom_policy(state, seat, rules.legal_moves(state, seat))
    assert move == PlayCard(above)
    state.contract = nom.MISERE
    assert P.nom_policy(state, seat, rules.legal_moves(state, seat)) == PlayCard(below)


def test_the_contracts_searched_start_with_the_hands_best_trump_and_its_call() -> None:
    rules = get_rules("nominations")
    for n in range(30):
        state = rules.new_game({}, f"contract {n}".encode())
        seat = rules.to_act(state)[0]
        cards = C.cards_of(state.hands[seat])
        trump, _ = P.nom_best_trump(cards)
        candidates = P.nom_candidates(state, seat, DeclareContract(trump, C.card(14, 0)))
        called = P.nom_call_for(cards, trump)
        assert called is not None and candidates[0] == DeclareContract(trump, called)
        assert len(candidates) == len(set(candidates)) <= 16
        contracts = [m for m in candidates if isinstance(m, DeclareContract)]
        assert len(contracts) == len(candidates)
        assert {m.trump for m in contracts} == {0, 1, 2, 3, None}
        assert all(not state.hands[seat] >> m.called & 1 for m in contracts)
        assert P.nom_candidates(state, seat, Call("pass")) == []


def test_the_auction_policy_bids_what_the_hand_affords() -> None:
    rules = get_rules("nominations")
    state = rules.new_game({}, b"auction")
    seat = rules.to_act(state)[0]
    aces = [C.card(14, s) for s in range(4)] + [C.card(13, s) for s in range(4)]
    give(state, seat, [*aces, *[C.card(r, C.SPADES) for r in (12, 11, 10, 9, 8)]])
    move = P.nom_policy(state, seat, rules.legal_moves(state, seat))
    assert isinstance(move, Bid) and move.contract == nom.TRICKS and (move.tricks or 0) >= 10
    weak = [C.card(r, s) for s in range(4) for r in (2, 3, 4)] + [C.card(5, C.CLUBS)]
    state = rules.new_game({}, b"auction")
    give(state, seat, weak)
    assert P.nom_policy(state, seat, rules.legal_moves(state, seat)) == Bid(nom.MISERE)


# -- the search's own moves near the end --------------------------------------------------------


def test_searching_the_seats_last_cards_never_does_worse_than_its_policy() -> None:
    """With three cards or fewer left, the seat's own moves are searched (the others answering
    by the policy): the line the policy would play is one of those searched, so the searched
    value is at least the policy's, world by world; and over a game's late positions it is
    sometimes more."""
    for game in ("ninety-nine", "nominations"):
        rules = get_rules(game)
        bots = [ExpertBot(game, seed=n) for n in range(rules.seats)]
        rng = random.Random(5)
        compared = better = 0
        for seat, state, _, _ in decisions(game, {}, f"late {game}".encode(), bots):
            if state.finished or not 0 < C.count(state.hands[seat]) <= OWN_SEARCH_CARDS:
                continue
            if not isinstance(rules.legal_moves(state, seat)[0], PlayCard):
                continue
            world = rules.sample_state(rules.information_set(state, seat), rng)
            search = Search(rules, seat, rng)
            deal, scores = world.deal_no, tuple(world.scores)
            searched = search.best_reply(world.clone(), deal, scores, rng)
            search.own_cards = 0  # the policy plays the seat's cards too
            played = search.finish(world.clone(), deal, scores, rng)
            assert searched >= played
            compared += 1
            better += searched > played
            if compared >= 30:
                break
        assert compared >= 10 and better, (game, compared, better)


def test_the_nominations_auction_and_contract_are_searched() -> None:
    """The expert's bids and its contract are searched over sampled worlds (no longer left to
    the heuristic bot): each such decision samples worlds, and its answers are legal."""
    bots = [ExpertBot("nominations", ms=20, seed=n, clock=stepping_clock(0.001)) for n in range(4)]
    searched: set[str] = set()
    for seat, _, view, answer in decisions("nominations", {}, b"auction", bots, clock=None):
        legal = legal_moves(view)
        kind = legal[0].WhichOneof("kind") or ""
        if kind in ("bid", "call", "declare_contract") and len(legal) > 1:
            assert answer in legal
            assert bots[seat].worlds[-1] >= 2
            searched.add(kind if kind != "call" else "bid")
        if searched == {"bid", "declare_contract"}:
            break
    assert searched == {"bid", "declare_contract"}


def stepping_clock(step_s: float) -> Callable[[], float]:
    ticks = iter(range(10**9))
    return lambda: next(ticks) * step_s
