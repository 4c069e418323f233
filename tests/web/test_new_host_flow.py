"""How a new host moves between pages (issue 38): login comes back to the page it left,
a write answers with a redirect, the navigation names the page the host is on."""

import re

import pytest
from django.urls import reverse

from matches.models import Table, Tap
from tests.factories import make_table, open_match, roster, tap

pytestmark = pytest.mark.django_db


def current_tab(html: str) -> list[str]:
    return re.findall(r'<a href="[^"]*" aria-current="page">([^<]+)</a>', html)


class TestLoginComesBack:
    def test_host_login_on_a_table_page_leads_back_to_the_table(self, client, host):
        table = make_table(players=["Ann", "Bob", "Cy"])
        page = reverse("matches:table", args=[table.pk])
        html = client.get(page).content.decode()
        login = f"{reverse('login')}?next={page}"
        assert f'href="{login}"' in html
        form = client.get(login).content.decode()
        assert f'name="next" value="{page}"' in form
        response = client.post(
            login,
            {"username": host.username, "password": "a-long-test-password", "next": page},
        )
        assert response.status_code == 302
        assert response["Location"] == page

    def test_the_login_page_does_not_lead_back_to_itself(self, client, host):
        html = client.get(reverse("login")).content.decode()
        assert "?next=" not in html


