"""Standings that explain themselves: where a tie-break decided an order, the row
says which, on the page and as tie_break in /api/standings/ rows (the step that separated
the row from the one above; null when points alone did, or on the first row; "level" when
nothing did)."""

import re

import pytest
from django.urls import reverse

from matches.models import Table
from matches.results.standings import rank_standings
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db


def row(n, name, points, wins, seconds, thirds, played):
    return {
        "player_id": n,
        "player__name": name,
        "player__key": name.casefold(),
        "player__public_name": "",
        "player__hidden": False,
        "player__erased": False,
        "points_sum": points,
        "wins_sum": wins,
        "seconds_sum": seconds,
        "thirds_sum": thirds,
        "played_sum": played,
    }


class TestRankStandings:
    def test_each_row_names_the_step_that_put_it_below_the_one_above(self):
        rows = [
            row(1, "Ann", 10, 3, 0, 1, 5),
            row(2, "Ben", 8, 2, 1, 0, 5),  # points
            row(3, "Cara", 8, 1, 2, 0, 5),  # wins
            row(4, "Dev", 8, 1, 1, 3, 5),  # 2nds
            row(5, "Eve", 8, 1, 1, 2, 5),  # 3rds
            row(6, "Finn", 8, 1, 1, 2, 6),  # fewer played
            row(7, "Gus", 8, 1, 1, 2, 6),  # nothing: level with Finn
            row(8, "Hal", 2, 0, 1, 0, 6),  # points
        ]
        ranked = rank_standings(rows)
        assert [(r.player, r.tie_break) for r in ranked] == [
            ("Ann", None),
            ("Ben", None),
            ("Cara", "wins"),
            ("Dev", "seconds"),
            ("Eve", "thirds"),
            ("Finn", "played"),
            ("Gus", "level"),
            ("Hal", None),
        ]
        # What the page says: whom a row is ahead of and on what, whom it is level with.
        assert [(r.player, r.ahead_on, r.ahead_of, r.level_with) for r in ranked] == [
            ("Ann", None, None, ()),
            ("Ben", "wins", "Cara", ()),
            ("Cara", "seconds", "Dev", ()),
            ("Dev", "thirds", "Eve", ()),
            ("Eve", "played", "Finn", ()),
            ("Finn", None, None, ("Gus",)),
            ("Gus", None, None, ("Finn",)),
            ("Hal", None, None, ()),
        ]

    def test_by_wins_the_first_step_is_wins(self):
        rows = [
            row(1, "Ann", 0, 3, 0, 0, 4),
            row(2, "Ben", 0, 2, 0, 0, 4),  # wins
            row(3, "Cara", 0, 2, 0, 0, 5),  # fewer played
            row(4, "Dev", 0, 2, 0, 0, 5),  # level
            row(5, "Eve", 0, 2, 0, 0, 5),  # level
        ]
        ranked = rank_standings(rows, wins_only=True)
        assert [r.tie_break for r in ranked] == [None, None, "played", "level", "level"]
        assert ranked[2].level_with == ("Dev", "Eve")


def standings_rows(client, **params):
    return client.get(reverse("matches:api_standings"), params).json()["rows"]


class TestApiAndPage:
    def test_a_points_tie_broken_on_wins(self, host, client):
        table = make_table(players=["Ann", "Ben", "Cara", "Dev"])
        for name in ["Dev", "Cara", "Ben"]:  # Ann 3, Ben 2, Cara 1
            tap(table, name)
        for name in ["Ann", "Dev", "Cara"]:  # Ben 3, Cara 2, Dev 1
            tap(table, name)
        rows = standings_rows(client)
        assert [(r["player"], r["points"], r["wins"], r["tie_break"]) for r in rows] == [
            ("Ben", 5, 1, None),
            ("Ann", 3, 1, None),
            ("Cara", 3, 0, "wins"),
            ("Dev", 1, 0, None),
        ]
        html = client.get(reverse("matches:standings")).content.decode()
        assert re.search(
            r'>Ann</a><small class="tie-break">ahead of Cara on wins</small></td>', html
        )
        assert re.search(r">Cara</a></td>", html)
        pt = client.get(reverse("matches:standings"), HTTP_ACCEPT_LANGUAGE="pt").content.decode()
        assert '>Ann</a><small class="tie-break">à frente de Cara em vitórias</small>' in pt

    def test_level_on_everything(self, host, client):
        table = make_table(players=["Ann", "Ben", "Cara"])
        for name in ["Cara", "Ben"]:  # Ann 3, Ben 2, Cara 1
            tap(table, name)
        for name in ["Cara", "Ann"]:  # Ben 3, Ann 2, Cara 1
            tap(table, name)
        rows = standings_rows(client)
        assert [(r["player"], r["rank"], r["shared"], r["tie_break"]) for r in rows] == [
            ("Ann", 1, True, None),
            ("Ben", 1, True, "level"),
            ("Cara", 3, False, None),
        ]
        html = client.get(reverse("matches:standings")).content.decode()
        assert '>Ann</a><small class="tie-break">level on everything with Ben</small>' in html
        assert '>Ben</a><small class="tie-break">level on everything with Ann</small>' in html

    def test_winner_takes_all_ties_on_fewer_played(self, host, client):
        table = make_table(players=["Ann", "Ben", "Cara"], mode=Table.Mode.WINNER_TAKES_ALL)
        for name in ["Cara", "Ben", "Cara", "Ann"]:  # Ann wins, then Ben
            tap(table, name)
        other = make_table(
            players=["Ben", "Dev", "Eve"], mode=Table.Mode.WINNER_TAKES_ALL, name="Back"
        )
        for name in ["Eve", "Ben"]:  # Dev wins: Ben has played three
            tap(other, name)
        rows = standings_rows(client, mode=Table.Mode.WINNER_TAKES_ALL)
        assert [(r["player"], r["wins"], r["played"], r["tie_break"]) for r in rows][:3] == [
            ("Dev", 1, 1, None),
            ("Ann", 1, 2, "played"),
            ("Ben", 1, 3, "played"),
        ]
        html = client.get(
            reverse("matches:standings"), {"mode": Table.Mode.WINNER_TAKES_ALL}
        ).content.decode()
        assert '>Ann</a><small class="tie-break">ahead of Ben on fewer played</small>' in html
