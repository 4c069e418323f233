"""Every screen reads at a glance: the pub TV's sizes at 1920x1080, the crowning
moment on the TV and a spectator's phone, and the landscape host board's side column."""

import re

import pytest
from playwright.sync_api import expect

from matches.play.services.undo import table_undo_last
from tests.browser.helpers import LANDSCAPE, SCREENSHOTS, SYNC_TIMEOUT_MS, player_button, tablet
from tests.browser.test_browser_night import LONG_NAMES, overflowing, play
from tests.factories import WORKED_GAME, make_table, tap

pytestmark = pytest.mark.browser
TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}

FONT_SIZES = """(selector) => [...document.querySelectorAll(selector)].map(
    el => parseFloat(getComputedStyle(el).fontSize))"""


def tv_page(browser, site, table, locale="en-GB"):
    page = browser.new_context(viewport=TV, locale=locale).new_page()
    page.goto(f"{site}/tables/{table.pk}/board/")
    return page


def outside(page, items: str, box: str) -> list[str]:
    """The items whose box is not wholly inside `box` (a panel that clips its overflow)."""
    return page.evaluate(
        """([items, box]) => {
          const outer = document.querySelector(box).getBoundingClientRect();
          return [...document.querySelectorAll(items)].filter(el => {
            const r = el.getBoundingClientRect();
            return r.top < outer.top - 1 || r.bottom > outer.bottom + 1
              || r.left < outer.left - 1 || r.right > outer.right + 1;
          }).map(el => el.textContent.trim());
        }""",
        [items, box],
    )


def undo(table) -> None:
    table_undo_last(table_id=table.pk, tap_id=None, by=table.created_by)


def assert_nothing_scrolls(page, viewport) -> None:
    size = page.evaluate(
        """() => ({height: document.documentElement.scrollHeight,
                   width: document.documentElement.scrollWidth,
                   innerHeight: innerHeight, innerWidth: innerWidth})"""
    )
    assert size["innerHeight"] == viewport["height"]
    assert size["height"] <= size["innerHeight"], size
    assert size["width"] <= size["innerWidth"], size


