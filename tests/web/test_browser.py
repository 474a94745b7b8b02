"""The reference web table in a real browser: Debian's Chromium, headless, driven by Playwright
(never a browser Playwright downloads), against a real server's web port.

Covered: a whole Counterpoint game played from two pages; a Ninety-Nine deal from three pages,
the bid laid aside by picking cards; a spectator page that receives moves live and never shows
a hidden card; a reload that resumes the seat and the stream where it stopped; a server restart
the pages ride out; an illegal move answered with the server's reason; Sixty-Six and Nominations
played to their end; the page hosted on another site, allowed or refused by CORS; a whole
Counterpoint game played by one page against a server bot; a lay-aside turn read in the compact
form the page asks for, and in the listed form an older server sends; a clocked game whose clock
ticks and whose person, waiting, times out; a seat whose player left shown waiting for a
reconnect; an optional move (may_act) offered without "Your turn"; a game abandoned as idle.
The pages use each transport (Connect binary, Connect JSON, gRPC-Web). With
``TRICKTABLE_SCREENSHOT=path`` the Counterpoint test saves a picture of the table there (the one
in the README). What a person sees and does at the table (seats kept and taken back, Resign
asked first, bids as cards are picked, the end of a game...) is in test_table_person.py; each
game's table on a desktop and a phone, in test_table_screens.py.

The tests skip, saying why, only where Chromium is not installed; ``.ci/run`` installs it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from tricktable.cards import label as card_label
from tricktable.v1 import cards_pb2
from tricktable.v1 import game_service_pb2 as pb

from service.web.app import STATIC
from tests.conftest import free_port
from tests.servers import Served, running_server
from tests.service.support import Client, Table
from tests.web.support import SERVICE

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(
        "Chromium is not installed (apt-get install chromium; .ci/run installs it)",
        allow_module_level=True,
    )

from playwright.sync_api import BrowserContext, Page, Route, sync_playwright  # noqa: E402

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PATIENCE_MS = 30_000


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    # Server bots move quickly here: the tests play whole games against them.
    with running_server(web_port=0, bot_delay_s=0.05) as served:
        yield served


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserContext]:
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile,  # a fresh user-data dir
            executable_path=CHROMIUM,
            args=ARGS,
            headless=True,
            viewport={"width": 1100, "height": 860},
        )
        context.set_default_timeout(PATIENCE_MS)
        yield context
        context.close()


@pytest.fixture
def open_page(browser: BrowserContext, served: Served) -> Iterator[Callable[..., Page]]:
    """Opens a new tab (its own sessionStorage: its own seat) at a path of the web port."""
    pages: list[Page] = []
    errors: list[str] = []

    def open_(path: str = "/", protocol: str | None = None) -> Page:
        page = browser.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        query = f"?protocol={protocol}" if protocol else ""
        page.goto(f"{served.web_url}/{query}#{path}")
        pages.append(page)
        return page

    yield open_
    for page in pages:
        page.close()
    assert not errors, f"the page threw: {errors}"


# -- driving a page as a person would ------------------------------------------------------


def version(page: Page) -> int:
    return int(page.get_attribute("#version", "data-version") or -1)


def status(page: Page) -> str:
    return page.inner_text("#status")


def wait_for_version_above(page: Page, seen: int) -> None:
    page.wait_for_function(
        "v => Number(document.querySelector('#version')?.dataset.version) > v", arg=seen
    )


def create_and_sit(
    page: Page,
    game_type: str,
    name: str,
    bots: dict[int, str] | None = None,
    clock: dict[str, str] | None = None,
    options: Mapping[str, str] | None = None,
) -> str:
    """Fill the new-game form (``bots``: seat -> server bot; ``clock``: time-control field ->
    value, in seconds) and take seat 0."""
    page.wait_for_selector("#create")
    page.select_option("#game-type", game_type)
    page.fill("#player-name", name)
    # The other seats default to a server bot: those not in ``bots`` are left to people here.
    for select in page.locator(".seat-players select").all():
        seat = int(select.get_attribute("data-seat") or 0)
        select.select_option((bots or {}).get(seat, ""))
    if clock:
        page.check("#clock-on")
        for field, value in clock.items():
            if field == "policy":
                page.select_option("#clock-policy", value)
            else:
                page.fill(f"#clock-{field}", value)
    if options:
        page.click("details.rules > summary")  # the rules are folded away until asked for
    for option, value in (options or {}).items():
        field = f"#option-{option}"
        if page.locator(f"select{field}").count():
            page.select_option(field, value)
        else:
            page.fill(field, value)
    page.click("#create")
    page.wait_for_selector("#status")
    return page.url.rsplit("/", 1)[-1]


def take_seat(page: Page, name: str) -> None:
    page.bring_to_front()
    page.wait_for_selector("button.take-seat")
    page.fill("#seat-name", name)
    page.locator("button.take-seat").first.click()
    page.wait_for_selector("#viewer:has-text('You:')")


def cards_in(page: Page, selector: str) -> list[str]:
    found: list[str] = page.locator(selector).evaluate_all("cs => cs.map(c => c.dataset.card)")
    return found


def hand(page: Page) -> list[str]:
    return cards_in(page, "#hand button.card")


def lay_aside_by_picking(page: Page) -> list[str]:
    """Pick three cards in the hand, then lay them aside: the cards picked."""
    page.bring_to_front()
    picked = hand(page)[:3]
    for card in picked:
        page.locator(f"#hand button.card[data-card='{card}']").click()
    page.wait_for_selector("#moves:has-text('3 picked')")
    before = version(page)
    page.click("#lay-aside:not([disabled])")
    wait_for_version_above(page, before)
    return picked


def act(page: Page, prefer: tuple[str, ...] = ("pass",)) -> bool:
    """Make a legal move if it is this page's turn: lay aside, a lit card, or a move button
    (``prefer``red ones first). False when the page is not to act."""
    if status(page) != "Your turn":
        return False
    # A person plays in the tab in front; Chromium holds back a background tab's frames.
    page.bring_to_front()
    before = version(page)
    if page.locator("#lay-aside").count():
        lay_aside_by_picking(page)
        return True
    legal = page.locator("#hand button.card.legal")
    buttons = page.locator("#moves button.move")
    if legal.count():
        legal.first.click()
    elif page.locator("#moves .contract").count():  # Nominations: trumps, then the card to call
        page.locator("#moves .trump-choice").first.click()
        page.locator("#moves .call-card").first.click()
    elif buttons.count():
        choices = [f"#moves button[data-{attr}='{b}']" for b in prefer for attr in ("move", "kind")]
        wanted = [c for c in choices if page.locator(c).count()]
        target = wanted[0] if wanted else "#moves button.move"
        page.locator(target).first.click()
    elif page.locator("#moves select.move-list").count():
        page.locator("#moves select.move-list + button").first.click()
    else:  # the status was read from a view the stream has since replaced: look again
        return False
    wait_for_version_above(page, before)
    return True


def play_until(
    pages: list[Page],
    done: Callable[[], bool],
    prefer: list[tuple[str, ...]] | None = None,
    limit_s: float = 240,
) -> int:
    """Each page moves when it is to act (with its ``prefer``red move buttons), until ``done``;
    the number of moves made."""
    moves = 0
    deadline = time.monotonic() + limit_s
    while not done():
        assert time.monotonic() < deadline, "the game did not get there in time"
        acted = False
        for i, page in enumerate(pages):
            if act(page, prefer[i] if prefer else ("pass",)):
                moves += 1
                acted = True
        if not acted:  # the other pages are catching up with the last move
            pages[0].wait_for_timeout(50)
    return moves


# -- the tests -----------------------------------------------------------------------------


def test_a_whole_counterpoint_game_from_two_pages(
    open_page: Callable[..., Page], served: Served
) -> None:
    native = served[1]
    ada = open_page("/")
    game_id = create_and_sit(ada, "counterpoint", "Ada", options={"first_dealer": "seat0"})
    assert ada.inner_text("#status") == "Waiting for players"
    bob = open_page(f"/game/{game_id}", protocol="connect-json")
    take_seat(bob, "Bob")
    ada.wait_for_selector("#hand")  # Ada's page learns the table is full
    assert len(hand(ada)) == 16 and len(hand(bob)) == 16
    assert set(hand(ada)).isdisjoint(hand(bob))

    shot = os.environ.get("TRICKTABLE_SCREENSHOT")

    def over() -> bool:
        if shot and ada.locator("#trick figure.played").count() == 1 and not Path(shot).exists():
            ada.screenshot(path=shot, full_page=True)
        return "Game over" in status(ada)

    moves = play_until([ada, bob], over)
    bob.wait_for_selector("#status:has-text('Game over')")
    final = native.get(game_id)
    assert final.view.finished and final.game.status == pb.GAME_STATUS_FINISHED
    assert moves == final.game.version
    assert version(ada) == version(bob) == final.game.version
    winners = " and ".join(["Ada", "Bob"][w] for w in final.view.winners)
    assert winners in status(ada).replace(" (you)", "")
    scores = ada.locator(".seat .score").all_inner_texts()
    assert scores == [f"score {s.score}" for s in final.view.seats]
    assert "Game over" in ada.inner_text("#log")


def test_a_whole_counterpoint_game_against_a_server_bot(
    open_page: Callable[..., Page], served: Served
) -> None:
    native = served[1]
    ada = open_page("/")
    game_id = create_and_sit(ada, "counterpoint", "Ada", bots={1: "heuristic"})
    ada.wait_for_selector("#hand")  # the bot took its seat at once: the game has begun
    moves = play_until([ada], lambda: "Game over" in status(ada))
    final = native.get(game_id)
    assert final.view.finished and final.game.status == pb.GAME_STATUS_FINISHED
    assert 0 < moves < final.game.version  # the bot made the other moves
    assert version(ada) == final.game.version
    assert not final.view.clocks and not ada.locator(".clock").count()  # no time control


def test_a_clock_ticks_and_a_waiting_person_times_out(
    open_page: Callable[..., Page], served: Served
) -> None:
    native = served[1]
    ada = open_page("/")
    clock = {"move": "0.4", "bank": "3", "increment": "0", "policy": "1"}  # 1: AUTO_MOVE
    game_id = create_and_sit(ada, "counterpoint", "Ada", bots={1: "heuristic"}, clock=clock)
    tc = native.get(game_id).game.time_control
    assert (tc.move_ms, tc.bank_ms, tc.on_timeout) == (400, 3000, 1)
    both = ada.locator(".clock")
    both.first.wait_for()
    assert both.count() == 2
    # Ada waits: her clock runs (drawn from the server's deadline) and goes down.
    mine = ada.locator(".clock.running[data-seat='0']")
    mine.wait_for()
    first = mine.inner_text()
    ada.wait_for_timeout(300)
    later = mine.inner_text()
    assert "bank" in first and later != first, (first, later)
    seconds = float(first.split("bank 0:")[1].split()[0])
    assert 0 < seconds <= 3.0  # never more than the server gave, whatever this machine's clock
    # The move time and the bank run out: the server plays for her, and the page says so.
    ada.wait_for_selector("#log li:has-text('Ada (you) ran out of time')")
    ada.wait_for_selector(".clock[data-seat='0']:not([data-timeouts='0'])")
    assert native.get(game_id).view.clocks[0].timeouts >= 1  # clocks come in seat order


def test_a_seat_whose_player_left_is_shown_waiting_for_a_reconnect(
    open_page: Callable[..., Page],
) -> None:
    ada = open_page("/")
    game_id = create_and_sit(ada, "counterpoint", "Ada")
    bob = open_page(f"/game/{game_id}")
    take_seat(bob, "Bob")
    ada.wait_for_selector("#hand")
    assert not ada.locator(".absent").count()  # both are at the table
    bob.close()  # Bob's stream ends: after a few seconds the server counts him away
    ada.wait_for_selector(
        ".seat[data-seat='1'] .absent:has-text('waiting for the player to reconnect')"
    )
    assert not ada.locator(".seat[data-seat='0'] .absent").count()


def test_an_optional_move_is_offered_without_being_your_turn(
    open_page: Callable[..., Page], served: Served
) -> None:
    """Sixty-Six: the seat not on lead holding the trump nine may exchange it (may_act), but the
    game waits only for the leader."""
    native = served[1]
    for attempt in range(400):  # seeded deals until the non-leader may exchange at the start
        table = native.table("sixty-six", seed=f"optional-{attempt}".encode())
        view = native.get(table.game_id, table.tokens[0]).view
        optional = [s for s in view.may_act if s not in view.to_act]
        if optional:
            break
    else:
        pytest.fail("no seeded deal offered an optional move")
    seat = optional[0]
    page = open_page("/")
    # The seat as the page keeps it after a JoinGame (api.ts saveSeat), then the table.
    saved = json.dumps({"seat": seat, "token": table.tokens[seat]})
    page.evaluate(
        "([key, saved, id]) => { sessionStorage.setItem(key, saved); location.hash = id; }",
        [f"tricktable.seat.{table.game_id}", saved, f"#/game/{table.game_id}"],
    )
    page.wait_for_selector("#moves .optional")
    offered = page.inner_text("#moves")  # with what the button does
    assert "Claim: say you have 66" in offered or "Swap the trump nine" in offered, offered
    assert status(page).startswith("Waiting for") and status(page) != "Your turn"
    assert page.locator(f".seat[data-seat='{seat}'] .badge.optional").count() == 1
    assert page.locator(f".seat[data-seat='{seat}'] .badge:has-text('to act')").count() == 0
    before = version(page)
    page.locator("#moves button.move").first.click()  # the optional move is still a real move
    wait_for_version_above(page, before)
    assert not page.locator("#refusal").count()


def test_a_game_nobody_moves_in_is_abandoned_and_the_page_says_so(
    browser: BrowserContext,
) -> None:
    with running_server(web_port=0, idle_ttl_s=1.0) as served:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        try:
            page.goto(f"{served.web_url}/#/")
            create_and_sit(page, "counterpoint", "Ada", bots={1: "random"})
            page.wait_for_selector("#log li:has-text('The game was abandoned: nobody moved')")
            page.wait_for_selector("#status:text-is('Abandoned')")
        finally:
            page.close()
        assert not errors, f"the page threw: {errors}"


def test_a_ninety_nine_deal_with_the_lay_aside_bid(
    open_page: Callable[..., Page], served: Served
) -> None:
    native = served[1]
    first = open_page("/", protocol="grpc-web")
    game_id = create_and_sit(first, "ninety-nine", "North", options={"game_length_deals": "1"})
    others = []
    for name in ("East", "West"):
        page = open_page(f"/game/{game_id}")
        take_seat(page, name)
        others.append(page)
    pages = [first, *others]
    first.wait_for_selector("#hand")
    for page in pages:
        page.wait_for_selector("#lay-aside")

    # Laying aside is picking three cards: they leave the hand and show, to their owner only.
    picked = lay_aside_by_picking(first)
    assert not set(picked) & set(hand(first))
    mine = first.locator(".seat.mine")
    assert "3 aside" in mine.inner_text()
    assert sorted(mine.locator(".aside .card").all_inner_texts()) == sorted(picked)
    others[0].wait_for_selector(".seat[data-seat='0']:has-text('3 aside')")
    assert others[0].locator(".seat[data-seat='0'] .aside").count() == 0

    play_until(pages, lambda: "Game over" in status(first))
    final = native.get(game_id)
    assert final.view.finished
    log = first.inner_text("#log")
    assert "Deal 1 scored" in log and "lays 3 cards aside" in log
    assert "passes" in log  # the round of premium calls, one button per call
    sheet = first.locator("#game-over #score-sheet")  # the deal-by-deal score sheet
    assert sheet.count() == 1 and "made the bid" in sheet.inner_text()


@dataclass
class Call:
    """One unary call a page made (in Connect JSON), as the server received and answered it."""

    request: dict[str, Any]
    response: dict[str, Any]
    size: int  # the answer's bytes


def record_calls(
    page: Page, method: str, rewrite: Callable[[dict[str, Any]], dict[str, Any]] | None = None
) -> list[Call]:
    """Every ``method`` call the page makes from now on (it must speak Connect JSON), each sent
    on to the server as ``rewrite`` changes it (unchanged without one)."""
    calls: list[Call] = []

    def relay(route: Route) -> None:
        request = json.loads(route.request.post_data or "{}")
        if rewrite is not None:
            request = rewrite(request)
        answer = route.fetch(post_data=json.dumps(request))
        body = answer.body()
        calls.append(Call(request, json.loads(body) if answer.ok else {}, len(body)))
        route.fulfill(response=answer)

    page.route(f"**/{SERVICE}/{method}", relay)
    return calls


def without_compact(request: dict[str, Any]) -> dict[str, Any]:
    """The request as a page from before the compact lay-aside sent it: what an older server,
    which knows no compactLayAside, acts on."""
    return {k: v for k, v in request.items() if k != "compactLayAside"}


def listed_lay_asides(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in view.get("legalMoves", []) if "layAside" in m]


def laid_aside(native: Client, game_id: str, seat: int, token: str) -> list[str]:
    """The cards a seat has laid aside, as the seat's own view shows them."""
    mine = native.get(game_id, token).view.seats[seat]
    return [shown_as(c) for c in mine.aside.cards]


