"""The hostile week's findings (issue 21, "The rest of the hostile week"), one class per
finding, each reproduced as it was found."""

import csv
import datetime
import importlib
import io
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from io import StringIO
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import pytest
from django.apps import apps as django_apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.http import multipartparser
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from matches import integrity
from matches.core import stamp as core_stamp
from matches.models import (
    AllTimeTotal,
    DailyTally,
    HostProfile,
    Match,
    Player,
    PlayerNight,
    RunningTotal,
    Season,
    Seat,
    Table,
    Tap,
)
from matches.play import selectors, services
from matches.results import filing
from matches.results.filing import aggregate_problems
from matches.web import exports, feedback, forms
from tests.clients import FormClient
from tests.factories import make_host, make_table, open_match, seat_of, tap, written

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[1]
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


class Untouchable:
    """A request body nobody may read: a 300 MB upload still on its way."""

    def read(self, *args):
        raise AssertionError("the request body was read")

    readline = read


class TestUploadsAreRefusedBeforeAnythingReadsThem:
    """Finding 1: an anonymous multipart POST of 300 MB with a made-up csrftoken cookie was
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


class TestAdminLoginRefusesAUsernameLongerThanAnyAccount:
    """Finding 4: /admin/login/ answered 500 on PostgreSQL for a username over 255
    characters (django-axes records it in a 255-character column)."""

    def test_refused_as_a_wrong_login_and_nothing_recorded(self, host):
        from axes.models import AccessAttempt, AccessFailureLog

        response = FormClient().post(
            reverse("admin:login"),
            {"username": "a" * 300, "password": "x", "next": reverse("admin:index")},
        )
        assert response.status_code == 200
        assert "Please enter the correct username and password for a staff account" in (
            response.content.decode()
        )
        assert AccessAttempt.objects.count() == 0
        assert AccessFailureLog.objects.count() == 0

    def test_a_staff_host_still_logs_in(self, host):
        host.is_staff = True
        host.save()
        response = FormClient().post(
            reverse("admin:login"),
            {"username": "host", "password": "a-long-test-password"},
        )
        assert response.status_code == 302


HUGE_IDS = [2**63, 2**64, 10**30]
# Routes whose ids come from the path, with the other ids they need.
PATH_IDS = [
    ("table", "table_id"),
    ("tv", "table_id"),
    ("api_table", "table_id"),
    ("matches", "table_id"),
    ("table_results_csv", "table_id"),
    ("table_standings", "table_id"),
    ("qr", "table_id"),
    ("match", "table_id"),
    ("match", "number"),
    ("player", "player_id"),
    ("api_player", "player_id"),
]


class TestIdsBeyondTheDatabasesRangeAre404:
    """Finding 5: table ids of 2^63 or more answered 500 on SQLite: raw SQL got an int it
    cannot bind."""

    @pytest.fixture
    def league(self, host):
        table = make_table(host=host)
        tap(table, "Ben")
        return table

    @pytest.mark.parametrize("huge", HUGE_IDS)
    @pytest.mark.parametrize("route, huge_arg", PATH_IDS)
    def test_anonymous_reads_are_404_without_a_query(
        self, client, league, django_assert_num_queries, route, huge_arg, huge
    ):
        url = reverse(f"matches:{route}", kwargs=self.kwargs(route, league, huge_arg, huge))
        with django_assert_num_queries(0):
            response = client.get(url)
        assert response.status_code == 404

    @staticmethod
    def kwargs(route: str, league: Table, huge_arg: str, huge: int) -> dict:
        values = {"table_id": league.pk, "number": 1, "player_id": Player.objects.first().pk}
        needed = {
            "match": ["table_id", "number"],
            "player": ["player_id"],
            "api_player": ["player_id"],
        }.get(route, ["table_id"])
        return {name: huge if name == huge_arg else values[name] for name in needed}

    @pytest.mark.parametrize(
        "route", ["tap", "undo", "roster", "close", "reopen", "player_rename", "player_merge"]
    )
    def test_host_writes_on_a_huge_id_are_404(self, host_client, league, route):
        arg = "player_id" if route.startswith("player") else "table_id"
        before = written()
        response = host_client.post(reverse(f"matches:{route}", kwargs={arg: 2**63}), {})
        assert response.status_code == 404
        assert written() == before

    @pytest.mark.parametrize("route", ["season_edit", "season_delete"])
    def test_seasons_by_a_huge_id_are_404(self, host_client, league, route):
        response = host_client.get(reverse(f"matches:{route}", kwargs={"season_id": 2**63}))
        assert response.status_code == 404
        assert Season.objects.count() == 0

    def test_the_largest_id_the_database_holds_is_looked_up(self, client, league):
        url = reverse("matches:table", kwargs={"table_id": 2**63 - 1})
        assert client.get(url).status_code == 404

    @pytest.mark.parametrize(
        "field", ["match", "number", "player", "queued_by"], ids=lambda f: f"tap {f}"
    )
    @pytest.mark.parametrize("huge", [2**63, 2**64])
    def test_a_tap_naming_a_huge_id_is_refused(self, host_client, league, field, huge):
        match = open_match(league)
        body = {
            "match": match.pk,
            "player": seat_of(match, "Cara").player_id,
            "key": str(uuid.uuid4()),
            field: huge,
        }
        before = written()
        response = host_client.post(reverse("matches:tap", args=[league.pk]), body, **HTMX)
        assert response.status_code == 200
        assert str(feedback.BAD_TAP) in response.content.decode()
        assert written() == before

    @pytest.mark.parametrize("field", ["tap", "queued_by"])
    def test_an_undo_naming_a_huge_id_is_refused(self, host_client, league, field):
        body = {"tap": Tap.objects.get().pk, field: 2**63}
        before = written()
        response = host_client.post(reverse("matches:undo", args=[league.pk]), body, **HTMX)
        assert response.status_code == 200
        assert str(feedback.BAD_UNDO) in response.content.decode()
        assert written() == before

    def test_a_roster_naming_a_huge_match_is_refused(self, host_client, league):
        before = written()
        response = host_client.post(
            reverse("matches:roster", args=[league.pk]),
            {"match": 2**63, "players": "Ann\nBob\nCy"},
        )
        assert response.status_code == 200
        assert str(forms.BAD_ROSTER) in response.content.decode()
        assert written() == before

    def test_a_close_discarding_a_huge_match_is_refused(self, host_client, league):
        before = written()
        response = host_client.post(
            reverse("matches:close", args=[league.pk]), {"discard": 2**63}, follow=True
        )
        assert response.status_code == 200
        assert "is under way" in response.content.decode()
        assert written() == before

    @pytest.mark.parametrize("field, message", [("table", "There is no such table."),
                                                ("season", "There is no such season.")])  # fmt: skip
    def test_standings_filtered_by_a_huge_id_say_so(self, client, league, field, message):
        response = client.get(reverse("matches:standings"), {field: 2**63})
        assert response.status_code == 400 and message in response.content.decode()

    def test_every_form_field_carrying_an_id_is_bounded(self):
        fields = [
            forms.TapForm.base_fields[name] for name in ("match", "number", "player", "queued_by")
        ]
        fields += [forms.UndoForm.base_fields["tap"], forms.UndoForm.base_fields["queued_by"]]
        fields += [forms.CloseForm.base_fields["discard"], forms.RosterForm.base_fields["match"]]
        assert {field.max_value for field in fields} == {2**63 - 1}


def damaged_schema(source: Path, target: Path) -> None:
    """A backup whose schema lost a name to a bad disk: SQLite's own error message about it
    is no longer UTF-8, which Python's sqlite3 cannot turn into an exception."""
    data = source.read_bytes()
    at = data.index(b"sqlite_autoindex_matches_seat_") + len(b"sqlite_autoindex_")
    target.write_bytes(data[:at] + b"\xff\xfe\xc3" + data[at + 3 :])


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "sqlite", reason="a SQLite file's damage")
class TestRestoreOfADamagedBackupIsOneLine:
    """Finding 11: restoring a damaged backup printed a traceback (UnicodeDecodeError from
    PRAGMA integrity_check in verify_sqlite_backup)."""

    def test_refused_in_one_line_and_nothing_touched(self, tmp_path):
        table = make_table()
        tap(table, "Ben")
        good = tmp_path / "good.sqlite3"
        call_command("backup", str(good), stdout=StringIO())
        before = written()
        bad = tmp_path / "bad.sqlite3"
        damaged_schema(good, bad)
        with pytest.raises(CommandError) as refused:
            call_command("restore", str(bad), "--yes", stdout=StringIO(), stderr=StringIO())
        message = str(refused.value)
        assert message.startswith(f"{bad} is damaged: malformed database schema")
        assert message.endswith("Nothing was changed.") and "\n" not in message
        assert written() == before

    def test_the_command_line_prints_one_line_and_exits_non_zero(self, tmp_path):
        make_table()
        good = tmp_path / "good.sqlite3"
        call_command("backup", str(good), stdout=StringIO())
        bad = tmp_path / "bad.sqlite3"
        damaged_schema(good, bad)
        result = subprocess.run(
            [sys.executable, "manage.py", "restore", str(bad), "--yes"],
            cwd=ROOT,
            env={
                **os.environ,
                "DJANGO_HTTPS": "0",
                "DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}",
            },
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode != 0
        assert "Traceback" not in result.stderr
        assert result.stderr.strip().count("\n") == 0
        assert "is damaged" in result.stderr


def settings_in_a_fresh_process(code: str, **env: str) -> str:
    environment = {
        **os.environ,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "x" * 20 + uuid.uuid4().hex + uuid.uuid4().hex,
        "DJANGO_ALLOWED_HOSTS": "example.org",
    }
    for name in ("DJANGO_HTTPS", "DJANGO_HSTS_PRELOAD"):
        environment.pop(name, None)
    environment.update(env)
    if code.startswith("manage.py"):
        command = [sys.executable, *code.split()]
    else:
        command = [
            sys.executable,
            "-c",
            "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'brag_tables.settings'; "
            f"django.setup(); from django.conf import settings as s; print({code})",
        ]
    result = subprocess.run(
        command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip()


class TestHstsPreloadIsOptInAndEveryAnswerHasAPermissionsPolicy:
    """Finding 12: HSTS preload was on with DJANGO_HTTPS=1, a commitment on the pub's parent
    domain; no Permissions-Policy was sent."""

    def test_preload_only_when_asked_for(self):
        hsts = "s.SECURE_HSTS_SECONDS > 0, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_HSTS_PRELOAD"
        assert settings_in_a_fresh_process(hsts) == "True True False"
        assert settings_in_a_fresh_process(hsts, DJANGO_HSTS_PRELOAD="1") == "True True True"

    @pytest.mark.parametrize("preload", ["0", "1"])
    def test_check_deploy_passes_either_way(self, preload):
        settings_in_a_fresh_process(
            "manage.py check --deploy --fail-level WARNING", DJANGO_HSTS_PRELOAD=preload
        )

    def test_every_answer_denies_the_features_the_app_never_uses(self, host, host_client, client):
        table = make_table()
        answers = [
            client.get(reverse("matches:home")),
            client.get(reverse("matches:table", args=[table.pk])),
            client.get(reverse("matches:api_table", args=[table.pk])),
            client.get(reverse("matches:table", args=[table.pk]) + "x/"),  # 404
            client.get(reverse("login")),
            host_client.get(reverse("matches:table", args=[table.pk])),
            host_client.post(reverse("matches:tap", args=[table.pk]), {}),  # refused
            Client().post(reverse("login"), {"username": "x"}),  # 415, multipart
        ]
        etag = answers[1]["ETag"]
        answers.append(
            client.get(reverse("matches:table", args=[table.pk]), HTTP_IF_NONE_MATCH=etag)
        )
        assert answers[-1].status_code == 304
        for response in answers:
            parts = [part.strip() for part in response["Permissions-Policy"].split(",")]
            assert all(part.endswith("=()") for part in parts)
            denied = {part.removesuffix("=()") for part in parts}
            assert {"camera", "microphone", "geolocation", "payment", "usb"} <= denied


def dry_run(*args: str) -> str:
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    result = subprocess.run(
        [make, "--no-print-directory", "-n", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def server_line(output: str) -> str:
    """The last command make would run: the one that serves."""
    return [line for line in output.splitlines() if line.strip()][-1]


class TestMakeRunServesWithGunicorn:
    """Finding 13: `make run` served with Django's development server, which says "Do not use
    it in a production setting" to a host told it is enough for the night."""

    def test_run_starts_gunicorn_with_its_config_on_host_and_port(self):
        output = dry_run("run", "HOST=0.0.0.0", "PORT=8123")
        line = server_line(output)
        assert "runserver" not in output
        assert re.search(r"\.venv/bin/gunicorn brag_tables\.wsgi\b", line)
        assert "--bind 0.0.0.0:8123" in line
        assert "--config" not in line  # gunicorn.conf.py is read on its own
        assert "BRAG_BIND_HOST=0.0.0.0" in line and "DJANGO_HTTPS" in line
        # Static files are collected for WhiteNoise, and the address and QR code printed.
        assert "collectstatic" in output
        assert "lan_address --host 0.0.0.0 --port 8123" in output

    def test_the_defaults_serve_this_machine_only(self):
        assert "--bind 127.0.0.1:8000" in server_line(dry_run("run"))

    def test_an_ipv6_address_is_bound_in_brackets(self):
        assert "--bind [::1]:8000" in server_line(dry_run("run", "HOST=::1"))

    def test_dev_keeps_the_autoreloading_development_server(self):
        line = server_line(dry_run("dev", "PORT=8123"))
        assert "manage.py runserver 127.0.0.1:8123" in line


def launch(client, name: str):
    body = {"name": name, "players": "Ann\nBob\nCy", "mode": Table.Mode.RANKED}
    return client.post(reverse("matches:table_new"), body)


def save_season(client, name: str, first: str = "2026-01-01", last: str = "2026-03-31"):
    body = {"name": name, "first_day": first, "last_day": last}
    return client.post(reverse("matches:season_new"), body)


INVISIBLE_ONLY = (
    "The name typed contains an invisible or control character (such as a zero-width space "
    "or a direction mark) and nothing else; type the name again."
)


class TestTableAndSeasonNamesFollowTheNameRules:
    """Finding 7: zero-width, bidi-override and control characters were accepted in table and
    season names ("Z" and "Z" + U+200B both existed and read the same; a table called only
    U+200B was an invisible link), and season uniqueness ignored full-width forms. Typed
    names follow the player names' rules: stored normalised, invisible characters refused."""

    def test_a_table_name_of_only_a_zero_width_space_is_a_form_error(self, host_client):
        before = written()
        response = launch(host_client, "\u200b")
        assert response.status_code == 200
        assert INVISIBLE_ONLY in response.content.decode()
        assert written() == before

    @pytest.mark.parametrize(
        "typed", ["Front bar\u200b", "\u202eFront bar", "Front\x07 bar", "Front bar\u2066"]
    )
    def test_invisible_bidi_and_control_characters_in_a_table_name_are_refused(
        self, host_client, typed
    ):
        before = written()
        response = launch(host_client, typed)
        assert response.status_code == 200
        assert "“Front bar” contains an invisible or control character" in (
            response.content.decode()
        )
        assert written() == before

    def test_a_table_name_is_stored_normalised(self, host_client):
        response = launch(host_client, "  \uff26ront   bar ")
        assert response.status_code == 302
        assert list(Table.objects.values_list("name", flat=True)) == ["Front bar"]

    def test_the_admin_refuses_an_invisible_table_name(self, admin_user):
        table = make_table(host=admin_user)
        url = reverse("admin:matches_table_change", args=[table.pk])
        admin = FormClient()
        admin.force_login(admin_user)
        response = admin.post(url, {"name": "Front bar\u200b", "created_by": admin_user.pk})
        assert response.status_code == 200
        assert "contains an invisible or control character" in response.content.decode()
        table.refresh_from_db()
        assert table.name == "Front bar"

    def test_a_season_differing_only_in_width_is_a_duplicate(self, host_client):
        assert save_season(host_client, "Winter").status_code == 302
        response = save_season(
            host_client, "\uff37\uff49\uff4e\uff54\uff45\uff52", "2026-04-01", "2026-06-30"
        )
        assert response.status_code == 400
        assert "There is already a season called “Winter”." in response.content.decode()
        assert list(Season.objects.values_list("name", flat=True)) == ["Winter"]

    def test_a_season_differing_only_in_case_folding_is_a_duplicate(self, host_client):
        assert save_season(host_client, "Straße").status_code == 302
        response = save_season(host_client, "STRASSE", "2026-04-01", "2026-06-30")
        assert response.status_code == 400
        assert Season.objects.count() == 1

    @pytest.mark.parametrize("typed", ["Win\x01ter", "Winter\u200b", "\u202eWinter"])
    def test_control_and_invisible_characters_in_a_season_name_are_refused(
        self, host_client, typed
    ):
        response = save_season(host_client, typed)
        assert response.status_code == 400
        assert "“Winter” contains an invisible or control character" in response.content.decode()
        assert not Season.objects.exists()

    def test_a_season_name_of_only_invisible_characters_is_refused(self, host_client):
        response = save_season(host_client, "\u200b\u200e")
        assert response.status_code == 400
        assert INVISIBLE_ONLY in response.content.decode()
        assert not Season.objects.exists()

    def test_a_season_name_is_stored_normalised(self, host_client):
        assert save_season(host_client, " Winter \u3000 league ").status_code == 302
        assert list(Season.objects.values_list("name", flat=True)) == ["Winter league"]


CLOSED_HEADING = "Match 2, discarded when the table was closed"
UNDONE_HEADING = "Match 2, discarded when the crowning before it was undone"
OLD_REASON = "(in a match opened and then discarded when the crowning before it was undone)"


def close_mid_match_then_reopen(table: Table) -> None:
    """Match 1 filed (Dev wins), Ben out in match 2, the table closed (match 2 discarded with
    Ben's tap) and reopened: a new match 2."""
    for name in ["Ben", "Alice", "Cara"]:
        tap(table, name)
    tap(table, "Ben")
    discarded = open_match(table)
    services.table_close(table_id=table.pk, by=table.created_by, discard_match_id=discarded.pk)
    services.table_reopen(table_id=table.pk, by=table.created_by)


def audit_page(client, table: Table, number: int = 2) -> str:
    response = client.get(reverse("matches:match", args=[table.pk, number]))
    assert response.status_code == 200
    return response.content.decode()


class TestTheAuditOfAMatchNumberUsedAgainKeepsTheGamesApart:
    """Finding 14: after a close mid-match and a reopen, /tables/<id>/matches/<n>/ mixed the
    taps of the discarded match n with the new match n, and said the discarded one went
    "when the crowning before it was undone"."""

    def test_the_new_match_and_the_one_the_close_discarded_are_listed_apart(self, host, client):
        table = make_table(host=host)
        close_mid_match_then_reopen(table)
        for name in ["Alice", "Cara", "Dev"]:
            tap(table, name)  # the new match 2: Ben wins it
        html = audit_page(client, table)
        assert "Winner: <strong><bdi>Ben</bdi></strong>" in html
        assert OLD_REASON not in html and UNDONE_HEADING not in html
        played, discarded = html.split(CLOSED_HEADING)
        played = played.split("Audit trail", 1)[1]  # the heading, then its scrolling box
        assert re.findall(r"<bdi>(\w+)</bdi> out", played) == ["Alice", "Cara", "Dev"]
        assert re.findall(r"<bdi>(\w+)</bdi> out", discarded) == ["Ben"]
        assert "None of its taps counted." in discarded

    def test_the_open_match_after_a_reopen_has_no_taps_of_the_discarded_one(self, host, client):
        table = make_table(host=host)
        close_mid_match_then_reopen(table)
        html = audit_page(client, table)
        played, discarded = html.split(CLOSED_HEADING)
        assert "No taps in this match." in played
        assert "<bdi>Ben</bdi> out" not in played
        assert re.findall(r"<bdi>(\w+)</bdi> out", discarded) == ["Ben"]

    def test_an_undone_crowning_still_gives_the_undo_as_the_reason(self, host, client):
        table = make_table(host=host)
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        tap(table, "Dev")  # match 2
        services.table_undo_last(table_id=table.pk, tap_id=None, by=host)  # Dev back
        services.table_undo_last(table_id=table.pk, tap_id=None, by=host)  # the crowning
        tap(table, "Cara")  # crowned again: a new match 2
        html = audit_page(client, table)
        assert CLOSED_HEADING not in html
        played, discarded = html.split(UNDONE_HEADING)
        assert "<bdi>Dev</bdi> out" not in played
        assert re.findall(r"<bdi>(\w+)</bdi> out", discarded) == ["Dev"]

    def test_the_page_reads_in_the_same_queries_however_many_games_used_the_number(
        self, host, client, django_assert_num_queries
    ):
        table = make_table(host=host)
        close_mid_match_then_reopen(table)
        with django_assert_num_queries(4):
            audit_page(client, table)
        for _ in range(2):  # twice more: Alice out in match 2, closed, reopened
            tap(table, "Alice")
            match = open_match(table)
            services.table_close(table_id=table.pk, by=host, discard_match_id=match.pk)
            services.table_reopen(table_id=table.pk, by=host)
        with django_assert_num_queries(4):
            html = audit_page(client, table)
        assert html.count(CLOSED_HEADING) == 3


class TestAutomaticBackups:
    """An automatic backup that cannot be made never costs the close it follows: the close is
    saved, the host's page answers as usual, and the failure is logged."""

    @pytest.fixture
    def auto(self, settings, tmp_path):
        settings.BACKUP_AUTO = True
        settings.BACKUP_IN_BACKGROUND = True
        settings.BACKUP_DIR = tmp_path / "auto"
        return settings.BACKUP_DIR

    @pytest.mark.django_db(transaction=True)
    def test_a_backup_thread_that_cannot_start_does_not_fail_the_close(
        self, auto, host_client, host, monkeypatch, caplog
    ):
        import threading

        table = make_table(host=host, players=["Ann", "Bob", "Cy"])

        def no_thread(self):
            raise RuntimeError("can't start new thread")

        monkeypatch.setattr(threading.Thread, "start", no_thread)
        response = host_client.post(reverse("matches:close", args=[table.pk]))
        assert response.status_code == 302
        assert response["Location"] == reverse("matches:table", args=[table.pk])
        table.refresh_from_db()
        assert table.closed_at is not None
        assert "can't start new thread" in caplog.text
        assert not auto.exists()

    @pytest.mark.django_db(transaction=True)
    def test_a_backup_folder_that_cannot_be_made_is_logged_and_the_close_saved(
        self, auto, settings, host, caplog
    ):
        settings.BACKUP_IN_BACKGROUND = False
        auto.write_text("a file where the folder should be")
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        services.table_close(table_id=table.pk, by=host)
        table.refresh_from_db()
        assert table.closed_at is not None
        assert f"Automatic backup failed: Cannot use the backup folder {auto}: File exists." in (
            caplog.text
        )
        assert auto.read_text() == "a file where the folder should be"


def audited_match(pat, sam) -> Table:
    """Match 1 of Pat's table: Ben tapped out and the tap undone, each queued on Sam's tablet
    and sent by Pat; then Alice tapped by Pat herself."""
    table = make_table(host=pat)
    ben = tap(table, "Ben").tap
    Tap.objects.filter(pk=ben.pk).update(queued_by=sam)
    services.table_undo_last(table_id=table.pk, tap_id=ben.pk, by=pat, queued_by=sam)
    tap(table, "Alice")
    return table


class TestPublicAuditShowsNoUsernames:
    """Finding 8: /tables/<id>/matches/<n>/ showed every spectator the login username of each
    host who tapped, undid or queued: half of a credential. The public sees the display name
    the host chose (or "host"); logged-in hosts see who."""

    @pytest.fixture
    def pat(self):
        pat = make_host("pat.login")
        HostProfile.objects.create(user=pat, display_name="Pat")
        return pat

    @pytest.fixture
    def sam(self):
        return make_host("sam.login")  # chose no display name

    def test_a_spectator_sees_display_names_never_usernames(self, client, pat, sam):
        table = audited_match(pat, sam)
        html = audit_page(client, table, 1)
        assert "pat.login" not in html and "sam.login" not in html
        assert "<td>Pat (queued by host)</td>" in html  # Ben's tap
        assert "by Pat (queued by host), " in html  # its undo
        assert "<td>Pat</td>" in html  # Alice's tap

    def test_a_logged_in_host_sees_the_usernames(self, pat, sam):
        table = audited_match(pat, sam)
        client = FormClient()
        client.force_login(sam)  # any host, not only the table's
        html = audit_page(client, table, 1)
        assert "<td>pat.login (queued by sam.login)</td>" in html
        assert "by pat.login (queued by sam.login), " in html
        assert "<td>pat.login</td>" in html

    def test_the_first_host_chooses_a_display_name_at_setup(self, client):
        data = {
            "username": "pat.login",
            "display_name": "  Pat  ",
            "password1": "a-long-test-password",
            "password2": "a-long-test-password",
        }
        assert client.post(reverse("matches:setup"), data).status_code == 302
        pat = get_user_model().objects.get()
        assert HostProfile.objects.get(user=pat).display_name == "Pat"
        table = make_table(host=pat)
        tap(table, "Ben")
        html = audit_page(FormClient(), table, 1)
        assert "<td>Pat</td>" in html and "pat.login" not in html

    @pytest.mark.parametrize("display_name", ["pat.login", "PAT.LOGIN"])
    def test_setup_refuses_the_username_as_display_name(self, client, display_name):
        data = {
            "username": "pat.login",
            "display_name": display_name,
            "password1": "a-long-test-password",
            "password2": "a-long-test-password",
        }
        response = client.post(reverse("matches:setup"), data)
        assert response.status_code == 200
        assert "it cannot be a host’s username" in response.content.decode()
        assert not get_user_model().objects.exists() and not HostProfile.objects.exists()

    def admin_saves(self, client, user, display_name: str):
        data = {
            "username": user.username,
            "is_active": "on",
            "date_joined_0": "2026-12-01",
            "date_joined_1": "20:00:00",
            "host_profile-TOTAL_FORMS": "1",
            "host_profile-INITIAL_FORMS": "0",
            "host_profile-MIN_NUM_FORMS": "0",
            "host_profile-MAX_NUM_FORMS": "1",
            "host_profile-0-user": str(user.pk),
            "host_profile-0-display_name": display_name,
            "_save": "Save",
        }
        return client.post(reverse("admin:auth_user_change", args=[user.pk]), data)

    def test_an_admin_sets_a_hosts_display_name(self, sam):
        boss = get_user_model().objects.create_superuser(username="boss", password="x-long-pw-1")
        client = FormClient()
        client.force_login(boss)
        assert self.admin_saves(client, sam, "Sam").status_code == 302
        assert HostProfile.objects.get(user=sam).display_name == "Sam"
        refused = self.admin_saves(client, sam, "Boss")  # another host's username
        assert refused.status_code == 200
        assert "it cannot be a host’s username" in refused.content.decode()
        assert HostProfile.objects.get(user=sam).display_name == "Sam"


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
    """Finding 9: logged-in pages carrying the CSRF token and "Log out <name>" sent no
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


@pytest.fixture
def superuser_client(db) -> FormClient:
    client = FormClient()
    client.force_login(
        get_user_model().objects.create_superuser(username="boss", password="a-long-password-1")
    )
    return client


def filed_league(host) -> Table:
    """Two filed matches at a ranked table of four: Ann wins the first (Bob 2nd, Cy 3rd), Dee
    the second (Ann 2nd, Cy 3rd)."""
    table = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"])
    for name in ["Dee", "Cy", "Bob", "Bob", "Cy", "Ann"]:
        tap(table, name)
    return table


def everything_kept() -> tuple:
    """Every row a result and its aggregates hold."""
    counts = ("played", "wins", "seconds", "thirds", "points")
    return (
        written(),
        tuple(Match.objects.order_by("pk").values_list("pk", "status", "winner_id")),
        tuple(Tap.objects.order_by("pk").values_list("pk", "place", "undone_at")),
        tuple(DailyTally.objects.order_by("pk").values_list("pk", *counts)),
        tuple(AllTimeTotal.objects.order_by("pk").values_list("pk", *counts)),
    )


class TestResultAdminsAreReadOnly:
    """Hostile finding 3: a match deleted (or a seat, tap or tally edited) in the admin left
    aggregates nothing could repair. Results change only through the app's undo and
    correction; the admin shows them, even to a superuser, and refuses every write."""

    MODELS = ("match", "seat", "tap", "dailytally", "alltimetotal")

    def targets(self, table: Table) -> dict[str, int]:
        match = table.matches.get(number=1)
        seat = match.seats.get(place=1)
        return {
            "match": match.pk,
            "seat": seat.pk,
            "tap": match.taps.order_by("pk").first().pk,
            "dailytally": DailyTally.objects.get(player=seat.player_id).pk,
            "alltimetotal": AllTimeTotal.objects.get(player=seat.player_id).pk,
        }

    @pytest.mark.parametrize("model", MODELS)
    def test_a_superuser_cannot_delete_a_result(self, superuser_client, host, model):
        table = filed_league(host)
        pk = self.targets(table)[model]
        before = everything_kept()
        url = reverse(f"admin:matches_{model}_delete", args=[pk])
        assert superuser_client.get(url).status_code == 403
        assert superuser_client.post(url, {"post": "yes"}).status_code == 403
        assert everything_kept() == before
        assert integrity.integrity_problems() == []

    def test_a_superuser_cannot_delete_matches_from_the_list_either(self, superuser_client, host):
        table = filed_league(host)
        before = everything_kept()
        response = superuser_client.post(
            reverse("admin:matches_match_changelist"),
            {
                "action": "delete_selected",
                "_selected_action": list(table.matches.values_list("pk", flat=True)),
                "post": "yes",
            },
        )
        assert response.status_code in (200, 302)
        assert everything_kept() == before

    def test_a_superuser_cannot_change_a_seats_place(self, superuser_client, host):
        table = filed_league(host)
        seat = table.matches.get(number=1).seats.get(place=1)
        before = everything_kept()
        response = superuser_client.post(
            reverse("admin:matches_seat_change", args=[seat.pk]),
            {"match": seat.match_id, "player": seat.player_id, "position": 0, "place": 4},
        )
        assert response.status_code == 403
        assert everything_kept() == before

    def test_a_superuser_cannot_change_a_tally(self, superuser_client, host):
        table = filed_league(host)
        tally = DailyTally.objects.get(pk=self.targets(table)["dailytally"])
        before = everything_kept()
        response = superuser_client.post(
            reverse("admin:matches_dailytally_change", args=[tally.pk]),
            {"player": tally.player_id, "table": table.pk, "day": str(tally.day), "played": 9,
             "wins": 9, "seconds": 0, "thirds": 0, "points": 27},
        )  # fmt: skip
        assert response.status_code == 403
        assert everything_kept() == before

    @pytest.mark.parametrize("model", MODELS)
    def test_nothing_can_be_added(self, superuser_client, host, model):
        filed_league(host)
        assert superuser_client.get(reverse(f"admin:matches_{model}_add")).status_code == 403

    @pytest.mark.parametrize("model", MODELS)
    def test_results_are_still_shown(self, superuser_client, host, model):
        table = filed_league(host)
        pk = self.targets(table)[model]
        listing = superuser_client.get(reverse(f"admin:matches_{model}_changelist"))
        assert listing.status_code == 200
        page = superuser_client.get(reverse(f"admin:matches_{model}_change", args=[pk]))
        assert page.status_code == 200
        html = page.content.decode()
        assert 'name="_save"' not in html and "deletelink" not in html


def standings_points(client) -> list[tuple[str, int, int, int]]:
    cache.clear()
    rows = client.get(reverse("matches:api_standings")).json()["rows"]
    return [(row["player"], row["played"], row["wins"], row["points"]) for row in rows]


def integrity_report() -> str:
    err = StringIO()
    try:
        call_command("check_integrity", stdout=StringIO(), stderr=err)
    except CommandError:
        return err.getvalue()
    return ""


class TestRebuildRepairsEveryAggregate:
    """Hostile finding 3: rebuild_ratings rebuilt nights and running totals from the daily
    tallies, so tallies damaged by a raw edit stayed damaged. It now counts every aggregate
    from the seats up."""

    def test_a_match_deleted_behind_the_apps_back_is_counted_out(self, client, host):
        table = filed_league(host)
        assert standings_points(client) == [
            ("Ann", 2, 1, 5), ("Dee", 2, 1, 3), ("Bob", 2, 0, 2), ("Cy", 2, 0, 2)
        ]  # fmt: skip
        table.matches.get(number=1).delete()  # what the admin's delete did
        assert "tallies say" in integrity_report()
        call_command("rebuild_ratings", stdout=StringIO())
        assert integrity_report() == ""
        # Match 2 alone: Dee won, Ann second, Cy third, Bob out first.
        assert standings_points(client) == [
            ("Dee", 1, 1, 3), ("Ann", 1, 0, 2), ("Cy", 1, 0, 1), ("Bob", 1, 0, 0)
        ]  # fmt: skip

    def test_damaged_tallies_totals_and_running_totals_are_counted_afresh(self, client, host):
        filed_league(host)
        expected = standings_points(client)
        dee = Player.objects.get(name="Dee")
        DailyTally.objects.filter(player=dee).delete()
        AllTimeTotal.objects.filter(player__name="Ann").update(points=30, wins=2)
        RunningTotal.objects.filter(player__name="Cy").update(points=0)
        DailyTally.objects.create(player=dee, table=Table.objects.get(), day="2020-01-01", played=5)
        report = integrity_report()
        for said in ("tallies say", "all-time totals say", "running totals say"):
            assert said in report, said
        out = StringIO()
        call_command("rebuild_ratings", stdout=out)
        assert (
            "4 daily tallies and 4 all-time totals counted from the seats; ratings rebuilt "
            "from 2 filed matches" in out.getvalue()
        )
        assert integrity_report() == ""
        assert standings_points(client) == expected
        assert not DailyTally.objects.filter(day="2020-01-01").exists()


def seed(*args: str) -> str:
    out = StringIO()
    call_command("seed_league", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


class TestSeedLeague:
    """A fast made-up league for the bench, the load test and a demo: what it asks for, every
    count beside it right, and never on top of a real league unless told."""

    def test_it_seeds_what_it_is_asked_for_and_every_count_adds_up(self, client):
        out = seed("--players", "12", "--tables", "3", "--matches", "60", "--days", "5")
        assert "Seeded 12 players, 3 tables and 60 filed matches over 5 days." in out
        assert Player.objects.count() == 12
        assert Table.objects.count() == 3 and not Table.objects.filter(closed_at=None).exists()
        assert Match.objects.count() == Match.objects.filed().count() == 60
        assert sorted(Table.objects.values_list("matches__number", flat=True))[-1] == 20
        assert integrity_report() == ""
        played = sum(row[1] for row in standings_points(client))
        assert played == Seat.objects.count() > 60 * 3
        # Its host is a new admin account without a password.
        host = get_user_model().objects.get()
        assert (host.username, host.is_superuser, host.has_usable_password()) == (
            "seed",
            True,
            False,
        )

    def test_the_same_seed_makes_the_same_league(self):
        seed("--players", "8", "--tables", "2", "--matches", "20", "--seed", "3")
        first = list(Seat.objects.order_by("pk").values_list("player__name", "place"))
        Table.objects.all().delete()
        seed("--players", "8", "--tables", "2", "--matches", "20", "--seed", "3")
        assert list(Seat.objects.order_by("pk").values_list("player__name", "place")) == first

    def test_a_database_with_tables_is_refused_unless_forced(self, host):
        make_table(host=host)
        before = everything_kept()
        with pytest.raises(CommandError) as refused:
            seed("--players", "8", "--tables", "2", "--matches", "20")
        assert str(refused.value) == (
            "This database already has tables; seed_league fills an empty one. "
            "Add --force to add a made-up league to it."
        )
        assert everything_kept() == before
        seed("--players", "8", "--tables", "2", "--matches", "20", "--force")
        assert Table.objects.count() == 3
        assert Match.objects.filed().count() == 20
        # The existing admin hosts the tables; no account is added.
        assert get_user_model().objects.count() == 1
        assert integrity_report() == ""

    @pytest.mark.django_db(transaction=True)
    def test_the_refusal_is_one_line_and_exit_code_1(self):
        make_table()
        db = connection.settings_dict
        url = (
            f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
            if connection.vendor == "postgresql"
            else f"sqlite:///{db['NAME']}"
        )
        result = subprocess.run(
            [sys.executable, "manage.py", "seed_league", "--matches", "5"],
            cwd=settings.BASE_DIR,
            env={**os.environ, "DJANGO_HTTPS": "0", "DATABASE_URL": url},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 1
        assert result.stderr.strip().splitlines() == [
            "CommandError: This database already has tables; seed_league fills an empty one. "
            "Add --force to add a made-up league to it."
        ]

    @pytest.mark.parametrize("bad", [["--players", "2"], ["--tables", "0"], ["--matches", "-1"]])
    def test_sizes_it_cannot_seed_are_refused(self, bad):
        with pytest.raises(CommandError, match="invalid"):
            seed(*bad)
        assert not Table.objects.exists() and not Player.objects.exists()

    def test_progress_is_shown_on_a_terminal_only(self):
        terminal, log = Terminal(), StringIO()
        call_command(
            "seed_league", "--players", "8", "--tables", "2", "--matches", "20",
            stdout=StringIO(), stderr=terminal,
        )  # fmt: skip
        assert "\rseeding matches 20/20" in terminal.getvalue()
        assert "\rcounting 5/5: ratings" in terminal.getvalue()
        assert terminal.getvalue().endswith("\n")
        call_command("rebuild_ratings", stdout=StringIO(), stderr=terminal)
        assert "\rrebuilding 1/5: tallies" in terminal.getvalue()
        call_command("rebuild_ratings", stdout=StringIO(), stderr=log)
        assert log.getvalue() == ""


class Terminal(StringIO):
    def isatty(self) -> bool:
        return True


def file_matches(table: Table, count: int) -> None:
    """File count matches on a three-seat table, Cy winning each (two taps a match)."""
    for _ in range(count):
        tap(table, "Ann")
        tap(table, "Bob")


def numbers(document: dict) -> list[int]:
    return [match["number"] for match in document["matches"]]


def listed(html: str) -> list[int]:
    """The match numbers a page of filed matches links, in the order shown."""
    return [int(number) for number in re.findall(r'matches/(\d+)/">Match', html)]


def older_link(html: str) -> str | None:
    found = re.search(r'<a class="button" rel="next" href="([^"]+)">Older matches</a>', html)
    return found.group(1).replace("&amp;", "&") if found else None


class TestPublicTablePagesAreBounded:
    """Finding 6: at 8,000 filed matches /api/tables/<id>/ was 3.8 MB and about 2 s after
    every tap; the list of filed matches and results.csv were read whole on every request
    and had no ETag."""

    PAGE = selectors.FILED_PAGE
    TOTAL = 2 * PAGE + 5  # two whole pages and a short one

    @pytest.fixture
    def table(self, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        file_matches(table, self.TOTAL)
        tap(table, "Ann")  # the open match under way
        return table

    def test_the_json_holds_the_open_match_and_the_latest_matches_then_pages_back(
        self, client, table
    ):
        total = self.TOTAL
        first = client.get(reverse("matches:api_table", args=[table.pk])).json()
        assert first["current_match"]["number"] == total + 1
        assert first["current_match"]["out"] == [{"player": "Ann", "place": 3}]
        # The latest page, oldest first as the document always listed its matches.
        assert numbers(first) == list(range(total - self.PAGE + 1, total + 1))
        assert first["matches"][-1]["winner"] == "Cy"
        path = reverse("matches:api_table_matches", args=[table.pk])
        assert first["next"] == f"{path}?before={total - self.PAGE + 1}"
        seen, link = numbers(first), first["next"]
        while link is not None:
            page = client.get(link).json()
            assert page["id"] == table.pk
            assert 0 < len(page["matches"]) <= self.PAGE
            assert numbers(page)[-1] == seen[0] - 1  # exactly where the last page stopped
            assert [row["player"] for row in page["matches"][0]["results"]] == ["Cy", "Bob", "Ann"]
            seen, link = numbers(page) + seen, page["next"]
        assert seen == list(range(1, total + 1))  # every match once; the last page has no next

    def test_the_matches_page_shows_the_latest_and_links_the_older_ones(self, client, table):
        total = self.TOTAL
        html = client.get(reverse("matches:matches", args=[table.pk])).content.decode()
        assert listed(html) == list(range(total, total - self.PAGE, -1))
        assert "Latest matches" not in html
        seen, link = listed(html), older_link(html)
        while link is not None:
            html = client.get(link).content.decode()
            assert listed(html)[0] == seen[-1] - 1
            assert "Latest matches" in html
            seen, link = seen + listed(html), older_link(html)
        assert seen == list(range(total, 0, -1))

    @pytest.mark.parametrize(
        "route, query",
        [
            ("matches", {}),
            ("matches", {"before": "21"}),
            ("api_table_matches", {"before": "21"}),
            ("api_table", {}),
            ("table_results_csv", {}),
        ],
    )
    def test_a_repeat_request_is_a_304_until_the_table_changes(self, client, table, route, query):
        url = reverse(f"matches:{route}", args=[table.pk])
        first = client.get(url, query)
        assert first.status_code == 200
        again = client.get(url, query, HTTP_IF_NONE_MATCH=first["ETag"])
        assert again.status_code == 304 and again.content == b""
        tap(table, "Bob")  # files the open match
        assert client.get(url, query, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200

    def test_a_page_names_its_place_in_its_tag(self, client, table):
        url = reverse("matches:api_table_matches", args=[table.pk])
        tags = {client.get(url, {"before": b})["ETag"] for b in ("21", "021", "41")}
        assert len(tags) == 2  # ?before=021 is ?before=21

    @pytest.mark.parametrize("before", ["x", "0", "-3", "1.5", "9" * 30])
    def test_a_bad_page_is_refused_with_a_message(self, client, table, before):
        json = client.get(reverse("matches:api_table_matches", args=[table.pk]), {"before": before})
        assert json.status_code == 400
        assert json.json() == {"error": "before must be a match number."}
        page = client.get(reverse("matches:matches", args=[table.pk]), {"before": before})
        assert page.status_code == 400
        assert page.content.decode() == "before must be a match number."

    @pytest.mark.parametrize("filed", [5, 45])
    def test_the_json_and_the_page_cost_the_same_however_many_matches(
        self, host, client, django_assert_num_queries, filed
    ):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        file_matches(table, filed)
        # The row with its stamp, the open match, its seats, a page of filed matches with
        # their winners, their seats, the version again.
        with django_assert_num_queries(6):
            document = client.get(reverse("matches:api_table", args=[table.pk])).json()
        assert len(document["matches"]) == min(filed, self.PAGE)
        # The row, a page of filed matches with their winners, the version again.
        with django_assert_num_queries(3):
            html = client.get(reverse("matches:matches", args=[table.pk])).content.decode()
        assert len(listed(html)) == min(filed, self.PAGE)
        # An older page: the row, the page, its seats, the version.
        with django_assert_num_queries(4):
            page = client.get(
                reverse("matches:api_table_matches", args=[table.pk]), {"before": filed}
            ).json()
        assert len(page["matches"]) == min(filed - 1, self.PAGE)

    def test_results_csv_streams_every_row_a_chunk_at_a_time(
        self, client, table, django_assert_num_queries, monkeypatch
    ):
        monkeypatch.setattr(selectors, "RESULTS_CHUNK", 7)
        monkeypatch.setattr(exports, "STREAM_CHUNK", 1)  # hand over every row
        response = client.get(reverse("matches:table_results_csv", args=[table.pk]))
        assert response.streaming
        chunks = iter(response.streaming_content)
        # The first bytes cost the row and one chunk of matches, however long the table.
        with django_assert_num_queries(1):
            head = next(chunks)
        body = (head + b"".join(chunks)).decode("utf-8").lstrip("\ufeff")
        rows = list(csv.reader(io.StringIO(body)))
        assert rows[0] == ["table", "match", "date", "time", "player", "place", "points", "winner"]
        expected = [
            (number, name) for number in range(1, self.TOTAL + 1) for name in ("Cy", "Bob", "Ann")
        ]
        assert [(int(row[1]), row[4]) for row in rows[1:]] == expected


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ask(port: int, path: str, timeout: float) -> bytes:
    """A plain GET on its own connection: the status line, or b"" if none came in time."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
        )
        try:
            return conn.recv(64).split(b"\r\n")[0]
        except TimeoutError:
            return b""


def closed_by_server(conn: socket.socket) -> bool:
    """Whether the server has closed this connection (anything it said before is read)."""
    try:
        while data := conn.recv(4096):
            del data
        return True
    except BlockingIOError:
        return False
    except ConnectionError:
        return True


class TestSlowBodiesAreShed:
    """Finding 2: sockets trickling a byte every 5 s held gunicorn's threads (gthread reads a
    request with no time limit), and spectators' polls hung behind them."""

    LIMIT = 2  # BRAG_REQUEST_TIMEOUT for this server, in seconds

    @pytest.fixture
    def server(self, tmp_path):
        port = free_port()
        env = {
            **os.environ,
            "BRAG_REQUEST_TIMEOUT": str(self.LIMIT),
            "DJANGO_DEBUG": "1",  # no collected static files needed
            "DJANGO_HTTPS": "0",
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
            # Nothing below reads the database: the trickles never finish a request, and the
            # manifest is open before the first host exists.
            "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",
        }
        gunicorn = Path(sys.executable).parent / "gunicorn"
        # The project's gunicorn.conf.py (read from ROOT); one worker, so its threads are all.
        process = subprocess.Popen(
            [str(gunicorn), "brag_tables.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            deadline = time.monotonic() + 60
            while not ask_quietly(port):
                assert process.poll() is None and time.monotonic() < deadline, "no gunicorn"
                time.sleep(0.2)
            yield port
        finally:
            process.terminate()
            process.wait(timeout=30)

    def test_trickling_clients_are_closed_and_polls_still_answer(self, server):
        threads = 4  # gunicorn.conf.py's then, each held by one trickle before this fix
        trickles = []
        for index in range(threads):
            conn = socket.create_connection(("127.0.0.1", server))
            if index % 2:  # a body that never ends (the CSRF check reads it)
                conn.sendall(
                    b"POST /setup/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Cookie: csrftoken=" + b"a" * 32 + b"\r\n"
                    b"Content-Type: application/x-www-form-urlencoded\r\n"
                    b"Content-Length: 1000\r\n\r\nx"
                )
            else:  # headers that never end
                conn.sendall(b"GET /rules/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: x")
            conn.setblocking(False)
            trickles.append(conn)
        started = time.monotonic()
        time.sleep(0.5)  # every thread is reading a trickle now
        shut: dict[int, float] = {}
        poll = {}
        poller = threading.Thread(
            target=lambda: poll.update(line=ask(server, "/manifest.webmanifest", 10))
        )
        poller.start()
        while len(shut) < threads and time.monotonic() - started < self.LIMIT + 4:
            for index, conn in enumerate(trickles):
                if index in shut:
                    continue
                try:
                    conn.send(b"x")  # a byte every half second, forever
                except OSError:
                    shut[index] = time.monotonic() - started
                    continue
                if closed_by_server(conn):
                    shut[index] = time.monotonic() - started
            time.sleep(0.5)
        poller.join()
        waited = time.monotonic() - started
        for conn in trickles:
            conn.close()
        assert poll["line"] == b"HTTP/1.1 200 OK"
        assert waited < self.LIMIT + 4
        assert sorted(shut) == list(range(threads))
        assert max(shut.values()) < self.LIMIT + 2


def ask_quietly(port: int) -> bool:
    try:
        return ask(port, "/manifest.webmanifest", 2) == b"HTTP/1.1 200 OK"
    except OSError:
        return False


# Finding 10: the night of Friday 6 November 2026 (GMT in London), from 23:10 to 01:30.
FRIDAY = datetime.date(2026, 11, 6)
LATE_WINS = [(FRIDAY, 23, 10), (FRIDAY, 23, 45), (SATURDAY := FRIDAY + datetime.timedelta(1), 0, 20),
             (SATURDAY, 0, 55), (SATURDAY, 1, 30)]  # fmt: skip


def local(day: datetime.date, hour: int, minute: int = 0) -> datetime.datetime:
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time(hour, minute)))


def crowned_at(table: Table, when: datetime.datetime, order=("Cy", "Ben")) -> None:
    """Tap the players out in this order at that moment: the last one left (Ann) wins."""
    with mock.patch.object(timezone, "now", return_value=when):
        for name in order:
            tap(table, name)


def rows_of(client, **params) -> list[tuple]:
    response = client.get(reverse("matches:api_standings"), params)
    assert response.status_code == 200
    return [(r["player"], r["played"], r["wins"], r["points"]) for r in response.json()["rows"]]


class TestOneNightOneRule:
    """Finding 10: "tonight" started at noon, but the best night, the daily tallies, seasons
    and date filters cut at midnight: five wins between 23:10 and 01:30 were "5 tonight" and
    "best night: 3"."""

    @pytest.fixture
    def late_night(self, host):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        for day, hour, minute in LATE_WINS:
            crowned_at(table, local(day, hour, minute))
        return table

    def test_tonight_at_the_table_counts_all_five(self, late_night, client):
        with mock.patch.object(timezone, "now", return_value=local(SATURDAY, 1, 35)):
            html = client.get(reverse("matches:table", args=[late_night.pk])).content.decode()
        tonight = html.split("Tonight at this table", 1)[1]
        row = re.search(r'<tr class="leader">(.*?)</tr>', tonight, re.S).group(1)
        assert re.findall(r'<td class="num">(\d+)</td>', row) == ["15", "5", "5"]
        assert "Ann</th>" in row

    def test_the_best_night_is_all_five_on_the_evenings_date(self, late_night, client):
        ann = Player.objects.get(name="Ann")
        html = client.get(reverse("matches:player", args=[ann.pk])).content.decode()
        assert "Best night: 6 Nov 2026, 5 won of 5 matches." in html
        # The history and the chart's dots name each match's night too: all on the Friday.
        assert html.count("<td>6 Nov 2026</td>") == 5
        assert len(re.findall(r"Match \d, 6 Nov 2026: 1st", html)) == 5
        assert "7 Nov 2026" not in html

    def test_standings_from_and_to_the_evening_count_all_five(self, late_night, client):
        friday, saturday = FRIDAY.isoformat(), SATURDAY.isoformat()
        assert rows_of(client, **{"from": friday, "to": friday}) == [
            ("Ann", 5, 5, 15), ("Ben", 5, 0, 10), ("Cy", 5, 0, 5)
        ]  # fmt: skip
        assert rows_of(client, **{"from": saturday, "to": saturday}) == []
        table = late_night.pk
        assert rows_of(client, table=table, **{"from": friday, "to": friday})[0] == (
            "Ann", 5, 5, 15
        )  # fmt: skip
        assert rows_of(client, table=table, **{"from": saturday}) == []

    def test_a_season_ending_on_the_evening_holds_the_whole_night(self, late_night, client):
        autumn = Season.objects.create(
            name="Autumn", first_day=datetime.date(2026, 9, 1), last_day=FRIDAY
        )
        winter = Season.objects.create(
            name="Winter", first_day=SATURDAY, last_day=datetime.date(2027, 2, 28)
        )
        assert rows_of(client, season=autumn.pk)[0] == ("Ann", 5, 5, 15)
        assert rows_of(client, season=winter.pk) == []
        with mock.patch.object(timezone, "now", return_value=local(SATURDAY, 1, 35)):
            html = client.get(reverse("matches:seasons")).content.decode()
            page = client.get(reverse("matches:standings")).content.decode()
        winter_html, autumn_html = html.split('id="season-', 2)[1:]  # latest first
        # Still Friday's night at 01:35: Autumn is the current season, Winter not started.
        assert ">current</span>" in autumn_html and "Leading so far:" in autumn_html
        assert "15 points, 5 wins" in autumn_html
        assert "not started" in winter_html and "Ann" not in winter_html
        assert re.search(rf'<option value="{autumn.pk}" selected>Autumn</option>', page)

    def test_noon_starts_the_next_night(self, host, client):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        crowned_at(table, local(SATURDAY, 11, 59))  # Ann wins: still Friday's night
        crowned_at(table, local(SATURDAY, 12, 0), order=("Ann", "Cy"))  # Ben: Saturday's
        friday, saturday = FRIDAY.isoformat(), SATURDAY.isoformat()
        assert rows_of(client, **{"from": friday, "to": friday}) == [
            ("Ann", 1, 1, 3), ("Ben", 1, 0, 2), ("Cy", 1, 0, 1)
        ]  # fmt: skip
        assert rows_of(client, **{"from": saturday, "to": saturday}) == [
            ("Ben", 1, 1, 3), ("Cy", 1, 0, 2), ("Ann", 1, 0, 1)
        ]  # fmt: skip
        ann = Player.objects.get(name="Ann")
        html = client.get(reverse("matches:player", args=[ann.pk])).content.decode()
        assert "Best night: 6 Nov 2026, 1 won of 1 match." in html
        with mock.patch.object(timezone, "now", return_value=local(SATURDAY, 12, 5)):
            html = client.get(reverse("matches:table", args=[table.pk])).content.decode()
        tonight = html.split("Tonight at this table", 1)[1].split("</section>", 1)[0]
        assert re.findall(r"(\w+)</th><td", tonight) == ["Ben", "Cy", "Ann"]

    def test_the_migration_moves_a_databases_midnight_cut_days_to_nights(self, host, client):
        """Databases filed before the fix hold calendar days: the migration counts every
        tally, night and running total afresh by night."""
        with mock.patch.object(filing, "night_of", timezone.localdate):  # the old rule
            table = make_table(host=host, players=["Ann", "Ben", "Cy"])
            for day, hour, minute in LATE_WINS:
                crowned_at(table, local(day, hour, minute))
        friday = FRIDAY.isoformat()
        assert rows_of(client, **{"from": friday, "to": friday})[0] == ("Ann", 2, 2, 6)
        assert aggregate_problems()  # check_integrity sees the midnight-cut tallies
        before = core_stamp.standings_stamp()
        migration = importlib.import_module("matches.migrations.0013_nights_start_at_noon")
        migration._tallies_by_night(django_apps, SimpleNamespace(connection=connection))
        assert aggregate_problems() == []
        assert core_stamp.standings_stamp() != before  # no page kept from the old counts
        assert rows_of(client, **{"from": friday, "to": friday}) == [
            ("Ann", 5, 5, 15), ("Ben", 5, 0, 10), ("Cy", 5, 0, 5)
        ]  # fmt: skip
        assert rows_of(client, **{"from": SATURDAY.isoformat()}) == []
        ann = Player.objects.get(name="Ann")
        html = client.get(reverse("matches:player", args=[ann.pk])).content.decode()
        assert "Best night: 6 Nov 2026, 5 won of 5 matches." in html
        assert DailyTally.objects.count() == 3 and PlayerNight.objects.count() == 3
        assert rows_of(client) == [("Ann", 5, 5, 15), ("Ben", 5, 0, 10), ("Cy", 5, 0, 5)]


class TestAnonymousPollsCostLess:
    """Issue 21: a spectator's 304 poll cost a worker about 1 ms of CPU, most of it in layers
    an anonymous poll does not need; it is now answered early (web.polls.SpectatorPolls) with
    the whole stack's own 304, and nothing a visitor sends can make it answer anyone else."""

    @pytest.fixture
    def fast(self):
        # Local import: the helpers live with the fast path's own tests.
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
