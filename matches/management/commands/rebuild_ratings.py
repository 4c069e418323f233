from django.core.management.base import BaseCommand

from matches.head_to_head import pairs_rebuild
from matches.ratings import ratings_rebuild


class Command(BaseCommand):
    help = (
        "Recompute every skill rating, the career kept with it and the head-to-head pairs "
        "from the filed matches, from scratch."
    )

    def handle(self, *args, **options) -> None:
        rated = ratings_rebuild()
        pairs = pairs_rebuild()
        self.stdout.write(
            self.style.SUCCESS(
                f"Ratings rebuilt from {rated} filed matches; {pairs} head-to-head pairs counted."
            )
        )
