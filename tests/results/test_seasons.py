"""Seasons (host pages, boundaries, the standings' default season and its all-time fallback,
the seasons page after later undos) and the standings' mode filter."""

import csv
import datetime
import io
import re
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone

from matches.models import Season
from matches.play.services.undo import table_undo_last
from matches.rules.nights import night_of
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


TODAY = night_of()
DAY = datetime.timedelta(days=1)


def at_noon(day: datetime.date) -> datetime.datetime:
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time(12)))


def play_on(day: datetime.date, table, order: list[str]) -> None:
    """Tap players out in this order, the crowning filed at noon on that day."""
    with mock.patch.object(timezone, "now", return_value=at_noon(day)):
        for name in order:
            tap(table, name)


def season(name: str, first: datetime.date, last: datetime.date) -> Season:
    return Season.objects.create(name=name, first_day=first, last_day=last)


def rows(client, **params) -> list[tuple[str, int]]:
    data = client.get(reverse("matches:api_standings"), params).json()
    return [(row["player"], row["wins"]) for row in data["rows"]]


def page_players(html: str) -> list[str]:
    # A row's tie-break note follows the name in its cell.
    tie_break = r"(?:<small[^>]*>[^<]*</small>)?"
    return re.findall(rf'<td><a href="/players/\d+/">([^<]+)</a>{tie_break}</td>', html)


class TestSeasonPages:
    def test_a_host_adds_a_season(self, host_client):
        response = host_client.post(
            reverse("matches:season_new"),
            {"name": "Winter", "first_day": "2026-12-01", "last_day": "2027-02-28"},
            follow=True,
        )
        assert "Season “Winter” saved." in response.content.decode()
        saved = Season.objects.get()
        assert (saved.name, saved.first_day.isoformat(), saved.last_day.isoformat()) == (
            "Winter",
            "2026-12-01",
            "2027-02-28",
        )

    @pytest.mark.parametrize(
        ("data", "message"),
        [
            ({"name": "Spring", "first_day": "2027-01-15", "last_day": "2027-03-01"},
             "These days overlap the season “Winter” (1 Dec 2026 to 28 Feb 2027)."),
            ({"name": "winter", "first_day": "2027-06-01", "last_day": "2027-06-30"},
             "There is already a season called “Winter”."),
            ({"name": "Summer", "first_day": "2027-06-30", "last_day": "2027-06-01"},
             "The last day is before the first day."),
            ({"name": "  ", "first_day": "2027-06-01", "last_day": "2027-06-30"},
             "Give the season a name."),
            ({"name": "Summer", "first_day": "June", "last_day": "2027-06-30"},
             "Enter dates as YYYY-MM-DD."),
        ],
    )  # fmt: skip
    def test_bad_seasons_are_refused_with_a_message(self, host_client, data, message):
        season("Winter", datetime.date(2026, 12, 1), datetime.date(2027, 2, 28))
        response = host_client.post(reverse("matches:season_new"), data)
        assert response.status_code == 400
        assert message in response.content.decode()
        assert Season.objects.count() == 1

    def test_edit_and_delete(self, host_client):
        winter = season("Winter", datetime.date(2026, 12, 1), datetime.date(2027, 2, 28))
        host_client.post(
            reverse("matches:season_edit", args=[winter.pk]),
            {"name": "Long winter", "first_day": "2026-11-01", "last_day": "2027-03-31"},
        )
        winter.refresh_from_db()
        assert (winter.name, winter.first_day) == ("Long winter", datetime.date(2026, 11, 1))
        response = host_client.post(reverse("matches:season_delete", args=[winter.pk]), follow=True)
        assert "Season “Long winter” deleted. No result changed." in response.content.decode()
        assert not Season.objects.exists()

    def test_visitors_cannot_change_seasons(self, client, host):
        response = client.post(
            reverse("matches:season_new"),
            {"name": "Winter", "first_day": "2026-12-01", "last_day": "2027-02-28"},
        )
        assert response.status_code == 302 and "/login/" in response.url
        assert not Season.objects.exists()
        assert "Add a season" not in client.get(reverse("matches:seasons")).content.decode()


