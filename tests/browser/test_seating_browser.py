"""The seat picker on a tablet (768x1024, touch): a table seated from the league with no more than
three letters typed per player, seats moved, removed, shuffled and brought back as last
time, and "Zoe" caught for "Zoë" at launch and at a roster edit."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from matches.models import Player, Table
from tests.browser.helpers import PORTRAIT, SCREENSHOTS, log_in, players_box, tablet
from tests.factories import make_table, open_match

pytestmark = pytest.mark.browser

LEAGUE = ["Zoë Martins", "Bernardo", "Cátia", "Duarte", "Inês"]
# The smallest touch target the issue allows.
FINGER = 44


@pytest.fixture
def page(browser, site):
    context = tablet(browser, PORTRAIT)
    page = context.new_page()
    log_in(page, site)
    yield page
    context.close()


def finder(page):
    return page.get_by_role("combobox", name="Find or add a player")


def seat_names(page) -> list[str]:
    return page.locator(".seat-chip .seat-name").all_inner_texts()


def seated(table: Table) -> list[str]:
    seats = open_match(table).seats.select_related("player").order_by("position")
    return [seat.player.name for seat in seats]


def pick(page, letters: str, name: str) -> None:
    """Type at most three letters and tap the league's player offered."""
    assert len(letters) <= 3
    finder(page).press_sequentially(letters)
    page.get_by_role("option", name=name, exact=True).tap()


def assert_finger_sized(locator) -> None:
    for index in range(locator.count()):
        box = locator.nth(index).bounding_box()
        assert box["width"] >= FINGER and box["height"] >= FINGER, box


def violations(page) -> list[str]:
    results = Axe().run(page)
    return [f"{v['id']}: {v['help']}" for v in results.response["violations"]]


class TestSeatFromTheLeague:
    def test_a_table_seated_with_three_letters_a_player(self, page, site):
        make_table(name="Last week", players=LEAGUE)
        page.goto(f"{site}/tables/new/")
        page.get_by_label("Table name").fill("Snug")
        pick(page, "zoe", "Zoë Martins")  # no accent typed
        pick(page, "ber", "Bernardo")
        pick(page, "cat", "Cátia")
        expect(finder(page)).to_be_focused()  # the keyboard stays up for the next name
        # The keyboard works too: arrow down to the option, Enter seats it.
        finder(page).press_sequentially("dua")
        expect(page.get_by_role("option", name="Duarte", exact=True)).to_be_visible()
        finder(page).press("ArrowDown")
        expect(page.get_by_role("option", name="Duarte", exact=True)).to_have_attribute(
            "aria-selected", "true"
        )
        finder(page).press("Enter")
        # A new name is one tap away.
        finder(page).press_sequentially("Xav")
        page.get_by_role("option", name="Add “Xav” as a new player").tap()
        expect(page.get_by_label("Players")).to_have_value(
            "Zoë Martins\nBernardo\nCátia\nDuarte\nXav"
        )
        assert seat_names(page) == ["Zoë Martins", "Bernardo", "Cátia", "Duarte", "Xav"]

        page.get_by_role("button", name="Move Duarte up").tap()
        page.get_by_role("button", name="Remove Bernardo").tap()
        page.get_by_role("button", name="Move Zoë Martins down").tap()
        expect(page.get_by_label("Players")).to_have_value("Duarte\nZoë Martins\nCátia\nXav")
        assert_finger_sized(page.locator(".seat-chip button"))
        assert_finger_sized(page.get_by_role("button", name="Shuffle seats"))
        assert_finger_sized(page.get_by_role("button", name="Same players as last time"))
        finder(page).press_sequentially("ine")
        assert_finger_sized(page.get_by_role("option"))
        assert violations(page) == []
        page.screenshot(path=SCREENSHOTS / "seats-portrait.png")
        page.get_by_role("option", name="Inês", exact=True).tap()

        page.get_by_role("group", name="Mode").get_by_label("Ranked (3/2/1)").check()
        page.get_by_role("button", name="Launch table").tap()
        expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
        table = Table.objects.get(name="Snug")
        assert seated(table) == ["Duarte", "Zoë Martins", "Cátia", "Xav", "Inês"]
        assert Player.objects.count() == len(LEAGUE) + 1

    def test_same_players_as_last_time_then_shuffle(self, page, site):
        make_table(name="Older", players=["Ann", "Bob", "Cy"])
        make_table(name="Last week", players=LEAGUE)
        page.goto(f"{site}/tables/new/")
        page.get_by_label("Table name").fill("Snug")
        page.get_by_role("button", name="Same players as last time").tap()
        expect(page.get_by_label("Players")).to_have_value("\n".join(LEAGUE))
        assert seat_names(page) == LEAGUE
        orders = set()
        for _ in range(8):  # one in 120 orders is the same: eight shuffles all equal is 1e-17
            page.get_by_role("button", name="Shuffle seats").tap()
            order = seat_names(page)
            assert sorted(order) == sorted(LEAGUE)
            expect(page.get_by_label("Players")).to_have_value("\n".join(order))
            orders.add(tuple(order))
        assert len(orders) > 1
        page.get_by_role("group", name="Mode").get_by_label("Winner takes all").check()
        page.get_by_role("button", name="Launch table").tap()
        expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
        assert seated(Table.objects.get(name="Snug")) == list(order)

    def test_the_players_box_typed_into_draws_the_seats(self, page, site):
        page.goto(f"{site}/tables/new/")
        players_box(page).fill("Ann\nBob\nCy")
        assert seat_names(page) == ["Ann", "Bob", "Cy"]

    def test_a_name_typed_but_not_chosen_takes_the_last_seat(self, page, site):
        page.goto(f"{site}/tables/new/")
        page.get_by_label("Table name").fill("Snug")
        players_box(page).fill("Ann\nBob\nCy")
        finder(page).press_sequentially("Dee")
        page.get_by_role("group", name="Mode").get_by_label("Ranked (3/2/1)").check()
        page.get_by_role("button", name="Launch table").tap()
        expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
        assert seated(Table.objects.get(name="Snug")) == ["Ann", "Bob", "Cy", "Dee"]


