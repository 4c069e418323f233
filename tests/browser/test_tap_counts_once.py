"""A tap counts once between the finger and the server: a stale page handed back by
a cache never offers a used key or an old match, a double tap never lands on the control
that just appeared, a queued tap never lands in another game, and a queue belongs to the
host who made it."""

import datetime
import json
import re
import uuid

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone
from playwright.sync_api import expect

from matches.models import Match, Tap
from matches.play.services.tables import table_close, table_reopen
from tests.browser.helpers import (
    PASSWORD,
    SYNC_TIMEOUT_MS,
    host_tablet,
    log_in,
    player_button,
    settled,
    tablet,
)
from tests.browser.helpers import queue_status as status
from tests.factories import make_host, make_table, open_match, places, seat_of, tap

pytestmark = pytest.mark.browser
THREE = ["Ann", "Ben", "Cara"]
FOUR = ["Ann", "Ben", "Cara", "Dev"]
WRITES = re.compile(r".*/tables/\d+/(tap|undo)/$")


def second_host(username):
    """A host sharing the table: given the "change table" permission."""
    kim = make_host(username)
    kim.user_permissions.add(Permission.objects.get(codename="change_table"))
    return kim


def notes(page):
    return page.locator(".queue-note")


def cut_off(page):
    """The wifi drops for this tablet's writes and polls (its page and static files still
    load, as from the service worker's cache)."""

    def no_network(route):
        route.abort("internetdisconnected")

    def polls(route):
        if route.request.headers.get("hx-request"):
            route.abort("internetdisconnected")
        else:
            route.fallback()

    page.route(WRITES, no_network)
    page.route(re.compile(r".*/tables/\d+/$"), polls)


def reconnect(page):
    page.unroute(WRITES)
    page.unroute(re.compile(r".*/tables/\d+/$"))


def open_with_its_html(browser, site, table):
    """A host's tablet on the table page, and that page's HTML as the server sent it: what
    a cache hands back later (its tiles carry the very keys the first taps use)."""
    page = tablet(browser).new_page()
    log_in(page, site)
    response = page.goto(f"{site}/tables/{table.pk}/")
    return page, response.text()


def reload_from_a_stale_copy(page, html):
    """Reload, the cache handing back the page from the start of the evening. A context
    route: it also answers the service worker's own fetch of the page."""

    def stale(route):
        request = route.request
        if request.method == "GET" and not request.headers.get("hx-request"):
            route.fulfill(
                status=200, body=html, headers={"content-type": "text/html; charset=utf-8"}
            )
        else:
            route.fallback()

    page.context.route(re.compile(r".*/tables/\d+/$"), stale)
    page.reload()
    page.context.unroute(re.compile(r".*/tables/\d+/$"), stale)


def tile_place(page, name):
    return page.locator("#tiles > li", has_text=name).locator(".tile-place")


def live_taps(table):
    return [
        (t.match.number, t.player.name)
        for t in Tap.objects.filter(match__table=table, undone_at__isnull=True)
        .select_related("match", "player")
        .order_by("id")
    ]


