"""A correction is a record of its own, beside the taps, which are never rewritten: what the
database keeps, what the match page shows a host and a spectator (the taps as tapped, then
who corrected and when), the confirmation every correction asks for (the new places and
points, the later matches replayed; nothing saved before it), and an undo and the integrity
check reading the corrected order from the correction."""

import re

import pytest
from django.urls import reverse

from matches.integrity import integrity_problems
from matches.models import MatchCorrection, Player, Seat, Tap
from matches.play.services.undo import table_undo_last
from matches.ratings.audit import rating_problems
from matches.results import public_names
from tests.factories import make_table, open_match, places, tap, the_organiser, written

pytestmark = pytest.mark.django_db

# Tapped out Zoe, then Gonçalo, then Priya (2nd): Ann won. The host then finds Priya went
# out before Gonçalo: Zoe, Priya, Gonçalo, Ann.
TAPPED = ["Zoe", "Gonçalo", "Priya"]
CORRECTED = "Zoe\nPriya\nGonçalo\nAnn"


def correct_url(table, number=1):
    return reverse("matches:match_correct", args=[table.pk, number])


def match_url(table, number=1):
    return reverse("matches:match", args=[table.pk, number])


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def live_taps(table, number=1) -> list[tuple[str, int]]:
    return list(
        Tap.objects.filter(match__table=table, match__number=number, undone_at__isnull=True)
        .order_by("id")
        .values_list("player__name", "place")
    )


@pytest.fixture
def table(host):
    """Match 1 filed as tapped; match 2 open, nobody out yet."""
    table = make_table(host=host, players=["Ann", "Gonçalo", "Priya", "Zoe"])
    for name in TAPPED:
        tap(table, name)
    return table


def confirm(client, table, players=CORRECTED, number=1):
    return client.post(correct_url(table, number), {"players": players, "confirm": "1"})


class TestTheTapsStayAsTapped:
    def test_the_database_keeps_who_was_tapped_and_the_correction_apart(self, host_client, table):
        assert confirm(host_client, table).status_code == 302
        assert live_taps(table) == [("Zoe", 4), ("Gonçalo", 3), ("Priya", 2)]
        assert places(table.matches.filed().get(number=1)) == {
            "Zoe": 4, "Priya": 3, "Gonçalo": 2, "Ann": 1
        }  # fmt: skip
        correction = MatchCorrection.objects.get()
        seat = dict(Seat.objects.filter(match__number=1).values_list("pk", "player__name"))
        assert [seat[pk] for pk in correction.before_seats] == ["Zoe", "Gonçalo", "Priya", "Ann"]
        assert [seat[pk] for pk in correction.after_seats] == ["Zoe", "Priya", "Gonçalo", "Ann"]
        crowning = Tap.objects.get(match__number=1, place=2)
        assert correction.through_tap_id == crowning.pk
        assert integrity_problems() == [] and rating_problems() == []

    def test_the_host_reads_the_taps_then_who_corrected_and_when(self, host_client, table):
        confirm(host_client, table)
        page = text(host_client.get(match_url(table)))
        audit = page[page.index("Audit trail") :]
        assert re.search(r"Zoe out, 4th .*Gonçalo out, 3rd .*Priya out, 2nd ", audit)
        assert "Gonçalo out, 2nd" not in page and "Priya out, 3rd" not in page
        # The correction comes after the taps it corrected.
        corrected = audit.index("Corrected by host,")
        assert corrected > audit.index("Priya out, 2nd")
        assert "Order before: Zoe , Gonçalo , Priya , Ann ." in audit[corrected:]
        assert "Order after: Zoe , Priya , Gonçalo , Ann ." in audit[corrected:]

    def test_a_spectator_reads_the_same_record_with_the_public_s_names(
        self, host, host_client, client, table
    ):
        priya = Player.objects.get(name="Priya")
        public_names.player_set_public_name(
            player_id=priya.pk, public_name="", hidden=True, by=the_organiser()
        )
        confirm(host_client, table)
        page = text(client.get(match_url(table)))
        shown = f"Player {priya.pk}"
        assert "Priya" not in page
        audit = page[page.index("Audit trail") :]
        assert re.search(rf"Gonçalo out, 3rd .*{shown} out, 2nd ", audit)
        corrected = audit.index("Corrected by host,")
        assert f"Order after: Zoe , {shown} , Gonçalo , Ann ." in audit[corrected:]
        assert "Correct this match" not in page

    def test_the_match_page_reads_the_record_in_a_fixed_number_of_queries(
        self, host_client, client, table, django_assert_num_queries
    ):
        confirm(host_client, table)
        client.get(match_url(table))  # what a process learns once
        with django_assert_num_queries(5):
            client.get(match_url(table))
        confirm(host_client, table, "Priya\nZoe\nGonçalo\nAnn")
        with django_assert_num_queries(5):
            client.get(match_url(table))


