"""Player edits sent twice, undone in chains and corrected after the league moved on: each
takes effect once, in order, and the books stay square."""

import pytest
from django.urls import reverse

from matches.integrity import integrity_problems
from matches.models import MatchCorrection, Player, PlayerMerge, Table
from matches.play import corrections
from matches.play.services.tables import match_set_roster
from matches.play.services.undo import table_undo_last
from matches.ratings.audit import rating_problems
from matches.results.players import services as player_records
from tests.clients import FormClient
from tests.factories import body, make_table, pid, tap, written

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


class TestDoubleSubmits:
    def test_confirming_a_merge_twice_merges_once(self, table, host_client):
        make_table(players=["Zed", "Yan", "Xi"], name="Other")
        url = reverse("matches:player_merge", args=[pid("Alice")])
        data = {"other": "Zed", "other_id": pid("Zed"), "confirm": "1"}
        assert host_client.post(url, data).status_code == 302
        after = written()
        again = host_client.post(url, data)
        assert again.status_code == 400
        assert "There is no player called “Zed”" in body(again)
        assert written() == after and PlayerMerge.objects.count() == 1
        assert integrity_problems() == []

    def test_undoing_twice_undoes_once(self, table, host_client):
        make_table(players=["Zed", "Yan", "Xi"], name="Other")
        merge = player_records.player_merge(
            keep_id=pid("Alice"), other_name="Zed", by=table.created_by
        )
        url = reverse("matches:player_merge_undo", args=[merge.pk])
        assert host_client.post(url).status_code == 302
        after = written()
        response = host_client.post(url, follow=True)
        assert response.status_code == 200
        assert "already undone" in body(response)
        assert written() == after and integrity_problems() == []

    def test_erasing_twice_erases_once(self, table, admin_client):
        url = reverse("matches:player_erase", args=[pid("Alice")])
        alice = pid("Alice")
        assert admin_client.post(url).status_code == 302
        after = written()
        assert admin_client.post(url).status_code == 302
        assert admin_client.get(url).status_code == 302
        assert written() == after
        assert Player.objects.get(pk=alice).name == f"Former player {alice}"

    def test_a_correction_sent_twice_is_saved_once(self, table, host_client):
        url = reverse("matches:match_correct", args=[table.pk, 1])
        data = {"players": "Ben\nAlice\nCara\nDev", "confirm": "1"}
        assert host_client.post(url, data).status_code == 302
        after = written()
        again = host_client.post(url, data)
        assert again.status_code == 200 and "That is the order already filed" in body(again)
        assert written() == after and MatchCorrection.objects.count() == 1

    def test_a_match_of_a_table_closed_and_reopened_is_corrected(self, table, host_client, host):
        host_client.post(reverse("matches:close", args=[table.pk]))
        host_client.post(reverse("matches:reopen", args=[table.pk]))
        url = reverse("matches:match_correct", args=[table.pk, 1])
        response = host_client.post(url, {"players": "Ben\nAlice\nCara\nDev"})
        assert response.status_code in (200, 302)
        assert integrity_problems() == [] and rating_problems() == []

    def test_a_correction_then_the_undo_of_the_crowning_tap(self, table, host):
        """The correction and an undo of the table's latest tap (the crowning of match 1,
        now corrected) in turn: both locks are the table's, and the books stay square."""
        corrections.match_correct(
            table_id=table.pk, number=1, names=["Cara", "Alice", "Ben", "Dev"], by=host
        )
        table_undo_last(table_id=table.pk, tap_id=None, by=host, drop_roster=True)
        assert integrity_problems() == [] and rating_problems() == []
        reopened = table.matches.open().get()
        assert reopened.number == 1
        # The correction line of a match now in play again must not be read as filed.
        tap(table, "Ben")
        assert integrity_problems() == [] and rating_problems() == []


