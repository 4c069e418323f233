from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.models import Table
from matches.play.seed import league_seed
from matches.rules.limits import MIN_PLAYERS

from ._progress import Progress

SEED_HOST = "seed"


def at_least(minimum: int):
    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise ValueError(text)
        return value

    parse.__name__ = f"whole number of at least {minimum}"
    return parse


class Command(BaseCommand):
    help = (
        "Fill an empty database with a made-up league for a demo or a benchmark: PLAYERS "
        "players, TABLES closed tables and MATCHES filed matches of 3 to 10 players spread "
        "over the last DAYS days, with every aggregate counted. Refuses a database that "
        "already has tables unless --force is given (then the league is added to it)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=at_least(MIN_PLAYERS), default=200)
        parser.add_argument("--tables", type=at_least(1), default=50)
        parser.add_argument("--matches", type=at_least(0), default=10_000)
        parser.add_argument("--days", type=at_least(1), default=180)
        parser.add_argument(
            "--venues",
            type=at_least(1),
            default=1,
            help="Spread the tables over this many pubs (the first venue and Pub 002 on).",
        )
        parser.add_argument(
            "--seed", type=int, default=7, help="The same seed makes the same league."
        )
        parser.add_argument(
            "--force", action="store_true", help="Add the league to a database that has tables."
        )

    def handle(self, *args, force: bool, **options) -> None:
        if Table.objects.exists() and not force:
            raise CommandError(
                "This database already has tables; seed_league fills an empty one. "
                "Add --force to add a made-up league to it."
            )
        host, created = self.host()
        progress = Progress(self.stderr)

        def shown(what: str, done: int, total: int) -> None:
            if what == "matches":
                progress.count("seeding matches", done, total)
            else:
                progress.show(f"counting {min(done + 1, total)}/{total}: {what}", force=True)

        try:
            league_seed(
                host=host,
                players=options["players"],
                tables=options["tables"],
                matches=options["matches"],
                days=options["days"],
                seed=options["seed"],
                venues=options["venues"],
                progress=shown,
            )
        finally:
            progress.end()
        pubs = "" if options["venues"] == 1 else " at {venues:,} venues".format(**options)
        self.stdout.write(
            self.style.SUCCESS(
                "Seeded {players:,} players, {tables:,} tables{pubs} and {matches:,} filed "
                "matches over {days} days.".format(pubs=pubs, **options)
            )
        )
        if created:
            self.stdout.write(
                f"No account existed: the tables are hosted by a new admin account "
                f"“{SEED_HOST}” with no password. `python manage.py changepassword {SEED_HOST}` "
                "sets one to log in with."
            )

    def host(self):
        """The first admin account (or the first account), or a new admin account without a
        password when there is none."""
        users = get_user_model()
        host = users.objects.order_by("-is_superuser", "pk").first()
        if host is not None:
            return host, False
        host = users(username=SEED_HOST, is_staff=True, is_superuser=True)
        host.set_unusable_password()
        host.save()
        return host, True
