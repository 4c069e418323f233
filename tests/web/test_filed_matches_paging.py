"""Public table pages are bounded however many matches a table filed: the JSON, the list
of filed matches and results.csv page, stream and answer a 304 until the table changes."""

import csv
import io
import re

import pytest
from django.urls import reverse

from matches.models import (
    Table,
)
from matches.play import selectors
from matches.web import exports
from tests.factories import make_table, tap

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def file_matches(table: Table, count: int) -> None:
    """File count matches on a three-seat table, Cy winning each (two taps a match)."""
    for _ in range(count):
        tap(table, "Ann")
        tap(table, "Bob")


def numbers(document: dict) -> list[int]:
    return [match["number"] for match in document["matches"]]


def listed(html: str) -> list[int]:
    """The match numbers a page of filed matches links, in the order shown."""
    return [int(number) for number in re.findall(r'matches/(\d+)/">Match', html)]


def older_link(html: str) -> str | None:
    found = re.search(r'<a class="button" rel="next" href="([^"]+)">Older matches</a>', html)
    return found.group(1).replace("&amp;", "&") if found else None


class TestPublicTablePagesAreBounded:
    """At 8,000 filed matches /api/tables/<id>/ was once 3.8 MB and about 2 s after every
    tap; the list of filed matches and results.csv were read whole on every request
    and had no ETag."""

    PAGE = selectors.FILED_PAGE
    TOTAL = 2 * PAGE + 5  # two whole pages and a short one

    @pytest.fixture
    def table(self, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        file_matches(table, self.TOTAL)
        tap(table, "Ann")  # the open match under way
        return table

    def test_the_json_holds_the_open_match_and_the_latest_matches_then_pages_back(
        self, client, table
    ):
        total = self.TOTAL
        first = client.get(reverse("matches:api_table", args=[table.pk])).json()
        assert first["current_match"]["number"] == total + 1
        assert first["current_match"]["out"] == [{"player": "Ann", "place": 3}]
        # The latest page, oldest first as the document always listed its matches.
        assert numbers(first) == list(range(total - self.PAGE + 1, total + 1))
        assert first["matches"][-1]["winner"] == "Cy"
        path = reverse("matches:api_table_matches", args=[table.pk])
        assert first["next"] == f"{path}?before={total - self.PAGE + 1}"
        seen, link = numbers(first), first["next"]
        while link is not None:
            page = client.get(link).json()
            assert page["id"] == table.pk
            assert 0 < len(page["matches"]) <= self.PAGE
            assert numbers(page)[-1] == seen[0] - 1  # exactly where the last page stopped
            assert [row["player"] for row in page["matches"][0]["results"]] == ["Cy", "Bob", "Ann"]
            seen, link = numbers(page) + seen, page["next"]
        assert seen == list(range(1, total + 1))  # every match once; the last page has no next

    def test_the_matches_page_shows_the_latest_and_links_the_older_ones(self, client, table):
        total = self.TOTAL
        html = client.get(reverse("matches:matches", args=[table.pk])).content.decode()
        assert listed(html) == list(range(total, total - self.PAGE, -1))
        assert "Latest matches" not in html
        seen, link = listed(html), older_link(html)
        while link is not None:
            html = client.get(link).content.decode()
            assert listed(html)[0] == seen[-1] - 1
            assert "Latest matches" in html
            seen, link = seen + listed(html), older_link(html)
        assert seen == list(range(total, 0, -1))

    @pytest.mark.parametrize(
        "route, query",
        [
            ("matches", {}),
            ("matches", {"before": "21"}),
            ("api_table_matches", {"before": "21"}),
            ("api_table", {}),
            ("table_results_csv", {}),
        ],
    )
    def test_a_repeat_request_is_a_304_until_the_table_changes(self, client, table, route, query):
        url = reverse(f"matches:{route}", args=[table.pk])
        first = client.get(url, query)
        assert first.status_code == 200
        again = client.get(url, query, HTTP_IF_NONE_MATCH=first["ETag"])
        assert again.status_code == 304 and again.content == b""
        tap(table, "Bob")  # files the open match
        assert client.get(url, query, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200

    def test_a_page_names_its_place_in_its_tag(self, client, table):
        url = reverse("matches:api_table_matches", args=[table.pk])
        tags = {client.get(url, {"before": b})["ETag"] for b in ("21", "021", "41")}
        assert len(tags) == 2  # ?before=021 is ?before=21

    @pytest.mark.parametrize("before", ["x", "0", "-3", "1.5", "9" * 30])
    def test_a_bad_page_is_refused_with_a_message(self, client, table, before):
        json = client.get(reverse("matches:api_table_matches", args=[table.pk]), {"before": before})
        assert json.status_code == 400
        assert json.json() == {"error": "before must be a match number."}
        page = client.get(reverse("matches:matches", args=[table.pk]), {"before": before})
        assert page.status_code == 400
        assert page.content.decode() == "before must be a match number."

    @pytest.mark.parametrize("filed", [5, 45])
    def test_the_json_and_the_page_cost_the_same_however_many_matches(
        self, host, client, django_assert_num_queries, filed
    ):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        file_matches(table, filed)
        # The row with its stamp, the open match, its seats, a page of filed matches with
        # their winners, their seats, the version again.
        with django_assert_num_queries(6):
            document = client.get(reverse("matches:api_table", args=[table.pk])).json()
        assert len(document["matches"]) == min(filed, self.PAGE)
        # The row, a page of filed matches with their winners, the version again.
        with django_assert_num_queries(3):
            html = client.get(reverse("matches:matches", args=[table.pk])).content.decode()
        assert len(listed(html)) == min(filed, self.PAGE)
        # An older page: the row, the page, its seats, the version.
        with django_assert_num_queries(4):
            page = client.get(
                reverse("matches:api_table_matches", args=[table.pk]), {"before": filed}
            ).json()
        assert len(page["matches"]) == min(filed - 1, self.PAGE)

    def test_results_csv_streams_every_row_a_chunk_at_a_time(
        self, client, table, django_assert_num_queries, monkeypatch
    ):
        monkeypatch.setattr(selectors, "RESULTS_CHUNK", 7)
        monkeypatch.setattr(exports, "STREAM_CHUNK", 1)  # hand over every row
        response = client.get(reverse("matches:table_results_csv", args=[table.pk]))
        assert response.streaming
        chunks = iter(response.streaming_content)
        # The first bytes cost the row and one chunk of matches, however long the table.
        with django_assert_num_queries(1):
            head = next(chunks)
        body = (head + b"".join(chunks)).decode("utf-8").lstrip("\ufeff")
        rows = list(csv.reader(io.StringIO(body)))
        assert rows[0] == ["table", "match", "date", "time", "player", "place", "points", "winner"]
        expected = [
            (number, name) for number in range(1, self.TOTAL + 1) for name in ("Cy", "Bob", "Ann")
        ]
        assert [(int(row[1]), row[4]) for row in rows[1:]] == expected
