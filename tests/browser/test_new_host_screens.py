"""What a new host still stumbled on (issue 38), at the four sizes: a portrait tablet
(768x1024), a landscape tablet (1024x768), a phone (390x844) and the TV (1920x1080), in
English and Portuguese. No page pans, no head is cut or printed over another, nothing a
viewer reads on the TV is under 32 px, and axe finds nothing."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from matches.models import Table
from matches.play.services.tables import table_close
from tests.browser.helpers import go_offline, player_button, players_box, tablet
from tests.browser.test_screen_widths import (
    LANDSCAPE,
    PHONE,
    PLAYERS,
    PORTRAIT,
    TV,
    _context,
    _log_in,
)
from tests.browser.test_screen_widths import night as long_names_night
from tests.factories import make_table, open_match, tap, the_organiser

pytestmark = pytest.mark.browser

# Each box that clips its text and is narrower than the text: a head cut short ("Ranl").
CLIPPED = """async (selector) => {
  // After the frame fit-names.js asked for at the page's load, where a long name is shrunk
  // to fit: read before it (a busy machine), the name looked clipped.
  await new Promise(done => requestAnimationFrame(() => done()));
  return [...document.querySelectorAll(selector)]
    .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
    .map(e => e.textContent.trim());
}"""
# The heads of a table that touch or overlap each other, or stick out of the box around it.
COLLIDING = """([table, box]) => {
  const outer = document.querySelector(box).getBoundingClientRect();
  const heads = [...document.querySelectorAll(table + ' thead th')]
    .filter(th => th.offsetParent !== null);
  const found = [];
  const inked = heads.map(th => {
    const range = document.createRange();
    range.selectNodeContents(th);
    return [th.textContent.trim(), range.getBoundingClientRect()];
  });
  inked.forEach(([text, r], i) => {
    if (r.left < outer.left - 1 || r.right > outer.right + 1) found.push(text + ' sticks out');
    const next = inked[i + 1];
    if (next && next[1].left < r.right + 2) found.push(text + ' touches ' + next[0]);
  });
  return found;
}"""
# Every visible piece of text on the TV under the given size, with its size.
SMALL_TEXT = """(least) => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const host = node.parentElement;
    if (!node.data.trim() || !host || host.closest('.visually-hidden, [hidden], svg, template')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (!r.width || !r.height || host.closest('[aria-hidden="true"]')) continue;
    const style = getComputedStyle(host);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const size = parseFloat(style.fontSize);
    if (size < least) found.push(node.data.trim().slice(0, 40) + ': ' + size.toFixed(1) + ' px');
  }
  return found;
}"""
PAGE_WIDTH = "document.documentElement.scrollWidth"
# The screen widths' night: a table of long names two matches in, the lead shared.
night = long_names_night


def _axe(page) -> list[str]:
    return [f"{v['id']}: {v['help']}" for v in Axe().run(page).response["violations"]]


def _table():
    return Table.objects.get(name="The Long Room at the Back")


@pytest.mark.parametrize("language", ["en", "pt"])
class TestStandingsOnAPortraitTablet:
    def test_every_column_fits_and_no_head_is_cut(self, browser, night, language):
        context = _context(browser, night, PORTRAIT, language, "light")
        page = context.new_page()
        page.goto(night["site"] + "/standings/")
        box = page.locator(".table-scroll").first
        fits = box.evaluate("b => b.scrollWidth <= b.clientWidth")
        assert fits, "the standings scroll sideways at 768 px"
        assert page.evaluate(CLIPPED, "table.standings th") == []
        points = {"en": "Points", "pt": "Pontos"}[language]
        head = page.get_by_role("columnheader", name=points).bounding_box()
        assert head["x"] + head["width"] <= PORTRAIT["width"]
        assert page.evaluate(PAGE_WIDTH) == PORTRAIT["width"]
        assert _axe(page) == []
        context.close()

    def test_on_a_phone_the_box_shows_that_it_scrolls(self, browser, night, language):
        context = _context(browser, night, PHONE, language, "light")
        page = context.new_page()
        page.goto(night["site"] + "/standings/")
        box = page.locator(".table-scroll").first
        assert box.evaluate("b => b.scrollWidth > b.clientWidth")
        # A shadow at the edge with more to see: a gradient drawn as the box scrolls.
        assert "radial-gradient" in box.evaluate("b => getComputedStyle(b).backgroundImage")
        assert page.evaluate(CLIPPED, "table.standings th") == []
        assert page.evaluate(PAGE_WIDTH) == PHONE["width"]
        context.close()


@pytest.mark.parametrize("language", ["en", "pt"])
@pytest.mark.parametrize(
    "viewport", [PORTRAIT, LANDSCAPE, PHONE], ids=["portrait", "landscape", "phone"]
)
def test_tonights_heads_never_touch(browser, night, language, viewport):
    context = _context(browser, night, viewport, language, "light")
    _log_in(context, night)
    page = context.new_page()
    for path in (f"/tables/{_table().pk}/", f"/tables/{_table().pk}/tonight/"):
        page.goto(night["site"] + path)
        if "tonight/" not in path:
            assert page.evaluate(COLLIDING, [".tonight-table", ".tonight"]) == [], path
        assert page.evaluate(CLIPPED, ".tonight-table th, .night-lines th") == [], path
        assert page.evaluate(PAGE_WIDTH) == viewport["width"], path
    context.close()


@pytest.mark.parametrize("language", ["en", "pt"])
def test_the_nights_story_fits_a_phone(browser, night, language):
    context = _context(browser, night, PHONE, language, "light")
    page = context.new_page()
    page.goto(f"{night['site']}/tables/{_table().pk}/tonight/")
    box = page.locator(".story-scroll")
    assert box.evaluate("b => b.scrollWidth <= b.clientWidth"), "the story scrolls sideways"
    change = {"en": "Rating change", "pt": "Variação do rating"}[language]
    head = page.get_by_role("columnheader", name=change).bounding_box()
    assert head["x"] + head["width"] <= PHONE["width"]
    assert page.evaluate(CLIPPED, ".night-lines th, .night-lines td") == []
    assert _axe(page) == []
    context.close()


@pytest.mark.parametrize("language", ["en", "pt"])
class TestTheTV:
    def test_nothing_a_viewer_reads_is_under_32_px(self, browser, night, language):
        context = _context(browser, night, TV, language, "light")
        page = context.new_page()
        page.goto(f"{night['site']}/tables/{_table().pk}/board/")
        expect(page.locator("#live-status")).to_be_visible()
        assert page.evaluate(SMALL_TEXT, 32) == []
        assert page.evaluate(PAGE_WIDTH) == TV["width"]
        assert page.evaluate(CLIPPED, ".tonight-table th") == []
        assert _axe(page) == []
        context.close()

    def test_a_closed_table_says_so_once_and_its_story_fills_the_left(
        self, browser, night, language
    ):
        closed = make_table(name="Back bar", players=["Ann", "Bob", "Cy"])
        for name in ["Cy", "Bob", "Ann", "Cy"]:
            tap(closed, name)
        table_close(
            table_id=closed.pk, by=closed.created_by, discard_match_id=open_match(closed).pk
        )
        context = _context(browser, night, TV, language, "light")
        page = context.new_page()
        page.goto(f"{night['site']}/tables/{closed.pk}/board/")
        said = {"en": "This table is closed", "pt": "Esta mesa está fechada"}[language]
        expect(page.get_by_text(re.compile(said)).locator("visible=true")).to_have_count(1)
        assert page.evaluate(SMALL_TEXT, 32) == []
        story = page.locator(".night-story").bounding_box()
        assert story["y"] + story["height"] >= TV["height"] * 0.85
        assert _axe(page) == []
        context.close()


@pytest.mark.parametrize("language", ["en", "pt"])
@pytest.mark.parametrize("host", [False, True], ids=["spectator", "host"])
class TestTheHeader:
    def test_two_rows_on_a_phone_and_names_not_underlined(self, browser, night, language, host):
        context = _context(browser, night, PHONE, language, "light")
        if host:
            _log_in(context, night)
        page = context.new_page()
        page.goto(f"{night['site']}/tables/{_table().pk}/")
        header = page.locator(".site-header").bounding_box()
        assert header["height"] <= 110, header
        assert page.evaluate(CLIPPED, ".site-header a, .site-header button") == []
        assert page.evaluate(PAGE_WIDTH) == PHONE["width"]
        if not host:
            names = page.locator(".standing-names li")
            expect(names.first).to_be_visible()
            for line in names.evaluate_all(
                "ls => ls.map(l => [getComputedStyle(l).borderBottomWidth,"
                " getComputedStyle(l).textDecorationLine])"
            ):
                assert line == ["0px", "none"]
        context.close()

    def test_the_sign_out_shows_whole_on_a_portrait_tablet(self, browser, night, language, host):
        context = _context(browser, night, PORTRAIT, language, "light")
        if host:
            _log_in(context, night)
        page = context.new_page()
        page.goto(f"{night['site']}/standings/")
        assert page.evaluate(CLIPPED, ".site-header a, .site-header button") == []
        if host:
            word = {"en": "Log out", "pt": "Sair"}[language]
            expect(page.locator(".sign-out")).to_have_text(word)
        context.close()


@pytest.mark.parametrize("language", ["en", "pt"])
def test_without_javascript_the_status_says_what_it_is_and_the_card_fits(browser, night, language):
    table = make_table(name="Ranked", players=PLAYERS)
    for name in PLAYERS[1:]:
        tap(table, name)
    context = tablet(browser, LANDSCAPE, java_script_enabled=False)
    context.add_cookies([{"name": "django_language", "value": language, "url": night["site"]}])
    page = context.new_page()
    page.goto(f"{night['site']}/tables/{table.pk}/")
    status = page.locator(".live-status").locator("visible=true")
    expect(status).to_have_count(1)
    said = {"en": "live · this page reloads itself", "pt": "em direto · esta página"}[language]
    expect(status).to_contain_text(said)
    card = page.locator("#result-card")
    expect(card).to_be_visible()
    expect(card.locator(".result-hide")).to_be_hidden()
    # Each place on one row: its label, name and points side by side, none over another.
    rows = card.locator(".result-places li").evaluate_all(
        """ls => ls.map(l => [...l.children].map(c => c.getBoundingClientRect()))
             .filter(rs => rs.some((r, i) => i && r.left < rs[i - 1].right - 1))"""
    )
    assert rows == []
    assert page.evaluate(PAGE_WIDTH) == LANDSCAPE["width"]
    context.close()


@pytest.mark.parametrize("language", ["en", "pt"])
def test_offline_the_pending_card_says_out(browser, night, language):
    table = make_table(
        name="Snug bar", players=["Ann", "Bob", "Cy", "Dee"], mode=Table.Mode.WINNER_TAKES_ALL
    )
    context = _context(browser, night, LANDSCAPE, language, "light")
    _log_in(context, night)
    page = context.new_page()
    page.goto(f"{night['site']}/tables/{table.pk}/")
    expect(page.locator("#queue-status")).to_be_visible()
    go_offline(context)
    for name in ["Cy", "Bob", "Ann"]:
        player_button(page, name).tap()
    card = page.locator(".result-card.is-pending")
    out = {"en": "Out:", "pt": "Fora:"}[language]
    expect(card.locator(".result-out")).to_have_text(f"{out} Ann, Bob, Cy")
    context.close()


def session_of(user) -> str:
    """A logged-in session's cookie value, for a browser context."""
    client = Client()
    client.force_login(user)
    return client.cookies[settings.SESSION_COOKIE_NAME].value


