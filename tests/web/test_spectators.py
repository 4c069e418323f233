"""Spectators at scale: an anonymous viewer's table page, TV board and JSON are the same
bytes and headers for every viewer of a language, cacheable by a shared cache; the language
switcher needs no token; the first-host check costs nothing once a host exists."""

import datetime
import threading
import time
import uuid

import pytest
from csp.constants import SELF
from csp.decorators import csp_update
from csp.utils import build_policy
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.http import HttpResponse
from django.test import override_settings
from django.urls import reverse
from django.utils.module_loading import import_string

from matches.core import stamp as core_stamp
from matches.core.kept import Kept
from matches.models import StandingsStamp
from matches.rules import nights as night_rules
from matches.web.caching import renderings
from matches.web.caching.tags import table_page_tag
from tests.clients import FormClient
from tests.factories import make_host, make_table, tap

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
PAGE_VARY = {"accept-language", "cookie", "hx-request"}


def vary(response) -> set[str]:
    return {part.strip().lower() for part in response.get("Vary", "").split(",") if part.strip()}


def cache_control(response) -> set[str]:
    return {part.strip() for part in response["Cache-Control"].split(",")}


def urls(table) -> dict[str, tuple[str, dict]]:
    return {
        "page": (reverse("matches:table", args=[table.pk]), {}),
        "board": (reverse("matches:table", args=[table.pk]), HTMX),
        "tv": (reverse("matches:tv", args=[table.pk]), {}),
        "tv board": (reverse("matches:tv", args=[table.pk]), HTMX),
        "json": (reverse("matches:api_table", args=[table.pk]), {}),
    }


