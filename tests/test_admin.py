"""The admin: edits of players and tables follow the same name rules as the services, and
every edit the standings show makes them change; results are shown but never written; the
login refuses a username longer than any account."""

from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.urls import reverse
from django.utils import translation

from matches import integrity
from matches.admin import PlayerForm
from matches.core import stamp as core_stamp
from matches.models import AllTimeTotal, DailyTally, Player, Table
from matches.play.services.tables import table_close
from tests.clients import FormClient
from tests.factories import everything_kept, filed_league, make_table, tap

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    # Messages are asserted in English, whatever language an earlier request left active.
    with translation.override("en"):
        yield


@pytest.fixture
def admin_client(db) -> FormClient:
    client = FormClient()
    client.force_login(
        get_user_model().objects.create_superuser(username="boss", password="a-long-password-1")
    )
    return client


@pytest.fixture
def league(admin_client):
    table = make_table(
        host=get_user_model().objects.get(username="boss"), players=["Ann", "Bob", "Cy"]
    )
    for name in ("Cy", "Bob"):
        tap(table, name)
    return table


def rename_player(client, player, name):
    return client.post(
        reverse("admin:matches_player_change", args=[player.pk]), {"name": name, "_save": "Save"}
    )


class TestPlayerNamesInTheAdmin:
    def test_a_rename_to_another_players_name_is_a_form_error(self, admin_client, league):
        bob = Player.objects.get(name="Bob")
        response = rename_player(admin_client, bob, "ANN")
        assert response.status_code == 200
        assert (
            "Another player is already called “Ann” (names ignore upper and lower case); "
            "choose a different name."
        ) in response.content.decode()
        assert sorted(Player.objects.values_list("name", flat=True)) == ["Ann", "Bob", "Cy"]

    @pytest.mark.parametrize("name", ["\uff21\uff4e\uff4e", " ann ", "Ann\u200b", "\u200b", ""])
    def test_look_alikes_and_invisible_names_are_form_errors(self, admin_client, league, name):
        bob = Player.objects.get(name="Bob")
        response = rename_player(admin_client, bob, name)
        assert response.status_code == 200
        assert 'class="errorlist' in response.content.decode()
        bob.refresh_from_db()
        assert bob.name == "Bob"

    def test_adding_a_player_that_exists_is_a_form_error(self, admin_client, league):
        response = admin_client.post(
            reverse("admin:matches_player_add"), {"name": "ＢＯＢ", "_save": "Save"}
        )
        assert response.status_code == 200
        assert "Another player is already called “Bob”" in response.content.decode()
        assert Player.objects.count() == 3

    def test_a_rename_is_stored_normalised(self, admin_client, league):
        bob = Player.objects.get(name="Bob")
        assert rename_player(admin_client, bob, "  Robert   Jones ").status_code == 302
        bob.refresh_from_db()
        assert (bob.name, bob.key) == ("Robert Jones", "robert jones")


class TestStandingsFollowEveryChangeTheyShow:
    def etag_then_changed(self, client, change):
        cache.clear()
        page = client.get(reverse("matches:standings"))
        json = client.get(reverse("matches:api_standings"))
        change()
        again = client.get(reverse("matches:standings"), HTTP_IF_NONE_MATCH=page["ETag"])
        again_json = client.get(reverse("matches:api_standings"), HTTP_IF_NONE_MATCH=json["ETag"])
        assert again.status_code == 200 and again_json.status_code == 200
        return again.content.decode(), again_json.json()

    def test_a_player_renamed_in_the_admin(self, admin_client, league):
        bob = Player.objects.get(name="Bob")
        page, data = self.etag_then_changed(
            admin_client, lambda: rename_player(admin_client, bob, "Robert")
        )
        assert "Robert" in page and ">Bob<" not in page
        assert [row["player"] for row in data["rows"]] == ["Ann", "Robert", "Cy"]

    def test_a_new_table(self, admin_client, league):
        page, _ = self.etag_then_changed(
            admin_client, lambda: make_table(name="Snug bar", players=["Ann", "Bob", "Cy"])
        )
        assert "Snug bar" in page

    def test_a_table_renamed_in_the_admin(self, admin_client, league):
        def rename():
            data = {
                "name": "Back room",
                "mode": league.mode,
                "created_by": league.created_by_id,
                "_save": "Save",
            }
            response = admin_client.post(
                reverse("admin:matches_table_change", args=[league.pk]), data
            )
            assert response.status_code == 302

        page, _ = self.etag_then_changed(admin_client, rename)
        assert "Back room" in page and "Front bar" not in page

    def test_a_closed_table_renamed_in_the_admin(self, admin_client, league):
        stamp = core_stamp.standings_stamp()
        table_close(table_id=league.pk, by=league.created_by)
        closed = core_stamp.standings_stamp()
        assert closed != stamp
        data = {"name": "Back room", "mode": league.mode, "created_by": league.created_by_id}
        url = reverse("admin:matches_table_change", args=[league.pk])
        assert admin_client.post(url, data).status_code == 302
        assert Table.objects.get().name == "Back room"
        assert core_stamp.standings_stamp() != closed


