"""What every screen says at a glance: the way back into a running table, Seasons
in the navigation, dates over the preselected season, messages that say what they are, the
app's own 404/403/500 pages, shared leads crowned shared and one win % rounding."""

import datetime
import re
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.urls import reverse
from django.utils import translation
from django.views import defaults

from matches.models import Season
from matches.rules import scoring
from matches.rules.nights import night_of
from tests.clients import FormClient
from tests.factories import make_table, open_match, tap

pytestmark = pytest.mark.django_db

PT = {"HTTP_ACCEPT_LANGUAGE": "pt"}


def play(table, order: list[str]) -> None:
    for name in order:
        tap(table, name)


def tied_table(**kwargs):
    """Cara and Dev level on everything tonight: a win, a 2nd, 5 points, 2 played each."""
    table = make_table(**kwargs)
    play(table, ["Ben", "Alice", "Cara"])  # Dev 1st, Cara 2nd
    play(table, ["Ben", "Alice", "Dev"])  # Cara 1st, Dev 2nd
    return table


def messages_of(html: str) -> list[tuple[str, str]]:
    """(level, text) of each message box on the page."""
    found = re.findall(r'<p class="message message-(\w+)" data-level="(\w+)"[^>]*>(.*?)</p>', html)
    return [(level, re.sub(r"<[^>]+>", "", text)) for css, level, text in found if css == level]


def nav_links(html: str) -> list[tuple[str, str]]:
    nav = re.search(r'<nav class="tabs".*?</nav>', html, re.S).group(0)
    return re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', nav)


class TestOpenATableFromHome:
    def test_each_open_table_has_a_primary_link_named_open_and_its_name(self, host_client):
        front, snug = make_table(name="Front bar"), make_table(name="Snug")
        html = host_client.get(reverse("matches:home")).content.decode()
        for table in (front, snug):
            link = re.search(
                rf'<a class="button button-primary" href="{reverse("matches:table", args=[table.pk])}"'
                rf' aria-label="Open {table.name}">Open</a>',
                html,
            )
            assert link, table.name
        # Open leads the card's actions; Close is last, pushed away from it.
        card = html[html.index('aria-label="Open Snug"') :]
        card = card[: card.index("</li>")]
        assert card.index("Big screen") < card.index("table-card-close")

    def test_in_portuguese_the_link_is_abrir(self, host_client):
        make_table(name="Snug")
        html = host_client.get(reverse("matches:home"), **PT).content.decode()
        assert 'aria-label="Abrir Snug">Abrir</a>' in html

    def test_a_spectator_also_gets_the_open_link(self, host, client):
        make_table(name="Snug")
        html = client.get(reverse("matches:home")).content.decode()
        assert 'aria-label="Open Snug">Open</a>' in html
        assert "table-card-close" not in html


class TestSeasonsInTheNavigation:
    def test_the_top_navigation_links_to_seasons(self, client, host):
        html = client.get(reverse("matches:home")).content.decode()
        assert (reverse("matches:seasons"), "Seasons") in nav_links(html)

    def test_in_portuguese_it_is_epocas(self, client, host):
        html = client.get(reverse("matches:rules"), **PT).content.decode()
        assert (reverse("matches:seasons"), "Épocas") in nav_links(html)

    def test_the_seasons_page_marks_its_tab_current(self, client, host):
        html = client.get(reverse("matches:seasons")).content.decode()
        assert re.search(r'<a href="/seasons/" aria-current="page">Seasons</a>', html)
        assert not re.search(r'<a href="/standings/" aria-current="page">', html)


class TestDatesOverThePreselectedSeason:
    @pytest.fixture
    def current(self, host):
        today = night_of()
        return Season.objects.create(
            name="Now", first_day=today - datetime.timedelta(days=3), last_day=today
        )

    def test_the_page_says_which_season_it_chose_itself(self, client, current):
        html = client.get(reverse("matches:standings")).content.decode()
        assert f'<input type="hidden" name="preset" value="{current.pk}"' in html

    def test_dates_typed_over_the_preselected_season_replace_it(self, client, current):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])
        today = night_of().isoformat()
        params = {"season": current.pk, "preset": current.pk, "from": today, "to": today}
        response = client.get(reverse("matches:standings"), params)
        html = response.content.decode()
        assert response.status_code == 200
        assert "not both" not in html
        assert "Season Now:" not in html  # the dates are shown, not the season
        assert re.search(r'<option value="" selected>All time</option>', html)
        assert f'value="{today}"' in html
        assert re.findall(r'<td><a href="/players/\d+/">([^<]+)</a></td>', html)[0] == "Dev"

    def test_a_season_the_reader_picked_with_dates_is_still_refused(self, client, current):
        other = Season.objects.create(
            name="Old", first_day=datetime.date(2020, 1, 1), last_day=datetime.date(2020, 2, 1)
        )
        params = {"season": other.pk, "preset": current.pk, "from": "2020-01-05"}
        response = client.get(reverse("matches:standings"), params)
        assert response.status_code == 400
        assert "Choose a season or dates, not both" in response.content.decode()


