"""The tablet's tap queue in a real Chromium: taps kept and sent in order through
a network outage, a cold reload offline, conflicts explained, a lost login, a slow network,
and a board that never moves under a finger."""

import contextlib
import re

import pytest
from django.contrib.sessions.models import Session
from django.urls import reverse
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from matches.models import Tap
from tests.browser.helpers import (
    LANDSCAPE,
    PASSWORD,
    PORTRAIT,
    SCREENSHOTS,
    go_offline,
    go_online,
    host_tablet,
    log_in,
    player_button,
    queue_status,
    settled,
    tablet,
)
from tests.factories import WORKED_GAME, make_table, places

pytestmark = pytest.mark.browser
TEN = [
    "Ana",
    "Ben",
    "Cátia",
    "Duarte",
    "Eva",
    "Maximilian Featherstonehaugh",
    "Gonçalo",
    "Helena",
    "Inês",
    "João",
]


def taps_in_order(table):
    return [
        (t.match.number, t.player.name)
        for t in Tap.objects.filter(match__table=table, undone_at__isnull=True)
        .select_related("match", "player")
        .order_by("id")
    ]


def tile(page, name):
    return page.locator("#tiles > li", has_text=name)


def expect_pending(page, name):
    """Out at once, before any answer: not an enabled button, and marked pending."""
    expect(player_button(page, name)).to_have_count(0, timeout=1000)
    expect(tile(page, name).locator(".tile-pending")).to_have_text("pending", timeout=1000)