class TestTheConfirmation:
    def test_posting_an_order_shows_the_new_places_and_points_and_saves_nothing(
        self, host_client, table
    ):
        tap(table, "Ann")  # match 2 goes on: no later match filed yet
        before = written()
        response = host_client.post(correct_url(table), {"players": CORRECTED})
        assert response.status_code == 200
        assert written() == before
        assert not MatchCorrection.objects.exists()
        assert live_taps(table) == [("Zoe", 4), ("Gonçalo", 3), ("Priya", 2)]
        page = text(response)
        assert "Correct match 1?" in page
        assert "Nothing is saved until you confirm." in page
        rows = re.findall(
            r"<tr(?: class=\"moved\")?>\s*(.*?)</tr>", response.content.decode(), re.S
        )
        cells = [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip() for row in rows]
        assert cells == [
            "Place Player Points As filed",
            "1st Ann 3 1st · 3",
            "2nd Gonçalo 2 3rd · 1",
            "3rd Priya 1 2nd · 2",
            "4th Zoe 0 4th · 0",
        ]
        assert response.content.decode().count('class="moved"') == 2
        assert "The ratings of this match and of 0 later matches are counted again." in page
        html = response.content.decode()
        field = re.search(r'<textarea name="players" hidden>(.*?)</textarea>', html, re.S)
        assert field.group(1).split() == ["Zoe", "Priya", "Gonçalo", "Ann"]
        assert '<input type="hidden" name="confirm" value="1">' in html

    def test_it_counts_every_later_match_of_the_league(self, host, host_client, table):
        for name in ["Ann", "Zoe", "Priya"]:
            tap(table, name)  # match 2 filed after match 1
        other = make_table(host=host, players=["Uma", "Vic", "Wes"], name="Snug")
        tap(other, "Uma")
        tap(other, "Vic")  # the snug's match 1, filed last
        page = text(host_client.post(correct_url(table), {"players": CORRECTED}))
        assert "The ratings of this match and of 2 later matches are counted again." in page
        one = text(host_client.post(correct_url(table, 2), {"players": "Zoe\nAnn\nPriya\nGonçalo"}))
        assert "The ratings of this match and of 1 later match are counted again." in one

    def test_the_confirmation_reads_in_a_fixed_number_of_queries(
        self, host, host_client, table, django_assert_num_queries
    ):
        host_client.post(correct_url(table), {"players": CORRECTED})  # a session's first reads
        with django_assert_num_queries(9):  # 8, and the host's venue roles
            host_client.post(correct_url(table), {"players": CORRECTED})
        for name in ["Ann", "Zoe", "Priya"]:
            tap(table, name)
        with django_assert_num_queries(9):  # 8, and the host's venue roles
            host_client.post(correct_url(table), {"players": CORRECTED})

    def test_only_the_confirmation_saves(self, host_client, table):
        page = host_client.post(correct_url(table), {"players": CORRECTED}).content.decode()
        sent = re.search(r'<textarea name="players" hidden>\n(.*?)</textarea>', page, re.S)
        response = confirm(host_client, table, sent.group(1))
        assert response.status_code == 302 and response["Location"] == match_url(table)
        assert MatchCorrection.objects.count() == 1
        assert "Match 1 corrected." in text(host_client.get(match_url(table)))

    def test_a_refused_order_shows_the_form_again_and_no_confirmation(self, host_client, table):
        before = written()
        response = host_client.post(correct_url(table), {"players": "Zoe\nPriya\nAnn"})
        assert response.status_code == 200
        assert "Confirm correction" not in response.content.decode()
        assert "List exactly the players who sat in match 1" in text(response)
        assert written() == before

    def test_it_speaks_portuguese(self, host_client, table):
        response = host_client.post(
            correct_url(table), {"players": CORRECTED}, HTTP_ACCEPT_LANGUAGE="pt"
        )
        page = text(response)
        assert "Corrigir a partida 1?" in page
        assert "Nada fica guardado até confirmar." in page
        assert "Os ratings desta partida e de 0 partidas seguintes são recalculados." in (page)


