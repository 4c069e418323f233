import csv
import datetime
import io
import re
from io import StringIO
from unittest import mock

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from matches import integrity
from matches.models import AllTimeTotal, DailyTally, Player, Table
from matches.results import standings as league_standings
from matches.results.standings import StandingsQuery
from matches.rules.nights import night_of
from matches.web import exports
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def play(table, order):
    """Knock players out in this order; the one left wins."""
    for name in order:
        tap(table, name)


def summary(rows):
    return [(f"={r.rank}" if r.shared else str(r.rank), r.player, r.points) for r in rows]


def tally(table, name, **counts):
    """A hand-built line of a league: the day's tally and the season total agree."""
    player, _ = Player.objects.get_or_create(name=name)
    venue = table.venue
    AllTimeTotal.objects.create(player=player, table=table, venue=venue, **counts)
    return DailyTally.objects.create(
        player=player, table=table, venue=venue, day=night_of(), **counts
    )


class TestOrder:
    def test_a_played_league(self, host):
        table = make_table(players=["Ann", "Bob", "Cy", "Dee"])
        play(table, ["Dee", "Cy", "Bob"])  # Ann 3, Bob 2, Cy 1, Dee 0
        play(table, ["Ann", "Dee", "Bob"])  # Cy 3, Bob 2, Dee 1, Ann 0
        rows = league_standings.standings()
        # Cy and Bob have 4 points each; Cy's win puts him ahead.
        assert [(r.player, r.played, r.wins, r.seconds, r.thirds, r.points) for r in rows] == [
            ("Cy", 2, 1, 0, 1, 4),
            ("Bob", 2, 0, 2, 0, 4),
            ("Ann", 2, 1, 0, 0, 3),
            ("Dee", 2, 0, 0, 1, 1),
        ]

    def test_every_tie_break_step(self, host):
        table = make_table(players=["Ann", "Bob", "Cy"])
        # Points first.
        tally(table, "P-high", played=1, wins=1, points=3)
        # Equal points (2): wins decide (a winner-takes-all win carries no point).
        tally(table, "W-more", played=2, wins=1, seconds=1, points=2)
        tally(table, "W-less", played=1, seconds=1, points=2)
        # Equal points (1) and wins (0): 2nds... then 3rds, then fewer played.
        tally(table, "S-more", played=3, seconds=0, thirds=1, wins=0, points=1)
        tally(table, "T-more", played=1, thirds=1, points=1)
        tally(table, "Fewer", played=2, thirds=1, points=1)
        tally(table, "Zed", played=3, thirds=1, points=1)
        rows = league_standings.standings()
        assert [r.player for r in rows] == [
            "P-high", "W-more", "W-less", "T-more", "Fewer", "S-more", "Zed"
        ]  # fmt: skip

    def test_twos_and_thirds_order(self, host):
        table = make_table(players=["Ann", "Bob", "Cy"])
        tally(table, "Twos", played=2, seconds=2, points=4)
        tally(table, "Thirds", played=4, thirds=4, points=4)
        tally(table, "ThirdsWin", played=2, wins=1, thirds=1, points=1)  # WTA win + a 3rd
        tally(table, "WinOnly", played=1, wins=1, points=0)
        tally(table, "ThreeThirds", played=3, wins=1, thirds=3, points=3)
        tally(table, "RankedWin", played=1, wins=1, points=3)
        rows = league_standings.standings()
        assert [r.player for r in rows] == [
            "Twos", "Thirds", "ThreeThirds", "RankedWin", "ThirdsWin", "WinOnly"
        ]  # fmt: skip

    def test_shared_ranks_skip_the_next_and_list_by_name(self, host):
        table = make_table(players=["Ann", "Bob", "Cy"])
        tally(table, "Top", played=1, wins=1, points=3)
        tally(table, "zoe", played=1, seconds=1, points=2)
        tally(table, "Amy", played=1, seconds=1, points=2)
        tally(table, "Last", played=1, thirds=1, points=1)
        assert summary(league_standings.standings()) == [
            ("1", "Top", 3), ("=2", "Amy", 2), ("=2", "zoe", 2), ("4", "Last", 1)
        ]  # fmt: skip

    def test_winner_takes_all_counts_played_and_wins_only(self, host):
        table = make_table(players=["Ann", "Bob", "Cy"], mode=Table.Mode.WINNER_TAKES_ALL)
        play(table, ["Cy", "Bob"])
        rows = {r.player: r for r in league_standings.standings()}
        assert (rows["Ann"].played, rows["Ann"].wins, rows["Ann"].points) == (1, 1, 0)
        assert (rows["Bob"].seconds, rows["Bob"].thirds, rows["Bob"].points) == (0, 0, 0)
        assert rows["Cy"].played == 1

    def test_undoing_a_crowning_takes_it_out_of_the_standings(self, host):
        from matches.play.services.undo import table_undo_last

        table = make_table(players=["Ann", "Bob", "Cy"])
        play(table, ["Cy", "Bob"])
        table_undo_last(table_id=table.pk, tap_id=None, by=host)
        assert league_standings.standings() == []
        assert integrity.integrity_problems() == []


