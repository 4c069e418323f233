"""The spectator's poll answered before Django (web.polls): an anonymous viewer's poll gets,
from the WSGI application, without Django's request, signals, middlewares and view, the very
answer the whole stack sends it (a 304 to the current tag, else the 200; status, every header,
body); anyone else, and any poll it has not seen answered, goes through the whole stack.

These tests call the WSGI applications themselves (Django's test client calls Django's
handler, which never meets the poll's own path): SpectatorPolls around Django's WSGI handler,
as gunicorn.conf.py's worker serves it, and Django's handler alone, the whole stack. Each is
built for the request, under the test's settings, as a new process builds it."""

import contextlib
import datetime
from dataclasses import dataclass
from http.cookies import SimpleCookie

import pytest
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from matches.core import autobackup
from matches.rules.nights import night_start
from matches.web.polls import SpectatorPolls
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
PORTUGUESE = {"HTTP_ACCEPT_LANGUAGE": "pt-PT,pt;q=0.9"}
GARBLED = "not-a-token!"


def polls(table) -> dict[str, tuple[str, dict]]:
    """Every poll a spectator's page sends, fragment and whole page."""
    return {
        "page": (reverse("matches:table", args=[table.pk]), {}),
        "board": (reverse("matches:table", args=[table.pk]), HTMX),
        "tv": (reverse("matches:tv", args=[table.pk]), {}),
        "tv board": (reverse("matches:tv", args=[table.pk]), HTMX),
        "json": (reverse("matches:api_table", args=[table.pk]), {}),
    }


@dataclass
class Answer:
    """What the WSGI server gets from the application (it adds only Date and its own)."""

    status: str
    headers: list[tuple[str, str]]
    content: bytes
    through_django: bool  # Django's handler ran (its request_started was sent)

    @property
    def status_code(self) -> int:
        return int(self.status[:3])

    @property
    def cookies(self) -> SimpleCookie:
        cookies: SimpleCookie = SimpleCookie()
        for name, value in self.headers:
            if name == "Set-Cookie":
                cookies.load(value)
        return cookies

    def __getitem__(self, name: str) -> str:
        return next(value for key, value in self.headers if key.lower() == name.lower())

    def __contains__(self, name: str) -> bool:
        return any(key.lower() == name.lower() for key, _ in self.headers)


@contextlib.contextmanager
def _connections_kept():
    # As Django's test client does: the test's transaction holds the connection, which
    # Django's handler would otherwise close at the start and end of each request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


class WsgiClient:
    """A browser with these cookies, calling a WSGI application."""

    def __init__(self, make_app, cookies: dict[str, str]) -> None:
        self.make_app, self.cookies = make_app, cookies

    def get(self, path: str, **extra: str) -> Answer:
        return self.request("GET", path, extra)

    def head(self, path: str, **extra: str) -> Answer:
        return self.request("HEAD", path, extra)

    def request(self, method: str, path: str, extra: dict) -> Answer:
        environ = RequestFactory().generic(method, path, **extra).environ
        sent = [f"{name}={value}" for name, value in self.cookies.items()]
        environ["HTTP_COOKIE"] = "; ".join([*sent, *filter(None, [extra.get("HTTP_COOKIE")])])
        got: dict = {}
        ran: list = []

        def start_response(status, headers, exc_info=None):
            got.update(status=status, headers=list(headers))

        def started(**kwargs):
            ran.append(True)

        request_started.connect(started)
        try:
            with _connections_kept():
                body = self.make_app()(environ, start_response)
                try:
                    content = b"".join(body)
                finally:
                    if hasattr(body, "close"):
                        body.close()
        finally:
            request_started.disconnect(started)
        return Answer(got["status"], got["headers"], content, bool(ran))


def full_stack_client(cookies: dict[str, str]) -> WsgiClient:
    """Django's WSGI handler alone: the whole stack, every time."""
    return WsgiClient(WSGIHandler, cookies)


def fresh_client(cookies: dict[str, str]) -> WsgiClient:
    """The WSGI application as deployed."""
    return WsgiClient(lambda: SpectatorPolls(WSGIHandler()), cookies)