def seat_token(page: Page, game_id: str) -> str:
    saved = page.evaluate(f"sessionStorage.getItem('tricktable.seat.{game_id}')")
    token: str = json.loads(saved)["token"]
    return token


def test_a_lay_aside_turn_comes_compact_and_is_played_from_it(
    open_page: Callable[..., Page], served: Served
) -> None:
    """The page asks for the compact lay-aside on every GetGame and SubmitMove; a lay-aside
    turn then comes as one choice (no LayAside listed), and the cards picked from it are
    laid aside."""
    native = served[1]
    ada = open_page("/", protocol="connect-json")
    reads = record_calls(ada, "GetGame")
    moves = record_calls(ada, "SubmitMove")
    game_id = create_and_sit(ada, "counterpoint", "Ada")
    bob = open_page(f"/game/{game_id}")
    take_seat(bob, "Bob")
    ada.wait_for_selector("#lay-aside")
    offered = [c for c in reads if c.response.get("view", {}).get("layAsideChoice")]
    assert offered, "no GetGame answer carried a layAsideChoice"
    choice = offered[-1].response["view"]["layAsideChoice"]
    assert choice["count"] == 3 and len(choice["cards"]) == 16
    assert not listed_lay_asides(offered[-1].response["view"])
    assert ada.get_attribute("#moves .lay-aside", "data-count") == "3"

    picked = lay_aside_by_picking(ada)
    assert sorted(laid_aside(native, game_id, 0, seat_token(ada, game_id))) == sorted(picked)
    assert reads and all(c.request.get("compactLayAside") is True for c in reads)
    assert len(moves) == 1 and moves[0].request.get("compactLayAside") is True
    sent = [
        shown_as(json_format.ParseDict(c, cards_pb2.Card()))
        for c in moves[0].request["move"]["layAside"]["cards"]
    ]
    assert sorted(sent) == sorted(picked)


