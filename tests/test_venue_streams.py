"""A venue's board follows every table at the venue over its stream (brag_tables/streams.py),
as a table's TV follows its table: a tap, a close, a reopen or a launch at the venue reaches
it at once; a tap at another venue does not."""

import time

import pytest
from django.db import connection
from django.db.models import F
from django.urls import reverse

from brag_tables import streams
from matches.core import changes
from matches.models import Table
from matches.play.services import tables as table_services
from tests import test_streams
from tests.factories import first_venue, make_host, make_table, other_venue, tap
from tests.pushing import EventStream
from tests.test_streams import follow, poll

# The table streams' fixtures: uvicorn in this process, and another server in its own.
served = test_streams.served
other_server = test_streams.other_server

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table():
    """A table at the first venue (the other_server fixture's table too)."""
    return make_table(host=make_host(), name="Front bar", players=["Ann", "Bob", "Cy", "Di"])


@pytest.fixture
def anchor_table():
    host = make_host("anchor", venue=other_venue("The Anchor"))
    return make_table(host=host, name="Anchor bar", players=["Xan", "Yul", "Zed"])


def board_path() -> str:
    return reverse("matches:venue_board", args=[first_venue().slug])


def test_the_venue_board_streams_what_its_poll_gets(served, table):
    stream = follow(served, board_path())
    assert stream.status == 200
    first = stream.next(name="swap")
    answer = poll(board_path())
    assert first.id == answer["ETag"]
    assert first.data == answer.content.decode()


def test_a_tap_at_the_venue_arrives_and_one_at_another_venue_does_not(
    served, table, anchor_table, monkeypatch
):
    # PostgreSQL's safety-net read of versions (news of everything on its first read) not
    # within this test; SQLite's first read is awaited below.
    monkeypatch.setattr(streams, "READ_SECONDS_POSTGRES", 3600.0)
    stream = follow(served, board_path())
    before = stream.next(name="swap")
    deadline = time.monotonic() + 10
    while connection.vendor == "sqlite" and served.hub.last_versions is None:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)  # whatever that first read woke is rendered
    renders = []
    real = served.hub._render

    async def counted(channel):
        renders.append(channel.path)
        return await real(channel)

    monkeypatch.setattr(served.hub, "_render", counted)
    tap(anchor_table, "Zed")
    time.sleep(1.5)
    assert renders == []  # the Anchor's tap: not even a look at this venue's board
    tap(table, "Cy")
    after = stream.next(name="swap")
    # This process's own wake, and on PostgreSQL perhaps its NOTIFY too (a 304 then).
    assert set(renders) == {board_path()} and len(renders) <= 2
    assert after.id != before.id
    assert after.data == poll(board_path()).content.decode()
    assert '4th</span> <span class="name">Cy' in after.data


def test_a_launch_a_close_and_a_reopen_at_the_venue_arrive(served, table):
    host = table.created_by
    stream = follow(served, board_path())
    stream.next(name="swap")
    back = make_table(host=host, name="Back room", players=["Eve", "Fay", "Gus"])
    assert "Back room" in stream.next(name="swap").data
    table_services.table_close(table_id=back.pk, by=host)
    assert "Back room" not in stream.next(name="swap").data
    table_services.table_reopen(table_id=back.pk, by=host)
    assert "Back room" in stream.next(name="swap").data


def test_the_second_of_two_tables_is_followed_too(served, table):
    back = make_table(host=table.created_by, name="Back room", players=["Eve", "Fay", "Gus"])
    stream = follow(served, board_path())
    stream.next(name="swap")
    tap(back, "Gus")
    assert "Out</h2>" in stream.next(name="swap").data.split("Back room")[1]


def test_a_write_by_another_process_is_found_by_reading_the_venues_versions(served, table):
    # A write this process's listeners never hear (another worker, a manage.py command):
    # SQLite's hub reads the venue's tables' versions every second; PostgreSQL's hears NOTIFY.
    stream = follow(served, board_path())
    stream.next(name="swap")
    Table.objects.filter(pk=table.pk).update(version=F("version") + 1, name="Snug")
    if connection.vendor == "postgresql":
        changes.changed(table_ids=[table.pk])
    assert "Snug" in stream.next(timeout=10, name="swap").data


def test_a_tap_served_here_reaches_a_venue_board_held_by_another_server(other_server, table):
    stream = EventStream(other_server, board_path(), headers={"Host": "127.0.0.1"})
    assert stream.status == 200
    stream.next(name="swap")
    tap(table, "Cy")
    assert "Cy" in stream.next(timeout=10, name="swap").data.split("Out</h2>")[1]
