"""What a player types at the prompt, read into one of the legal moves: move numbers, every card
spelling, words for the other moves, and clear refusals of what is ambiguous or unknown."""

from __future__ import annotations

import pytest
from tricktable import cards as C
from tricktable.move_text import MoveInputError, NotLegalNow, describe_move, parse_card, parse_move
from tricktable.v1 import cards_pb2, moves_pb2

Move = moves_pb2.Move


def play(name: str) -> Move:
    return Move(play_card=moves_pb2.PlayCard(card=C.card(name)))


def call(word: str) -> Move:
    return Move(call=moves_pb2.Call(call=word))


def lay(*names: str) -> Move:
    return Move(lay_aside=moves_pb2.LayAside(cards=[C.card(n) for n in names]))


def contract(trump: int, called: str) -> Move:
    return Move(
        declare_contract=moves_pb2.DeclareContract(trump=trump, called=C.card(called))  # type: ignore[arg-type]
    )


#: A Sixty-Six lead: cards, a marriage, closing, claiming, the exchange.
LEAD = [
    play("QS"),
    play("TH"),
    play("KH"),
    play("QH"),
    Move(declare_marriage=moves_pb2.DeclareMarriage(suit=cards_pb2.SUIT_HEARTS)),
    Move(close_stock=moves_pb2.CloseStock()),
    Move(exchange_trump=moves_pb2.ExchangeTrump()),
    Move(claim=moves_pb2.Claim()),
]


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("QS", "QS"),
        ("qs", "QS"),
        ("Q♠", "QS"),
        ("q♠", "QS"),
        ("♠Q", "QS"),
        ("10h", "TH"),
        ("10H", "TH"),
        ("th", "TH"),
        ("T♥", "TH"),
        ("  kh  ", "KH"),
        ("play kh", "KH"),
    ],
)
def test_a_card_is_read_in_any_spelling(typed: str, expected: str) -> None:
    assert parse_move(typed, LEAD) == play(expected)


def test_a_number_picks_the_move_listed_under_it() -> None:
    assert parse_move("1", LEAD) == play("QS")
    assert parse_move("8", LEAD) == Move(claim=moves_pb2.Claim())


@pytest.mark.parametrize("typed", ["0", "9", "123"])
def test_a_number_outside_the_list_is_refused(typed: str) -> None:
    with pytest.raises(MoveInputError, match="choose 1 to 8"):
        parse_move(typed, LEAD)


@pytest.mark.parametrize(
    ("typed", "kind"),
    [
        ("close", "close_stock"),
        ("CLAIM", "claim"),
        ("exchange", "exchange_trump"),
        ("marriage hearts", "declare_marriage"),
        ("marry ♥", "declare_marriage"),
        ("hearts", "declare_marriage"),  # the only move a suit alone can mean here
    ],
)
def test_words_name_the_moves_that_are_not_cards(typed: str, kind: str) -> None:
    assert parse_move(typed, LEAD).WhichOneof("kind") == kind


def test_the_marriage_names_its_suit() -> None:
    with pytest.raises(MoveInputError, match="no legal move matches"):
        parse_move("marriage spades", LEAD)


@pytest.mark.parametrize("typed", ["zz", "play the queen", "1h", "11s", "q"])
def test_unknown_words_are_refused_with_a_hint(typed: str) -> None:
    with pytest.raises(MoveInputError, match="I don't understand") as refused:
        parse_move(typed, LEAD)
    assert not isinstance(refused.value, NotLegalNow)


def test_empty_input_asks_for_a_move() -> None:
    with pytest.raises(MoveInputError, match="type a move"):
        parse_move("   ", LEAD)


def test_a_card_that_is_no_legal_play_is_handed_over_for_the_server_to_explain() -> None:
    with pytest.raises(NotLegalNow, match="A♣ is not a legal play now") as refused:
        parse_move("AC", LEAD)
    assert refused.value.move == play("AC")


def test_a_card_outside_the_card_play_phase_is_simply_refused() -> None:
    bids = [call("pass"), call("declare"), call("reveal")]
    with pytest.raises(MoveInputError) as refused:
        parse_move("AC", bids)
    assert not isinstance(refused.value, NotLegalNow)


def test_calls_are_named_by_their_word() -> None:
    calls = [call("pass"), call("declare"), call("reveal")]
    assert parse_move("reveal", calls) == call("reveal")
    assert parse_move("call pass", calls) == call("pass")
    assert parse_move("Pass", calls) == call("pass")


def test_bid_cards_are_named_in_any_order_and_must_be_exactly_one_choice() -> None:
    choices = [lay("7C", "QH", "AS"), lay("7C", "QH", "KD"), lay("QH", "AS", "KD")]
    assert parse_move("as 7c qh", choices) == lay("7C", "QH", "AS")
    assert parse_move("lay aside K♦, A♠, Q♥", choices) == lay("QH", "AS", "KD")
    with pytest.raises(MoveInputError, match="could be 3 moves"):
        parse_move("lay aside", choices)  # too little said
    with pytest.raises(MoveInputError, match="no legal move matches"):
        parse_move("7c qh", choices)  # two cards are no choice of three


