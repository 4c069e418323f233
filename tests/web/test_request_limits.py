"""A request body is judged before anything reads it: the app takes no file uploads, and a
body over its cap is refused by its declared length, in the reader's language."""

import pytest
from django.conf import settings
from django.http import multipartparser
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.factories import make_table, open_match

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


class Untouchable:
    """A request body nobody may read: a 300 MB upload still on its way."""

    def read(self, *args):
        raise AssertionError("the request body was read")

    readline = read


class TestUploadsAreRefusedBeforeAnythingReadsThem:
    """An anonymous multipart POST of 300 MB with a made-up csrftoken cookie was once
    spooled to a temp file, then answered 403."""

    HUGE = str(300 * 1024 * 1024)

    @pytest.fixture(autouse=True)
    def no_parsing(self, monkeypatch):
        def parse(*args, **kwargs):
            raise AssertionError("a multipart body was parsed")

        monkeypatch.setattr(multipartparser.MultiPartParser, "parse", parse)

    def post_unread(self, url: str, content_type: str, length: str):
        client = Client()
        client.cookies["csrftoken"] = "x" * 32
        return client.generic(
            "POST",
            url,
            CONTENT_TYPE=content_type,
            CONTENT_LENGTH=length,
            **{"wsgi.input": Untouchable()},
        )

    @pytest.mark.parametrize("route", ["login", "matches:tap", "matches:setup", "admin:login"])
    def test_a_huge_multipart_upload_is_refused_unread(self, host, route):
        url = reverse(route, args=[1]) if route == "matches:tap" else reverse(route)
        response = self.post_unread(url, "multipart/form-data; boundary=xyz", self.HUGE)
        assert response.status_code == 415
        assert response["Content-Type"] == "text/plain; charset=utf-8"
        assert response.content.decode() == "This site takes no file uploads."

    def test_any_multipart_body_is_refused_however_small(self, host):
        # Django's test client posts multipart by default; a browser posts our forms urlencoded.
        response = Client().post(reverse("login"), {"username": "host", "password": "x"})
        assert response.status_code == 415
        for kind in ("multipart/mixed; boundary=a", "Multipart/Form-Data; boundary=a"):
            assert self.post_unread(reverse("login"), kind, "10").status_code == 415

    @pytest.mark.parametrize("length", [str(64 * 1024 + 1), HUGE, "9" * 5_000, "0" * 30 + "99999"])
    def test_a_body_over_the_cap_is_refused_by_its_declared_length(self, host, length):
        url = reverse("matches:api_showdown")
        response = self.post_unread(url, "application/x-www-form-urlencoded", length)
        assert response.status_code == 413
        assert response.content.decode() == "This request is too large."

    def test_the_refusal_speaks_the_readers_language(self, host):
        client = Client(HTTP_ACCEPT_LANGUAGE="pt")
        response = client.generic(
            "POST",
            reverse("login"),
            CONTENT_TYPE="text/plain",
            CONTENT_LENGTH=self.HUGE,
            **{"wsgi.input": Untouchable()},
        )
        assert response.status_code == 413
        with translation.override("pt"):
            assert response.content.decode() == translation.gettext("This request is too large.")

    def test_the_largest_forms_of_ours_fit_under_the_cap(self, host_client):
        cap = settings.REQUEST_BODY_MAX_BYTES
        assert cap == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        assert cap == settings.FILE_UPLOAD_MAX_MEMORY_SIZE
        # Even a multipart body let through could not be spooled to a temporary file.
        assert settings.FILE_UPLOAD_HANDLERS == [
            "django.core.files.uploadhandler.MemoryFileUploadHandler"
        ]
        table = make_table()
        names = "\n".join(f"{chr(65 + n)}{'é' * 39}" for n in range(10))  # 10 x 40 letters
        response = host_client.post(
            reverse("matches:roster", args=[table.pk]),
            {"match": open_match(table).pk, "players": names},
        )
        assert response.status_code == 302
        assert open_match(table).seats.count() == 10
        # The showdown API refuses more than 16 KB itself, with its own message.
        big = b'{"hands": {"' + b"A" * (20 * 1024) + b'": "QS"}}'
        api = host_client.post(
            reverse("matches:api_showdown"), big, content_type="application/json"
        )
        assert api.status_code == 400 and "at most 16 KB" in api.json()["error"]
