"""Each game's table in a real browser, on a desktop and on a 390x844 phone: the pictures in
``docs/screenshots/`` are taken here (with ``TRICKTABLE_SCREENSHOTS=docs/screenshots``), and
what a person needs on the screen is checked on each: on a phone the hand and the trick are in
view together, without scrolling, and no glyph needs an emoji font.

The game is set up through the gRPC door (every seat joined, then moves until a card lies on
the table and seat 0 is to act); the page holds seat 0 as a browser that joined it would.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from tricktable.v1 import game_service_pb2 as pb
from tricktable.v1 import moves_pb2

from tests.servers import Served, running_server
from tests.web.test_browser import CHROMIUM, PATIENCE_MS

SHOTS = os.environ.get("TRICKTABLE_SCREENSHOTS")
NAMES = ("Ada", "Bob", "Cleo", "Dan")
SIZES = {"desktop": (1280, 860), "phone": (390, 844)}
GAMES = ("counterpoint", "ninety-nine", "sixty-six", "nominations")
#: Code points that only an emoji font draws (or draws in colour): the page must not need one.
EMOJI_RANGES = ((0x1F000, 0x1FAFF), (0x2300, 0x23FF), (0x2B00, 0x2BFF), (0xFE0F, 0xFE0F))


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with running_server(web_port=0) as served:
        yield served


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        yield browser
        browser.close()


def seated(served: Served, game_type: str) -> tuple[str, list[str]]:
    """A game of ``game_type`` with every seat joined, played on until a card lies on the table
    and seat 0 is to act: its id and the seats' tokens."""
    stub = served.client.stub
    created = stub.CreateGame(
        pb.CreateGameRequest(game_type=game_type, seed=f"screens-{game_type}".encode())
    )
    game_id = created.game.game_id
    tokens = [
        stub.JoinGame(pb.JoinGameRequest(game_id=game_id, seat=s, player_name=NAMES[s])).seat_token
        for s in range(len(created.game.seats))
    ]
    for _ in range(400):
        state = served.client.get(game_id, tokens[0])
        if state.view.trick.cards and 0 in state.view.to_act:
            return game_id, tokens
        seat = state.view.to_act[0] if state.view.to_act else state.view.may_act[0]
        mine = served.client.get(game_id, tokens[seat])
        served.client.move(game_id, tokens[seat], _sensible(mine), mine.game.version)
    raise AssertionError(f"{game_type}: no card reached the table")


def _sensible(state: pb.GetGameResponse) -> moves_pb2.Move:
    """A move that gets a game going: the first bid when nobody has bid yet (a Nominations
    auction all passed would be dealt again), else a pass where there is one, else the first."""
    moves = list(state.view.legal_moves)
    detail = state.view.nominations_detail
    bids = [m for m in moves if m.WhichOneof("kind") == "bid"]
    if bids and state.view.HasField("nominations_detail") and not detail.HasField("high_bid"):
        return bids[0]
    passes = [m for m in moves if m.WhichOneof("kind") == "call" and m.call.call == "pass"]
    return passes[0] if passes else moves[0]


def sit(page: Page, served: Served, game_id: str, seat: int, token: str) -> None:
    """Open the table holding ``seat``, as this browser would after joining it."""
    page.goto(f"{served.web_url}/#/")
    page.evaluate(
        "([id, seat, token]) => localStorage.setItem("
        "`tricktable.seats.${id}`, JSON.stringify([{ seat, token }]))",
        [game_id, seat, token],
    )
    page.goto(f"{served.web_url}/#/game/{game_id}")
    page.locator(f"button.take-back[data-seat='{seat}']").click()


def emoji_in(page: Page) -> list[str]:
    """The characters on the page, and those CSS draws (``content``), that need an emoji font."""
    text: str = page.evaluate(
        """() => document.body.innerText
             + [...document.querySelectorAll('*')].map(el => ['::before', '::after']
                 .map(p => getComputedStyle(el, p).content).join('')).join('')
             + [...document.querySelectorAll('[data-pip]')].map(el => el.dataset.pip).join('')"""
    )
    return [c for c in text if any(lo <= ord(c) <= hi for lo, hi in EMOJI_RANGES)]


def in_view(page: Page, selector: str) -> bool:
    """Whether the whole of the element is on the screen as it is (nothing scrolled)."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    return box["y"] >= 0 and box["y"] + box["height"] <= size["height"]


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("game_type", GAMES)
def test_each_games_table_on_a_desktop_and_a_phone(
    chromium: Browser,
    served: Served,
    game_type: str,
    size: str,
) -> None:
    width, height = SIZES[size]
    game_id, tokens = seated(served, game_type)
    context = chromium.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(PATIENCE_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        sit(page, served, game_id, 0, tokens[0])
        page.wait_for_selector("#hand button.card.legal")
        page.wait_for_selector("#trick [data-card]")
        page.wait_for_timeout(200)  # the fonts and the last redraw
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=f"{SHOTS}/{game_type}-{size}.png")
        # The trick, the move to make and the whole hand, on one screen without scrolling.
        assert page.evaluate("window.scrollY") == 0
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways
        for part in ("#trick", "#hand", "#status"):
            assert in_view(page, part), f"{part} is off the screen"
        assert not emoji_in(page)
        # Seats by name, the facts in words: no engine field names, no seat numbers.
        text = page.inner_text("main")
        for engine_word in ("seat 0", "seat 1", "version", "partner status", "ladder", "_"):
            assert engine_word not in text, engine_word
        names = page.locator(".felt .seat .who .name").all_inner_texts()
        assert sorted(n.removesuffix(" (you)") for n in names) == sorted(NAMES[: len(tokens)]), (
            names
        )
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("size", list(SIZES))
def test_the_lobby_on_a_desktop_and_a_phone(
    chromium: Browser,
    served: Served,
    size: str,
) -> None:
    width, height = SIZES[size]
    seated(served, "counterpoint")  # a game in play
    context = chromium.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(f"{served.web_url}/#/")
        page.wait_for_selector("#create")
        page.wait_for_timeout(300)
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=f"{SHOTS}/lobby-{size}.png")
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways
        assert not emoji_in(page)
    finally:
        context.close()
