"""An erasure takes every name the record ever had, not only its name today: a correction made
before a rename, the admin's history of the rename (the app's and the admin's own), a merge
and a merge undone, a table named after the player; what the database keeps and what the
match page shows a host and a spectator afterwards."""

import json
import re
import unicodedata
from io import StringIO

import pytest
from django.contrib.admin.models import LogEntry
from django.core.management import call_command
from django.urls import reverse

from matches.integrity import integrity_problems
from matches.models import Player
from matches.play import corrections
from matches.results import public_names
from matches.results.players import services as players
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def stored() -> str:
    """Every row the app and the admin's history keep, as text."""
    out = StringIO()
    call_command("dumpdata", "matches", "admin", stdout=out)
    return fold(json.dumps(json.loads(out.getvalue()), ensure_ascii=False))


@pytest.fixture
def league(host):
    """Match 1 at the front bar (Zoe, then Gonçalo, then Priya tapped out: Ann won),
    corrected (Priya out before Gonçalo); a table named for Priya's birthday."""
    table = make_table(host=host, players=["Ann", "Gonçalo", "Priya", "Zoe"])
    for name in ["Zoe", "Gonçalo", "Priya"]:
        tap(table, name)
    corrections.match_correct(
        table_id=table.pk, number=1, names=["Zoe", "Priya", "Gonçalo", "Ann"], by=host
    )
    party = make_table(host=host, players=["Priya", "Uma", "Vic"], name="Priya birthday")
    return {"table": table, "party": party, "priya": Player.objects.get(name="Priya")}


class TestEveryEarlierName:
    def test_a_correction_then_a_rename_then_the_erasure(
        self, league, host, host_client, client, admin_client
    ):
        priya = league["priya"]
        players.player_rename(player_id=priya.pk, name="Priya Shah", by=host)
        match = reverse("matches:match", args=[league["table"].pk, 1])
        assert "Order after: Zoe , Priya Shah , Gonçalo , Ann ." in text(host_client.get(match))

        response = admin_client.post(reverse("matches:player_erase", args=[priya.pk]))
        assert response.status_code == 302
        former = f"Former player {priya.pk}"
        assert "priya" not in stored()
        for viewer in (host_client, client):
            page = text(viewer.get(match))
            assert "priya" not in fold(page)
            assert f"Order before: Zoe , Gonçalo , {former} , Ann ." in page
            assert f"Order after: Zoe , {former} , Gonçalo , Ann ." in page
        league["party"].refresh_from_db()
        assert league["party"].name == f"{former} birthday"
        assert integrity_problems() == []

    def test_a_rename_in_the_admin_and_a_merge_undone(self, league, host, admin_client):
        priya = league["priya"]
        url = reverse("admin:matches_player_change", args=[priya.pk])
        assert admin_client.post(url, {"name": "P. Shah"}).status_code == 302
        # Another record of her, merged in and given back: the merge kept it as it was.
        snug = make_table(host=host, players=["Priya Devi", "Uma", "Wes"], name="Snug")
        tap(snug, "Uma")
        tap(snug, "Wes")
        merge = players.player_merge(keep_id=priya.pk, other_name="Priya Devi", by=host)
        players.player_merge_undo(merge_id=merge.pk, by=host)
        devi = Player.objects.get(name="Priya Devi")
        players.player_merge(keep_id=priya.pk, other_name="Priya Devi", by=host)
        assert "priya" in stored()

        assert admin_client.post(reverse("matches:player_erase", args=[priya.pk])).status_code == (
            302
        )
        assert "priya" not in stored() and "shah" not in stored()
        assert f"former player {devi.pk}" in stored()
        assert integrity_problems() == []

    def test_the_rename_is_in_the_admin_s_history_until_the_erasure(self, league, host):
        pk = league["priya"].pk
        players.player_rename(player_id=pk, name="Priya Shah", by=host)
        entry = LogEntry.objects.get(object_id=str(pk))
        assert (entry.object_repr, entry.change_message, entry.user) == (
            "Priya Shah",
            f"Renamed “Priya” (#{pk}) to “Priya Shah” (#{pk}).",
            host,
        )

    def test_the_public_never_read_the_name_of_a_hidden_player_s_correction(
        self, league, host, client
    ):
        """A spectator's page reads every player of the correction as the public reads them."""
        priya = league["priya"]
        players.player_rename(player_id=priya.pk, name="Priya Shah", by=host)
        public_names.player_set_public_name(
            player_id=priya.pk, public_name="", hidden=True, by=host
        )
        page = text(client.get(reverse("matches:match", args=[league["table"].pk, 1])))
        assert "priya" not in fold(page)
        assert f"Order after: Zoe , Player {priya.pk} , Gonçalo , Ann ." in page
