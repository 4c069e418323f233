"""The tablet experience in a real Chromium, driven as people use it: by role and name."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from matches.models import Match, Table, Tap
from tests.browser.helpers import (
    LANDSCAPE,
    PORTRAIT,
    SCREENSHOTS,
    SYNC_TIMEOUT_MS,
    freeze_polling,
    launch,
    log_in,
    player_button,
    players_box,
    standing_names,
    tablet,
)
from tests.factories import WORKED_GAME, make_table, places, tap

pytestmark = pytest.mark.browser
TEN_PLAYERS = [
    "Ana",
    "Ben",
    "Cátia",
    "Duarte",
    "Eva",
    "Filipa",
    "Gonçalo",
    "Helena",
    "Inês",
    "João",
]


def first_match(table_id: int) -> Match:
    return Match.objects.get(table_id=table_id, number=1)


class TestWorkedGame:
    @pytest.mark.screenshots
    @pytest.mark.parametrize(
        ("viewport", "orientation"), [(LANDSCAPE, "landscape"), (PORTRAIT, "portrait")]
    )
    def test_ranked_by_touch(self, browser, site, viewport, orientation):
        context = tablet(browser, viewport)
        page = context.new_page()
        log_in(page, site)
        table_id = launch(page, site, name="Front bar", players=WORKED_GAME, mode="Ranked (3/2/1)")
        expect(page.get_by_role("heading", name="Match 1")).to_be_visible()
        expect(page.get_by_text("First dealer: Alice")).to_be_visible()
        assert standing_names(page) == WORKED_GAME

        player_button(page, "Ben").tap()
        expect(page.get_by_text("Ben is out, 4th.")).to_be_visible()
        expect(player_button(page, "Ben")).to_have_count(0)
        expect(page.get_by_role("button", name=re.compile(r"^Undo"))).to_be_visible()
        player_button(page, "Alice").tap()
        expect(page.get_by_text("Alice is out, 3rd.")).to_be_visible()
        page.screenshot(path=SCREENSHOTS / f"table-mid-match-{orientation}.png")

        player_button(page, "Cara").tap()
        expect(page.locator("#result-card")).to_contain_text("Dev wins match 1!")
        expect(page.get_by_role("heading", name="Match 2")).to_be_visible()
        assert standing_names(page) == WORKED_GAME
        page.screenshot(path=SCREENSHOTS / f"table-crowned-{orientation}.png")

        assert places(first_match(table_id)) == {"Alice": 3, "Ben": 4, "Cara": 2, "Dev": 1}
        assert Match.objects.get(table_id=table_id, status="open").number == 2
        context.close()

    def test_winner_takes_all(self, host_page, site):
        table_id = launch(
            host_page, site, name="Snug", players=WORKED_GAME, mode="Winner takes all"
        )
        for name in ["Ben", "Alice"]:
            player_button(host_page, name).tap()
            expect(host_page.get_by_text(f"{name} is out.")).to_be_visible()
        # Winner takes all names no places: each tile stays in its seat, greyed, "out".
        expect(host_page.locator("#tiles li.is-out")).to_have_text(["Alice out", "Ben out"])
        player_button(host_page, "Cara").tap()
        expect(host_page.locator("#result-card")).to_contain_text("Dev wins match 1!")
        expect(host_page.locator("#result-card")).to_contain_text("Out: Cara, Alice, Ben")
        host_page.get_by_role("link", name="Match 1: Dev won").click()
        expect(host_page.get_by_text("Winner: Dev")).to_be_visible()
        assert first_match(table_id).winner.name == "Dev"


class TestUndoRosterClose:
    def test_undo_a_tap_and_the_crowning(self, host_page, site):
        table_id = launch(host_page, site, name="T", players=WORKED_GAME, mode="Ranked (3/2/1)")
        player_button(host_page, "Ben").tap()
        undo = host_page.get_by_role("button", name=re.compile(r"^Undo"))
        expect(undo).to_have_text(re.compile("Ben"))
        undo.tap()
        expect(host_page.get_by_text("Undone: Ben is back in match 1.")).to_be_visible()
        assert standing_names(host_page) == WORKED_GAME

        for name in ["Ben", "Alice", "Cara"]:
            player_button(host_page, name).tap()
            expect(player_button(host_page, name)).to_have_count(0 if name != "Cara" else 1)
        expect(host_page.get_by_role("heading", name="Match 2")).to_be_visible()
        host_page.get_by_role("button", name=re.compile(r"^Undo")).tap()
        expect(
            host_page.get_by_text("Undone: Cara is back and match 1 is open again.")
        ).to_be_visible()
        expect(host_page.get_by_role("heading", name="Match 1")).to_be_visible()
        assert standing_names(host_page) == ["Cara", "Dev"]
        assert first_match(table_id).status == "open"

    def test_edit_the_roster_then_close(self, host_page, site):
        table_id = launch(host_page, site, name="T", players=WORKED_GAME, mode="Ranked (3/2/1)")
        host_page.get_by_role("link", name="Edit roster").click()
        players_box(host_page).fill("Dev\nCara\nBen\nAlice\nEve")
        host_page.get_by_role("button", name="Save roster").click()
        expect(host_page.get_by_text("Roster saved for match 1.")).to_be_visible()
        assert standing_names(host_page) == ["Dev", "Cara", "Ben", "Alice", "Eve"]

        host_page.get_by_role("link", name="Close table…").click()
        host_page.get_by_role("button", name="Close table").click()
        expect(host_page.get_by_text("Table closed. No further match will open.")).to_be_visible()
        expect(host_page.locator("button.player")).to_have_count(0)
        assert Table.objects.get(pk=table_id).closed_at is not None


class TestTwoTabletsAndAViewer:
    def test_taps_show_everywhere_and_a_stale_tap_is_refused(self, browser, site):
        table = make_table(players=WORKED_GAME)
        url = f"{site}/tables/{table.pk}/"
        first_ctx, second_ctx, viewer_ctx = tablet(browser), tablet(browser), tablet(browser)
        first, second, viewer = first_ctx.new_page(), second_ctx.new_page(), viewer_ctx.new_page()
        log_in(first, site)
        log_in(second, site)
        for page in (first, second, viewer):
            page.goto(url)
        expect(viewer.locator("button.player")).to_have_count(0)

        player_button(first, "Ben").tap()
        expect(first.get_by_text("Ben is out, 4th.")).to_be_visible()
        expect(player_button(second, "Ben")).to_have_count(0, timeout=SYNC_TIMEOUT_MS)
        expect(viewer.locator(".out-list")).to_contain_text("Ben 4th", timeout=SYNC_TIMEOUT_MS)

        freeze_polling(second)  # the second tablet still shows Alice standing
        player_button(first, "Alice").tap()
        expect(first.get_by_text("Alice is out, 3rd.")).to_be_visible()
        player_button(second, "Alice").tap()
        # One red box says why, by name (the server's own sentence is not repeated beside it).
        expect(second.locator(".queue-note")).to_have_text(
            "Alice’s tap was not recorded: Alice was already out on another tablet "
            "(3rd in match 1)."
        )
        expect(second.locator(".queue-note:visible, .message-error:visible")).to_have_count(1)
        assert Tap.objects.filter(player__name="Alice").count() == 1
        for ctx in (first_ctx, second_ctx, viewer_ctx):
            ctx.close()

    def test_the_last_two_tapped_at_once_from_both_tablets(self, browser, site):
        table = make_table(players=WORKED_GAME)
        tap(table, "Ben")
        tap(table, "Alice")
        contexts = [tablet(browser), tablet(browser)]
        pages = [ctx.new_page() for ctx in contexts]
        for page in pages:
            log_in(page, site)
            page.goto(f"{site}/tables/{table.pk}/")
            freeze_polling(page)
        player_button(pages[0], "Cara").click(no_wait_after=True)
        player_button(pages[1], "Dev").click(no_wait_after=True)
        for page in pages:
            expect(page.get_by_role("heading", name="Match 2")).to_be_visible(
                timeout=SYNC_TIMEOUT_MS
            )
            # Match 2 shows at once (the tap queue predicts the crowning): wait for the answers.
            expect(page.locator("#queue-status")).to_contain_text(
                "every tap recorded", timeout=SYNC_TIMEOUT_MS
            )
        filed = first_match(table.pk)
        assert filed.status == "filed"
        assert sorted(p for p in places(filed).values() if p in (1, 2)) == [1, 2]
        assert table.matches.filter(status="open").count() == 1
        assert Tap.objects.filter(match=filed).count() == 3
        # The winning tap shows the result card (no message); the other tablet says why not,
        # in one red box.
        notes = [text for p in pages for text in p.locator(".queue-note").all_inner_texts()]
        assert len(notes) == 1 and "match 1 had already been won on another tablet" in notes[0]
        for page in pages:
            expect(page.locator(".message-error:visible")).to_have_count(0)
        for ctx in contexts:
            ctx.close()


class TestDoubleTaps:
    def test_double_click_eliminates_once(self, host_page, site):
        table = make_table(players=WORKED_GAME)
        host_page.goto(f"{site}/tables/{table.pk}/")
        player_button(host_page, "Ben").dblclick()
        expect(host_page.locator("#tiles li.is-out")).to_have_text(["Ben 4th"])
        host_page.wait_for_load_state("networkidle")
        assert Tap.objects.count() == 1
        assert places(table.matches.get(number=1))["Alice"] is None

    def test_two_rapid_touches_eliminate_once(self, host_page, site):
        table = make_table(players=WORKED_GAME)
        host_page.goto(f"{site}/tables/{table.pk}/")
        box = player_button(host_page, "Cara").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        host_page.touchscreen.tap(x, y)
        host_page.touchscreen.tap(x, y)
        expect(host_page.locator("#tiles li.is-out")).to_have_text(["Cara 4th"])
        host_page.wait_for_load_state("networkidle")
        assert Tap.objects.count() == 1


class TestWithoutJavaScript:
    def test_the_worked_game_plays_through_plain_form_posts(self, browser, site):
        context = tablet(browser, java_script_enabled=False)
        page = context.new_page()
        page.goto(f"{site}/accounts/login/")
        page.get_by_label("Username").fill("host")
        page.get_by_label("Password").fill("a-long-test-password")
        page.get_by_role("button", name="Log in").click()
        table_id = launch(page, site, name="NoJS", players=WORKED_GAME, mode="Ranked (3/2/1)")
        for name, message in [
            ("Ben", "Ben is out, 4th."),
            ("Alice", "Alice is out, 3rd."),
            ("Cara", "Dev wins match 1!"),
        ]:
            player_button(page, name).click()
            expect(page.get_by_text(message)).to_be_visible()
        expect(page.get_by_role("heading", name="Match 2")).to_be_visible()
        page.get_by_role("button", name=re.compile(r"^Undo")).click()
        expect(page.get_by_text("Undone: Cara is back and match 1 is open again.")).to_be_visible()
        player_button(page, "Cara").click()
        assert places(first_match(table_id)) == {"Alice": 3, "Ben": 4, "Cara": 2, "Dev": 1}
        context.close()


class TestNetworkTrouble:
    def test_a_lost_answer_is_retried_by_the_queue_and_applied_once(self, host_page, site):
        table = make_table(players=WORKED_GAME)
        host_page.goto(f"{site}/tables/{table.pk}/")
        lost = []

        def lose_the_answer(route):
            # The server applies the tap, but its answer never reaches the tablet.
            if not lost:
                lost.append(route.fetch())
                route.abort("connectionreset")
            else:
                route.continue_()

        host_page.route(re.compile(r".*/tap/$"), lose_the_answer)
        player_button(host_page, "Ben").tap()
        # The tap waits in the queue, which sends it again with the same key on its own.
        expect(
            host_page.locator("#tiles li", has_text="Ben").locator(".tile-pending")
        ).to_be_visible()
        expect(host_page.get_by_text("Already recorded: Ben is out, 4th.")).to_be_visible(
            timeout=SYNC_TIMEOUT_MS
        )
        expect(host_page.locator("#queue-status")).to_contain_text("every tap recorded")
        assert len(lost) == 1
        assert Tap.objects.count() == 1

    def test_without_the_queue_a_failed_poll_shows_the_banner(self, browser, site):
        table = make_table(players=WORKED_GAME)
        page = tablet(browser).new_page()
        page.goto(f"{site}/tables/{table.pk}/")
        page.route(re.compile(r".*/tables/\d+/$"), lambda route: route.abort("connectionreset"))
        alert = page.get_by_text("The server could not be reached.")
        expect(alert).to_be_visible(timeout=SYNC_TIMEOUT_MS)
        page.unroute(re.compile(r".*/tables/\d+/$"))
        page.get_by_role("button", name="Retry").tap()
        expect(alert).to_be_hidden(timeout=SYNC_TIMEOUT_MS)
        page.context.close()


class TestLayoutAndKeyboard:
    @pytest.mark.parametrize("count", [3, 10])
    @pytest.mark.parametrize("viewport", [PORTRAIT, LANDSCAPE])
    def test_every_player_fits_without_scrolling(self, host_page, site, count, viewport):
        names = [f"Player {n}" for n in range(1, count + 1)]
        table = make_table(players=names)
        host_page.set_viewport_size(viewport)
        host_page.goto(f"{site}/tables/{table.pk}/")
        for name in names:
            box = player_button(host_page, name).bounding_box()
            assert box["width"] >= 48 and box["height"] >= 48
            assert box["y"] + box["height"] <= viewport["height"], name

    def test_keyboard_alone_with_a_visible_focus(self, host_page, site):
        table = make_table(players=WORKED_GAME)
        host_page.goto(f"{site}/tables/{table.pk}/")
        for _ in range(30):
            host_page.keyboard.press("Tab")
            if host_page.evaluate("document.activeElement.textContent") == "Ben":
                break
        outline = host_page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none"
        host_page.keyboard.press("Enter")
        expect(host_page.get_by_text("Ben is out, 4th.")).to_be_visible()


class TestAccessibility:
    def serious(self, page) -> list[str]:
        results = Axe().run(page)
        return [
            f"{v['id']}: {v['help']}"
            for v in results.response["violations"]
            if v["impact"] in ("serious", "critical")
        ]

    def test_main_pages_have_no_serious_violations(self, browser, site):
        table = make_table(players=WORKED_GAME)
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        tap(table, "Ben")
        for scheme in ("light", "dark"):
            viewer = tablet(browser, color_scheme=scheme).new_page()
            viewer.goto(f"{site}/accounts/login/")
            assert self.serious(viewer) == [], "login"
            viewer.goto(f"{site}/tables/{table.pk}/")
            assert self.serious(viewer) == [], "viewer table"
            viewer.goto(f"{site}/tables/{table.pk}/matches/1/")
            assert self.serious(viewer) == [], "match"
            log_in(viewer, site)
            viewer.goto(f"{site}/tables/new/")
            assert self.serious(viewer) == [], "launch"
            viewer.goto(f"{site}/tables/{table.pk}/")
            assert self.serious(viewer) == [], "host table"
            for path in ["/standings/", f"/tables/{table.pk}/board/", "/rules/",
                         "/rules/showdown/?hand_1=QS+QC+7D&hand_2=JS+JH+AD",
                         f"/players/{table.matches.get(number=1).winner_id}/"]:  # fmt: skip
                viewer.goto(f"{site}{path}")
                assert self.serious(viewer) == [], path
            viewer.context.close()


class TestPolling:
    def test_polls_answer_304_and_the_message_stays(self, host_page, site):
        table = make_table(players=WORKED_GAME)
        statuses = []
        host_page.on(
            "response",
            lambda r: statuses.append(r.status) if r.request.method == "GET" else None,
        )
        host_page.goto(f"{site}/tables/{table.pk}/")
        player_button(host_page, "Ben").tap()
        expect(host_page.get_by_text("Ben is out, 4th.")).to_be_visible()
        host_page.wait_for_timeout(3500)  # at least one poll
        assert 304 in statuses
        expect(host_page.get_by_text("Ben is out, 4th.")).to_be_visible()
        tap(table, "Alice")  # from another tablet: the board changes and the old message goes
        expect(host_page.locator("#tiles li", has_text="Alice")).to_have_text(
            "Alice 3rd", timeout=SYNC_TIMEOUT_MS
        )
        expect(host_page.get_by_text("Ben is out, 4th.")).to_have_count(0)


class TestPortuguese:
    @pytest.mark.screenshots
    def test_switch_tap_and_judge_a_showdown_on_a_portrait_tablet(self, browser, site):
        names = TEN_PLAYERS
        table = make_table(players=names)
        context = tablet(browser, PORTRAIT)
        page = context.new_page()
        log_in(page, site)
        page.goto(f"{site}/tables/{table.pk}/")
        page.get_by_role("button", name="Português").click()
        expect(page.get_by_role("heading", name="Partida 1")).to_be_visible()
        expect(page.get_by_text("Começa a dar: Ana")).to_be_visible()
        for name in names:  # ten players still fit a 768x1024 screen in Portuguese
            box = player_button(page, name).bounding_box()
            assert box["y"] + box["height"] <= PORTRAIT["height"], name
        player_button(page, "Ben").tap()
        expect(page.get_by_text("Ben sai do jogo em 10.º lugar.")).to_be_visible()
        page.screenshot(path=SCREENSHOTS / "table-portuguese-portrait.png")

        page.goto(f"{site}/rules/showdown/?table={table.pk}")
        expect(page.get_by_role("heading", name="Comparar mãos")).to_be_visible()
        expect(page.get_by_label("Jogador 1", exact=True)).to_have_value("Ana")
        # Picked from the card grid by touch (dama: D): player 1's hand.
        for card in ["D♠", "D♣", "7♦"]:
            page.get_by_role("button", name=card, exact=True).tap()
        expect(page.get_by_label("Cartas do jogador 1", exact=True)).to_have_value("D♠ D♣ 7♦")
        # Portuguese letters: valete de espadas, valete de copas, ás de ouros.
        page.get_by_label("Cartas do jogador 2", exact=True).fill("ve vc ao")
        page.get_by_role("button", name="Quem perde a vida?").tap()
        expect(page.locator("li.loses")).to_contain_text("Cátia")
        expect(page.locator("li.loses")).to_contain_text("perde uma vida")
        expect(page.get_by_text("Cátia perde para Ana: as duas mãos têm um par")).to_be_visible()
        page.screenshot(path=SCREENSHOTS / "showdown-portuguese-portrait.png", full_page=True)
        context.close()


class TestBigScreen:
    def test_ten_players_fit_a_1920x1080_tv_and_it_follows_the_taps(self, browser, site):
        names = TEN_PLAYERS
        table = make_table(players=names)
        for name in names[1:][::-1]:
            tap(table, name)  # match 1: Ana wins
        tap(table, "João")
        context = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-GB")
        page = context.new_page()
        page.goto(f"{site}/tables/{table.pk}/board/")
        expect(page.locator(".tv-out li").first).to_have_text("10th João")
        assert page.evaluate("document.documentElement.scrollHeight") <= 1080
        tap(table, "Inês")
        expect(page.locator(".tv-out li").nth(1)).to_have_text("9th Inês", timeout=SYNC_TIMEOUT_MS)
        context.close()
