"""The tablet's tap queue in a real Chromium (issue 10): taps kept and sent in order through
a network outage, a cold reload offline, conflicts explained, a lost login, a slow network,
and a board that never moves under a finger."""

import re
import threading
import uuid

import pytest
from playwright.sync_api import expect

from matches.models import Tap
from tests.browser import LANDSCAPE, PORTRAIT, SYNC_TIMEOUT_MS, log_in, player_button, tablet
from tests.factories import WORKED_GAME, make_table, open_match, places, tap

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


def host_tablet(browser, site, table, viewport=LANDSCAPE):
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


def taps_in_order(table):
    return [
        (t.match.number, t.player.name)
        for t in Tap.objects.filter(match__table=table, undone_at__isnull=True)
        .select_related("match", "player")
        .order_by("id")
    ]


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
                    assert not any(overlaps(message.bounding_box(), b) for b in boxes + [undo])
        card = page.locator("#result-card")
        card_box = card.bounding_box()
        assert not any(overlaps(card_box, b) for b in tile_boxes(page) + [undo_box])
        assert card_box["x"] + card_box["width"] <= viewport["width"]
        assert card_box["y"] + card_box["height"] <= viewport["height"]
        expect(card.locator(".result-places li")).to_have_count(10)
        hide = card.get_by_role("button", name="Hide").bounding_box()
        assert not overlaps(hide, card.get_by_role("heading").bounding_box())
        assert not overlaps(hide, card.locator(".result-places").bounding_box())
        assert places(table.matches.get(number=1))["Ana"] == 1
        page.screenshot(path=f"/tmp/layout-{viewport['width']}.png")
