"""The public audit of a match: a match number used again keeps its games apart, and
spectators see hosts' display names, never their usernames."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from matches.models import (
    HostProfile,
    Table,
    Tap,
)
from matches.play.services.tables import table_close, table_reopen
from matches.play.services.undo import table_undo_last
from tests.clients import FormClient
from tests.factories import make_host, make_table, open_match, tap, venue_roles_form

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


CLOSED_HEADING = "Match 2, discarded when the table was closed"
UNDONE_HEADING = "Match 2, discarded when the crowning before it was undone"
OLD_REASON = "(in a match opened and then discarded when the crowning before it was undone)"


def close_mid_match_then_reopen(table: Table) -> None:
    """Match 1 filed (Dev wins), Ben out in match 2, the table closed (match 2 discarded with
    Ben's tap) and reopened: a new match 2."""
    for name in ["Ben", "Alice", "Cara"]:
        tap(table, name)
    tap(table, "Ben")
    discarded = open_match(table)
    table_close(table_id=table.pk, by=table.created_by, discard_match_id=discarded.pk)
    table_reopen(table_id=table.pk, by=table.created_by)


def audit_page(client, table: Table, number: int = 2) -> str:
    response = client.get(reverse("matches:match", args=[table.pk, number]))
    assert response.status_code == 200
    return response.content.decode()


class TestTheAuditOfAMatchNumberUsedAgainKeepsTheGamesApart:
    """After a close mid-match and a reopen, /tables/<id>/matches/<n>/ once mixed the
    taps of the discarded match n with the new match n, and said the discarded one went
    "when the crowning before it was undone"."""

    def test_the_new_match_and_the_one_the_close_discarded_are_listed_apart(self, host, client):
        table = make_table(host=host)
        close_mid_match_then_reopen(table)
        for name in ["Alice", "Cara", "Dev"]:
            tap(table, name)  # the new match 2: Ben wins it
        html = audit_page(client, table)
        assert "Winner: <strong><bdi>Ben</bdi></strong>" in html
        assert OLD_REASON not in html and UNDONE_HEADING not in html
        played, discarded = html.split(CLOSED_HEADING)
        played = played.split("Audit trail", 1)[1]  # the heading, then its scrolling box
        assert re.findall(r"<bdi>(\w+)</bdi> out", played) == ["Alice", "Cara", "Dev"]
        assert re.findall(r"<bdi>(\w+)</bdi> out", discarded) == ["Ben"]
        assert "None of its taps counted." in discarded

    def test_the_open_match_after_a_reopen_has_no_taps_of_the_discarded_one(self, host, client):
        table = make_table(host=host)
        close_mid_match_then_reopen(table)
        html = audit_page(client, table)
        played, discarded = html.split(CLOSED_HEADING)
        assert "No taps in this match." in played
        assert "<bdi>Ben</bdi> out" not in played
        assert re.findall(r"<bdi>(\w+)</bdi> out", discarded) == ["Ben"]

    def test_an_undone_crowning_still_gives_the_undo_as_the_reason(self, host, client):
        table = make_table(host=host)
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        tap(table, "Dev")  # match 2
        table_undo_last(table_id=table.pk, tap_id=None, by=host)  # Dev back
        table_undo_last(table_id=table.pk, tap_id=None, by=host)  # the crowning
        tap(table, "Cara")  # crowned again: a new match 2
        html = audit_page(client, table)
        assert CLOSED_HEADING not in html
        played, discarded = html.split(UNDONE_HEADING)
        assert "<bdi>Dev</bdi> out" not in played
        assert re.findall(r"<bdi>(\w+)</bdi> out", discarded) == ["Dev"]

    def test_the_page_reads_in_the_same_queries_however_many_games_used_the_number(
        self, host, client, django_assert_num_queries
    ):
        table = make_table(host=host)
        close_mid_match_then_reopen(table)
        with django_assert_num_queries(4):
            audit_page(client, table)
        for _ in range(2):  # twice more: Alice out in match 2, closed, reopened
            tap(table, "Alice")
            match = open_match(table)
            table_close(table_id=table.pk, by=host, discard_match_id=match.pk)
            table_reopen(table_id=table.pk, by=host)
        with django_assert_num_queries(4):
            html = audit_page(client, table)
        assert html.count(CLOSED_HEADING) == 3


def audited_match(pat, sam) -> Table:
    """Match 1 of Pat's table: Ben tapped out and the tap undone, each queued on Sam's tablet
    and sent by Pat; then Alice tapped by Pat herself."""
    table = make_table(host=pat)
    ben = tap(table, "Ben").tap
    Tap.objects.filter(pk=ben.pk).update(queued_by=sam)
    table_undo_last(table_id=table.pk, tap_id=ben.pk, by=pat, queued_by=sam)
    tap(table, "Alice")
    return table


class TestPublicAuditShowsNoUsernames:
    """/tables/<id>/matches/<n>/ once showed every spectator the login username of each
    host who tapped, undid or queued: half of a credential. The public sees the display name
    the host chose (or "host"); logged-in hosts see who."""

    @pytest.fixture
    def pat(self):
        pat = make_host("pat.login")
        HostProfile.objects.create(user=pat, display_name="Pat")
        return pat

    @pytest.fixture
    def sam(self):
        return make_host("sam.login")  # chose no display name

    def test_a_spectator_sees_display_names_never_usernames(self, client, pat, sam):
        table = audited_match(pat, sam)
        html = audit_page(client, table, 1)
        assert "pat.login" not in html and "sam.login" not in html
        assert "<td>Pat (queued by host)</td>" in html  # Ben's tap
        assert "by Pat (queued by host), " in html  # its undo
        assert "<td>Pat</td>" in html  # Alice's tap

    def test_a_logged_in_host_sees_the_usernames(self, pat, sam):
        table = audited_match(pat, sam)
        client = FormClient()
        client.force_login(sam)  # any host, not only the table's
        html = audit_page(client, table, 1)
        assert "<td>pat.login (queued by sam.login)</td>" in html
        assert "by pat.login (queued by sam.login), " in html
        assert "<td>pat.login</td>" in html

    def test_the_first_host_chooses_a_display_name_at_setup(self, client):
        data = {
            "username": "pat.login",
            "display_name": "  Pat  ",
            "password1": "a-long-test-password",
            "password2": "a-long-test-password",
        }
        assert client.post(reverse("matches:setup"), data).status_code == 302
        pat = get_user_model().objects.get()
        assert HostProfile.objects.get(user=pat).display_name == "Pat"
        table = make_table(host=pat)
        tap(table, "Ben")
        html = audit_page(FormClient(), table, 1)
        assert "<td>Pat</td>" in html and "pat.login" not in html

    @pytest.mark.parametrize("display_name", ["pat.login", "PAT.LOGIN"])
    def test_setup_refuses_the_username_as_display_name(self, client, display_name):
        data = {
            "username": "pat.login",
            "display_name": display_name,
            "password1": "a-long-test-password",
            "password2": "a-long-test-password",
        }
        response = client.post(reverse("matches:setup"), data)
        assert response.status_code == 200
        assert "it cannot be a host’s username" in response.content.decode()
        assert not get_user_model().objects.exists() and not HostProfile.objects.exists()

    def admin_saves(self, client, user, display_name: str):
        data = {
            "username": user.username,
            "is_active": "on",
            "date_joined_0": "2026-12-01",
            "date_joined_1": "20:00:00",
            "host_profile-TOTAL_FORMS": "1",
            "host_profile-INITIAL_FORMS": "0",
            "host_profile-MIN_NUM_FORMS": "0",
            "host_profile-MAX_NUM_FORMS": "1",
            "host_profile-0-user": str(user.pk),
            "host_profile-0-display_name": display_name,
            "_save": "Save",
            **venue_roles_form(user),
        }
        return client.post(reverse("admin:auth_user_change", args=[user.pk]), data)

    def test_an_admin_sets_a_hosts_display_name(self, sam):
        boss = get_user_model().objects.create_superuser(username="boss", password="x-long-pw-1")
        client = FormClient()
        client.force_login(boss)
        assert self.admin_saves(client, sam, "Sam").status_code == 302
        assert HostProfile.objects.get(user=sam).display_name == "Sam"
        refused = self.admin_saves(client, sam, "Boss")  # another host's username
        assert refused.status_code == 200
        assert "it cannot be a host’s username" in refused.content.decode()
        assert HostProfile.objects.get(user=sam).display_name == "Sam"