class TestTheNewestBoardWins:
    def test_a_tap_undone_then_made_again_after_a_stale_reload_counts(self, browser, site):
        # Seen: tap Ann, undo, reload offline from the start-of-evening copy, tap Ann:
        # refused "it had been undone", Ann still standing.
        table = make_table(players=FOUR)
        page, stale = open_with_its_html(browser, site, table)
        player_button(page, "Ann").click()
        settled(page)
        page.get_by_role("button", name=re.compile(r"^Undo Ann out")).click()
        settled(page)
        cut_off(page)
        reload_from_a_stale_copy(page, stale)
        player_button(page, "Ann").click()
        reconnect(page)
        settled(page, timeout=20000)
        assert live_taps(table) == [(1, "Ann")]
        expect(notes(page)).to_have_count(0)
        page.context.close()

    def test_after_a_crowning_a_stale_reload_shows_the_next_match(self, browser, site):
        # Seen: the copy shows "Match 1" with everyone standing; a tap is refused "already
        # won on another tablet" with no other tablet.
        table = make_table(players=THREE)
        page, stale = open_with_its_html(browser, site, table)
        player_button(page, "Cara").click()
        player_button(page, "Ben").click()
        settled(page)
        cut_off(page)
        reload_from_a_stale_copy(page, stale)
        expect(page.get_by_role("heading", name="Match 2")).to_be_visible()
        expect(page.locator("#result-card, #result-card-kept").first).to_contain_text(
            "Ann wins match 1!"
        )
        page.wait_for_timeout(1100)  # the next match's tiles settle
        player_button(page, "Ben").click()
        reconnect(page)
        settled(page, timeout=20000)
        assert live_taps(table) == [(1, "Cara"), (1, "Ben"), (2, "Ben")]
        expect(notes(page)).to_have_count(0)
        page.context.close()

    def test_a_used_key_is_never_sent_again_for_a_player_still_standing(self, browser, site):
        # Seen: the copy's tile sends its old key; the server answers "replayed", the status
        # says every tap recorded, and the player was never put out.
        table = make_table(players=THREE)
        page, stale = open_with_its_html(browser, site, table)
        player_button(page, "Ann").click()
        settled(page)
        player_button(page, "Ben").click()  # Cara wins match 1; match 2 opens
        settled(page)
        cut_off(page)
        reload_from_a_stale_copy(page, stale)
        page.wait_for_timeout(1100)
        player_button(page, "Ann").click()
        reconnect(page)
        settled(page, timeout=20000)
        assert live_taps(table) == [(1, "Ann"), (1, "Ben"), (2, "Ann")]
        assert places(open_match(table))["Ann"] == 3
        page.context.close()


class TestHumanDoubleTaps:
    def press_twice(self, page, locator, gap_ms):
        box = locator.bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        page.mouse.click(x, y)
        page.wait_for_timeout(gap_ms)
        page.mouse.click(x, y)

    def test_a_double_tap_on_the_crowning_tile_crowns_once(self, browser, site):
        # Seen: the second tap put the same player out last in the new match, and the result
        # card vanished.
        table = make_table(players=THREE)
        page = host_tablet(browser, site, table)
        player_button(page, "Cara").click()
        settled(page)
        self.press_twice(page, player_button(page, "Ben"), 250)
        settled(page)
        page.wait_for_timeout(300)
        assert live_taps(table) == [(1, "Cara"), (1, "Ben")]
        assert not Tap.objects.filter(match=open_match(table)).exists()
        expect(page.get_by_role("heading", name="Match 2")).to_be_visible()
        expect(page.locator(".result-card:not([hidden])").first).to_contain_text(
            "Ann wins match 1!"
        )
        page.context.close()

    def test_the_tiles_a_crowning_opens_are_disabled_while_they_settle(self, browser, site):
        table = make_table(players=THREE)
        page = host_tablet(browser, site, table)
        player_button(page, "Cara").click()
        settled(page)
        player_button(page, "Ben").click()
        expect(page.get_by_role("heading", name="Match 2")).to_be_visible()
        expect(player_button(page, "Ann")).to_be_disabled()
        expect(player_button(page, "Ann")).to_be_enabled(timeout=3000)
        page.context.close()

    def test_a_double_tap_on_undo_takes_back_one_tap(self, browser, site):
        # Seen: two taps taken back, the message naming one, and the button now offering
        # "reopens match 1".
        table = make_table(players=THREE)
        page = host_tablet(browser, site, table)
        player_button(page, "Cara").click()
        settled(page)
        player_button(page, "Ben").click()  # Ann wins match 1
        settled(page)
        page.wait_for_timeout(1100)
        player_button(page, "Cara").click()
        settled(page)
        undo = page.get_by_role("button", name=re.compile(r"^Undo Cara out \(match 2\)"))
        self.press_twice(page, undo, 300)
        settled(page)
        page.wait_for_timeout(300)
        assert live_taps(table) == [(1, "Cara"), (1, "Ben")]
        assert Match.objects.get(table=table, number=1).status == Match.Status.FILED
        expect(page.get_by_role("heading", name="Match 2")).to_be_visible()
        expect(page.get_by_role("button", name=re.compile(r"reopens match 1"))).to_be_visible()
        page.context.close()

    def test_tiles_a_poll_swaps_in_while_they_settle_are_released(self, browser, site):
        # Found by the model test: a poll landing within the settle time left the tiles it
        # drew disabled until the table next changed.
        table = make_table(players=FOUR)
        page = host_tablet(browser, site, table)
        player_button(page, "Ann").click()
        settled(page)
        page.wait_for_timeout(1500)
        page.get_by_role("button", name=re.compile(r"^Undo Ann out")).click()
        settled(page)
        tap(table, "Ben")  # another tablet, while this one's Undo settles
        page.evaluate("htmx.ajax('GET', location.pathname, {target: '#live', swap: 'innerHTML'})")
        expect(tile_place(page, "Ben")).to_have_text("4th")
        expect(player_button(page, "Cara")).to_be_enabled(timeout=3000)
        expect(player_button(page, "Ann")).to_be_enabled()
        page.context.close()


