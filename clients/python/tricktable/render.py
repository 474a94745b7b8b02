"""Terminal renderings (rich) of what one viewer of a game receives: the table, one line per event,
the legal moves and the final result.

    console.print(render_view(view, names))       # the table as this viewer sees it
    console.print(event_line(event, Seats(view.viewer, names)))
    console.print(render_moves(view.legal_moves))

Everything drawn comes from the message given, which the server has already projected for its
viewer: a spectator's view holds no hand, so none is drawn. Nothing is looked up elsewhere, so a
rendering can never show more than the viewer was sent. Cards are written ``Q♠``, ``10♥``,
``Jk`` (the Joker), red suits in red.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeAlias

from google.protobuf.message import Message
from rich import box
from rich.columns import Columns
from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from tricktable import cards as C
from tricktable import facts
from tricktable.legal import LegalMoves
from tricktable.move_text import contract_text, describe_move
from tricktable.v1 import cards_pb2, clocks_pb2, events_pb2, moves_pb2, values_pb2, views_pb2

Card = cards_pb2.Card
Suit: TypeAlias = cards_pb2.Suit.ValueType
View = views_pb2.View
Event = events_pb2.Event
Move = moves_pb2.Move

TITLES = {
    "ninety-nine": "Ninety-Nine",
    "counterpoint": "Counterpoint",
    "sixty-six": "Sixty-Six",
    "nominations": "Nominations",
}
#: The order suits are drawn in: colours alternate, and the trump suit comes first.
_SUIT_CYCLE = (C.SPADES, C.HEARTS, C.CLUBS, C.DIAMONDS)
#: A kind of move with more legal moves than this is summed up instead of listed.
_LISTED_PER_KIND = 16

_PARTNER_STATUS = {
    "unknown": "the partner is not known yet",
    "you_are_partner": "you are the declarer's partner",
    "you_hold_called_card": "you hold the called card",
    "revealed": "the partner is known",
    "solo": "the declarer plays alone",
}


# -- cards ------------------------------------------------------------------------------------


def card_style(card: Card) -> str:
    if card.rank == C.JOKER:
        return "bold magenta"
    return "bold red" if card.suit in (C.HEARTS, C.DIAMONDS) else "bold"


def card_text(card: Card) -> Text:
    return Text(C.label(card), style=card_style(card))


def cards_text(cards: Iterable[Card], separator: str = " ") -> Text:
    shown = [card_text(c) for c in cards]
    return Text(separator).join(shown) if shown else Text("none", style="dim")


def suit_text(suit: Suit) -> Text:
    if suit == C.NO_SUIT:
        return Text("no trump")
    style = "bold red" if suit in (C.HEARTS, C.DIAMONDS) else "bold"
    return Text(C.SUIT_SYMBOLS[suit], style=style)


def hand_groups(cards: Iterable[Card], game: str, trump: Suit) -> list[list[Card]]:
    """A hand by suit (trumps first, colours alternating), strongest first; the Joker last."""
    start = _SUIT_CYCLE.index(trump) if trump in _SUIT_CYCLE else 0
    order = _SUIT_CYCLE[start:] + _SUIT_CYCLE[:start]
    held = list(cards)
    strength = facts.of(game).strength
    groups = [
        sorted(
            (c for c in held if c.suit == suit and c.rank != C.JOKER), key=lambda c: -strength(c)
        )
        for suit in order
    ]
    groups.append([c for c in held if c.rank == C.JOKER])
    return [g for g in groups if g]


def hand_text(cards: Iterable[Card], game: str, trump: Suit) -> Text:
    groups = [cards_text(g) for g in hand_groups(cards, game, trump)]
    return Text("   ").join(groups) if groups else Text("no cards", style="dim")


# -- seats ------------------------------------------------------------------------------------


def sentence(text: str) -> str:
    """``text`` with a capital first letter (and the rest, names included, left alone)."""
    return text[:1].upper() + text[1:]


class Seats:
    """How one viewer's screen names seats: "you" for the viewer, else "seat N (name)"."""

    def __init__(self, viewer: int | None = None, names: Sequence[str] = ()) -> None:
        self.viewer = viewer
        self.names = list(names)

    def label(self, seat: int) -> str:
        if seat == self.viewer:
            return "you"
        name = self.names[seat] if 0 <= seat < len(self.names) else ""
        return f"seat {seat} ({name})" if name else f"seat {seat}"

    def does(self, seat: int, third_person: str, second_person: str) -> str:
        """``"seat 1 plays"`` or ``"you play"``."""
        verb = second_person if seat == self.viewer else third_person
        return f"{self.label(seat)} {verb}"

    def possessive(self, seat: int) -> str:
        return "your" if seat == self.viewer else f"{self.label(seat)}'s"

    def many(self, seats: Iterable[int]) -> str:
        return ", ".join(self.label(s) for s in seats) or "nobody"