def test_a_lay_aside_is_played_from_a_server_that_lists_the_moves(
    open_page: Callable[..., Page], served: Served
) -> None:
    """An older server ignores compactLayAside and lists every LayAside: the page offers the
    same pick of three cards, and lays them aside."""
    native = served[1]
    ada = open_page("/", protocol="connect-json")
    reads = record_calls(ada, "GetGame", without_compact)
    record_calls(ada, "SubmitMove", without_compact)
    game_id = create_and_sit(ada, "counterpoint", "Ada")
    bob = open_page(f"/game/{game_id}")
    take_seat(bob, "Bob")
    ada.wait_for_selector("#lay-aside")
    assert ada.get_attribute("#moves .lay-aside", "data-count") == "3"
    listed = [c for c in reads if listed_lay_asides(c.response.get("view", {}))]
    assert listed and not any(c.response.get("view", {}).get("layAsideChoice") for c in reads)
    assert len(listed_lay_asides(listed[-1].response["view"])) == 560  # C(16, 3)

    picked = lay_aside_by_picking(ada)
    assert sorted(laid_aside(native, game_id, 0, seat_token(ada, game_id))) == sorted(picked)


def shown_as(card: cards_pb2.Card) -> str:
    """A card as the page writes it (``data-card``): "10♦", "Q♠", "Joker"."""
    return card_label(card).replace("Jk", "Joker")


