"""Cache-Control on every answer: logged-in pages are private, forms carrying the CSRF
token are never stored, and an answer setting a cookie is never shared."""

import pytest
from django.conf import settings
from django.urls import reverse

from matches.models import (
    Player,
    Table,
)
from tests.clients import HTMX, FormClient
from tests.factories import make_table, tap

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


def cache_directives(response) -> set[str]:
    return {part.strip() for part in response.get("Cache-Control", "").split(",") if part.strip()}


def spectator_urls(table: Table) -> dict[str, tuple[str, dict]]:
    return {
        "table page": (reverse("matches:table", args=[table.pk]), {}),
        "board": (reverse("matches:table", args=[table.pk]), HTMX),
        "tv": (reverse("matches:tv", args=[table.pk]), {}),
        "standings": (reverse("matches:standings"), {}),
        "table json": (reverse("matches:api_table", args=[table.pk]), {}),
        "standings json": (reverse("matches:api_standings"), {}),
        "ratings json": (reverse("matches:api_ratings"), {}),
    }


class TestCacheHeaders:
    """Logged-in pages carrying the CSRF token and "Log out <name>" once sent no
    Cache-Control; and a `public` spectator answer could carry a Set-Cookie (a fresh
    csrftoken for a garbled one, or a sessionid deletion), which a shared cache would hand
    to every spectator."""

    @pytest.mark.parametrize("page", ["home", "match", "rules", "seasons", "player"])
    def test_every_logged_in_page_is_private(self, host_client, page):
        table = make_table()
        tap(table, "Ben")
        url = {
            "home": reverse("matches:home"),
            "match": reverse("matches:match", args=[table.pk, 1]),
            "rules": reverse("matches:rules"),
            "seasons": reverse("matches:seasons"),
            "player": reverse("matches:player", args=[Player.objects.get(name="Ben").pk]),
        }[page]
        response = host_client.get(url)
        assert response.status_code == 200
        assert "Log out host" in response.content.decode()
        directives = cache_directives(response)
        assert "private" in directives and "public" not in directives

    @pytest.mark.parametrize("page", ["new table", "roster", "close", "rename"])
    def test_a_form_with_the_csrf_token_is_never_stored(self, host_client, page):
        table = make_table()
        url = {
            "new table": reverse("matches:table_new"),
            "roster": reverse("matches:roster", args=[table.pk]),
            "close": reverse("matches:close", args=[table.pk]),
            "rename": reverse("matches:player_rename", args=[Player.objects.first().pk]),
        }[page]
        response = host_client.get(url)
        assert response.status_code == 200
        assert "csrfmiddlewaretoken" in response.content.decode()
        assert {"private", "no-store"} <= cache_directives(response)
        assert "public" not in cache_directives(response)
        # The token's cookie still reaches the browser: the form can be posted.
        assert response.cookies[settings.CSRF_COOKIE_NAME].value

    def test_the_first_host_form_is_never_stored(self, db, client):
        response = client.get(reverse("matches:setup"))
        assert response.status_code == 200
        assert {"private", "no-store"} <= cache_directives(response)

    def answers_for_this_browser_then_shares(self, table: Table, kind: str, name: str, value):
        url, extra = spectator_urls(table)[kind]
        client = FormClient()
        client.cookies[name] = value
        response = client.get(url, **extra)
        assert response.status_code == 200
        # The cookie is set (a fresh token, or the dead session forgotten) on an answer for
        # this browser only.
        assert response.cookies[name].value != value
        directives = cache_directives(response)
        assert "private" in directives and "public" not in directives, directives
        # The next poll, with the browser's cookie fixed, is a spectator's shared answer again.
        if response.cookies[name]["max-age"] == 0:
            del client.cookies[name]  # a deleted cookie: a browser drops it (the client keeps "")
        again = client.get(url, **extra)
        assert again.status_code == 200 and not again.cookies
        if kind != "ratings json":  # revalidated every time, and never public
            assert cache_directives(again) == {"public", "max-age=2"}

    @pytest.mark.parametrize("kind", list(spectator_urls(Table(pk=1))))
    @pytest.mark.parametrize(
        "cookie",
        [
            (settings.CSRF_COOKIE_NAME, "not-a-token"),  # Django issues a fresh one
            (settings.SESSION_COOKIE_NAME, "x"),  # not a session key: deleted on any answer
        ],
        ids=["garbled csrftoken", "garbled sessionid"],
    )
    def test_an_answer_setting_a_cookie_is_never_shared(self, host, kind, cookie):
        table = make_table()
        tap(table, "Ben")
        self.answers_for_this_browser_then_shares(table, kind, *cookie)

    @pytest.mark.parametrize("kind", ["table page", "board", "standings"])
    def test_a_dead_sessions_cookie_is_forgotten_privately(self, host, kind):
        # These pages read the session (is a host logged in?): one long gone is deleted.
        table = make_table()
        self.answers_for_this_browser_then_shares(
            table, kind, settings.SESSION_COOKIE_NAME, "a" * 32
        )

    def test_a_304_setting_a_cookie_is_not_shared_either(self, host):
        table = make_table()
        url = reverse("matches:table", args=[table.pk])
        tag = FormClient().get(url, **HTMX)["ETag"]
        client = FormClient()
        client.cookies[settings.CSRF_COOKIE_NAME] = "not-a-token"
        again = client.get(url, HTTP_IF_NONE_MATCH=tag, **HTMX)
        assert again.status_code == 304
        assert again.cookies[settings.CSRF_COOKIE_NAME].value != "not-a-token"
        assert "public" not in cache_directives(again)
