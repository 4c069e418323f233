"""A finals night in Chromium, through uvicorn as `make run` serves it: the organiser creates
it from the season's qualifiers, two tablets play three heats (the same tap loop and queue
as any table), the final opens on its own when the last heat is filed, and the pub's TV on
the finals board follows it all live (no reload, no poll) until the champion is crowned;
the season page then names the champion."""

import datetime
import re

import pytest
from playwright.sync_api import expect

from matches.models import DailyTally, FinalsTable, Player, Season
from matches.play.services import tables as table_services
from matches.play.services.finals import finals_create
from matches.play.services.tables import table_launch
from matches.results.players.services import players_resolve
from matches.rules.nights import night_of
from tests.browser.helpers import SCREENSHOTS, log_in, player_button, settled, tablet
from tests.browser.test_browser_night import LONG_NAMES, overflowing
from tests.browser.test_push_browser import PUSHED_MS, Watcher
from tests.browser.test_screens import assert_nothing_scrolls, outside
from tests.factories import first_venue, make_host, make_organiser
from tests.finals_factories import Seed, play_out
from tests.pushing import ServedApp

pytestmark = pytest.mark.browser
TV = {"width": 1920, "height": 1080}
NAMES = ["Ana", "Bea", "Cid", "Dora", "Edu", "Fay", "Gus", "Hana", "Ivo"]


@pytest.fixture
def pushed(transactional_db, browser, monkeypatch):
    monkeypatch.setattr(table_services, "choose_first_dealer", lambda players: players[0])
    make_organiser()
    make_host("host")
    app = ServedApp()
    yield app.url
    for context in browser.contexts:
        context.close()
    app.stop()


def ended_season_with_qualifiers() -> Season:
    """A season that ended two nights ago, its nine qualifiers Ana (best) to Ivo."""
    tonight = night_of()  # before noon, still yesterday's night
    season = Season.objects.create(
        name="Autumn",
        first_day=tonight - datetime.timedelta(days=60),
        last_day=tonight - datetime.timedelta(days=2),
        qualify_places=len(NAMES),
    )
    past = table_launch(name="Past", player_names=NAMES[:3], mode="ranked", by=make_host("past"))
    for points, name in enumerate(reversed(NAMES)):
        player = Player.objects.get_or_create(name=name)[0]
        DailyTally.objects.create(
            player=player,
            table=past,
            venue=first_venue(),
            day=season.first_day,
            played=1,
            points=points + 1,
        )
    return season


def host_on(browser, url: str, username: str):
    context = tablet(browser)
    page = context.new_page()
    log_in(page, url, username)
    return page


def play(page, url: str, table_id: int, out: list[str]) -> None:
    """Tap the players out in order on the table's page; the last tap crowns."""
    page.goto(f"{url}/tables/{table_id}/")
    for name in out:
        player_button(page, name).tap()
        settled(page)


def heat(season, number: int | None) -> int:
    return FinalsTable.objects.get(event__season=season, heat=number).table_id


