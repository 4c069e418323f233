"""The night at the table in a real Chromium: the result card, tonight's totals, closing and
reopening, undo across a match boundary, the spectator's page, the TV at 1920x1080, the
showdown picker, en-GB dates, and axe on every page in both themes and both languages."""

import re

import pytest
import segno
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from matches.models import Table
from matches.play.services.tables import match_set_roster, table_close
from tests.browser.helpers import (
    LANDSCAPE,
    PORTRAIT,
    SCREENSHOTS,
    SYNC_TIMEOUT_MS,
    log_in,
    player_button,
    players_box,
    tablet,
)
from tests.factories import WORKED_GAME, make_table, open_match, tap
from tests.play.test_night import qr_matrix_from_svg

pytestmark = pytest.mark.browser
TV = {"width": 1920, "height": 1080}
LONG_NAMES = [
    "Maximiliana Wolstenholme-Fitzgerald",
    "Bartholomew Featherstonehaugh",
    "Cátia Vasconcelos de Albuquerque",
    "Duarte Magalhães e Menezes",
    "Eva",
    "Filipa Bragança e Ligne Sampaio",
    "Gonçalo Mascarenhas Pereira",
    "Helena Cunha-Rivara",
    "Inês",
    "João Pedro Pinto da Costa Neves",
]


def play(table, order):
    for name in order:
        tap(table, name)


class TestResultCard:
    @pytest.mark.parametrize(
        ("viewport", "orientation"), [(LANDSCAPE, "landscape"), (PORTRAIT, "portrait")]
    )
    def test_ranked_every_place_with_its_points_until_the_next_first_tap(
        self, browser, site, viewport, orientation
    ):  # (test_browser.py's worked game takes the screenshots of this moment)
        table = make_table(players=WORKED_GAME)
        play(table, ["Ben", "Alice"])
        context = tablet(browser, viewport)
        page = context.new_page()
        log_in(page, site)
        page.goto(f"{site}/tables/{table.pk}/")
        player_button(page, "Cara").tap()
        card = page.locator("#result-card")
        expect(card.get_by_role("heading")).to_have_text("♛ Dev wins match 1!")
        expect(card.locator(".result-places li")).to_have_text(
            ["1st Dev 3 pts", "2nd Cara 2 pts", "3rd Alice 1 pt", "4th Ben 0 pts"]
        )
        # Said once: no second sentence in the messages.
        expect(page.locator(".messages")).to_have_count(0)
        player_button(page, "Ben").tap()  # the next match's first tap
        expect(card).to_have_count(0)
        context.close()

    def test_winner_takes_all_names_the_winner_and_a_tap_hides_the_card(self, host_page, site):
        table = make_table(players=WORKED_GAME, mode=Table.Mode.WINNER_TAKES_ALL)
        play(table, ["Ben", "Alice", "Cara"])
        host_page.goto(f"{site}/tables/{table.pk}/")
        card = host_page.locator("#result-card")
        expect(card).to_contain_text("Dev wins match 1!")
        expect(card.locator(".result-out")).to_have_text("Out: Cara, Alice, Ben")
        expect(card.locator(".result-places")).to_have_count(0)
        card.tap()
        expect(card).to_be_hidden()
        host_page.wait_for_timeout(3500)  # a poll: the card stays dismissed
        expect(card).to_be_hidden()


class TestTonight:
    def test_the_table_and_the_tv_show_who_leads_tonight(self, browser, host_page, site):
        table = make_table(players=WORKED_GAME)
        play(table, ["Ben", "Alice", "Cara"])  # Dev 3, Cara 2, Alice 1
        host_page.goto(f"{site}/tables/{table.pk}/")
        rows = host_page.locator(".tonight-table tbody tr")
        expect(rows).to_have_text(
            [re.compile(r"Dev\s*3\s*1\s*1"), re.compile(r"Cara\s*2\s*0\s*1"),
             re.compile(r"Alice\s*1\s*0\s*1"), re.compile(r"Ben\s*0\s*0\s*1")]
        )  # fmt: skip
        play(table, ["Dev", "Ben", "Alice"])  # another tablet: Cara 3 more
        expect(rows.first).to_contain_text("Cara", timeout=SYNC_TIMEOUT_MS)
        expect(rows.first).to_contain_text("5")
        tv = browser.new_context(viewport=TV, locale="en-GB").new_page()
        tv.goto(f"{site}/tables/{table.pk}/board/")
        expect(tv.locator(".tonight-table tbody tr").first).to_have_text(re.compile(r"Cara\s*5"))
        tv.context.close()


