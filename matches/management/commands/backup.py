import itertools
import os
import sqlite3
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from ._database import first_line, postgres_command, run_tool, table_count
from ._progress import Progress


class Command(BaseCommand):
    help = (
        "Write a consistent copy of the database to PATH while the app keeps running: "
        "SQLite's online backup API, or pg_dump's custom format on PostgreSQL. An existing "
        "file is kept unless --force is given."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--force", action="store_true", help="Replace an existing file.")

    def handle(self, *args, path: Path, force: bool, **options) -> None:
        try:
            if path.is_dir():
                raise CommandError(f"Cannot write a backup to {path}: it is a directory.")
            if path.exists() and not force:
                raise CommandError(f"{path} already exists; add --force to replace it.")
            path.parent.mkdir(parents=True, exist_ok=True)
            # Written beside the target and moved over it only once complete, so a failed
            # backup never leaves half a file where the last good one was.
            handle, partial = tempfile.mkstemp(dir=path.parent, prefix=".backup-", suffix=".part")
            os.close(handle)
        except OSError as error:
            raise CommandError(f"Cannot write a backup to {path}: {error.strerror}.") from None
        progress = Progress(self.stderr)
        try:
            self.write(Path(partial), progress)
            os.replace(partial, path)
        except (OSError, sqlite3.Error) as error:
            reason = getattr(error, "strerror", None) or first_line(error)
            raise CommandError(f"Cannot write a backup to {path}: {reason}.") from None
        finally:
            progress.end()
            if os.path.exists(partial):
                os.unlink(partial)
        self.stdout.write(self.style.SUCCESS(f"Backup written to {path}"))

    def write(self, path: Path, progress: Progress) -> None:
        connection = connections["default"]
        if connection.vendor == "sqlite":
            connection.ensure_connection()
            if progress.on:
                size = os.path.getsize(connection.settings_dict["NAME"])
                progress.show(f"backing up {size / 1e6:,.1f} MB", force=True)
            # Copies page by page under SQLite's own locking, so taps may go on meanwhile and
            # the copy is one consistent moment.
            target = sqlite3.connect(path)
            try:
                connection.connection.backup(target)
            finally:
                target.close()
        elif connection.vendor == "postgresql":
            command, env = postgres_command("pg_dump", "--format=custom", "--file", str(path))
            total, reached = table_count(), itertools.count(1)

            def table(name: str) -> None:
                progress.show(f"backing up table {next(reached)}/{total}: {name}")

            code, printed = run_tool(command, env, tables=table if progress.on else None)
            if code:
                raise CommandError(f"pg_dump failed: {first_line(printed)}")
        else:
            raise CommandError(f"No backup method for {connection.vendor}.")
