from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from matches.core.backups import BackupError, backup_write

from ._progress import Progress


class Command(BaseCommand):
    help = (
        "Write a consistent copy of the database to PATH while the app keeps running: "
        "SQLite's online backup API, or pg_dump's custom format on PostgreSQL, checked as "
        "restore checks it before it takes the name. An existing file is kept unless "
        "--force is given."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--force", action="store_true", help="Replace an existing file.")

    def handle(self, *args, path: Path, force: bool, **options) -> None:
        progress = Progress(self.stderr)
        try:
            if path.is_dir():
                raise CommandError(f"Cannot write a backup to {path}: it is a directory.")
            if path.exists() and not force:
                raise CommandError(f"{path} already exists; add --force to replace it.")
            backup_write(path, say=progress.show)
        except OSError as error:
            raise CommandError(f"Cannot write a backup to {path}: {error.strerror}.") from None
        except BackupError as error:
            raise CommandError(str(error)) from None
        finally:
            progress.end()
        self.stdout.write(self.style.SUCCESS(f"Backup written to {path}"))
