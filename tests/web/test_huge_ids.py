"""Ids beyond the database's range, in a path or a form, are a 404 or a refusal: never a
500, never a write."""

import uuid

import pytest
from django.urls import reverse

from matches.models import (
    Player,
    Season,
    Table,
    Tap,
)
from matches.web import feedback
from matches.web.forms import tables as table_forms
from matches.web.forms import taps as tap_forms
from tests.clients import HTMX
from tests.factories import make_table, open_match, seat_of, tap, written

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


HUGE_IDS = [2**63, 2**64, 10**30]
# Routes whose ids come from the path, with the other ids they need.
PATH_IDS = [
    ("table", "table_id"),
    ("tv", "table_id"),
    ("api_table", "table_id"),
    ("matches", "table_id"),
    ("table_results_csv", "table_id"),
    ("table_standings", "table_id"),
    ("qr", "table_id"),
    ("match", "table_id"),
    ("match", "number"),
    ("player", "player_id"),
    ("api_player", "player_id"),
]


class TestIdsBeyondTheDatabasesRangeAre404:
    """Table ids of 2^63 or more once answered 500 on SQLite: raw SQL got an int it cannot
    bind."""

    @pytest.fixture
    def league(self, host):
        table = make_table(host=host)
        tap(table, "Ben")
        return table

    @pytest.mark.parametrize("huge", HUGE_IDS)
    @pytest.mark.parametrize("route, huge_arg", PATH_IDS)
    def test_anonymous_reads_are_404_without_a_query(
        self, client, league, django_assert_num_queries, route, huge_arg, huge
    ):
        url = reverse(f"matches:{route}", kwargs=self.kwargs(route, league, huge_arg, huge))
        with django_assert_num_queries(0):
            response = client.get(url)
        assert response.status_code == 404

    @staticmethod
    def kwargs(route: str, league: Table, huge_arg: str, huge: int) -> dict:
        values = {"table_id": league.pk, "number": 1, "player_id": Player.objects.first().pk}
        needed = {
            "match": ["table_id", "number"],
            "player": ["player_id"],
            "api_player": ["player_id"],
        }.get(route, ["table_id"])
        return {name: huge if name == huge_arg else values[name] for name in needed}

    @pytest.mark.parametrize(
        "route", ["tap", "undo", "roster", "close", "reopen", "player_rename", "player_merge"]
    )
    def test_host_writes_on_a_huge_id_are_404(self, host_client, league, route):
        arg = "player_id" if route.startswith("player") else "table_id"
        before = written()
        response = host_client.post(reverse(f"matches:{route}", kwargs={arg: 2**63}), {})
        assert response.status_code == 404
        assert written() == before

    @pytest.mark.parametrize("route", ["season_edit", "season_delete"])
    def test_seasons_by_a_huge_id_are_404(self, host_client, league, route):
        response = host_client.get(reverse(f"matches:{route}", kwargs={"season_id": 2**63}))
        assert response.status_code == 404
        assert Season.objects.count() == 0

    def test_the_largest_id_the_database_holds_is_looked_up(self, client, league):
        url = reverse("matches:table", kwargs={"table_id": 2**63 - 1})
        assert client.get(url).status_code == 404

    @pytest.mark.parametrize(
        "field", ["match", "number", "player", "queued_by"], ids=lambda f: f"tap {f}"
    )
    @pytest.mark.parametrize("huge", [2**63, 2**64])
    def test_a_tap_naming_a_huge_id_is_refused(self, host_client, league, field, huge):
        match = open_match(league)
        body = {
            "match": match.pk,
            "player": seat_of(match, "Cara").player_id,
            "key": str(uuid.uuid4()),
            field: huge,
        }
        before = written()
        response = host_client.post(reverse("matches:tap", args=[league.pk]), body, **HTMX)
        assert response.status_code == 200
        assert str(feedback.BAD_TAP) in response.content.decode()
        assert written() == before

    @pytest.mark.parametrize("field", ["tap", "queued_by"])
    def test_an_undo_naming_a_huge_id_is_refused(self, host_client, league, field):
        body = {"tap": Tap.objects.get().pk, field: 2**63}
        before = written()
        response = host_client.post(reverse("matches:undo", args=[league.pk]), body, **HTMX)
        assert response.status_code == 200
        assert str(feedback.BAD_UNDO) in response.content.decode()
        assert written() == before

    def test_a_roster_naming_a_huge_match_is_refused(self, host_client, league):
        before = written()
        response = host_client.post(
            reverse("matches:roster", args=[league.pk]),
            {"match": 2**63, "players": "Ann\nBob\nCy"},
        )
        assert response.status_code == 200
        assert str(table_forms.BAD_ROSTER) in response.content.decode()
        assert written() == before

    def test_a_close_discarding_a_huge_match_is_refused(self, host_client, league):
        before = written()
        response = host_client.post(
            reverse("matches:close", args=[league.pk]), {"discard": 2**63}, follow=True
        )
        assert response.status_code == 200
        assert "is under way" in response.content.decode()
        assert written() == before

    @pytest.mark.parametrize("field, message", [("table", "There is no such table."),
                                                ("season", "There is no such season.")])  # fmt: skip
    def test_standings_filtered_by_a_huge_id_say_so(self, client, league, field, message):
        response = client.get(reverse("matches:standings"), {field: 2**63})
        assert response.status_code == 400 and message in response.content.decode()

    def test_every_form_field_carrying_an_id_is_bounded(self):
        fields = [
            tap_forms.TapForm.base_fields[name]
            for name in ("match", "number", "player", "queued_by")
        ]
        fields += [
            tap_forms.UndoForm.base_fields["tap"],
            tap_forms.UndoForm.base_fields["queued_by"],
        ]
        fields += [
            table_forms.CloseForm.base_fields["discard"],
            table_forms.RosterForm.base_fields["match"],
        ]
        assert {field.max_value for field in fields} == {2**63 - 1}
