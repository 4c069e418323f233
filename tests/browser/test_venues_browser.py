"""Issue 36's night in a real Chromium: the organiser adds two pubs and invites a host to
each, each host joins from their link and launches at their own pub only (a forged launch at
the other answers 403), Priya plays at both, and each pub's standings and the league's count
exactly the taps made."""

import re
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Page, expect

from matches.models import Match, Player, Table, Venue
from matches.play.services import tables as table_services
from tests.browser.helpers import PASSWORD, player_button, players_box, settled, tablet

pytestmark = pytest.mark.browser
RANKED, WTA = "Ranked (3/2/1)", "Winner takes all"
# The mode as the standings address asks for it.
WTA_VALUE = Table.Mode.WINNER_TAKES_ALL.value
POINTS = {1: 3, 2: 2, 3: 1}
NOT_YOUR_VENUE = (
    "You do not host at {venue}: only its hosts, its managers and the organiser can launch a "
    "table there; nothing was saved."
)


@dataclass
class Night:
    """The test's own count of a table's matches, from the taps it made: a tap takes the
    place equal to the number still standing, the last standing is 1st."""

    venue: str
    ranked: bool
    players: list[str]
    out: list[str] = field(default_factory=list)  # the open match's taps, in order
    filed: list[list[str]] = field(default_factory=list)  # each filed match's taps

    def tap(self, name: str) -> None:
        self.out.append(name)
        if len(self.out) == len(self.players) - 1:
            self.filed.append(self.out)
            self.out = []

    def undo(self) -> str:
        if not self.out:  # the crowning is undone: its match opens again
            self.out = self.filed.pop()
        return self.out.pop()

    def places(self):
        """(name, place) of every filed match's players."""
        for taps in self.filed:
            standing = len(self.players)
            for name in taps:
                yield taps, name, standing
                standing -= 1
            (winner,) = set(self.players) - set(taps)
            yield taps, winner, 1


def expected(nights: list[Night], *, venue: str | None, mode: str | None) -> dict:
    """name -> (played, wins, points): points only where the page shows them (not at winner
    takes all alone) and only from ranked tables."""
    rows: dict[str, list[int]] = {}
    for night in nights:
        if venue is not None and night.venue != venue:
            continue
        if mode is not None and night.ranked != (mode == RANKED):
            continue
        for _taps, name, place in night.places():
            row = rows.setdefault(name, [0, 0, 0])
            row[0] += 1
            row[1] += place == 1
            row[2] += POINTS.get(place, 0) if night.ranked else 0
    wins_only = mode == WTA
    return {name: (p, w, None if wins_only else pts) for name, (p, w, pts) in rows.items()}


def shown_standings(page: Page) -> dict:
    """name -> (played, wins, points or None) as the standings table reads."""
    expect(page.locator("#live")).to_be_visible()
    if page.get_by_text("No filed matches yet for these filters.").is_visible():
        return {}
    headers = page.locator("table.standings thead th").all_inner_texts()
    column = {label: index for index, label in enumerate(headers)}
    rows = page.locator("table.standings tbody tr").evaluate_all(
        """rows => rows.map(row => [...row.children].map((cell, index) =>
            index === 1 ? cell.querySelector('a').textContent.trim() : cell.textContent.trim()))"""
    )
    shown = {}
    for cells in rows:
        points = int(cells[column["Points"]]) if "Points" in column else None
        shown[cells[1]] = (int(cells[column["Played"]]), int(cells[column["Wins"]]), points)
    assert len(shown) == len(rows), rows  # one row a player
    return shown


def pick_mode(page: Page, label: str) -> None:
    page.get_by_role("navigation", name="Mode").get_by_role("link", name=label).click()
    expect(
        page.get_by_role("navigation", name="Mode").get_by_role("link", name=label)
    ).to_have_attribute("aria-current", "true")


def add_venue_and_invite(page: Page, site: str, name: str) -> str:
    page.goto(f"{site}/venues/")
    page.get_by_label("Venue name").fill(name)
    page.get_by_role("button", name="Add venue").click()
    expect(page.get_by_text(f"Venue “{name}” added.")).to_be_visible()
    expect(page.get_by_role("heading", level=1)).to_have_text(name)
    page.get_by_role("button", name="Invite a host").click()
    link = page.locator("#invitation-link")
    expect(link).to_have_attribute("readonly", "")
    return link.input_value()


