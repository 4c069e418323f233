from django.core.management.base import BaseCommand, CommandError

from matches.integrity import integrity_problems
from matches.ratings.audit import rating_problems
from matches.ratings.schedule import ratings_updating
from matches.ratings.steps import ratings_settle


class Command(BaseCommand):
    help = "Scan the whole database for broken game rules; exit non-zero if any is found."

    def handle(self, *args, **options) -> None:
        if ratings_updating():
            # The ratings' end state is what is checked: the pending replay runs first.
            rerated = ratings_settle()
            self.stdout.write(f"A ratings replay was pending: {rerated} matches re-rated first.")
        # Ratings are checked against a replay of every filed match from scratch.
        problems = integrity_problems() + rating_problems()
        for problem in problems:
            self.stderr.write(problem)
        if problems:
            raise CommandError(f"{len(problems)} problem(s) found.")
        self.stdout.write(self.style.SUCCESS("Integrity check passed: every rule holds."))
