"""The web table as a person uses it, in a real browser (Debian's Chromium, as in
test_browser.py, whose fixtures and helpers these tests share): a seat kept in this browser and
taken back from a new tab, several seats of one game in one browser, Resign asked first, the bid
shown as bid cards are picked, a Nominations contract chosen as trumps then a card (a card of
one's own: "you play alone"), move buttons explained, the log kept at its newest line, the end
of a game with its score sheet and "new game", the new-game form, and the bundle served
compressed and cacheable.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import httpx
from playwright.sync_api import BrowserContext, Page
from tricktable.v1 import game_service_pb2 as pb

from tests.servers import Served
from tests.web.test_browser import (  # noqa: F401 (browser, served, open_page: fixtures)
    act,
    browser,
    create_and_sit,
    hand,
    open_page,
    play_until,
    served,
    status,
    take_seat,
    version,
    wait_for_version_above,
)

# Fixtures shared with test_browser.py arrive as parameters of the same names.
# ruff: noqa: F811

SHOTS = os.environ.get("TRICKTABLE_SCREENSHOTS")


def shot(page: Page, name: str) -> None:
    """A picture of the page for docs/screenshots (with ``TRICKTABLE_SCREENSHOTS=dir``)."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{SHOTS}/{name}.png")


SUIT_VALUES = {
    "ninety-nine": {"♣": 3, "♥": 2, "♠": 1, "♦": 0},
    "counterpoint": {"♣": 30, "♥": 20, "♠": 10, "♦": 0},
}


def test_a_seat_is_kept_in_the_browser_and_taken_back_from_a_new_tab(
    open_page: Callable[..., Page], served: Served
) -> None:
    ada = open_page("/")
    game_id = create_and_sit(ada, "counterpoint", "Ada")
    bob = open_page(f"/game/{game_id}")
    take_seat(bob, "Bob")  # a second seat of the same game, in the same browser
    ada.wait_for_selector("#hand")
    held = hand(ada)
    ada.close()  # the tab is gone (closed, crashed, discarded by a phone)

    again = open_page(f"/game/{game_id}")
    again.wait_for_selector("#take-back")
    assert again.inner_text("#viewer") == "Spectator"  # a new tab plays no seat on its own
    offered = again.locator("#take-back button.take-back")
    assert sorted(offered.evaluate_all("bs => bs.map(b => b.dataset.seat)")) == ["0", "1"]
    assert "Take my seat back (Ada)" in again.inner_text("#take-back")
    shot(again, "take-my-seat-back")
    again.locator("button.take-back[data-seat='0']").click()
    again.wait_for_selector("#viewer:text-is('You: Ada')")
    again.wait_for_selector("#hand")
    assert hand(again) == held
    # Still offered: the other seat this browser holds, to play it here instead.
    assert again.locator("button.take-back[data-seat='1']").count() == 1
    # The seat plays: laying aside from the tab that took it back.
    again.wait_for_selector("#lay-aside")
    assert served.client.get(game_id).game.seats[0].player_name == "Ada"

    # The lobby lists the game among this browser's games, with the way back to it.
    lobby = open_page("/")
    row = lobby.wait_for_selector(f"#your-games tr[data-game='{game_id}']")
    assert row is not None and "Back to the table" in row.inner_text()


def test_a_seat_left_before_the_game_began_is_forgotten(
    open_page: Callable[..., Page],
) -> None:
    ada = open_page("/")
    game_id = create_and_sit(ada, "counterpoint", "Ada")
    ada.click("#leave")  # "Leave the seat": nothing is lost, no question asked
    ada.wait_for_selector("#viewer:text-is('Spectator')")
    held = ada.evaluate(f"localStorage.getItem('tricktable.seats.{game_id}')")
    assert held is None
    assert ada.locator("#take-back").count() == 0


def test_resign_asks_first(open_page: Callable[..., Page], served: Served) -> None:
    ada = open_page("/")
    game_id = create_and_sit(ada, "counterpoint", "Ada", bots={1: "heuristic"})
    ada.wait_for_selector("#hand")
    ada.click("#leave")
    ada.wait_for_selector("#confirm-resign")
    assert "Resign this game?" in ada.inner_text("#confirm-resign")
    shot(ada, "resign-asks-first")
    assert served.client.get(game_id).game.status == pb.GAME_STATUS_PLAYING  # nothing sent
    ada.click("#resign-no")
    ada.wait_for_selector("#confirm-resign", state="detached")
    assert served.client.get(game_id).game.status == pb.GAME_STATUS_PLAYING
    ada.click("#leave")
    ada.click("#resign-yes")
    ada.wait_for_selector("#status:has-text('Abandoned: Ada (you) resigned')")
    assert served.client.get(game_id).game.status == pb.GAME_STATUS_ABANDONED


def expected_bid(game_type: str, picked: list[str], high: bool) -> str:
    bid = sum(SUIT_VALUES[game_type][card[-1]] for card in picked)
    more = f" (or {bid + 100})" if high and bid <= 20 else ""
    return f"{' '.join(picked)} = bid {bid}{more}"


