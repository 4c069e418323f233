"""The night's story in a real Chromium: the Tonight page with its share card and
the Copy button, and a closed table's TV telling the story at 1920x1080 without overflow."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from matches.play.services.tables import table_close
from tests.browser.helpers import SCREENSHOTS
from tests.browser.test_browser_night import LONG_NAMES, TV, overflowing
from tests.factories import make_table, open_match, tap

pytestmark = pytest.mark.browser


def play(table, order):
    for name in order:
        tap(table, name)


def long_night():
    table = make_table(players=LONG_NAMES, name="The Crown & Anchor, Saturday night")
    play(table, LONG_NAMES[1:][::-1])  # Maximiliana wins
    play(table, LONG_NAMES[1:][::-1])  # and again
    play(table, LONG_NAMES[:-1])  # João Pedro wins
    return table


def test_the_tonight_page_shows_the_card_and_copies_the_text(browser, site):
    table = long_night()
    context = browser.new_context(viewport={"width": 1024, "height": 768}, locale="en-GB")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site)
    page = context.new_page()
    page.goto(f"{site}/tables/{table.pk}/tonight/")
    expect(page.locator(".night-champion")).to_have_text(
        "♛ Champion of the night: Maximiliana Wolstenholme-Fitzgerald, with 6 points."
    )
    expect(page.locator(".night-lines tbody tr")).to_have_count(10)
    card = page.get_by_role("img", name="The night’s share card")
    expect(card).to_be_visible()
    assert card.evaluate("img => img.complete && img.naturalWidth") == 1080
    copy = page.get_by_role("button", name="Copy")
    expect(copy).to_be_visible()  # shown by the script; hidden without it
    copy.click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.locator("#night-text").input_value()
    assert copied.splitlines()[1].startswith("Champion of the night: Maximiliana")
    violations = Axe().run(page).response["violations"]
    assert [v["id"] for v in violations] == []
    page.screenshot(path=SCREENSHOTS / "tonight.png", full_page=True)
    context.close()


def test_a_closed_tables_tv_tells_the_night_without_overflow(browser, site):
    table = long_night()
    table_close(table_id=table.pk, by=table.created_by, discard_match_id=open_match(table).pk)
    context = browser.new_context(viewport=TV, locale="en-GB")
    page = context.new_page()
    page.goto(f"{site}/tables/{table.pk}/board/")
    expect(page.locator(".night-champion")).to_contain_text("Champion of the night")
    expect(page.locator(".night-lines tbody tr")).to_have_count(10)
    page.screenshot(path=SCREENSHOTS / "tv-closed-story.png")
    assert page.evaluate("document.documentElement.scrollHeight") <= TV["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= TV["width"]
    assert overflowing(page, "#live") == []
    context.close()