class TestTheTvAcrossThePub:
    @pytest.mark.parametrize("locale", ["en-GB", "pt-PT"])
    def test_ten_long_names_at_48px_and_tonight_at_32px_without_scrolling(
        self, browser, site, locale
    ):
        table = make_table(players=LONG_NAMES, name="The Crown & Anchor, Saturday night")
        play(table, LONG_NAMES[1:][::-1])  # match 1 filed: ten in tonight's totals
        page = tv_page(browser, site, table, locale)
        names = page.locator(".tv-players li")
        expect(names).to_have_count(10)  # match 2: all ten standing
        expect(page.locator(".tonight-table tbody tr")).to_have_count(10)
        page.screenshot(path=SCREENSHOTS / f"board-ten-standing-{locale}-1920x1080.png")
        name_sizes = page.evaluate(FONT_SIZES, ".tv-players li")
        assert len(name_sizes) == 10 and min(name_sizes) >= 48, name_sizes
        totals = page.evaluate(FONT_SIZES, ".tonight-table tbody th, .tonight-table tbody td")
        assert len(totals) == 20 and min(totals) >= 32, totals
        assert_nothing_scrolls(page, TV)
        assert overflowing(page, "#live") == []
        assert outside(page, ".tonight-table tbody tr", ".tonight") == []
        assert outside(page, ".tv-players li", ".tv-now") == []
        # Each name whole on one line (no word broken), inside the screen.
        line = page.evaluate(
            "parseFloat(getComputedStyle(document.querySelector('.tv-players li')).lineHeight)"
        )
        expect(names).to_have_text(LONG_NAMES)
        # Every box in one read in the page: a push may swap the board between two reads
        # (seen under load: a box read as None).
        boxes = page.evaluate(
            """() => {
                 const measure = (el) => {
                   const box = el.getBoundingClientRect();
                   return {x: box.x, right: box.right, bottom: box.bottom, height: el.clientHeight};
                 };
                 return {
                   items: [...document.querySelectorAll(".tv-players li")].map(measure),
                   tonight: measure(document.querySelector(".tonight")),
                 };
               }"""
        )
        items, tonight = boxes["items"], boxes["tonight"]
        for name, box in zip(LONG_NAMES, items, strict=True):
            assert box["x"] >= 0 and box["right"] <= TV["width"], name
        heights = [box["height"] for box in items]
        assert max(heights) < 2 * line, heights
        # The screen is used: the names reach the lower fifth, tonight's panel too.
        assert items[9]["bottom"] > TV["height"] * 0.8
        assert tonight["bottom"] > TV["height"] * 0.6
        page.context.close()

    @pytest.mark.parametrize("out", [3, 6, 8])
    def test_long_names_fit_however_many_are_out(self, browser, site, out):
        table = make_table(players=LONG_NAMES, name="The Crown & Anchor, Saturday night")
        play(table, LONG_NAMES[1:][::-1])  # match 1 filed
        play(table, LONG_NAMES[:out])  # match 2: these are out
        page = tv_page(browser, site, table)
        expect(page.locator(".tv-out li")).to_have_count(out)
        page.screenshot(path=SCREENSHOTS / f"board-{out}-out-1920x1080.png")
        assert min(page.evaluate(FONT_SIZES, ".tv-players li")) >= 48
        assert_nothing_scrolls(page, TV)
        assert overflowing(page, "#live") == []
        assert outside(page, ".tv-players li, .tv-out li", ".tv-now") == []
        assert outside(page, ".tonight-table tbody tr", ".tonight") == []
        page.context.close()

    def test_three_standing_fill_the_lower_half_with_larger_names(self, browser, site):
        table = make_table(players=["Ann", "Bob", "Cy", "Dee", "Eve"])
        play(table, ["Eve", "Dee"])
        page = tv_page(browser, site, table)
        expect(page.locator(".tv-players li")).to_have_count(3)
        assert min(page.evaluate(FONT_SIZES, ".tv-players li")) >= 48
        last = page.locator(".tv-players li").nth(2).bounding_box()
        out = page.locator(".tv-out").bounding_box()
        assert max(last["y"] + last["height"], out["y"] + out["height"]) > TV["height"] * 0.75
        assert_nothing_scrolls(page, TV)
        assert overflowing(page, "#live") == []
        page.context.close()

    def test_no_league_rating_on_the_tv(self, browser, site):
        table = make_table(players=WORKED_GAME)
        play(table, ["Dev", "Cara", "Ben"])
        page = tv_page(browser, site, table)
        expect(page.locator(".tonight-table tbody tr")).to_have_count(4)
        expect(page.locator("#live")).not_to_contain_text(re.compile("rating", re.I))
        expect(page.locator(".tonight-table thead th")).to_have_text(["Player", "Points"])
        page.context.close()


