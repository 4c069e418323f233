import os

import pytest
from django.test import Client, override_settings
from playwright.sync_api import sync_playwright

from matches import services
from tests.browser.helpers import CHROMIUM, CHROMIUM_ARGS, log_in, require_chromium, tablet
from tests.factories import make_host


@pytest.fixture(autouse=True, scope="session")
def _plain_http_and_static():
    """Tests speak plain HTTP (the test client and the live server for the browser) and need
    no collectstatic manifest. Session-wide, so the live server starts with it. Production
    keeps HTTPS on; test_security.py checks those values in a fresh process."""
    from django.conf import settings

    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    with override_settings(
        SECURE_SSL_REDIRECT=False,
        SESSION_COOKIE_SECURE=False,
        CSRF_COOKIE_SECURE=False,
        SECURE_HSTS_SECONDS=0,
        STORAGES=storages,
    ):
        yield


@pytest.fixture(autouse=True)
def _fresh_process_memory():
    """Each test starts as a new process does: a rolled-back test deletes its users and tables
    without a signal, so what a process remembers (a host exists, kept renderings) is reset."""
    from django.utils import translation

    from matches import caching, middleware, table_filings

    middleware.forget_host()
    caching.kept.clear()
    caching.kept_rows.clear()
    table_filings.kept.clear()
    # The test client's requests activate their language in this thread and leave it on; a
    # test comparing a message from another thread must not depend on the test before it.
    translation.deactivate()


@pytest.fixture
def host(db):
    from matches import middleware

    host = make_host()
    middleware.host_exists()  # learnt, as a running process has: no query per request
    return host


@pytest.fixture
def host_client(host) -> Client:
    client = Client()
    client.force_login(host)
    return client


@pytest.fixture
def csrf_client(host) -> Client:
    """A logged-in browser that, like a real one, must send the CSRF token."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(host)
    return client


# The browser tests' fixtures (tests/test_browser*.py): one Chromium for the whole run.
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
def site(transactional_db, live_server, monkeypatch):
    """A live server with one host; first dealers are the first seat, so screens repeat."""
    monkeypatch.setattr(services, "choose_first_dealer", lambda players: players[0])
    make_host()
    return live_server.url


@pytest.fixture
def host_page(browser, site):
    context = tablet(browser)
    page = context.new_page()
    log_in(page, site)
    yield page
    context.close()
