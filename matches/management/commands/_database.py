"""What backup and restore need to reach the database outside Django's connection, and the
check that a file is a backup of this app before restore touches anything."""

import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

from django.core.management.base import CommandError
from django.db import connections
from django.db.migrations.recorder import MigrationRecorder


def postgres_tool(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise CommandError(
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


# pg_dump --verbose and pg_restore --verbose name each table as they reach its rows.
TABLE_REACHED = re.compile(
    r'(?:dumping contents of|processing data for) table "(?:[^"]*\.)?(?P<name>[^"]+)"'
)


def run_tool(
    command: list[str], env: dict[str, str], *, tables: Callable[[str], None] | None = None
) -> tuple[int, str]:
    """Run pg_dump or pg_restore; with tables, add --verbose and call it with each table's
    name as the tool reaches it. Returns the exit code and what the tool printed on stderr."""
    if tables is None:
        result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        return result.returncode, result.stderr
    process = subprocess.Popen(
        [*command, "--verbose"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    printed = []
    assert process.stderr is not None
    for line in process.stderr:
        printed.append(line)
        reached = TABLE_REACHED.search(line)
        if reached:
            tables(reached["name"])
    return process.wait(), "".join(printed)


def table_count() -> int:
    """How many tables the live database has: what a dump or a restore goes through."""
    return len(connections["default"].introspection.table_names())


class NotOurBackup(CommandError):
    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path} is not a Brag Tables backup: {why}. Nothing was changed.")


class DamagedBackup(CommandError):
    def __init__(self, path: Path, why: str) -> None:
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
        raise DamagedBackup(path, first_line(error)) from None
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