class TestFilters:
    def test_table_and_dates(self, host):
        front = make_table(name="Front", players=["Ann", "Bob", "Cy"])
        snug = make_table(name="Snug", players=["Ann", "Bob", "Cy"])
        play(front, ["Cy", "Bob"])
        play(snug, ["Ann", "Bob"])
        assert league_standings.standings(StandingsQuery(table_id=front.pk))[0].player == "Ann"
        assert league_standings.standings(StandingsQuery(table_id=snug.pk))[0].player == "Cy"
        today = night_of()
        assert len(league_standings.standings(StandingsQuery(date_from=today, date_to=today))) == 3
        assert (
            league_standings.standings(StandingsQuery(date_to=today - datetime.timedelta(days=1)))
            == []
        )

    def test_page_and_json_with_filters(self, host, client):
        table = make_table(players=["Ann", "Bob", "Cy"])
        play(table, ["Cy", "Bob"])
        today = night_of().isoformat()
        data = client.get(
            reverse("matches:api_standings"), {"table": table.pk, "from": today, "to": today}
        ).json()
        assert data["filters"] == {
            "table": table.pk, "venue": None, "season": None, "from": today, "to": today,
            "mode": None,
        }  # fmt: skip
        assert data["rows"][0] == {
            "rank": 1, "shared": False, "player": "Ann", "played": 1,
            "wins": 1, "seconds": 0, "thirds": 0, "points": 3, "tie_break": None,
        }  # fmt: skip
        html = client.get(reverse("matches:table_standings", args=[table.pk])).content.decode()
        assert re.search(r"<td>1</td>\s*<td><a href=\"/players/\d+/\">Ann</a></td>", html)
        assert "Ranked by points, then wins, then 2nds, then 3rds" in html

    @pytest.mark.parametrize(
        ("params", "message"),
        [
            ({"table": "abc"}, "There is no such table."),
            ({"table": "99999"}, "There is no such table."),
            ({"from": "2026-13-01"}, "Enter dates as YYYY-MM-DD."),
            ({"to": "yesterday"}, "Enter dates as YYYY-MM-DD."),
            ({"from": "2026-05-02", "to": "2026-05-01"}, "The start date is after the end date."),
        ],
    )
    def test_bad_filters_get_400_with_a_message(self, host, client, params, message):
        response = client.get(reverse("matches:api_standings"), params)
        assert response.status_code == 400
        assert response.json() == {"error": message}
        page = client.get(reverse("matches:standings"), params)
        assert page.status_code == 400 and message in page.content.decode()
        assert client.get(reverse("matches:standings_csv"), params).status_code == 400