class TestAnonymousAnswers:
    @pytest.mark.parametrize("kind", ["page", "board", "tv", "tv board", "json"])
    def test_two_spectators_get_the_same_bytes_and_headers(self, host, kind):
        table = make_table()
        tap(table, "Ben")
        url, extra = urls(table)[kind]
        first, second = FormClient().get(url, **extra), FormClient().get(url, **extra)
        assert first.status_code == second.status_code == 200
        assert first.content == second.content
        assert dict(first.headers) == dict(second.headers)
        assert not first.cookies  # nothing set per visitor: no CSRF cookie, no session
        assert cache_control(first) == {"public", "max-age=2"}
        assert first["ETag"]

    @pytest.mark.parametrize("kind", ["page", "board", "tv", "tv board"])
    def test_pages_vary_on_the_fragment_the_language_and_cookies_only(self, host, kind):
        table = make_table()
        url, extra = urls(table)[kind]
        assert vary(FormClient().get(url, **extra)) == PAGE_VARY

    def test_the_json_varies_on_nothing_and_names_no_language(self, host, client):
        table = make_table()
        response = client.get(reverse("matches:api_table", args=[table.pk]))
        assert "Vary" not in response and "Content-Language" not in response, str(
            dict(response.headers)
        )
        english = client.get(reverse("matches:api_table", args=[table.pk]))
        portuguese = client.get(
            reverse("matches:api_table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="pt"
        )
        assert english.content == portuguese.content
        assert english["ETag"] == portuguese["ETag"]

    def test_a_spectators_page_carries_no_csrf_token(self, host):
        table = make_table()
        html = FormClient().get(reverse("matches:table", args=[table.pk])).content.decode()
        assert "csrfmiddlewaretoken" not in html and "x-csrftoken" not in html
        assert "Host login" in html and 'class="language" method="get"' in html

    def test_a_304_keeps_the_shared_cache_headers(self, host, client):
        table = make_table()
        url = reverse("matches:table", args=[table.pk])
        tag = client.get(url, **HTMX)["ETag"]
        again = client.get(url, HTTP_IF_NONE_MATCH=tag, **HTMX)
        assert again.status_code == 304
        assert cache_control(again) == {"public", "max-age=2"} and vary(again) == PAGE_VARY

    def test_each_language_its_own_bytes(self, host):
        table = make_table()
        url = reverse("matches:tv", args=[table.pk])
        english = FormClient().get(url)
        portuguese = FormClient(HTTP_ACCEPT_LANGUAGE="pt").get(url)
        assert "Match 1" in english.content.decode()
        assert "Partida 1" in portuguese.content.decode()
        assert english["ETag"] != portuguese["ETag"]


class TestHostAnswers:
    def test_a_hosts_page_stays_private_and_revalidated(self, host_client):
        table = make_table()
        url = reverse("matches:table", args=[table.pk])
        host_client.get(url)  # the browser has its CSRF cookie, which the host's tags name
        for extra in ({}, HTMX):
            response = host_client.get(url, **extra)
            # Never stored (its tap forms carry the CSRF token): app.js sends the board's tag
            # itself, so the polls still revalidate.
            assert cache_control(response) == {"private", "no-cache", "no-store"}
            assert vary(response) == PAGE_VARY
            assert "csrfmiddlewaretoken" in response.content.decode()  # its tap forms
            again = host_client.get(url, HTTP_IF_NONE_MATCH=response["ETag"], **extra)
            assert again.status_code == 304
            assert cache_control(again) == {"private", "no-cache"}

    def test_a_host_and_a_spectator_get_different_tags(self, host_client):
        table = make_table()
        url = reverse("matches:table", args=[table.pk])
        assert host_client.get(url)["ETag"] != FormClient().get(url)["ETag"]

    def test_a_spectator_with_a_message_waiting_is_not_shared(self, host, client):
        table = make_table()
        # Logging out leaves no message, but a refused login attempt's page does not either:
        # a message stored in an anonymous session is the case to cover.
        session = client.session
        session["_messages"] = (
            '[["__json_message",0,20,"Welcome back"]]'  # the session storage's format
        )
        session.save()
        response = client.get(reverse("matches:table", args=[table.pk]))
        assert "Welcome back" in response.content.decode()
        assert cache_control(response) == {"private", "no-cache"}
        assert "ETag" not in response  # a reload must not revalidate into the old message


class TestKeptRenderings:
    def test_a_new_version_is_rendered_afresh(self, host, client, django_assert_num_queries):
        table = make_table()
        url = reverse("matches:tv", args=[table.pk])
        client.get(url)
        with django_assert_num_queries(1):  # the table row: the rendering is kept
            assert FormClient().get(url).status_code == 200
        tap(table, "Ben")
        fresh = FormClient().get(url).content.decode()
        assert "Ben" in fresh.split("Out", 1)[1]

    def test_a_filing_at_another_table_leaves_the_tvs_tag(self, host):
        """The TV shows nothing league-wide (the league rating left it): a
        match filed elsewhere, this table unchanged, still answers 304."""
        table = make_table(players=["Ann", "Ben", "Cy"])
        for name in ["Cy", "Ben"]:
            tap(table, name)
        other = make_table(players=["Ann", "Dev", "Eve"], name="Back room")
        url = reverse("matches:tv", args=[table.pk])
        first = FormClient().get(url)
        tag = first["ETag"]
        for name in ["Dev", "Eve"]:  # Ann wins at the other table
            tap(other, name)
        assert FormClient().get(url, HTTP_IF_NONE_MATCH=tag).status_code == 304
        assert FormClient().get(url).content == first.content

    def test_a_snapshot_read_across_noon_is_not_kept_as_the_new_nights(self, host, monkeypatch):
        """Tonight's totals start afresh at noon. A snapshot read at 11:59:59 and kept just
        after noon must not be served as the new night's (last night's totals, under the new
        night's tag, until the next tap)."""
        from django.utils import timezone

        noon = datetime.datetime.combine(timezone.localdate(), night_rules.NIGHT_STARTS)
        clock = [timezone.make_aware(noon - datetime.timedelta(seconds=10))]
        monkeypatch.setattr(timezone, "now", lambda: clock[0])
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)  # filed before noon: last night's
        url = reverse("matches:tv", args=[table.pk])
        read = core_stamp.table_snapshot

        def then_noon(**kwargs):
            snapshot = read(**kwargs)
            clock[0] = timezone.make_aware(noon + datetime.timedelta(seconds=1))
            return snapshot

        monkeypatch.setattr(core_stamp, "table_snapshot", then_noon)
        assert "tonight-table" in FormClient().get(url).content.decode()  # read before noon
        monkeypatch.setattr(core_stamp, "table_snapshot", read)
        clock[0] = timezone.make_aware(noon + datetime.timedelta(seconds=2))
        assert "tonight-table" not in FormClient().get(url).content.decode()  # a new night

    def test_the_store_is_bounded(self):
        kept = Kept(2)
        for number in range(3):
            kept.put((number,), (b"x", "text/html"))
        assert kept.get((0,)) is None and kept.get((2,)) is not None


