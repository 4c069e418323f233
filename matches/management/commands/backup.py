import sqlite3
import subprocess
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from ._database import postgres_command


class Command(BaseCommand):
    help = (
        "Write a consistent copy of the database to PATH while the app keeps running: "
        "SQLite's online backup API, or pg_dump's custom format on PostgreSQL."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", type=Path)

    def handle(self, *args, path: Path, **options) -> None:
        connection = connections["default"]
        path.parent.mkdir(parents=True, exist_ok=True)
        if connection.vendor == "sqlite":
            connection.ensure_connection()
            # Copies page by page under SQLite's own locking, so taps may go on meanwhile and
            # the copy is one consistent moment.
            target = sqlite3.connect(path)
            try:
                connection.connection.backup(target)
            finally:
                target.close()
        elif connection.vendor == "postgresql":
            command, env = postgres_command("pg_dump", "--format=custom", "--file", str(path))
            result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if result.returncode:
                raise CommandError(f"pg_dump failed: {result.stderr.strip()}")
        else:
            raise CommandError(f"No backup method for {connection.vendor}.")
        self.stdout.write(self.style.SUCCESS(f"Backup written to {path}"))
