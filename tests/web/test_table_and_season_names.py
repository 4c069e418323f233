"""Table and season names follow the player names' rules: stored normalised, invisible
and control characters refused, seasons unique however their names are written."""

import pytest
from django.urls import reverse

from matches.models import (
    Season,
    Table,
)
from tests.clients import FormClient
from tests.factories import make_table, written

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


def launch(client, name: str):
    body = {"name": name, "players": "Ann\nBob\nCy", "mode": Table.Mode.RANKED}
    return client.post(reverse("matches:table_new"), body)


def save_season(client, name: str, first: str = "2026-01-01", last: str = "2026-03-31"):
    body = {"name": name, "first_day": first, "last_day": last}
    return client.post(reverse("matches:season_new"), body)


INVISIBLE_ONLY = (
    "The name typed contains an invisible or control character (such as a zero-width space "
    "or a direction mark) and nothing else; type the name again."
)


class TestTableAndSeasonNamesFollowTheNameRules:
    """Zero-width, bidi-override and control characters were once accepted in table and
    season names ("Z" and "Z" + U+200B both existed and read the same; a table called only
    U+200B was an invisible link), and season uniqueness ignored full-width forms. Typed
    names follow the player names' rules: stored normalised, invisible characters refused."""

    def test_a_table_name_of_only_a_zero_width_space_is_a_form_error(self, host_client):
        before = written()
        response = launch(host_client, "\u200b")
        assert response.status_code == 200
        assert INVISIBLE_ONLY in response.content.decode()
        assert written() == before

    @pytest.mark.parametrize(
        "typed", ["Front bar\u200b", "\u202eFront bar", "Front\x07 bar", "Front bar\u2066"]
    )
    def test_invisible_bidi_and_control_characters_in_a_table_name_are_refused(
        self, host_client, typed
    ):
        before = written()
        response = launch(host_client, typed)
        assert response.status_code == 200
        assert "“Front bar” contains an invisible or control character" in (
            response.content.decode()
        )
        assert written() == before

    def test_a_table_name_is_stored_normalised(self, host_client):
        response = launch(host_client, "  \uff26ront   bar ")
        assert response.status_code == 302
        assert list(Table.objects.values_list("name", flat=True)) == ["Front bar"]

    def test_the_admin_refuses_an_invisible_table_name(self, admin_user):
        table = make_table(host=admin_user)
        url = reverse("admin:matches_table_change", args=[table.pk])
        admin = FormClient()
        admin.force_login(admin_user)
        response = admin.post(url, {"name": "Front bar\u200b", "created_by": admin_user.pk})
        assert response.status_code == 200
        assert "contains an invisible or control character" in response.content.decode()
        table.refresh_from_db()
        assert table.name == "Front bar"

    def test_a_season_differing_only_in_width_is_a_duplicate(self, host_client):
        assert save_season(host_client, "Winter").status_code == 302
        response = save_season(
            host_client, "\uff37\uff49\uff4e\uff54\uff45\uff52", "2026-04-01", "2026-06-30"
        )
        assert response.status_code == 400
        assert "There is already a season called “Winter”." in response.content.decode()
        assert list(Season.objects.values_list("name", flat=True)) == ["Winter"]

    def test_a_season_differing_only_in_case_folding_is_a_duplicate(self, host_client):
        assert save_season(host_client, "Straße").status_code == 302
        response = save_season(host_client, "STRASSE", "2026-04-01", "2026-06-30")
        assert response.status_code == 400
        assert Season.objects.count() == 1

    @pytest.mark.parametrize("typed", ["Win\x01ter", "Winter\u200b", "\u202eWinter"])
    def test_control_and_invisible_characters_in_a_season_name_are_refused(
        self, host_client, typed
    ):
        response = save_season(host_client, typed)
        assert response.status_code == 400
        assert "“Winter” contains an invisible or control character" in response.content.decode()
        assert not Season.objects.exists()

    def test_a_season_name_of_only_invisible_characters_is_refused(self, host_client):
        response = save_season(host_client, "\u200b\u200e")
        assert response.status_code == 400
        assert INVISIBLE_ONLY in response.content.decode()
        assert not Season.objects.exists()

    def test_a_season_name_is_stored_normalised(self, host_client):
        assert save_season(host_client, " Winter \u3000 league ").status_code == 302
        assert list(Season.objects.values_list("name", flat=True)) == ["Winter league"]