class TestUndoReadsTheCorrection:
    def test_undo_puts_back_the_player_the_correction_put_in_the_tap_s_place(
        self, host, host_client, table
    ):
        confirm(host_client, table)
        board = text(host_client.get(reverse("matches:table", args=[table.pk])))
        assert "Undo Gonçalo out — reopens match 1" in board
        crowning = Tap.objects.get(match__number=1, place=2)
        response = host_client.post(
            reverse("matches:undo", args=[table.pk]), {"tap": crowning.pk}, follow=True
        )
        assert "Undone: Gonçalo is back and match 1 is open again." in text(response)
        reopened = open_match(table)
        assert reopened.number == 1
        assert places(reopened) == {"Zoe": 4, "Priya": 3, "Gonçalo": None, "Ann": None}
        assert integrity_problems() == []
        # Gonçalo, tapped 3rd before the correction, is tapped again in 2nd: both taps stand.
        tap(table, "Gonçalo")
        assert live_taps(table) == [("Zoe", 4), ("Gonçalo", 3), ("Gonçalo", 2)]
        assert places(table.matches.filed().get(number=1)) == {
            "Zoe": 4, "Priya": 3, "Gonçalo": 2, "Ann": 1
        }  # fmt: skip
        assert integrity_problems() == [] and rating_problems() == []
        # And back again, tap by tap, each undo naming who stands again.
        table_undo_last(table_id=table.pk, tap_id=None, by=host, drop_roster=True)
        outcome = table_undo_last(table_id=table.pk, tap_id=None, by=host)
        assert outcome.player.name == "Priya"
        assert places(open_match(table)) == {"Zoe": 4, "Priya": None, "Gonçalo": None, "Ann": None}
        assert integrity_problems() == []

    def test_closing_the_reopened_match_names_who_is_out_now(self, host, host_client, table):
        confirm(host_client, table)
        table_undo_last(table_id=table.pk, tap_id=None, by=host, drop_roster=True)
        before = written()
        response = host_client.post(reverse("matches:close", args=[table.pk]), follow=True)
        assert "Match 1 is under way (out so far: Zoe, Priya)." in text(response)
        assert written() == before


class TestIntegrityReadsTheCorrection:
    def test_a_correction_that_disagrees_with_the_seats_is_found(self, host_client, table):
        confirm(host_client, table)
        correction = MatchCorrection.objects.get()
        # Priya and Zoe swapped in the correction only: Zoe's tap (4th) now reads Priya's
        # seat, which is 3rd.
        after = correction.after_seats
        swapped = [after[1], after[0], *after[2:]]
        MatchCorrection.objects.filter(pk=correction.pk).update(after_seats=swapped)
        problems = integrity_problems()
        assert any(
            "the seats disagree on who is out in Zoe's tap's place (4)" in p for p in problems
        )

    def test_a_tap_renamed_behind_the_correction_s_back_is_found_when_uncovered(
        self, host_client, table
    ):
        """A tap made after the correction names its own player: renaming it is damage."""
        confirm(host_client, table)
        crowning = Tap.objects.get(match__number=1, place=2)
        table_undo_last(table_id=table.pk, tap_id=crowning.pk, by=table.created_by)
        tap(table, "Gonçalo")
        again = Tap.objects.get(match__number=1, place=2, undone_at__isnull=True)
        Tap.objects.filter(pk=again.pk).update(player=Player.objects.get(name="Ann"))
        assert any("Ann's tap and seat disagree on the place" in p for p in integrity_problems())