def with_worker(page):
    """Wait for the service worker to control the page (it then keeps the page's copy)."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null")


def wait_until(page, condition, timeout_ms=10000):
    """Let the page run (its route handlers too) until condition() holds."""
    for _ in range(timeout_ms // 100):
        if condition():
            return
        page.wait_for_timeout(100)
    raise AssertionError("timed out")


def tile_boxes(page) -> list[dict]:
    return page.locator("#tiles > li").evaluate_all(
        "tiles => tiles.map(t => { const r = t.getBoundingClientRect();"
        " return {x: r.x, y: r.y, width: r.width, height: r.height}; })"
    )


def same_box(a: dict, b: dict) -> bool:
    return all(abs(a[k] - b[k]) <= 2 for k in ("x", "y", "width", "height"))


def overlaps(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


class TestLayout:
    @pytest.mark.screenshots
    @pytest.mark.parametrize("viewport", [LANDSCAPE, PORTRAIT], ids=["landscape", "portrait"])
    def test_nothing_moves_under_the_finger(self, browser, site, viewport):
        table = make_table(players=TEN)
        page = host_tablet(browser, site, table, viewport)
        first = tile_boxes(page)
        assert len(first) == 10
        for name, box in zip(TEN, first, strict=True):
            assert box["width"] >= 48 and box["height"] >= 48, name
            assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], name
            assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], name
        long_name = player_button(page, "Maximilian Featherstonehaugh")
        assert long_name.evaluate("b => b.scrollWidth <= b.clientWidth")
        assert long_name.evaluate("b => getComputedStyle(b).wordBreak") == "keep-all"
        undo_box = None
        order = TEN[::-1][:-1]  # João first, …, Ben last: Ana wins
        for n, name in enumerate(order):
            player_button(page, name).tap()
            settled(page)
            if n == len(order) - 1:
                expect(page.locator("#result-card")).to_contain_text("Ana wins match 1!")
            else:
                expect(page.locator(f"#tiles > li.is-out:has-text('{name}')")).to_be_visible()
            boxes = tile_boxes(page)
            assert all(same_box(a, b) for a, b in zip(first, boxes, strict=True)), name
            undo = page.get_by_role("button", name=re.compile("^Undo")).bounding_box()
            assert undo["height"] >= 48 and undo["y"] + undo["height"] <= viewport["height"]
            if undo_box is None:
                undo_box = undo
            assert same_box(undo_box, undo), name
            for message in page.locator(".messages, .queue-notes").all():
                if message.is_visible():
                    box = message.bounding_box()
                    assert not any(overlaps(box, b) for b in [*boxes, undo])
        card = page.locator("#result-card")
        card_box = card.bounding_box()
        assert not any(overlaps(card_box, b) for b in [*tile_boxes(page), undo_box])
        assert card_box["x"] + card_box["width"] <= viewport["width"]
        assert card_box["y"] + card_box["height"] <= viewport["height"]
        expect(card.locator(".result-places li")).to_have_count(10)
        hide = card.get_by_role("button", name="Hide").bounding_box()
        assert not overlaps(hide, card.get_by_role("heading").bounding_box())
        assert not overlaps(hide, card.locator(".result-places").bounding_box())
        assert places(table.matches.get(number=1))["Ana"] == 1
        page.screenshot(path=SCREENSHOTS / f"table-ten-crowned-{viewport['width']}.png")
        page.context.close()


class TestOffline:
    def test_taps_through_a_cold_reload_into_the_next_match_reach_the_server_in_order(
        self, browser, site
    ):
        table = make_table(players=WORKED_GAME)
        page = host_tablet(browser, site, table)
        with_worker(page)
        go_offline(page.context)
        for name in ["Ben", "Alice"]:
            player_button(page, name).tap()
            expect_pending(page, name)
        expect(queue_status(page)).to_contain_text("2 taps waiting")
        expect(queue_status(page)).to_contain_text("offline")

        page.reload()  # no network: the service worker's copy, the queue from storage
        # The reloaded document's requests pass through the worker again: make sure, as
        # Before the first taps, that they still fail (a loaded CI machine once let one by).
        go_offline(page.context)
        expect(page.get_by_role("heading", name="Match 1")).to_be_visible()
        expect(tile(page, "Ben").locator(".tile-place")).to_have_text("4th")
        expect(tile(page, "Alice").locator(".tile-pending")).to_be_visible()
        player_button(page, "Cara").tap()  # leaves Dev: the crowning, predicted
        card = page.locator("#result-card-pending")
        expect(card).to_contain_text("Dev wins match 1!")
        expect(card).to_contain_text("pending")
        expect(page.get_by_role("heading", name="Match 2")).to_be_visible()
        for name in WORKED_GAME:
            expect(player_button(page, name)).to_be_enabled()
        player_button(page, "Ben").tap()  # the next match's first tap, by number
        expect_pending(page, "Ben")
        expect(queue_status(page)).to_contain_text("4 taps waiting")
        assert not Tap.objects.exists()

        go_online(page.context)
        settled(page, timeout=30000)
        assert taps_in_order(table) == [(1, "Ben"), (1, "Alice"), (1, "Cara"), (2, "Ben")]
        assert Tap.objects.count() == 4
        expect(page.get_by_role("heading", name="Match 2")).to_be_visible()
        expect(tile(page, "Ben").locator(".tile-place")).to_have_text("4th")
        expect(tile(page, "Ben").locator(".tile-pending")).to_have_count(0)
        page.context.close()

    def test_a_queue_the_browser_cannot_store_is_still_sent_and_the_host_is_warned(
        self, browser, site
    ):
        table = make_table(players=WORKED_GAME)
        context = tablet(browser, LANDSCAPE)
        context.add_init_script(
            "Storage.prototype.setItem = function () {"
            " throw new DOMException('full', 'QuotaExceededError'); };"
        )
        page = context.new_page()
        log_in(page, site)
        page.goto(f"{site}/tables/{table.pk}/")
        go_offline(context)
        player_button(page, "Ben").tap()
        expect_pending(page, "Ben")
        expect(queue_status(page)).to_contain_text("1 tap waiting")
        expect(queue_status(page)).to_contain_text(
            "this browser cannot keep them: do not reload until they are recorded"
        )
        go_online(context)
        settled(page, timeout=30000)
        expect(queue_status(page)).not_to_contain_text("cannot keep")
        assert taps_in_order(table) == [(1, "Ben")]
        context.close()

    def test_undo_withdraws_an_unsent_tap(self, browser, site):
        table = make_table(players=WORKED_GAME)
        page = host_tablet(browser, site, table)
        go_offline(page.context)
        player_button(page, "Ben").tap()
        player_button(page, "Alice").tap()
        page.get_by_role("button", name="Undo Alice out (match 1)").tap()
        expect(player_button(page, "Alice")).to_be_enabled()
        expect(queue_status(page)).to_contain_text("1 tap waiting")
        go_online(page.context)
        settled(page, timeout=30000)
        assert taps_in_order(table) == [(1, "Ben")]
        page.context.close()

    def test_undo_of_a_tap_whose_answer_was_lost_takes_it_back_on_the_server(self, browser, site):
        """The tap reached the server but its answer never reached the tablet: Undo must not
        just withdraw it here (the server would keep Ben out) but ask the server to undo it."""
        table = make_table(players=WORKED_GAME)
        page = host_tablet(browser, site, table)
        tap_url = site + reverse("matches:tap", args=[table.pk])
        recorded = []

        def answer_lost(route):
            if not recorded:
                recorded.append(route.fetch())  # the server records the tap...
            route.abort()  # ...and no answer comes back (nor to the retries, for now)

        page.route(tap_url, answer_lost)
        player_button(page, "Ben").tap()
        expect_pending(page, "Ben")
        wait_until(page, lambda: recorded)
        assert taps_in_order(table) == [(1, "Ben")]
        page.get_by_role("button", name="Undo Ben out (match 1)").tap()
        expect(player_button(page, "Ben")).to_be_enabled()
        expect(queue_status(page)).to_contain_text("2 taps waiting")  # the tap, then its undo
        page.unroute(tap_url)
        settled(page, timeout=30000)
        assert Tap.objects.get().undone_at is not None
        expect(player_button(page, "Ben")).to_be_enabled()
        page.context.close()

    def test_undo_of_a_recorded_tap_waits_in_the_queue_and_names_it_by_key(self, browser, site):
        table = make_table(players=WORKED_GAME)
        page = host_tablet(browser, site, table)
        player_button(page, "Ben").tap()
        settled(page)
        go_offline(page.context)
        page.get_by_role("button", name="Undo Ben out (match 1)").tap()
        expect(player_button(page, "Ben")).to_be_enabled()
        expect(queue_status(page)).to_contain_text("1 tap waiting")
        assert Tap.objects.get().undone_at is None
        go_online(page.context)
        settled(page, timeout=30000)
        expect(page.get_by_text("Undone: Ben is back in match 1.")).to_be_visible()
        assert Tap.objects.get().undone_at is not None
        page.context.close()

    def test_logging_out_drops_the_workers_copy_of_the_hosts_page(self, browser, site):
        table = make_table(players=WORKED_GAME)
        page = host_tablet(browser, site, table)
        with_worker(page)
        path = reverse("matches:table", args=[table.pk])
        kept = f"caches.match({path!r}, {{ignoreVary: true}}).then(r => r !== undefined)"
        assert page.evaluate(kept)
        page.get_by_role("button", name=re.compile(r"^Log out")).click()
        expect(page.get_by_role("link", name="Host login")).to_be_visible()
        wait_until(page, lambda: not page.evaluate(kept))
        go_offline(page.context)
        with contextlib.suppress(PlaywrightError):  # no copy: the browser's offline error
            page.goto(site + path)
        expect(page.locator(".tap-form")).to_have_count(0)
        page.context.close()


class TestTwoTabs:
    def test_two_tabs_of_one_table_on_one_tablet_keep_each_others_taps(self, browser, site):
        """Both tabs store the queue under one key: a tap in one must not be written over by
        the other's, nor lost when its tab closes before the network comes back."""
        table = make_table(players=WORKED_GAME)
        context = tablet(browser, LANDSCAPE)
        first = context.new_page()
        log_in(first, site)
        first.goto(f"{site}/tables/{table.pk}/")
        second = context.new_page()
        second.goto(f"{site}/tables/{table.pk}/")
        go_offline(context)
        player_button(first, "Ben").tap()
        expect_pending(first, "Ben")
        expect_pending(second, "Ben")  # the other tab shows it too
        player_button(second, "Alice").tap()
        expect_pending(second, "Alice")
        expect(queue_status(second)).to_contain_text("2 taps waiting")
        first.close()  # before the network is back: its taps must not go with it
        go_online(context)
        settled(second, timeout=30000)
        assert taps_in_order(table) == [(1, "Ben"), (1, "Alice")]
        context.close()