def answer(response: Answer, *, mask_cookie_values: bool = False) -> tuple:
    """Everything a browser receives."""
    headers = response.headers
    if mask_cookie_values:  # a fresh random token, its expiry counted from now
        headers = [(k, v.split("=", 1)[0] if k == "Set-Cookie" else v) for k, v in headers]
    return response.status, headers, response.content


def took_fast_path(response: Answer) -> bool:
    return not response.through_django


def current_tag(path: str, headers: dict, cookies: dict[str, str]) -> str:
    response = fresh_client(cookies).get(path, **headers)
    assert response.status_code == 200
    return response["ETag"]


def poll_both_ways(
    path: str, headers: dict, cookies: dict[str, str], sent=lambda tag: tag
) -> tuple:
    """The same poll (by default with the current tag; sent(tag) is the If-None-Match, None
    for none) through the whole stack and, twice (the first teaches it), through the app as
    deployed."""
    tag = current_tag(path, headers, cookies)
    conditional = dict(headers)
    if sent(tag) is not None:
        conditional["HTTP_IF_NONE_MATCH"] = sent(tag)
    full = full_stack_client(cookies).get(path, **conditional)
    fresh_client(cookies).get(path, **conditional)
    served = fresh_client(cookies).get(path, **conditional)
    return full, served


@pytest.fixture
def table(host):
    table = make_table(host=host)
    tap(table, "Alice")
    return table


def live_session(client_with_login) -> str:
    return client_with_login.cookies[settings.SESSION_COOKIE_NAME].value


class TestSameAnswerAsTheWholeStack:
    @pytest.mark.parametrize("kind", ["page", "board", "tv", "tv board", "json"])
    @pytest.mark.parametrize("language", ["en", "pt"])
    @pytest.mark.parametrize("cookie", ["none", "stale csrf token", "language cookie"])
    def test_a_spectators_current_poll_is_answered_early_with_the_same_304(
        self, table, kind, language, cookie
    ):
        path, headers = polls(table)[kind]
        if language == "pt":
            headers = {**headers, **PORTUGUESE}
        cookies = {
            "none": {},
            # A token of the right shape the server never issued: the stack keeps it as is.
            "stale csrf token": {settings.CSRF_COOKIE_NAME: "a" * 32},
            "language cookie": {settings.LANGUAGE_COOKIE_NAME: language},
        }[cookie]
        full, served = poll_both_ways(path, headers, cookies)
        assert full.status_code == 304
        assert not took_fast_path(full)
        assert took_fast_path(served)
        assert answer(served) == answer(full)
        expected_language = "pt" if language == "pt" else "en"
        if kind != "json":  # the JSON is the same in every language and says none
            assert served["Content-Language"] == expected_language

    @pytest.mark.parametrize("kind", ["page", "board", "tv", "tv board", "json"])
    @pytest.mark.parametrize("language", ["en", "pt"])
    @pytest.mark.parametrize("sent", ["no tag", "an old tag"])
    def test_a_spectators_fetch_is_answered_early_with_the_same_200(
        self, table, kind, language, sent
    ):
        path, headers = polls(table)[kind]
        if language == "pt":
            headers = {**headers, **PORTUGUESE}
        old = {"no tag": lambda tag: None, "an old tag": lambda tag: '"t1.v1.g0.0.en.n0"'}[sent]
        full, served = poll_both_ways(path, headers, {}, sent=old)
        assert full.status_code == 200
        assert not took_fast_path(full)
        assert took_fast_path(served)
        assert answer(served) == answer(full)
        assert b"Alice" in served.content

    @pytest.mark.parametrize("kind", ["page", "board", "tv", "tv board", "json"])
    @pytest.mark.parametrize("language", ["en", "pt"])
    def test_a_garbled_csrf_cookie_gets_the_whole_stacks_new_cookie(self, table, kind, language):
        path, headers = polls(table)[kind]
        if language == "pt":
            headers = {**headers, **PORTUGUESE}
        full, served = poll_both_ways(path, headers, {settings.CSRF_COOKIE_NAME: GARBLED})
        assert not took_fast_path(served)
        # A fresh random token each time: the same answer but for the token's value.
        assert served.cookies[settings.CSRF_COOKIE_NAME].value not in ("", GARBLED)
        assert answer(served, mask_cookie_values=True) == answer(full, mask_cookie_values=True)
        assert "private" in served["Cache-Control"]

    @pytest.mark.parametrize("kind", ["page", "board", "tv", "tv board", "json"])
    @pytest.mark.parametrize("language", ["en", "pt"])
    def test_a_dead_sessions_poll_takes_the_whole_stack(self, table, kind, language):
        path, headers = polls(table)[kind]
        if language == "pt":
            headers = {**headers, **PORTUGUESE}
        dead = {settings.SESSION_COOKIE_NAME: "x" * 32}
        full, served = poll_both_ways(path, headers, dead)
        assert not took_fast_path(served)
        assert answer(served) == answer(full)

    @pytest.mark.parametrize("kind", ["page", "board", "tv", "tv board", "json"])
    @pytest.mark.parametrize("language", ["en", "pt"])
    def test_a_hosts_poll_never_takes_the_fast_path(self, table, host_client, kind, language):
        path, headers = polls(table)[kind]
        if language == "pt":
            headers = {**headers, **PORTUGUESE}
        session = {settings.SESSION_COOKIE_NAME: live_session(host_client)}
        full, served = poll_both_ways(path, headers, session)
        assert full.status_code == 304
        assert not took_fast_path(served)
        assert answer(served) == answer(full)
        if kind in ("page", "board"):
            assert "private" in served["Cache-Control"]  # the host's own page, never shared

    def test_a_hosts_poll_with_a_spectators_tag_is_not_answered_from_what_was_learnt(
        self, table, host_client
    ):
        """A host polling the JSON with a tag a spectator taught the fast path goes through
        the whole stack, and gets the host's own document (players' names as entered, issue
        22) under its own tag, never the spectators'."""
        path, headers = polls(table)["json"]
        _, served = poll_both_ways(path, headers, {})
        assert took_fast_path(served)
        session = {settings.SESSION_COOKIE_NAME: live_session(host_client)}
        host_poll = fresh_client(session).get(path, HTTP_IF_NONE_MATCH=served["ETag"])
        assert host_poll.status_code == 200 and host_poll["ETag"] != served["ETag"]
        assert "private" in host_poll["Cache-Control"]
        assert not took_fast_path(host_poll)