class TestQueuedTapsStayInTheirGame:
    def test_a_tap_queued_before_a_close_and_reopen_is_refused_by_name(self, browser, site):
        # Seen: the number discarded by Close is used again after Reopen, and the tap queued
        # for the old match 1 was applied to the new match 1.
        table = make_table(players=FOUR)
        host = table.created_by
        page = host_tablet(browser, site, table)
        cut_off(page)
        player_button(page, "Dev").click()
        expect(status(page)).to_contain_text("1 tap waiting")
        table_close(table_id=table.pk, by=host)
        table_reopen(table_id=table.pk, by=host)
        reconnect(page)
        settled(page, timeout=20000)
        assert live_taps(table) == []
        expect(notes(page).first).to_contain_text("Dev’s tap was not recorded")
        expect(notes(page).first).to_contain_text("no longer in play")
        expect(player_button(page, "Dev")).to_be_visible()
        page.context.close()

    def test_a_tap_refused_because_the_table_closed_is_explained_by_name(self, browser, site):
        # Found by the model test: the closed table's board had no place for the sentence,
        # and the page's reload on the closed table lost it.
        table = make_table(players=FOUR)
        page = host_tablet(browser, site, table)
        cut_off(page)
        player_button(page, "Ann").click()
        expect(status(page)).to_contain_text("1 tap waiting")
        table_close(table_id=table.pk, by=table.created_by)
        reconnect(page)
        sentence = "Ann’s tap was not recorded: the table was closed."
        expect(notes(page).first).to_have_text(sentence, timeout=20000)
        page.reload()
        expect(notes(page).first).to_have_text(sentence)
        assert live_taps(table) == []
        page.context.close()

    def test_taps_in_a_predicted_match_are_refused_when_it_was_crowned_otherwise(
        self, browser, site
    ):
        # Seen: taps in the predicted next match were applied although another tablet had
        # Crowned someone else.
        table = make_table(players=THREE)
        host = table.created_by
        page = host_tablet(browser, site, table)
        cut_off(page)
        player_button(page, "Cara").click()
        player_button(page, "Ben").click()  # predicts Ann's crowning and match 2
        expect(page.get_by_role("heading", name="Match 2")).to_be_visible()
        page.wait_for_timeout(1100)
        player_button(page, "Ann").click()  # in the predicted match 2
        expect(status(page)).to_contain_text("3 taps waiting")
        tap(table, "Ann", host=host)  # the other tablet: Ann out, then Cara...
        tap(table, "Cara", host=host)  # ...and Ben wins match 1
        reconnect(page)
        settled(page, timeout=20000)
        assert live_taps(table) == [(1, "Ann"), (1, "Cara")]
        assert not Tap.objects.filter(match=open_match(table)).exists()
        texts = notes(page).all_inner_texts()
        assert any(text.startswith("Ann’s tap was not recorded") for text in texts), texts
        page.context.close()


