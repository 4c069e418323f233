"""The room sees it at once: every followed page's stream (brag_tables/streams.py) served by
uvicorn, as a phone or a TV holds it. Each stream carries exactly what an anonymous htmx poll
of its page gets, changes arrive as the write commits, and no stream holds a thread."""

import threading
import time
import uuid

import pytest
from django.db import connection
from django.db.models import F
from django.test import Client, override_settings

from matches.core import changes
from matches.models import Table
from matches.play.services import tables as table_services
from tests.factories import make_host, make_table, open_match, tap, the_organiser, undo
from tests.pushing import EventStream, ServedApp

pytestmark = pytest.mark.django_db(transaction=True)
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def served():
    app = ServedApp()
    yield app
    app.stop()


@pytest.fixture
def table():
    make_host()
    return make_table(players=["Ann", "Bob", "Cy", "Di"])


def poll(path: str, language: str = "en"):
    """What an anonymous htmx poll of path gets (the stream must carry the same)."""
    return Client(HTTP_ACCEPT_LANGUAGE=language).get(path, **HTMX)


def until(stream: EventStream, wanted, timeout: float = 10.0):
    """The first swap event that is wanted (changes close together may come as one)."""
    deadline = time.monotonic() + timeout
    while True:
        event = stream.next(timeout=max(0.1, deadline - time.monotonic()), name="swap")
        if wanted(event):
            return event


def follow(served: ServedApp, path: str, **headers: str) -> EventStream:
    return EventStream(served.port, path, headers={"Host": "127.0.0.1", **headers})


class TestAStreamStartsFromTheStateOnScreen:
    def test_the_table_page_streams_what_its_poll_gets(self, served, table):
        stream = follow(served, f"/tables/{table.pk}/")
        assert stream.status == 200
        assert stream.response_headers["content-type"] == "text/event-stream; charset=utf-8"
        assert stream.response_headers["cache-control"] == "no-store"
        assert stream.response_headers["x-accel-buffering"] == "no"
        assert stream.next(name="ping")  # at once: a proxy that buffers is found out
        first = stream.next(name="swap")
        answer = poll(f"/tables/{table.pk}/")
        assert first.id == answer["ETag"]
        assert first.data == answer.content.decode()
        assert 3000 <= stream.retry < 5000

    def test_the_tv_streams_its_board_in_the_viewers_language(self, served, table):
        stream = follow(served, f"/tables/{table.pk}/board/", **{"Accept-Language": "pt"})
        first = stream.next(name="swap")
        answer = poll(f"/tables/{table.pk}/board/", "pt")
        assert first.id == answer["ETag"] and ".pt." in first.id
        assert first.data == answer.content.decode()

    def test_a_page_that_saw_this_state_gets_no_swap_on_reconnecting(self, served, table):
        current = follow(served, f"/tables/{table.pk}/").next(name="swap").id
        again = follow(served, f"/tables/{table.pk}/", **{"Last-Event-ID": current})
        again.next(name="ping")
        assert again.swaps(1.0) == []

    def test_a_page_that_saw_another_state_catches_up(self, served, table):
        stale = follow(served, f"/tables/{table.pk}/").next(name="swap").id
        tap(table, "Ann")
        caught = follow(served, f"/tables/{table.pk}/", **{"Last-Event-ID": stale})
        event = caught.next(name="swap")
        assert event.id != stale and event.id == poll(f"/tables/{table.pk}/")["ETag"]