class TestConflicts:
    def test_a_tap_made_offline_that_another_tablet_made_first_is_explained(self, browser, site):
        table = make_table(players=["Ana", "Bob", "Cy", "Di"])
        offline = host_tablet(browser, site, table)
        online = host_tablet(browser, site, table)
        go_offline(offline.context)
        player_button(offline, "Bob").tap()
        expect_pending(offline, "Bob")
        player_button(online, "Bob").tap()
        player_button(online, "Cy").tap()
        settled(online)
        go_online(offline.context)
        expect(offline.locator(".queue-note")).to_have_text(
            "Bob’s tap was not recorded: Bob was already out on another tablet (4th in match 1).",
            timeout=30000,
        )
        settled(offline)
        # The server's board: Bob 4th (the other tablet's tap), Cy 3rd.
        expect(tile(offline, "Bob").locator(".tile-place")).to_have_text("4th")
        expect(tile(offline, "Cy").locator(".tile-place")).to_have_text("3rd")
        expect(player_button(offline, "Ana")).to_be_enabled()
        assert taps_in_order(table) == [(1, "Bob"), (1, "Cy")]
        offline.context.close()
        online.context.close()

    def test_an_undo_waiting_behind_a_refused_tap_goes_with_it(self, browser, site):
        """Bob's tap left (so Undo queues an undo of it) but never arrived; the other tablet
        put Bob out meanwhile. One sentence says why Bob's tap was not recorded; the undo
        behind it is not sent to be refused as a tap the server never got."""
        table = make_table(players=["Ana", "Bob", "Cy", "Di"])
        page = host_tablet(browser, site, table)
        other = host_tablet(browser, site, table)
        tap_url = site + reverse("matches:tap", args=[table.pk])
        tries = []

        def lost_on_the_way(route):
            tries.append(route)
            route.abort()  # the request never reaches the server

        page.route(tap_url, lost_on_the_way)
        player_button(page, "Bob").tap()
        wait_until(page, lambda: tries)
        page.get_by_role("button", name="Undo Bob out (match 1)").tap()
        expect(queue_status(page)).to_contain_text("2 taps waiting")
        player_button(other, "Bob").tap()
        settled(other)
        page.unroute(tap_url)
        expect(page.locator(".queue-note")).to_have_text(
            "Bob’s tap was not recorded: Bob was already out on another tablet (4th in match 1).",
            timeout=30000,
        )
        settled(page)
        expect(page.locator(".queue-note")).to_have_count(1)
        assert taps_in_order(table) == [(1, "Bob")]
        page.context.close()
        other.context.close()

    def test_a_logged_out_tablet_keeps_its_taps_and_sends_them_after_logging_in(
        self, browser, site
    ):
        table = make_table(players=WORKED_GAME)
        page = host_tablet(browser, site, table)
        Session.objects.all().delete()  # logged out elsewhere, or the session expired
        player_button(page, "Ben").tap()
        note = page.locator(".queue-login")
        expect(note).to_contain_text("Log in again to send 1 waiting tap.", timeout=10000)
        expect_pending(page, "Ben")
        assert not Tap.objects.exists()
        note.get_by_role("link", name="Log in").click()
        page.get_by_label("Username").fill("host")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        expect(page).to_have_url(re.compile(rf"/tables/{table.pk}/$"))
        settled(page)
        assert taps_in_order(table) == [(1, "Ben")]
        page.context.close()