class TestClosedTablesStayClosedInTheAdmin:
    """Closing discarded the open match: a table reopened by clearing closed_at would have
    nothing to tap, so the admin shows closed_at and never writes it."""

    def test_clearing_closed_at_leaves_the_table_closed(self, admin_client, league):
        table_close(table_id=league.pk, by=league.created_by)
        closed_at = Table.objects.get().closed_at
        data = {
            "name": league.name,
            "mode": league.mode,
            "created_by": league.created_by_id,
            "closed_at_0": "",
            "closed_at_1": "",
        }
        url = reverse("admin:matches_table_change", args=[league.pk])
        assert admin_client.post(url, data).status_code == 302
        assert Table.objects.get().closed_at == closed_at
        page = admin_client.get(url).content.decode()
        assert 'name="closed_at_0"' not in page and 'name="name"' in page

    def test_an_open_table_cannot_be_closed_from_the_admin_either(self, admin_client, league):
        data = {
            "name": league.name,
            "mode": league.mode,
            "created_by": league.created_by_id,
            "closed_at_0": "2026-01-01",
            "closed_at_1": "12:00:00",
        }
        url = reverse("admin:matches_table_change", args=[league.pk])
        assert admin_client.post(url, data).status_code == 302
        assert Table.objects.get().closed_at is None
        assert league.matches.open().count() == 1

    def test_one_helper_other_code_can_call(self, db):
        stamp = core_stamp.standings_stamp()
        core_stamp.standings_changed()
        assert core_stamp.standings_stamp() != stamp