def test_the_joker_is_jk() -> None:
    joker = cards_pb2.Card(suit=cards_pb2.SUIT_UNSPECIFIED, rank=cards_pb2.RANK_JOKER)
    legal = [Move(play_card=moves_pb2.PlayCard(card=joker)), play("AH")]
    assert parse_move("jk", legal) == legal[0]
    assert parse_move("Joker", legal) == legal[0]
    assert describe_move(legal[0]) == "play Jk"


def test_nominations_bids_read_numbers_and_contracts() -> None:
    legal = [
        call("pass"),
        Move(bid=moves_pb2.Bid(contract="tricks", tricks=10)),
        Move(bid=moves_pb2.Bid(contract="tricks", tricks=11)),
        Move(bid=moves_pb2.Bid(contract="misere")),
        Move(bid=moves_pb2.Bid(contract="open_misere")),
    ]
    assert parse_move("bid 11", legal) == legal[2]
    assert parse_move("10 tricks", legal) == legal[1]
    assert parse_move("misère", legal) == legal[3]
    assert parse_move("bid misere", legal) == legal[3]
    assert parse_move("open misere", legal) == legal[4]
    assert parse_move("open-misère", legal) == legal[4]
    assert parse_move("2", legal) == legal[1], "a number alone is the move's number"
    with pytest.raises(MoveInputError, match="could be 4 moves"):
        parse_move("bid", legal)


def test_a_contract_needs_its_trumps_and_its_called_card() -> None:
    legal = [
        contract(suit, called)
        for suit in (cards_pb2.SUIT_SPADES, cards_pb2.SUIT_HEARTS, cards_pb2.SUIT_UNSPECIFIED)
        for called in ("AH", "KD")
    ]
    assert parse_move("spades AH", legal) == contract(cards_pb2.SUIT_SPADES, "AH")
    assert parse_move("a♥ ♠", legal) == contract(cards_pb2.SUIT_SPADES, "AH")
    assert parse_move("nt KD", legal) == contract(cards_pb2.SUIT_UNSPECIFIED, "KD")
    assert parse_move("no trump kd", legal) == contract(cards_pb2.SUIT_UNSPECIFIED, "KD")
    with pytest.raises(MoveInputError, match="could be 3 moves") as ambiguous:
        parse_move("AH", legal)
    assert "1. trumps ♠, call A♥" in str(ambiguous.value)
    with pytest.raises(MoveInputError, match="one suit only"):
        parse_move("spades hearts AH", legal)


def test_an_ambiguous_answer_lists_a_few_candidates_and_how_many_more() -> None:
    called = ("AH", "KD", "QS", "JC", "TH", "9D", "8S", "7C")
    legal = [contract(s, c) for s in (1, 2, 3, 4) for c in called]
    with pytest.raises(MoveInputError, match=r"could be 8 moves: .* and 2 more$"):
        parse_move("hearts", legal)


def test_seats_cuts_and_draws() -> None:
    seats = [Move(choose_seat=moves_pb2.ChooseSeat(seat=n)) for n in (0, 1, 2)]
    assert parse_move("seat 2", seats) == seats[2]
    assert parse_move("lead 0", seats) == seats[0]
    cuts = [Move(cut=moves_pb2.Cut(depth=d)) for d in (1, 12, 40)]
    assert parse_move("cut 12", cuts) == cuts[1]
    draw = [Move(draw_cards=moves_pb2.DrawCards()), Move(close_stock=moves_pb2.CloseStock())]
    assert parse_move("draw", draw) == draw[0]


def test_no_legal_moves_means_nothing_to_type() -> None:
    with pytest.raises(MoveInputError, match="no move to make"):
        parse_move("1", [])


@pytest.mark.parametrize(
    ("move", "label"),
    [
        (play("TH"), "play 10♥"),
        (lay("7C", "QH", "AS"), "lay aside 7♣ Q♥ A♠"),
        (call("pass"), "pass"),
        (Move(choose_seat=moves_pb2.ChooseSeat(seat=2)), "choose seat 2"),
        (
            Move(declare_marriage=moves_pb2.DeclareMarriage(suit=cards_pb2.SUIT_CLUBS)),
            "declare the ♣ marriage",
        ),
        (Move(bid=moves_pb2.Bid(contract="tricks", tricks=12)), "bid 12 tricks"),
        (Move(bid=moves_pb2.Bid(contract="open_misere")), "bid open misère"),
        (contract(cards_pb2.SUIT_UNSPECIFIED, "KD"), "no trump, call K♦"),
        (contract(cards_pb2.SUIT_DIAMONDS, "KD"), "trumps ♦, call K♦"),
        (Move(cut=moves_pb2.Cut(depth=7)), "cut 7"),
    ],
)
def test_every_move_has_a_short_label(move: Move, label: str) -> None:
    assert describe_move(move) == label


def test_every_label_reads_back_as_its_move() -> None:
    """What the menu shows can be typed back."""
    legal = [*LEAD, lay("7C", "QH", "AS"), call("pass")]
    for move in legal:
        if move.WhichOneof("kind") in {"exchange_trump", "close_stock", "claim"}:
            continue  # labelled in a sentence; their one word is tested above
        assert parse_move(describe_move(move), legal) == move


def test_parse_card_says_none_for_what_is_not_a_card() -> None:
    assert parse_card("xx") is None
    assert parse_card("1s") is None
    assert parse_card("10♦") == C.card("TD")