class TestMessagesSayWhatTheyAre:
    def test_roster_saved_is_a_success(self, host_client):
        table = make_table()
        response = host_client.post(
            reverse("matches:roster", args=[table.pk]),
            {"match": open_match(table).pk, "players": "Dev\nCara\nBen\nAlice"},
            follow=True,
        )
        assert messages_of(response.content.decode()) == [("success", "Roster saved for match 1.")]

    def test_closing_says_so_once_and_reopening_is_a_success(self, host_client):
        table = make_table()
        response = host_client.post(reverse("matches:close", args=[table.pk]), follow=True)
        html = response.content.decode()
        assert messages_of(html) == [("success", "Table closed. No further match will open.")]
        assert html.count("No further match will open.") == 1
        assert f'action="{reverse("matches:reopen", args=[table.pk])}"' in html  # Reopen stays
        # Read again later, the page says it in its own note.
        html = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert messages_of(html) == []
        assert html.count("This table is closed. No further match will open.") == 1
        response = host_client.post(reverse("matches:reopen", args=[table.pk]), follow=True)
        assert messages_of(response.content.decode()) == [
            ("success", "Table reopened: match 1 is open.")
        ]

    def test_a_refused_tap_is_an_error_and_a_tap_is_news(self, host_client):
        table = make_table()
        tap_url = reverse("matches:tap", args=[table.pk])
        seat = open_match(table).seats.get(player__name="Ben")
        data = {"match": seat.match_id, "player": seat.player_id}
        html = host_client.post(tap_url, data, follow=True).content.decode()
        assert messages_of(html) == [("info", "Ben is out, 4th.")]
        html = host_client.post(tap_url, data, follow=True).content.decode()
        assert messages_of(html) == [("error", "Ben is already out; nothing was changed.")]

    def test_a_spectator_who_loses_the_connection_is_not_told_of_an_action(self, host, client):
        table = make_table()
        html = client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert "Your last action may not have been recorded" not in html
        assert "This page will catch up when the connection is back." in html

    def test_a_host_is_still_told_an_action_may_be_lost(self, host_client):
        table = make_table()
        html = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert "Your last action may not have been recorded." in html


class TestErrorPages:
    def assert_app_page(self, response, status: int, heading: str) -> str:
        html = response.content.decode()
        assert response.status_code == status
        assert f"<h1>{heading}</h1>" in html
        assert '<header class="site-header">' in html
        assert 'href="/">Back to the tables</a>' in html or "Voltar às mesas" in html
        return html

    def test_setup_after_the_first_host_is_the_apps_404(self, host, client):
        self.assert_app_page(client.get(reverse("matches:setup")), 404, "Page not found")

    def test_an_unknown_table_is_the_apps_404(self, host, client):
        url = reverse("matches:table", args=[999])
        self.assert_app_page(client.get(url), 404, "Page not found")

    def test_the_404_in_portuguese(self, host, client):
        html = client.get(reverse("matches:table", args=[999]), **PT).content.decode()
        assert "<h1>Página não encontrada</h1>" in html
        assert "Voltar às mesas" in html

    def test_a_forbidden_page_is_the_apps_403(self, host):
        staff = get_user_model().objects.create_user("staff", password="x" * 20, is_staff=True)
        client = FormClient()
        client.force_login(staff)
        response = client.get(reverse("admin_backup_download"))
        self.assert_app_page(response, 403, "Not allowed")

    def test_the_500_page_needs_no_database_and_no_request(self, django_assert_num_queries):
        request = RequestFactory().get("/")
        with django_assert_num_queries(0):
            response = defaults.server_error(request)
        html = self.assert_app_page(response, 500, "Something went wrong")
        assert "Host login" in html  # the header, for nobody logged in


class TestTiesAreTies:
    def test_tonight_crowns_every_co_leader(self, host_client):
        table = tied_table()
        html = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        leaders = re.findall(
            r'<tr class="leader"><th scope="row"><span class="crown" aria-hidden="true">♛</span> (\w+)',
            html,
        )
        assert leaders == ["Cara", "Dev"]

    def test_the_home_card_crowns_both(self, host_client):
        tied_table(name="Snug")
        html = host_client.get(reverse("matches:home")).content.decode()
        assert "Tonight’s leaders" in html
        found = re.findall(
            r'♛</span> <span class="name">(\w+)</span> <span class="muted">\((\d+) pts\)', html
        )
        assert found == [("Cara", "5"), ("Dev", "5")]

    def test_the_tv_crowns_both(self, host, client):
        table = tied_table()
        html = client.get(reverse("matches:tv", args=[table.pk])).content.decode()
        assert len(re.findall(r'<tr class="leader">', html)) == 2

    def test_a_lead_on_the_tie_break_is_not_shared(self, host_client):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])  # Dev 3, Cara 2, Alice 1
        html = host_client.get(reverse("matches:home")).content.decode()
        assert "Tonight’s leader<" in html
        assert html.count('<span class="leader">') == 1


class TestOneWinPercent:
    def test_three_of_seven_is_42_9(self):
        assert scoring.win_percent(wins=3, played=7) == Decimal("42.9")
        assert scoring.win_percent(wins=2, played=3) == Decimal("66.7")
        assert scoring.win_percent(wins=0, played=0) == Decimal("0.0")

    def test_the_player_page_and_the_standings_agree(self, host, client):
        table = make_table(players=["Ann", "Bob", "Cy"], mode="winner_takes_all")
        # Ann wins 3 of 7.
        for winner in ["Ann", "Bob", "Ann", "Cy", "Ann", "Bob", "Cy"]:
            play(table, [n for n in ["Ann", "Bob", "Cy"] if n != winner])
        ann = table.matches.filter(winner__name="Ann").first().winner
        player = client.get(reverse("matches:player", args=[ann.pk])).content.decode()
        assert "won 3 of them (42.9%)" in player
        standings = client.get(reverse("matches:standings")).content.decode()
        assert "<td>42.9</td>" in standings
        with translation.override("pt"):
            pt = client.get(reverse("matches:player", args=[ann.pk]), **PT).content.decode()
        assert "(42,9%)" in pt
