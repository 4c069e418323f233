"""Merge → confirm → undo on a tablet, and the players page on a 390 px phone."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from matches.models import Player, PlayerMerge
from matches.results import standings as league_standings
from tests.browser.helpers import PORTRAIT, log_in, tablet
from tests.factories import make_organiser, make_table, tap

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def crown(table, order):
    for name in order:
        tap(table, name)


def totals() -> dict[str, tuple]:
    return {
        row.player: (row.played, row.wins, row.seconds, row.thirds, row.points)
        for row in league_standings.standings()
    }


def serious(page) -> list[str]:
    found = Axe().run(page).response["violations"]
    return [f"{v['id']}: {v['help']}" for v in found if v["impact"] in ("serious", "critical")]


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.fixture
def league(site):
    make_organiser()  # merging records is the organiser's
    ranked = make_table(players=["Ann", "Dev", "Cy"], name="Ranked")
    crown(ranked, ["Cy", "Ann"])
    wta = make_table(players=["Devon", "Bo", "Eve"], name="WTA", mode="winner_takes_all")
    crown(wta, ["Bo", "Eve"])
    return ranked, wta


class TestMergeOnATablet:
    def test_merge_confirm_then_undo(self, browser, site, league):
        before = totals()
        page = tablet(browser, PORTRAIT).new_page()
        log_in(page, site, "organiser")
        dev = Player.objects.get(name="Dev")
        page.goto(f"{site}/players/{dev.pk}/")
        page.get_by_role("link", name="Merge another record into Dev").click()
        page.get_by_label("Name of the other record").fill("Devon")
        page.get_by_role("button", name="Merge", exact=True).click()

        expect(page.get_by_role("heading", name="Dev (kept)")).to_be_visible()
        expect(page.get_by_role("heading", name="Devon (merged into it)")).to_be_visible()
        assert Player.objects.filter(name="Devon").exists()  # nothing yet
        assert serious(page) == [], "confirmation"
        page.get_by_role("button", name="Confirm merge").click()

        expect(page.get_by_text("“Devon” is now part of Dev")).to_be_visible()
        assert not Player.objects.filter(name="Devon").exists()
        assert totals()["Dev"] == tuple(
            a + b for a, b in zip(before["Dev"], before["Devon"], strict=True)
        )
        page.get_by_role("button", name="Undo merge").click()

        expect(page.get_by_text(re.compile("“Devon” is a record of its own again"))).to_be_visible()
        expect(page.get_by_role("button", name="Undo merge")).to_have_count(0)
        assert totals() == before
        assert PlayerMerge.objects.get().undone_at is not None
        page.context.close()

    def test_a_name_typed_before_the_picker_loads_is_kept_whole(self, browser, site, league):
        """The picker moves the box into its wrapper when its script arrives: a host already
        typing there keeps the box, and every letter lands in it."""
        page = tablet(browser, PORTRAIT).new_page()
        log_in(page, site, "organiser")
        held = []
        page.context.route("**/js/player-pick*.js", lambda route: held.append(route))
        dev = Player.objects.get(name="Dev")
        # The page as parsed, its deferred script still on its way (held here).
        page.goto(f"{site}/players/{dev.pk}/merge/", wait_until="commit")
        box = page.get_by_label("Name of the other record")
        box.press_sequentially("Dev")
        for _ in range(100):  # the routed request reaches this thread's handler
            if held:
                break
            page.wait_for_timeout(20)
        assert held, "the picker's script was not asked for"
        expect(box).not_to_have_attribute("role", "combobox")  # not run yet
        held[0].continue_()
        expect(box).to_have_attribute("role", "combobox")  # the script has run
        page.keyboard.type("on")
        expect(box).to_have_value("Devon")
        page.context.close()


class TestOnAPhone:
    def test_the_players_page_and_the_confirmation_fit_390_pixels(self, browser, site, league):
        Player.objects.create(name="Maximiliana Wolfeschlegelsteinhausen")  # 36 of 40
        page = tablet(browser, PHONE).new_page()
        log_in(page, site, "organiser")
        page.goto(f"{site}/players/")
        expect(page.get_by_role("link", name="Dev", exact=True)).to_be_visible()
        assert no_sideways_scroll(page), "players page"
        assert serious(page) == [], "players page"
        page.get_by_label("Find a player").fill("dev")
        page.get_by_role("button", name="Search").click()
        expect(page).to_have_url(re.compile(r"/players/\?q=dev$"))
        names = page.locator(".player-row-name").all_inner_texts()
        assert names == ["Dev", "Devon"]
        page.get_by_role("link", name="Merge another record into Dev", exact=True).click()
        page.get_by_label("Name of the other record").fill("Devon")
        page.get_by_role("button", name="Merge", exact=True).click()
        expect(page.get_by_role("button", name="Confirm merge")).to_be_visible()
        assert no_sideways_scroll(page), "confirmation"
        page.get_by_role("button", name="Confirm merge").click()
        page.goto(f"{site}/players/merges/")
        expect(page.get_by_role("button", name="Undo merge")).to_be_visible()
        assert no_sideways_scroll(page), "merges"
        assert serious(page) == [], "merges"
        page.context.close()
