"""The pub's TV on its venue board (/venues/<slug>/board/): every open table side by side,
read from across the room at 1920x1080 (and 1280x720), and a tap at any of them shown at
once, through uvicorn as `make run` serves it, with no reload and no poll."""

import pytest
from playwright.sync_api import expect

from matches.play.services import tables as table_services
from tests.browser.helpers import SCREENSHOTS, SYNC_TIMEOUT_MS
from tests.browser.test_browser_night import LONG_NAMES, overflowing, play
from tests.browser.test_push_browser import PUSHED_MS, Watcher
from tests.browser.test_screens import FONT_SIZES, assert_nothing_scrolls, outside
from tests.factories import first_venue, make_host, make_table, tap
from tests.pushing import ServedApp

pytestmark = pytest.mark.browser
TV = {"width": 1920, "height": 1080}
SMALL_TV = {"width": 1280, "height": 720}


def board_path() -> str:
    return f"/venues/{first_venue().slug}/board/"


@pytest.fixture
def pushed(transactional_db, browser, monkeypatch):
    monkeypatch.setattr(table_services, "choose_first_dealer", lambda players: players[0])
    make_host()
    app = ServedApp()
    yield app.url
    for context in browser.contexts:
        context.close()
    app.stop()


def test_the_venue_tv_shows_a_tap_at_either_of_two_tables_without_reload(browser, pushed):
    front = make_table(name="Front bar", players=["Ann", "Bob", "Cy", "Di"])
    back = make_table(name="Back room", players=["Eve", "Fay", "Gus"])
    tv = Watcher(browser, pushed, TV, board_path())
    cards = tv.page.locator(".venue-table")
    expect(cards).to_have_count(2)
    tap(back, "Gus")
    back_card = cards.filter(has_text="Back room")
    expect(back_card.locator(".tv-out")).to_contain_text("Gus", timeout=PUSHED_MS)
    expect(back_card.locator(".tv-players li")).to_have_text(["Eve", "Fay"])
    tap(front, "Di")
    front_card = cards.filter(has_text="Front bar")
    expect(front_card.locator(".tv-out")).to_contain_text("4th Di", timeout=PUSHED_MS)
    expect(front_card.locator(".tv-players li")).to_have_text(["Ann", "Bob", "Cy"])
    # A new table at the venue joins the board; closing both leaves tonight's totals.
    make_table(name="Snug", players=["Hal", "Ivy", "Jo"])
    expect(cards).to_have_count(3, timeout=PUSHED_MS)
    assert tv.polls == [] and tv.still_the_same_page()


# Per number of tables: the size (px) of a name that fits at 1920x1080, read from across a
# room; a longer one is shrunk to fit its card (fit-names.js), to no less than half of it.
NAME_PX = {1: 60, 2: 54, 4: 38, 8: 28}


@pytest.mark.parametrize("viewport", [TV, SMALL_TV], ids=["1920x1080", "1280x720"])
@pytest.mark.parametrize("count", sorted(NAME_PX))
def test_one_to_eight_tables_of_long_names_fit_the_screen(browser, site, count, viewport):
    for number in range(count):
        table = make_table(players=LONG_NAMES, name=f"The Crown & Anchor, table {number + 1}")
        play(table, LONG_NAMES[1:][::-1])  # match 1 filed: a last result
        play(table, LONG_NAMES[:3])  # match 2: three out, seven standing
    page = browser.new_context(viewport=viewport, locale="en-GB").new_page()
    page.goto(f"{site}{board_path()}")
    expect(page.locator(".venue-table")).to_have_count(count, timeout=SYNC_TIMEOUT_MS)
    expect(page.locator(".venue-table .tv-players li")).to_have_count(7 * count)
    expect(page.locator(".venue-count")).to_have_text(
        "1 table open" if count == 1 else f"{count} tables open"
    )
    size = f"{viewport['width']}x{viewport['height']}"
    page.screenshot(path=SCREENSHOTS / f"venue-board-{count}-tables-{size}.png")
    assert_nothing_scrolls(page, viewport)
    assert overflowing(page, "#live") == []
    assert outside(page, ".venue-table", "#live") == []
    for index in range(count):
        card = f".venue-table:nth-child({index + 1})"
        assert outside(page, f"{card} .tv-players li, {card} .tv-out li", card) == []
    # Every name whole: none squeezed shorter than its line, none cut at its side.
    squeezed = page.evaluate(
        """() => [...document.querySelectorAll('.venue-table .tv-players li')].filter(li =>
            li.scrollHeight > li.clientHeight + 1 || li.scrollWidth > li.clientWidth + 1
          ).map(li => li.textContent)"""
    )
    assert squeezed == []
    # A name that fits its card at the board's size is shown at it: read across the room.
    scale = viewport["height"] / TV["height"]
    names = page.evaluate(FONT_SIZES, ".venue-table .tv-players li")
    assert max(names) >= NAME_PX[count] * scale - 0.5, names
    assert min(names) >= 0.5 * NAME_PX[count] * scale, names  # the longest, fitted
    page.context.close()


def test_with_no_table_open_the_tv_shows_tonights_totals(browser, site):
    host = make_host("second")
    for number in range(2):
        table = make_table(host=host, players=LONG_NAMES[:5], name=f"Table {number + 1}")
        play(table, LONG_NAMES[1:5][::-1])
        table_services.table_close(table_id=table.pk, by=host)
    page = browser.new_context(viewport=TV, locale="en-GB").new_page()
    page.goto(f"{site}{board_path()}")
    expect(page.locator(".tonight h2")).to_have_text(["Tonight at Table 1", "Tonight at Table 2"])
    expect(page.locator(".tonight tr.leader").first).to_contain_text(LONG_NAMES[0])
    expect(page.locator(".venue-count")).to_have_text("No table is open.")
    # Side by side, each whole on the screen. Measured in one read in the page: a push may
    # swap the board between two reads (seen under load: a box read as None).
    first, second = page.evaluate(
        """() => [...document.querySelectorAll(".tonight")].map((card) => {
             const box = card.getBoundingClientRect();
             return {x: box.x, y: box.y, width: box.width};
           })"""
    )
    assert first["x"] + first["width"] <= second["x"] and first["y"] == second["y"]
    page.screenshot(path=SCREENSHOTS / "venue-board-tonight-1920x1080.png")
    assert_nothing_scrolls(page, TV)
    assert overflowing(page, "#live") == []
    page.context.close()