# Each page's preferred move buttons. Sixty-Six scores only a claim (a deal played out with no
# claim scores nothing, gamefarm §9), and a claim is never a move the game waits for: pages
# that only did what they must would play deals for ever, so they claim when a button offers it.
# Nominations: the first seat bids, the others pass, so the auction ends.
_PREFER: dict[str, list[tuple[str, ...]]] = {
    "sixty-six": [("claim",), ("claim",)],
    "nominations": [("bid", "pass"), ("pass",), ("pass",), ("pass",)],
}


@pytest.mark.parametrize(
    ("game_type", "seats", "options", "shown", "summary", "explained"),
    [
        # The log tells what decided the deal from the typed result: Sixty-Six's reason...
        (
            "sixty-six",
            2,
            {"target_game_points": "1"},
            "Stock",
            r"scored: .* — [a-z ]+",
            "Claim: say you have 66",
        ),
        # ... and Nominations' contract (P0 bids, the others pass).
        (
            "nominations",
            4,
            {"end_mode": "deals", "deal_count": "1"},
            "Contract",
            r"scored: .* — P0 .*, (made|missed)",
            "Bid the tricks you and a partner will take",
        ),
    ],
)
def test_sixty_six_and_nominations_play_to_the_end_in_the_browser(
    open_page: Callable[..., Page],
    served: Served,
    game_type: str,
    seats: int,
    options: dict[str, str],
    shown: str,
    summary: str,
    explained: str,
) -> None:
    native = served[1]
    first = open_page("/")
    game_id = create_and_sit(first, game_type, "P0", options=options)
    pages = [first]
    for seat in range(1, seats):
        page = open_page(f"/game/{game_id}")
        take_seat(page, f"P{seat}")
        pages.append(page)
    first.wait_for_selector("#hand")
    prefer = _PREFER[game_type]
    details: set[str] = set()
    explanations: set[str] = set()  # the line beside each kind of move button

    def over() -> bool:
        details.update(first.locator(".detail dt").all_inner_texts())
        for page in pages:
            explanations.update(page.locator("#moves .explain").all_inner_texts())
        return "Game over" in status(first)

    play_until(pages, over, prefer)
    assert native.get(game_id).view.finished
    assert shown in details
    assert any(explained in line for line in explanations), explanations
    assert re.search(summary, first.inner_text("#log")), first.inner_text("#log")
    for page in pages:
        page.wait_for_selector("#status:has-text('Game over')")


