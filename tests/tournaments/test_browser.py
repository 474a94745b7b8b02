"""The web table's tournament pages in a real browser (Debian's Chromium, headless, driven by
Playwright, as tests/web/test_browser.py): a hosted tournament followed live to its end, its
standings and a link to watch each game; the ladder page."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import Served, running_server
from tests.tournaments.support import create_request, stub

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(
        "Chromium is not installed (apt-get install chromium; .ci/run installs it)",
        allow_module_level=True,
    )

from playwright.sync_api import BrowserContext, sync_playwright  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with running_server(web_port=0, bot_delay_s=0.01) as served:
        yield served


@pytest.fixture(scope="module")
def browser() -> Iterator[BrowserContext]:
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=ARGS, headless=True
        )
        context.set_default_timeout(60_000)
        yield context
        context.close()


def test_a_tournament_page_follows_the_standings_live_and_links_each_game(
    served: Served, browser: BrowserContext
) -> None:
    channel, tournaments = stub(served.address)
    with channel:
        made = tournaments.CreateTournament(
            create_request(
                ["heuristic", "random"], rounds=2, games_at_once=1, options={"target_score": 30}
            )
        )
    tid = made.tournament.tournament_id
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{served.web_url}/#/tournament/{tid}")
    page.wait_for_selector("p.status:text('finished')")
    rows = page.locator("table.standings tbody tr")
    assert rows.count() == 2
    assert {rows.nth(i).locator("td").nth(1).inner_text() for i in range(2)} == {
        "heuristic",
        "random",
    }
    assert page.locator("ol.tournament-games li").count() == 4
    link = page.locator(f"a[href='#/game/{tid}-0']")
    assert link.count() == 1
    page.goto(f"{served.web_url}/#/tournaments")
    page.wait_for_selector(f"a[href='#/tournament/{tid}']")
    page.goto(f"{served.web_url}/#/ladder/counterpoint")
    page.wait_for_selector("h2:text('Ladder: counterpoint')")
    page.close()
    assert not errors, errors