class TestEveryChangeArrivesAtOnce:
    def test_a_tap_reaches_the_table_page_and_the_tv(self, served, table):
        page = follow(served, f"/tables/{table.pk}/")
        tv = follow(served, f"/tables/{table.pk}/board/")
        before = page.next(name="swap").id, tv.next(name="swap").id
        tap(table, "Ann")
        on_page, on_tv = page.next(name="swap"), tv.next(name="swap")
        assert (on_page.id, on_tv.id) != before
        assert ".v1." in on_page.id and ".v1." in on_tv.id
        assert on_page.data == poll(f"/tables/{table.pk}/").content.decode()
        assert "Ann" in on_tv.data

    def test_a_crowning_and_its_undo_both_arrive(self, served, table):
        tv = follow(served, f"/tables/{table.pk}/board/")
        tv.next(name="swap")
        for name in ("Ann", "Bob", "Cy"):
            tap(table, name)
        crowned = until(tv, lambda event: "crowning-card" in event.data)
        assert crowned.data == poll(f"/tables/{table.pk}/board/").content.decode()
        undo(table)
        undone = tv.next(name="swap")
        assert "crowning-card" not in undone.data
        assert undone.data == poll(f"/tables/{table.pk}/board/").content.decode()

    def test_a_close_and_a_reopen_arrive(self, served, table):
        host = table.created_by
        page = follow(served, f"/tables/{table.pk}/")
        page.next(name="swap")
        table_services.table_close(table_id=table.pk, by=host)
        assert 'data-table-state="0"' in page.next(name="swap").data
        table_services.table_reopen(table_id=table.pk, by=host)
        assert 'data-table-state="1"' in page.next(name="swap").data

    def test_home_follows_every_table(self, served, table):
        home = follow(served, "/")
        home.next(name="swap")
        tap(table, "Ann")
        assert "Front bar" in home.next(name="swap").data

    def test_a_write_by_another_process_is_found_by_reading_versions(self, served, table):
        # A write this process's listeners never hear (another worker, a manage.py command):
        # SQLite's hub reads the followed versions every second; PostgreSQL's hears NOTIFY.
        page = follow(served, f"/tables/{table.pk}/")
        page.next(name="swap")
        Table.objects.filter(pk=table.pk).update(version=F("version") + 1, name="Back bar")
        if connection.vendor == "postgresql":
            changes.changed(table_ids=[table.pk])
        assert page.next(timeout=10, name="swap").id.startswith(f'"t{table.pk}.v1.')

    def test_a_rolled_back_write_sends_nothing(self, served, table):
        page = follow(served, f"/tables/{table.pk}/")
        page.next(name="swap")
        from django.db import transaction

        with pytest.raises(RuntimeError), transaction.atomic():
            changes.changed(table_ids=[table.pk])
            raise RuntimeError
        assert page.swaps(1.5) == []


class TestRefusals:
    def test_a_page_that_is_not_followed_has_no_stream(self, served, table):
        assert follow(served, "/rules/").status == 404
        assert follow(served, "/nowhere/").status == 404
        assert follow(served, "/tables/999999/").status == 404

    def test_a_stream_is_only_read(self, served, table):
        import http.client

        connection_ = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        connection_.request("POST", f"/events/tables/{table.pk}/", body=b"x")
        assert connection_.getresponse().status == 405

    def test_a_host_not_allowed_is_refused(self, served, table):
        assert follow(served, f"/tables/{table.pk}/", Host="evil.example").status == 400

    @override_settings(BRAG_STREAMS_PER_ADDRESS=2)
    def test_past_the_cap_per_address_the_page_polls(self, served, table):
        kept = [follow(served, f"/tables/{table.pk}/") for _ in range(2)]
        assert [stream.status for stream in kept] == [200, 200]
        refused = follow(served, f"/tables/{table.pk}/")
        assert refused.status == 204  # the SSE spec's "do not reconnect"
        kept[0].close()
        time.sleep(0.5)
        assert follow(served, f"/tables/{table.pk}/").status == 200

    @override_settings(BRAG_STREAMS_MAX=1)
    def test_past_the_cap_per_process_the_page_polls(self, served, table):
        kept = follow(served, f"/tables/{table.pk}/")
        assert kept.status == 200
        assert follow(served, f"/tables/{table.pk}/board/").status == 204


def test_streams_hold_no_thread(served, table):
    follow(served, f"/tables/{table.pk}/").next(name="swap")
    before = threading.active_count()
    streams = [follow(served, f"/tables/{table.pk}/board/") for _ in range(40)]
    for stream in streams:
        stream.next(name="swap")
    assert threading.active_count() <= before + 2
    tap(table, "Ann")
    for stream in streams:
        assert ".v1." in stream.next(name="swap").id


def test_each_change_is_rendered_once_per_variant(served, table, monkeypatch):
    streams = [follow(served, f"/tables/{table.pk}/") for _ in range(10)]
    for stream in streams:
        stream.next(name="swap")
    renders = []
    real = served.hub._render

    async def counted(channel):
        renders.append(channel.key)
        return await real(channel)

    monkeypatch.setattr(served.hub, "_render", counted)
    tap(table, "Ann")
    for stream in streams:
        stream.next(name="swap")
    assert len(renders) <= 2  # this write's wake, and at most the versions' read after it
    assert open_match(table).seats.filter(place__isnull=False).count() == 1


