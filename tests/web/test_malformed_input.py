"""Every endpoint given hostile input: oversized, deeply nested, invisible-character and
formula-shaped. Each answer is no 500, a clear message where the input was the user's, nothing
written, and at most a fixed number of queries (on SQLite and on PostgreSQL)."""

import json

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import translation

from matches.models import Player
from matches.play.messages import UNKNOWN_MODE
from matches.rules import showdown
from matches.web import feedback
from matches.web.forms import tables as table_forms
from tests.clients import FormClient
from tests.factories import make_table, tap, written

pytestmark = pytest.mark.django_db

# Every field of a body carries the payload, and a body over 64 KiB is refused whole before
# any form reads it (tests/web/test_request_limits.py): these stay under that, so what is tested is each
# form's own refusal ("[" and "{" take three bytes each once urlencoded).
PAYLOADS = {
    "oversized": "A" * 10_000,
    "nested": "[" * 1_500 + "{" * 1_500,
    "invisible": "\u200b\u202e\ufeff\u2066\x01",
    "formula": '=HYPERLINK("http://evil","x")\n+cmd|\' /C calc\'!A0\n@SUM(1+1)\n-2+3',
}
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def english():
    # Messages are asserted in English, whatever language an earlier request left active.
    with translation.override("en"):
        yield


@pytest.fixture
def league(host):
    """A table with a filed match and a tap in the next: every page has something to show."""
    table = make_table(host=host)
    for name in ("Ben", "Alice", "Cara"):
        tap(table, name)
    tap(table, "Dev")
    return table


def body_for(fields: list[str], payload: str) -> dict:
    # Every field carries the payload, and a few unexpected nested-looking keys do too.
    return {**dict.fromkeys(fields, payload), "a[b][c][d]": payload, "players[]": payload}


# (route, fields, the queries it makes, the message the answer must carry). The launch and
# roster forms that come back read the seat picker's "last time" (one query). Every answer
# reads the host's venue roles once (org.roles); the launch form also counts the venues (a
# single pub is never asked for one).
WRITES = [
    ("table_new", ["name", "players", "mode"], 5, UNKNOWN_MODE),
    # The board that answers includes tonight's totals (one grouped query), and is read as one
    # snapshot (the table row before, the version after). A refused tap reads no table before
    # its board; an undo does (it asks whether this host may change the table).
    ("tap", ["match", "player", "key"], 10, feedback.BAD_TAP),
    ("undo", ["tap"], 11, feedback.BAD_UNDO),
    ("roster", ["match", "players"], 9, table_forms.BAD_ROSTER),
]


class TestWrites:
    @pytest.mark.parametrize("kind", PAYLOADS)
    @pytest.mark.parametrize("route, fields, budget, message", WRITES)
    def test_refused_with_a_message_and_nothing_written(
        self, host_client, league, django_assert_num_queries, kind, route, fields, budget, message
    ):
        kwargs = {} if route == "table_new" else {"args": [league.pk]}
        before = written()
        with django_assert_num_queries(budget):
            response = host_client.post(
                reverse(f"matches:{route}", **kwargs), body_for(fields, PAYLOADS[kind]), **HTMX
            )
        assert response.status_code == 200
        html = response.content.decode()
        assert written() == before
        assert str(message) in html

    @pytest.mark.parametrize("kind", ["oversized", "nested", "invisible"])
    def test_roster_names_say_what_is_wrong(self, host_client, league, kind):
        match = league.matches.open().get()
        payload = PAYLOADS[kind]
        players = payload if kind != "invisible" else f"Ann{payload}\nBob\nCy"
        before = written()
        response = host_client.post(
            reverse("matches:roster", args=[league.pk]), {"match": match.pk, "players": players}
        )
        assert response.status_code == 200 and written() == before
        html = response.content.decode()
        expected = {
            "oversized": "Player names are at most 40 characters",
            "nested": "Player names are at most 40 characters",
            "invisible": "contains an invisible or control character",
        }[kind]
        assert expected in html

    @pytest.mark.parametrize("kind", PAYLOADS)
    def test_login(self, league, django_assert_num_queries, kind):
        client = FormClient()
        before = written()
        # django-axes counts a failure (its reads and the attempt it records); a username
        # longer than any account's is refused before it gets that far.
        # No first-host check: this process has seen the host.
        queries = {"oversized": 0, "nested": 0, "invisible": 10, "formula": 10}[kind]
        with django_assert_num_queries(queries):
            response = client.post(
                reverse("login"), body_for(["username", "password"], PAYLOADS[kind])
            )
        assert response.status_code == 200 and written() == before
        assert "Please enter a correct username and password" in response.content.decode()

    @pytest.mark.parametrize("kind", PAYLOADS)
    def test_setup_before_any_host(self, db, django_assert_num_queries, kind):
        client = FormClient()
        # The first-host check, and the username's uniqueness once it is otherwise valid.
        queries = {"oversized": 1, "nested": 1, "invisible": 2, "formula": 2}[kind]
        with django_assert_num_queries(queries):
            response = client.post(
                reverse("matches:setup"),
                body_for(["username", "password1", "password2"], PAYLOADS[kind]),
            )
        assert response.status_code == 200
        assert get_user_model().objects.count() == 0
        assert 'class="field-error"' in response.content.decode()

    @pytest.mark.parametrize("kind", PAYLOADS)
    def test_setup_once_a_host_exists(self, league, kind):
        response = FormClient().post(
            reverse("matches:setup"), body_for(["username"], PAYLOADS[kind])
        )
        assert response.status_code == 404

    def test_more_fields_than_django_reads(self, host_client, league):
        before = written()
        many = {f"f{n}": "x" for n in range(1_500)}
        response = host_client.post(reverse("matches:table_new"), many)
        assert response.status_code == 400 and written() == before