class TestTheCrowningMoment:
    def test_the_tv_and_a_phone_show_the_winner_then_the_board_again(
        self, browser, site, host_page
    ):
        table = make_table(players=WORKED_GAME)
        play(table, ["Dev", "Cara"])  # match 1: Alice and Ben standing
        tv = tv_page(browser, site, table)
        phone = tablet(browser, PHONE).new_page()
        phone.goto(f"{site}/tables/{table.pk}/")
        # Six seconds instead of ten, so the test does not wait ten.
        for page in (tv, phone):
            expect(page.locator("#crowning")).to_be_hidden()
            page.evaluate("document.getElementById('live').dataset.momentSeconds = '6'")
        host_page.goto(f"{site}/tables/{table.pk}/")
        player_button(host_page, "Ben").tap()  # Alice wins match 1, from the host's tablet
        expect(host_page.get_by_role("heading", name="Alice wins match 1!")).to_be_visible()
        for page, shot in (
            (tv, "board-crowning-1920x1080.png"),
            (phone, "table-crowning-phone.png"),
        ):
            moment = page.locator("#crowning-moment")
            expect(moment).to_be_visible(timeout=SYNC_TIMEOUT_MS)
            expect(moment.locator(".crowning-name")).to_have_text("Alice")
            expect(moment.locator(".crowning-places li")).to_have_text(
                ["1st Alice 3 pts", "2nd Ben 2 pts", "3rd Cara 1 pt", "4th Dev 0 pts"]
            )
            if page is tv:
                size = moment.locator(".crowning-name").evaluate(
                    "el => parseFloat(getComputedStyle(el).fontSize)"
                )
                assert size >= 96
                box = moment.locator(".crowning-card").bounding_box()
                assert box["x"] >= 0 and box["y"] >= 0 and box["y"] + box["height"] <= TV["height"]
                assert_nothing_scrolls(tv, TV)
            page.screenshot(path=SCREENSHOTS / shot)
        for page in (tv, phone):
            expect(page.locator("#crowning-moment")).to_have_count(0, timeout=10000)
            expect(page.locator("#crowning")).to_be_hidden()
        # Back to the board: match 2 with everyone standing, the last result beside it.
        expect(tv.locator(".tv-players li")).to_have_count(4)
        expect(tv.locator(".tv-last")).to_contain_text("Alice won")
        # A poll that brings the same crowning again is no new moment.
        tv.wait_for_timeout(3500)
        expect(tv.locator("#crowning-moment")).to_have_count(0)
        tv.context.close()
        phone.context.close()

    def test_opening_the_tv_after_a_crowning_shows_the_board_not_the_moment(self, browser, site):
        table = make_table(players=WORKED_GAME)
        play(table, ["Dev", "Cara", "Ben"])
        tv = tv_page(browser, site, table)
        tv.wait_for_timeout(3500)  # a poll
        expect(tv.locator("#crowning-moment")).to_have_count(0)
        expect(tv.locator(".tv-last")).to_contain_text("Alice won")
        tv.context.close()

    def test_an_undone_crowning_is_no_moment(self, browser, site):
        table = make_table(players=WORKED_GAME)
        play(table, ["Dev", "Cara", "Ben"])  # match 1 filed
        play(table, ["Dev", "Cara"])
        tv = tv_page(browser, site, table)
        tv.evaluate("document.getElementById('live').dataset.momentSeconds = '30'")
        undo(table)  # Cara back
        expect(tv.locator(".tv-players li")).to_have_count(3, timeout=SYNC_TIMEOUT_MS)
        undo(table)  # Dev back
        expect(tv.locator(".tv-players li")).to_have_count(4, timeout=SYNC_TIMEOUT_MS)
        undo(table)  # match 1 reopened: the TV's latest result is none, an older state
        expect(tv.locator(".tv-players li")).to_have_count(2, timeout=SYNC_TIMEOUT_MS)
        expect(tv.locator("#crowning-moment")).to_have_count(0)
        tv.context.close()


class TestTheLandscapeHostBoard:
    def test_tonight_sits_in_view_in_the_right_column(self, host_page, site):
        names = [f"Player {n}" for n in range(1, 11)]
        table = make_table(players=names)
        play(table, names[1:][::-1])  # match 1 filed: ten in tonight's totals
        tap(table, "Player 10")
        host_page.set_viewport_size(LANDSCAPE)
        host_page.goto(f"{site}/tables/{table.pk}/")
        tonight = host_page.locator(".tonight")
        expect(tonight).to_be_visible()
        expect(tonight.locator("tbody tr")).to_have_count(10)
        tiles = host_page.locator("#tiles").bounding_box()
        box = tonight.bounding_box()
        assert box["x"] >= tiles["x"] + tiles["width"], (box, tiles)
        assert box["y"] < LANDSCAPE["height"] / 2
        heading = host_page.get_by_role("heading", name="Tonight at this table").bounding_box()
        assert heading["y"] + heading["height"] <= LANDSCAPE["height"]
        first_row = tonight.locator("tbody tr").first.bounding_box()
        assert first_row["y"] + first_row["height"] <= LANDSCAPE["height"]
        assert host_page.evaluate("document.documentElement.scrollWidth") <= LANDSCAPE["width"]
        # The out tile: its place is the news, larger than the name under it.
        out = host_page.locator("#tiles li", has_text="Player 10")
        place = out.locator(".tile-place")
        name = out.locator(".tile-name")
        expect(place).to_have_text("10th")
        place_size = place.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
        name_size = name.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
        assert place_size > 1.5 * name_size, (place_size, name_size)
        assert place.bounding_box()["y"] < name.bounding_box()["y"]
        host_page.screenshot(path=SCREENSHOTS / "table-landscape-tonight.png")