class TestCloseConfirmReopen:
    def test_closing_mid_match_names_the_players_and_reopening_continues(self, host_page, site):
        table = make_table(players=WORKED_GAME)
        play(table, ["Ben", "Alice", "Cara"])
        tap(table, "Ben")  # match 2 under way
        host_page.goto(f"{site}/tables/{table.pk}/")
        host_page.get_by_role("link", name="Close table…").tap()
        expect(host_page.get_by_role("heading", level=1)).to_have_text(
            "Close Front bar for the night?"
        )
        expect(host_page.get_by_role("alert")).to_have_text(
            "Match 2 is under way and will be discarded:"
        )
        expect(host_page.get_by_text("Out so far: Ben (4th)")).to_be_visible()
        expect(host_page.get_by_text("Still standing: Alice, Cara, Dev")).to_be_visible()
        host_page.get_by_role("link", name="Keep playing").tap()
        expect(host_page.get_by_role("heading", name="Match 2")).to_be_visible()

        host_page.get_by_role("link", name="Close table…").tap()
        host_page.get_by_role("button", name="Close table").tap()
        expect(host_page.get_by_text("Table closed. No further match will open.")).to_be_visible()
        expect(host_page.locator("button.player")).to_have_count(0)
        host_page.get_by_role("button", name="Reopen table").tap()
        expect(host_page.get_by_text("Table reopened: match 2 is open.")).to_be_visible()
        expect(host_page.get_by_role("heading", name="Match 2")).to_be_visible()
        assert Table.objects.get(pk=table.pk).is_open
        assert open_match(table).number == 2


class TestUndoAcrossAMatchBoundary:
    def test_the_label_and_the_confirmation_when_a_roster_change_would_go(self, host_page, site):
        table = make_table(players=WORKED_GAME)
        play(table, ["Ben", "Alice"])
        host_page.goto(f"{site}/tables/{table.pk}/")
        player_button(host_page, "Cara").tap()
        undo = host_page.get_by_role("button", name=re.compile("^Undo"))
        expect(undo).to_have_text("Undo Cara out — reopens match 1")
        host_page.get_by_role("link", name="Edit roster").tap()
        players_box(host_page).fill("Dev\nCara\nAlice\nEve")
        host_page.get_by_role("button", name="Save roster").tap()
        # Now the undo would drop Eve's arrival: it asks first, on a page of its own.
        host_page.get_by_role("link", name="Undo Cara out — reopens match 1").tap()
        expect(host_page.get_by_role("alert")).to_contain_text(
            "Match 2 was given a new roster. Undoing removes match 2, and the roster change "
            "goes with it."
        )
        expect(
            host_page.get_by_text("The new roster that goes: Dev, Cara, Alice, Eve")
        ).to_be_visible()
        host_page.get_by_role("button", name="Undo Cara out").tap()
        expect(
            host_page.get_by_text("Undone: Cara is back and match 1 is open again.")
        ).to_be_visible()
        expect(host_page.get_by_role("heading", name="Match 1")).to_be_visible()
        expect(host_page.locator("button.player")).to_have_text(["Cara", "Dev"])


class TestSpectator:
    def test_no_buttons_a_live_indicator_and_a_lost_connection(self, browser, site):
        table = make_table(players=WORKED_GAME)
        tap(table, "Ben")
        page = tablet(browser).new_page()
        page.goto(f"{site}/tables/{table.pk}/")
        main = page.locator("main")
        expect(main.get_by_role("button")).to_have_count(0)
        expect(page.locator(".standing-names li")).to_have_text(["Alice", "Cara", "Dev"])
        status = page.locator("#live-status")
        expect(status).to_contain_text(re.compile(r"live · (up to date|updated \d+ s ago)"))
        page.wait_for_timeout(4000)
        expect(status).to_contain_text("live")
        page.route(
            re.compile(r".*/tables/\d+/$"), lambda route: route.abort("internetdisconnected")
        )
        expect(status).to_contain_text("offline · last contact", timeout=SYNC_TIMEOUT_MS)
        page.unroute(re.compile(r".*/tables/\d+/$"))
        expect(status).not_to_contain_text("offline", timeout=SYNC_TIMEOUT_MS)
        page.context.close()


