"""The tap queue at its edges, on touch tablets: a tap right after Undo is taken, Undo
across a roster change opens its confirmation at once, Undo after a close and reopen offers
only what it would do, and every queued tap another tablet made moot is named with what
happened instead."""

import re

import pytest
from playwright.sync_api import expect

from matches.models import Match, Tap
from matches.play.services.tables import table_close, table_reopen
from tests.browser.helpers import (
    freeze_polling,
    go_offline,
    go_online,
    host_tablet,
    player_button,
    queue_status,
    settled,
)
from tests.factories import make_table, open_match, places, roster, tap

pytestmark = pytest.mark.browser
FIVE = ["Ann", "Bob", "Cy", "Di", "Ed"]


def notes(page):
    return page.locator(".queue-note")


def live_taps(table):
    return [
        (t.match.number, t.player.name)
        for t in Tap.objects.filter(match__table=table, undone_at__isnull=True)
        .select_related("match", "player")
        .order_by("id")
    ]


def touch(page, locator):
    """A finger on the control where it is now, as a host's touch lands: no waiting for it
    to take presses (a disabled button simply ignores the touch)."""
    box = locator.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


class TestATapRightAfterUndo:
    def test_the_next_player_tapped_at_once_after_undo_is_recorded(self, browser, site):
        # Seen: every tile disabled from about 0.09 s to 1.1 s after Undo, and a tap in that
        # window lost without a word.
        table = make_table(players=["Ann", "Bob", "Cy", "Di"])
        page = host_tablet(browser, site, table)
        player_button(page, "Cy").tap()
        settled(page)
        page.wait_for_timeout(1100)
        undo = page.get_by_role("button", name="Undo Cy out (match 1)")
        touch(page, undo)
        page.wait_for_timeout(150)
        # Not the tile that stood where Cy's was: Bob's stood all along.
        expect(player_button(page, "Bob")).to_be_enabled(timeout=100)
        touch(page, player_button(page, "Bob"))
        expect(page.locator("#tiles > li", has_text="Bob").locator(".tile-place")).to_have_text(
            "4th", timeout=1000
        )
        settled(page)
        assert live_taps(table) == [(1, "Bob")]
        assert places(open_match(table))["Cy"] is None
        expect(notes(page)).to_have_count(0)
        page.context.close()

    def test_the_undo_that_replaces_the_pressed_one_still_ignores_the_second_touch(
        self, browser, site
    ):
        table = make_table(players=["Ann", "Bob", "Cy", "Di"])
        page = host_tablet(browser, site, table)
        player_button(page, "Di").tap()
        settled(page)
        page.wait_for_timeout(1100)
        player_button(page, "Cy").tap()
        settled(page)
        page.wait_for_timeout(1100)
        touch(page, page.get_by_role("button", name="Undo Cy out (match 1)"))
        next_undo = page.get_by_role("button", name="Undo Di out (match 1)")
        expect(next_undo).to_be_disabled(timeout=500)
        touch(page, next_undo)
        settled(page)
        page.wait_for_timeout(300)
        assert live_taps(table) == [(1, "Di")]
        expect(next_undo).to_be_enabled(timeout=3000)
        page.context.close()


class TestNoPressIgnoredWithoutAWord:
    """A press the queue cannot take is named: a tile drawn before the prediction put its
    player out (another tab of the table queued that tap a moment before), an Undo with
    nothing left to take back."""

    def test_a_stale_tile_of_a_player_already_out_is_named(self, browser, site):
        table = make_table(players=["Ann", "Bob", "Cy", "Di"])
        page = host_tablet(browser, site, table)
        go_offline(page.context)
        stale = page.locator("#tiles > li", has_text="Bob").evaluate("li => li.outerHTML")
        player_button(page, "Bob").tap()
        expect(queue_status(page)).to_contain_text("1 tap waiting")
        # The tile as the other tab still drew it, pressed.
        page.evaluate(
            """(html) => { const t = document.createElement("template"); t.innerHTML = html;
                 const li = t.content.firstElementChild; li.hidden = true;
                 document.getElementById("tiles").appendChild(li);
                 li.querySelector("form").requestSubmit(); }""",
            stale,
        )
        expect(notes(page)).to_have_text(["Bob’s tap was not sent: Bob is already out in match 1."])
        expect(queue_status(page)).to_contain_text("1 tap waiting")
        go_online(page.context)
        settled(page, timeout=30000)
        assert live_taps(table) == [(1, "Bob")]
        page.context.close()

    def test_an_undo_with_nothing_to_take_back_is_named(self, browser, site):
        table = make_table(players=["Ann", "Bob", "Cy", "Di"])
        page = host_tablet(browser, site, table)
        player_button(page, "Bob").tap()
        settled(page)
        stale = page.locator(".undo-slot").evaluate("slot => slot.innerHTML")
        page.wait_for_timeout(1100)
        page.get_by_role("button", name="Undo Bob out (match 1)").tap()
        settled(page)
        page.wait_for_timeout(1100)
        page.evaluate(
            """(html) => { const slot = document.querySelector(".undo-slot");
                 slot.innerHTML = html; slot.querySelector("form").requestSubmit(); }""",
            stale,
        )
        expect(notes(page)).to_have_text(["Nothing was undone: there is no tap to take back."])
        assert live_taps(table) == []
        page.context.close()


