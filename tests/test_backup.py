"""Back up mid-season while the app runs, restore into an emptied database: same standings."""

import datetime
import fcntl
import logging
import os
import sqlite3
import subprocess
import sys
import threading
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.urls import reverse
from django.utils import timezone, translation

from matches import integrity
from matches.core import autobackup, backups
from matches.core import stamp as core_stamp
from matches.core.errors import RuleError
from matches.models import Player, Table
from matches.play.services.tables import table_close, table_reopen
from matches.results import standings as league_standings
from matches.web import exports
from tests.clients import FormClient
from tests.factories import make_host, make_table, tap, written

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[1]


def season():
    host = make_host()
    front = make_table(host=host, name="Front", players=["Ann", "Bob", "Cy", "Dee"])
    snug = make_table(
        host=host, name="Snug", players=["Ann", "Eve", "Fay"], mode="winner_takes_all"
    )
    for order in (["Dee", "Cy", "Bob"], ["Ann", "Dee", "Cy"], ["Bob", "Ann", "Dee"]):
        for name in order:
            tap(front, name)
    for order in (["Fay", "Eve"], ["Ann", "Fay"]):
        for name in order:
            tap(snug, name)
    tap(front, "Ann")  # a match under way
    return host, front


def snapshot():
    return (
        league_standings.standings(),
        [exports.table_api(table=t) for t in Table.objects.order_by("pk")],
    )


def test_backup_and_restore_give_identical_standings(tmp_path):
    host, front = season()
    before = snapshot()
    path = tmp_path / "backups" / "mid-season.dump"
    out = StringIO()
    call_command("backup", str(path), stdout=out)
    assert path.stat().st_size > 0 and "Backup written" in out.getvalue()

    tap(front, "Bob")  # play goes on after the backup: the restore takes it back
    open_match = front.matches.get(status="open")
    table_close(table_id=front.pk, by=host, discard_match_id=open_match.pk)
    Table.objects.all().delete()
    Player.objects.all().delete()
    assert league_standings.standings() == []

    call_command("restore", str(path), "--yes", stdout=StringIO())
    assert snapshot() == before
    assert integrity.integrity_problems() == []


def test_restore_needs_confirmation_and_a_file(tmp_path):
    with pytest.raises(CommandError, match="Add --yes"):
        path = tmp_path / "b.dump"
        call_command("backup", str(path), stdout=StringIO())
        call_command("restore", str(path), stdout=StringIO())
    with pytest.raises(CommandError, match="No backup at"):
        call_command("restore", str(tmp_path / "missing"), "--yes", stdout=StringIO())


def live_state():
    return (
        sorted(Player.objects.values_list("name", flat=True)),
        snapshot(),
        core_stamp.standings_stamp(),
    )


def refused_restore(path) -> str:
    err = StringIO()
    with pytest.raises(CommandError) as error:
        call_command("restore", str(path), "--yes", stdout=StringIO(), stderr=err)
    return str(error.value)


def sqlite_database_of_another_app(path):
    other = sqlite3.connect(path)
    other.executescript(
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
        "INSERT INTO notes (body) VALUES ('not brag tables');"
    )
    other.commit()
    other.close()


