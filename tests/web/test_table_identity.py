"""A player identity in the web table (issues 29 and 30), in a real browser (Debian's Chromium,
as in test_browser.py) against a server started with ``--auth-jwt-secret``: two browser
contexts with the same player token are one person's two devices.

- The token is given as the page's ``?player_token=`` fragment parameter (taken out of the
  address at once) or through ``window.tricktable.setPlayerToken``, and travels with every call
  as ``x-player-token``.
- A seat taken on device A is listed in device B's lobby (ListMyGames), is offered there as
  "take my seat back" although B holds no seat token, and plays from B once taken back.
- Another player's token, or none, is offered nothing; a token the server cannot verify is
  refused with its reason.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import jwt
import pytest
from playwright.sync_api import Browser, Page, Request, sync_playwright
from tricktable.v1 import game_service_pb2 as pb

from tests.servers import Served, running_server
from tests.web.support import SERVICE
from tests.web.test_browser import (
    ARGS,
    CHROMIUM,
    PATIENCE_MS,
    create_and_sit,
    hand,
    lay_aside_by_picking,
    version,
)

SECRET = "a test secret of thirty-two bytes or more, for HS256"


def player_token(player: str, key: str = SECRET) -> str:
    """The operator's token for ``player``: an HS256 JWT whose ``sub`` is the player id."""
    return jwt.encode({"sub": player, "exp": int(time.time()) + 600}, key, "HS256")


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with running_server(web_port=0, bot_delay_s=0.05, auth_jwt_secret=SECRET) as served:
        yield served


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def device(chromium: Browser, served: Served) -> Iterator[Callable[[str], Page]]:
    """Opens a page at a fragment of the web port in a browser context of its own (a device:
    its own localStorage and sessionStorage)."""
    contexts = []
    errors: list[str] = []

    def open_(fragment: str = "/") -> Page:
        context = chromium.new_context(viewport={"width": 1100, "height": 860})
        context.set_default_timeout(PATIENCE_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        calls: list[Request] = []
        page.on("requestfinished", lambda r: calls.append(r) if f"/{SERVICE}/" in r.url else None)
        CALLS[page] = calls
        page.goto(f"{served.web_url}/#{fragment}")
        return page

    yield open_
    for context in contexts:
        context.close()
    assert not errors, f"the page threw: {errors}"


#: Every GameService call each page has made (and had answered), from its first.
CALLS: dict[Page, list[Request]] = {}


def answered(page: Page, method: str) -> int:
    """How many calls of ``method`` the page has had answered."""
    return sum(r.url.endswith(f"/{method}") for r in CALLS[page])


def test_a_seat_taken_on_one_device_is_taken_back_and_played_on_another(
    device: Callable[[str], Page], served: Served
) -> None:
    ada = player_token("ada")
    # Device A is given the token in the fragment, which the page takes out of the address.
    first = device(f"/?player_token={ada}")
    first.wait_for_selector("#create")
    assert "player_token" not in first.url
    game_id = create_and_sit(first, "counterpoint", "Ada", bots={1: "heuristic"})
    first.wait_for_selector("#hand")
    assert CALLS[first] and all(r.headers.get("x-player-token") == ada for r in CALLS[first]), (
        "every call carries the player token"
    )
    seat = served.client.get(game_id).game.seats[0]
    assert seat.player_name == "Ada"

    # Device B: no seat token of its own; the embedding site gives the token by script.
    second = device("/")
    second.wait_for_selector("#create")
    assert second.locator("#account-games tr").count() == 0  # no token yet: no account games
    assert not any("x-player-token" in r.headers for r in CALLS[second])
    given = len(CALLS[second])
    second.evaluate("t => window.tricktable.setPlayerToken(t)", ada)
    row = second.wait_for_selector(f"#account-games tr[data-game='{game_id}']")
    assert row is not None and "Back to the table" in row.inner_text()
    assert row.get_attribute("data-seat") == "0"
    second.click(f"#account-games tr[data-game='{game_id}'] a")
    second.wait_for_selector("#take-back-identity")
    assert second.inner_text("#viewer") == "Spectator"
    assert "Take my seat back (Ada)" in second.inner_text("#identity-seat")
    assert second.evaluate(f"localStorage.getItem('tricktable.seats.{game_id}')") is None
    second.click("#take-back-identity")
    second.wait_for_selector("#viewer:text-is('You: Ada')")
    second.wait_for_selector("#hand")
    assert sorted(hand(second)) == sorted(hand(first))  # the same seat: the same cards
    assert second.locator("#identity-seat").count() == 0
    # Device B now holds a token of its own for the seat, kept as any seat is.
    assert second.evaluate(f"localStorage.getItem('tricktable.seats.{game_id}')") is not None
    assert all(r.headers.get("x-player-token") == ada for r in CALLS[second][given:])

    # A move from device B: Ada lays three cards aside, and device A follows it.
    before = version(first)
    picked = lay_aside_by_picking(second)
    first.wait_for_function(
        "v => Number(document.querySelector('#version')?.dataset.version) > v", arg=before
    )
    first.wait_for_selector(".seat[data-seat='0']:has-text('3 aside')")
    assert not set(picked) & set(hand(second))
    game = served.client.get(game_id)
    assert game.game.status == pb.GAME_STATUS_PLAYING
    assert game.view.seats[0].aside_count == 3
    # The seat is still one: device A plays on with its own token.
    assert first.inner_text("#viewer") == "You: Ada"


def test_another_player_or_none_is_offered_no_seat(
    device: Callable[[str], Page], served: Served
) -> None:
    first = device(f"/?player_token={player_token('ada')}")
    game_id = create_and_sit(first, "sixty-six", "Ada", bots={1: "heuristic"})
    first.wait_for_selector("#hand")
    for fragment in (f"/game/{game_id}?player_token={player_token('bob')}", f"/game/{game_id}"):
        other = device(fragment)
        other.wait_for_selector("#viewer:text-is('Spectator')")
        other.wait_for_selector(".seat[data-seat='0']")
        if "player_token" in fragment:  # the player's games were read: no seat of theirs here
            other.wait_for_selector("section.table[data-identity-seat='none']")
            assert answered(other, "ListMyGames")
        else:
            assert other.locator("section.table[data-identity-seat]").count() == 0
        assert other.locator("#take-back-identity").count() == 0
        assert other.locator("#take-back").count() == 0


def test_a_token_the_server_cannot_verify_is_refused_with_its_reason(
    device: Callable[[str], Page],
) -> None:
    forged = player_token("ada", key="another secret of thirty-two bytes or more, forged")
    page = device(f"/?player_token={forged}")
    page.wait_for_selector("#lobby-message:not([hidden])")
    assert "INVALID_PLAYER_TOKEN" in page.inner_text("#lobby-message")
