"""The players page: every league player with matches, last played and
rating, found by a GET search that needs no script (ignoring case and accents), a page at a time in a fixed number of
queries, with each player's rename and merge a tap away for the organiser."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format

from matches.models import Player
from matches.results import profile
from matches.results.players.selectors import PLAYERS_PER_PAGE
from matches.rules.nights import night_of
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db


def rows(html: str) -> list[str]:
    """Each player's line as read: its text, spaces collapsed."""
    found = re.findall(r'<li class="player-row">(.*?)</li>', html, re.S)
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip() for row in found]


@pytest.fixture
def league(host):
    table = make_table(host=host, players=["Ann", "Dev", "Zoë"], name="Front")
    tap(table, "Zoë")
    tap(table, "Ann")  # Dev wins
    Player.objects.create(name="Devon")  # never seated at a filed match
    return table


class TestPlayersPage:
    def test_every_player_with_matches_last_played_and_rating(self, host_client, league):
        html = host_client.get(reverse("matches:players")).content.decode()
        day = date_format(night_of(timezone.now()), "DATE_FORMAT")
        rating = {
            name: profile.player_profile(player=Player.objects.get(name=name)).rating.shown
            for name in ("Ann", "Dev", "Zoë")
        }
        assert rows(html) == [
            f"Ann Matches 1 Last played {day} Rating {rating['Ann']}",
            f"Dev Matches 1 Last played {day} Rating {rating['Dev']}",
            "Devon Matches 0 Last played – Rating –",
            f"Zoë Matches 1 Last played {day} Rating {rating['Zoë']}",
        ]  # fmt: skip
        dev = Player.objects.get(name="Dev")
        assert f'href="{reverse("matches:player", args=[dev.pk])}"' in html
        # Renaming, merging, public names and erasure are the organiser's: a venue's host
        # is shown no link to them.
        for name in ("player_rename", "player_merge", "player_public_name", "player_erase"):
            assert reverse(f"matches:{name}", args=[dev.pk]) not in html

    def test_the_organiser_has_each_players_changes_a_tap_away(self, admin_client, league):
        html = admin_client.get(reverse("matches:players")).content.decode()
        assert rows(html)[1] == (
            f"Dev Matches 1 Last played {date_format(night_of(timezone.now()), 'DATE_FORMAT')} "
            f"Rating {profile.player_profile(player=Player.objects.get(name='Dev')).rating.shown} "
            "Rename Dev Merge another record into Dev Public name of Dev Erase Dev"
        )
        dev = Player.objects.get(name="Dev")
        for name in ("player_rename", "player_merge", "player_public_name", "player_erase"):
            assert f'href="{reverse(f"matches:{name}", args=[dev.pk])}"' in html

    @pytest.mark.parametrize(
        ("query", "names"),
        [
            ("dev", ["Dev", "Devon"]),
            ("DEVO", ["Devon"]),
            ("  ev ", ["Dev", "Devon"]),
            ("xyz", []),
            ("ZOË", ["Zoë"]),
            ("zoe", ["Zoë"]),
        ],
    )
    def test_the_search_is_a_plain_get_ignoring_case(self, host_client, league, query, names):
        html = host_client.get(reverse("matches:players"), {"q": query}).content.decode()
        assert [row.split(" Matches")[0] for row in rows(html)] == names
        assert f'name="q" value="{query.strip()}"' in html
        if not names:
            assert f"No player’s name contains “{query.strip()}”." in html

    def test_a_page_at_a_time_in_the_same_queries_however_many(
        self, host_client, league, django_assert_num_queries
    ):
        url = reverse("matches:players")
        host_client.get(url)
        # Session, user, the count, one page of players with their numbers, the host's venue
        # roles (the menu's Venues link).
        with django_assert_num_queries(5):
            small = host_client.get(url)
        Player.objects.bulk_create(
            Player(name=f"Player {n:03}", key=f"player {n:03}") for n in range(PLAYERS_PER_PAGE + 6)
        )
        with django_assert_num_queries(5):
            first = host_client.get(url)
        assert len(rows(small.content.decode())) == 4
        assert len(rows(first.content.decode())) == PLAYERS_PER_PAGE
        assert "Page 1 of 2" in first.content.decode()
        with django_assert_num_queries(5):  # searching: every name, then the page's rows
            second = host_client.get(url, {"q": "player", "page": 2}).content.decode()
        assert len(rows(second)) == 6
        assert 'href="?q=player&amp;page=1"' in second

    def test_hosts_only_and_linked_from_the_navigation(self, client, host_client, league):
        url = reverse("matches:players")
        assert client.get(url).status_code == 302
        assert (
            f'<a href="{url}">Players</a>'
            not in client.get(reverse("matches:home")).content.decode()
        )
        home = host_client.get(reverse("matches:home")).content.decode()
        assert f'<a href="{url}">Players</a>' in home
        assert (
            f'<a href="{url}" aria-current="page">Players</a>'
            in host_client.get(url).content.decode()
        )