class TestMergeChains:
    @pytest.fixture
    def chain(self, host):
        make_table(host=host, players=["A1", "P1", "Q1"], name="t1")
        make_table(host=host, players=["B1", "P2", "Q2"], name="t2")
        make_table(host=host, players=["C1", "P3", "Q3"], name="t3")
        ab = player_records.player_merge(keep_id=pid("B1"), other_name="A1", by=host)
        bc = player_records.player_merge(keep_id=pid("C1"), other_name="B1", by=host)
        return ab, bc

    def test_undo_in_the_wrong_order_is_refused_and_the_right_one_works(self, chain, host_client):
        ab, bc = chain
        before = written()
        response = host_client.post(
            reverse("matches:player_merge_undo", args=[ab.pk]), {"back": "merges"}, follow=True
        )
        assert "undo that later merge first" in body(response)
        assert written() == before
        for merge in (bc, ab):
            host_client.post(reverse("matches:player_merge_undo", args=[merge.pk]))
        assert {"A1", "B1", "C1"} <= set(Player.objects.values_list("name", flat=True))
        assert integrity_problems() == [] and rating_problems() == []
        assert host_client.get(reverse("matches:player_merges")).status_code == 200

    def test_erase_the_end_of_a_chain_then_undo_both(self, chain, host, admin_client):
        ab, bc = chain
        c1 = pid("C1")
        admin_client.post(reverse("matches:player_erase", args=[c1]))
        for merge in (bc, ab):
            response = admin_client.post(
                reverse("matches:player_merge_undo", args=[merge.pk]), follow=True
            )
            assert response.status_code == 200
        names = set(Player.objects.values_list("name", flat=True))
        assert not names & {"A1", "B1", "C1"}, names
        for merge in PlayerMerge.objects.all():
            assert "A1" not in str(merge.absorbed) and "B1" not in merge.absorbed_name
        assert integrity_problems() == []
        merges_page = body(admin_client.get(reverse("matches:player_merges")))
        assert "A1" not in merges_page and "B1" not in merges_page and "C1" not in merges_page

    def test_erasing_leaves_a_record_unmerged_before_as_its_own_person(self, host, admin_client):
        """A merge undone said the two were two people: erasing one keeps the other's name."""
        make_table(host=host, players=["Kim", "P1", "R1"], name="t1")
        make_table(host=host, players=["Amir", "P2", "R2"], name="Amir night")
        merge = player_records.player_merge(keep_id=pid("Kim"), other_name="Amir", by=host)
        player_records.player_merge_undo(merge_id=merge.pk, by=host)
        admin_client.post(reverse("matches:player_erase", args=[pid("Kim")]))
        assert Table.objects.filter(name="Amir night").exists()
        merge.refresh_from_db()
        assert merge.absorbed_name == "Amir"

    def test_undo_then_erase_the_record_that_came_back(self, host, admin_client):
        make_table(host=host, players=["Zoë Marques", "P1", "R1"], name="t1")
        make_table(host=host, players=["Zoe M", "P2", "R2"], name="t2")
        merge = player_records.player_merge(keep_id=pid("Zoe M"), other_name="Zoë Marques", by=host)
        player_records.player_merge_undo(merge_id=merge.pk, by=host)
        admin_client.post(reverse("matches:player_erase", args=[pid("Zoë Marques")]))
        merge.refresh_from_db()
        assert "Zoë" not in merge.absorbed_name and "Zo" not in str(merge.absorbed.get("name"))
        page = body(admin_client.get(reverse("matches:player_merges")))
        assert "Zoë Marques" not in page


class TestCorrectionsAfterChanges:
    def test_after_the_next_match_s_roster_changed(self, table, host, host_client):
        match = table.matches.open().get()
        match_set_roster(
            table_id=table.pk,
            match_id=match.pk,
            player_names=["Ben", "Cara", "Dev", "Eve"],
            by=host,
        )
        url = reverse("matches:match_correct", args=[table.pk, 1])
        data = {"players": "Ben\nAlice\nCara\nDev", "confirm": "1"}
        assert host_client.post(url, data).status_code == 302
        assert integrity_problems() == [] and rating_problems() == []
        assert list(table.matches.open().get().seats.values_list("player__name", flat=True)) != []

    def test_a_match_with_an_erased_player_is_corrected_from_its_form(self, table, admin_client):
        alice = pid("Alice")
        admin_client.post(reverse("matches:player_erase", args=[alice]))
        url = reverse("matches:match_correct", args=[table.pk, 1])
        form = body(admin_client.get(url))
        assert f"Former player {alice}" in form
        data = {"players": f"Ben\nFormer player {alice}\nCara\nDev", "confirm": "1"}
        response = admin_client.post(url, data)
        assert response.status_code == 302
        assert integrity_problems() == []
        page = body(FormClient().get(reverse("matches:match", args=[table.pk, 1])))
        assert "Alice" not in page