@pytest.fixture
def other_server(table):
    """Another app server on the same database, in a process of its own: it hears this
    process's writes only as another server would (NOTIFY, or SQLite's version reads)."""
    import os
    import socket
    import subprocess
    from pathlib import Path

    from brag_tables import serving  # the night's options, as make run serves it

    settings_dict = connection.settings_dict
    if connection.vendor == "postgresql":
        url = "postgres://{USER}@{HOST}:{PORT}/{NAME}".format(**settings_dict)
    else:
        url = f"sqlite:///{Path(settings_dict['NAME']).resolve()}"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "tests.served_settings",
        "DJANGO_HTTPS": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "BRAG_DB_POOL": "0",
    }
    process = subprocess.Popen(
        serving.command(host="127.0.0.1", port=port, workers=1, log_level="warning"),
        env=env,
        cwd=Path(__file__).resolve().parent.parent,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError("the other server did not start") from None
            time.sleep(0.1)
    yield port
    process.terminate()
    process.wait(timeout=20)


def test_a_tap_served_here_reaches_a_screen_held_by_another_server(other_server, table):
    stream = EventStream(other_server, f"/tables/{table.pk}/", headers={"Host": "127.0.0.1"})
    assert stream.status == 200
    stream.next(name="swap")
    tap(table, "Ann")
    assert ".v1." in stream.next(timeout=10, name="swap").id
    undo(table)
    assert ".v2." in stream.next(timeout=10, name="swap").id


def test_a_stream_shows_the_public_names_only(served, table):
    from matches.models import Player
    from matches.results.public_names import player_set_public_name

    ann = Player.objects.get(name="Ann")
    player_set_public_name(player_id=ann.pk, public_name="", hidden=True, by=the_organiser())
    page = follow(served, f"/tables/{table.pk}/")
    tv = follow(served, f"/tables/{table.pk}/board/")
    tap(table, "Ann")
    for stream in (page, tv):
        event = until(stream, lambda event: ".v2." in (event.id or ""))  # hidden, then out
        assert "Ann" not in event.data and f"Player {ann.pk}" in event.data


def test_where_django_alone_answers_a_stream_the_page_is_told_to_poll(table):
    # make dev, or any WSGI server: no hub stands in front of Django.
    answer = Client().get(f"/events/tables/{table.pk}/")
    assert answer.status_code == 204  # the SSE spec's "do not reconnect"
    assert "no-store" in answer["Cache-Control"]


def test_a_tap_sent_to_the_server_itself_is_pushed_cleanly(served, table, caplog, monkeypatch):
    """The tap's own request wakes the hub: its renders must not run in that request's
    context (Django ties a thread-sensitive executor to it, gone when the request is: a
    render that ran after it failed with "CurrentThreadExecutor already quit")."""
    import asyncio
    import http.client
    import secrets

    real = served.hub._render

    async def later(channel):
        await asyncio.sleep(0.3)  # as under load: the tap's request has ended by now
        return await real(channel)

    from django.contrib.sessions.backends.db import SessionStore

    host = table.created_by
    session = SessionStore()
    session.update(
        {
            "_auth_user_id": str(host.pk),
            "_auth_user_backend": "django.contrib.auth.backends.ModelBackend",
            "_auth_user_hash": host.get_session_auth_hash(),
        }
    )
    session.create()
    token = secrets.token_hex(16)
    cookies = f"sessionid={session.session_key}; csrftoken={token}"
    page = follow(served, f"/tables/{table.pk}/")
    page.next(name="swap")
    monkeypatch.setattr(served.hub, "_render", later)
    match = open_match(table)
    for name in ("Ann", "Bob"):
        seat = match.seats.get(player__name=name)
        body = f"match={match.pk}&player={seat.player_id}&key={uuid.uuid4()}"
        connection_ = http.client.HTTPConnection("127.0.0.1", served.port, timeout=10)
        connection_.request(
            "POST",
            f"/tables/{table.pk}/tap/",
            body,
            {
                "Host": "127.0.0.1",
                "Cookie": cookies,
                "X-CSRFToken": token,
                "Content-Type": "application/x-www-form-urlencoded",
                "HX-Request": "true",
                "Referer": f"{served.url}/tables/{table.pk}/",
            },
        )
        answer = connection_.getresponse()
        assert (answer.status, answer.getheader("X-Tap-Outcome")) == (200, "applied")
    # Both taps (close together, perhaps one event), rendered after their requests ended.
    until(page, lambda event: ".v2." in (event.id or ""))
    failed = [r.getMessage() for r in caplog.records if r.name == "brag_tables.streams"]
    assert failed == []


def test_a_venues_standings_follow_a_filing_at_that_venue(served, table):
    """The standings page of one venue is a variant of the standings page (path + query):
    a filing at one of its tables swaps in the rows a poll of that venue's page gets."""
    path = f"/standings/?venue={table.venue.slug}&mode="
    stream = follow(served, path)
    first = stream.next(name="swap")
    assert "Bob" not in first.data
    for name in ("Ann", "Cy", "Di"):
        tap(table, name)
    filed = until(stream, lambda event: "Bob" in event.data)
    assert filed.data == poll(path).content.decode()
    assert f"Standings at {table.venue.name}" in filed.data
