"""A tap counts once, through the tap and undo URLs as the tablet's queue sends
them: the outcome headers and codes, the `after` and `queued_by` fields, the audit trail
naming who queued an entry, and the board's state island."""

import datetime
import json
import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from matches.models import Tap
from matches.play.services.tables import table_close, table_reopen
from matches.rules import nights
from tests.factories import make_host, make_table, open_match, places, seat_of, tap
from tests.web.test_views import KEPT_TAP_QUERIES

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def post_tap(client, table, name, *, seated_in=None, key=None, **fields):
    """A tap as the queue sends it; the player is found in seated_in (the open match)."""
    seated_in = seated_in or open_match(table)
    data = {"player": seat_of(seated_in, name).player_id, "key": key or uuid.uuid4(), **fields}
    return client.post(reverse("matches:tap", args=[table.pk]), data, **HTMX)


def post_undo(client, table, **fields):
    return client.post(reverse("matches:undo", args=[table.pk]), fields, **HTMX)


def outcome(response) -> tuple[str, str | None]:
    return response["X-Tap-Outcome"], response.get("X-Tap-Code")


def crown_first_match(table) -> Tap:
    tap(table, "Ben")
    tap(table, "Alice")
    return tap(table, "Cara").tap


def island(html: str) -> dict:
    start = html.index('<script id="board-state" type="application/json">')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


class TestRetriesAfterAClose:
    def test_a_crowning_resent_after_the_table_was_closed_is_replayed(self, host_client, host):
        table = make_table()
        tap(table, "Ben")
        tap(table, "Alice")
        first = open_match(table)
        key = uuid.uuid4()
        assert outcome(post_tap(host_client, table, "Cara", key=key, match=first.pk)) == (
            "applied",
            None,
        )
        table_close(table_id=table.pk, by=host)  # tablet B

        again = post_tap(host_client, table, "Cara", seated_in=first, key=key, match=first.pk)

        assert outcome(again) == ("replayed", None)
        assert "Already recorded" in again.content.decode()
        first.refresh_from_db()
        assert first.status == "filed"
        assert Tap.objects.filter(key=key).count() == 1

    def test_an_undo_resent_after_the_table_was_closed_is_replayed(self, host_client, host):
        table = make_table()
        ben = tap(table, "Ben").tap
        assert outcome(post_undo(host_client, table, tap_key=ben.key)) == ("applied", None)
        table_close(table_id=table.pk, by=host)

        again = post_undo(host_client, table, tap_key=ben.key)

        assert outcome(again) == ("replayed", None)


class TestKeyReused:
    def test_the_same_key_for_another_player_is_refused_and_nothing_saved(self, host_client):
        table = make_table()
        key = uuid.uuid4()
        post_tap(host_client, table, "Ben", key=key, number=1)

        response = post_tap(host_client, table, "Alice", key=key, number=1)

        assert response.status_code == 200
        assert outcome(response) == ("refused", "key_reused")
        assert (
            "That key was already used for Ben’s tap in match 1; nothing was changed."
            in response.content.decode()
        )
        assert places(open_match(table))["Alice"] is None
        assert Tap.objects.count() == 1

    def test_the_same_key_on_another_table_is_refused(self, host_client):
        table = make_table()
        other = make_table(name="Snug", players=["Xi", "Yu", "Zo"])
        key = uuid.uuid4()
        post_tap(host_client, table, "Ben", key=key, number=1)

        response = post_tap(host_client, other, "Xi", key=key, number=1)

        assert outcome(response) == ("refused", "key_reused")
        assert not other.matches.get().taps.exists()

    def test_the_same_key_for_the_same_player_is_replayed(self, host_client):
        table = make_table()
        key = uuid.uuid4()
        post_tap(host_client, table, "Ben", key=key, number=1)

        assert outcome(post_tap(host_client, table, "Ben", key=key, number=1)) == (
            "replayed",
            None,
        )
        assert Tap.objects.count() == 1


