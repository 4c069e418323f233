"""A plain tap, and the undo of one, answer tonight's totals and the filed matches from what
the process read at the same stamp, table and night: they must show exactly what a fresh read
would, after a crowning, an undo of one, a rename and a new night."""

import datetime
import random
import re
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone

from matches.models import Player, Table, Tap
from matches.play import filings as table_filings
from matches.play.services.tables import match_set_roster
from matches.play.services.undo import table_undo_last
from matches.results.players import services as player_records
from matches.rules import nights as night_rules
from tests.clients import FormClient
from tests.factories import make_table, open_match, tap, the_organiser
from tests.web.test_views import (
    HTMX,
    KEPT_CROWNING_QUERIES,
    KEPT_TAP_QUERIES,
    UNDO_QUERIES,
    button_names,
    tap_form,
)

pytestmark = pytest.mark.django_db


def tonight_rows(html: str) -> list[tuple[str, str]]:
    """Tonight's table as (player, points) pairs, leader first."""
    section = re.search(r'<section class="tonight".*?</section>', html, re.S).group()
    return re.findall(
        r'<th scope="row">(?:<span[^>]*>♛</span> )?([^<]+)</th><td class="num">(\d+)</td>', section
    )


def filed_list(html: str) -> list[str]:
    section = re.search(r'<section class="recent".*?</section>', html, re.S)
    return re.findall(r"Match (\d+): <bdi>([^<]+)</bdi> won", section.group()) if section else []


def post_tap(client, table, name, form=None):
    url = reverse("matches:tap", args=[table.pk])
    return client.post(url, form or tap_form(table, name), **HTMX).content.decode()


def fresh(table) -> str:
    """The board as a fresh read renders it (a new process: nothing kept)."""
    table_filings.kept.clear()
    return FormClient().get(reverse("matches:table", args=[table.pk]), **HTMX).content.decode()


class TestKeptFilings:
    def test_a_second_plain_tap_reads_nothing_filed_and_shows_the_same(
        self, host_client, django_assert_num_queries
    ):
        table = make_table()  # Alice, Ben, Cara, Dev
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)  # match 1: Dev 3, Cara 2, Alice 1
        first = post_tap(host_client, table, "Ben")  # read afresh after the crowning
        form = tap_form(table, "Alice")
        with django_assert_num_queries(KEPT_TAP_QUERIES):
            second = post_tap(host_client, table, "Alice", form)
        expected = [("Dev", "3"), ("Cara", "2"), ("Alice", "1"), ("Ben", "0")]
        assert tonight_rows(first) == tonight_rows(second) == expected
        assert filed_list(second) == [("1", "Dev")]
        assert tonight_rows(fresh(table)) == expected

    def test_after_a_crowning_and_its_undo_a_plain_tap_shows_what_is_filed(self, host_client):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        post_tap(host_client, table, "Ben")  # kept: match 1 only
        post_tap(host_client, table, "Alice")
        crowned = post_tap(host_client, table, "Dev")  # match 2: Cara 3, Dev 2, Alice 1
        assert filed_list(crowned) == [("2", "Cara"), ("1", "Dev")]
        after = post_tap(host_client, table, "Ben")
        assert filed_list(after) == [("2", "Cara"), ("1", "Dev")]
        assert tonight_rows(after) == [("Cara", "5"), ("Dev", "5"), ("Alice", "2"), ("Ben", "0")]
        # Take back Ben's tap, the crowning and Alice's tap: match 2 is open again, with
        # Alice, Cara and Dev standing, and not filed.
        host = table.created_by
        for _ in range(3):
            table_undo_last(table_id=table.pk, tap_id=None, by=host)
        undone = post_tap(host_client, table, "Alice")
        assert filed_list(undone) == [("1", "Dev")]
        assert tonight_rows(undone) == [("Dev", "3"), ("Cara", "2"), ("Alice", "1"), ("Ben", "0")]
        assert tonight_rows(fresh(table)) == tonight_rows(undone)

    def test_a_rename_shows_in_the_next_plain_tap(self, host_client):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        post_tap(host_client, table, "Ben")
        dev = Player.objects.get(name="Dev")
        player_records.player_rename(player_id=dev.pk, name="Devika", by=the_organiser())
        after = post_tap(host_client, table, "Alice")
        assert tonight_rows(after)[0] == ("Devika", "3")
        assert filed_list(after) == [("1", "Devika")]

    def test_a_new_night_starts_with_nothing_filed_tonight(self, host_client):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        post_tap(host_client, table, "Ben")
        tomorrow = night_rules.night_start() + datetime.timedelta(days=1, minutes=1)
        with mock.patch.object(timezone, "now", return_value=tomorrow):
            html = post_tap(host_client, table, "Alice")
        assert tonight_rows(html) == []
        assert "No match filed tonight yet." in html
        assert filed_list(html) == [("1", "Dev")]  # the filed list is not just tonight's


def post_undo(client, table, tap_id):
    url = reverse("matches:undo", args=[table.pk])
    return client.post(url, {"tap": tap_id}, **HTMX)


def board_without_tokens(html: str) -> str:
    """A host's board with what differs between two renderings of one state taken out: the
    messages (and the blank lines around them), the CSRF tokens and the tap buttons' fresh
    keys."""
    html = re.sub(r'<div class="messages">.*?</div>', "", html, flags=re.S)
    html = re.sub(r"\s+", " ", html)
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "KEY", html)


def out_tiles(html: str) -> list[tuple[str, str]]:
    return re.findall(
        r'<span class="tile-name">([^<]+)</span> <span class="tile-place">([^<]+)</span>', html
    )