class TestQueryCounts:
    @pytest.mark.parametrize("matches", [10, 60])
    def test_standings_cost_the_same_however_many_matches(
        self, host, client, django_assert_num_queries, matches
    ):
        table = make_table(players=["Ann", "Bob", "Cy", "Dee"])
        for _ in range(matches):
            play(table, ["Dee", "Cy", "Bob"])
        client.get(reverse("matches:standings"))  # a browser that already has its CSRF cookie
        cache.clear()
        # No first-host check once the process has seen a host: the league stamp, the
        # filter's table lookup, the aggregate with the players' names.
        with django_assert_num_queries(3):
            client.get(reverse("matches:api_standings"), {"table": table.pk})
        # The season covering today, the stamp, the aggregate with the players' names, the
        # ratings, whether they are updating, the tables, seasons and venues the filter offers
        # (read once, to key its rendering and to write its lists); and which modes the
        # league has played (read once per standings change).
        with django_assert_num_queries(9):
            page = client.get(reverse("matches:standings"))
        # Until a match is filed or unfiled the rows come from the cache, or a 304.
        with django_assert_num_queries(5):
            again = client.get(reverse("matches:standings")).content.decode()
        rows = re.compile(r"<tbody>.*</tbody>", re.S)
        assert rows.search(again).group() == rows.search(page.content.decode()).group()
        assert (
            client.get(reverse("matches:standings"), HTTP_IF_NONE_MATCH=page["ETag"]).status_code
            == 304
        )
        # A filing moves the standings, not the filter's lists: it is not rendered again.
        play(table, ["Dee", "Cy", "Bob"])
        with django_assert_num_queries(9):
            after = client.get(reverse("matches:standings")).content.decode()
        form = re.compile(r'<form method="get" class="filters".*?</form>', re.S)
        assert form.search(after).group() == form.search(page.content.decode()).group()

    @pytest.mark.parametrize("matches", [10, 10_000])
    def test_the_same_queries_for_10_and_10000_matches(
        self, db, client, django_assert_num_queries, matches
    ):
        call_command("seed_league", players=40, tables=5, matches=matches, stdout=StringIO())
        cache.clear()
        today = night_of().isoformat()
        # First-host check (the process's first request), league stamp, the aggregate with
        # the players' names: the same however long the season; then no first-host check.
        with django_assert_num_queries(3):
            assert client.get(reverse("matches:api_standings")).status_code == 200
        # A date range: the league stamp and one read of the running totals with the names.
        with django_assert_num_queries(2):
            assert (
                client.get(
                    reverse("matches:api_standings"), {"from": "2020-01-01", "to": today}
                ).status_code
                == 200
            )

    def test_a_filed_match_refreshes_cached_standings(self, host, client):
        table = make_table(players=["Ann", "Bob", "Cy"])
        play(table, ["Cy", "Bob"])
        first = client.get(reverse("matches:api_standings")).json()["rows"]
        play(table, ["Ann", "Bob"])  # Cy wins the second
        second = client.get(reverse("matches:api_standings")).json()["rows"]
        assert first != second and {r["player"]: r["wins"] for r in second}["Cy"] == 1


class TestCacheKeysFollowTheCleanedFilters:
    """Parameters the filters ignore must not make new cache entries (pushing real ones out)
    nor new tags: the cache and the ETags key on the form's cleaned values."""

    @pytest.fixture
    def table(self, host):
        table = make_table(players=["Ann", "Bob", "Cy"])
        play(table, ["Cy", "Bob"])
        make_table(name="Snug", players=["Dee", "Eve", "Fay"])
        return table

    def no_aggregate(self):
        return mock.patch.object(
            league_standings, "standings", side_effect=AssertionError("computed")
        )

    def test_junk_parameters_share_the_json_entry_and_tag(self, client, table):
        cache.clear()
        first = client.get(reverse("matches:api_standings"), {"table": table.pk})
        junk = {"table": str(table.pk), "junk": "x", "utm_source": "flyer", "from": ""}
        with self.no_aggregate():
            again = client.get(reverse("matches:api_standings"), junk)
            revalidated = client.get(
                reverse("matches:api_standings"), junk, HTTP_IF_NONE_MATCH=first["ETag"]
            )
        assert again.status_code == 200 and again.json() == first.json()
        assert again["ETag"] == first["ETag"] and revalidated.status_code == 304

    def test_junk_parameters_share_the_pages_rows_and_tag(self, client, table):
        client.get(reverse("matches:standings"))  # the CSRF cookie, part of the page's tag
        cache.clear()
        first = client.get(reverse("matches:standings"), {"table": table.pk})
        with self.no_aggregate():
            again = client.get(reverse("matches:standings"), {"junk": "x", "table": table.pk})
        assert again.status_code == 200 and "Ann" in again.content.decode()
        assert again["ETag"] == first["ETag"]

    def test_a_tables_own_standings_ignore_junk_too(self, client, table):
        url = reverse("matches:table_standings", args=[table.pk])
        client.get(url)
        cache.clear()
        first = client.get(url)
        with self.no_aggregate():
            again = client.get(url, {"junk": "x", "table": "999"})
        assert again.status_code == 200 and again["ETag"] == first["ETag"]

    def test_different_filters_still_differ(self, client, table):
        other = Table.objects.get(name="Snug")
        tags = {
            client.get(reverse("matches:api_standings"), params)["ETag"]
            for params in ({}, {"table": table.pk}, {"table": other.pk}, {"from": "2020-01-01"})
        }
        assert len(tags) == 4
        bad = client.get(reverse("matches:api_standings"), {"table": "x"})
        worse = client.get(reverse("matches:api_standings"), {"table": "y"})
        assert bad.status_code == 400 and "error" in bad.json()
        assert bad.get("ETag") != worse.get("ETag")