def test_the_hand_is_drawn_by_suit_in_the_games_rank_order(
    open_page: Callable[..., Page], served: Served
) -> None:
    """The hand as the package's table model groups it: a row per suit held (spades, hearts,
    clubs, diamonds), each drawn weakest to strongest in the game's own rank order from
    ListGameTypes (Sixty-Six's puts the ten above the king), and every card the server's view
    of the seat holds."""
    native = served[1]
    page = open_page("/")
    game_id = create_and_sit(page, "sixty-six", "Ada", bots={1: "heuristic"})
    page.wait_for_selector("#hand button.card")
    types = native.stub.ListGameTypes(pb.ListGameTypesRequest()).game_types
    order = list(next(t for t in types if t.name == "sixty-six").rank_order)  # strongest first
    held = native.get(game_id, seat_token(page, game_id)).view.seats[0].hand.cards
    expected = []
    for suit in (
        cards_pb2.SUIT_SPADES,
        cards_pb2.SUIT_HEARTS,
        cards_pb2.SUIT_CLUBS,
        cards_pb2.SUIT_DIAMONDS,
    ):
        row = sorted((c for c in held if c.suit == suit), key=lambda c: -order.index(c.rank))
        if row:
            name = cards_pb2.Suit.Name(suit).removeprefix("SUIT_").lower()
            expected.append((name, [shown_as(c) for c in row]))
    rows = page.locator("#hand .suit-row")
    drawn = [
        (row.get_attribute("data-suit"), row.locator("button.card").all_inner_texts())
        for row in rows.all()
    ]
    assert drawn == expected


