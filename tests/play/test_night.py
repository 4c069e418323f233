"""The night at the table, through the views: tonight's totals, closing with confirmation
and reopening, undo across a match boundary, the QR code, the home page."""

import datetime
import re
import xml.etree.ElementTree as ET

import pytest
import segno
from django.urls import reverse
from django.utils import timezone

from matches.models import Match, Table
from matches.play import tonight
from matches.play.messages import NOT_YOUR_TABLE
from matches.play.services.tables import match_set_roster, table_close
from matches.play.services.undo import table_undo_last
from tests.factories import make_host, make_table, open_match, other_venue, places, tap

pytestmark = pytest.mark.django_db


def table_url(table):
    return reverse("matches:table", args=[table.pk])


def play(table, order):
    for name in order:
        tap(table, name)


class TestTonight:
    def test_ranked_points_then_wins_leader_first(self):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])  # Dev 3, Cara 2, Alice 1
        play(table, ["Dev", "Ben", "Alice"])  # Cara 3, Alice 2, Ben 1
        rows = [
            (r.person.name, r.points, r.wins, r.played) for r in tonight.table_tonight(table=table)
        ]
        assert rows == [("Cara", 5, 1, 2), ("Dev", 3, 1, 2), ("Alice", 3, 0, 2), ("Ben", 1, 0, 2)]

    def test_winner_takes_all_counts_wins_only(self):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL)
        play(table, ["Ben", "Alice", "Cara"])
        play(table, ["Ben", "Alice", "Dev"])
        play(table, ["Ben", "Alice", "Cara"])
        rows = [(r.person.name, r.points, r.wins) for r in tonight.table_tonight(table=table)]
        assert rows[:2] == [("Dev", None, 2), ("Cara", None, 1)]

    def test_an_undone_crowning_leaves_tonight(self):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])
        table_undo_last(table_id=table.pk, tap_id=None, by=table.created_by)
        assert tonight.table_tonight(table=table) == []

    def test_a_night_starts_at_noon_local_time(self):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])
        filed = table.matches.get(number=1).filed_at
        # Ten hours later (the small hours, or the next afternoon) the night may have turned.
        same_night = night_start_after(filed)
        assert tonight.table_tonight(table=table, now=same_night)
        next_night = same_night + datetime.timedelta(days=1)
        assert tonight.table_tonight(table=table, now=next_night) == []

    def test_leaders_of_many_tables_in_one_query(self, django_assert_num_queries):
        tables = [make_table(name=f"T{n}") for n in range(3)]
        play(tables[0], ["Ben", "Alice", "Cara"])
        play(tables[2], ["Dev", "Cara", "Ben"])
        with django_assert_num_queries(1):
            leaders = tonight.tonight_leaders(tables=tables)
        assert {t: [r.person.name for r in rows] for t, rows in leaders.items()} == {
            tables[0].pk: ["Dev"],
            tables[2].pk: ["Alice"],
        }

    def test_the_table_page_shows_tonight(self, host_client):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])
        html = host_client.get(table_url(table)).content.decode()
        section = html[html.index("Tonight at this table") :]
        rows = re.findall(
            r'<th scope="row">(?:<span class="crown" aria-hidden="true">♛</span> )?(\w+)</th>'
            r'<td class="num">(\d+)</td><td class="num">(\d+)</td><td class="num">(\d+)</td>',
            section,
        )
        assert rows == [
            ("Dev", "3", "1", "1"), ("Cara", "2", "0", "1"), ("Alice", "1", "0", "1"), ("Ben", "0", "0", "1"),
        ]  # fmt: skip


def night_start_after(moment):
    """Noon after `moment` is the start of the next night: one second before is still this one."""
    local = timezone.localtime(moment)
    noon = local.replace(hour=12, minute=0, second=0, microsecond=0)
    if local >= noon:
        noon += datetime.timedelta(days=1)
    return noon - datetime.timedelta(seconds=1)


class TestCloseConfirmReopen:
    def test_the_confirmation_names_who_is_out_and_who_stands(self, host_client):
        table = make_table()
        play(table, ["Ben", "Alice"])
        html = host_client.get(reverse("matches:close", args=[table.pk])).content.decode()
        assert "Match 1 is under way and will be discarded:" in html
        assert "Out so far: <bdi>Ben</bdi> (4th), <bdi>Alice</bdi> (3rd)" in html
        assert "Still standing: <bdi>Cara</bdi>, <bdi>Dev</bdi>" in html
        assert f'name="discard" value="{open_match(table).pk}"' in html
        assert Table.objects.get(pk=table.pk).is_open

    def test_a_post_without_the_confirmation_discards_nothing(self, host_client):
        table = make_table()
        play(table, ["Ben"])
        response = host_client.post(reverse("matches:close", args=[table.pk]), follow=True)
        assert "Match 1 is under way (out so far: Ben)." in response.content.decode()
        assert Table.objects.get(pk=table.pk).is_open
        assert places(open_match(table))["Ben"] == 4

    def test_confirmed_then_reopened_numbering_continues(self, host_client):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])
        tap(table, "Ben")  # match 2 under way
        discard = open_match(table).pk
        response = host_client.post(
            reverse("matches:close", args=[table.pk]), {"discard": discard}, follow=True
        )
        html = response.content.decode()
        assert "Table closed. No further match will open." in html
        assert Match.objects.get(pk=discard).status == Match.Status.DISCARDED
        assert "Reopen table" in html
        response = host_client.post(reverse("matches:reopen", args=[table.pk]), follow=True)
        assert "Table reopened: match 2 is open." in response.content.decode()
        assert open_match(table).number == 2 and places(open_match(table))["Ben"] is None

    def test_another_host_cannot_reopen(self, client):
        table = make_table()
        table_close(table_id=table.pk, by=table.created_by)
        client.force_login(make_host("other", venue=other_venue()))
        html = client.get(table_url(table)).content.decode()
        assert "Reopen table" not in html
        response = client.post(reverse("matches:reopen", args=[table.pk]))
        assert response.status_code == 403
        assert str(NOT_YOUR_TABLE) % {"venue": "Our pub"} in response.content.decode()
        assert not Table.objects.get(pk=table.pk).is_open


