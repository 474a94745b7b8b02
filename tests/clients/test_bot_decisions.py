"""The heuristic bots' decisions on hand-made views: the rules each one relies on, written over
the protocol alone (no engine; the games' facts are learnt from a server's game types)."""

from __future__ import annotations

import itertools

import pytest
from tricktable import facts
from tricktable.bots import CounterpointBot, NinetyNineBot, NominationsBot, SixtySixBot
from tricktable.bots.base import Move, View
from tricktable.bots.counterpoint import follower_wins
from tricktable.bots.tricks import trick_winner
from tricktable.cards import CLUBS, DIAMONDS, HEARTS, NO_SUIT, SPADES, card, name
from tricktable.v1 import cards_pb2, moves_pb2, views_pb2

pytestmark = pytest.mark.usefixtures("game_facts")

CLAIM = Move(claim=moves_pb2.Claim())
DRAW = Move(draw_cards=moves_pb2.DrawCards())
PASS = Move(call=moves_pb2.Call(call="pass"))


def _cards(names: str) -> list[cards_pb2.Card]:
    return [card(n) for n in names.split()]


def _plays(names: str) -> list[Move]:
    return [Move(play_card=moves_pb2.PlayCard(card=c)) for c in _cards(names)]


def _seat(seat: int, hand: str | None = None, **fields: object) -> views_pb2.SeatView:
    view = views_pb2.SeatView(seat=seat, **fields)  # type: ignore[arg-type]
    if hand is not None:
        view.hand.cards.extend(_cards(hand))
        view.hand_size = len(view.hand.cards)
    return view


def _played(move: Move | None) -> str:
    assert move is not None and move.WhichOneof("kind") == "play_card"
    return name(move.play_card.card)


def test_the_trick_goes_to_the_highest_trump_else_the_highest_card_of_the_suit_led() -> None:
    numeric = facts.of("nominations").strength
    assert trick_winner(_cards("KH AS 2H"), NO_SUIT, numeric) == 0  # another suit never wins
    assert trick_winner(_cards("KH AS 2C"), CLUBS, numeric) == 2  # the only trump
    ten_high = facts.of("sixty-six").strength
    assert trick_winner(_cards("TH KH"), HEARTS, ten_high) == 0  # the Ten over the King
    assert trick_winner(_cards("TH KH"), HEARTS, numeric) == 1


def test_counterpoint_equal_ranks_go_to_the_leader_for_counters_and_the_follower_for_blanks() -> (
    None
):
    f = facts.of("counterpoint")
    assert not follower_wins(f, card("KS"), card("KH")) and follower_wins(f, card("8S"), card("8H"))
    assert follower_wins(f, card("JS"), card("AH")) and not follower_wins(f, card("TS"), card("KS"))


def test_ninety_nine_bids_zero_with_a_hand_that_cannot_take_tricks() -> None:
    hand = "6C 7C 8C 6H 7H 8H 6S 7S 8S 6D 7D 8D"
    legal = [
        Move(lay_aside=moves_pb2.LayAside(cards=list(three)))
        for three in itertools.combinations(_cards(hand), 3)
    ]
    view = View(game="ninety-nine", viewer=0, seats=[_seat(0, hand), _seat(1), _seat(2)])
    choice = NinetyNineBot()(view, legal)
    assert choice is not None
    assert {c.suit for c in choice.lay_aside.cards} == {DIAMONDS}  # ♦♦♦ = a bid of 0


def test_ninety_nine_ducks_once_its_bid_is_made_and_wins_cheaply_when_short() -> None:
    table = views_pb2.TrickView(leader=1, seats=[1, 2], cards=_cards("TH 9H"))
    legal = _plays("AH JH 6H")

    def view(bid: int, won: int) -> View:
        me = _seat(0, "AH JH 6H KS", bid=bid, tricks_won=won)
        return View(game="ninety-nine", viewer=0, seats=[me, _seat(1), _seat(2)], trick=table)

    assert _played(NinetyNineBot()(view(bid=2, won=2), legal)) == "6H"  # under the Ten
    assert _played(NinetyNineBot()(view(bid=3, won=1), legal)) == "JH"  # last: just enough