class TestOnlyCurrentPlainPolls:
    def test_a_poll_after_a_write_gets_the_new_board_from_the_whole_stack(self, table):
        path, headers = polls(table)["board"]
        _, served = poll_both_ways(path, headers, {})
        old_tag = served["ETag"]
        tap(table, "Ben")
        after = fresh_client({}).get(path, HTTP_IF_NONE_MATCH=old_tag, **headers)
        assert after.status_code == 200
        assert after["ETag"] != old_tag
        assert not took_fast_path(after)
        assert b"Ben" in after.content

    @pytest.mark.parametrize(
        "extra",
        [
            {"QUERY_STRING": "x=1"},
            {"HTTP_IF_MATCH": '"other"'},
            {"HTTP_IF_UNMODIFIED_SINCE": "Wed, 21 Oct 2015 07:28:00 GMT"},
            {"HTTP_COOKIE": "messages=anything"},
        ],
        ids=["query", "if-match", "if-unmodified-since", "other cookie"],
    )
    def test_any_other_poll_takes_the_whole_stack(self, table, extra):
        path, headers = polls(table)["board"]
        _, served = poll_both_ways(path, headers, {})
        asked = {**headers, "HTTP_IF_NONE_MATCH": served["ETag"], **extra}
        full = full_stack_client({}).get(path, **asked)
        other = fresh_client({}).get(path, **asked)
        assert not took_fast_path(other)
        assert answer(other) == answer(full)

    @pytest.mark.parametrize(
        "sent",
        [lambda tag: "*", lambda tag: f'"old", {tag}', lambda tag: f"W/{tag}"],
        ids=["wildcard", "list", "weak"],
    )
    def test_a_tag_django_matches_its_own_way_takes_the_whole_stacks_304(self, table, sent):
        path, headers = polls(table)["board"]
        full, served = poll_both_ways(path, headers, {}, sent=sent)
        assert full.status_code == 304
        assert not took_fast_path(served)
        assert answer(served) == answer(full)

    def test_an_unknown_host_is_the_whole_stacks_400(self, table):
        path, headers = polls(table)["tv board"]
        _, served = poll_both_ways(path, headers, {})
        asked = {**headers, "HTTP_IF_NONE_MATCH": served["ETag"], "HTTP_HOST": "evil.example"}
        full = full_stack_client({}).get(path, **asked)
        other = fresh_client({}).get(path, **asked)
        assert full.status_code == other.status_code == 400
        assert answer(other) == answer(full)

    def test_a_head_request_is_not_answered_early(self, table):
        path, headers = polls(table)["json"]
        _, served = poll_both_ways(path, headers, {})
        head = fresh_client({}).head(path, HTTP_IF_NONE_MATCH=served["ETag"])
        assert head.status_code == 304
        assert not took_fast_path(head)


