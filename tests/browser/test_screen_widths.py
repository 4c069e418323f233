"""Every screen reads at a glance. On a phone (390x844), a portrait tablet
(768x1024), a landscape tablet (1024x768) and the pub's TV (1920x1080), in English and
Portuguese, light and dark: no page is wider than its screen, and a name is never split
inside a word. One browser context per screen, language and theme; each visits every page.
On the phone, axe finds nothing on any of them."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from matches.models import Table
from tests.browser.helpers import freeze_polling, tablet
from tests.factories import make_table, open_match, tap

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
PORTRAIT = {"width": 768, "height": 1024}
LANDSCAPE = {"width": 1024, "height": 768}
TV = {"width": 1920, "height": 1080}
LONG_NAMES = ["Featherstonehaugh", "Dave", "Zoë Alexandra Montgomery", "Cholmondeley-Warner"]
PLAYERS = [*LONG_NAMES, "Ana", "Bartholomew"]

# Every word of a name, as laid out: the number of lines its letters sit on, and whether it
# fits the box that clips it (a word too long for its box shrinks; it is never cut or split).
_WORDS_AS_LAID_OUT = r"""(words) => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const host = node.parentElement;
    if (!host || host.closest(".visually-hidden, [hidden], script, style, option")) continue;
    for (const word of words) {
      let at = node.data.indexOf(word);
      while (at !== -1) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + word.length);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        if (rects.length) {
          const lines = new Set(rects.map((r) => Math.round(r.top))).size;
          const whole = range.getBoundingClientRect();
          let clip = host;
          while (clip && clip !== document.body) {
            const style = getComputedStyle(clip);
            if (style.overflowX !== "visible" && !clip.classList.contains("table-scroll")) break;
            clip = clip.parentElement;
          }
          let cut = false;
          if (clip && clip !== document.body) {
            const box = clip.getBoundingClientRect();
            cut = whole.left < box.left - 1 || whole.right > box.right + 1;
          }
          found.push({word, lines, cut, where: host.tagName + "." + host.className});
        }
        at = node.data.indexOf(word, at + word.length);
      }
    }
  }
  return found;
}"""
_NEXT_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


@pytest.fixture
def night(site):
    """A table of long names two matches into the night (the lead shared), a tap into the
    third; a fresh table for the roster page; the pages to visit; the host's session."""
    table = make_table(players=PLAYERS, name="The Long Room at the Back")
    for name in ["Ana", "Dave", "Bartholomew", "Cholmondeley-Warner", "Zoë Alexandra Montgomery"]:
        tap(table, name)
    # Zoë wins the second: she and Featherstonehaugh are level on everything tonight.
    for name in ["Dave", "Bartholomew", "Cholmondeley-Warner", "Ana", "Featherstonehaugh"]:
        tap(table, name)
    tap(table, "Dave")
    fresh = make_table(name="Snug")
    player = table.matches.get(number=1).winner_id
    client = Client()
    client.force_login(table.created_by)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    public = [
        "/accounts/login/",
        "/tables/999999/",
        "/",
        f"/tables/{table.pk}/board/",
        "/standings/",
        f"/tables/{table.pk}/standings/",
        f"/players/{player}/",
        f"/tables/{table.pk}/matches/1/",
        f"/tables/{table.pk}/matches/",
        f"/tables/{table.pk}/tonight/",
        "/seasons/",
        "/rules/",
        f"/rules/showdown/?table={table.pk}",
    ]
    hosting = [
        "/",
        f"/tables/{table.pk}/",
        "/tables/new/",
        f"/tables/{fresh.pk}/roster/",
        "/players/",
    ]
    return {"site": site, "session": session, "public": public, "hosting": hosting}


def _context(browser, night, viewport, language, scheme):
    context = tablet(browser, viewport, color_scheme=scheme, service_workers="block")
    context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": night["site"]}]
    )
    return context


def _log_in(context, night) -> None:
    cookie = {"name": settings.SESSION_COOKIE_NAME, "value": night["session"]}
    context.add_cookies([{**cookie, "url": night["site"]}])


def _problems(page, viewport, label: str, *, axe: bool) -> list[str]:
    page.evaluate(_NEXT_FRAMES)
    problems = []
    width = page.evaluate("document.documentElement.scrollWidth")
    if width != viewport["width"]:
        problems.append(f"{label}: the page is {width} px wide")
    # The TV is laid out for a screen across the room: on a phone it must not pan, but
    # Its names are only read at a TV's (or a tablet's landscape) size.
    tv_on_a_small_screen = "/board/" in label and viewport["width"] < LANDSCAPE["width"]
    words = [] if tv_on_a_small_screen else page.evaluate(_WORDS_AS_LAID_OUT, PLAYERS_WORDS)
    for word in words:
        if word["lines"] > 1 or word["cut"]:
            problems.append(f"{label}: {word['word']} split or cut in {word['where']}")
    if axe:
        for v in Axe().run(page).response["violations"]:
            problems.append(f"{label}: axe {v['id']} ({v['impact']}): {v['help']}")
    return problems


# A name may break at a space or after its own hyphen, never inside a word.
PLAYERS_WORDS = sorted({word for name in PLAYERS for word in re.split(r"[\s-]+", name)})