class TestRestore:
    def test_a_restore_changes_every_table_tag(self, host, client):
        """After a restore the versions are the backup's: a tag from before must not 304."""
        table = make_table()
        url = reverse("matches:api_table", args=[table.pk])
        StandingsStamp.objects.bulk_create([StandingsStamp(pk=1)], ignore_conflicts=True)
        tag = client.get(url)["ETag"]
        assert client.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 304
        StandingsStamp.objects.update(epoch=uuid.uuid4())
        again = client.get(url, HTTP_IF_NONE_MATCH=tag)
        assert again.status_code == 200 and again["ETag"] != tag

    def test_the_write_paths_tag_needs_no_read_given_the_row(
        self, host, rf, django_assert_num_queries
    ):
        from django.contrib.auth.models import AnonymousUser

        table = make_table()
        request = rf.get("/")
        request.user, request.htmx = AnonymousUser(), False
        row = core_stamp.stamped_table(table_id=table.pk)
        with django_assert_num_queries(0):
            by_row = table_page_tag(request, table.pk, version=row.version, stamped=row)
        assert by_row == table_page_tag(request, table.pk)
        assert table_page_tag(request, table.pk, version=row.version + 1) != by_row


class TestLanguageSwitch:
    def test_a_spectator_switches_without_a_token(self, host):
        table = make_table()
        url = reverse("matches:table", args=[table.pk])
        client = FormClient(enforce_csrf_checks=True)
        response = client.get(reverse("matches:language"), {"language": "pt", "next": url})
        assert response.status_code == 302 and response["Location"] == url
        assert response.cookies["django_language"].value == "pt"
        assert "Partida 1" in client.get(url).content.decode()
        client.get(reverse("matches:language"), {"language": "en", "next": url})
        assert "Match 1" in client.get(url).content.decode()

    @pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", ""])
    def test_it_only_goes_back_to_this_site(self, host, client, target):
        response = client.get(reverse("matches:language"), {"language": "pt", "next": target})
        assert response["Location"] == reverse("matches:home")

    def test_an_unknown_language_changes_nothing(self, host, client):
        response = client.get(reverse("matches:language"), {"language": "xx", "next": "/"})
        assert response.status_code == 302 and "django_language" not in response.cookies

    def test_the_switcher_is_a_get_form_with_the_languages_as_buttons(self, host, client):
        html = client.get(reverse("matches:home")).content.decode()
        form = html.split('<form class="language"', 1)[1].split("</form>", 1)[0]
        assert 'method="get"' in form and "csrfmiddlewaretoken" not in form
        assert 'aria-label="Português"' in form and 'aria-label="English"' in form


class TestFirstHostCheck:
    def test_no_query_once_a_host_exists(self, django_assert_num_queries):
        make_host()
        client = FormClient()
        table = make_table()
        url = reverse("matches:api_table", args=[table.pk])
        tag = client.get(url)["ETag"]  # this process learns that a host exists
        with django_assert_num_queries(1):  # the table row alone
            assert client.get(url, HTTP_IF_NONE_MATCH=tag).status_code == 304

    def test_before_the_first_host_every_page_leads_to_setup(self, client):
        assert client.get(reverse("matches:home"))["Location"] == reverse("matches:setup")
        make_host()
        assert client.get(reverse("matches:home")).status_code == 200

    def test_before_the_first_host_the_browsers_own_fetches_answer(self, client):
        # A favicon, manifest or service worker answered with a redirect to a page is broken.
        favicon = client.get(reverse("matches:favicon"))
        assert favicon.status_code == 200 and favicon["Content-Type"] == "image/x-icon"
        assert client.get(reverse("matches:manifest")).json()["display"] == "standalone"
        worker = client.get(reverse("matches:service_worker"))
        assert worker.status_code == 200 and "javascript" in worker["Content-Type"]
        assert client.get(reverse("matches:home"))["Location"] == reverse("matches:setup")

    def test_deleting_every_account_leads_to_setup_again(self, client):
        make_host()
        assert client.get(reverse("matches:home")).status_code == 200
        get_user_model().objects.all().delete()
        assert client.get(reverse("matches:home"))["Location"] == reverse("matches:setup")