class TestPollsAndTheQueue:
    def test_a_poll_under_way_when_the_host_taps_does_not_draw_the_old_board_back(
        self, browser, site
    ):
        table = make_table(players=WORKED_GAME)
        page = host_tablet(browser, site, table)
        table_page = site + reverse("matches:table", args=[table.pk])
        # The board as a poll read it just before Ben's tap (the host's own fragment).
        before_the_tap = page.request.get(table_page, headers={"HX-Request": "true"}).text()
        held = []

        def hold_the_poll(route):
            if route.request.headers.get("hx-request") and not held:
                held.append(route)  # under way: its answer comes after the tap's
            else:
                route.continue_()

        page.route(table_page, hold_the_poll)
        wait_until(page, lambda: held)
        player_button(page, "Ben").tap()
        settled(page)
        expect(tile(page, "Ben").locator(".tile-place")).to_have_text("4th")
        with contextlib.suppress(PlaywrightError):  # the queue may have aborted it
            held[0].fulfill(status=200, body=before_the_tap, content_type="text/html")
        page.unroute(table_page)
        page.wait_for_timeout(300)
        # Read at once: the next poll (3 s on) would put a stale board right again.
        assert player_button(page, "Ben").count() == 0
        assert tile(page, "Ben").locator(".tile-place").inner_text() == "4th"
        page.context.close()


class TestSlowNetwork:
    def test_four_taps_in_a_row_without_waiting_are_recorded_in_order(self, browser, site):
        table = make_table(players=["Ana", "Ben", "Cy", "Di", "Eva", "Fay"])
        page = host_tablet(browser, site, table)
        cdp = page.context.new_cdp_session(page)
        cdp.send(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": 3000, "downloadThroughput": -1, "uploadThroughput": -1},
        )
        order = ["Fay", "Cy", "Ana", "Eva"]
        for name in order:
            player_button(page, name).tap()
            expect_pending(page, name)  # at once, not 3 s later
        settled(page, timeout=60000)
        assert taps_in_order(table) == [(1, name) for name in order]
        page.context.close()


class TestTwoTabletsAtOnce:
    def test_both_show_the_servers_board_within_two_polls(self, browser, site):
        table = make_table(players=WORKED_GAME)
        pages = [host_tablet(browser, site, table), host_tablet(browser, site, table)]
        player_button(pages[0], "Ben").click(no_wait_after=True)
        player_button(pages[1], "Alice").click(no_wait_after=True)
        for page in pages:
            settled(page)
        assert sorted(name for _, name in taps_in_order(table)) == ["Alice", "Ben"]
        places_now = places(table.matches.get(number=1))
        for page in pages:
            for name in ["Alice", "Ben"]:
                expect(tile(page, name).locator(".tile-place")).to_have_text(
                    {4: "4th", 3: "3rd"}[places_now[name]], timeout=2 * 3000 + 1000
                )
                expect(tile(page, name).locator(".tile-pending")).to_have_count(0)
        for page in pages:
            page.context.close()