def _seats_for(view: View, names: Sequence[str]) -> Seats:
    return Seats(view.viewer if view.HasField("viewer") else None, names)


# -- the table --------------------------------------------------------------------------------


def render_view(view: View, names: Sequence[str] = ()) -> RenderableType:
    """The table as ``view``'s viewer sees it: seats and scores, the trick on the table and the
    last one, what is special to the game, the viewer's hand, and the last deal's result. The
    end of a game is told by :func:`result_text`."""
    seats = _seats_for(view, names)
    parts: list[RenderableType] = [_info_line(view, seats), _seat_table(view, seats)]
    parts += _trick_lines(view, seats)
    parts += _detail_lines(view, seats)
    parts += _visible_cards(view, seats)
    last = _last_deal(view)
    if last is not None:
        parts.append(render_deal_scored(last, seats, _taken_label(view.game)))
    return Panel(
        Group(*parts), title=_title(view), title_align="left", box=box.ROUNDED, expand=False
    )


def _title(view: View) -> Text:
    title = Text(TITLES.get(view.game, view.game), style="bold")
    edition = _edition(view)
    if edition:
        title.append(f" ({edition})")
    if view.deal_no:
        title.append(f" · deal {view.deal_no}")
    if view.phase:
        title.append(f" · {view.phase.replace('_', ' ')}")
    return title


def _edition(view: View) -> str:
    detail = view.WhichOneof("detail")
    if detail == "ninety_nine_detail":
        return view.ninety_nine_detail.edition
    if detail == "sixty_six_detail":
        return view.sixty_six_detail.preset
    return ""


def _info_line(view: View, seats: Seats) -> Text:
    line = Text()
    line.append(f"Dealer: {seats.label(view.dealer)}   Trumps: ")
    # SUIT_UNSPECIFIED is "no trump, or not known yet": "none" says no more than that.
    line.append_text(suit_text(view.trump) if view.trump != C.NO_SUIT else Text("none"))
    if _has_card(view, "turn_up"):
        line.append("   Turn-up: ")
        line.append_text(card_text(view.turn_up))
    if view.finished:
        line.append("   The game is over.", style="bold")
    elif view.to_act:
        line.append(f"   To act: {seats.many(view.to_act)}", style="bold")
    return line