class TestCsv:
    def test_results_csv_escapes_commas_quotes_and_accents(self, host, client):
        table = make_table(players=['Zoë "Ace", Jr', "Bob", "Cy"])
        play(table, ["Cy", "Bob"])
        response = client.get(reverse("matches:table_results_csv", args=[table.pk]))
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        body = response.getvalue().decode("utf-8")  # streamed: read it whole
        assert body.startswith("\ufeff")
        assert '"Zoë ""Ace"", Jr"' in body
        rows = list(csv.reader(io.StringIO(body.lstrip("\ufeff"))))
        # The table's local time (Europe/London here), to the second: a date and a time.
        filed = timezone.localtime(table.matches.get(number=1).filed_at)
        day, time = filed.date().isoformat(), filed.strftime("%H:%M:%S")
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", day) and re.fullmatch(r"\d\d:\d\d:\d\d", time)
        assert rows == [
            ["table", "match", "date", "time", "player", "place", "points", "winner"],
            ["Front bar", "1", day, time, 'Zoë "Ace", Jr', "1", "3", "yes"],
            ["Front bar", "1", day, time, "Bob", "2", "2", "no"],
            ["Front bar", "1", day, time, "Cy", "3", "1", "no"],
        ]

    def test_standings_csv(self, host, client):
        table = make_table(players=["Åsa", "Bob", "Cy"], mode=Table.Mode.WINNER_TAKES_ALL)
        play(table, ["Cy", "Bob"])
        body = client.get(reverse("matches:standings_csv")).content.decode("utf-8").lstrip("\ufeff")
        rows = list(csv.reader(io.StringIO(body)))
        assert rows[0] == [
            "rank", "shared", "player", "played", "wins", "2nds", "3rds", "points", "win %",
            "rating", "provisional",
        ]  # fmt: skip
        assert rows[1][:9] == ["1", "no", "Åsa", "1", "1", "0", "0", "0", "100.0"]
        assert rows[1][10] == "yes"  # rated, after one match: provisional
        # A shared rank is a number a spreadsheet reads as 2, with the marker beside it.
        assert rows[2][:3] == ["2", "yes", "Bob"] and rows[3][:3] == ["2", "yes", "Cy"]


FORMULAS = ['=HYPERLINK("http://evil","x")', "+cmd|' /C calc'!A0", "@SUM(1+1)", "-2+3"]


class TestCsvFormulas:
    """A cell a spreadsheet would evaluate starts with an apostrophe."""

    def csv_rows(self, client, url):
        body = client.get(url).getvalue().decode("utf-8").lstrip("\ufeff")
        return list(csv.reader(io.StringIO(body)))

    def test_formula_shaped_names_are_neutralised_in_both_exports(self, host, client):
        table = make_table(players=FORMULAS)
        play(table, FORMULAS[:3])  # "-2+3" wins
        results = self.csv_rows(client, reverse("matches:table_results_csv", args=[table.pk]))
        assert sorted(row[4] for row in results[1:]) == sorted("'" + f for f in FORMULAS)
        standings = self.csv_rows(client, reverse("matches:standings_csv"))
        assert [row[2] for row in standings[1:]] == ["'-2+3", "'@SUM(1+1)", "'+cmd|' /C calc'!A0",
                                                     "'=HYPERLINK(\"http://evil\",\"x\")"]  # fmt: skip
        cells = [cell for row in results + standings for cell in row]
        assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]

    @pytest.mark.parametrize(
        "cell, written",
        [("=1+1", "'=1+1"), ("\tx", "'\tx"), ("\r=1", "'\r=1"), ("Ann", "Ann"), (-2, -2), (3, 3)],
    )
    def test_every_dangerous_first_character(self, cell, written):
        assert exports.spreadsheet_safe(cell) == written

    def test_win_percent_is_rounded_the_same_on_screen_and_in_the_csv(self, host, client):
        table = make_table(players=["Ann", "Bob", "Cy"], mode=Table.Mode.WINNER_TAKES_ALL)
        for order in (["Cy", "Bob"], ["Cy", "Bob"], ["Ann", "Cy"]):  # Ann wins 2 of 3
            play(table, order)
        body = client.get(reverse("matches:standings_csv")).content.decode("utf-8").lstrip("\ufeff")
        ann = next(row for row in csv.reader(io.StringIO(body)) if row[2] == "Ann")
        assert ann[8] == "66.7"
        page = client.get(reverse("matches:standings")).content.decode()
        assert "<td>66.7</td>" in page and "66.6" not in page