def _hidden_cards(native: Client, table: Table) -> set[str]:
    """Every card a spectator may not see now: the hands and the cards laid aside."""
    hidden: set[str] = set()
    for seat, token in enumerate(table.tokens):
        view = native.get(table.game_id, token).view.seats[seat]
        for card in [*view.hand.cards, *view.aside.cards]:
            hidden.add(shown_as(card))
    return hidden


def test_a_spectator_receives_moves_live_and_never_a_hidden_card(
    open_page: Callable[..., Page], served: Served
) -> None:
    native = served[1]
    table = native.table("counterpoint")
    watcher = open_page(f"/game/{table.game_id}", protocol="grpc-web")
    watcher.wait_for_selector("#viewer:has-text('Spectator')")
    assert watcher.locator("#hand").count() == 0 and watcher.locator("#moves").count() == 0
    for _ in range(8):
        state = native.get(table.game_id)
        seat = state.view.to_act[0]
        mine = native.get(table.game_id, table.tokens[seat])
        native.move(table.game_id, table.tokens[seat], mine.view.legal_moves[0], mine.game.version)
        now = mine.game.version + 1
        wait_for_version_above(watcher, now - 1)  # live, from the stream
        shown = set(
            watcher.locator("[data-card]").evaluate_all("cs => cs.map(c => c.dataset.card)")
        )
        assert not shown & _hidden_cards(native, table), "a hidden card reached the spectator"
    log = watcher.locator("#log li").all_inner_texts()
    assert sum("lays 3 cards aside face down" in line for line in log) == 2
    assert sum(" plays " in line for line in log) == 6
    played = native.get(table.game_id).view
    on_table = {shown_as(c) for t in [played.trick, *played.tricks] for c in t.cards}
    shown = set(watcher.locator("#trick [data-card], #last-trick [data-card]").all_inner_texts())
    assert shown <= on_table