class TestUndoAcrossTheBoundary:
    def test_the_label_says_it_reopens_the_filed_match(self, host_client):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])
        html = host_client.get(table_url(table)).content.decode()
        assert re.search(
            r'class="button button-undo"><span>Undo <bdi>Cara</bdi> out — reopens match 1</span></button>',
            html,
        )

    def test_a_roster_change_sends_the_host_to_a_confirmation(self, host_client):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])
        match_set_roster(
            table_id=table.pk, match_id=open_match(table).pk,
            player_names=["Dev", "Cara", "Alice", "Eve"], by=table.created_by,
        )  # fmt: skip
        undo_url = reverse("matches:undo", args=[table.pk])
        html = host_client.get(table_url(table)).content.decode()
        assert (
            f'<a class="button button-undo" href="{undo_url}"><span>Undo <bdi>Cara</bdi> out — reopens match 1</span></a>'
            in html
        )
        page = host_client.get(undo_url).content.decode()
        assert "Match 2 was given a new roster." in page
        assert "the roster change goes with it" in page
        assert (
            "The new roster that goes: <bdi>Dev</bdi>, <bdi>Cara</bdi>, <bdi>Alice</bdi>, <bdi>Eve</bdi>"
        ) in page
        # Without the confirmation the undo is refused; with it, match 1 reopens.
        tap_id = table.matches.get(number=1).taps.get(player__name="Cara").pk
        host_client.post(undo_url, {"tap": tap_id})
        assert open_match(table).number == 2
        host_client.post(undo_url, {"tap": tap_id, "drop_roster": "1"})
        reopened = open_match(table)
        assert reopened.number == 1
        assert places(reopened) == {"Alice": 3, "Ben": 4, "Cara": None, "Dev": None}


def qr_matrix_from_svg(svg: bytes) -> list[list[bool]]:
    """Read the modules back out of segno's SVG path (M/m moves, h runs, one row per y)."""
    root = ET.fromstring(svg)  # noqa: S314 (our own server's answer)
    ns = {"svg": "http://www.w3.org/2000/svg"}
    width = int(root.get("viewBox").split()[2])
    path = next(p for p in root.iterfind("svg:path", ns) if p.get("stroke"))
    grid = [[False] * width for _ in range(width)]
    x = y = 0.0
    for op, a, b in re.findall(r"([MmHh])\s*(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path.get("d")):
        if op == "M":
            x, y = float(a), float(b)
        elif op == "m":
            x, y = x + float(a), y + float(b)
        else:
            for column in range(int(x), int(x + float(a))):
                grid[int(y)][column] = True
            x += float(a)
    return grid


class TestQrCode:
    def test_the_svg_encodes_the_spectator_page(self, host, client):
        table = make_table()
        response = client.get(reverse("matches:qr", args=[table.pk]), HTTP_HOST="127.0.0.1:8123")
        assert response["Content-Type"] == "image/svg+xml"
        expected = segno.make(f"http://127.0.0.1:8123/tables/{table.pk}/", error="m")
        border = 4
        size = len(expected.matrix)
        wanted = [[bool(m) for m in row] for row in expected.matrix]
        served = qr_matrix_from_svg(response.content)
        assert len(served) == size + 2 * border
        modules = [row[border : border + size] for row in served[border : border + size]]
        assert modules == wanted

    def test_the_tv_and_the_share_box_use_it(self, host_client):
        table = make_table()
        qr_url = reverse("matches:qr", args=[table.pk])
        assert (
            f'src="{qr_url}"'
            in host_client.get(reverse("matches:tv", args=[table.pk])).content.decode()
        )
        assert f'src="{qr_url}"' in host_client.get(table_url(table)).content.decode()


class TestHome:
    def test_open_tables_first_with_their_night_then_closed_by_date(
        self, host_client, django_assert_num_queries
    ):
        late = make_table(name="Late")
        snug = make_table(name="Snug")
        play(snug, ["Ben", "Alice", "Cara"])
        tap(snug, "Ben")
        table_close(table_id=late.pk, by=late.created_by)
        old = make_table(name="Old")
        table_close(table_id=old.pk, by=old.created_by)
        Table.objects.filter(pk=old.pk).update(
            closed_at=timezone.now() - datetime.timedelta(days=3)
        )
        # Session and user, the host's venue roles, open tables (with match and players
        # standing), closed tables, and tonight's leaders of every open table: six, however
        # many tables.
        with django_assert_num_queries(6):
            html = host_client.get(reverse("matches:home")).content.decode()
        playing = html[html.index("Playing now") : html.index('id="closed-heading"')]
        assert "Snug" in playing and "Late" not in playing
        facts = re.sub(r"\s+", " ", playing)
        assert "<dt>Match</dt><dd>2</dd>" in facts and "<dt>Standing</dt><dd>3</dd>" in facts
        assert '♛</span> <span class="name">Dev</span>' in facts
        closed = html[html.index('id="closed-heading"') :]
        assert closed.index("Late") < closed.index("Old")
        assert 'aria-label="Reopen Late"' in closed
