"""CSV a spreadsheet reads: a date and a time in two columns (local), the table's
name, "out" for a winner-takes-all loser, the rating in the standings, a file name saying
its filters, and one league-wide results file."""

import csv
import datetime
import io

import pytest
from django.urls import reverse
from django.utils import timezone

from matches.models import Match, Player, Season, Table
from matches.play import selectors
from matches.ratings import selectors as ratings
from matches.results.players.services import player_rename
from matches.web import exports
from tests.factories import make_table, tap, the_organiser

pytestmark = pytest.mark.django_db
UTC = datetime.UTC
HEADER = ["table", "match", "date", "time", "player", "place", "points", "winner"]


def rows_of(response) -> list[list[str]]:
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode("utf-8")
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))


def play(table: Table, order: list[str], filed_at: datetime.datetime) -> None:
    """Tap players out in this order (the one left wins), then say when it was filed."""
    for name in order:
        tap(table, name)
    number = table.matches.filed().order_by("-number").values_list("number", flat=True)[0]
    Match.objects.filter(table=table, number=number).update(filed_at=filed_at)


def disposition(name: str) -> str:
    return f'attachment; filename="{name}"'


class TestTableResults:
    def test_ranked_rows_carry_the_table_a_local_date_and_time(self, host, client):
        table = make_table(name="Front bar", players=["Zoë", "Ana", "Rita"])
        play(table, ["Rita", "Ana"], datetime.datetime(2026, 12, 1, 21, 7, 5, tzinfo=UTC))
        # British Summer Time: 20:07:05 UTC is 21:07:05 in the pub.
        play(table, ["Zoë", "Rita"], datetime.datetime(2026, 7, 1, 20, 7, 5, tzinfo=UTC))
        response = client.get(reverse("matches:table_results_csv", args=[table.pk]))
        assert response.streaming
        assert rows_of(response) == [
            HEADER,
            ["Front bar", "1", "2026-12-01", "21:07:05", "Zoë", "1", "3", "yes"],
            ["Front bar", "1", "2026-12-01", "21:07:05", "Ana", "2", "2", "no"],
            ["Front bar", "1", "2026-12-01", "21:07:05", "Rita", "3", "1", "no"],
            ["Front bar", "2", "2026-07-01", "21:07:05", "Ana", "1", "3", "yes"],
            ["Front bar", "2", "2026-07-01", "21:07:05", "Rita", "2", "2", "no"],
            ["Front bar", "2", "2026-07-01", "21:07:05", "Zoë", "3", "1", "no"],
        ]

    def test_a_winner_takes_all_loser_is_out(self, host, client):
        table = make_table(name="Snug", players=["Zoë", "Ana", "Rita"],
                           mode=Table.Mode.WINNER_TAKES_ALL)  # fmt: skip
        play(table, ["Rita", "Ana"], datetime.datetime(2026, 12, 1, 21, 7, 5, tzinfo=UTC))
        rows = rows_of(client.get(reverse("matches:table_results_csv", args=[table.pk])))
        assert rows[1:] == [
            ["Snug", "1", "2026-12-01", "21:07:05", "Zoë", "1", "", "yes"],
            ["Snug", "1", "2026-12-01", "21:07:05", "Ana", "out", "", "no"],
            ["Snug", "1", "2026-12-01", "21:07:05", "Rita", "out", "", "no"],
        ]

    def test_the_file_is_named_for_its_table_and_day(self, host, client):
        table = make_table(name="Front bar")
        response = client.get(reverse("matches:table_results_csv", args=[table.pk]))
        day = timezone.localdate(table.created_at).isoformat()
        assert response["Content-Disposition"] == disposition(f"results-front-bar-{day}.csv")

    def test_a_name_with_no_letters_falls_back_to_the_id(self, host, client):
        table = make_table(name="★★★")
        response = client.get(reverse("matches:table_results_csv", args=[table.pk]))
        day = timezone.localdate(table.created_at).isoformat()
        expected = disposition(f"results-table-{table.pk}-{day}.csv")
        assert response["Content-Disposition"] == expected


