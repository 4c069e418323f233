from django.core.management.base import BaseCommand

from matches.ratings import ratings_rebuild


class Command(BaseCommand):
    help = "Recompute every skill rating from the filed matches, from scratch."

    def handle(self, *args, **options) -> None:
        rated = ratings_rebuild()
        self.stdout.write(self.style.SUCCESS(f"Ratings rebuilt from {rated} filed matches."))