class TestTheNightAndTheBackup:
    def test_after_noon_a_poll_gets_the_new_nights_tag_from_the_whole_stack(
        self, table, monkeypatch
    ):
        """Tonight's totals start afresh at noon with no write on the table, so the tag
        names the night: a poll after noon is never answered with the last night's."""
        path, headers = polls(table)["board"]
        _, served = poll_both_ways(path, headers, {})
        assert took_fast_path(served)
        tomorrow = timezone.now() + datetime.timedelta(days=1)
        monkeypatch.setattr(timezone, "now", lambda: tomorrow)
        after = fresh_client({}).get(path, HTTP_IF_NONE_MATCH=served["ETag"], **headers)
        assert not took_fast_path(after)
        assert after.status_code == 200
        assert after["ETag"] != served["ETag"]
        assert after["ETag"].endswith(f'.{night_start(tomorrow).strftime("n%Y%m%d")}"')
        # The night's own answers are learnt afresh: its 304, once seen, is answered early.
        for _ in range(2):
            again = fresh_client({}).get(path, HTTP_IF_NONE_MATCH=after["ETag"], **headers)
        assert took_fast_path(again) and again.status_code == 304

    def test_a_poll_answered_early_still_starts_the_nightly_backup_when_due(
        self, table, monkeypatch
    ):
        path, headers = polls(table)["json"]
        _, served = poll_both_ways(path, headers, {})
        looked = []
        monkeypatch.setattr(autobackup, "backup_nightly_if_due", lambda: looked.append(True))
        fresh_client({}).get(path, HTTP_IF_NONE_MATCH=served["ETag"], **headers)
        assert looked == [True]


class TestCost:
    @pytest.mark.parametrize("kind", ["board", "tv board", "json"])
    def test_the_early_304_reads_no_more_than_the_whole_stacks(self, table, kind):
        path, headers = polls(table)[kind]
        tag = current_tag(path, headers, {})
        conditional = {**headers, "HTTP_IF_NONE_MATCH": tag}
        full_client = full_stack_client({})
        with CaptureQueriesContext(connection) as full_queries:
            full = full_client.get(path, **conditional)
        fresh_client({}).get(path, **conditional)  # teaches the fast path
        with CaptureQueriesContext(connection) as fast_queries:
            served = fresh_client({}).get(path, **conditional)
        assert full.status_code == served.status_code == 304
        assert took_fast_path(served)
        assert len(fast_queries) <= len(full_queries)
        assert len(fast_queries) == 1  # the one stamp read the view's ETag needs

    def test_polls_of_one_table_that_came_together_share_one_read(
        self, table, django_assert_num_queries
    ):
        """The server's main thread asks with the stamps it read for the requests one wait
        returned (gunicorn.conf.py): they had all begun coming before that read."""
        kinds = [polls(table)[kind] for kind in ("board", "tv board", "json")]
        environs = []
        for path, headers in kinds:
            tag = current_tag(path, headers, {})
            conditional = {**headers, "HTTP_IF_NONE_MATCH": tag}
            fresh_client({}).get(path, **conditional)  # teaches the fast path
            environs.append(RequestFactory().get(path, **conditional).environ)
        application = SpectatorPolls(WSGIHandler())
        rows: dict = {}
        with django_assert_num_queries(1):
            answers = [application.look(environ, rows) for environ in environs]
        assert [(answer[0][:3], seen) for answer, seen in answers] == [("304", True)] * 3
        # A wait later, a tap since: read afresh, and the new state is told.
        tap(table, "Ben")
        with django_assert_num_queries(1):
            answer, seen = application.look(environs[2], {})
        assert seen and answer is None  # the stack answers it, and teaches it