def test_the_bid_is_shown_as_the_cards_are_picked(
    open_page: Callable[..., Page], served: Served
) -> None:
    """Ninety-Nine (suits 3/2/1/0) and Counterpoint (x10, with the +100 reading): the bid the
    picked cards make, never more than three picked, and the rule in one line. Then Ninety-
    Nine's premium call is offered with what declare and reveal mean."""
    for game_type, bots in (
        ("counterpoint", {1: "heuristic"}),
        ("ninety-nine", {1: "heuristic", 2: "heuristic"}),
    ):
        page = open_page("/")
        create_and_sit(page, game_type, "Ada", bots=bots)
        page.wait_for_selector("#lay-aside")
        assert "Your bid is the sum of the suits of the 3 cards" in page.inner_text("#moves")
        # The cheapest cards first (Counterpoint's low bids read +100 too); never the Joker.
        cards = sorted(
            (c for c in hand(page) if c[-1] in SUIT_VALUES[game_type]),
            key=lambda c: SUIT_VALUES[game_type][c[-1]],
        )
        picked: list[str] = []
        for card in cards[:4]:
            page.locator(f"#hand button.card[data-card='{card}']").click()
            picked = picked if len(picked) == 3 else [*picked, card]
            page.wait_for_selector(f"#moves:has-text('{len(picked)} picked')")
            if len(picked) < 3:
                assert page.inner_text("#bid-made").endswith("so far")
        # The fourth click was not taken: exactly three, and the bid they make.
        assert page.locator("#hand button.card.chosen").count() == 3
        shown = page.inner_text("#bid-made").strip()
        assert shown == expected_bid(game_type, picked, high=game_type == "counterpoint")
        shot(page, f"{game_type}-bid-cards")
        before = version(page)
        page.click("#lay-aside:not([disabled])")
        wait_for_version_above(page, before)
        mine = page.locator(".seat.mine .bid")
        mine.wait_for()
        assert mine.inner_text() == f"bid {shown.split('= bid ')[1].split()[0]}"
    # Ninety-Nine's premium call comes round to Ada: the buttons say what they do.
    call = page.wait_for_selector("#moves .choice[data-kind='call']")
    assert call is not None
    words = call.inner_text()
    assert "declare" in words and "reveal" in words and "face up" in words
    page.locator("#moves button.move[data-move='pass']").click()


def test_a_nominations_contract_is_trumps_then_a_card_and_a_card_of_ones_own_is_solo(
    open_page: Callable[..., Page], served: Served
) -> None:
    native = served.client
    ada = open_page("/")
    game_id = create_and_sit(ada, "nominations", "Ada")
    others = {}
    for seat, name in ((1, "Bob"), (2, "Cleo"), (3, "Dan")):
        joined = native.stub.JoinGame(
            pb.JoinGameRequest(game_id=game_id, seat=seat, player_name=name)
        )
        others[seat] = joined.seat_token
    ada.wait_for_selector("#hand")
    # The others pass whenever they must call; Ada bids the lowest when it comes round.
    for _ in range(40):
        state = native.get(game_id)
        if state.view.phase != "auction":
            break
        seat = state.view.to_act[0]
        if seat == 0:
            ada.wait_for_selector("#moves button.move[data-kind='bid']")
            assert "Bid the tricks you and a partner will take" in ada.inner_text("#moves")
            before = version(ada)
            ada.locator("#moves button.move[data-kind='bid']").first.click()
            wait_for_version_above(ada, before)
            continue
        mine = native.get(game_id, others[seat])
        passes = [m for m in mine.view.legal_moves if m.WhichOneof("kind") == "call"]
        native.move(game_id, others[seat], passes[0], mine.game.version)
    ada.wait_for_selector("#moves .contract")
    assert ada.locator("#moves select").count() == 0  # no list of 260 contracts
    assert "its holder is your partner" in ada.inner_text("#moves .contract")
    ada.locator("#moves .trump-choice[data-trump='hearts']").click()
    ada.wait_for_selector("#moves .call-card")
    shot(ada, "nominations-contract")
    callable_ = ada.locator("#moves .call-card").evaluate_all("bs => bs.map(b => b.dataset.card)")
    own = [c for c in hand(ada) if c in callable_]
    assert own, "the declarer may call a card of their own hand"
    before = version(ada)
    ada.locator(f"#moves .call-card[data-card='{own[0]}']").click()
    wait_for_version_above(ada, before)
    declared = native.get(game_id).view.nominations_detail
    assert declared.declarer == 0 and native.get(game_id).view.trump == 2  # SUIT_HEARTS
    # A secret solo: the log and the details say "you play alone", never "the partner".
    ada.wait_for_selector(
        f"#log li:has-text('You hold the called card {own[0]} yourself: you play alone')"
    )
    assert "you are the partner" not in ada.inner_text("#log")
    assert "play alone" in ada.inner_text(".detail")
    assert "Ada (you): 10 tricks, trumps ♥" in ada.inner_text(".detail")