class TestAWriteAnswersWithARedirect:
    def test_closing_a_table_lands_on_the_table(self, host_client, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        response = host_client.post(
            reverse("matches:close", args=[table.pk]), {"discard": open_match(table).pk}
        )
        assert response.status_code == 302
        assert response["Location"] == reverse("matches:table", args=[table.pk])

    def test_undoing_and_dropping_the_new_roster_lands_on_the_table(self, host_client, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        tap(table, "Cy")
        tap(table, "Bob")
        roster(table, ["Ann", "Bob", "Cy", "Dee"])
        crowning = Tap.objects.filter(match__table=table).latest("pk")
        response = host_client.post(
            reverse("matches:undo", args=[table.pk]), {"tap": crowning.pk, "drop_roster": "1"}
        )
        assert response.status_code == 302
        assert response["Location"] == reverse("matches:table", args=[table.pk])


class TestTheNavigationNamesThePage:
    def test_a_player_page_is_under_players_for_a_host(self, host_client):
        table = make_table(players=["Ann", "Bob", "Cy"])
        tap(table, "Cy")
        tap(table, "Bob")
        ann = table.matches.get(number=1).winner
        for name in ("player", "player_rename", "player_merge"):
            html = host_client.get(reverse(f"matches:{name}", args=[ann.pk])).content.decode()
            assert current_tab(html) == ["Players"], name

    def test_a_player_page_is_not_under_standings_for_a_spectator(self, client):
        table = make_table(players=["Ann", "Bob", "Cy"])
        tap(table, "Cy")
        tap(table, "Bob")
        ann = table.matches.get(number=1).winner
        html = client.get(reverse("matches:player", args=[ann.pk])).content.decode()
        assert current_tab(html) == []
        assert current_tab(client.get(reverse("matches:standings")).content.decode()) == [
            "Standings"
        ]


def standing_names(html: str) -> list[str]:
    return re.findall(r'<td>\s*<a href="/players/\d+/">([^<]+)</a>', html)


class TestALeagueOfBothModes:
    def league(self):
        """Zed wins three winner-takes-all matches; Ann, with no win, is 2nd twice at a
        ranked table (4 points)."""
        wta = make_table(players=["Zed", "Yan", "Xia"], mode=Table.Mode.WINNER_TAKES_ALL)
        for _ in range(3):
            tap(wta, "Xia")
            tap(wta, "Yan")
        ranked = make_table(players=["Bob", "Ann", "Cy"], name="Snug")
        for _ in range(2):
            tap(ranked, "Cy")
            tap(ranked, "Ann")
        return wta, ranked

    def test_the_standings_open_on_the_mode_played_most(self, client):
        self.league()
        html = client.get(reverse("matches:standings")).content.decode()
        assert standing_names(html)[0] == "Zed"
        assert "Ann" not in standing_names(html)
        assert '<option value="winner_takes_all" selected>' in html
        # The other mode and both are one tap away.
        assert re.search(r'<a href="\?[^"]*mode=ranked[^"]*">Ranked \(3/2/1\)</a>', html)
        assert re.search(r'<a href="\?[^"]*mode=&[^"]*">Both modes</a>|mode=">Both', html)

    def test_both_modes_say_what_they_rank_by(self, client):
        self.league()
        html = client.get(reverse("matches:standings"), {"mode": ""}).content.decode()
        assert set(standing_names(html)) == {"Zed", "Yan", "Xia", "Bob", "Ann", "Cy"}
        assert (
            '<caption class="ranks-by">Both modes together: ranked by points (ranked tables '
            "only), then by wins</caption>"
        ) in html

    def test_a_league_of_one_mode_shows_no_switch(self, client):
        make_table(players=["Bob", "Ann", "Cy"])
        html = client.get(reverse("matches:standings")).content.decode()
        assert "mode-switch" not in html


class TestThePairsPage:
    def test_a_head_to_head_line_opens_the_matches_the_pair_shared(
        self, client, django_assert_num_queries
    ):
        table = make_table(players=["Ann", "José", "Cy"])
        tap(table, "Cy")
        tap(table, "José")  # match 1: Ann 1st, José 2nd
        tap(table, "Ann")
        tap(table, "Cy")  # match 2: José 1st, Ann 3rd
        other = make_table(players=["Ann", "Bea", "Cy"], name="Snug")
        tap(other, "Cy")
        tap(other, "Bea")  # Ann and Bea: José was not there
        ann = table.matches.get(number=1).winner
        jose = table.matches.get(number=2).winner
        player = client.get(reverse("matches:player", args=[ann.pk])).content.decode()
        pair = reverse("matches:player_pair", args=[ann.pk, jose.pk])
        assert re.search(rf'<li><a href="{pair}">[^<]*José[^<]*</a></li>', player)
        with django_assert_num_queries(6):
            html = client.get(pair).content.decode()
        rows = re.findall(
            r'<a href="/tables/\d+/matches/(\d+)/">Front bar, match \d+</a></td>\s*'
            r"<td>([^<]+)</td>\s*<td>([^<]+)</td>",
            html,
        )
        assert rows == [("2", "3rd", "1st"), ("1", "1st", "2nd")]
        assert "Snug" not in html
        assert "Their 2 matches together, newest first." in html


def test_once_reads_once(client):
    table = make_table(players=["Ann", "Ben", "Cy"])
    tap(table, "Cy")
    tap(table, "Ann")  # Ben wins; Ann behind Ben once
    ann = table.matches.get(number=1).seats.get(player__name="Ann").player
    html = client.get(reverse("matches:player", args=[ann.pk])).content.decode()
    assert "Most often finished behind Ben (once)." in html
    assert "1 time" not in html


class TestTheNewTableForm:
    def test_the_mode_starts_on_ranked_and_says_what_each_is(self, host_client):
        html = host_client.get(reverse("matches:table_new")).content.decode()
        assert re.search(r'<input type="radio" name="mode" value="ranked"[^>]* checked', html)
        assert (
            "Winner takes all: only the survivor is named; everyone else is out. "
            "Ranked: 1st, 2nd and 3rd take 3, 2 and 1 points."
        ) in html

    def test_did_you_mean_sits_under_the_names_above_the_mode(self, host_client):
        make_table(players=["Zoë", "Ann", "Bob"])
        form = {"name": "Snug", "players": "Zoe\nCy\nDee", "mode": "ranked"}
        html = host_client.post(reverse("matches:table_new"), form).content.decode()
        asked = html.index("Did you mean Zoë?")
        assert html.index('name="players"') < asked < html.index("<legend>Mode</legend>")

    def test_ten_numbered_guests_are_not_asked_about(self, host_client):
        make_table(players=[f"Player {n}" for n in range(1, 6)])
        guests = "\n".join(f"Player {n}" for n in range(1, 11))
        form = {"name": "League night", "players": guests, "mode": "ranked"}
        response = host_client.post(reverse("matches:table_new"), form)
        assert response.status_code == 302
        launched = Table.objects.get(name="League night")
        assert open_match(launched).seats.count() == 10