class TestSeasonStandings:
    @pytest.fixture
    def league(self, host):
        """Ann wins the day before the season, Bob on its first day, Cy on its last day,
        Dee the day after; the season is the three days ending yesterday."""
        first, last = TODAY - 3 * DAY, TODAY - DAY
        table = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"], mode="winner_takes_all")
        for day, winner in [(first - DAY, "Ann"), (first, "Bob"), (last, "Cy"), (TODAY, "Dee")]:
            play_on(day, table, [n for n in ["Ann", "Bob", "Cy", "Dee"] if n != winner][:3])
        return table, season("Autumn", first, last)

    def test_boundaries_are_inclusive(self, client, league):
        _, autumn = league
        won = {name: wins for name, wins in rows(client, season=autumn.pk)}
        assert won == {"Ann": 0, "Bob": 1, "Cy": 1, "Dee": 0}

    def test_page_defaults_to_the_season_covering_today(self, client, league):
        current = season("Now", TODAY, TODAY + 30 * DAY)
        html = client.get(reverse("matches:standings")).content.decode()
        assert "Season Now:" in html
        # Only today's match counts: Dee won it; everyone played it.
        assert page_players(html)[0] == "Dee"
        assert f"season={current.pk}" in html  # the CSV and JSON links follow the season

    def test_page_falls_back_to_all_time_without_a_current_season(self, client, league):
        html = client.get(reverse("matches:standings")).content.decode()
        assert "season-shown" not in html
        # Four wins, one each: all time, listed by name.
        assert page_players(html) == ["Ann", "Bob", "Cy", "Dee"]

    def test_all_time_can_still_be_chosen_when_a_season_is_current(self, client, league):
        season("Now", TODAY, TODAY + 30 * DAY)
        html = client.get(reverse("matches:standings"), {"season": ""}).content.decode()
        assert page_players(html) == ["Ann", "Bob", "Cy", "Dee"]

    def test_json_and_csv_take_the_season(self, client, league):
        _, autumn = league
        data = client.get(reverse("matches:api_standings"), {"season": autumn.pk}).json()
        assert data["filters"]["season"] == autumn.pk
        assert data["filters"]["from"] == autumn.first_day.isoformat()
        assert [r["player"] for r in data["rows"]][:2] == ["Bob", "Cy"]
        response = client.get(reverse("matches:standings_csv"), {"season": autumn.pk})
        table = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
        player = table[0].index("player")
        assert [line[player] for line in table[1:3]] == ["Bob", "Cy"]

    @pytest.mark.parametrize(
        ("params", "message"),
        [
            ({"season": "999"}, "There is no such season."),
            ({"season": "SEASON", "from": "2026-01-01"},
             "Choose a season or dates, not both (pick “All time” to use dates)."),
            ({"mode": "poker"}, "Choose a mode: ranked or winner takes all."),
        ],
    )  # fmt: skip
    def test_bad_filters_get_400(self, client, league, params, message):
        _, autumn = league
        params = {k: str(autumn.pk) if v == "SEASON" else v for k, v in params.items()}
        response = client.get(reverse("matches:api_standings"), params)
        assert (response.status_code, response.json()) == (400, {"error": message})
        assert client.get(reverse("matches:standings"), params).status_code == 400
        assert client.get(reverse("matches:standings_csv"), params).status_code == 400