@pytest.mark.usefixtures("english")
class TestAnonymousPollsCostLess:
    """A spectator's 304 poll once cost a worker about 1 ms of CPU, most of it in layers
    an anonymous poll does not need; it is now answered early (web.polls.SpectatorPolls) with
    the whole stack's own 304, and nothing a visitor sends can make it answer anyone else."""

    @pytest.fixture
    def fast(self):
        # This module itself: the tests below call its helpers as fast.<helper>.
        from tests.web import test_spectator_fast_path

        return test_spectator_fast_path

    @pytest.fixture
    def table(self, host):
        table = make_table(host=host)
        tap(table, "Alice")
        return table

    @pytest.mark.parametrize("kind", ["board", "tv board", "json"])
    def test_a_current_anonymous_poll_skips_the_session_and_view_layers(self, fast, table, kind):
        path, headers = fast.polls(table)[kind]
        full, served = fast.poll_both_ways(path, headers, {})
        assert fast.took_fast_path(served)
        assert fast.answer(served) == fast.answer(full)
        assert served.status_code == 304 and served.content == b""

    def test_a_wildcard_tag_is_the_whole_stacks_304_and_teaches_nothing(self, fast, table):
        path, headers = fast.polls(table)["board"]
        asked = {**headers, "HTTP_IF_NONE_MATCH": "*"}
        full = fast.full_stack_client({}).get(path, **asked)
        for _ in range(2):
            served = fast.fresh_client({}).get(path, **asked)
            assert not fast.took_fast_path(served)
            assert fast.answer(served) == fast.answer(full)

    def test_a_garbled_token_cannot_hand_its_cookie_to_spectators(self, fast, table):
        """A poll whose CSRF cookie the stack replaces (Set-Cookie, private) is never
        learnt: the next plain spectator gets the shared, cookie-free 304."""
        path, headers = fast.polls(table)["board"]
        tag = fast.current_tag(path, headers, {})
        garbled = {settings.CSRF_COOKIE_NAME: fast.GARBLED}
        asked = {**headers, "HTTP_IF_NONE_MATCH": tag}
        for _ in range(3):
            poisoned = fast.fresh_client(garbled).get(path, **asked)
            assert poisoned.cookies[settings.CSRF_COOKIE_NAME].value
        fast.fresh_client({}).get(path, **asked)
        plain = fast.fresh_client({}).get(path, **asked)
        assert fast.took_fast_path(plain)
        assert plain.cookies == {} and "Set-Cookie" not in plain
        assert "public" in plain["Cache-Control"] and "private" not in plain["Cache-Control"]

    def test_a_host_is_never_answered_from_a_spectators_learnt_304(self, fast, table, host_client):
        path, headers = fast.polls(table)["board"]
        _, served = fast.poll_both_ways(path, headers, {})
        assert "public" in served["Cache-Control"]
        host_client.get(path, **headers)  # sets the CSRF cookie the host's tag names
        tag = host_client.get(path, **headers)["ETag"]
        cookies = {name: morsel.value for name, morsel in host_client.cookies.items()}
        for _ in range(2):  # the first would teach, if a host's answer could be learnt
            mine = fast.fresh_client(cookies).get(path, HTTP_IF_NONE_MATCH=tag, **headers)
            assert mine.status_code == 304
            assert not fast.took_fast_path(mine)
            assert "private" in mine["Cache-Control"]
