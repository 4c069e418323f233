"""The seat picker's server side. The league's players as a host types
(folded search, bounded, a fixed number of queries), and "Same players as last time" on the
launch and roster forms. The players box stays the form's field."""

import json
import re

import pytest
from django.urls import reverse

from matches.play import selectors
from tests.factories import make_host, make_table, open_match, tap

pytestmark = pytest.mark.django_db

SEARCH = reverse("matches:api_player_search")


def last_seating(html: str) -> list[str]:
    found = re.search(r'<script id="seats-last" type="application/json">(.*?)</script>', html)
    assert found, "the page carries last time's seats for the picker"
    return json.loads(found.group(1))


class TestSearch:
    def test_folds_case_and_accents(self, host_client, host):
        make_table(host=host, players=["Zoë", "Ben", "Cara", "Zoë Martins"])
        response = host_client.get(SEARCH, {"q": "zoe"})
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
        players = response.json()["players"]
        assert [p["name"] for p in players] == ["Zoë", "Zoë Martins"]
        assert all(isinstance(p["id"], int) for p in players)

    def test_bounded_with_a_fixed_number_of_queries(
        self, host_client, host, django_assert_num_queries
    ):
        make_table(host=host, players=[f"Sam {n}" for n in range(10)])
        host_client.get(SEARCH, {"q": "x"})  # the session is read once
        with django_assert_num_queries(3):  # session, user, players
            players = host_client.get(SEARCH, {"q": "sam"}).json()["players"]
        assert [p["name"] for p in players] == [f"Sam {n}" for n in range(8)]

    def test_nothing_typed_finds_nobody(self, host_client, host):
        make_table(host=host)
        assert host_client.get(SEARCH).json() == {"players": []}
        assert host_client.get(SEARCH, {"q": "   "}).json() == {"players": []}

    def test_visitors_are_sent_to_log_in(self, client, host):
        make_table(host=host)
        response = client.get(SEARCH, {"q": "ali"})
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


class TestLaunchPage:
    def test_the_players_box_stays_and_the_picker_is_offered(self, host_client, host):
        html = host_client.get(reverse("matches:table_new")).content.decode()
        assert '<textarea name="players"' in html
        assert '<label for="id_players">Players</label>' in html
        assert "js/seats.js" in html
        assert 'role="combobox"' in html and 'role="listbox"' in html
        assert "Shuffle seats" in html
        # A host who never launched a table has no last time.
        assert "Same players as last time" not in html
        assert last_seating(html) == []

    def test_last_time_is_the_latest_match_of_the_hosts_latest_table(self, host_client, host):
        make_table(host=host, name="Old", players=["Ann", "Bob", "Cy"])
        table = make_table(host=host, name="Latest", players=["Dee", "Eve", "Finn", "Gus"])
        for name in ["Dee", "Eve", "Finn"]:  # match 1 filed, match 2 opens
            tap(table, name)
        host_client.post(
            reverse("matches:roster", args=[table.pk]),
            {"match": open_match(table).pk, "players": "Gus\nFinn\nEve"},
        )
        make_table(host=make_host("other"), name="Someone else's", players=["Xi", "Yu", "Zed"])
        html = host_client.get(reverse("matches:table_new")).content.decode()
        assert "Same players as last time" in html
        assert last_seating(html) == ["Gus", "Finn", "Eve"]

    def test_last_seating_is_one_query(self, host, django_assert_num_queries):
        make_table(host=host, players=["Ann", "Bob", "Cy"])
        with django_assert_num_queries(1):
            assert selectors.last_seating(host=host) == ["Ann", "Bob", "Cy"]


class TestRosterPage:
    def test_last_time_is_the_tables_match_before_this_one(self, host_client, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"])
        roster = reverse("matches:roster", args=[table.pk])
        # Match 1 is the only one: there is no last time.
        html = host_client.get(roster).content.decode()
        assert "Same players as last time" not in html
        for name in ["Ann", "Bob", "Cy"]:
            tap(table, name)
        host_client.post(roster, {"match": open_match(table).pk, "players": "Eve\nFinn\nGus"})
        html = host_client.get(roster).content.decode()
        assert "Same players as last time" in html
        assert last_seating(html) == ["Ann", "Bob", "Cy", "Dee"]
        assert "Eve\nFinn\nGus</textarea>" in html