def test_the_log_keeps_its_newest_line_in_view(
    open_page: Callable[..., Page],
) -> None:
    ada = open_page("/")
    create_and_sit(ada, "counterpoint", "Ada", bots={1: "heuristic"})
    ada.wait_for_selector("#hand")
    play_until([ada], lambda: ada.locator("#log li").count() > 20)
    # The bot keeps playing and the log keeps growing: its newest line is looked at in one step
    # in the page (a locator read twice may meet two renders), after each render settles.
    ada.wait_for_function(
        """() => {
            const log = document.querySelector('#log');
            const items = log ? log.querySelectorAll('li') : [];
            if (items.length === 0) return false;
            const box = log.getBoundingClientRect();
            const newest = items[items.length - 1].getBoundingClientRect();
            const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 2;
            return atEnd && newest.height > 0 && box.top <= newest.top
                && newest.bottom <= box.bottom + 1;
        }""",
        timeout=10_000,
    )


def test_the_end_of_a_game_shows_the_score_sheet_and_offers_a_new_game(
    open_page: Callable[..., Page], served: Served
) -> None:
    ada = open_page("/")
    game_id = create_and_sit(
        ada, "counterpoint", "Ada", bots={1: "heuristic"}, options={"target_score": "1"}
    )
    ada.wait_for_selector("#hand")
    play_until([ada], lambda: "Game over" in status(ada))
    final = served.client.get(game_id)
    ada.wait_for_selector("#game-over")
    ada.evaluate("document.querySelector('#game-over')?.scrollIntoView()")  # one step in the page
    shot(ada, "game-over")
    standing = ada.locator("#game-over .standing li").all_inner_texts()
    scores = sorted((s.score for s in final.view.seats), reverse=True)
    assert [int(re.findall(r"-?\d+", line)[0]) for line in standing] == scores
    rows = ada.locator("#score-sheet tr[data-deal]")
    assert rows.count() >= 1
    totals = ada.locator("#score-sheet tr.total td").all_inner_texts()
    assert [int(t) for t in totals] == [s.score for s in final.view.seats]
    assert ada.locator("#game-over #play-new-game").count() == 1
    ada.click("#play-new-game")
    ada.wait_for_selector("#create")
    assert ada.eval_on_selector("#game-type", "s => s.value") == "counterpoint"


def test_the_new_game_form_hides_what_does_not_apply_and_fills_the_table_with_bots(
    open_page: Callable[..., Page],
) -> None:
    page = open_page("/")
    page.wait_for_selector("#create")
    page.select_option("#game-type", "counterpoint")
    assert page.locator("#option-players").is_hidden()  # one value only
    assert page.locator("#option-deal_batches").is_hidden()  # no effect on play
    assert page.eval_on_selector("#seat-1-player", "s => s.value") == "heuristic"
    page.select_option("#game-type", "nominations")
    page.click("details.rules > summary")
    assert page.locator("#option-deal_count").is_hidden()  # the game ends at a target score
    page.select_option("#option-end_mode", "deals")
    assert page.locator("#option-deal_count").is_visible()
    assert page.locator("#option-target_score").is_hidden()
    bots = page.locator(".seat-players select").evaluate_all("ss => ss.map(s => s.value)")
    assert bots == ["heuristic"] * 3
    # Alone against the bots at once: the game begins as soon as it is created.
    page.fill("#player-name", "Ada")
    page.click("#create")
    page.wait_for_selector("#hand")


def test_the_bundle_is_served_compressed_and_cacheable(
    browser: BrowserContext, served: Served
) -> None:
    base = served.web_url
    index = httpx.get(f"{base}/", headers={"accept-encoding": "gzip"})
    assert index.headers["cache-control"] == "no-cache" and index.headers.get("etag")
    again = httpx.get(f"{base}/", headers={"if-none-match": index.headers["etag"]})
    assert again.status_code == 304  # unchanged: nothing sent again
    script = re.search(r'src="(app\.js\?v=[0-9a-f]+)"', index.text)
    assert script is not None
    with httpx.Client() as client:
        raw = client.get(f"{base}/{script.group(1)}", headers={"accept-encoding": "identity"})
        packed = client.get(f"{base}/{script.group(1)}", headers={"accept-encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert packed.content == raw.content  # httpx inflated it: the same script
    sent = packed.num_bytes_downloaded
    assert sent < len(raw.content) / 2
    print(f"app.js: {len(raw.content)} bytes, {sent} gzipped")
    # In the browser: a second visit takes the script from its cache, not from the network.
    page = browser.new_page()
    try:
        page.goto(f"{base}/#/")
        page.wait_for_selector("#create")
        page.goto(f"{base}/?again#/")
        page.wait_for_selector("#create")
        moved = page.evaluate(
            "performance.getEntriesByType('resource').filter(e => e.name.includes('app.js'))"
            ".map(e => e.transferSize)"
        )
        assert moved == [0], moved
    finally:
        page.close()