def showdown_bodies() -> dict[str, bytes]:
    return {
        "oversized": json.dumps({"hands": {f"P{n}": "AS KS QS" for n in range(2_000)}}).encode(),
        "nested": b'{"hands": ' + b"[" * 5_000 + b"]" * 5_000 + b"}",
        "invisible": json.dumps(
            {"hands": {"Ann\u200b": "QS 7D 4C", "\u202eBen": "10h 10c 2s"}}
        ).encode(),
        "formula": json.dumps({"hands": {"=1+1": "=A1", "@SUM(1)": "+cmd"}}).encode(),
    }


@pytest.mark.parametrize("kind", PAYLOADS)
def test_showdown_api(client, league, django_assert_num_queries, kind):
    before = written()
    with django_assert_num_queries(0):  # no first-host check once a host was seen
        response = client.post(
            reverse("matches:api_showdown"),
            showdown_bodies()[kind],
            content_type="application/json",
        )
    assert written() == before
    if kind == "invisible":
        # Not stored anywhere, and shown escaped: judged like any other name.
        assert response.status_code == 200 and response.json()["loser"] == "Ann\u200b"
        return
    assert response.status_code == 400
    error = response.json()["error"]
    assert (
        error
        == {
            "oversized": "A showdown request is at most 16 KB: send at most 10 hands.",
            "nested": str(showdown.BAD_SHOWDOWN_JSON),
            "formula": "=1+1: “=A1” is not a card. Write cards like QS, 10h or Q♠.",
        }[kind]
    )


# (route, the URL's arguments, the queries it makes, status, message). Query strings the
# page does not read change nothing; the filters and the showdown say what is wrong. No
# first-host check: the process has seen the host (hosts.host_exists).
READS = [
    # Home: open tables, closed tables and tonight's leaders of the open ones.
    ("home", {}, 3, 200, None),
    # The table page and the TV also read tonight's totals (one grouped query); each is one
    # snapshot (the table row before, the version after). The TV also reads the last
    # result's seats (it reads no league rating).
    ("table", {"table_id"}, 7, 200, None),
    # The list of filed matches is one snapshot too: the row, a page of matches, the version.
    ("matches", {"table_id"}, 3, 200, None),
    ("match", {"table_id", "number"}, 4, 200, None),
    ("api_table", {"table_id"}, 6, 200, None),
    ("tv", {"table_id"}, 8, 200, None),
    # The row (for the tag), then the results a chunk at a time as the file streams.
    ("table_results_csv", {"table_id"}, 2, 200, None),
    # The league's results: the stamp (for the tag), then a chunk of matches; no filter.
    ("results_csv", {}, 2, 200, None),
    # Player, totals by mode, rating list, head-to-head, best night, the chart's matches, the
    # history page (a bad ?page= shows page 1, uncached), the stamp and whether the ratings
    # are updating (kept with it).
    ("player", {"player_id"}, 9, 200, None),
    ("rules", {}, 0, 200, None),
    # The filter form shows its table, season and venue choices again, with the errors.
    ("standings", {}, 4, 400, "There is no such table."),
    ("table_standings", {"table_id"}, 3, 400, "Enter dates as YYYY-MM-DD."),
    ("api_standings", {}, 1, 400, "There is no such table."),
    ("standings_csv", {}, 0, 400, "There is no such table."),
    ("showdown", {}, 0, 400, None),
]
QUERY_FIELDS = ["table", "from", "to", "season", "mode", "page", "match", "player", "name_1",
                "hand_1", "hand_2", "q"]  # fmt: skip


class TestReads:
    @pytest.mark.parametrize("kind", PAYLOADS)
    @pytest.mark.parametrize("route, needs, budget, status, message", READS)
    def test_query_strings(
        self, client, league, django_assert_num_queries, kind, route, needs, budget, status, message
    ):
        values = {
            "table_id": league.pk,
            "number": 1,
            "player_id": Player.objects.order_by("pk").first().pk,
        }
        url = reverse(f"matches:{route}", kwargs={k: values[k] for k in needs})
        before = written()
        with django_assert_num_queries(budget):
            response = client.get(url, dict.fromkeys(QUERY_FIELDS, PAYLOADS[kind]))
            # A streamed answer (the CSV) reads as it is sent: count those reads too.
            content = (
                b"".join(response.streaming_content) if response.streaming else response.content
            )
        assert response.status_code == status
        assert written() == before
        body = content.decode("utf-8")
        if message:
            assert message in body
        if route == "showdown":
            assert 'role="alert"' in body


@pytest.mark.parametrize("table", ["²", "٣", "9" * 5_000])
def test_showdown_page_with_a_table_id_int_cannot_read(client, league, table):
    # Digits by str.isdigit() that int() refuses: a superscript, an Arabic-Indic digit, and
    # more digits than Python converts.
    response = client.get(reverse("matches:showdown"), {"table": table})
    assert response.status_code == 200
    assert 'name="name_1"' in response.content.decode()


# Lengths over 64 KiB are refused before any view (tests/web/test_request_limits.py).
@pytest.mark.parametrize("length", ["0" * 30 + "2", "20000", "0" * 30 + "20000"])
def test_showdown_api_with_a_declared_length_int_cannot_read(client, host, length):
    # More digits than int() converts was a 500; leading zeros are still the length they say.
    response = client.post(
        reverse("matches:api_showdown"), b"{}", content_type="application/json",
        CONTENT_LENGTH=length,
    )  # fmt: skip
    assert response.status_code == 400
    # Too large by its length, or read as Django reads it: an empty or cut-short body.
    errors = (
        "A showdown request is at most 16 KB: send at most 10 hands.",
        str(showdown.BAD_SHOWDOWN_JSON),
    )
    assert response.json()["error"] in errors
