"""A consistent copy of the database while the app runs (SQLite's online backup API, or
pg_dump's custom format on PostgreSQL), the check that a file is an undamaged backup of this
app, made before a restore touches anything and before a copy gets its name, and the restore
itself. The `backup` and `restore` commands and the automatic copies (core.autobackup) all go
through here."""

import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path

from django.db import connections
from django.db.migrations.recorder import MigrationRecorder

from matches.models import StandingsStamp


class BackupError(Exception):
    """A backup could not be written, or a file is not one restore would take: one line."""


def postgres_tool(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise BackupError(
            f"{tool} was not found. Install PostgreSQL's client tools "
            "(Debian: apt-get install postgresql-client)."
        )
    return path


def postgres_command(tool: str, *args: str) -> tuple[list[str], dict[str, str]]:
    """The pg_dump/pg_restore command line for the default database, and its environment."""
    path = postgres_tool(tool)
    db = connections["default"].settings_dict
    env = {**os.environ}
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = db["PASSWORD"]
    target = ["--dbname", db["NAME"]]
    for flag, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if db.get(key):
            target += [flag, str(db[key])]
    return [path, *target, *args], env


def first_line(text: str) -> str:
    """Command errors are one line: the first line of what a tool printed (its first error
    line, when it also printed --verbose progress)."""
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return next((line for line in lines if "error:" in line), lines[0] if lines else "")


class NotOurBackup(BackupError):
    def __init__(self, path: Path, why: str) -> None:
        self.why = why
        super().__init__(f"{path} is not a Brag Tables backup: {why}. Nothing was changed.")


class DamagedBackup(BackupError):
    def __init__(self, path: Path, why: str) -> None:
        self.why = why
        super().__init__(f"{path} is damaged: {why}. Nothing was changed.")


def _expected() -> tuple[set[str], set[tuple[str, str]]]:
    """The live database's tables and applied migrations: what a backup of it must hold."""
    connection = connections["default"]
    tables = set(connection.introspection.django_table_names(only_existing=True))
    tables.add(MigrationRecorder.Migration._meta.db_table)
    applied = set(MigrationRecorder(connection).applied_migrations())
    return tables, applied


def _compare(path: Path, tables: set[str], applied: set[tuple[str, str]]) -> set[str]:
    """Refuses a backup without the live tables or at another migration state; returns the
    tables to read."""
    expected_tables, expected_applied = _expected()
    missing = sorted(expected_tables - tables)
    if missing:
        raise NotOurBackup(path, f"it has no {', '.join(missing[:3])} table")
    if applied != expected_applied:
        differ = sorted(applied ^ expected_applied)
        raise NotOurBackup(
            path,
            "it was made by another version of the app (migrations differ, e.g. "
            f"{'.'.join(differ[0])}); restore it with that version",
        )
    return expected_tables


def verify_sqlite_backup(
    path: Path, *, progress: Callable[[str, int, int], None] | None = None
) -> None:
    """The file is an undamaged SQLite database of this app at this migration state: every
    row of every table reads back, since integrity_check does not look inside text. Progress,
    if given, hears each table's name, how many were read and how many there are."""
    if path.stat().st_size == 0:
        raise NotOurBackup(path, "the file is empty")
    try:
        source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            verdict = source.execute("PRAGMA integrity_check").fetchone()[0]
            if verdict != "ok":
                raise DamagedBackup(path, f"SQLite's integrity check says {first_line(verdict)}")
            tables = {
                row[0]
                for row in source.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            applied = (
                set(source.execute("SELECT app, name FROM django_migrations"))
                if "django_migrations" in tables
                else set()
            )
            to_read = sorted(_compare(path, tables, applied))
            for done, table in enumerate(to_read):
                if progress is not None:
                    progress(table, done, len(to_read))
                # Table names come from our own schema, never from the file.
                for _ in source.execute(f'SELECT * FROM "{table}"'):  # noqa: S608
                    pass
        finally:
            source.close()
    except sqlite3.DatabaseError as error:
        if "not a database" in str(error):
            raise NotOurBackup(path, "it is not a SQLite database") from None
        raise DamagedBackup(path, first_line(str(error))) from None
    except UnicodeDecodeError as error:
        # SQLite's own message names what is damaged, and a damaged name is not UTF-8, so
        # Python cannot make the DatabaseError out of it: show the message's bytes escaped.
        said = bytes(error.object).decode("utf-8", "backslashreplace")
        raise DamagedBackup(path, first_line(said)) from None


COPY_HEADER = re.compile(r"^COPY \S*django_migrations \((?P<columns>[^)]*)\) FROM stdin;$")
TOC_TABLE = re.compile(r"^\d+; \d+ \d+ TABLE \S+ (?P<name>\S+) ")


def _run(command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, check=False)


def verify_postgres_backup(path: Path) -> None:
    """The file is a pg_dump archive pg_restore can read, with this app's tables and
    applied migrations."""
    if path.stat().st_size == 0:
        raise NotOurBackup(path, "the file is empty")
    pg_restore = postgres_tool("pg_restore")
    listing = _run([pg_restore, "--list", str(path)])
    if listing.returncode:
        raise NotOurBackup(path, f"pg_restore cannot read it ({first_line(listing.stderr)})")
    tables = {m["name"] for m in map(TOC_TABLE.match, listing.stdout.splitlines()) if m}
    data = _run([pg_restore, "--data-only", "--table=django_migrations", "--file=-", str(path)])
    if data.returncode:
        raise DamagedBackup(path, first_line(data.stderr))
    applied: set[tuple[str, str]] = set()
    lines = iter(data.stdout.splitlines())
    for line in lines:
        header = COPY_HEADER.match(line)
        if header:
            columns = [c.strip().strip('"') for c in header["columns"].split(",")]
            for row in lines:
                if row == "\\.":
                    break
                values = dict(zip(columns, row.split("\t"), strict=False))
                applied.add((values.get("app", ""), values.get("name", "")))
    _compare(path, tables, applied)


def backup_suffix() -> str:
    """The file ending of a backup of the default database."""
    return ".dump" if connections["default"].vendor == "postgresql" else ".sqlite3"


Say = Callable[[str], None]  # a long command's progress line on a terminal


def _quiet(text: str) -> None:
    pass


def backup_verify(path: Path, *, say: Say = _quiet) -> None:
    """Raises NotOurBackup or DamagedBackup unless restore would take the file."""
    vendor = connections["default"].vendor
    if vendor == "sqlite":
        verify_sqlite_backup(
            path, progress=lambda table, done, total: say(f"checking {done + 1}/{total}: {table}")
        )
    elif vendor == "postgresql":
        say("checking the dump")
        verify_postgres_backup(path)
    else:
        raise BackupError(f"No restore method for {vendor}.")


def _copy(path: Path, say: Say) -> None:
    connection = connections["default"]
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        # Copies page by page under SQLite's own locking, so taps may go on meanwhile and
        # the copy is one consistent moment.
        target = sqlite3.connect(path)
        try:
            connection.connection.backup(
                target,
                pages=4096,
                progress=lambda _, left, total: say(f"copying pages {total - left:,}/{total:,}"),
            )
            # One self-contained file: the live database's WAL mode comes with the copy, and
            # would have every reader (the check, a restore) leave -wal and -shm files beside it.
            target.execute("PRAGMA journal_mode=DELETE")
        finally:
            target.close()
    elif connection.vendor == "postgresql":
        say("pg_dump is writing the copy")
        command, env = postgres_command("pg_dump", "--format=custom", "--file", str(path))
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if result.returncode:
            raise BackupError(f"pg_dump failed: {first_line(result.stderr)}")
    else:
        raise BackupError(f"No backup method for {connection.vendor}.")


def backup_write(path: Path, *, partial_prefix: str = ".backup-", say: Say = _quiet) -> None:
    """Write a copy of the database to path, checked as restore checks it first.

    The copy is written beside path under a temporary name and moved over it only once
    complete and checked, so a failed backup never leaves half a file, or one restore would
    refuse, where the last good one was."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=partial_prefix, suffix=".part")
        os.close(handle)
    except OSError as error:
        raise BackupError(f"Cannot write a backup to {path}: {error.strerror}.") from None
    partial = Path(name)
    try:
        _copy(partial, say)
        backup_verify(partial, say=say)
        os.replace(partial, path)
    except (NotOurBackup, DamagedBackup) as error:
        raise BackupError(
            f"The copy written for {path} failed restore's check ({error.why}); nothing was kept."
        ) from None
    except (OSError, sqlite3.Error) as error:
        reason = getattr(error, "strerror", None) or first_line(str(error))
        raise BackupError(f"Cannot write a backup to {path}: {reason}.") from None
    finally:
        partial.unlink(missing_ok=True)


def backup_restore(path: Path, *, say: Say = _quiet) -> None:
    """Replace the whole database with the backup at path, once it passed restore's check."""
    backup_verify(path, say=say)
    connection = connections["default"]
    if connection.vendor == "sqlite":
        connection.ensure_connection()
        source = sqlite3.connect(path)
        try:
            source.backup(
                connection.connection,
                pages=4096,
                progress=lambda _, left, total: say(f"restoring pages {total - left:,}/{total:,}"),
            )
        finally:
            source.close()
    else:
        connection.close()
        say("pg_restore is restoring the dump")
        command, env = postgres_command(
            "pg_restore",
            "--clean",
            "--if-exists",
            "--no-owner",
            # All or nothing: a dump that fails half-way leaves the live data as it was.
            "--single-transaction",
            str(path),
        )
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if result.returncode:
            raise BackupError(
                f"{path} could not be restored ({first_line(result.stderr)}). Nothing was changed."
            )
    # Standings cached for the timeline this backup left must never be served again, nor
    # a table page tagged before: table versions go back to the backup's, the epoch moves
    # on (a backup made before any standings change has no stamp row yet: add it).
    StandingsStamp.objects.bulk_create([StandingsStamp(pk=1)], ignore_conflicts=True)
    StandingsStamp.objects.update(epoch=uuid.uuid4())
