"""Playwright helpers: Debian's Chromium, tablets with touch, a logged-in host on a table,
its queue's status, and the wifi dropping and coming back."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
# As root Chromium needs --no-sandbox; the rest keep it off a network it cannot reach.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]
LANDSCAPE = {"width": 1024, "height": 768}
PORTRAIT = {"width": 768, "height": 1024}
# The screenshots go to tests/browser/screenshots/, which git ignores, so a run rewrites no
# tracked file. BRAG_SCREENSHOTS names another folder, relative to the repository's root:
# `make screenshots` points it at docs/screenshots to refresh the README's pictures.
SCREENSHOTS = Path(__file__).resolve().parents[2] / (
    os.environ.get("BRAG_SCREENSHOTS") or "tests/browser/screenshots"
)
PASSWORD = "a-long-test-password"
# The polling interval is 3 s; give a change one more interval to show.
SYNC_TIMEOUT_MS = 7000


def require_chromium() -> None:
    if CHROMIUM.exists():
        return
    message = (
        f"Chromium not found at {CHROMIUM}. The browser tests need Debian's Chromium: "
        "sudo apt-get install chromium  (or set CHROMIUM_PATH)."
    )
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def tablet(browser: Browser, viewport: dict | None = None, **options) -> BrowserContext:
    options = {"locale": "en-GB", **options}
    return browser.new_context(
        viewport=viewport or LANDSCAPE, has_touch=True, is_mobile=False, **options
    )


def log_in(page: Page, base_url: str, username: str = "host") -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name=re.compile(r"^Log out"))).to_be_visible()


def launch(page: Page, base_url: str, *, name: str, players: list[str], mode: str) -> int:
    page.goto(f"{base_url}/tables/new/")
    page.get_by_label("Table name").fill(name)
    players_box(page).fill("\n".join(players))
    page.get_by_role("group", name="Mode").get_by_label(mode).check()
    page.get_by_role("button", name="Launch table").click()
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    return int(re.search(r"/tables/(\d+)/$", page.url).group(1))


def player_button(page: Page, name: str):
    return page.get_by_role("button", name=name, exact=True)


def standing_names(page: Page) -> list[str]:
    return page.locator("button.player").all_inner_texts()


def freeze_polling(page: Page) -> None:
    """Hold a tablet's view still: its polls answer 204 (htmx leaves the board as it is)."""

    def handle(route):
        if route.request.method == "GET" and route.request.headers.get("hx-request"):
            route.fulfill(status=204)
        else:
            route.continue_()

    page.route(re.compile(r".*/tables/\d+/$"), handle)


def host_tablet(browser: Browser, site: str, table, viewport: dict = LANDSCAPE) -> Page:
    context = tablet(browser, viewport)
    page = context.new_page()
    log_in(page, site)
    page.goto(f"{site}/tables/{table.pk}/")
    return page


def queue_status(page):
    return page.locator("#queue-status")


def settled(page, timeout=SYNC_TIMEOUT_MS):
    """Every waiting tap has been answered."""
    expect(queue_status(page)).to_contain_text("every tap recorded", timeout=timeout)


def _no_network(route) -> None:
    route.abort("internetdisconnected")


_FAILS_THROUGH_THE_WORKER = """() => fetch("/offline-probe/", {method: "POST"}).then(
    () => false, () => true)"""


def go_offline(context) -> None:
    """The wifi drops: the page's requests and the service worker's own both fail (offline
    emulation alone lets the worker's fetches through: microsoft/playwright#2311)."""
    context.route("**/*", _no_network)
    context.set_offline(True)
    # The route reaches a service worker's own fetches a moment after it is set: until a
    # POST through the worker fails (a worker passes POSTs to the network), a tap could still
    # reach the server while the test believes the tablet offline.
    for page in context.pages:
        for _ in range(50):
            if page.evaluate(_FAILS_THROUGH_THE_WORKER):
                break
            page.wait_for_timeout(100)
        else:
            raise AssertionError("the network did not go down")


def go_online(context) -> None:
    context.unroute("**/*", _no_network)
    context.set_offline(False)


def players_box(page: Page):
    """The launch or roster form's players box, unfolded if the seat picker folded it away
    ("Type or paste the list")."""
    box = page.locator("textarea[name=players]")
    if not box.is_visible():
        page.locator("[data-seats-type]").click()
    return box