class TestDidYouMean:
    def test_zoe_for_zoe_with_diaeresis_is_caught_at_launch(self, page, site):
        make_table(name="Last week", players=["Zoë", "Bernardo", "Cátia"])
        page.goto(f"{site}/tables/new/")
        page.get_by_label("Table name").fill("Snug")
        # The tablet's keyboard typed "Zoe" and the host took it as a new name.
        finder(page).press_sequentially("Zoe")
        page.get_by_role("option", name="Add “Zoe” as a new player").tap()
        pick(page, "ber", "Bernardo")
        pick(page, "cát", "Cátia")
        page.get_by_role("group", name="Mode").get_by_label("Ranked (3/2/1)").check()
        page.get_by_role("button", name="Launch table").tap()

        question = page.get_by_role("group", name="Did you mean Zoë?")
        expect(question).to_be_visible()
        assert Table.objects.filter(name="Snug").count() == 0
        expect(question.get_by_label("Add Zoe as a new player")).to_be_visible()
        assert violations(page) == []
        page.screenshot(path=SCREENSHOTS / "did-you-mean-portrait.png", full_page=True)
        question.get_by_label("Use Zoë").check()
        page.get_by_role("button", name="Launch table").tap()
        expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
        assert seated(Table.objects.get(name="Snug")) == ["Zoë", "Bernardo", "Cátia"]
        assert not Player.objects.filter(name="Zoe").exists()

    def test_zoe_for_zoe_with_diaeresis_is_caught_at_a_roster_edit(self, page, site):
        make_table(name="Last week", players=["Zoë", "Bernardo", "Cátia"])
        table = make_table(name="Snug", players=["Ann", "Bob", "Cy"])
        page.goto(f"{site}/tables/{table.pk}/")
        page.get_by_role("link", name="Edit roster").tap()
        players_box(page).fill("Ann\nBob\nCy\nZoe")
        page.get_by_role("button", name="Save roster").tap()

        question = page.get_by_role("group", name="Did you mean Zoë?")
        expect(question).to_be_visible()
        assert seated(table) == ["Ann", "Bob", "Cy"]
        question.get_by_label("Add Zoe as a new player").check()
        page.get_by_role("button", name="Save roster").tap()
        expect(page.get_by_text("Roster saved for match 1.")).to_be_visible()
        assert seated(table) == ["Ann", "Bob", "Cy", "Zoe"]
        assert Player.objects.filter(name__in=["Zoe", "Zoë"]).count() == 2