class TestTablePagesFollowAdminEdits:
    """The table page, the TV page and the table's JSON answer 304 until the table's change
    counter moves: an admin edit of what they show moves it."""

    def tags_then_changed(self, table, change):
        # Read by a spectator: the admin's own pages carry its "changed" message.
        reader = FormClient()
        names = ("matches:table", "matches:tv", "matches:api_table")
        urls = [reverse(name, args=[table.pk]) for name in names]
        reader.get(urls[0])  # its CSRF cookie is part of what the table page is for
        tags = [reader.get(url)["ETag"] for url in urls]
        change()
        return [
            reader.get(url, HTTP_IF_NONE_MATCH=tag) for url, tag in zip(urls, tags, strict=True)
        ]

    def test_a_player_renamed_in_the_admin(self, admin_client, league):
        cy = Player.objects.get(name="Cy")
        answers = self.tags_then_changed(league, lambda: rename_player(admin_client, cy, "Cyril"))
        assert [a.status_code for a in answers] == [200, 200, 200]
        assert "Cyril" in answers[0].content.decode() and "Cyril" in answers[1].content.decode()

    def test_a_player_renamed_changes_only_the_tables_they_played_at(self, admin_client, league):
        other = make_table(name="Snug", players=["Dee", "Eve", "Fay"])
        version = other.version
        rename_player(admin_client, Player.objects.get(name="Cy"), "Cyril")
        other.refresh_from_db()
        assert other.version == version

    def test_a_table_renamed_in_the_admin(self, admin_client, league):
        def rename():
            data = {"name": "Back room", "mode": league.mode, "created_by": league.created_by_id}
            url = reverse("admin:matches_table_change", args=[league.pk])
            assert admin_client.post(url, data).status_code == 302

        answers = self.tags_then_changed(league, rename)
        assert [a.status_code for a in answers] == [200, 200, 200]
        assert answers[2].json()["name"] == "Back room"

    def test_a_tap_between_the_forms_read_and_its_save_is_not_taken_back(
        self, admin_client, league, monkeypatch
    ):
        """A tap commits after the admin read the row and before it saves: the table's
        version counts both writes, so no two states share one tag."""
        from matches.admin import TableAdmin

        read = TableAdmin.get_object

        def read_then_a_tap(admin, request, object_id, from_field=None):
            table = read(admin, request, object_id, from_field)
            tap(league, "Ann")
            return table

        monkeypatch.setattr(TableAdmin, "get_object", read_then_a_tap)
        before = Table.objects.get().version
        data = {"name": "Back room", "mode": league.mode, "created_by": league.created_by_id}
        url = reverse("admin:matches_table_change", args=[league.pk])
        assert admin_client.post(url, data).status_code == 302
        assert Table.objects.get().version == before + 2

    def test_the_mode_of_a_table_is_not_editable(self, admin_client, league):
        # The standings counted every filed match by the mode it was played in.
        other = "winner_takes_all" if league.mode == "ranked" else "ranked"
        data = {"name": league.name, "mode": other, "created_by": league.created_by_id}
        admin_client.post(reverse("admin:matches_table_change", args=[league.pk]), data)
        assert Table.objects.get().mode == league.mode
        assert integrity.integrity_problems() == []


class TestMatchesAreReadOnlyInTheAdmin:
    """Seats and taps are written by the services (tallies, the table's change counter): the
    match's admin page shows them and offers no field, add or delete to change them."""

    def test_seats_and_taps_are_shown_without_a_field_to_edit(self, admin_client, league):
        match = league.matches.get(number=1)  # filed: Cy out third, Bob second, Ann won
        url = reverse("admin:matches_match_change", args=[match.pk])
        page = admin_client.get(url).content.decode()
        for field in ("place", "player", "position", "DELETE"):
            assert f'name="seats-0-{field}"' not in page, field
            assert f'name="taps-0-{field}"' not in page, field
        assert "Cy" in page and "Bob" in page


class TestNameTakenBetweenCheckAndSave:
    """Two admins renaming to the same name at once: the second save meets the unique key
    after its check found the name free. It gets the check's form error, never a 500."""

    @pytest.fixture
    def taken_after_the_check(self):
        check = PlayerForm.clean_name

        def check_then_taken(form):
            name = check(form)
            Player.objects.create(name="DORA")  # stands in for the other admin's save
            return name

        with mock.patch.object(PlayerForm, "clean_name", check_then_taken):
            yield

    def test_a_rename_is_a_form_error(self, admin_client, league, taken_after_the_check):
        bob = Player.objects.get(name="Bob")
        response = rename_player(admin_client, bob, "Dora")
        assert response.status_code == 200
        assert (
            "Another player is already called “DORA” (names ignore upper and lower case); "
            "choose a different name."
        ) in response.content.decode()
        bob.refresh_from_db()
        assert bob.name == "Bob"

    def test_an_added_player_is_a_form_error(self, admin_client, league, taken_after_the_check):
        response = admin_client.post(
            reverse("admin:matches_player_add"), {"name": "dora", "_save": "Save"}
        )
        assert response.status_code == 200
        assert "Another player is already called “DORA”" in response.content.decode()
        assert not Player.objects.filter(name="dora").exists()


class TestAdminLoginRefusesAUsernameLongerThanAnyAccount:
    """/admin/login/ once answered 500 on PostgreSQL for a username over 255 characters
    (django-axes records it in a 255-character column)."""

    def test_refused_as_a_wrong_login_and_nothing_recorded(self, host):
        from axes.models import AccessAttempt, AccessFailureLog

        response = FormClient().post(
            reverse("admin:login"),
            {"username": "a" * 300, "password": "x", "next": reverse("admin:index")},
        )
        assert response.status_code == 200
        assert "Please enter the correct username and password for a staff account" in (
            response.content.decode()
        )
        assert AccessAttempt.objects.count() == 0
        assert AccessFailureLog.objects.count() == 0

    def test_a_staff_host_still_logs_in(self, host):
        host.is_staff = True
        host.save()
        response = FormClient().post(
            reverse("admin:login"),
            {"username": "host", "password": "a-long-test-password"},
        )
        assert response.status_code == 302


