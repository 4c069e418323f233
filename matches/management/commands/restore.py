import itertools
import sqlite3
import uuid
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from matches.models import StandingsStamp

from ._database import (
    first_line,
    postgres_command,
    run_tool,
    table_count,
    verify_postgres_backup,
    verify_sqlite_backup,
)
from ._progress import Progress


class Command(BaseCommand):
    help = (
        "Replace the whole database with a backup made by `backup`. Stop the app first; "
        "everything recorded since the backup is lost. The file is checked first: anything "
        "that is not an undamaged backup of this app is refused and nothing is changed."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument(
            "--yes", action="store_true", help="Confirm that the current data is to be replaced."
        )

    def handle(self, *args, path: Path, yes: bool, **options) -> None:
        if not path.is_file():
            raise CommandError(f"No backup at {path}.")
        if not yes:
            raise CommandError("This replaces every table, match and tap. Add --yes to go on.")
        progress = Progress(self.stderr)
        try:
            self.restore(path, progress)
        finally:
            progress.end()
        # Standings cached for the timeline this backup left must never be served again, nor
        # a table page tagged before: table versions go back to the backup's, the epoch moves
        # on (a backup made before any standings change has no stamp row yet: add it).
        StandingsStamp.objects.bulk_create([StandingsStamp(pk=1)], ignore_conflicts=True)
        StandingsStamp.objects.update(epoch=uuid.uuid4())
        self.stdout.write(self.style.SUCCESS(f"Database restored from {path}"))

    def restore(self, path: Path, progress: Progress) -> None:
        connection = connections["default"]
        if connection.vendor == "sqlite":

            def checked(table: str, done: int, total: int) -> None:
                progress.show(f"checking the backup, table {done + 1}/{total}: {table}")

            verify_sqlite_backup(path, progress=checked)
            progress.show(f"restoring {path.stat().st_size / 1e6:,.1f} MB", force=True)
            connection.ensure_connection()
            source = sqlite3.connect(path)
            try:
                source.backup(connection.connection)
            finally:
                source.close()
        elif connection.vendor == "postgresql":
            progress.show("checking the backup", force=True)
            verify_postgres_backup(path)
            total, reached = table_count(), itertools.count(1)
            connection.close()
            command, env = postgres_command(
                "pg_restore",
                "--clean",
                "--if-exists",
                "--no-owner",
                # All or nothing: a dump that fails half-way leaves the live data as it was.
                "--single-transaction",
                str(path),
            )

            def table(name: str) -> None:
                progress.show(f"restoring table {next(reached)}/{total}: {name}")

            code, printed = run_tool(command, env, tables=table if progress.on else None)
            if code:
                raise CommandError(
                    f"{path} could not be restored ({first_line(printed)}). Nothing was changed."
                )
        else:
            raise CommandError(f"No restore method for {connection.vendor}.")