def test_a_finals_night_of_three_heats_and_a_final_on_two_tablets_and_a_tv(browser, pushed):
    season = ended_season_with_qualifiers()
    organiser = host_on(browser, pushed, "organiser")
    organiser.goto(f"{pushed}/seasons/{season.pk}/finals/new/")
    expect(organiser.locator("ol.finalists li")).to_have_count(9)
    organiser.get_by_label("Heats", exact=True).fill("3")
    organiser.get_by_label("Runners-up through to the final").fill("1")
    organiser.get_by_role("button", name="Create the finals night").click()
    expect(
        organiser.get_by_text("The finals night of Autumn is on: 3 heats are open.")
    ).to_be_visible()
    expect(organiser.locator("#draw-rule")).to_contain_text("Seeded by season position")

    tv = Watcher(browser, pushed, TV, f"/seasons/{season.pk}/finals/board/")
    cards = tv.page.locator(".finals-heats .venue-table")
    expect(cards).to_have_count(3)
    expect(cards.nth(0).locator(".tv-players li")).to_have_text(["Ana", "Fay", "Gus"])
    expect(cards.nth(1).locator(".tv-players li")).to_have_text(["Bea", "Edu", "Hana"])
    expect(cards.nth(2).locator(".tv-players li")).to_have_text(["Cid", "Dora", "Ivo"])
    tv.page.screenshot(path=SCREENSHOTS / "finals-board-heats-1920x1080.png")
    assert_nothing_scrolls(tv.page, TV)

    # Two tablets: the organiser runs heats 1 and 2, the venue's host heat 3.
    host = host_on(browser, pushed, "host")
    play(organiser, pushed, heat(season, 1), ["Gus"])
    expect(cards.nth(0).locator(".tv-out")).to_contain_text("Gus", timeout=PUSHED_MS)
    play(organiser, pushed, heat(season, 1), ["Fay"])  # Ana wins heat 1
    expect(cards.nth(0)).to_contain_text("Ana won", timeout=PUSHED_MS)
    expect(organiser.get_by_text("Heat 1 is over")).to_be_visible()
    # The crowning taken back from the closed heat's page: the heat plays on, then again.
    organiser.get_by_role("button", name="Undo Fay out — reopens match 1").click()
    expect(player_button(organiser, "Fay")).to_be_visible()
    expect(cards.nth(0).locator(".tv-players li")).to_have_text(["Ana", "Fay"], timeout=PUSHED_MS)
    play(organiser, pushed, heat(season, 1), ["Fay"])
    expect(cards.nth(0)).to_contain_text("Ana won", timeout=PUSHED_MS)
    play(host, pushed, heat(season, 3), ["Cid", "Ivo"])  # Dora wins heat 3
    expect(cards.nth(2)).to_contain_text("Dora won", timeout=PUSHED_MS)
    play(organiser, pushed, heat(season, 2), ["Hana", "Bea"])  # Edu wins heat 2: the final
    expect(cards.nth(1)).to_contain_text("Edu won", timeout=PUSHED_MS)

    # Winners Ana, Edu, Dora, and the best runner-up (Bea, 2nd in the season), by position.
    final = tv.page.locator(".finals-final")
    expect(final.locator(".tv-players li")).to_have_text(
        ["Ana", "Bea", "Dora", "Edu"], timeout=PUSHED_MS
    )
    expect(tv.page.locator("#finals-stage")).to_have_text("The final")
    tv.page.screenshot(path=SCREENSHOTS / "finals-board-final-1920x1080.png")

    play(host, pushed, heat(season, None), ["Ana", "Edu", "Bea"])  # Dora is champion
    expect(tv.page.locator(".finals-champion-name")).to_have_text("♛ Dora", timeout=PUSHED_MS)
    expect(tv.page.locator("#finals-stage")).to_have_text("Champion crowned")
    expect(final).to_contain_text("Dora won")
    tv.page.screenshot(path=SCREENSHOTS / "finals-board-champion-1920x1080.png")
    assert_nothing_scrolls(tv.page, TV)
    assert tv.polls == [] and tv.still_the_same_page()

    host.goto(f"{pushed}/seasons/{season.pk}/")
    expect(host.locator(".season-champion")).to_contain_text(
        re.compile(r"Season champion: Dora, winner of the finals night")
    )


def test_five_heats_of_eight_long_names_and_a_final_of_ten_fit_the_tv(browser, site):
    """The largest boards a night makes: every name whole, nothing scrolls at 1920x1080."""
    organiser = make_organiser("boss")
    season = Season.objects.create(
        name="Winter",
        first_day=night_of() - datetime.timedelta(days=60),
        last_day=night_of() - datetime.timedelta(days=2),
    )
    names = [f"{name[:34]} {n}" for n in range(4) for name in LONG_NAMES]
    players = players_resolve(names=names)
    finalists = [
        Seed(p.pk, p.name, first_venue().pk, first_venue().name, rank)
        for rank, p in enumerate(players, start=1)
    ]
    finals_create(
        season_id=season.pk,
        finalists=finalists,
        heats=5,
        runners_up=5,
        seeding="spread",
        mode="ranked",
        venue_id=first_venue().pk,
        by=organiser,
    )
    page = browser.new_context(viewport=TV, locale="en-GB").new_page()
    page.goto(f"{site}/seasons/{season.pk}/finals/board/")
    expect(page.locator(".finals-heats .venue-table")).to_have_count(5)
    expect(page.locator(".venue-table .tv-players li")).to_have_count(40)
    page.screenshot(path=SCREENSHOTS / "finals-board-5-heats-1920x1080.png")
    assert_nothing_scrolls(page, TV)
    assert overflowing(page, "#live") == []
    for number in range(1, 6):
        play_out(FinalsTable.objects.get(event__season=season, heat=number).table, organiser)
    page.reload()
    expect(page.locator(".finals-final .tv-players li")).to_have_count(10)
    page.screenshot(path=SCREENSHOTS / "finals-board-final-of-ten-1920x1080.png")
    assert_nothing_scrolls(page, TV)
    assert overflowing(page, "#live") == []
    assert outside(page, ".finals-final .tv-players li", ".finals-final") == []
