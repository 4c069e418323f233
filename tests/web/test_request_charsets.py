"""A POST declaring a charset its form cannot be read in (a real one other than UTF-8, or a
made-up one) is refused 400 with one short sentence and one log line, whoever sends it and
wherever it goes; nothing is saved. It once answered 500 with 86 KB of traceback in the log,
to anyone, on every POST URL."""

import logging

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient, Client
from django.urls import reverse

from matches.models import Match, Player, Season, Table, Tap
from tests.clients import FormClient
from tests.factories import make_table, open_match, seat_of

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]

FORM = "application/x-www-form-urlencoded"
CHARSETS = ["latin-1", '"ISO-8859-1"', "windows-1252", "utf-16", "x-no-such-charset", "bogus"]


def _saved() -> tuple:
    return (
        Table.objects.count(),
        Match.objects.count(),
        Tap.objects.count(),
        Player.objects.count(),
        Season.objects.count(),
        tuple(Player.objects.order_by("pk").values_list("name", flat=True)),
    )


@pytest.fixture
def table(host):
    return make_table(host=host, players=["Zoë", "Ben", "Cara"])


def _posts(table) -> list[tuple[str, bytes]]:
    """Every kind of POST the app takes, each with a body that would change something."""
    match = open_match(table)
    zoe = seat_of(match, "Zoë").player_id
    return [
        (reverse("login"), b"username=host&password=a-long-test-password"),
        (reverse("matches:setup"), b"username=x&password1=p&password2=p"),
        (reverse("matches:table_new"), "name=Caf\xe9&players=Ann\nBob\nCy".encode("latin-1")),
        (
            reverse("matches:tap", args=[table.pk]),
            f"player={zoe}&match={match.pk}".encode(),
        ),
        (reverse("matches:undo", args=[table.pk]), b"drop_roster=1"),
        (reverse("matches:close", args=[table.pk]), b"confirm=1"),
        (reverse("matches:player_rename", args=[zoe]), "name=Zo\xeb M".encode("latin-1")),
        (reverse("matches:season_new"), b"name=Spring&start=2026-01-01&end=2026-03-31"),
        (reverse("matches:language"), b"language=pt&next=/"),
        (reverse("matches:api_showdown"), b"{}"),
        (reverse("admin:login"), b"username=host&password=x"),
    ]


def _assert_refused(response, caplog, before, path: str) -> None:
    assert response.status_code == 400, (path, response.status_code)
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode() == (
        "This request's character set cannot be read; send it as UTF-8."
    )
    assert _saved() == before
    problems = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(problems) == 1, [r.getMessage() for r in problems]
    assert problems[0].exc_info is None  # one line, no traceback
    assert problems[0].getMessage() == f"Bad Request: {path}"


class TestAPostInACharsetItCannotBeReadIn:
    @pytest.mark.parametrize("charset", CHARSETS)
    def test_anonymous_with_a_made_up_csrf_cookie_on_every_post_url(self, table, charset, caplog):
        for url, data in _posts(table):
            client = Client(enforce_csrf_checks=True, raise_request_exception=False)
            client.cookies["csrftoken"] = "m" * 32
            before = _saved()
            caplog.clear()
            with caplog.at_level(logging.INFO):
                response = client.generic(
                    "POST", url, data, content_type=f"{FORM}; charset={charset}"
                )
            _assert_refused(response, caplog, before, url)

    @pytest.mark.parametrize("charset", CHARSETS)
    def test_a_logged_in_host_with_a_real_csrf_token(self, table, host, charset, caplog):
        client = FormClient(enforce_csrf_checks=True, raise_request_exception=False)
        client.force_login(host)
        client.get(reverse("matches:table", args=[table.pk]))  # the CSRF cookie
        token = client.cookies["csrftoken"].value
        for url, data in _posts(table):
            before = _saved()
            caplog.clear()
            with caplog.at_level(logging.INFO):
                response = client.generic(
                    "POST",
                    url,
                    data,
                    content_type=f"{FORM}; charset={charset}",
                    HTTP_X_CSRFTOKEN=token,
                )
            _assert_refused(response, caplog, before, url)

    @pytest.mark.parametrize("charset", ["utf-8", "UTF-8", "utf8", '"utf-8"'])
    def test_utf_8_by_any_spelling_is_read(self, table, host, charset):
        client = FormClient()
        client.force_login(host)
        match = open_match(table)
        zoe = seat_of(match, "Zoë").player_id
        response = client.generic(
            "POST",
            reverse("matches:tap", args=[table.pk]),
            f"player={zoe}&match={match.pk}".encode(),
            content_type=f"{FORM}; charset={charset}",
        )
        assert response.status_code in (200, 302)
        assert Tap.objects.filter(player_id=zoe).count() == 1

    @pytest.mark.parametrize("charset", ["latin-1", "bogus"])
    def test_multipart_in_any_charset_is_refused_unread(self, table, charset):
        client = Client()
        client.cookies["csrftoken"] = "m" * 32
        before = _saved()
        response = client.generic(
            "POST",
            reverse("matches:table_new"),
            b'--xx\r\nContent-Disposition: form-data; name="name"\r\n\r\nCaf\xe9\r\n--xx--\r\n',
            content_type=f"multipart/form-data; boundary=xx; charset={charset}",
        )
        assert response.status_code == 415
        assert _saved() == before

    def test_the_refusal_is_in_the_readers_language(self, table):
        response = Client().generic(
            "POST",
            reverse("matches:tap", args=[table.pk]),
            b"player=1",
            content_type=f"{FORM}; charset=latin-1",
            HTTP_ACCEPT_LANGUAGE="pt-PT",
        )
        assert response.status_code == 400
        assert response.content.decode() == (
            "Não é possível ler o conjunto de caracteres deste pedido; envie-o em UTF-8."
        )

    def test_through_the_asgi_handler_too(self, table, caplog):
        """The server is ASGI: Django's ASGI handler reads the body before any middleware."""
        client = AsyncClient(enforce_csrf_checks=True, raise_request_exception=False)
        client.cookies["csrftoken"] = "m" * 32
        before = _saved()
        url = reverse("matches:table_new")

        async def post():
            return await client.generic(
                "POST", url, b"name=Caf\xe9&players=Ann%0ABob%0ACy",
                content_type=f"{FORM}; charset=latin-1",
            )  # fmt: skip

        with caplog.at_level(logging.INFO):
            response = async_to_sync(post)()
        _assert_refused(response, caplog, before, url)