class TestThePollsOwnWork:
    """What a poll costs is cut without changing what it answers."""

    def test_a_spectators_304_has_exactly_these_headers(self, host, client):
        table = make_table()
        url = reverse("matches:table", args=[table.pk])
        tag = client.get(url, **HTMX)["ETag"]
        again = client.get(url, HTTP_IF_NONE_MATCH=tag, **HTMX)
        assert again.status_code == 304 and again.content == b""
        assert dict(again.headers) == {
            "Content-Length": "0",
            "ETag": tag,
            "Cache-Control": "public, max-age=2",
            "Vary": "HX-Request, Cookie, Accept-Language",
            "Content-Language": "en",
            "X-Frame-Options": "DENY",
            "Content-Security-Policy": build_policy(),
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin",
            "Cross-Origin-Opener-Policy": "same-origin",
            "Permissions-Policy": ", ".join(
                f"{feature}=()" for feature in settings.PERMISSIONS_POLICY_DENIED
            ),
        }

    def test_the_csp_header_is_django_csps_and_follows_the_settings(self, host, client):
        table = make_table()
        url = reverse("matches:tv", args=[table.pk])
        assert client.get(url)["Content-Security-Policy"] == build_policy()
        directives = {**settings.CONTENT_SECURITY_POLICY["DIRECTIVES"], "img-src": [SELF]}
        with override_settings(CONTENT_SECURITY_POLICY={"DIRECTIVES": directives}):
            changed = client.get(url)["Content-Security-Policy"]
            assert changed == build_policy()
            assert "img-src 'self'" in [part.strip() for part in changed.split(";")]
        assert client.get(url)["Content-Security-Policy"] == build_policy()
        assert "data:" in build_policy()

    def test_an_answer_with_its_own_policy_keeps_it(self, rf):
        @csp_update({"img-src": ["https://example.org"]})
        def view(request):
            return HttpResponse("x")

        middleware = import_string(
            next(name for name in settings.MIDDLEWARE if name.endswith("CSPMiddleware"))
        )
        response = middleware(view)(rf.get("/"))
        assert response["Content-Security-Policy"] == build_policy(
            update={"img-src": ["https://example.org"]}
        )
        assert "https://example.org" in response["Content-Security-Policy"]

    def test_the_first_host_check_reverses_nothing_once_a_host_exists(
        self, host, client, monkeypatch
    ):
        from matches.web import middleware

        table = make_table()
        url = reverse("matches:api_table", args=[table.pk])

        def refuse(*args, **kwargs):
            raise AssertionError("reverse() on a poll")

        monkeypatch.setattr(middleware, "reverse", refuse)
        assert client.get(url).status_code == 200

    def test_the_stamped_row_is_the_orms_row(self, host, django_assert_num_queries):
        from matches.models import Table

        table = make_table()
        tap(table, "Ben")
        with django_assert_num_queries(1):
            stamped = core_stamp.stamped_table(table_id=table.pk)
        row = stamped.table
        stored = Table.objects.get(pk=table.pk)
        fields = [f.attname for f in Table._meta.concrete_fields]
        assert [getattr(row, name) for name in fields] == [getattr(stored, name) for name in fields]
        assert row.created_at.tzinfo is not None and row.version == stored.version == 1
        assert row._state.adding is False and row._state.db == "default"
        stamp = StandingsStamp.objects.get(pk=1)
        assert stamped.epoch == stamp.epoch.hex and stamped.league == stamp.version
        assert core_stamp.stamped_table(table_id=table.pk + 1000) is None


class TestOneFillPerKey:
    def test_a_second_thread_waits_for_the_first_and_finds_it_kept(self):
        kept = Kept(8)
        started, made = threading.Event(), []

        def fill(name: str) -> None:
            with kept.filling(("k",)):
                if kept.get(("k",)) is None:
                    started.set()
                    time.sleep(0.2)  # the second thread asks meanwhile
                    made.append(name)
                    kept.put(("k",), name)

        first = threading.Thread(target=fill, args=["first"])
        first.start()
        started.wait(5)
        second = threading.Thread(target=fill, args=["second"])
        second.start()
        first.join(5)
        second.join(5)
        assert made == ["first"] and kept.get(("k",)) == "first"
        assert kept.fills == {}  # nothing left behind

    @pytest.mark.django_db(transaction=True)
    def test_polls_missing_together_read_and_render_once(self, monkeypatch):
        make_host()
        table = make_table()
        tap(table, "Ben")
        renderings.kept.clear()
        read, reads = core_stamp.table_snapshot, []

        def slow_read(**kwargs):
            reads.append(kwargs["table_id"])
            time.sleep(0.3)  # long enough for every other poll to arrive meanwhile
            return read(**kwargs)

        monkeypatch.setattr(core_stamp, "table_snapshot", slow_read)
        url = reverse("matches:tv", args=[table.pk])
        answers = []

        def poll() -> None:
            answers.append(FormClient().get(url, **HTMX))
            connection.close()  # this thread's own connection

        threads = [threading.Thread(target=poll) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert reads == [table.pk]
        assert [answer.status_code for answer in answers] == [200] * 4
        assert len({(answer.content, answer["ETag"]) for answer in answers}) == 1