class TestUndoAcrossARosterChange:
    def test_the_first_press_opens_the_confirmation(self, browser, site):
        # Seen: the queue drew its own Undo button over the server's link, so the first press
        # was refused "... Use Undo on the board to confirm" and only the second opened it.
        table = make_table(players=["Ann", "Bob", "Cy"])
        tap(table, "Cy")
        tap(table, "Bob")  # Ann wins match 1
        roster(table, ["Ann", "Bob", "Cy", "Dee"])
        page = host_tablet(browser, site, table)
        freeze_polling(page)  # the host presses before a poll could redraw the board
        settled(page)
        undo = page.locator(".undo-slot").get_by_text("Undo Bob out — reopens match 1")
        undo.tap()
        expect(page).to_have_url(re.compile(rf"/tables/{table.pk}/undo/$"))
        expect(notes(page)).to_have_count(0)
        expect(page.locator("main")).to_contain_text("Dee")
        assert Match.objects.get(table=table, number=1).status == Match.Status.FILED
        page.context.close()


class TestUndoAfterAReopen:
    def test_undo_offers_only_what_it_would_do(self, browser, site):
        # Seen: after a close during match 3 (Zoe out) and a reopen, Undo offered "Undo Zoe
        # out (match 3)" of the discarded match; pressing it said "Undone" and changed nothing.
        table = make_table(players=["Ann", "Bob", "Zoe"])
        host = table.created_by
        for name in ["Zoe", "Bob", "Zoe", "Bob"]:  # Ann wins matches 1 and 2
            tap(table, name)
        tap(table, "Zoe")  # match 3
        discarded = open_match(table)
        table_close(table_id=table.pk, by=host, discard_match_id=discarded.pk)
        table_reopen(table_id=table.pk, by=host)
        page = host_tablet(browser, site, table)
        expect(page.get_by_role("heading", name="Match 3")).to_be_visible()
        expect(page.get_by_role("button", name=re.compile(r"^Undo Zoe"))).to_have_count(0)
        undo = page.get_by_role("button", name="Undo Bob out — reopens match 2")
        undo.tap()
        settled(page)
        # It did what it said: match 2 is open again, Bob standing, Zoe still 3rd.
        expect(page.get_by_role("heading", name="Match 2")).to_be_visible()
        match2 = Match.objects.get(table=table, number=2, status=Match.Status.OPEN)
        assert places(match2) == {"Ann": None, "Bob": None, "Zoe": 3}
        zoe = Tap.objects.get(match=discarded)
        assert zoe.undone_at is None  # the record of the closed match stays as it was
        page.context.close()


class TestMootTaps:
    def test_every_queued_tap_another_tablet_made_moot_is_named(self, browser, site):
        table = make_table(players=FIVE)
        x = host_tablet(browser, site, table)
        y = host_tablet(browser, site, table)
        go_offline(x.context)
        for name in ["Bob", "Cy", "Di", "Ann"]:  # X predicts Ed crowned
            player_button(x, name).tap()
            expect(queue_status(x)).to_contain_text("waiting")
            x.wait_for_timeout(100)
        for name in ["Ed", "Di", "Cy", "Bob"]:  # Y: Ann crowned
            player_button(y, name).tap()
            settled(y)
        go_online(x.context)
        settled(x, timeout=30000)
        expect(notes(x)).to_have_text(
            [
                "Bob’s tap was not recorded: match 1 had already been won on another tablet "
                "(Ann won; Bob 2nd).",
                "Cy’s tap was not recorded: match 1 had already been won on another tablet "
                "(Ann won; Cy 3rd).",
                "Di’s tap was not recorded: match 1 had already been won on another tablet "
                "(Ann won; Di 4th).",
                "Ann’s tap was not recorded: match 1 had already been won on another tablet, "
                "by Ann.",
            ]
        )
        assert live_taps(table) == [(1, "Ed"), (1, "Di"), (1, "Cy"), (1, "Bob")]
        expect(x.get_by_role("heading", name="Match 2")).to_be_visible()
        x.context.close()
        y.context.close()

    def test_a_queued_tap_on_a_player_already_out_names_their_place(self, browser, site):
        table = make_table(players=FIVE)
        x = host_tablet(browser, site, table)
        y = host_tablet(browser, site, table)
        go_offline(x.context)
        player_button(x, "Bob").tap()
        for name in ["Ed", "Bob"]:
            player_button(y, name).tap()
            settled(y)
        go_online(x.context)
        settled(x, timeout=30000)
        expect(notes(x)).to_have_text(
            ["Bob’s tap was not recorded: Bob was already out on another tablet (4th in match 1)."]
        )
        x.context.close()
        y.context.close()