def test_a_reload_resumes_the_seat_and_the_stream(
    open_page: Callable[..., Page], served: Served
) -> None:
    native = served[1]
    ada = open_page("/", protocol="connect-json")
    game_id = create_and_sit(ada, "counterpoint", "Ada")
    bob = open_page(f"/game/{game_id}")
    take_seat(bob, "Bob")
    ada.wait_for_selector("#lay-aside")
    lay_aside_by_picking(ada)
    held = hand(ada)
    log_before = ada.locator("#log li").all_inner_texts()

    ada.reload()
    ada.wait_for_selector("#hand")
    assert ada.inner_text("#viewer") == "You: Ada"
    assert hand(ada) == held
    assert ada.locator("#log li").all_inner_texts() == log_before  # kept, not replayed twice
    seen = version(ada)
    lay_aside_by_picking(bob)  # a move made while the reloaded page follows the stream again
    wait_for_version_above(ada, seen)
    log_after = ada.locator("#log li").all_inner_texts()
    assert log_after[: len(log_before)] == log_before
    assert sum(line.startswith("Deal 1") for line in log_after) == 1
    assert "Bob lays 3 cards aside face down" in log_after
    assert native.get(game_id).game.version == version(ada)


def test_an_illegal_move_shows_the_servers_reason(
    open_page: Callable[..., Page], served: Served
) -> None:
    native = served[1]
    ada = open_page("/")
    game_id = create_and_sit(ada, "counterpoint", "Ada")
    bob = open_page(f"/game/{game_id}")
    take_seat(bob, "Bob")
    ada.wait_for_selector("#lay-aside")
    for page in (ada, bob):
        lay_aside_by_picking(page)
    state = native.get(game_id)
    idle = [ada, bob][1 - state.view.to_act[0]]
    idle.wait_for_selector("#status:has-text('Waiting for')")
    idle.bring_to_front()
    before = version(idle)
    idle.locator("#hand button.card").first.click()  # not this seat's turn
    refusal = idle.wait_for_selector("#refusal")
    assert refusal is not None
    assert refusal.get_attribute("data-reason") == "NOT_YOUR_TURN"
    assert "NOT_YOUR_TURN" in refusal.inner_text() and len(refusal.inner_text()) > len(
        "NOT_YOUR_TURN "
    )
    assert version(idle) == before == native.get(game_id).game.version  # nothing changed
    # The seat to act may click a card that is no legal play too: the server says why.
    acting = [ada, bob][state.view.to_act[0]]
    acting.bring_to_front()
    acting.locator("#hand button.card.legal").first.click()
    wait_for_version_above(idle, before)
    illegal = idle.locator("#hand button.card:not(.legal)")
    if illegal.count():
        idle.bring_to_front()
        illegal.first.click()
        idle.wait_for_selector("#refusal[data-reason='MUST_FOLLOW_SUIT']")
    assert native.get(game_id).game.version == before + 1


