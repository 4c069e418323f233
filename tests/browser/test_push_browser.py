"""The room sees it at once (issue 34): a phone and the TV following a table through uvicorn,
as `make run` serves them, show a tap, a crowning, an undone crowning, a close and a reopen
with no reload and no poll, and catch up after the wifi drops. Without JavaScript the pages
still follow by refreshing themselves."""

import re

import pytest
from playwright.sync_api import expect

from matches.play.services import tables as table_services
from tests.browser.helpers import (
    SYNC_TIMEOUT_MS,
    go_offline,
    go_online,
    host_tablet,
    player_button,
    settled,
    tablet,
)
from tests.factories import WORKED_GAME, make_host, make_table, tap, undo
from tests.pushing import ServedApp

TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
# A change arrives as it is written; the polls it replaces came every 3 s. Generous for a
# loaded machine: what proves the push is that no poll was sent and no page reloaded.
PUSHED_MS = 5000


@pytest.fixture
def pushed(transactional_db, browser, monkeypatch):
    monkeypatch.setattr(table_services, "choose_first_dealer", lambda players: players[0])
    make_host()
    app = ServedApp()
    yield app.url
    for context in browser.contexts:
        context.close()
    app.stop()


def is_poll(request) -> bool:
    """A poll: htmx's GETs are XHRs (app.js's fetch of a page after a reopen is not one)."""
    return request.method == "GET" and request.resource_type == "xhr"


class Watcher:
    """A page following a table: the polls it sent (htmx GETs of the page) and a mark that a
    reload would wipe."""

    def __init__(self, browser, url: str, viewport: dict, path: str, **options) -> None:
        self.context = tablet(browser, viewport, **options) if options else None
        self.context = self.context or browser.new_context(viewport=viewport, locale="en-GB")
        self.page = self.context.new_page()
        self.polls: list[str] = []
        self.page.on("request", self._seen)
        self.page.goto(url + path)
        expect(self.page.locator("#live-status")).to_contain_text(
            "live · up to date", timeout=SYNC_TIMEOUT_MS
        )
        self.page.evaluate("window.notReloaded = true")
        self.page.evaluate("document.getElementById('live').dataset.momentSeconds = '60'")

    def _seen(self, request) -> None:
        if is_poll(request):
            self.polls.append(request.url)

    def still_the_same_page(self) -> bool:
        return self.page.evaluate("window.notReloaded === true")


def test_a_phone_and_the_tv_follow_a_night_as_it_happens(browser, pushed):
    table = make_table(players=WORKED_GAME)
    tv = Watcher(browser, pushed, TV, f"/tables/{table.pk}/board/")
    phone = Watcher(browser, pushed, PHONE, f"/tables/{table.pk}/")

    tap(table, "Dev")
    expect(tv.page.locator(".tv-out")).to_contain_text("Dev", timeout=PUSHED_MS)
    expect(phone.page.locator(".out-list")).to_contain_text("Dev", timeout=PUSHED_MS)

    tap(table, "Cara")
    tap(table, "Ben")  # Alice crowned: the moment on both screens
    for watcher in (tv, phone):
        moment = watcher.page.locator("#crowning-moment")
        expect(moment).to_be_visible(timeout=PUSHED_MS)
        expect(moment.locator(".crowning-name")).to_have_text("Alice")

    undo(table)  # taken back: the room must not go on seeing a winner who did not win
    for watcher in (tv, phone):
        expect(watcher.page.locator("#crowning-moment")).to_have_count(0, timeout=PUSHED_MS)
    expect(tv.page.locator(".tv-players li")).to_have_count(2, timeout=PUSHED_MS)

    table_services.table_close(
        table_id=table.pk, by=table.created_by, discard_match_id=table.matches.open().get().pk
    )
    expect(phone.page.locator(".table-head")).to_contain_text("closed", timeout=PUSHED_MS)
    expect(tv.page.locator("#live [data-table-state]")).to_have_attribute(
        "data-table-state", "0", timeout=PUSHED_MS
    )
    table_services.table_reopen(table_id=table.pk, by=table.created_by)
    expect(phone.page.locator(".table-head")).not_to_contain_text("closed", timeout=PUSHED_MS)
    expect(phone.page.locator("#live-status")).to_contain_text(
        "live · up to date", timeout=PUSHED_MS
    )
    expect(tv.page.locator(".tv-players li")).to_have_count(4, timeout=PUSHED_MS)

    tap(table, "Alice")  # the reopened table's first tap reaches both, still pushed
    expect(tv.page.locator(".tv-out")).to_contain_text("Alice", timeout=PUSHED_MS)
    expect(phone.page.locator(".out-list")).to_contain_text("Alice", timeout=PUSHED_MS)

    for watcher in (tv, phone):
        assert watcher.still_the_same_page()
        assert watcher.polls == []  # every change came by the stream


def test_a_phone_that_lost_the_wifi_catches_up_when_it_is_back(browser, pushed):
    table = make_table(players=WORKED_GAME)
    phone = Watcher(browser, pushed, PHONE, f"/tables/{table.pk}/")
    go_offline(phone.context)
    status = phone.page.locator("#live-status")
    expect(status).to_contain_text(re.compile("reconnecting|offline"), timeout=SYNC_TIMEOUT_MS)
    tap(table, "Dev")
    tap(table, "Cara")
    go_online(phone.context)
    out = phone.page.locator(".out-list")
    expect(out).to_contain_text("Cara", timeout=SYNC_TIMEOUT_MS + 5000)
    expect(out).to_contain_text("Dev")
    expect(status).to_contain_text("live · up to date", timeout=SYNC_TIMEOUT_MS)
    assert phone.still_the_same_page()


def test_without_javascript_the_pages_still_follow(browser, pushed):
    table = make_table(players=WORKED_GAME)
    context = browser.new_context(viewport=PHONE, java_script_enabled=False, locale="en-GB")
    page = context.new_page()
    page.goto(f"{pushed}/tables/{table.pk}/")
    tap(table, "Dev")
    # The page refreshes itself (its noscript refresh) and shows the tap.
    expect(page.locator(".out-list")).to_contain_text("Dev", timeout=15000)
    context.close()


def test_the_hosts_other_tablet_fetches_its_own_board_when_told(browser, pushed):
    table = make_table(players=WORKED_GAME)
    tablet_a = host_tablet(browser, pushed, table)
    tablet_b = host_tablet(browser, pushed, table)
    polls: list[str] = []
    tablet_b.on("request", lambda request: polls.append(request.url) if is_poll(request) else None)

    expect(tablet_b.locator("#live")).to_have_attribute(
        "data-stream-state", "live", timeout=SYNC_TIMEOUT_MS
    )
    tablet_b.wait_for_timeout(4000)  # a poll's interval and more: the stream is live
    assert polls == []
    player_button(tablet_a, "Dev").tap()
    settled(tablet_a)
    # Tablet B is told, and fetches its own board: the host's, with its tap buttons.
    expect(tablet_b.locator(".tile.is-out[data-player]").filter(has_text="Dev")).to_have_count(
        1, timeout=PUSHED_MS
    )
    expect(player_button(tablet_b, "Cara")).to_be_enabled()
    assert len(polls) >= 1 and all(url.endswith(f"/tables/{table.pk}/") for url in polls)
