from django.core.management.base import BaseCommand

from matches.head_to_head import pairs_rebuild
from matches.nights import nights_rebuild
from matches.ratings import ratings_rebuild
from matches.running_totals import running_rebuild


class Command(BaseCommand):
    help = (
        "Recompute every skill rating, the career kept with it, the head-to-head pairs, "
        "the players' nights and the running totals from the filed matches, from scratch."
    )

    def handle(self, *args, **options) -> None:
        rated = ratings_rebuild()
        pairs = pairs_rebuild()
        nights = nights_rebuild()
        running = running_rebuild()
        self.stdout.write(
            self.style.SUCCESS(
                f"Ratings rebuilt from {rated} filed matches; {pairs} head-to-head pairs, "
                f"{nights} players' nights and {running} running totals counted."
            )
        )