class TestStandings:
    def test_the_rating_column(self, host, client):
        table = make_table(players=["Zoë", "Ana", "Rita"])
        play(table, ["Rita", "Ana"], datetime.datetime(2026, 12, 1, 21, 7, 5, tzinfo=UTC))
        rows = rows_of(client.get(reverse("matches:standings_csv")))
        assert rows[0] == ["rank", "shared", "player", "played", "wins", "2nds", "3rds", "points",
                           "win %", "rating", "provisional"]  # fmt: skip
        shown = {r.player: str(r.shown) for r in ratings.rating_table()}
        assert rows[1:] == [
            ["1", "no", "Zoë", "1", "1", "0", "0", "3", "100.0", shown["Zoë"], "yes"],
            ["2", "no", "Ana", "1", "0", "1", "0", "2", "0.0", shown["Ana"], "yes"],
            ["3", "no", "Rita", "1", "0", "0", "1", "1", "0.0", shown["Rita"], "yes"],
        ]
        # The ratings are the league's own numbers, best first here.
        assert int(shown["Zoë"]) > int(shown["Ana"]) > int(shown["Rita"])

    def test_an_established_rating_is_not_provisional(self, host, client):
        table = make_table(players=["Zoë", "Ana", "Rita"])
        for day in range(1, 6):
            play(table, ["Rita", "Ana"], datetime.datetime(2026, 12, day, 21, tzinfo=UTC))
        rows = rows_of(client.get(reverse("matches:standings_csv")))
        assert [row[-1] for row in rows[1:]] == ["no", "no", "no"]

    @pytest.mark.parametrize(
        ("params", "name"),
        [
            ({}, "standings-all-time.csv"),
            ({"season": "AUTUMN"}, "standings-2026-autumn.csv"),
            ({"season": "AUTUMN", "mode": "ranked"}, "standings-2026-autumn-ranked.csv"),
            ({"from": "2026-11-01", "to": "2026-11-30"}, "standings-2026-11-01-to-2026-11-30.csv"),
            ({"from": "2026-11-01"}, "standings-from-2026-11-01.csv"),
            ({"to": "2026-11-30", "mode": "winner_takes_all"},
             "standings-to-2026-11-30-winner-takes-all.csv"),
            ({"table": "TABLE"}, "standings-front-bar-all-time.csv"),
        ],
    )  # fmt: skip
    def test_the_file_name_says_its_filters(self, host, client, params, name):
        autumn = Season.objects.create(name="2026 Autumn", first_day=datetime.date(2026, 9, 1),
                                       last_day=datetime.date(2026, 11, 30))  # fmt: skip
        table = make_table(name="Front bar")
        values = {"AUTUMN": str(autumn.pk), "TABLE": str(table.pk)}
        params = {key: values.get(value, value) for key, value in params.items()}
        response = client.get(reverse("matches:standings_csv"), params)
        assert response.status_code == 200
        assert response["Content-Disposition"] == disposition(name)


