"""Back up mid-season while the app runs, restore into an emptied database: same standings."""

import sqlite3
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from matches import integrity
from matches.core import stamp as core_stamp
from matches.models import Player, Table
from matches.play import selectors, services
from matches.results import standings as league_standings
from tests.factories import make_host, make_table, tap

pytestmark = pytest.mark.django_db(transaction=True)


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
        [selectors.table_api(table=t) for t in Table.objects.order_by("pk")],
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
    services.table_close(table_id=front.pk, by=host, discard_match_id=open_match.pk)
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
    """Finding 1: the file is checked before anything is touched; the live data stays."""

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
    """Finding 11: an existing file is kept unless --force; bad paths get one clean line."""

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


class Terminal(StringIO):
    def isatty(self) -> bool:
        return True


class TestProgressOnATerminal:
    """A long backup or restore says how far it is on the terminal (stderr); into a log or a
    pipe it prints only its outcome."""

    def test_backup_and_restore_show_progress_on_a_terminal(self, tmp_path):
        season()
        path = tmp_path / "season.dump"
        shown = Terminal()
        call_command("backup", str(path), stdout=StringIO(), stderr=shown)
        assert shown.getvalue().startswith("\rbacking up ")
        assert shown.getvalue().endswith("\n")
        shown = Terminal()
        call_command("restore", str(path), "--yes", stdout=StringIO(), stderr=shown)
        assert "\rchecking the backup" in shown.getvalue()
        assert "\rrestoring " in shown.getvalue()
        assert integrity.integrity_problems() == []

    def test_nothing_is_shown_into_a_log(self, tmp_path):
        season()
        path = tmp_path / "season.dump"
        log = StringIO()
        call_command("backup", str(path), stdout=StringIO(), stderr=log)
        call_command("restore", str(path), "--yes", stdout=StringIO(), stderr=log)
        assert log.getvalue() == ""