def overflowing(page, selector: str) -> list[str]:
    """Elements under `selector` whose content is wider or taller than their box, or that
    stick out of the viewport."""
    return page.evaluate(
        """(selector) => {
          const bad = [];
          const w = window.innerWidth, h = window.innerHeight;
          for (const el of document.querySelectorAll(selector + ' *')) {
            const r = el.getBoundingClientRect();
            if (r.width === 0 && r.height === 0) continue;
            if (el.closest('.visually-hidden')) continue;  // clipped on purpose, for screen readers
            if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible'
                || r.right > w + 1 || r.bottom > h + 1 || r.left < -1) {
              bad.push(el.tagName + '.' + el.className + ': ' + el.textContent.trim().slice(0, 40));
            }
          }
          return bad;
        }""",
        selector,
    )


class TestTheTv:
    @pytest.mark.screenshots
    def test_ten_long_names_fill_1920x1080_without_overflow_and_the_qr_code_reads(
        self, browser, site
    ):
        table = make_table(players=LONG_NAMES, name="The Crown & Anchor, Saturday night")
        play(table, LONG_NAMES[1:][::-1])  # match 1: Maximiliana wins, everyone placed
        play(table, LONG_NAMES[5:8])  # match 2: three out, seven standing
        context = browser.new_context(viewport=TV, locale="en-GB")
        page = context.new_page()
        page.goto(f"{site}/tables/{table.pk}/board/")
        expect(page.locator(".tv-players li")).to_have_count(7)
        expect(page.locator(".tonight-table tbody tr")).to_have_count(10)
        expect(page.locator(".tv-last")).to_contain_text("Maximiliana Wolstenholme-Fitzgerald won")
        assert page.evaluate("document.documentElement.scrollHeight") <= TV["height"]
        assert page.evaluate("document.documentElement.scrollWidth") <= TV["width"]
        assert overflowing(page, "#live") == []
        # Filled: the columns reach down to the bottom of the screen (tonight's
        # panel, then the last result and the QR code under it).
        tonight = page.locator(".tonight").bounding_box()
        last = page.locator(".tv-last").bounding_box()
        assert tonight["y"] + tonight["height"] > TV["height"] * 0.6
        assert last["y"] + last["height"] > TV["height"] * 0.85
        names = page.locator(".tv-players li").last.bounding_box()
        assert names["y"] + names["height"] > TV["height"] * 0.5
        for name in LONG_NAMES[:5] + LONG_NAMES[8:]:
            box = page.locator(".tv-players li", has_text=name).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= TV["width"], name
        # The QR code: served by us as SVG, and it encodes this table's spectator page.
        qr = page.locator(".tv-qr img")
        expect(qr).to_be_visible()
        svg = page.request.get(qr.evaluate("img => img.src")).body()
        expected = segno.make(f"{site}/tables/{table.pk}/", error="m")
        size = len(expected.matrix)
        served = qr_matrix_from_svg(svg)
        assert [row[4 : 4 + size] for row in served[4 : 4 + size]] == [
            [bool(m) for m in row] for row in expected.matrix
        ]
        page.screenshot(path=SCREENSHOTS / "board-1920x1080.png")
        context.close()

    @pytest.mark.parametrize("viewport", [TV, {"width": 1280, "height": 720}])
    def test_tonight_fits_without_scrolling_and_names_no_rating(self, browser, site, viewport):
        table = make_table(players=LONG_NAMES, name="The Crown & Anchor, Saturday night")
        play(table, LONG_NAMES[1:][::-1])
        play(table, LONG_NAMES[5:8])
        context = browser.new_context(viewport=viewport, locale="en-GB")
        page = context.new_page()
        page.goto(f"{site}/tables/{table.pk}/board/")
        expect(page.locator(".tonight-table tbody tr")).to_have_count(10)
        # The league rating is the standings page's: a number patrons cannot place.
        expect(page.locator(".tonight-table thead th")).to_have_text(["Player", "Points"])
        assert page.evaluate("document.documentElement.scrollHeight") <= viewport["height"]
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.screenshot(path=f"/tmp/league-tv-{viewport['width']}.png")  # noqa: S108
        assert overflowing(page, "#live") == []
        context.close()

    def test_the_share_box_on_the_hosts_table_page(self, host_page, site):
        table = make_table(players=WORKED_GAME)
        host_page.goto(f"{site}/tables/{table.pk}/")
        host_page.get_by_text("Share", exact=True).tap()
        qr = host_page.get_by_role("img", name="QR code of the page that follows this table")
        expect(qr).to_be_visible()
        assert qr.evaluate("img => img.naturalWidth") > 0
        expect(host_page.locator(".share-body a")).to_have_text(f"{site}/tables/{table.pk}/")


