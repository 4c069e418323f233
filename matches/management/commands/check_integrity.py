from django.core.management.base import BaseCommand, CommandError

from matches.integrity import integrity_problems


class Command(BaseCommand):
    help = "Scan the whole database for broken game rules; exit non-zero if any is found."

    def handle(self, *args, **options) -> None:
        problems = integrity_problems()
        for problem in problems:
            self.stderr.write(problem)
        if problems:
            raise CommandError(f"{len(problems)} problem(s) found.")
        self.stdout.write(self.style.SUCCESS("Integrity check passed: every rule holds."))