def test_sixty_six_claims_when_its_own_count_reaches_66_and_not_before() -> None:
    bot = SixtySixBot()

    def view(won: int, last: str, stock_state: str = "open") -> View:
        trick = views_pb2.TrickView(leader=1, seats=[1, 0], cards=_cards(last), winner=0)
        detail = views_pb2.SixtySixDetail(stock_state=stock_state)
        me = _seat(0, "9S", tricks_won=won)
        return View(
            game="sixty-six",
            viewer=0,
            seats=[me, _seat(1, tricks_won=1)],
            tricks=[trick],
            sixty_six_detail=detail,
        )

    assert bot(view(1, "AH TH"), [DRAW, CLAIM]) == DRAW  # 21
    assert bot(view(2, "AS TS"), [DRAW, CLAIM]) == DRAW  # 42
    assert bot(view(2, "AS TS"), [DRAW, CLAIM]) == DRAW  # the same trick seen again: still 42
    assert bot(view(3, "AC TC"), [DRAW, CLAIM]) == DRAW  # 63
    assert bot(view(4, "KD 9D"), [DRAW, CLAIM]) == CLAIM  # 67


def test_sixty_six_counts_a_marriage_once_it_has_a_trick() -> None:
    marriage = views_pb2.MarriageView(seat=0, suit=HEARTS, points=40, counts=True)
    detail = views_pb2.SixtySixDetail(stock_state="open", marriages=[marriage])
    trick = views_pb2.TrickView(leader=0, seats=[0, 1], cards=_cards("AS TS"), winner=0)
    seats = [_seat(0, "KH", tricks_won=1), _seat(1)]
    view = View(game="sixty-six", viewer=0, seats=seats, tricks=[trick], sixty_six_detail=detail)
    assert SixtySixBot().count(view) == 61


def test_counterpoint_follows_to_take_exactly_the_points_it_still_needs() -> None:
    bot = CounterpointBot()
    me = _seat(0, "AS 7S", bid=10)
    bot.targets[1] = 10
    view = View(
        game="counterpoint",
        viewer=0,
        deal_no=1,
        seats=[me, _seat(1)],
        trick=views_pb2.TrickView(leader=1, seats=[1], cards=_cards("8S")),
    )
    assert _played(bot(view, _plays("AS 7S"))) == "AS"  # 11 points: the closest to 10


def test_nominations_passes_a_weak_hand_and_bids_and_calls_with_a_strong_one() -> None:
    bids = [PASS] + [Move(bid=moves_pb2.Bid(contract="tricks", tricks=n)) for n in (10, 11, 12, 13)]
    weak = "2C 3C 4C 5H 6H 7H 8S 9S TS 2D 3D 4D 5D"
    seats = [_seat(0, weak), _seat(1), _seat(2), _seat(3)]
    assert NominationsBot()(View(game="nominations", viewer=0, seats=seats), bids) == PASS
    strong = "AS KS QS JS TS 9S 8S AH KH AD KD AC 2C"
    seats = [_seat(0, strong), _seat(1), _seat(2), _seat(3)]
    choice = NominationsBot()(View(game="nominations", viewer=0, seats=seats), bids)
    assert choice is not None and choice.bid.contract == "tricks" and choice.bid.tricks >= 10
    contracts = [
        Move(declare_contract=moves_pb2.DeclareContract(trump=t, called=c))
        for t in (NO_SUIT, CLUBS, HEARTS, SPADES, DIAMONDS)
        for c in _cards("AS AH AC AD 7S 2S")
    ]
    declared = NominationsBot()(View(game="nominations", viewer=0, seats=seats), contracts)
    assert declared is not None
    assert declared.declare_contract.trump == SPADES
    assert name(declared.declare_contract.called) == "7S"  # the highest spade it lacks