def undo_label(html: str) -> str:
    return re.search(r'class="button button-undo"><span>(.*?)</span>', html, re.S).group(1)


class TestUndoAPlainTap:
    def test_it_answers_from_the_rows_it_holds_with_the_board_a_fresh_read_shows(
        self, host_client, django_assert_num_queries
    ):
        table = make_table()  # Alice, Ben, Cara, Dev
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)  # match 1: Dev 3, Cara 2, Alice 1
        post_tap(host_client, table, "Ben")  # match 2: Ben 4th
        post_tap(host_client, table, "Alice")  # Alice 3rd
        alice = Tap.objects.filter(undone_at__isnull=True).latest("id")
        assert alice.player.name == "Alice"
        with django_assert_num_queries(UNDO_QUERIES):
            response = post_undo(host_client, table, alice.pk)
        assert response.status_code == 200
        assert response["X-Tap-Outcome"] == "applied"
        html = response.content.decode()
        assert "Undone: <bdi>Alice</bdi> is back in match 2." in html
        # Alice stands again beside Cara and Dev, in seating order; Ben stays out, 4th; the
        # Undo button now names Ben's tap.
        assert button_names(html) == ["Alice", "Cara", "Dev"]
        assert out_tiles(html) == [("Ben", "4th")]
        assert undo_label(html) == "Undo <bdi>Ben</bdi> out (match 2)"
        assert filed_list(html) == [("1", "Dev")]
        assert tonight_rows(html) == [("Dev", "3"), ("Cara", "2"), ("Alice", "1"), ("Ben", "0")]
        # The very board a fresh read renders, under the tag that read computes.
        table_filings.kept.clear()
        poll = host_client.get(reverse("matches:table", args=[table.pk]), **HTMX)
        assert poll["ETag"] == response["X-Board-ETag"]
        assert board_without_tokens(poll.content.decode()) == board_without_tokens(html)
        assert alice.match.seats.get(player=alice.player).place is None
        alice.refresh_from_db()
        assert alice.undone_by == table.created_by and alice.undone_at is not None

    def test_undoing_a_matchs_first_tap_shows_the_result_card_and_the_crowning_next(
        self, host_client
    ):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)  # match 1: Dev 3, Cara 2, Alice 1
        post_tap(host_client, table, "Ben")  # match 2's first tap
        ben = Tap.objects.filter(undone_at__isnull=True).latest("id")
        response = post_undo(host_client, table, ben.pk)
        html = response.content.decode()
        assert button_names(html) == ["Alice", "Ben", "Cara", "Dev"]
        assert out_tiles(html) == []
        # Undo now crosses into match 1: its crowning, Cara out 2nd, reopens it.
        assert undo_label(html) == "Undo <bdi>Cara</bdi> out — reopens match 1"
        table_filings.kept.clear()
        poll = host_client.get(reverse("matches:table", args=[table.pk]), **HTMX)
        assert poll["ETag"] == response["X-Board-ETag"]
        assert board_without_tokens(poll.content.decode()) == board_without_tokens(html)


def read_afresh(table) -> table_filings.Filed:
    """What a read of the table's filed results finds now (nothing kept)."""
    return table_filings._read(table, timezone.now())


def as_compared(filed) -> tuple:
    """Every field of tonight's rows (the person by id and name) and the filed matches."""
    rows = [
        (r.player_id, r.person.name, r.played, r.wins, r.points, r.seconds, r.thirds, r.leads)
        for r in filed.tonight
    ]
    return rows, [(m.pk, m.number, m.winner_id, m.filed_at) for m in filed.recent]


class TestCrowningFromKept:
    """A crowning after a plain tap answers from what that tap read plus the match it files:
    exactly what a fresh read shows, with two reads fewer."""

    @pytest.mark.parametrize("mode", [Table.Mode.RANKED, Table.Mode.WINNER_TAKES_ALL])
    def test_every_crowning_of_a_night_equals_a_fresh_read(self, mode):
        # Twelve matches: leads change hands, players level, a newcomer to the night's
        # totals (Fay sits out the first match), more matches than the board lists.
        table = make_table(players=["Alice", "Ben", "Cara", "Dev", "Eve"], mode=mode)
        rng = random.Random(21)
        for number in range(1, 13):
            if number == 2:
                match_set_roster(
                    table_id=table.pk,
                    match_id=open_match(table).pk,
                    player_names=["Alice", "Ben", "Cara", "Dev", "Eve", "Fay"],
                    by=table.created_by,
                )
            match = open_match(table)
            standing = [s.player.name for s in match.seats.select_related("player")]
            order = rng.sample(standing, len(standing))
            for name in order[:-2]:
                tap(table, name)  # plain taps: the last one keeps the filings
            if number == 5:
                table_filings.kept.clear()  # this crowning reads afresh
            crowned = tap(table, order[-2])
            assert crowned.next_match is not None
            got = as_compared(
                table_filings.Filed(crowned.answer.tonight, crowned.answer.board.recent)
            )
            assert got == as_compared(read_afresh(table)), f"match {number}"

    def test_a_kept_crowning_reads_nothing_filed(self, host_client, django_assert_num_queries):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        post_tap(host_client, table, "Ben")
        post_tap(host_client, table, "Alice")
        form = tap_form(table, "Dev")
        with django_assert_num_queries(KEPT_CROWNING_QUERIES):
            crowned = post_tap(host_client, table, "Dev", form)  # match 2: Cara 3, Dev 2
        assert filed_list(crowned) == [("2", "Cara"), ("1", "Dev")]
        expected = [("Cara", "5"), ("Dev", "5"), ("Alice", "2"), ("Ben", "0")]
        assert tonight_rows(crowned) == expected
        assert tonight_rows(fresh(table)) == expected