class TestLeagueResults:
    def league(self) -> tuple[Table, Table]:
        front = make_table(name="Front bar", players=["Zoë", "Ana", "Rita"])
        snug = make_table(name="Snug", players=["Ben", "Dev", "Eli"],
                          mode=Table.Mode.WINNER_TAKES_ALL)  # fmt: skip
        # Filed in this order across the two tables: Snug 1, Front 1, Snug 2, Front 2, Snug 3.
        at = [datetime.datetime(2026, 12, 1, 20, minute, tzinfo=UTC) for minute in range(5)]
        play(snug, ["Eli", "Dev"], at[0])
        play(front, ["Rita", "Ana"], at[1])
        play(snug, ["Ben", "Eli"], at[2])
        play(front, ["Zoë", "Rita"], at[3])
        play(snug, ["Dev", "Ben"], at[4])
        return front, snug

    def test_every_table_in_filing_order(self, host, client):
        self.league()
        response = client.get(reverse("matches:results_csv"))
        assert response.status_code == 200 and response.streaming
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        assert response["Content-Disposition"] == disposition("results-all-tables.csv")
        assert rows_of(response) == [
            HEADER,
            ["Snug", "1", "2026-12-01", "20:00:00", "Ben", "1", "", "yes"],
            ["Snug", "1", "2026-12-01", "20:00:00", "Dev", "out", "", "no"],
            ["Snug", "1", "2026-12-01", "20:00:00", "Eli", "out", "", "no"],
            ["Front bar", "1", "2026-12-01", "20:01:00", "Zoë", "1", "3", "yes"],
            ["Front bar", "1", "2026-12-01", "20:01:00", "Ana", "2", "2", "no"],
            ["Front bar", "1", "2026-12-01", "20:01:00", "Rita", "3", "1", "no"],
            ["Snug", "2", "2026-12-01", "20:02:00", "Dev", "1", "", "yes"],
            ["Snug", "2", "2026-12-01", "20:02:00", "Eli", "out", "", "no"],
            ["Snug", "2", "2026-12-01", "20:02:00", "Ben", "out", "", "no"],
            ["Front bar", "2", "2026-12-01", "20:03:00", "Ana", "1", "3", "yes"],
            ["Front bar", "2", "2026-12-01", "20:03:00", "Rita", "2", "2", "no"],
            ["Front bar", "2", "2026-12-01", "20:03:00", "Zoë", "3", "1", "no"],
            ["Snug", "3", "2026-12-01", "20:04:00", "Eli", "1", "", "yes"],
            ["Snug", "3", "2026-12-01", "20:04:00", "Ben", "out", "", "no"],
            ["Snug", "3", "2026-12-01", "20:04:00", "Dev", "out", "", "no"],
        ]

    def test_one_query_per_chunk_of_matches_however_many_tables(
        self, host, client, django_assert_num_queries, monkeypatch
    ):
        self.league()
        monkeypatch.setattr(selectors, "RESULTS_CHUNK", 2)
        monkeypatch.setattr(exports, "STREAM_CHUNK", 1)  # hand over every row
        # The stamp (for the tag), then 5 matches two at a time: 2, 2 and the last 1.
        with django_assert_num_queries(4):
            response = client.get(reverse("matches:results_csv"))
            rows = rows_of(response)
        assert len(rows) == 1 + 5 * 3
        assert [row[0] for row in rows[1::3]] == ["Snug", "Front bar", "Snug", "Front bar", "Snug"]
        # Chunks that end exactly on the last match still read every match once.
        monkeypatch.setattr(selectors, "RESULTS_CHUNK", 1)
        assert len(list(selectors.league_results())) == 5 * 3

    def test_a_spreadsheet_refreshing_gets_304_until_a_result_changes(self, host, client):
        front, _ = self.league()
        url = reverse("matches:results_csv")
        tag = client.get(url)["ETag"]
        assert client.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 304
        tap(front, "Rita")
        tap(front, "Ana")
        fresh = client.get(url, HTTP_IF_NONE_MATCH=tag)
        assert fresh.status_code == 200 and fresh["ETag"] != tag
        assert len(rows_of(fresh)) == 1 + 6 * 3

    def test_a_rename_shows_in_the_next_download(self, host, client):
        self.league()
        url = reverse("matches:results_csv")
        tag = client.get(url)["ETag"]
        zoe = Player.objects.get(name="Zoë")
        player_rename(player_id=zoe.pk, name="Zoë Lima", by=the_organiser())
        fresh = client.get(url, HTTP_IF_NONE_MATCH=tag)
        assert fresh.status_code == 200
        assert "Zoë Lima" in {row[4] for row in rows_of(fresh)}

    def test_public_and_linked_from_the_standings(self, host, client):
        self.league()
        assert client.get(reverse("matches:results_csv")).status_code == 200
        page = client.get(reverse("matches:standings")).content.decode()
        url = reverse("matches:results_csv")
        assert f'<a href="{url}">Every table’s results as CSV</a>' in page
        portuguese = client.get(reverse("matches:standings"), HTTP_ACCEPT_LANGUAGE="pt")
        assert (
            f'<a href="{url}">Resultados de todas as mesas em CSV</a>'
            in portuguese.content.decode()
        )

    def test_an_empty_league_is_the_header_alone(self, host, client):
        assert rows_of(client.get(reverse("matches:results_csv"))) == [HEADER]