def duration(ms: int) -> str:
    """A time left: ``1:05``, ``0:09.4`` under ten seconds."""
    seconds = max(0, ms) / 1000
    if seconds < 10:
        return f"0:{seconds:04.1f}"
    whole = int(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def clock_text(clock: clocks_pb2.SeatClock, now_ms: int | None = None) -> str:
    """A seat's clock: the move time left, the bank after a ``+``, a ``▶`` while it runs, and
    its timeouts. With ``now_ms`` (server time) a running clock is counted down to that
    moment; without, as the view was taken."""
    move_left, bank_left = clock.move_ms_left, clock.bank_ms_left
    if clock.running and now_ms is not None:
        left = max(0, clock.deadline_ms - now_ms)
        move_left, bank_left = max(0, left - bank_left), min(bank_left, left)
    text = duration(move_left) + (f" +{duration(bank_left)}" if bank_left else "")
    if clock.running:
        text = "▶ " + text
    if clock.timeouts:
        text += f" ({clock.timeouts} timeout{'s' if clock.timeouts > 1 else ''})"
    return text


def _has_card(message: Message, field: str) -> bool:
    """A set card field (a Card whose rank is set)."""
    return message.HasField(field) and getattr(message, field).rank != 0


def _seat_table(view: View, seats: Seats) -> Table:
    rows = list(view.seats)
    show_aside = any(s.aside_count for s in rows)
    show_bid = any(s.HasField("bid") for s in rows)
    show_points = any(s.HasField("points_taken") for s in rows)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("")
    table.add_column("seat")
    table.add_column("cards", justify="right")
    if show_aside:
        table.add_column("aside", justify="right")
    if show_bid:
        table.add_column("bid", justify="right")
    table.add_column("tricks", justify="right")
    if show_points:
        table.add_column("points", justify="right")
    table.add_column("score", justify="right")
    clocks = {c.seat: c for c in view.clocks}
    if clocks:
        table.add_column("clock", justify="right")
    for s in rows:
        marks = ("▶" if s.seat in view.to_act and not view.finished else " ") + (
            "D" if s.seat == view.dealer else " "
        )
        cells = [marks, seats.label(s.seat), str(s.hand_size)]
        if show_aside:
            cells.append(str(s.aside_count))
        if show_bid:
            cells.append(str(s.bid) if s.HasField("bid") else "?")
        cells.append(str(s.tricks_won))
        if show_points:
            cells.append(str(s.points_taken) if s.HasField("points_taken") else "?")
        cells.append(str(s.score))
        if clocks:
            cells.append(clock_text(clocks[s.seat]) if s.seat in clocks else "")
        table.add_row(*cells, style="bold" if s.seat == seats.viewer else None)
    return table


def trick_text(trick: views_pb2.TrickView, seats: Seats) -> Text:
    plays = [
        Text.assemble(f"{seats.label(seat)} ", card_text(card))
        for seat, card in zip(trick.seats, trick.cards, strict=False)
    ]
    return Text(" · ").join(plays) if plays else Text("no card yet", style="dim")


def _trick_lines(view: View, seats: Seats) -> list[Text]:
    lines: list[Text] = []
    if view.HasField("trick") and not view.finished:
        line = Text(f"On the table (led by {seats.label(view.trick.leader)}): ", style="bold")
        lines.append(line.append_text(trick_text(view.trick, seats)))
    if view.tricks:
        last = view.tricks[-1]
        won = f", won by {seats.label(last.winner)}" if last.HasField("winner") else ""
        line = Text(f"Last trick{won}: ")
        lines.append(line.append_text(trick_text(last, seats)))
    return lines


def _visible_cards(view: View, seats: Seats) -> list[Text]:
    """The cards of seats the viewer may see: their own hand and bid cards, and any exposed."""
    lines: list[Text] = []
    for s in view.seats:
        if s.HasField("aside") and s.aside.cards:
            line = Text(f"{sentence(seats.possessive(s.seat))} bid cards: ")
            lines.append(line.append_text(cards_text(s.aside.cards)))
    for s in view.seats:
        if s.seat != seats.viewer and s.HasField("hand") and s.hand.cards:
            line = Text(f"{sentence(seats.possessive(s.seat))} hand, face up: ")
            lines.append(line.append_text(hand_text(s.hand.cards, view.game, view.trump)))
    if seats.viewer is not None and seats.viewer < len(view.seats):
        own = view.seats[seats.viewer]
        if own.HasField("hand"):
            line = Text("Your hand: ", style="bold")
            lines.append(line.append_text(hand_text(own.hand.cards, view.game, view.trump)))
    return lines


# -- what is special to each game ---------------------------------------------------------------


def _detail_lines(view: View, seats: Seats) -> list[Text]:
    detail = view.WhichOneof("detail")
    if detail == "ninety_nine_detail":
        return _ninety_nine(view.ninety_nine_detail, seats)
    if detail == "counterpoint_detail":
        return [Text(f"Non-dealer: {seats.label(view.counterpoint_detail.non_dealer)}")]
    if detail == "sixty_six_detail":
        return _sixty_six(view.sixty_six_detail, seats, view.finished)
    if detail == "nominations_detail":
        return _nominations(view, view.nominations_detail, seats)
    return []


def _ninety_nine(d: views_pb2.NinetyNineDetail, seats: Seats) -> list[Text]:
    lines = [Text(f"Eldest hand: {seats.label(d.eldest)}")]
    if _has_card(d, "joker_as"):
        lines.append(Text("The joker stands for ").append_text(card_text(d.joker_as)))
    made = [(n, c.value) for n, c in enumerate(d.calls) if c.HasField("value")]
    if made:
        lines.append(Text("Premium calls: " + ", ".join(f"{seats.label(n)} {c}" for n, c in made)))
    if d.HasField("caller"):
        lines.append(Text(f"Premium call due from {seats.label(d.caller)}", style="bold"))
    if d.HasField("premium_seat") and d.HasField("premium"):
        lines.append(Text(f"Premium: {seats.does(d.premium_seat, d.premium + 's', d.premium)}"))
    return lines


def _sixty_six(d: views_pb2.SixtySixDetail, seats: Seats, finished: bool) -> list[Text]:
    stock = f"Stock: {d.stock_size} cards, {d.stock_state}"
    if d.HasField("closer"):
        stock += f" by {seats.label(d.closer)}"
        if d.HasField("closer_opponent_tricks"):
            stock += f" (the other side had {d.closer_opponent_tricks} tricks)"
    stock += f"   Match to {d.target_game_points} game points"
    if d.match_stakes > 1:
        stock += f", stakes ×{d.match_stakes}"
    if d.carry:
        stock += f", {d.carry} carried over"
    lines = [Text(stock)]
    for m in d.marriages:
        line = Text(f"Marriage: {seats.label(m.seat)} ")
        line.append_text(suit_text(m.suit)).append(f" {m.points}")
        line.append(" (counts)" if m.counts else " (counts once a trick is won)")
        if m.cards:
            line.append(" ").append_text(cards_text(m.cards))
        lines.append(line)
    if d.marriage_suit != C.NO_SUIT and not finished:
        lines.append(
            Text("The lead must be the King or Queen of the marriage in ").append_text(
                suit_text(d.marriage_suit)
            )
        )
    for n, known in enumerate(d.known_cards):
        if known.visible and known.cards:
            line = Text(f"Known to be in {seats.possessive(n)} hand: ")
            lines.append(line.append_text(cards_text(known.cards)))
    if d.HasField("end_window_seat") and not finished:
        lines.append(Text(f"Claim or pass due from {seats.label(d.end_window_seat)}", style="bold"))
    return lines


def _nominations(view: View, d: views_pb2.NominationsDetail, seats: Seats) -> list[Text]:
    lines: list[Text] = []
    players = len(view.seats) or 4
    if d.auction:
        calls = ", ".join(
            f"{seats.label((d.first_caller + i) % players)} {contract_text(call)}"
            for i, call in enumerate(d.auction)
        )
        lines.append(Text(f"Auction: {calls}"))
    elif not d.HasField("declarer"):
        lines.append(Text(f"First to call: {seats.label(d.first_caller)}"))
    if d.HasField("high_bid") and d.HasField("high_bidder") and not d.HasField("contract"):
        lines.append(Text(f"High bid: {contract_text(d.high_bid)} by {seats.label(d.high_bidder)}"))
    if d.HasField("declarer") and d.HasField("contract"):
        line = Text(f"Contract: {seats.label(d.declarer)}, {contract_text(d.contract)}")
        if d.no_trump:
            line.append(", no trump")
        if _has_card(d, "called"):
            line.append(", called card ").append_text(card_text(d.called))
        lines.append(line)
    partner = _PARTNER_STATUS.get(d.partner_status)
    if d.HasField("partner"):
        partner = f"partner: {seats.label(d.partner)}"
        if d.HasField("side_tricks"):
            partner += f" (the declarer's side has {d.side_tricks} tricks)"
    if partner:
        lines.append(Text(sentence(partner)))
    extras = []
    if d.multiplier > 1:
        extras.append(f"scores ×{d.multiplier}")
    if d.double_hand:
        extras.append("double hand")
    if d.HasField("cutter"):
        extras.append(f"cut by {seats.label(d.cutter)}")
    if d.played_deals:
        extras.append(f"{d.played_deals} deals played")
    if extras:
        lines.append(Text(sentence(", ".join(extras))))
    return lines


def _last_deal(view: View) -> events_pb2.DealScored | None:
    detail = view.WhichOneof("detail")
    if detail is None:
        return None
    message = getattr(view, detail)
    if message.HasField("last_deal"):
        last: events_pb2.DealScored = message.last_deal
        return last
    return None


def _taken_label(game: str) -> str:
    return "points" if facts.of(game).counts_points else "tricks"


#: One column of a deal's table: its heading and a cell per seat.
Column: TypeAlias = tuple[str, list[str]]


def render_deal_scored(
    scored: events_pb2.DealScored, seats: Seats, taken: str = "taken"
) -> RenderableType:
    """A deal's result as a small table, in the game's own terms (its typed ``result``): what
    each seat bid and took, made or not, points and total, and the bid cards where shown."""
    n = len(scored.totals)
    columns, headline, bid_cards = _result_columns(scored, seats, taken)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("seat")
    for heading, _ in columns:
        table.add_column(heading, justify="left" if heading == "made" else "right")
    table.add_column("+", justify="right")
    table.add_column("total", justify="right")
    show_cards = any(b.visible and b.cards for b in bid_cards)
    if show_cards:
        table.add_column("bid cards")
    for seat in range(n):
        row: list[str | Text] = [seats.label(seat)]
        row += [cells[seat] if seat < len(cells) else "" for _, cells in columns]
        row.append(str(scored.points[seat]) if seat < len(scored.points) else "")
        row.append(str(scored.totals[seat]))
        if show_cards:
            cards = bid_cards[seat] if seat < len(bid_cards) else None
            row.append(cards_text(cards.cards) if cards is not None and cards.visible else Text(""))
        table.add_row(*row)
    title = Text(f"Deal {scored.deal_no} result", style="bold")
    if headline:
        title.append(f" · {headline}")
    return Group(title, table)


def _result_columns(
    scored: events_pb2.DealScored, seats: Seats, taken: str
) -> tuple[list[Column], str, Sequence[cards_pb2.SeatCards]]:
    """The deal's own columns, what the title adds, and the bid cards, from the game's typed
    result; a server from before ``result`` sends only the generic fields, read then."""
    n = len(scored.totals)
    kind = scored.WhichOneof("result")
    if kind == "ninety_nine":
        nn = scored.ninety_nine
        premium = (
            _premium(seats, nn.premium_seat, nn.premium)
            if nn.HasField("premium_seat") and nn.HasField("premium")
            else ""
        )
        columns = [
            ("bid", [_optional(nn.bids, seat) for seat in range(n)]),
            ("tricks", [str(t) for t in nn.tricks]),
            ("made", ["yes" if made else "no" for made in nn.made]),
        ]
        return columns, premium, nn.bid_cards
    if kind == "counterpoint":
        cp = scored.counterpoint
        columns = [
            ("bid", [str(b) for b in cp.bids]),
            ("points", [str(p) for p in cp.card_points]),
            ("error", [str(e) for e in cp.errors]),
            ("bonus", [str(b) for b in cp.bonuses]),
        ]
        return columns, "", cp.bid_cards
    if kind == "sixty_six":
        ss = scored.sixty_six
        reason = events_pb2.SixtySixReason.Name(ss.reason).removeprefix("SIXTY_SIX_REASON_")
        headline = reason.lower().replace("_", " ")
        if ss.HasField("scorer"):
            headline += f": {seats.label(ss.scorer)} scores {ss.award}"
            if ss.carry_taken:
                headline += f" + {ss.carry_taken} carried"
        if ss.carry:
            headline += f" · {ss.carry} carried over"
        columns = [("count", [str(c) for c in ss.counts]), ("tricks", [str(t) for t in ss.tricks])]
        return columns, headline, ()
    if kind == "nominations":
        nom = scored.nominations
        if nom.all_passed:
            headline = "everybody passed"
        else:
            contract = contract_text(
                nom.contract, nom.bid_tricks if nom.HasField("bid_tricks") else None
            )
            headline = f"{seats.label(nom.declarer)} {contract}, {'made' if nom.made else 'missed'}"
            if nom.multiplier > 1:
                headline += f", ×{nom.multiplier}"
        return [("tricks", [str(t) for t in nom.tricks])], headline, ()
    # Before typed results: the generic fields, as such a server meant them.
    columns = []
    if any(b.HasField("value") for b in scored.bids):
        columns.append(("bid", [_optional(scored.bids, seat) for seat in range(n)]))
    columns.append((taken, [str(t) for t in scored.taken]))
    if any(m.HasField("value") for m in scored.made):
        columns.append(
            (
                "made",
                [("yes" if m.value else "no") if m.HasField("value") else "" for m in scored.made],
            )
        )
    headline = scored.note
    if scored.HasField("premium_seat") and scored.HasField("premium"):
        premium = _premium(seats, scored.premium_seat, scored.premium)
        headline = f"{premium} · {headline}" if headline else premium
    return columns, headline, scored.bid_cards


def _premium(seats: Seats, seat: int, call: str) -> str:
    """A Ninety-Nine premium that stood: ``premium: seat 0 declare``."""
    return f"premium: {seats.label(seat)} {contract_text(call)}"


def _optional(values: Sequence[values_pb2.OptionalInt32], seat: int) -> str:
    if seat < len(values) and values[seat].HasField("value"):
        return str(values[seat].value)
    return "?"


def result_text(view: View, names: Sequence[str] = ()) -> Text:
    """The end of a game: the winner(s) and every seat's final score."""
    seats = _seats_for(view, names)
    scores = ", ".join(f"{seats.label(s.seat)} {s.score}" for s in view.seats)
    winners = list(view.winners)
    if not winners:
        head = "No winner."
    elif len(winners) == 1:
        head = f"Winner: {seats.label(winners[0])}."
    else:
        head = f"Winners (shared): {seats.many(winners)}."
    return Text.assemble(("Game over. ", "bold"), (head, "bold green"), f" Final scores: {scores}")


# -- events -----------------------------------------------------------------------------------


def event_line(event: Event, seats: Seats) -> Text:
    """One line telling what happened, as the event's viewer was told it."""
    kind = event.WhichOneof("kind")
    text = (
        _EVENT_LINES[kind](getattr(event, kind), seats)
        if kind in _EVENT_LINES
        else Text(kind or "")
    )
    if text.plain[:1].islower():  # a line starts with a capital, whoever its subject is
        text = Text(sentence(text.plain[:1]), style=text.style).append_text(text[1:])
    return text


def _deal_started(e: events_pb2.DealStarted, seats: Seats) -> Text:
    sizes = set(e.hand_sizes)
    cards = (
        f"{sizes.pop()} cards each"
        if len(sizes) == 1
        else "hands of " + "/".join(map(str, e.hand_sizes))
    )
    line = Text(f"Deal {e.deal_no}: {seats.does(e.dealer, 'deals', 'deal')}, {cards}")
    if _has_card(e, "turn_up"):
        line.append("; turn-up ").append_text(card_text(e.turn_up))
    if e.trump != C.NO_SUIT:
        line.append("; trumps ").append_text(suit_text(e.trump))
    return line


def _cards_laid_aside(e: events_pb2.CardsLaidAside, seats: Seats) -> Text:
    line = Text(f"{seats.does(e.seat, 'lays', 'lay')} {e.count} cards aside")
    if e.HasField("cards") and e.cards.cards:
        line.append(": ").append_text(cards_text(e.cards.cards))
    return line


def _called(e: events_pb2.Called, seats: Seats) -> Text:
    line = Text(f"{seats.does(e.seat, 'calls', 'call')} {e.call}")
    return line.append(" (automatic)", style="dim") if e.automatic else line


def _seat_chosen(e: events_pb2.SeatChosen, seats: Seats) -> Text:
    return Text(f"{seats.does(e.seat, 'names', 'name')} {seats.label(e.chosen)} as {e.role}")


def _cards_exposed(e: events_pb2.CardsExposed, seats: Seats) -> Text:
    what = {"bid_cards": "bid cards", "hand": "hand", "remaining": "remaining cards"}
    line = Text(f"{seats.does(e.seat, 'shows', 'show')} {what.get(e.what, e.what)}: ")
    return line.append_text(cards_text(e.cards))


def _card_played(e: events_pb2.CardPlayed, seats: Seats) -> Text:
    line = Text(f"{seats.does(e.seat, 'plays', 'play')} ").append_text(card_text(e.card))
    if _has_card(e, "as_card") and C.key(e.as_card) != C.key(e.card):
        line.append(" as ").append_text(card_text(e.as_card))
    return line


def _trick_won(e: events_pb2.TrickWon, seats: Seats) -> Text:
    line = Text(f"{seats.does(e.winner, 'wins', 'win')} trick {e.trick_no}: ", style="bold")
    line.append_text(cards_text(e.cards))
    if e.points:
        line.append(f" ({e.points} points)")
    return line


def _deal_scored(e: events_pb2.DealScored, seats: Seats) -> Text:
    """``Deal 3 scored (why) — seat 0: bid 2 tricks 2 made yes +32 = 50; …``: the deal's table
    (:func:`render_deal_scored`) on one line."""
    columns, headline, bid_cards = _result_columns(e, seats, "took")
    parts = []
    for seat in range(len(e.totals)):
        part = Text(seats.label(seat) + ":")
        for heading, cells in columns:
            if seat < len(cells) and cells[seat]:
                part.append(f" {heading} {cells[seat]}")
        if seat < len(bid_cards) and bid_cards[seat].visible and bid_cards[seat].cards:
            part.append(" (").append_text(cards_text(bid_cards[seat].cards)).append(")")
        if seat < len(e.points):
            part.append(f" +{e.points[seat]}")
        part.append(f" = {e.totals[seat]}")
        parts.append(part)
    line = Text(f"Deal {e.deal_no} scored", style="bold")
    if headline:
        line.append(f" ({headline})")
    return line.append(" — ").append_text(Text("; ").join(parts))


def _game_over(e: events_pb2.GameOver, seats: Seats) -> Text:
    totals = ", ".join(f"{seats.label(n)} {t}" for n, t in enumerate(e.totals))
    return Text(f"Game over: {seats.many(e.winners)} won. Totals: {totals}", style="bold")


def _card_drawn(e: events_pb2.CardDrawn, seats: Seats) -> Text:
    if _has_card(e, "card"):
        what = "the turn-up " if e.face_up else ""
        line = Text(f"{seats.does(e.seat, 'draws', 'draw')} {what}").append_text(card_text(e.card))
    else:
        line = Text(f"{seats.does(e.seat, 'draws', 'draw')} a card")
    return line.append(f" ({e.stock_left} left in the stock)")


def _trump_exchanged(e: events_pb2.TrumpExchanged, seats: Seats) -> Text:
    line = Text(f"{seats.does(e.seat, 'exchanges', 'exchange')} ").append_text(card_text(e.given))
    line.append(" for the turn-up ").append_text(card_text(e.taken))
    return line.append(" at the close" if e.at_close else "")


def _marriage_declared(e: events_pb2.MarriageDeclared, seats: Seats) -> Text:
    line = Text(f"{seats.does(e.seat, 'declares', 'declare')} the ").append_text(suit_text(e.suit))
    line.append(f" marriage ({e.points})")
    if e.cards:
        line.append(": ").append_text(cards_text(e.cards))
    return line


def _stock_closed(e: events_pb2.StockClosed, seats: Seats) -> Text:
    when = " before drawing" if e.before_draw else ""
    return Text(f"{seats.does(e.seat, 'closes', 'close')} the stock{when}")


def _bid_made(e: events_pb2.BidMade, seats: Seats) -> Text:
    tricks = e.tricks if e.HasField("tricks") else None
    return Text(f"{seats.does(e.seat, 'bids', 'bid')} {contract_text(e.contract, tricks)}")


def _auction_won(e: events_pb2.AuctionWon, seats: Seats) -> Text:
    tricks = e.tricks if e.HasField("tricks") else None
    won = seats.does(e.declarer, "wins", "win")
    return Text(f"{won} the auction: {contract_text(e.contract, tricks)}", style="bold")


def _all_passed(e: events_pb2.AllPassed, seats: Seats) -> Text:
    line = Text(
        f"All passed: deal {e.deal_no} is not played; next: {e.next_deal.replace('_', ' ')}"
    )
    return line.append(f", scores ×{e.multiplier}" if e.multiplier > 1 else "")


def _pack_cut(e: events_pb2.PackCut, seats: Seats) -> Text:
    depth = f" at {e.depth}" if e.HasField("depth") else ""
    return Text(f"{seats.does(e.seat, 'cuts', 'cut')} the pack{depth}")


def _contract_declared(e: events_pb2.ContractDeclared, seats: Seats) -> Text:
    line = Text(f"{seats.does(e.declarer, 'declares', 'declare')} ")
    if e.trump == C.NO_SUIT:
        line.append("no trump")
    else:
        line.append("trumps ").append_text(suit_text(e.trump))
    return line.append(" and calls ").append_text(card_text(e.called))


def _partner_notice(e: events_pb2.PartnerNotice, seats: Seats) -> Text:
    line = Text("The called card is ").append_text(card_text(e.called))
    if e.HasField("holder"):
        line.append(
            f": {seats.label(e.holder)} " + ("hold" if e.holder == seats.viewer else "holds")
        )
        line.append(" it")
    return line


def _timed_out(e: events_pb2.TimedOut, seats: Seats) -> Text:
    if e.auto_move:
        ran = seats.does(e.seat, "runs", "run")
        return Text(f"{ran} out of time: the server moves for {seats.label(e.seat)}", "yellow")
    return Text(f"{seats.does(e.seat, 'runs', 'run')} out of time and forfeits", "bold red")


def _partner_revealed(e: events_pb2.PartnerRevealed, seats: Seats) -> Text:
    if e.HasField("partner"):
        partner = seats.does(e.partner, "is", "are")
        return Text(f"{partner} {seats.possessive(e.declarer)} partner", style="bold")
    return Text(f"{seats.does(e.declarer, 'plays', 'play')} alone", style="bold")


_EVENT_LINES: dict[str, Callable[[Any, Seats], Text]] = {
    "deal_started": _deal_started,
    "cards_laid_aside": _cards_laid_aside,
    "called": _called,
    "seat_chosen": _seat_chosen,
    "cards_exposed": _cards_exposed,
    "card_played": _card_played,
    "trick_won": _trick_won,
    "deal_scored": _deal_scored,
    "game_over": _game_over,
    "card_drawn": _card_drawn,
    "trump_exchanged": _trump_exchanged,
    "marriage_declared": _marriage_declared,
    "stock_closed": _stock_closed,
    "bid_made": _bid_made,
    "auction_won": _auction_won,
    "all_passed": _all_passed,
    "pack_cut": _pack_cut,
    "contract_declared": _contract_declared,
    "partner_notice": _partner_notice,
    "partner_revealed": _partner_revealed,
    "timed_out": _timed_out,
}


# -- legal moves ------------------------------------------------------------------------------


def render_moves(legal: Sequence[Move]) -> RenderableType:
    """The legal moves, numbered from 1 as :func:`tricktable.move_text.parse_move` reads them.
    A kind with many moves (220 ways to lay three cards aside) is summed up with an example."""
    by_kind: dict[str, list[int]] = {}
    one_by_one = legal.listed if isinstance(legal, LegalMoves) else legal
    for index, move in enumerate(one_by_one, start=1):
        by_kind.setdefault(move.WhichOneof("kind") or "", []).append(index)
    if isinstance(legal, LegalMoves) and legal.choice_size:  # summed up, its moves not built
        by_kind.setdefault("lay_aside", []).extend(range(len(one_by_one) + 1, len(legal) + 1))
    listed: list[Text] = []
    summaries: list[Text] = []
    for kind, indexes in by_kind.items():
        if len(indexes) <= _LISTED_PER_KIND:
            listed += [
                Text.assemble((f"{i:>2}. ", "dim"), describe_move(legal[i - 1])) for i in indexes
            ]
            continue
        example = describe_move(legal[indexes[0] - 1])
        summaries.append(
            Text.assemble(
                (f"{indexes[0]}–{indexes[-1]}. ", "dim"),
                f"{_KIND_SUMMARY.get(kind, kind)} ({len(indexes)} choices), e.g. {example}",
            )
        )
    return Group(Columns(listed, padding=(0, 3)), *summaries)


_KIND_SUMMARY = {
    "lay_aside": "lay cards aside: type them, in any order (their suits make your bid)",
    "declare_contract": "name trumps (a suit, or nt) and the card you call",
}
