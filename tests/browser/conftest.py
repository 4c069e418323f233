"""The browser tests' fixtures: one Chromium for the whole run, a live server with a host, and
a tablet logged in to it. Only this folder imports Playwright, so a run without it (make
test-fast, or any folder but this one) needs none."""

import os

import pytest
from playwright.sync_api import sync_playwright

from matches.play.services import tables as table_services
from tests.browser.helpers import CHROMIUM, CHROMIUM_ARGS, log_in, require_chromium, tablet
from tests.factories import make_host


@pytest.fixture(scope="session")
def browser():
    require_chromium()
    # Playwright's sync API runs an event loop in this thread; the tests still read the
    # database directly to check what was saved.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    # Lets context.route() see the service worker's own requests: offline emulation alone
    # does not reach them (microsoft/playwright#2311), so the tests' "offline" routes them too.
    os.environ["PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS"] = "1"
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def site(transactional_db, live_server, monkeypatch, browser):
    """A live server with one host; first dealers are the first seat, so screens repeat."""
    monkeypatch.setattr(table_services, "choose_first_dealer", lambda players: players[0])
    make_host()
    yield live_server.url
    # The live server outlives the test: a page the test left open would go on polling it
    # during the tests that follow (on PostgreSQL, one such poll wrote tonight's backup into
    # a backup test's folder).
    for context in browser.contexts:
        context.close()


@pytest.fixture
def host_page(browser, site):
    context = tablet(browser)
    page = context.new_page()
    log_in(page, site)
    yield page
    context.close()