class TestTheMatchATapNames:
    def test_a_match_discarded_by_close_is_refused_and_the_reopened_one_untouched(
        self, host_client, host
    ):
        table = make_table()
        tap(table, "Ben")
        old = open_match(table)
        table_close(table_id=table.pk, by=host, discard_match_id=old.pk)
        table_reopen(table_id=table.pk, by=host)

        response = post_tap(host_client, table, "Alice", seated_in=old, match=old.pk)

        assert outcome(response) == ("refused", "match_discarded")
        assert (
            "Alice’s tap was for match 1, which is no longer in play; nothing was changed."
            in response.content.decode()
        )
        assert all(place is None for place in places(open_match(table)).values())

    def test_after_a_crowning_whose_match_a_close_discarded_is_refused(self, host_client, host):
        table = make_table()
        crowning = crown_first_match(table)
        table_close(table_id=table.pk, by=host)
        table_reopen(table_id=table.pk, by=host)

        response = post_tap(host_client, table, "Ben", after=crowning.key, number=2)

        assert outcome(response) == ("refused", "match_discarded")
        assert all(place is None for place in places(open_match(table)).values())

    def test_after_an_undone_crowning_is_crowned_otherwise(self, host_client, host):
        table = make_table()
        crowning = crown_first_match(table)
        post_undo(host_client, table, tap_key=crowning.key)  # tablet B
        tap(table, "Dev")  # Cara wins: another match 2

        response = post_tap(host_client, table, "Ben", after=crowning.key, number=2)

        assert outcome(response) == ("refused", "crowned_otherwise")
        assert (
            "Ben’s tap was not recorded: match 2 did not open as this tablet expected; "
            "nothing was changed." in response.content.decode()
        )
        assert not open_match(table).taps.exists()

    def test_after_a_standing_crowning_is_applied_to_the_match_it_opened(self, host_client):
        table = make_table()
        crowning = crown_first_match(table)

        response = post_tap(host_client, table, "Ben", after=crowning.key, number=2)

        assert outcome(response) == ("applied", None)
        assert places(open_match(table))["Ben"] == 4

    def test_a_number_alone_is_still_applied_to_the_open_match(self, host_client):
        table = make_table()
        crown_first_match(table)

        response = post_tap(host_client, table, "Ben", number=2)

        assert outcome(response) == ("applied", None)
        assert places(open_match(table))["Ben"] == 4

    def test_an_id_and_a_number_that_disagree_are_refused(self, host_client):
        table = make_table()

        response = post_tap(host_client, table, "Ben", match=open_match(table).pk, number=2)

        assert outcome(response) == ("refused", "match_not_found")
        assert not Tap.objects.exists()


class TestQueuedBy:
    def test_a_tap_queued_by_another_host_names_them_in_the_audit_trail(self, host_client):
        table = make_table()
        sam = make_host("sam")

        response = post_tap(host_client, table, "Ben", number=1, queued_by=sam.pk)

        assert outcome(response) == ("applied", None)
        assert Tap.objects.get().queued_by == sam
        page = host_client.get(reverse("matches:match", args=[table.pk, 1])).content.decode()
        assert "host (queued by sam)" in page

    def test_a_tap_queued_by_its_sender_records_no_one_and_costs_no_query(
        self, host_client, host, django_assert_num_queries
    ):
        table = make_table()
        tap(table, "Ben")  # this process has read the table's filed results since
        alice = seat_of(open_match(table), "Alice").player_id
        data = {"number": 1, "player": alice, "key": uuid.uuid4(), "queued_by": host.pk}
        url = reverse("matches:tap", args=[table.pk])
        with django_assert_num_queries(KEPT_TAP_QUERIES):
            response = host_client.post(url, data, **HTMX)
        assert outcome(response) == ("applied", None)
        assert Tap.objects.get(player__name="Alice").queued_by is None

    def test_an_unknown_user_is_a_bad_request_and_nothing_is_saved(self, host_client):
        table = make_table()
        ben = tap(table, "Ben").tap

        tapped = post_tap(host_client, table, "Alice", number=1, queued_by=9999)
        undone = post_undo(host_client, table, tap_key=ben.key, queued_by=9999)

        assert outcome(tapped) == ("refused", "bad_request")
        assert outcome(undone) == ("refused", "bad_request")
        assert Tap.objects.get() == ben and not Tap.objects.get().is_undone

    def test_an_undo_queued_by_another_host_names_them_in_the_audit_trail(self, host_client):
        table = make_table()
        sam = make_host("sam")
        ben = tap(table, "Ben").tap

        response = post_undo(host_client, table, tap_key=ben.key, queued_by=sam.pk)

        assert outcome(response) == ("applied", None)
        ben.refresh_from_db()
        assert ben.undo_queued_by == sam
        page = host_client.get(reverse("matches:match", args=[table.pk, 1])).content.decode()
        assert "by host (queued by sam)," in page

    def test_the_audit_trail_reads_who_queued_in_the_same_queries(self, host_client):
        table = make_table()
        sam = make_host("sam")
        url = reverse("matches:match", args=[table.pk, 1])

        def queries() -> int:
            with CaptureQueriesContext(connection) as captured:
                assert host_client.get(url).status_code == 200
            return len(captured)

        post_tap(host_client, table, "Ben", number=1, queued_by=sam.pk)
        one = queries()
        for name in ["Alice", "Cara"]:
            post_tap(host_client, table, name, number=1, queued_by=sam.pk)
        assert queries() == one


class TestBoardStateIsland:
    def test_the_island_names_the_match_the_viewer_and_the_night(self, host_client, host):
        table = make_table()
        ben = tap(table, "Ben").tap

        html = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        state = island(html)

        assert state["match"] == 1 and state["match_id"] == open_match(table).pk
        assert state["last_tap"]["match_id"] == ben.match_id
        assert state["user"] == {"id": host.pk, "name": "host"}
        night = datetime.datetime.fromisoformat(state["night"])
        assert night == nights.night_start()

    def test_the_answer_to_a_tap_carries_the_island(self, host_client, host):
        table = make_table()

        response = post_tap(host_client, table, "Ben", number=1)

        state = island(response.content.decode())
        assert state["last_tap"]["name"] == "Ben" and state["user"]["id"] == host.pk
