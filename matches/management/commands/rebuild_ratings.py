from django.core.management.base import BaseCommand

from matches.results.filing import league_recount


class Command(BaseCommand):
    help = (
        "Recompute every skill rating, the career kept with it, the head-to-head pairs, "
        "the players' nights and the running totals from the filed matches, from scratch."
    )

    def handle(self, *args, **options) -> None:
        counted = league_recount()
        self.stdout.write(
            self.style.SUCCESS(
                "Ratings rebuilt from {rated} filed matches; {pairs} head-to-head pairs, "
                "{nights} players' nights and {running} running totals counted.".format(**counted)
            )
        )
