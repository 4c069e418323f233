"""Polling stays as the fallback of the live pages (a browser without server-sent events, a
stream refused past its cap): every poll a spectator's page sends, with the tag it holds,
gets a 304 while nothing changed, and the new state under a new tag once something has."""

import datetime

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from matches.rules.nights import night_start
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
PORTUGUESE = {"HTTP_ACCEPT_LANGUAGE": "pt-PT,pt;q=0.9"}
KINDS = ["page", "board", "tv", "tv board", "json"]


def polls(table) -> dict[str, tuple[str, dict]]:
    """Every poll a spectator's page sends, fragment and whole page."""
    return {
        "page": (reverse("matches:table", args=[table.pk]), {}),
        "board": (reverse("matches:table", args=[table.pk]), HTMX),
        "tv": (reverse("matches:tv", args=[table.pk]), {}),
        "tv board": (reverse("matches:tv", args=[table.pk]), HTMX),
        "json": (reverse("matches:api_table", args=[table.pk]), {}),
    }


@pytest.fixture
def table(host):
    table = make_table(host=host)
    tap(table, "Alice")
    return table


class TestAPollWithTheCurrentTag:
    @pytest.mark.parametrize("kind", KINDS)
    @pytest.mark.parametrize("language", ["en", "pt"])
    @pytest.mark.parametrize("cookie", ["none", "stale csrf token", "language cookie"])
    def test_gets_a_304_in_the_readers_language(self, table, kind, language, cookie):
        path, headers = polls(table)[kind]
        if language == "pt":
            headers = {**headers, **PORTUGUESE}
        client = Client()
        if cookie == "stale csrf token":  # of the right shape, never issued: kept as it is
            client.cookies[settings.CSRF_COOKIE_NAME] = "a" * 32
        elif cookie == "language cookie":
            client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        fetched = client.get(path, **headers)
        assert fetched.status_code == 200 and "Alice" in fetched.content.decode()
        again = client.get(path, HTTP_IF_NONE_MATCH=fetched["ETag"], **headers)
        assert again.status_code == 304
        assert again.content == b""
        assert again["ETag"] == fetched["ETag"]
        if kind != "json":  # the JSON is the same in every language and says none
            assert again["Content-Language"] == language

    @pytest.mark.parametrize(
        "sent",
        [lambda tag: "*", lambda tag: f'"old", {tag}', lambda tag: f"W/{tag}"],
        ids=["wildcard", "list", "weak"],
    )
    def test_django_matches_it_its_own_way_too(self, table, sent):
        path, headers = polls(table)["board"]
        tag = Client().get(path, **headers)["ETag"]
        assert Client().get(path, HTTP_IF_NONE_MATCH=sent(tag), **headers).status_code == 304

    def test_a_head_request_gets_the_304_too(self, table):
        path, _ = polls(table)["json"]
        tag = Client().get(path)["ETag"]
        assert Client().head(path, HTTP_IF_NONE_MATCH=tag).status_code == 304

    @pytest.mark.parametrize("kind", KINDS)
    def test_a_hosts_poll_gets_its_own_304_never_shared(self, table, host_client, kind):
        path, headers = polls(table)[kind]
        session = host_client.cookies[settings.SESSION_COOKIE_NAME].value

        def host_poll(**extra):  # the session's cookie alone, as the host's poll sends it
            client = Client()
            client.cookies[settings.SESSION_COOKIE_NAME] = session
            return client.get(path, **headers, **extra)

        tag = host_poll()["ETag"]
        again = host_poll(HTTP_IF_NONE_MATCH=tag)
        assert again.status_code == 304
        if kind in ("page", "board"):
            assert "private" in again["Cache-Control"]  # the host's own page


class TestAPollWithAnOldTag:
    @pytest.mark.parametrize("kind", KINDS)
    def test_gets_the_new_state_under_a_new_tag_after_a_write(self, table, kind):
        path, headers = polls(table)[kind]
        old = Client().get(path, **headers)["ETag"]
        tap(table, "Ben")
        after = Client().get(path, HTTP_IF_NONE_MATCH=old, **headers)
        assert after.status_code == 200
        assert after["ETag"] != old
        assert "Ben" in after.content.decode()

    def test_a_made_up_tag_gets_the_whole_answer(self, table):
        path, headers = polls(table)["board"]
        answer = Client().get(path, HTTP_IF_NONE_MATCH='"t1.v1.g0.0.en.n0"', **headers)
        assert answer.status_code == 200 and "Alice" in answer.content.decode()

    def test_a_hosts_poll_with_a_spectators_tag_gets_the_hosts_own_document(
        self, table, host_client
    ):
        """The JSON a host reads carries players' names as entered (issue 22), under its
        own tag: a spectator's tag never gets the host a 304."""
        path, _ = polls(table)["json"]
        spectators = Client().get(path)["ETag"]
        answer = host_client.get(path, HTTP_IF_NONE_MATCH=spectators)
        assert answer.status_code == 200 and answer["ETag"] != spectators
        assert "private" in answer["Cache-Control"]

    def test_after_noon_a_poll_gets_the_new_nights_tag(self, table, monkeypatch):
        """Tonight's totals start afresh at noon with no write on the table, so the tag
        names the night: a poll after noon is never answered with the last night's 304."""
        path, headers = polls(table)["board"]
        old = Client().get(path, **headers)["ETag"]
        tomorrow = timezone.now() + datetime.timedelta(days=1)
        monkeypatch.setattr(timezone, "now", lambda: tomorrow)
        after = Client().get(path, HTTP_IF_NONE_MATCH=old, **headers)
        assert after.status_code == 200
        assert after["ETag"].endswith(f'.{night_start(tomorrow).strftime("n%Y%m%d")}"')
        again = Client().get(path, HTTP_IF_NONE_MATCH=after["ETag"], **headers)
        assert again.status_code == 304