class TestSeasonsPage:
    def test_champion_and_podium_follow_an_undo_after_the_season(self, client, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        yesterday = TODAY - DAY
        play_on(yesterday, table, ["Cy", "Bob"])  # Ann 3 points, Bob 2, Cy 1
        play_on(yesterday, table, ["Ann", "Cy"])  # Bob 3, Cy 2, Ann 1: Ann 4, Bob 5, Cy 3
        season("Last week", TODAY - 7 * DAY, yesterday)
        html = client.get(reverse("matches:seasons")).content.decode()
        assert re.search(r"Champion:\s*<strong><a [^>]+>Bob</a>", html)
        assert "finished" in html
        # The second crowning was a mistake, undone today: Ann is champion after all.
        table_undo_last(table_id=table.pk, tap_id=None, by=host)
        html = client.get(reverse("matches:seasons")).content.decode()
        assert re.search(r"Champion:\s*<strong><a [^>]+>Ann</a>", html)
        podium = re.findall(r'<li><span class="rank">=?(\d)</span> <a [^>]+>(\w+)', html)
        assert podium == [("1", "Ann"), ("2", "Bob"), ("3", "Cy")]

    def test_shared_champions_and_a_season_not_started(self, client, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"], mode="winner_takes_all")
        play_on(TODAY, table, ["Cy", "Bob"])
        play_on(TODAY, table, ["Cy", "Ann"])
        season("Now", TODAY, TODAY)
        season("Next", TODAY + DAY, TODAY + 9 * DAY)
        html = client.get(reverse("matches:seasons")).content.decode()
        assert "Sharing the lead so far:" in html
        assert "not started" in html

    def test_two_queries_however_many_seasons(self, client, host, django_assert_num_queries):
        for n in range(6):
            season(f"S{n}", TODAY - (n + 1) * 10 * DAY, TODAY - n * 10 * DAY - DAY)
        client.get(reverse("matches:seasons"))
        from matches.results.seasons import seasons_overview

        with django_assert_num_queries(2):
            assert len(seasons_overview()) == 6


class TestModeFilter:
    @pytest.fixture
    def league(self, host):
        ranked = make_table(host=host, players=["Ann", "Bob", "Cy"], name="Ranked")
        play_on(TODAY, ranked, ["Cy", "Bob"])  # Ann wins ranked
        wta = make_table(
            host=host, players=["Bob", "Cy", "Dee"], name="WTA", mode="winner_takes_all"
        )
        play_on(TODAY, wta, ["Cy", "Dee"])  # Bob wins
        play_on(TODAY, wta, ["Bob", "Dee"])  # Cy wins
        play_on(TODAY, wta, ["Cy", "Bob"])  # Dee wins
        wta2 = make_table(
            host=host, players=["Bob", "Eve", "Fay"], name="WTA 2", mode="winner_takes_all"
        )
        play_on(TODAY, wta2, ["Eve", "Fay"])  # Bob wins again: 2 wins in 4 played
        return ranked, wta

    def test_winner_takes_all_ranks_by_wins_then_fewer_played(self, client, league):
        data = client.get(reverse("matches:api_standings"), {"mode": "winner_takes_all"}).json()
        assert data["filters"]["mode"] == "winner_takes_all"
        assert [(r["rank"], r["player"], r["wins"], r["played"]) for r in data["rows"]] == [
            (1, "Bob", 2, 4),
            (2, "Cy", 1, 3),  # Cy and Dee: 1 win in 3, shared
            (2, "Dee", 1, 3),
            (4, "Eve", 0, 1),
            (4, "Fay", 0, 1),
        ]

    def test_ranked_only(self, client, league):
        assert rows(client, mode="ranked") == [("Ann", 1), ("Bob", 0), ("Cy", 0)]

    def test_winner_takes_all_page_shows_played_wins_and_win_percent_only(self, client, league):
        html = client.get(
            reverse("matches:standings"), {"mode": "winner_takes_all"}
        ).content.decode()
        head = re.search(r"<thead>.*</thead>", html, re.S).group()
        assert re.findall(r'<th scope="col">([^<]+)</th>', head) == [
            "Rank", "Player", "Played", "Wins", "Win %", "Rating"
        ]  # fmt: skip
        assert "rank by wins, then fewer matches played" in html
        assert "<td>2</td><td>50.0</td>" in html  # Bob: 2 wins, 50.0 %
        # A winner-takes-all table's own page too.
        _, wta = league
        html = client.get(reverse("matches:table_standings", args=[wta.pk])).content.decode()
        assert '<th scope="col">Points</th>' not in html

    def test_the_league_page_explains_how_modes_mix(self, client, league):
        # Both modes asked for: the page itself opens on the mode played most.
        html = client.get(reverse("matches:standings"), {"mode": ""}).content.decode()
        assert "This league mixes ranked and winner-takes-all tables." in html
        assert "The rating compares players across both modes" in html
        assert '<th scope="col">Points</th>' in html
        ranked = client.get(reverse("matches:standings"), {"mode": "ranked"}).content.decode()
        assert "This league mixes" not in ranked


class TestBestNightsOverviewQueries:
    def test_three_queries_however_many_seasons_count_best_nights(
        self, host, django_assert_num_queries
    ):
        from matches.results.seasons import seasons_overview

        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        for n in range(4):
            play_on(TODAY - (n * 10 + 1) * DAY, table, ["Cy", "Bob"])  # Ann wins each
            Season.objects.create(
                name=f"S{n}",
                first_day=TODAY - (n + 1) * 10 * DAY,
                last_day=TODAY - n * 10 * DAY - DAY,
                best_nights=1,
            )

        with django_assert_num_queries(3):
            overview = seasons_overview()

        assert [[row.player for row in summary.podium] for summary in overview] == [
            ["Ann", "Bob", "Cy"]
        ] * 4