class TestPlayerPage:
    def test_history_totals_and_chart_with_text_alternative(self, host, client):
        table = make_table(players=["Ann", "Bob", "Cy"])
        play(table, ["Cy", "Bob"])
        play(table, ["Ann", "Bob"])
        ann = Player.objects.get(name="Ann")
        html = client.get(reverse("matches:player", args=[ann.pk])).content.decode()
        assert '<svg role="img" aria-labelledby="chart-title chart-desc"' in html
        assert '<desc id="chart-desc">The chart shows 2 matches, numbers 1 to 2.' in html
        assert html.count('class="place-dot') == 2
        assert re.search(r"<dt>Points</dt><dd>4</dd>", html)
        assert re.search(r"<td>3rd</td>\s*<td>1</td>", html) and re.search(
            r"<td>1st</td>\s*<td>3</td>", html
        )

    def test_standings_link_to_player_pages(self, host, client):
        table = make_table(players=["Ann", "Bob", "Cy"])
        play(table, ["Cy", "Bob"])
        html = client.get(reverse("matches:standings")).content.decode()
        ann = Player.objects.get(name="Ann")
        assert f'<a href="/players/{ann.pk}/">Ann</a>' in html

    def test_unknown_player_is_404(self, host, client):
        assert client.get(reverse("matches:player", args=[999])).status_code == 404


class TestTv:
    def test_tv_content_and_304(self, host, client):
        table = make_table(players=["Ann", "Bob", "Cy", "Dee"])
        play(table, ["Dee", "Cy", "Bob"])
        url = reverse("matches:tv", args=[table.pk])
        first = client.get(url)
        html = first.content.decode()
        # The base page's head, without the site's header and navigation.
        assert '<body class="tv">' in html and "site-header" not in html
        assert "<bdi>Ann</bdi> won" in html  # the last result
        # Tonight at this table, ranked: points, leader first.
        tonight = html[html.index("Tonight at this table") :]
        rows = re.findall(
            r'<tr[^>]*><th scope="row">(?:<span[^>]*>♛</span> )?(\w+)</th><td class="num">(\d+)</td>',
            tonight,
        )
        assert rows == [("Ann", "3"), ("Bob", "2"), ("Cy", "1"), ("Dee", "0")]
        assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
        tap(table, "Bob")
        fragment = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **HTMX)
        assert fragment.status_code == 200
        body = fragment.content.decode()
        assert "<html" not in body
        assert '<span class="place">4th</span> <span class="name">Bob</span>' in body


class TestKeptRows:
    """The standings rows are kept rendered by what they show: a page put together from kept
    rows reads exactly as one rendered afresh, in the reader's language."""

    @staticmethod
    def body(client, **params) -> str:
        page = client.get(reverse("matches:standings"), params).content.decode()
        return re.search(r"<tbody>.*</tbody>", page, re.S).group()

    def test_a_filing_that_reorders_the_league_reads_as_a_fresh_rendering(self, host, client):
        from matches.web.caching import renderings

        table = make_table(players=["Ann", "Bob", "Cy </tr> Al", "Dee"])
        play(table, ["Dee", "Cy </tr> Al", "Bob"])
        first = self.body(client)
        play(table, ["Ann", "Bob", "Dee"])  # Cy </tr> Al wins: every rank moves
        kept = self.body(client)
        cache.clear()
        renderings.kept_rows.clear()
        assert kept == self.body(client)
        assert kept != first
        # Cy 4 points, Ann 3 with a win, Bob 3, Dee 2; the name is text in its own cell.
        names = re.findall(r'<td>(\d)</td><td><a href="[^"]+">([^<]+)</a>', kept)
        assert names == [("1", "Cy &lt;/tr&gt; Al"), ("2", "Ann"), ("3", "Bob"), ("4", "Dee")]
        assert kept.count("<tr>") == kept.count("</tr>") == 4

    def test_a_row_kept_in_english_is_not_shown_in_portuguese(self, host, client):
        table = make_table(players=["Ann", "Bob", "Cy"])
        play(table, ["Cy", "Bob"])
        assert "(provisional)" in self.body(client)
        client.cookies["django_language"] = "pt"
        portuguese = self.body(client)
        assert "(provisional)" not in portuguese
        assert "(provisório)" in portuguese