def test_a_page_resumes_after_the_server_restarts(browser: BrowserContext, redis_url: str) -> None:
    """Games live in Redis; the server goes away and comes back on the same web port: the
    pages say so, then carry on from where their stream stopped, with nothing replayed."""
    web_port = free_port()
    server = partial(running_server, redis_url=redis_url, web_port=web_port)
    pages = [browser.new_page() for _ in range(2)]
    try:
        with server() as first:
            pages[0].goto(f"http://127.0.0.1:{web_port}/#/")
            game_id = create_and_sit(pages[0], "counterpoint", "Ada")
            pages[1].goto(f"http://127.0.0.1:{web_port}/#/game/{game_id}")
            take_seat(pages[1], "Bob")
            pages[0].wait_for_selector("#lay-aside")
            lay_aside_by_picking(pages[0])
            pages[1].wait_for_selector(".seat[data-seat='0']:has-text('3 aside')")
            first.server.stop()
            pages[1].wait_for_selector("#note")  # the page says it lost the server
            with server():
                pages[1].wait_for_selector("#note", state="detached")  # and finds it again
                lay_aside_by_picking(pages[1])
                wait_for_version_above(pages[0], 1)  # Ada's page follows the new server's stream
                log = pages[0].locator("#log li").all_inner_texts()
                assert sum(line.startswith("Deal 1") for line in log) == 1
                assert "Bob lays 3 cards aside face down" in log
    finally:
        for page in pages:
            page.close()


@contextmanager
def static_site() -> Iterator[str]:
    """The web table's files served by another server (another origin): its origin."""
    handler = partial(SimpleHTTPRequestHandler, directory=str(STATIC))
    site = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{site.server_address[1]}"
    finally:
        site.shutdown()
        site.server_close()


def test_a_page_from_another_site_plays_only_from_an_allowed_origin(
    browser: BrowserContext,
) -> None:
    """CORS as Chromium enforces it: the same page, hosted elsewhere, calls the web port with
    its seat token (a preflighted request) when its origin is listed, and is refused when not."""
    with (
        static_site() as allowed,
        static_site() as other,
        running_server(web_port=0, web_origins=(allowed,)) as served,
    ):
        native, api = served.client, served.web_url
        page = browser.new_page()
        refused = browser.new_page()
        try:
            page.goto(f"{allowed}/?server={api}#/")
            game_id = create_and_sit(page, "counterpoint", "Ada")
            page.wait_for_selector("#status:has-text('Waiting for players')")
            assert native.get(game_id).game.seats[0].player_name == "Ada"
            refused.goto(f"{other}/?server={api}#/")
            message = refused.wait_for_selector("#lobby-message:not([hidden])")
            assert message is not None and "Unknown" in message.inner_text()
            assert refused.locator("#create").count() == 0
        finally:
            page.close()
            refused.close()