def test_the_merge_form_picks_the_other_record_as_seating_does(browser, night):
    from matches.models import Player

    keep = Player.objects.get(name="Dave")
    context = _context(browser, night, PORTRAIT, "en", "light")
    # Merging records is the organiser's: their session, not the venue host's.
    _log_in(context, {**night, "session": session_of(the_organiser())})
    page = context.new_page()
    page.goto(f"{night['site']}/players/{keep.pk}/merge/")
    box = page.get_by_role("combobox", name="Name of the other record")
    box.press_sequentially("cholm")
    option = page.get_by_role("option", name="Cholmondeley-Warner")
    expect(option).to_be_visible()
    option.tap()
    expect(box).to_have_value("Cholmondeley-Warner")
    expect(page.get_by_role("listbox")).to_be_hidden()
    assert _axe(page) == []
    context.close()


@pytest.mark.parametrize("viewport", [LANDSCAPE, PHONE], ids=["landscape", "phone"])
def test_the_new_table_form_shows_the_players_once(browser, night, viewport):
    context = _context(browser, night, viewport, "en", "light")
    _log_in(context, night)
    page = context.new_page()
    page.goto(f"{night['site']}/tables/new/")
    expect(page.locator("#seats")).to_be_visible()
    box = page.locator("textarea[name=players]")
    expect(box).to_be_hidden()
    for name in ("Ana", "Dave"):
        page.get_by_role("combobox", name="Find or add a player").fill(name)
        page.get_by_role("option", name=name, exact=True).click()
    expect(page.locator(".seat-chips li")).to_have_count(2)
    expect(box).to_have_value("Ana\nDave")  # still the form's field, written by the chips
    toggle = page.get_by_role("button", name="Type or paste the list")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    expect(box).to_be_visible()
    expect(page.get_by_role("group", name="Mode").get_by_label("Ranked (3/2/1)")).to_be_checked()
    assert page.evaluate(PAGE_WIDTH) == viewport["width"]
    assert _axe(page) == []
    context.close()


