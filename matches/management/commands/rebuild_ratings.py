from django.core.management.base import BaseCommand

from matches.head_to_head import pairs_rebuild
from matches.nights import nights_rebuild
from matches.ratings import ratings_rebuild


class Command(BaseCommand):
    help = (
        "Recompute every skill rating, the career kept with it, the head-to-head pairs and "
        "the players' nights "
        "from the filed matches, from scratch."
    )

    def handle(self, *args, **options) -> None:
        rated = ratings_rebuild()
        pairs = pairs_rebuild()
        nights = nights_rebuild()
        self.stdout.write(
            self.style.SUCCESS(
                f"Ratings rebuilt from {rated} filed matches; {pairs} head-to-head pairs and "
                f"{nights} players' nights counted."
            )
        )
