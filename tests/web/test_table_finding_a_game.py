"""Finding a game in the web table (issues 29 and 30), in a real browser (Debian's Chromium, as
in test_browser.py): two browser contexts are two people, each with its own localStorage.

- "Play again" at the end of a game: who has accepted is shown, and both land in the next game
  (each one seat on, with the seat token the ended game's seat had).
- Quick play: a wait with a cancel button, resumed after a reload from the ticket kept in
  localStorage; two people are seated at one game.
- An unlisted table: the creator's link carries the invite code in the fragment; opened in
  another context it takes a seat; a revoked link takes none.
- The lobby's games in play, each with "Watch".
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from tricktable.v1 import game_service_pb2 as pb

from tests.servers import Served, running_server
from tests.web.test_browser import (
    ARGS,
    CHROMIUM,
    PATIENCE_MS,
    create_and_sit,
    play_until,
    status,
    take_seat,
)

SHOTS = os.environ.get("TRICKTABLE_SCREENSHOTS")


def shot(page: Page, name: str) -> None:
    """A picture of the page for docs/screenshots (with ``TRICKTABLE_SCREENSHOTS=dir``)."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{SHOTS}/{name}.png")


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with running_server(web_port=0, bot_delay_s=0.05) as served:
        yield served


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    with sync_playwright() as playwright, tempfile.TemporaryDirectory():
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def person(chromium: Browser, served: Served) -> Iterator[Callable[[str], Page]]:
    """Opens a page at a path of the web port in a browser context of its own (a person: own
    localStorage, own sessionStorage)."""
    contexts = []
    errors: list[str] = []

    def open_(path: str = "/") -> Page:
        context = chromium.new_context(viewport={"width": 1100, "height": 860})
        context.set_default_timeout(PATIENCE_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{served.web_url}/#{path}")
        return page

    yield open_
    for context in contexts:
        context.close()
    assert not errors, f"the page threw: {errors}"


def game_of(page: Page) -> str:
    return page.url.rsplit("/", 1)[-1]


def test_play_again_takes_both_players_to_the_next_game(
    person: Callable[[str], Page], served: Served
) -> None:
    ada = person("/")
    game_id = create_and_sit(ada, "sixty-six", "Ada", options={"target_game_points": "1"})
    bob = person(f"/game/{game_id}")
    take_seat(bob, "Bob")
    ada.wait_for_selector("#hand")
    # Sixty-Six scores only a claim: both claim when they may, so the game ends soon.
    play_until([ada, bob], lambda: "Game over" in status(ada), [("claim",), ("claim",)])
    assert served.client.get(game_id).view.finished
    for page in (ada, bob):
        page.wait_for_selector("#play-again")
    # In one step in the page: the end may still be redrawn (the stream reopens for offers).
    bob.evaluate("document.querySelector('#game-over')?.scrollIntoView()")
    shot(bob, "play-again")

    ada.click("#play-again")
    ada.wait_for_selector("#rematch:has-text('Accepted: Ada (you).')")
    assert "Waiting for Bob" in ada.inner_text("#rematch")
    assert ada.locator("#play-again").count() == 0  # accepted once
    # Bob learns it through the ended game's stream.
    bob.wait_for_selector("#rematch:has-text('Accepted: Ada.')")
    assert bob.url.endswith(game_id)

    bob.click("#play-again")
    for page in (ada, bob):
        page.wait_for_function("old => !location.hash.endsWith(old)", arg=game_id)
    next_id = game_of(ada)
    assert game_of(bob) == next_id != game_id
    following = served.client.get(next_id).game
    assert following.status == pb.GAME_STATUS_PLAYING
    # Each one seat on: Ada played seat 0 and now plays seat 1.
    assert [s.player_name for s in following.seats] == ["Bob", "Ada"]
    ada.wait_for_selector("#viewer:text-is('You: Ada')")
    bob.wait_for_selector("#viewer:text-is('You: Bob')")
    ada.wait_for_selector("#hand")
    # The seats play the next game (their token is the ended game's, as Rematch says).
    play_until([ada, bob], lambda: served.client.get(next_id).game.version >= 2, limit_s=60)

    # A tab opened later on the ended game shows its end, with the way to the next game.
    again = ada.context.new_page()
    again.goto(f"{served.web_url}/#/game/{game_id}")
    again.wait_for_selector("#rematch-game")
    assert again.url.endswith(f"#/game/{game_id}")
    assert again.get_attribute("#rematch-game", "href") == f"#/game/{next_id}"


def test_play_again_against_a_server_bot_starts_at_once(
    person: Callable[[str], Page], served: Served
) -> None:
    ada = person("/")
    game_id = create_and_sit(ada, "counterpoint", "Ada", bots={1: "heuristic"})
    ada.wait_for_selector("#hand")
    ada.click("#leave")
    ada.click("#resign-yes")  # an abandoned game may be played again too
    ada.click("#play-again")  # the only person at the table: the next game starts now
    ada.wait_for_function("old => !location.hash.endsWith(old)", arg=game_id)
    next_id = game_of(ada)
    ada.wait_for_selector("#viewer:text-is('You: Ada')")
    seats = served.client.get(next_id).game.seats
    assert seats[1].player_name == "Ada" and seats[0].bot == "heuristic"


def test_quick_play_waits_resumes_after_a_reload_and_seats_two_people(
    person: Callable[[str], Page], served: Served
) -> None:
    ada, bob = person("/"), person("/")
    for page, name in ((ada, "Ada"), (bob, "Bob")):
        page.wait_for_selector("#quick-start")
        page.select_option("#quick-type", "sixty-six")
        page.fill("#quick-name", name)

    # A wait can be cancelled: the ticket is gone, and nobody is seated with it.
    ada.click("#quick-start")
    ada.wait_for_selector("#quick-waiting")
    ticket = ada.evaluate("JSON.parse(localStorage.getItem('tricktable.quickplay')).ticket")
    ada.click("#quick-cancel")
    ada.wait_for_selector("#quick-start")
    assert ada.evaluate("localStorage.getItem('tricktable.quickplay')") is None
    # The server no longer knows the ticket: resuming it is refused.
    with pytest.raises(grpc.RpcError) as gone:
        list(served.client.stub.QuickPlay(pb.QuickPlayRequest(ticket=ticket), timeout=10))
    assert gone.value.code() == grpc.StatusCode.NOT_FOUND
    # A browser that still holds a ticket the queue has dropped is told so, and forgets it.
    ada.evaluate(
        "t => localStorage.setItem('tricktable.quickplay',"
        " JSON.stringify({ ticket: t, gameType: 'sixty-six', name: 'Ada' }))",
        ticket,
    )
    ada.reload()
    ada.wait_for_selector("#quick-over")
    assert ada.evaluate("localStorage.getItem('tricktable.quickplay')") is None
    assert ada.locator("#lobby-message:not([hidden])").count() == 0

    ada.select_option("#quick-type", "sixty-six")
    ada.fill("#quick-name", "Ada")
    ada.click("#quick-start")
    ada.wait_for_selector("#quick-waiting[data-waiting='1']")
    shot(ada, "quick-play-waiting")
    kept = ada.evaluate("JSON.parse(localStorage.getItem('tricktable.quickplay')).ticket")
    assert kept and kept != ticket
    ada.reload()  # the wait resumes from the ticket this browser keeps
    ada.wait_for_selector("#quick-waiting")
    assert ada.evaluate("JSON.parse(localStorage.getItem('tricktable.quickplay')).ticket") == kept

    bob.click("#quick-start")
    for page in (ada, bob):
        page.wait_for_selector("#viewer:has-text('You:')")
    game_id = game_of(ada)
    assert game_of(bob) == game_id
    assert ada.evaluate("localStorage.getItem('tricktable.quickplay')") is None
    game = served.client.get(game_id).game
    assert game.game_type == "sixty-six" and game.status == pb.GAME_STATUS_PLAYING
    assert sorted(s.player_name for s in game.seats) == ["Ada", "Bob"]
    ada.wait_for_selector("#hand")
    bob.wait_for_selector("#hand")


def test_an_unlisted_tables_link_joins_and_a_revoked_one_does_not(
    person: Callable[[str], Page], served: Served
) -> None:
    ada = person("/")
    ada.wait_for_selector("#create")
    ada.check("#unlisted")
    game_id = create_and_sit(ada, "sixty-six", "Ada")
    link = ada.wait_for_selector("#invite-link")
    assert link is not None
    address = link.input_value()
    code = address.split("#/join/", 1)[1].split("/", 1)[1]
    assert address.startswith(served.web_url) and len(code) >= 22  # in the fragment only
    shot(ada, "unlisted-table-link")
    listed = served.client.stub.ListGames(pb.ListGamesRequest(page_size=100)).games
    assert game_id not in {g.game_id for g in listed}

    bob = person(address.split("#", 1)[1])
    take_seat(bob, "Bob")
    assert "#/join/" not in bob.url and bob.url.endswith(f"#/game/{game_id}")  # code dropped
    ada.wait_for_selector("#hand")
    assert [s.player_name for s in served.client.get(game_id).game.seats] == ["Ada", "Bob"]

    # Another table's link, revoked by its creator: opening it takes no seat.
    ada.goto(f"{served.web_url}/#/")
    ada.wait_for_selector("#create")
    ada.check("#unlisted")
    other = create_and_sit(ada, "sixty-six", "Ada")
    revoked = ada.wait_for_selector("#invite-link")
    assert revoked is not None
    old = revoked.input_value()
    ada.click("#revoke-invite")
    ada.wait_for_selector("#invite-note:has-text('revoked')")
    assert ada.locator("#invite-link").count() == 0
    cleo = person(old.split("#", 1)[1])
    cleo.wait_for_selector("button.take-seat")
    cleo.fill("#seat-name", "Cleo")
    cleo.click("button.take-seat")
    cleo.wait_for_selector("#refusal[data-reason='INVALID_INVITE']")
    assert served.client.get(other).game.seats[1].taken is False


def test_the_lobby_lists_games_in_play_to_watch(
    person: Callable[[str], Page], served: Served
) -> None:
    ada = person("/")
    game_id = create_and_sit(ada, "counterpoint", "Ada", bots={1: "heuristic"})
    ada.wait_for_selector("#hand")
    ada.goto(f"{served.web_url}/#/")
    ada.wait_for_selector("#create")
    ada.check("#unlisted")
    hidden = create_and_sit(ada, "counterpoint", "Ada", bots={1: "heuristic"})

    watcher = person("/")
    row = watcher.wait_for_selector(f"#playing-games tr[data-game='{game_id}']")
    assert row is not None and "Ada" in row.inner_text()
    assert watcher.locator(f"#playing-games tr[data-game='{hidden}']").count() == 0
    assert watcher.locator(f"#open-games tr[data-game='{game_id}']").count() == 0
    shot(watcher, "lobby-games-in-play")
    watcher.click(f"#playing-games tr[data-game='{game_id}'] a.watch")
    watcher.wait_for_selector("#viewer:text-is('Spectator')")
    watcher.wait_for_selector(".felt")
    assert watcher.url.endswith(f"#/game/{game_id}")
    assert watcher.locator("#hand").count() == 0  # a spectator sees no hand
