"""The terminal renderings: every game's views, rendered for each seat and the spectator at the
start, mid-trick, in each phase and at the end of a real game on a real server, show the viewer's
own hand and no card the view does not hold (so none of another seat's hidden cards); every
event line shows only its event's cards; and the game-specific details read as they should."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import pytest
from google.protobuf.message import Message
from rich.console import Console, RenderableType
from tricktable import cards as C
from tricktable.bots import RandomBot
from tricktable.client import Client, Seat
from tricktable.render import (
    Seats,
    clock_text,
    event_line,
    hand_groups,
    render_moves,
    render_view,
    result_text,
)
from tricktable.v1 import cards_pb2, clocks_pb2, events_pb2, moves_pb2, values_pb2, views_pb2

pytestmark = pytest.mark.usefixtures("game_facts")

CardKey = tuple[int, int]

#: A card as the renderings write it: Q♠, 10♥, Jk.
CARD = re.compile(r"(10|[2-9JQKA])([♣♥♠♦])|\bJk\b")
_SUIT = {sym: suit for suit, sym in C.SUIT_SYMBOLS.items()}
_RANK = {"J": C.JACK, "Q": C.QUEEN, "K": C.KING, "A": C.ACE}

#: Short games, so that whole games stay quick.
SHORT: dict[str, dict[str, bool | int | str]] = {
    "ninety-nine": {"game_length_deals": 2},
    "counterpoint": {"target_score": 40},
    "sixty-six": {"target_game_points": 3},
    "nominations": {"end_mode": "deals", "deal_count": 2},
}


def text_of(renderable: RenderableType) -> str:
    out = io.StringIO()
    Console(file=out, width=160, color_system=None).print(renderable)
    return out.getvalue()


def cards_shown(text: str) -> set[CardKey]:
    shown: set[CardKey] = set()
    for found in CARD.finditer(text):
        if found.group(0) == "Jk":
            shown.add((cards_pb2.SUIT_UNSPECIFIED, C.JOKER))
        else:
            rank = found.group(1)
            shown.add(
                (_SUIT[found.group(2)], C.TEN if rank == "10" else _RANK.get(rank) or int(rank))
            )
    return shown


def cards_in(message: Message) -> set[CardKey]:
    """Every card anywhere in a message (a Card is any message with a set rank)."""
    if isinstance(message, cards_pb2.Card):
        return {C.key(message)} if message.rank else set()
    found: set[CardKey] = set()
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        for item in value if field.is_repeated else [value]:
            found |= cards_in(item)
    return found


def own_hand(view: views_pb2.View) -> set[CardKey]:
    seat = view.seats[view.viewer]
    return {C.key(c) for c in seat.hand.cards}


# -- whole games on a real server --------------------------------------------------------------


def played(client: Client, game: str) -> Iterator[tuple[str, list[Seat], str]]:
    """Play a game with seeded random bots; yield (moment, seats, game_id) at the start, at the
    first card on the table, the first time each phase is seen, mid-deal, and at the end."""
    created = client.create(game, SHORT[game], seed=f"render:{game}".encode())
    seats = [client.join(created.game_id, n, f"p{n}") for n in range(len(created.seats))]
    bots = [RandomBot(f"render:{n}") for n in range(len(seats))]
    yield "start", seats, created.game_id
    phases: set[str] = set()
    moments: set[str] = set()
    for _ in range(5000):
        public = client.get(created.game_id).view
        if public.finished:
            break
        if public.phase not in phases:
            phases.add(public.phase)
            yield f"phase {public.phase}", seats, created.game_id
        if public.trick.cards and "mid-trick" not in moments:
            moments.add("mid-trick")
            yield "mid-trick", seats, created.game_id
        tricks = sum(s.tricks_won for s in public.seats)
        if tricks >= 3 and public.trick.cards and "mid-deal" not in moments:
            moments.add("mid-deal")
            yield "mid-deal", seats, created.game_id
        for number in sorted(public.to_act):
            state = seats[number].get()
            move = bots[number](state.view, list(state.view.legal_moves))
            if move is not None:
                seats[number].submit(move, state.game.version)
                break
    assert client.get(created.game_id).view.finished
    yield "end", seats, created.game_id


@pytest.mark.parametrize("game", sorted(SHORT))
def test_each_viewer_sees_their_hand_and_no_card_their_view_does_not_hold(
    client: Client, game: str
) -> None:
    moments = []
    for moment, seats, game_id in played(client, game):
        moments.append(moment)
        views = [seat.get().view for seat in seats]
        hands = [own_hand(v) for v in views]
        spectator = client.get(game_id).view
        names = [s.player_name for s in client.get(game_id).game.seats]
        for viewer, view in [*enumerate(views), (None, spectator)]:
            text = text_of(render_view(view, names))
            shown = cards_shown(text)
            held = cards_in(view)
            hidden = set().union(*(h for n, h in enumerate(hands) if n != viewer)) - held
            assert shown <= held, f"{game} {moment}: {viewer} shown {shown - held}"
            assert not shown & hidden
            if viewer is None:
                assert "Your hand" not in text and not view.legal_moves
                continue
            assert hands[viewer] <= shown, f"{game} {moment}: seat {viewer} misses its hand"
            if moment == "start":
                assert "Your hand" in text and hidden, "the others' hands are hidden at the start"
            moves = text_of(render_moves(list(view.legal_moves)))
            assert cards_shown(moves) <= cards_in(view)
    assert {"start", "mid-trick", "mid-deal", "end"} <= set(moments)


@pytest.mark.parametrize("game", sorted(SHORT))
def test_every_event_line_shows_only_its_event_cards(client: Client, game: str) -> None:
    *_, (_, seats, game_id) = played(client, game)
    kinds: set[str] = set()
    for viewer, token in [*((s.seat, s.token) for s in seats), (None, None)]:
        for batch in client.stream(game_id, token):
            for event in batch.events:
                line = event_line(event, Seats(viewer)).plain
                kinds.add(event.WhichOneof("kind") or "")
                assert line[:1].isupper() and "\n" not in line
                assert cards_shown(line) <= cards_in(event), line
    assert {"deal_started", "card_played", "trick_won", "deal_scored", "game_over"} <= kinds
    final = client.get(game_id).view
    result = result_text(final).plain
    assert result.startswith("Game over.")
    for seat in final.seats:
        assert f"seat {seat.seat} {seat.score}" in result


# -- details, on views and events built by hand -------------------------------------------------


def card(name: str) -> cards_pb2.Card:
    return C.card(name)


def test_a_spectator_table_has_no_hand_and_a_seat_table_marks_who_acts() -> None:
    seats = [views_pb2.SeatView(seat=n, hand_size=13, score=10 * n) for n in range(2)]
    spectator = views_pb2.View(game="counterpoint", phase="play", seats=seats, to_act=[1])
    text = text_of(render_view(spectator, ["ann", "bob"]))
    assert "Your hand" not in text and not cards_shown(text)
    assert "▶    seat 1 (bob)" in text and "To act: seat 1 (bob)" in text
    mine = views_pb2.View()
    mine.CopyFrom(spectator)
    mine.viewer = 1
    mine.seats[1].hand.cards.extend([card("TS"), card("AS"), card("KS"), card("7H")])
    text = text_of(render_view(mine, ["ann", "bob"]))
    assert "Your hand: A♠ 10♠ K♠   7♥" in text, "Counterpoint's Ten ranks between A and K"
    assert "To act: you" in text


def test_a_hand_is_drawn_trumps_first_in_alternating_colours_with_the_joker_last() -> None:
    hand = [card("2C"), card("KD"), card("Jk"), card("TH"), card("JH"), card("9S")]
    groups = hand_groups(hand, "ninety-nine", cards_pb2.SUIT_DIAMONDS)
    assert [[C.label(c) for c in g] for g in groups] == [
        ["K♦"],
        ["9♠"],
        ["J♥", "10♥"],
        ["2♣"],
        ["Jk"],
    ]


def test_ninety_nine_shows_premium_calls_the_joker_and_an_exposed_hand() -> None:
    view = views_pb2.View(
        game="ninety-nine",
        viewer=0,
        phase="play",
        trump=cards_pb2.SUIT_HEARTS,
        turn_up=card("7H"),
        seats=[
            views_pb2.SeatView(seat=0, hand_size=1, hand=cards_pb2.CardList(cards=[card("AS")])),
            views_pb2.SeatView(
                seat=1, hand_size=2, hand=cards_pb2.CardList(cards=[card("KC"), card("Jk")])
            ),
            views_pb2.SeatView(seat=2, hand_size=1),
        ],
        ninety_nine_detail=views_pb2.NinetyNineDetail(
            edition="classic",
            eldest=1,
            calls=[
                values_pb2.OptionalString(value="pass"),
                values_pb2.OptionalString(value="reveal"),
                values_pb2.OptionalString(),
            ],
            premium_seat=1,
            premium="reveal",
            joker_as=card("7H"),
        ),
    )
    text = text_of(render_view(view))
    assert "Ninety-Nine (classic)" in text and "Turn-up: 7♥" in text
    assert "Premium calls: you pass, seat 1 reveal" in text
    assert "Premium: seat 1 reveals" in text
    assert "Seat 1's hand, face up: K♣   Jk" in text
    assert "The joker stands for 7♥" in text


def test_sixty_six_shows_the_stock_the_close_marriages_and_known_cards() -> None:
    view = views_pb2.View(
        game="sixty-six",
        viewer=1,
        phase="lead",
        seats=[views_pb2.SeatView(seat=0, hand_size=5), views_pb2.SeatView(seat=1, hand_size=5)],
        sixty_six_detail=views_pb2.SixtySixDetail(
            preset="gamefarm",
            stock_size=6,
            stock_state="closed",
            closer=0,
            closer_opponent_tricks=2,
            marriages=[
                views_pb2.MarriageView(
                    seat=0, suit=cards_pb2.SUIT_CLUBS, points=20, cards=[card("KC"), card("QC")]
                )
            ],
            marriage_suit=cards_pb2.SUIT_CLUBS,
            target_game_points=7,
            carry=1,
            known_cards=[
                cards_pb2.SeatCards(visible=True, cards=[card("QC")]),
                cards_pb2.SeatCards(visible=True),
            ],
        ),
    )
    text = text_of(render_view(view, ["ann", "bob"]))
    assert "Stock: 6 cards, closed by seat 0 (ann) (the other side had 2 tricks)" in text
    assert "1 carried over" in text
    assert "Marriage: seat 0 (ann) ♣ 20 (counts once a trick is won) K♣ Q♣" in text
    assert "The lead must be the King or Queen of the marriage in ♣" in text
    assert "Known to be in seat 0 (ann)'s hand: Q♣" in text


def test_nominations_shows_the_auction_the_contract_and_the_partner_as_known() -> None:
    detail = views_pb2.NominationsDetail(
        first_caller=3,
        auction=["pass", "10", "misere"],
        high_bid="misere",
        high_bidder=1,
        declarer=1,
        contract="11",
        partner_status="you_hold_called_card",
        multiplier=2,
        double_hand=True,
        called=card("AH"),
    )
    view = views_pb2.View(
        game="nominations",
        viewer=2,
        phase="play",
        trump=cards_pb2.SUIT_SPADES,
        seats=[views_pb2.SeatView(seat=n, hand_size=13) for n in range(4)],
        nominations_detail=detail,
    )
    text = text_of(render_view(view))
    assert "Auction: seat 3 pass, seat 0 10 tricks, seat 1 misère" in text
    assert "Contract: seat 1, 11 tricks, called card A♥" in text
    assert "You hold the called card" in text
    assert "Scores ×2, double hand" in text
    view.nominations_detail.partner = 2
    view.nominations_detail.side_tricks = 4
    assert "Partner: you (the declarer's side has 4 tricks)" in text_of(render_view(view))


def test_the_last_deal_is_a_table_of_bids_takes_and_points() -> None:
    scored = events_pb2.DealScored(
        deal_no=3,
        bids=[
            values_pb2.OptionalInt32(value=2),
            values_pb2.OptionalInt32(),
            values_pb2.OptionalInt32(value=4),
        ],
        taken=[2, 3, 4],
        made=[
            values_pb2.OptionalBool(value=True),
            values_pb2.OptionalBool(value=False),
            values_pb2.OptionalBool(value=True),
        ],
        points=[32, 3, 34],
        totals=[50, 3, 60],
        bid_cards=[
            cards_pb2.SeatCards(visible=True, cards=[card("QH"), card("8D"), card("AD")]),
            cards_pb2.SeatCards(),
            cards_pb2.SeatCards(),
        ],
    )
    view = views_pb2.View(
        game="ninety-nine",
        seats=[views_pb2.SeatView(seat=n) for n in range(3)],
        ninety_nine_detail=views_pb2.NinetyNineDetail(last_deal=scored),
    )
    rows = [line.split() for line in text_of(render_view(view)).splitlines()]
    assert ["│", "seat", "0", "2", "2", "yes", "32", "50", "Q♥", "8♦", "A♦", "│"] in rows
    assert ["│", "seat", "1", "?", "3", "no", "3", "3", "│"] in rows


@pytest.mark.parametrize(
    ("event", "viewer", "line"),
    [
        (
            events_pb2.Event(card_played=events_pb2.CardPlayed(seat=1, card=card("QS"))),
            0,
            "Seat 1 plays Q♠",
        ),
        (
            events_pb2.Event(card_played=events_pb2.CardPlayed(seat=1, card=card("QS"))),
            1,
            "You play Q♠",
        ),
        (
            events_pb2.Event(
                card_played=events_pb2.CardPlayed(seat=2, card=card("Jk"), as_card=card("AH"))
            ),
            None,
            "Seat 2 plays Jk as A♥",
        ),
        (
            events_pb2.Event(
                trick_won=events_pb2.TrickWon(
                    trick_no=4, winner=0, cards=[card("TH"), card("9H")], points=10
                )
            ),
            0,
            "You win trick 4: 10♥ 9♥ (10 points)",
        ),
        (
            events_pb2.Event(cards_laid_aside=events_pb2.CardsLaidAside(seat=2, count=3)),
            0,
            "Seat 2 lays 3 cards aside",
        ),
        (
            events_pb2.Event(
                cards_laid_aside=events_pb2.CardsLaidAside(
                    seat=0, count=3, cards=cards_pb2.CardList(cards=[card("7C")])
                )
            ),
            0,
            "You lay 3 cards aside: 7♣",
        ),
        (
            events_pb2.Event(card_drawn=events_pb2.CardDrawn(seat=1, stock_left=9)),
            0,
            "Seat 1 draws a card (9 left in the stock)",
        ),
        (
            events_pb2.Event(
                card_drawn=events_pb2.CardDrawn(seat=1, stock_left=0, face_up=True, card=card("9D"))
            ),
            0,
            "Seat 1 draws the turn-up 9♦ (0 left in the stock)",
        ),
        (
            events_pb2.Event(bid_made=events_pb2.BidMade(seat=3, contract="open_misere")),
            0,
            "Seat 3 bids open misère",
        ),
        (
            events_pb2.Event(bid_made=events_pb2.BidMade(seat=3, contract="tricks", tricks=11)),
            3,
            "You bid 11 tricks",
        ),
        (
            events_pb2.Event(called=events_pb2.Called(seat=0, call="pass", automatic=True)),
            1,
            "Seat 0 calls pass (automatic)",
        ),
        (
            events_pb2.Event(
                contract_declared=events_pb2.ContractDeclared(
                    declarer=1, trump=cards_pb2.SUIT_UNSPECIFIED, called=card("KD")
                )
            ),
            0,
            "Seat 1 declares no trump and calls K♦",
        ),
        (
            events_pb2.Event(partner_notice=events_pb2.PartnerNotice(holder=2, called=card("KD"))),
            2,
            "The called card is K♦: you hold it",
        ),
        (
            events_pb2.Event(partner_notice=events_pb2.PartnerNotice(called=card("KD"))),
            None,
            "The called card is K♦",
        ),
        (
            events_pb2.Event(partner_revealed=events_pb2.PartnerRevealed(declarer=1, partner=2)),
            1,
            "Seat 2 is your partner",
        ),
        (
            events_pb2.Event(partner_revealed=events_pb2.PartnerRevealed(declarer=1)),
            0,
            "Seat 1 plays alone",
        ),
        (
            events_pb2.Event(stock_closed=events_pb2.StockClosed(seat=0, before_draw=True)),
            0,
            "You close the stock before drawing",
        ),
        (
            events_pb2.Event(game_over=events_pb2.GameOver(totals=[7, 3], winners=[0])),
            1,
            "Game over: seat 0 won. Totals: seat 0 7, you 3",
        ),
        (
            events_pb2.Event(timed_out=events_pb2.TimedOut(seat=1, auto_move=True)),
            1,
            "You run out of time: the server moves for you",
        ),
        (
            events_pb2.Event(timed_out=events_pb2.TimedOut(seat=0, auto_move=False)),
            None,
            "Seat 0 runs out of time and forfeits",
        ),
    ],
)
def test_an_event_reads_as_one_line_for_its_viewer(
    event: events_pb2.Event, viewer: int | None, line: str
) -> None:
    assert event_line(event, Seats(viewer)).plain == line


def test_a_long_list_of_moves_is_summed_up_with_an_example() -> None:
    hand = [card(n) for n in ("7C", "QH", "AS", "KD", "9S", "TC")]
    lay = [
        moves_pb2.Move(lay_aside=moves_pb2.LayAside(cards=[a, b, c]))
        for i, a in enumerate(hand)
        for j, b in enumerate(hand[i + 1 :], start=i + 1)
        for c in hand[j + 1 :]
    ]
    text = text_of(render_moves(lay))
    assert "1–20. lay cards aside" in text and "(20 choices), e.g. lay aside 7♣ Q♥ A♠" in text
    plays = [moves_pb2.Move(play_card=moves_pb2.PlayCard(card=c)) for c in hand[:3]]
    text = text_of(render_moves([*plays, moves_pb2.Move(claim=moves_pb2.Claim())]))
    assert " 1. play 7♣" in text and " 4. claim" in text


def test_names_keep_their_capitals_where_a_sentence_starts_with_them() -> None:
    played = events_pb2.Event(card_played=events_pb2.CardPlayed(seat=0, card=card("QS")))
    assert event_line(played, Seats(None, ["McBob"])).plain == "Seat 0 (McBob) plays Q♠"
    seats = [
        views_pb2.SeatView(seat=0, hand=cards_pb2.CardList(cards=[card("AS")])),
        views_pb2.SeatView(seat=1),
    ]
    view = views_pb2.View(game="nominations", viewer=1, seats=seats)
    assert "Seat 0 (McBob)'s hand, face up: A♠" in text_of(render_view(view, ["McBob", "Al"]))


def test_clocks_show_the_time_left_who_runs_and_timeouts() -> None:
    running = clocks_pb2.SeatClock(
        seat=0, move_ms_left=4500, bank_ms_left=65_000, running=True, deadline_ms=100_000
    )
    stopped = clocks_pb2.SeatClock(seat=1, move_ms_left=5000, timeouts=2)
    assert clock_text(running) == "▶ 0:04.5 +1:05"
    assert clock_text(stopped) == "0:05.0 (2 timeouts)"
    # Counted down to a given server time: the move time first, then the bank.
    assert clock_text(running, now_ms=100_000 - 30_000) == "▶ 0:00.0 +0:30"
    seats = [views_pb2.SeatView(seat=n, hand_size=5) for n in range(2)]
    view = views_pb2.View(game="sixty-six", seats=seats, to_act=[0], clocks=[running, stopped])
    text = text_of(render_view(view, ["ann", "bob"]))
    assert "clock" in text and "▶ 0:04.5 +1:05" in text and "(2 timeouts)" in text


def _deal_rows(
    game: str, scored: events_pb2.DealScored, detail: str
) -> tuple[str, list[list[str]]]:
    """The rendered table's text and its rows split into cells, for a view of ``game`` whose
    last deal is ``scored``."""
    seats = len(scored.totals)
    view = views_pb2.View(game=game, seats=[views_pb2.SeatView(seat=n) for n in range(seats)])
    getattr(view, detail).last_deal.CopyFrom(scored)
    text = text_of(render_view(view))
    return text, [line.split() for line in text.splitlines()]


def test_a_typed_ninety_nine_result_shows_bids_tricks_and_the_premium() -> None:
    scored = events_pb2.DealScored(
        deal_no=2,
        points=[32, 3, 4],
        totals=[40, 3, 4],
        ninety_nine=events_pb2.NinetyNineDealResult(
            bids=[
                values_pb2.OptionalInt32(value=2),
                values_pb2.OptionalInt32(),  # hidden: missed, no premium
                values_pb2.OptionalInt32(value=4),
            ],
            tricks=[2, 3, 4],
            made=[True, False, False],
            contract_bonus=30,
            premium_seat=0,
            premium="declare",
            premium_value=30,
        ),
    )
    text, rows = _deal_rows("ninety-nine", scored, "ninety_nine_detail")
    assert "Deal 2 result · premium: seat 0 declare" in text
    assert ["│", "seat", "0", "2", "2", "yes", "32", "40", "│"] in rows
    assert ["│", "seat", "1", "?", "3", "no", "3", "3", "│"] in rows


def test_a_typed_counterpoint_result_shows_bids_points_errors_and_bonuses() -> None:
    scored = events_pb2.DealScored(
        deal_no=1,
        points=[31, 5],
        totals=[31, 5],
        counterpoint=events_pb2.CounterpointDealResult(
            bids=[60, 40], card_points=[61, 59], errors=[1, 19], bonuses=[20, 0]
        ),
    )
    text, rows = _deal_rows("counterpoint", scored, "counterpoint_detail")
    assert "error" in text and "bonus" in text
    assert ["│", "seat", "0", "60", "61", "1", "20", "31", "31", "│"] in rows


def test_a_typed_sixty_six_result_says_why_who_scores_and_the_carry() -> None:
    scored = events_pb2.DealScored(
        deal_no=4,
        points=[0, 3],
        totals=[2, 5],
        sixty_six=events_pb2.SixtySixDealResult(
            reason=events_pb2.SIXTY_SIX_REASON_FALSE_OUT,
            counts=[52, 40],
            tricks=[3, 2],
            claimant=0,
            scorer=1,
            award=2,
            carry_taken=1,
        ),
    )
    text, rows = _deal_rows("sixty-six", scored, "sixty_six_detail")
    assert "Deal 4 result · false out: seat 1 scores 2 + 1 carried" in text
    assert ["│", "seat", "0", "52", "3", "0", "2", "│"] in rows


def test_a_typed_nominations_result_names_the_contract_and_the_multiplier() -> None:
    scored = events_pb2.DealScored(
        deal_no=5,
        points=[20, 20, 0, 0],
        totals=[20, 20, 0, 0],
        nominations=events_pb2.NominationsDealResult(
            declarer=0,
            contract="tricks",
            bid_tricks=9,
            partner=1,
            made=True,
            value=10,
            multiplier=2,
            tricks=[5, 4, 2, 2],
        ),
    )
    text, _ = _deal_rows("nominations", scored, "nominations_detail")
    assert "Deal 5 result · seat 0 9 tricks, made, ×2" in text
    passed = events_pb2.DealScored(
        deal_no=6,
        points=[0] * 4,
        totals=[20, 20, 0, 0],
        nominations=events_pb2.NominationsDealResult(all_passed=True, multiplier=1),
    )
    assert (
        "Deal 6 result · everybody passed"
        in _deal_rows("nominations", passed, "nominations_detail")[0]
    )


def test_a_deal_scored_event_line_reads_the_typed_result() -> None:
    scored = events_pb2.DealScored(
        deal_no=4,
        points=[0, 3],
        totals=[2, 5],
        sixty_six=events_pb2.SixtySixDealResult(
            reason=events_pb2.SIXTY_SIX_REASON_OUT,
            counts=[40, 70],
            tricks=[2, 3],
            scorer=1,
            award=3,
        ),
    )
    line = event_line(events_pb2.Event(deal_scored=scored), Seats(0, []))
    assert line.plain == (
        "Deal 4 scored (out: seat 1 scores 3) — "
        "you: count 40 tricks 2 +0 = 2; seat 1: count 70 tricks 3 +3 = 5"
    )
