"""Correcting a filed match on a tablet in portrait (768x1024): the up and down buttons reorder
the players, the confirmation shows the new places and saves nothing until confirmed, the
saved match shows the new places; without JavaScript the text box does it."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from matches.models import MatchCorrection
from tests.browser.helpers import PORTRAIT, SCREENSHOTS, log_in, tablet
from tests.factories import make_table, places, tap

pytestmark = pytest.mark.browser


@pytest.fixture
def filed(site):
    """Match 1 filed: Alice out first, then Ben, then Cara; Dev won."""
    table = make_table(players=["Alice", "Ben", "Cara", "Dev"])
    for name in ["Alice", "Ben", "Cara"]:
        tap(table, name)
    return table


def rows(page) -> list[str]:
    return [
        re.sub(r"\s+", " ", text).strip() for text in page.locator(".correct-row").all_inner_texts()
    ]


def results(page) -> list[list[str]]:
    body = page.get_by_role("table").first.locator("tbody tr")
    return [[cell.strip() for cell in row.locator("td").all_inner_texts()] for row in body.all()]


def test_the_buttons_reorder_and_the_match_shows_the_new_places(browser, site, filed):
    context = tablet(browser, PORTRAIT)
    page = context.new_page()
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    log_in(page, site)
    page.goto(f"{site}/tables/{filed.pk}/matches/1/")
    page.get_by_role("link", name="Correct this match").click()
    expect(page.get_by_role("heading", name="Correct match 1")).to_be_visible()
    # The list replaces the text box, which still carries the order.
    expect(page.get_by_label("Order they went out")).to_be_hidden()
    assert rows(page) == ["4th Alice ↑ ↓", "3rd Ben ↑ ↓", "2nd Cara ↑ ↓", "1st Dev ↑ ↓"]
    expect(page.get_by_role("button", name="Move Alice up")).to_be_disabled()
    expect(page.get_by_role("button", name="Move Dev down")).to_be_disabled()
    for name in ["Move Cara up", "Move Cara up", "Move Alice down"]:
        button = page.get_by_role("button", name=name)
        box = button.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (name, box)  # finger-sized
        button.tap()
    assert rows(page) == ["4th Cara ↑ ↓", "3rd Ben ↑ ↓", "2nd Alice ↑ ↓", "1st Dev ↑ ↓"]
    expect(page.get_by_role("button", name="Move Alice down")).to_be_focused()
    assert page.evaluate("document.documentElement.scrollWidth") <= PORTRAIT["width"]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "correct-match-portrait.png")
    page.get_by_role("button", name="Review correction").tap()

    expect(page.get_by_role("heading", name="Correct match 1?")).to_be_visible()
    assert results(page) == [
        ["1st", "Dev", "3", "1st · 3"],
        ["2nd", "Alice", "2", "4th · 0"],
        ["3rd", "Ben", "1", "3rd · 1"],
        ["4th", "Cara", "0", "2nd · 2"],
    ]
    expect(page.get_by_text("The ratings of this match and of 0 later matches")).to_be_visible()
    assert not MatchCorrection.objects.exists()
    page.screenshot(path=SCREENSHOTS / "correct-match-confirm-portrait.png")
    page.get_by_role("button", name="Confirm correction").tap()

    expect(page).to_have_url(re.compile(rf"/tables/{filed.pk}/matches/1/$"))
    expect(page.get_by_text("Match 1 corrected.")).to_be_visible()
    assert results(page) == [
        ["Dev", "1st", "3"], ["Alice", "2nd", "2"], ["Ben", "3rd", "1"], ["Cara", "4th", "0"]
    ]  # fmt: skip
    expect(page.get_by_text("Order after: Cara, Ben, Alice, Dev.")).to_be_visible()
    match = filed.matches.get(number=1)
    assert places(match) == {"Cara": 4, "Ben": 3, "Alice": 2, "Dev": 1}
    assert errors == []
    context.close()


def test_without_javascript_the_text_box_is_the_form(browser, site, filed):
    context = tablet(browser, PORTRAIT, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site}/accounts/login/")
    page.get_by_label("Username").fill("host")
    page.get_by_label("Password").fill("a-long-test-password")
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{site}/tables/{filed.pk}/matches/1/correct/")
    expect(page.locator(".correct-order")).to_be_hidden()
    page.get_by_label("Order they went out").fill("Dev\nBen\nCara\nAlice")
    page.get_by_role("button", name="Review correction").click()
    expect(page.get_by_text("Nothing is saved until you confirm.")).to_be_visible()
    assert not MatchCorrection.objects.exists()
    page.get_by_role("button", name="Confirm correction").click()
    expect(page.get_by_text("Match 1 corrected.")).to_be_visible()
    assert places(filed.matches.get(number=1)) == {"Dev": 4, "Ben": 3, "Cara": 2, "Alice": 1}
    assert MatchCorrection.objects.count() == 1
    context.close()


def test_no_axe_violations_in_either_theme(browser, site, filed):
    found = []
    for scheme in ("light", "dark"):
        context = tablet(browser, PORTRAIT, color_scheme=scheme)
        page = context.new_page()
        log_in(page, site)
        page.goto(f"{site}/tables/{filed.pk}/matches/1/correct/")
        page.get_by_role("button", name="Move Cara up").tap()
        found += [f"{scheme} form: {v['id']}" for v in Axe().run(page).response["violations"]]
        page.get_by_role("button", name="Review correction").tap()
        expect(page.get_by_role("button", name="Confirm correction")).to_be_visible()
        found += [f"{scheme} confirm: {v['id']}" for v in Axe().run(page).response["violations"]]
        page.get_by_role("button", name="Confirm correction").tap()
        expect(page.get_by_text("Match 1 corrected.")).to_be_visible()
        found += [f"{scheme} match: {v['id']}" for v in Axe().run(page).response["violations"]]
        context.close()
    assert found == []