def join(browser, link: str, username: str, venue: str) -> Page:
    page = tablet(browser).new_page()
    page.goto(link)
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Host at {venue}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password confirmation").fill(PASSWORD)
    page.get_by_role("button", name="Create account and join").click()
    expect(page.get_by_text(f"Welcome: you host at {venue} now.")).to_be_visible()
    expect(page.get_by_role("button", name=re.compile(r"^Log out"))).to_be_visible()
    return page


def fill_launch(page: Page, site: str, *, name: str, players: list[str], mode: str) -> None:
    page.goto(f"{site}/tables/new/")
    page.get_by_label("Table name").fill(name)
    players_box(page).fill("\n".join(players))
    page.get_by_role("group", name="Mode").get_by_label(mode).check()


def launch_at_own_venue(page: Page, site: str, night: Night, name: str) -> int:
    fill_launch(page, site, name=name, players=night.players, mode=RANKED if night.ranked else WTA)
    venue = page.get_by_label("Venue", exact=True)
    # Only the host's venue is offered, chosen already.
    expect(venue.locator("option")).to_have_text([night.venue])
    expect(venue).to_have_value(str(Venue.objects.get(name=night.venue).pk))
    page.get_by_role("button", name="Launch table").click()
    expect(page).to_have_url(re.compile(r"/tables/\d+/$"))
    expect(page.get_by_role("heading", name="Match 1")).to_be_visible()
    return int(re.search(r"/tables/(\d+)/$", page.url).group(1))


def forge_launch_at(page: Page, site: str, other: Venue) -> None:
    """The page's own form, its select given the other venue's id: 403 and its sentence."""
    fill_launch(page, site, name="Forged", players=["Priya", "Zebedee", "Quentin"], mode=RANKED)
    page.get_by_label("Venue", exact=True).evaluate(
        "(select, id) => { select.add(new Option('forged', id)); select.value = id; }",
        str(other.pk),
    )
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.get_by_role("button", name="Launch table").click()
    assert answer.value.status == 403
    expect(page.get_by_role("heading", level=1)).to_have_text("Not allowed")
    expect(page.get_by_role("alert")).to_have_text(NOT_YOUR_VENUE.format(venue=other.name))


def play(page: Page, night: Night, taps: list[str]) -> None:
    """Tap each name out ("undo" takes the last tap back), each recorded before the next."""
    for name in taps:
        if name == "undo":
            match_number = len(night.filed) + 1 - (0 if night.out else 1)
            undone = night.undo()
            page.get_by_role("button", name=re.compile(rf"^Undo {undone} out")).tap()
            settled(page)
            expect(player_button(page, undone)).to_be_visible()
            expect(page.get_by_role("heading", name=f"Match {match_number}")).to_be_visible()
            continue
        player_button(page, name).tap()
        night.tap(name)
        settled(page)
        expect(page.get_by_role("heading", name=f"Match {len(night.filed) + 1}")).to_be_visible()
        if night.out:
            expect(player_button(page, name)).to_have_count(0)


@pytest.fixture
def empty_site(transactional_db, live_server, monkeypatch, browser):
    """A live server with no account yet; its pages closed after (as conftest's site)."""
    monkeypatch.setattr(table_services, "choose_first_dealer", lambda players: players[0])
    yield live_server.url
    for context in browser.contexts:
        context.close()


