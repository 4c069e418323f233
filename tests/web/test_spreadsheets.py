"""The CSV files: no cell a spreadsheet would run as a formula, and no kept tag honoured
once a player is hidden."""

import csv
import io

import pytest
from django.urls import reverse

from matches.models import Player
from matches.results import public_names
from tests.factories import body, make_table, pid, tap, the_organiser

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


class TestCsvCells:
    @pytest.mark.parametrize("start", ["=", "+", "-", "@"])
    def test_every_csv_neutralises_a_formula_name(self, host, client, host_client, start):
        evil = f"{start}cmd|' /C calc'!A0"
        table = make_table(host=host, players=[evil, "Ben", "Cara"], name=f"{start}HYPERLINK(1)")
        tap(table, "Ben")
        tap(table, "Cara")
        urls = [
            reverse("matches:results_csv"),
            reverse("matches:standings_csv"),
            reverse("matches:table_results_csv", args=[table.pk]),
        ]
        evil_player = Player.objects.get(name=evil)
        public_names.player_set_public_name(
            player_id=evil_player.pk, public_name=f"{start}SUM(1)", hidden=False, by=the_organiser()
        )
        for c in (client, host_client):
            for url in urls:
                rows = list(csv.reader(io.StringIO(body(c.get(url)))))
                for row in rows:
                    for cell in row:
                        assert not cell.startswith(("=", "+", "@")) and not (
                            cell.startswith("-") and not cell.lstrip("-").isdigit()
                        ), (url, cell)


class TestSpreadsheetsRefreshing:
    @pytest.mark.parametrize("name", ["matches:results_csv", "matches:standings_csv"])
    def test_a_kept_tag_is_not_honoured_after_a_hide(self, table, client, host, name):
        url = reverse(name)
        first = client.get(url)
        assert "Dev" in body(first)
        tag = first.get("ETag", "")
        again = client.get(url, HTTP_IF_NONE_MATCH=tag)
        assert again.status_code in (200, 304)
        public_names.player_set_public_name(
            player_id=pid("Dev"), public_name="", hidden=True, by=the_organiser()
        )
        after = client.get(url, HTTP_IF_NONE_MATCH=tag)
        assert after.status_code == 200
        text = body(after)
        assert "Dev" not in text and f"Player {pid('Dev')}" in text