@pytest.mark.parametrize(
    "viewport", [LANDSCAPE, PORTRAIT, PHONE], ids=["landscape", "portrait", "phone"]
)
def test_did_you_mean_sits_beside_its_name(browser, night, viewport):
    context = _context(browser, night, viewport, "en", "light")
    _log_in(context, night)
    page = context.new_page()
    page.goto(f"{night['site']}/tables/new/")
    page.get_by_label("Table name").fill("Snug 2")
    players_box(page).fill("Ana\nZoe Alexandra Montgomery\nDave")
    page.get_by_role("button", name="Launch table").click()
    question = page.get_by_role("group", name="Did you mean Zoë Alexandra Montgomery?")
    chip = page.locator(".seat-chip", has_text="Zoe Alexandra Montgomery")
    expect(chip.locator(".name-doubt")).to_have_count(1)
    box, name = question.bounding_box(), chip.locator(".seat-name").bounding_box()
    assert 0 <= box["y"] - (name["y"] + name["height"]) < 80, (box, name)
    # Asked on the first screen, beside the name (the answers may run just past a phone's).
    legend = question.locator("legend").bounding_box()
    assert legend["y"] + legend["height"] <= viewport["height"], "the question is off-screen"
    question.get_by_label("Use Zoë Alexandra Montgomery").check()
    page.get_by_role("button", name="Launch table").click()
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    assert page.evaluate(PAGE_WIDTH) == viewport["width"]
    context.close()