class TestBritishDates:
    def test_dates_and_times_read_the_british_way(self, browser, site):
        table = make_table(players=WORKED_GAME)
        play(table, ["Ben", "Alice", "Cara"])
        page = tablet(browser).new_page()
        page.goto(f"{site}/tables/{table.pk}/matches/")
        cell = page.locator("time").first
        # 30 Nov 2026, 21:36: day, short month, year, 24-hour time.
        expect(cell).to_have_text(re.compile(r"^\d{1,2} [A-Z][a-z]{2} \d{4}, [0-2]\d:[0-5]\d$"))
        expect(page.locator("html")).to_have_attribute("lang", "en-GB")
        page.goto(f"{site}/standings/?from=30/11/2026")
        expect(page.get_by_label("From")).to_have_value("2026-11-30")  # the day-month date box
        page.context.close()


class TestPicker:
    @pytest.mark.screenshots
    def test_used_cards_grey_out_three_per_hand_a_tap_takes_back_no_keyboard(self, browser, site):
        table = make_table(players=WORKED_GAME)
        tap(table, "Ben")
        page = tablet(browser, PORTRAIT).new_page()
        page.goto(f"{site}/rules/showdown/?table={table.pk}")
        # ?table= fills in the standing players' names.
        for n, name in enumerate(["Alice", "Cara", "Dev"], 1):
            expect(page.get_by_label(f"Player {n}", exact=True)).to_have_value(name)
        card = lambda label: page.get_by_role("button", name=label, exact=True)  # noqa: E731
        hand1 = page.get_by_label("Cards of player 1", exact=True)
        hand2 = page.get_by_label("Cards of player 2", exact=True)
        for label in ["A♠", "K♠", "Q♠"]:
            card(label).tap()
        expect(hand1).to_have_value("A♠ K♠ Q♠")
        assert page.evaluate("document.activeElement.tagName") != "INPUT"  # no keyboard
        # Three cards: the next taps go to player 2, and player 1's cards are greyed out.
        card("J♥").tap()
        expect(hand2).to_have_value("J♥")
        expect(card("A♠")).to_be_disabled()
        expect(hand1).to_have_value("A♠ K♠ Q♠")
        # A tap on a picked card takes it back.
        card("J♥").tap()
        expect(hand2).to_have_value("")
        # Back to player 1: its hand is full, so only its own cards can be tapped (to remove).
        page.get_by_role("button", name="Pick the cards of player 1", exact=True).tap()
        expect(card("2♣")).to_be_disabled()
        card("K♠").tap()
        expect(hand1).to_have_value("A♠ Q♠")
        expect(card("2♣")).to_be_enabled()
        page.screenshot(path=SCREENSHOTS / "showdown-picker-portrait.png", full_page=True)
        page.context.close()


class TestHomeAndHeader:
    @pytest.mark.screenshots
    def test_home_lists_the_night_and_the_header_fits_a_portrait_tablet(self, browser, site):
        table = make_table(players=WORKED_GAME, name="Front bar")
        play(table, ["Ben", "Alice", "Cara"])
        closed = make_table(players=WORKED_GAME, name="Snug")
        table_close(table_id=closed.pk, by=closed.created_by)
        for language in ("en-GB", "pt-PT"):
            context = tablet(browser, PORTRAIT, locale=language)
            page = context.new_page()
            log_in(page, site) if language == "en-GB" else None
            page.goto(f"{site}/")
            if language == "pt-PT":
                page.get_by_role("button", name="Português").tap()
            header = page.locator(".site-header").bounding_box()
            assert header["height"] < 90, language  # one row
            card = page.locator(".table-card").first
            expect(card).to_contain_text("Front bar")
            expect(card).to_contain_text(re.compile("Dev"))
            if language == "en-GB":
                expect(card.locator(".table-facts")).to_contain_text(re.compile(r"Match\s*2"))
                expect(page.locator(".closed-list")).to_contain_text("Snug")
                page.screenshot(path=SCREENSHOTS / "home-portrait.png")
            context.close()


