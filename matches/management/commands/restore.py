from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from matches.core.backups import BackupError, backup_restore

from ._progress import Progress


class Command(BaseCommand):
    help = (
        "Replace the whole database with a backup made by `backup` (or an automatic one). "
        "Stop the app first; everything recorded since the backup is lost. The file is "
        "checked first: anything that is not an undamaged backup of this app is refused and "
        "nothing is changed."
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
            backup_restore(path, say=progress.show)
        except BackupError as error:
            raise CommandError(str(error)) from None
        finally:
            progress.end()
        self.stdout.write(self.style.SUCCESS(f"Database restored from {path}"))