def test_two_pubs_two_hosts_one_player_and_three_standings(browser, empty_site):
    site = empty_site
    organiser = tablet(browser).new_page()
    organiser.goto(f"{site}/setup/")
    organiser.get_by_label("Username").fill("maggie")
    organiser.get_by_label("Password", exact=True).fill(PASSWORD)
    organiser.get_by_label("Password confirmation").fill(PASSWORD)
    organiser.get_by_role("button", name="Create host").click()
    expect(organiser.get_by_role("button", name=re.compile(r"^Log out"))).to_be_visible()

    crown_link = add_venue_and_invite(organiser, site, "The Crown")
    anchor_link = add_venue_and_invite(organiser, site, "The Anchor")
    assert crown_link != anchor_link
    crown_host = join(browser, crown_link, "cora", "The Crown")
    anchor_host = join(browser, anchor_link, "arlo", "The Anchor")
    crown, anchor = Venue.objects.get(name="The Crown"), Venue.objects.get(name="The Anchor")

    # Each host may not launch at the other's pub, however the form is bent.
    forge_launch_at(crown_host, site, anchor)
    forge_launch_at(anchor_host, site, crown)
    assert not Table.objects.exists()
    assert not Player.objects.filter(name__in=["Priya", "Zebedee", "Quentin"]).exists()

    at_crown = Night("The Crown", ranked=True, players=["Priya", "Oscar", "Hamish", "Wendy"])
    at_anchor = Night(
        "The Anchor", ranked=False, players=["Priya", "Tobias", "Leonora", "Marguerite"]
    )
    crown_table = launch_at_own_venue(crown_host, site, at_crown, "Front bar")
    anchor_table = launch_at_own_venue(anchor_host, site, at_anchor, "Snug")
    assert Table.objects.get(pk=crown_table).venue == crown
    assert Table.objects.get(pk=anchor_table).venue == anchor

    play(crown_host, at_crown, ["Oscar", "Hamish", "Wendy"])  # Priya wins
    play(crown_host, at_crown, ["Priya", "undo", "Wendy", "Priya", "Oscar"])  # Hamish wins
    play(crown_host, at_crown, ["Hamish", "Priya", "Wendy"])  # Oscar wins
    play(anchor_host, at_anchor, ["Tobias", "Priya", "Leonora"])  # Marguerite wins
    play(anchor_host, at_anchor, ["Marguerite", "Leonora", "Tobias"])  # Priya wins
    filed = Match.objects.filter(status="filed")
    assert filed.filter(table_id=crown_table).count() == len(at_crown.filed) == 3
    assert filed.filter(table_id=anchor_table).count() == len(at_anchor.filed) == 2
    nights = [at_crown, at_anchor]

    # Each venue's standings, reached from its page, open on the mode played most at that
    # venue when both were played there; each of these pubs played one mode, so there is no
    # mode to choose, and the page shows that pub's matches only.
    organiser.goto(f"{site}/venues/{crown.slug}/")
    organiser.get_by_role("link", name="Standings at The Crown").click()
    expect(organiser.get_by_role("heading", level=1)).to_have_text("Standings at The Crown")
    ranked_at_crown = expected(nights, venue="The Crown", mode=RANKED)
    assert ranked_at_crown["Priya"] == (3, 1, 3 + 1 + 1)  # 1st, 3rd (after the undo), 3rd
    assert ranked_at_crown == expected(nights, venue="The Crown", mode=None)
    assert shown_standings(organiser) == ranked_at_crown
    expect(organiser.get_by_role("navigation", name="Mode")).to_have_count(0)

    organiser.goto(f"{site}/venues/{anchor.slug}/")
    organiser.get_by_role("link", name="Standings at The Anchor").click()
    expect(organiser.get_by_role("heading", level=1)).to_have_text("Standings at The Anchor")
    at_anchor_counts = expected(nights, venue="The Anchor", mode=None)
    assert at_anchor_counts["Priya"][:2] == (2, 1)
    assert shown_standings(organiser) == at_anchor_counts
    expect(organiser.get_by_role("navigation", name="Mode")).to_have_count(0)
    organiser.goto(f"{site}/standings/?venue={anchor.slug}&mode={WTA_VALUE}")
    wta_at_anchor = expected(nights, venue="The Anchor", mode=WTA)
    assert wta_at_anchor["Priya"] == (2, 1, None)
    assert shown_standings(organiser) == wta_at_anchor

    organiser.goto(f"{site}/standings/")
    expect(organiser.get_by_role("heading", level=1)).to_have_text("League standings")
    assert shown_standings(organiser) == expected(nights, venue=None, mode=RANKED)
    pick_mode(organiser, WTA)
    assert shown_standings(organiser) == expected(nights, venue=None, mode=WTA)
    pick_mode(organiser, "Both modes")
    league = expected(nights, venue=None, mode=None)
    assert league["Priya"] == (5, 2, 5)  # both pubs' matches, points from the Crown's
    assert shown_standings(organiser) == league
