from django.core.management.base import BaseCommand

from matches.results.filing import league_recount

from ._progress import Progress


class Command(BaseCommand):
    help = (
        "Rebuild every aggregate from the filed matches' seats, from scratch: the daily "
        "tallies and all-time totals, then the running totals, the players' nights and the "
        "head-to-head pairs, then every skill rating and the career kept with it. Repairs "
        "whatever check_integrity reports about them."
    )

    def handle(self, *args, **options) -> None:
        progress = Progress(self.stderr)

        def step(name: str, done: int, steps: int) -> None:
            progress.show(f"rebuilding {min(done + 1, steps)}/{steps}: {name}", force=True)

        try:
            counted = league_recount(progress=step)
        finally:
            progress.end()
        self.stdout.write(
            self.style.SUCCESS(
                "{tallies} daily tallies and {totals} all-time totals counted from the seats; "
                "ratings rebuilt from {rated} filed matches; {pairs} head-to-head pairs, "
                "{nights} players' nights and {running} running totals counted.".format(**counted)
            )
        )