@pytest.mark.parametrize(
    "viewport", [PHONE, PORTRAIT, LANDSCAPE, TV], ids=["phone", "portrait", "landscape", "tv"]
)
def test_no_page_pans_and_no_name_is_split(browser, night, viewport):
    found = []
    for language in ("en", "pt"):
        for scheme in ("light", "dark"):
            axe = viewport is PHONE
            context = _context(browser, night, viewport, language, scheme)
            page = context.new_page()
            for path in night["public"]:
                page.goto(night["site"] + path)
                found += _problems(page, viewport, f"{language} {scheme} {path}", axe=axe)
            _log_in(context, night)
            for path in night["hosting"]:
                page.goto(night["site"] + path)
                found += _problems(page, viewport, f"{language} {scheme} host {path}", axe=axe)
            context.close()
    assert found == [], "\n".join(found)


class TestOnAPhone:
    def test_the_live_status_keeps_clear_of_the_mode_pill(self, browser, night):
        context = _context(browser, night, PHONE, "pt", "light")
        page = context.new_page()
        for _spectator_then_host in range(2):
            page.goto(night["site"] + night["hosting"][1])
            expect(page.locator("#live-status")).to_be_visible()
            pill = page.locator(".table-head .badge").first.bounding_box()
            status = page.locator("#live-status").bounding_box()
            overlap_x = min(pill["x"] + pill["width"], status["x"] + status["width"]) - max(
                pill["x"], status["x"]
            )
            overlap_y = min(pill["y"] + pill["height"], status["y"] + status["height"]) - max(
                pill["y"], status["y"]
            )
            assert overlap_x <= 0 or overlap_y <= 0, (pill, status)
            _log_in(context, night)
        context.close()

    def test_a_spectator_losing_the_connection_is_not_told_of_an_action(self, browser, night):
        context = _context(browser, night, PHONE, "en", "light")
        page = context.new_page()
        url = night["site"] + night["hosting"][1]
        page.goto(url)
        page.route(re.compile(r".*/tables/\d+/$"), lambda route: route.abort("connectionreset"))
        alert = page.locator("#network-status")
        expect(alert).to_be_visible(timeout=7000)
        expect(alert).to_contain_text(
            "The server could not be reached. This page will catch up when the connection is back."
        )
        expect(alert).not_to_contain_text("Your last action")
        context.close()

    def test_success_is_green_not_the_warnings_gold(self, browser, night):
        context = _context(browser, night, PHONE, "en", "light")
        _log_in(context, night)
        page = context.new_page()
        roster = night["site"] + night["hosting"][3]
        page.goto(roster)
        page.get_by_role("button", name="Save roster").click()
        box = page.locator(".message-success")
        expect(box).to_have_text("Roster saved for match 1.")
        colours = page.evaluate(
            """() => {
              const probe = document.createElement("p");
              document.body.append(probe);
              const of = (cls) => { probe.className = "message " + cls;
                                    return getComputedStyle(probe).backgroundColor; };
              const found = {success: of("message-success"), warning: of("message-warning"),
                             error: of("message-error"), info: of("message-info")};
              probe.remove();
              return found;
            }"""
        )
        assert len(set(colours.values())) == 4, colours
        context.close()


class TestHome:
    def test_each_open_table_is_opened_by_its_open_link(self, browser, night):
        context = _context(browser, night, PHONE, "en", "light")
        _log_in(context, night)
        page = context.new_page()
        page.goto(night["site"] + "/")
        link = page.get_by_role("link", name="Open The Long Room at the Back", exact=True)
        expect(link).to_have_text("Open")
        card = page.locator(".table-card", has=link)
        close = card.get_by_role("link", name="Close table…")
        gap = close.bounding_box()["x"] - (link.bounding_box()["x"] + link.bounding_box()["width"])
        assert gap > 100 or close.bounding_box()["y"] > link.bounding_box()["y"]
        # Both co-leaders of tonight wear the crown.
        expect(card.locator(".leader .name")).to_have_text(
            ["Featherstonehaugh", "Zoë Alexandra Montgomery"]
        )
        link.tap()
        expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
        expect(page.get_by_role("heading", name="The Long Room at the Back")).to_be_visible()
        page.get_by_role("link", name="Seasons", exact=True).click()
        expect(page.get_by_role("heading", name="Seasons", level=1)).to_be_visible()
        context.close()


class TestTwoTabletsClash:
    def test_a_refused_tap_shows_one_red_box(self, browser, night):
        site = night["site"]
        table = Table.objects.get(name="Snug")
        pages = []
        for _ in range(2):
            context = _context(browser, night, PORTRAIT, "en", "light")
            _log_in(context, night)
            page = context.new_page()
            page.goto(f"{site}/tables/{table.pk}/")
            pages.append(page)
        first, second = pages
        freeze_polling(second)
        first.get_by_role("button", name="Ben", exact=True).tap()
        expect(first.locator("#queue-status")).to_contain_text("every tap recorded")
        second.get_by_role("button", name="Ben", exact=True).tap()
        expect(second.locator(".queue-note")).to_have_text(
            re.compile(
                r"^Ben’s tap was not recorded: Ben was already out on another tablet "
                r"\(\d+(st|nd|rd|th) in match \d+\)\.$"
            ),
            timeout=7000,
        )
        expect(second.locator("#queue-status")).to_contain_text("every tap recorded")
        # One red box: the queue's note; the server's own sentence is not shown beside it.
        expect(second.locator(".queue-note:visible, .message-error:visible")).to_have_count(1)
        assert open_match(table).seats.filter(place__isnull=False).count() == 1
        for page in pages:
            page.context.close()