def damaged_copy(source, target):
    """Bytes damaged in place, as a disk or a bad copy does: names no longer valid UTF-8 in
    a SQLite file; a PostgreSQL dump cut short."""
    data = source.read_bytes()
    if data.startswith(b"SQLite format 3"):
        data = data.replace(b"Front", b"\xff\xfe\xff\xfe\xff").replace(b"Ann", b"\xc3\x28\xa0")
    else:
        data = data[: len(data) * 2 // 3]
    target.write_bytes(data)


class TestRestoreRefusesWhatIsNotOurBackup:
    """The file is checked before anything is touched; the live data stays."""

    def test_an_empty_file(self, tmp_path):
        season()
        before = live_state()
        path = tmp_path / "empty.sqlite3"
        path.write_bytes(b"")
        message = refused_restore(path)
        assert message.startswith(f"{path} is not a Brag Tables backup")
        assert "\n" not in message
        assert live_state() == before

    def test_another_applications_sqlite_database(self, tmp_path):
        season()
        before = live_state()
        path = tmp_path / "other.sqlite3"
        sqlite_database_of_another_app(path)
        message = refused_restore(path)
        assert message.startswith(f"{path} is not a Brag Tables backup")
        assert live_state() == before

    def test_a_damaged_backup(self, tmp_path):
        season()
        good = tmp_path / "good.dump"
        call_command("backup", str(good), stdout=StringIO())
        before = live_state()
        bad = tmp_path / "bad.dump"
        damaged_copy(good, bad)
        message = refused_restore(bad)
        assert str(bad) in message and "\n" not in message
        assert live_state() == before
        assert integrity.integrity_problems() == []

    def test_a_real_backup_still_restores_after_a_refusal(self, tmp_path):
        _, front = season()
        good = tmp_path / "good.dump"
        call_command("backup", str(good), stdout=StringIO())
        before = snapshot()
        empty = tmp_path / "empty"
        empty.write_bytes(b"")
        refused_restore(empty)
        tap(front, "Bob")
        call_command("restore", str(good), "--yes", stdout=StringIO())
        assert snapshot() == before


class TestBackupRefusesToOverwrite:
    """An existing file is kept unless --force; bad paths get one clean line."""

    def test_an_existing_file_is_not_overwritten_without_force(self, tmp_path):
        season()
        path = tmp_path / "other.sqlite3"
        sqlite_database_of_another_app(path)
        before = path.read_bytes()
        with pytest.raises(CommandError) as error:
            call_command("backup", str(path), stdout=StringIO())
        assert str(error.value) == f"{path} already exists; add --force to replace it."
        assert path.read_bytes() == before

    def test_force_replaces_it_with_a_backup_that_restores(self, tmp_path):
        season()
        before = snapshot()
        path = tmp_path / "old.dump"
        path.write_bytes(b"an old file")
        call_command("backup", str(path), "--force", stdout=StringIO())
        Table.objects.all().delete()
        call_command("restore", str(path), "--yes", stdout=StringIO())
        assert snapshot() == before

    @pytest.mark.parametrize("kind", ["a directory", "under a file", "a name too long"])
    def test_bad_paths_are_one_clean_line(self, tmp_path, kind):
        season()
        if kind == "a directory":
            path = tmp_path
        elif kind == "under a file":
            (tmp_path / "plain").write_text("x")
            path = tmp_path / "plain" / "b.dump"
        else:
            path = tmp_path / ("b" * 300)
        with pytest.raises(CommandError) as error:
            call_command("backup", str(path), stdout=StringIO())
        message = str(error.value)
        assert message.startswith(f"Cannot write a backup to {path}:"), message
        assert "\n" not in message and "Traceback" not in message


# Automatic backups: after each close and once a night, with nothing to start.


def local(*args) -> datetime.datetime:
    return timezone.make_aware(datetime.datetime(*args))


class Clock:
    """Autobackup's clock, moved by the test from night to night."""

    def __init__(self, moment: datetime.datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime.datetime:
        return self.moment


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock(local(2026, 12, 1, 20, 0))
    monkeypatch.setattr(autobackup, "_now", clock)
    return clock


@pytest.fixture
def folder(settings, tmp_path, clock):
    """Automatic backups on, into a folder of the test's own, each copy written in the
    thread that asks for it so the test sees it at once."""
    settings.BACKUP_AUTO = True
    settings.BACKUP_IN_BACKGROUND = False
    settings.BACKUP_DIR = tmp_path / "auto"
    return settings.BACKUP_DIR


def names(folder) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


def ext() -> str:
    return ".dump" if connection.vendor == "postgresql" else ".sqlite3"


def close(table, host):
    table.refresh_from_db()
    match = table.matches.filter(status="open").first()
    table_close(table_id=table.pk, by=host, discard_match_id=match and match.pk)


def reopen_and_close(table, host):
    table_reopen(table_id=table.pk, by=host)
    close(table, host)


class TestACopyAfterEachClose:
    def test_the_first_close_of_a_night_leaves_a_checked_copy_that_restores(self, folder):
        host, front = season()
        close(front, host)
        nightly = f"brag-2026-12-01-nightly{ext()}"
        assert names(folder) == [".lock", nightly]
        closed = snapshot()
        backups.backup_verify(folder / nightly)  # restore's own check takes it
        Table.objects.all().delete()
        Player.objects.all().delete()
        call_command("restore", str(folder / nightly), "--yes", stdout=StringIO())
        assert snapshot() == closed
        assert Table.objects.get(pk=front.pk).closed_at is not None

    def test_a_second_close_the_same_night_adds_an_after_close_copy_not_a_nightly(
        self, folder, clock
    ):
        host, front = season()
        snug = Table.objects.get(name="Snug")
        close(front, host)
        clock.moment = local(2026, 12, 2, 1, 30, 5)  # the small hours: still 1 December's night
        close(snug, host)
        after = f"brag-2026-12-01-close-013005-table{snug.pk}{ext()}"
        assert names(folder) == [".lock", after, f"brag-2026-12-01-nightly{ext()}"]
        backups.backup_verify(folder / after)
        Table.objects.all().delete()
        call_command("restore", str(folder / after), "--yes", stdout=StringIO())
        assert Table.objects.get(pk=snug.pk).closed_at is not None

    def test_the_night_changes_at_noon(self, folder, clock):
        host, front = season()
        close(front, host)
        clock.moment = local(2026, 12, 2, 11, 59, 59)
        reopen_and_close(front, host)
        clock.moment = local(2026, 12, 2, 12, 0, 0)
        reopen_and_close(front, host)
        clock.moment = local(2026, 12, 2, 12, 0, 1)
        reopen_and_close(front, host)
        assert names(folder) == [
            ".lock",
            f"brag-2026-12-01-close-115959-table{front.pk}{ext()}",
            f"brag-2026-12-01-nightly{ext()}",
            f"brag-2026-12-02-close-120001-table{front.pk}{ext()}",
            f"brag-2026-12-02-nightly{ext()}",
        ]

    def test_closing_through_the_page_leaves_the_copy(self, folder):
        host, front = season()
        client = FormClient()
        client.force_login(host)
        match = front.matches.get(status="open")
        response = client.post(reverse("matches:close", args=[front.pk]), {"discard": match.pk})
        assert response.status_code == 302
        assert names(folder) == [".lock", f"brag-2026-12-01-nightly{ext()}"]
        backups.backup_verify(folder / f"brag-2026-12-01-nightly{ext()}")

    def test_a_refused_close_leaves_no_copy(self, folder):
        host, front = season()
        with pytest.raises(RuleError):
            table_close(table_id=front.pk, by=host)  # a match under way, unconfirmed
        assert not folder.exists()

    def test_the_copy_is_written_in_a_thread_of_its_own(self, folder, settings):
        settings.BACKUP_IN_BACKGROUND = True
        host, front = season()
        close(front, host)
        for thread in threading.enumerate():
            if thread.name == "brag-backup":
                thread.join(timeout=60)
        assert names(folder) == [".lock", f"brag-2026-12-01-nightly{ext()}"]
        backups.backup_verify(folder / f"brag-2026-12-01-nightly{ext()}")

    def test_nothing_is_written_when_they_are_off(self, folder, settings):
        settings.BACKUP_AUTO = False
        host, front = season()
        close(front, host)
        FormClient().get(reverse("matches:home"))
        assert not folder.exists()


class TestOnceANightOnTheFirstRequest:
    def test_the_first_request_after_noon_makes_the_nightly_copy(self, folder, clock, monkeypatch):
        season()
        runs = []
        real_run = autobackup.backup_run
        monkeypatch.setattr(autobackup, "backup_run", lambda **kw: runs.append(kw) or real_run())
        client = FormClient()
        client.get(reverse("matches:home"))
        assert names(folder) == [".lock", f"brag-2026-12-01-nightly{ext()}"]
        assert len(runs) == 1
        clock.moment = local(2026, 12, 2, 11, 59, 59)
        client.get(reverse("matches:home"))
        client.get(reverse("matches:standings"))
        assert len(runs) == 1  # the same night: the process does not even look again
        clock.moment = local(2026, 12, 2, 12, 0, 0)
        client.get(reverse("matches:home"))
        assert len(runs) == 2
        assert names(folder) == [
            ".lock",
            f"brag-2026-12-01-nightly{ext()}",
            f"brag-2026-12-02-nightly{ext()}",
        ]
        backups.backup_verify(folder / f"brag-2026-12-02-nightly{ext()}")

    def test_a_nightly_copy_made_by_another_process_is_not_made_again(self, folder):
        season()
        folder.mkdir()
        made_elsewhere = folder / f"brag-2026-12-01-nightly{ext()}"
        made_elsewhere.write_bytes(b"another worker's copy")
        FormClient().get(reverse("matches:home"))
        assert names(folder) == [made_elsewhere.name]
        assert made_elsewhere.read_bytes() == b"another worker's copy"


class TestOneCopyAtATime:
    def test_a_copy_asked_for_while_another_holds_the_lock(self, folder, monkeypatch, caplog):
        host, front = season()
        folder.mkdir()
        monkeypatch.setattr(autobackup, "LOCK_WAIT_SECONDS", 0.3)
        with open(folder / ".lock", "a") as other:  # as another worker writing a copy
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            assert autobackup.backup_run() is None  # the nightly one: skipped at once
            with caplog.at_level(logging.ERROR, logger="matches.core.autobackup"):
                close(front, host)  # waits its turn, then gives up and says so
            assert names(folder) == [".lock"]
            assert f"No copy after table {front.pk} closed" in caplog.text
        assert autobackup.backup_run() == folder / f"brag-2026-12-01-nightly{ext()}"


def damage_each_copy(monkeypatch):
    """Every copy comes out damaged, as a failing disk writes it."""
    real_copy = backups._copy

    def damaged(path, *args):
        real_copy(path, *args)
        damaged_copy(path, path)

    monkeypatch.setattr(backups, "_copy", damaged)


class TestACopyThatFailsTheCheck:
    def test_keeps_no_name_is_logged_and_shown_until_one_succeeds(
        self, folder, monkeypatch, caplog, admin_client
    ):
        host, front = season()
        damage_each_copy(monkeypatch)
        with caplog.at_level(logging.ERROR, logger="matches.core.autobackup"):
            close(front, host)
        assert names(folder) == [".last-failure", ".lock"]  # no partial file either
        assert "Automatic backup failed" in caplog.text
        assert "failed restore's check" in caplog.text
        page = admin_client.get(reverse("admin_backups")).content.decode()
        assert "The last automatic backup failed: 2026-12-01 20:00 The copy written" in page
        assert "No automatic backup has been made yet." in page

        monkeypatch.undo()  # copies come out whole again (and the real clock is back)
        monkeypatch.setattr(autobackup, "_now", Clock(local(2026, 12, 1, 21, 0)))
        assert autobackup.backup_run() == folder / f"brag-2026-12-01-nightly{ext()}"
        assert names(folder) == [".lock", f"brag-2026-12-01-nightly{ext()}"]
        assert "failed" not in admin_client.get(reverse("admin_backups")).content.decode()


def fake_backup(folder, name):
    path = folder / name
    path.write_bytes(name.encode())
    return path


class TestRetention:
    def test_keeps_14_nightly_copies_the_first_of_each_month_and_two_nights_of_closes(
        self, tmp_path
    ):
        first = datetime.date(2026, 8, 20)
        for day in range((datetime.date(2026, 12, 1) - first).days + 1):
            night = first + datetime.timedelta(day)
            fake_backup(tmp_path, f"brag-{night}-nightly.sqlite3")
        for name in [
            "brag-2026-11-20-close-230000-table3.sqlite3",
            "brag-2026-11-28-close-221500-table4.sqlite3",
            "brag-2026-11-28-close-013000-table5.sqlite3",
            "brag-2026-11-30-close-230000-table6.sqlite3",
            "brag-2026-12-01-close-214000-table7.sqlite3",
            "brag-2026-12-01-close-001000-table8.sqlite3",
            "mine.sqlite3",  # the host's own files are never touched
            "brag-2026-01-01-nightly.sqlite3.bak",
        ]:
            fake_backup(tmp_path, name)
        autobackup.backups_prune(tmp_path)
        last_14 = [f"brag-2026-11-{day:02}-nightly.sqlite3" for day in range(18, 31)]
        assert names(tmp_path) == sorted(
            [
                "brag-2026-01-01-nightly.sqlite3.bak",
                "brag-2026-08-20-nightly.sqlite3",
                "brag-2026-09-01-nightly.sqlite3",
                "brag-2026-10-01-nightly.sqlite3",
                "brag-2026-11-01-nightly.sqlite3",
                *last_14,
                "brag-2026-11-30-close-230000-table6.sqlite3",
                "brag-2026-12-01-close-001000-table8.sqlite3",
                "brag-2026-12-01-close-214000-table7.sqlite3",
                "brag-2026-12-01-nightly.sqlite3",
                "mine.sqlite3",
            ]
        )
        assert len(last_14) + 1 == 14

    def test_a_month_keeps_its_first_copy_for_good(self, tmp_path):
        nights = [datetime.date(2025, 1, 10) + datetime.timedelta(7 * week) for week in range(60)]
        for night in nights:
            fake_backup(tmp_path, f"brag-{night}-nightly.dump")
        autobackup.backups_prune(tmp_path)
        kept = autobackup.backups_list(tmp_path)
        months = {(night.year, night.month) for night in nights}
        firsts = {min(n for n in nights if (n.year, n.month) == month) for month in months}
        assert {b.night for b in kept} == firsts | set(nights[-14:])
        assert len(kept) == len(firsts | set(nights[-14:])) < len(nights)

    def test_pruning_runs_after_each_copy(self, folder):
        host, front = season()
        folder.mkdir()
        for day in range(1, 21):
            fake_backup(folder, f"brag-2026-11-{day:02}-nightly{ext()}")
        close(front, host)
        nightly = sorted(n for n in names(folder) if n.endswith(f"nightly{ext()}"))
        assert nightly == [
            f"brag-2026-11-01-nightly{ext()}",
            *[f"brag-2026-11-{day:02}-nightly{ext()}" for day in range(8, 21)],
            f"brag-2026-12-01-nightly{ext()}",
        ]


@pytest.fixture
def admin_client(db) -> FormClient:
    client = FormClient()
    client.force_login(
        get_user_model().objects.create_superuser(username="boss", password="a-long-password-1")
    )
    return client


@pytest.fixture
def english():
    with translation.override("en"):
        yield


@pytest.mark.usefixtures("english")
class TestTheAdminsBackupsPage:
    def test_lists_the_copies_and_gives_a_superuser_the_latest(self, folder, admin_client, clock):
        host, front = season()
        snug = Table.objects.get(name="Snug")
        close(front, host)
        clock.moment = local(2026, 12, 1, 23, 0, 0)
        close(snug, host)
        latest = folder / f"brag-2026-12-01-close-230000-table{snug.pk}{ext()}"
        index = admin_client.get(reverse("admin:index"))
        assert reverse("admin_backups") in index.content.decode()
        page = admin_client.get(reverse("admin_backups"))
        assert page.status_code == 200
        text = page.content.decode()
        assert text.index(latest.name) < text.index(f"brag-2026-12-01-nightly{ext()}")
        assert f"Download the latest backup ({latest.name})" in text
        response = admin_client.get(reverse("admin_backup_download"))
        assert response.status_code == 200
        assert response["Content-Disposition"] == f'attachment; filename="{latest.name}"'
        assert response["Content-Type"] == "application/octet-stream"
        assert {"private", "no-store"} <= set(response["Cache-Control"].split(", "))
        assert b"".join(response.streaming_content) == latest.read_bytes()

    def test_nothing_to_download_yet(self, folder, admin_client, settings):
        settings.BACKUP_AUTO = False  # else this very request makes tonight's copy
        page = admin_client.get(reverse("admin_backups")).content.decode()
        assert "No automatic backup has been made yet." in page
        assert admin_client.get(reverse("admin_backup_download")).status_code == 404

    def test_anyone_else_is_sent_to_the_login_or_refused(self, folder):
        host, front = season()
        close(front, host)
        login = reverse("admin:login")
        for user in (None, host):  # nobody, and a host who is not staff
            client = FormClient()
            if user is not None:
                client.force_login(user)
            for url in (reverse("admin_backups"), reverse("admin_backup_download")):
                response = client.get(url)
                assert response.status_code == 302
                assert response["Location"] == f"{login}?next={url}"
        # A host the organiser let into the admin: the backups (every account in a file)
        # stay the organiser's, and the admin's index does not offer them.
        staff = get_user_model().objects.create_user(username="staff", is_staff=True)
        client = FormClient()
        client.force_login(staff)
        assert reverse("admin_backups") not in client.get(reverse("admin:index")).content.decode()
        for url in (reverse("admin_backups"), reverse("admin_backup_download")):
            response = client.get(url)
            assert response.status_code == 403
            page = response.content.decode()
            assert "Only the league’s organiser may see and download the backups." in page
            assert f"brag-2026-12-01-nightly{ext()}" not in page
            assert "SQLite" not in page and "PGDMP" not in page

    def test_without_pg_dump_on_postgresql_the_page_says_they_are_off(
        self, folder, admin_client, monkeypatch
    ):
        host, front = season()
        monkeypatch.setattr(connection, "vendor", "postgresql")
        real_which = autobackup.shutil.which
        monkeypatch.setattr(
            autobackup.shutil, "which", lambda tool: None if tool == "pg_dump" else real_which(tool)
        )
        close(front, host)
        assert not folder.exists()
        page = admin_client.get(reverse("admin_backups")).content.decode()
        assert "pg_dump is not installed: automatic backups are off." in page

    def test_switched_off_the_page_says_so(self, folder, admin_client, settings):
        settings.BACKUP_AUTO = False
        page = admin_client.get(reverse("admin_backups")).content.decode()
        assert "Automatic backups are off (BRAG_BACKUP_AUTO=0)." in page


def damaged_schema(source: Path, target: Path) -> None:
    """A backup whose schema lost a name to a bad disk: SQLite's own error message about it
    is no longer UTF-8, which Python's sqlite3 cannot turn into an exception."""
    data = source.read_bytes()
    at = data.index(b"sqlite_autoindex_matches_seat_") + len(b"sqlite_autoindex_")
    target.write_bytes(data[:at] + b"\xff\xfe\xc3" + data[at + 3 :])


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "sqlite", reason="a SQLite file's damage")
@pytest.mark.usefixtures("english")
class TestRestoreOfADamagedBackupIsOneLine:
    """Restoring a damaged backup once printed a traceback (UnicodeDecodeError from PRAGMA
    integrity_check in verify_sqlite_backup)."""

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


@pytest.mark.usefixtures("english")
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
        table_close(table_id=table.pk, by=host)
        table.refresh_from_db()
        assert table.closed_at is not None
        assert f"Automatic backup failed: Cannot use the backup folder {auto}: File exists." in (
            caplog.text
        )
        assert auto.read_text() == "a file where the folder should be"