class TestAccessibility:
    def violations(self, page) -> list[str]:
        results = Axe().run(page)
        return [f"{v['id']} ({v['impact']}): {v['help']}" for v in results.response["violations"]]

    def test_every_page_in_both_themes_and_both_languages(self, browser, site):
        table = make_table(players=WORKED_GAME)
        play(table, ["Ben", "Alice", "Cara"])
        match_set_roster(
            table_id=table.pk, match_id=open_match(table).pk,
            player_names=["Dev", "Cara", "Alice", "Eve"], by=table.created_by,
        )  # fmt: skip
        wta = make_table(players=WORKED_GAME, mode=Table.Mode.WINNER_TAKES_ALL, name="Snug")
        play(wta, ["Ben", "Alice"])
        closed = make_table(players=WORKED_GAME, name="Closed")
        table_close(table_id=closed.pk, by=closed.created_by)
        winner = table.matches.get(number=1).winner_id
        public = ["/", "/accounts/login/", f"/tables/{table.pk}/", f"/tables/{wta.pk}/",
                  f"/tables/{closed.pk}/", f"/tables/{table.pk}/matches/",
                  f"/tables/{table.pk}/matches/1/", f"/tables/{table.pk}/board/",
                  f"/tables/{wta.pk}/board/", "/standings/", f"/tables/{table.pk}/standings/",
                  f"/players/{winner}/", "/rules/", "/rules/showdown/",
                  "/rules/showdown/?hand_1=QS+QC+7D&hand_2=JS+JH+AD"]  # fmt: skip
        hosting = ["/", "/tables/new/", f"/tables/{table.pk}/", f"/tables/{wta.pk}/",
                   f"/tables/{closed.pk}/", f"/tables/{table.pk}/roster/",
                   f"/tables/{wta.pk}/close/", f"/tables/{table.pk}/undo/"]  # fmt: skip
        found = []
        for scheme in ("light", "dark"):
            for language in ("en", "pt"):
                context = tablet(browser, color_scheme=scheme)
                page = context.new_page()
                page.goto(f"{site}/accounts/login/")
                if language == "pt":
                    page.get_by_role("button", name="Português").click()
                for path in public:
                    page.goto(f"{site}{path}")
                    found += [f"{scheme} {language} {path}: {v}" for v in self.violations(page)]
                log_in(page, site) if language == "en" else log_in_pt(page, site)
                for path in hosting:
                    page.goto(f"{site}{path}")
                    found += [
                        f"{scheme} {language} host {path}: {v}" for v in self.violations(page)
                    ]
                context.close()
        assert found == [], "\n".join(found)


def log_in_pt(page, site):
    page.goto(f"{site}/accounts/login/")
    page.get_by_label("Nome de utilizador").fill("host")
    page.get_by_label("Palavra-passe").fill("a-long-test-password")
    page.get_by_role("button", name="Entrar").click()
    expect(page.get_by_role("button", name=re.compile(r"^Sair"))).to_be_visible()


class TestFirstHostPage:
    def test_errors_under_their_fields_what_was_typed_kept_and_no_axe_violations(
        self, browser, transactional_db, live_server
    ):
        page = tablet(browser).new_page()
        page.goto(f"{live_server.url}/setup/")
        page.get_by_label("Username").fill("maggie")
        page.get_by_label("Password", exact=True).fill("abc")
        page.get_by_label("Password confirmation").fill("abd")
        page.get_by_role("button", name="Create host").click()
        expect(page.get_by_label("Username")).to_have_value("maggie")
        expect(page.locator("#id_password1_error")).to_contain_text("This password is too short")
        expect(page.locator("#id_password2_error")).to_have_text(
            "The two password fields didn’t match."
        )
        expect(page.get_by_label("Password", exact=True)).to_have_value("")
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            for language in ("English", "Português"):
                page.get_by_role("button", name=language).click()
                violations = Axe().run(page).response["violations"]
                assert [v["id"] for v in violations] == [], (scheme, language)
        page.context.close()