@pytest.fixture
def superuser_client(admin_client) -> FormClient:
    """The superuser's browser, as the read-only results' tests name it."""
    return admin_client


class TestResultAdminsAreReadOnly:
    """A match deleted (or a seat, tap or tally edited) in the admin once left aggregates
    nothing could repair. Results change only through the app's undo and
    correction; the admin shows them, even to a superuser, and refuses every write."""

    MODELS = ("match", "seat", "tap", "dailytally", "alltimetotal")

    def targets(self, table: Table) -> dict[str, int]:
        match = table.matches.get(number=1)
        seat = match.seats.get(place=1)
        return {
            "match": match.pk,
            "seat": seat.pk,
            "tap": match.taps.order_by("pk").first().pk,
            "dailytally": DailyTally.objects.get(player=seat.player_id).pk,
            "alltimetotal": AllTimeTotal.objects.get(player=seat.player_id).pk,
        }

    @pytest.mark.parametrize("model", MODELS)
    def test_a_superuser_cannot_delete_a_result(self, superuser_client, host, model):
        table = filed_league(host)
        pk = self.targets(table)[model]
        before = everything_kept()
        url = reverse(f"admin:matches_{model}_delete", args=[pk])
        assert superuser_client.get(url).status_code == 403
        assert superuser_client.post(url, {"post": "yes"}).status_code == 403
        assert everything_kept() == before
        assert integrity.integrity_problems() == []

    def test_a_superuser_cannot_delete_matches_from_the_list_either(self, superuser_client, host):
        table = filed_league(host)
        before = everything_kept()
        response = superuser_client.post(
            reverse("admin:matches_match_changelist"),
            {
                "action": "delete_selected",
                "_selected_action": list(table.matches.values_list("pk", flat=True)),
                "post": "yes",
            },
        )
        assert response.status_code in (200, 302)
        assert everything_kept() == before

    def test_a_superuser_cannot_change_a_seats_place(self, superuser_client, host):
        table = filed_league(host)
        seat = table.matches.get(number=1).seats.get(place=1)
        before = everything_kept()
        response = superuser_client.post(
            reverse("admin:matches_seat_change", args=[seat.pk]),
            {"match": seat.match_id, "player": seat.player_id, "position": 0, "place": 4},
        )
        assert response.status_code == 403
        assert everything_kept() == before

    def test_a_superuser_cannot_change_a_tally(self, superuser_client, host):
        table = filed_league(host)
        tally = DailyTally.objects.get(pk=self.targets(table)["dailytally"])
        before = everything_kept()
        response = superuser_client.post(
            reverse("admin:matches_dailytally_change", args=[tally.pk]),
            {"player": tally.player_id, "table": table.pk, "day": str(tally.day), "played": 9,
             "wins": 9, "seconds": 0, "thirds": 0, "points": 27},
        )  # fmt: skip
        assert response.status_code == 403
        assert everything_kept() == before

    @pytest.mark.parametrize("model", MODELS)
    def test_nothing_can_be_added(self, superuser_client, host, model):
        filed_league(host)
        assert superuser_client.get(reverse(f"admin:matches_{model}_add")).status_code == 403

    @pytest.mark.parametrize("model", MODELS)
    def test_results_are_still_shown(self, superuser_client, host, model):
        table = filed_league(host)
        pk = self.targets(table)[model]
        listing = superuser_client.get(reverse(f"admin:matches_{model}_changelist"))
        assert listing.status_code == 200
        page = superuser_client.get(reverse(f"admin:matches_{model}_change", args=[pk]))
        assert page.status_code == 200
        html = page.content.decode()
        assert 'name="_save"' not in html and "deletelink" not in html