class TestTheQueueBelongsToAHost:
    def test_another_host_logging_in_chooses_to_send_them_and_the_trail_names_both(
        self, browser, site
    ):
        # Seen: the next host to log in sent the taps under their own name, unasked.
        table = make_table(players=FOUR)
        second_host("kim")
        page = host_tablet(browser, site, table)
        cut_off(page)
        player_button(page, "Dev").click()
        player_button(page, "Cara").click()
        expect(status(page)).to_contain_text("2 taps waiting")
        page.context.clear_cookies()  # the session ends on the server's side
        reconnect(page)
        expect(page.locator(".queue-login")).to_be_visible(timeout=SYNC_TIMEOUT_MS)
        assert not Tap.objects.exists()

        page.goto(f"{site}/accounts/login/?next=/tables/{table.pk}/")
        page.get_by_label("Username").fill("kim")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
        held = page.locator(".queue-held")
        expect(held).to_contain_text("2 taps queued by host are waiting on this tablet.")
        page.wait_for_timeout(1500)
        assert not Tap.objects.exists(), "nothing is sent without the new host's say"
        held.get_by_role("button", name="Send them").click()
        settled(page)
        taps = list(Tap.objects.select_related("tapped_by", "queued_by", "player").order_by("id"))
        assert [(t.player.name, t.tapped_by.username, t.queued_by.username) for t in taps] == [
            ("Dev", "kim", "host"),
            ("Cara", "kim", "host"),
        ]
        page.goto(f"{site}/tables/{table.pk}/matches/1/")
        expect(page.locator("main")).to_contain_text("queued by host")
        page.context.close()

    def test_another_host_may_discard_them_instead(self, browser, site):
        table = make_table(players=FOUR)
        second_host("kim")
        page = host_tablet(browser, site, table)
        cut_off(page)
        player_button(page, "Dev").click()
        expect(status(page)).to_contain_text("1 tap waiting")
        page.context.clear_cookies()
        reconnect(page)
        log_in(page, site, "kim")
        page.goto(f"{site}/tables/{table.pk}/")
        held = page.locator(".queue-held")
        expect(held).to_contain_text("1 tap queued by host is waiting on this tablet.")
        held.get_by_role("button", name="Discard them").click()
        settled(page)
        expect(notes(page).first).to_contain_text("1 waiting tap was discarded")
        assert not Tap.objects.exists()
        expect(player_button(page, "Dev")).to_be_enabled()
        page.context.close()

    def test_taps_from_an_earlier_night_wait_for_the_hosts_say(self, browser, site):
        table = make_table(players=FOUR)
        host = table.created_by
        match = open_match(table)
        dev = seat_of(match, "Dev").player
        entry = {
            "kind": "tap",
            "key": str(uuid.uuid4()),
            "match_id": match.pk,
            "number": 1,
            "player": dev.pk,
            "name": "Dev",
            "by": {"id": host.pk, "name": host.username},
            "at": (timezone.now() - datetime.timedelta(days=2)).isoformat(),
        }
        context = tablet(browser)
        context.add_init_script(
            f"localStorage.setItem('brag.queue.{table.pk}', {json.dumps(json.dumps([entry]))});"
        )
        page = context.new_page()
        log_in(page, site)
        page.goto(f"{site}/tables/{table.pk}/")
        held = page.locator(".queue-held")
        expect(held).to_contain_text("1 tap from an earlier night is waiting on this tablet.")
        page.wait_for_timeout(1500)
        assert not Tap.objects.exists()
        held.get_by_role("button", name="Send them").click()
        settled(page)
        assert live_taps(table) == [(1, "Dev")]
        context.close()
