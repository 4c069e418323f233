"""A made-up league for a demo, the benchmark and the load test: players, closed tables and
filed matches of 3 to 10 players with their seats and taps, written with bulk inserts; then
every aggregate counted from the seats, as rebuild_ratings does (manage.py seed_league)."""

import datetime
import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Exists, Max, OuterRef, Subquery
from django.utils import timezone

from matches.core.rows import rows_insert, statistics_refresh
from matches.models import Match, Player, Seat, Table, Tap, Venue
from matches.results.filing import league_recount
from matches.rules.limits import MAX_PLAYERS, MIN_PLAYERS
from matches.rules.names import name_key

BATCH = 5000
# Each table has its regulars: a league's tables draw from overlapping pools of players.
REGULARS = 24
# How long a seeded match lasted, from its opening to its crowning.
MATCH_LENGTH = datetime.timedelta(minutes=6)


@dataclass(frozen=True)
class Seating:
    table: Table
    seated: list[Player]  # in seating order
    order: list[Player]  # order[0] won, order[-1] went out first
    filed_at: datetime.datetime


def league_seed(
    *,
    host: User,
    players: int,
    tables: int,
    matches: int,
    days: int = 180,
    seed: int = 7,
    venues: int = 1,
    progress: Callable[[str, int, int], None] | None = None,
) -> list[Player]:
    """Add a league of made-up players (the same ones for the same seed), tables hosted by
    host and closed, spread over venues pubs (the first one and new "Pub N"s; each table's
    regulars come from every pub's players, so players roam), and matches filed evenly over
    the last days; returns the players.
    Progress, if given, hears ("matches", written, matches) and then the recount's steps."""
    if players < MIN_PLAYERS or tables < 1 or matches < 0 or days < 1 or venues < 1:
        raise ValueError(f"a league needs {MIN_PLAYERS} players, a table, a venue and a day")
    rng = random.Random(seed)
    step = progress or (lambda what, done, total: None)
    people = _players(players)
    start = timezone.now() - datetime.timedelta(days=days)
    before = Table.objects.count()
    pubs = _venues(venues)
    table_rows = Table.objects.bulk_create(
        [
            Table(
                name=f"Table {before + n + 1}",
                mode=rng.choice([Table.Mode.RANKED, Table.Mode.WINNER_TAKES_ALL]),
                venue=pubs[n % len(pubs)],
                created_by=host,
                closed_at=timezone.now(),
            )
            for n in range(tables)
        ]
    )
    regulars = {t.pk: rng.sample(people, min(len(people), REGULARS)) for t in table_rows}
    numbers = dict.fromkeys(regulars, 0)
    pending: list[Seating] = []
    step("matches", 0, matches)
    for index in range(matches):
        table = table_rows[index % len(table_rows)]
        pool = regulars[table.pk]
        seated = rng.sample(pool, rng.randint(MIN_PLAYERS, min(MAX_PLAYERS, len(pool))))
        order = seated[:]
        rng.shuffle(order)
        filed_at = start + datetime.timedelta(seconds=(index + 1) * days * 86400 // (matches + 1))
        pending.append(Seating(table, seated, order, filed_at))
        if len(pending) >= BATCH or index == matches - 1:
            _write(host, pending, numbers)
            pending = []
            step("matches", index + 1, matches)
    _times(table_ids=[t.pk for t in table_rows])
    statistics_refresh()  # the recount's reads, planned for the rows just written
    league_recount(progress=progress)
    statistics_refresh()  # and the league's, for the aggregates and ratings it wrote
    return people


def _venues(count: int) -> list[Venue]:
    """The first venue (made if there is none) and count - 1 more, reusing any "Pub N"
    already there."""
    first = Venue.objects.order_by("pk").first() or Venue.objects.create(
        name="Our pub", slug="our-pub"
    )
    names = [f"Pub {n:03d}" for n in range(2, count + 1)]
    Venue.objects.bulk_create(
        [Venue(name=n, key=name_key(n), slug=f"pub-{n[4:]}") for n in names],
        batch_size=BATCH,
        ignore_conflicts=True,
    )
    by_key = {v.key: v for v in Venue.objects.filter(key__in=[name_key(n) for n in names])}
    return [first, *(by_key[name_key(n)] for n in names)]


def _players(count: int) -> list[Player]:
    """count made-up players, reusing any of the same name already there."""
    names = [f"Player {n + 1:03d}" for n in range(count)]
    Player.objects.bulk_create(
        [Player(name=n, key=name_key(n)) for n in names], batch_size=BATCH, ignore_conflicts=True
    )
    by_key = {p.key: p for p in Player.objects.filter(key__in=[name_key(n) for n in names])}
    return [by_key[name_key(n)] for n in names]


@transaction.atomic
def _write(host: User, seatings: list[Seating], numbers: dict[int, int]) -> None:
    when = connection.ops.adapt_datetimefield_value
    key = Tap._meta.get_field("key")
    matches: list[dict[str, Any]] = []
    for seating in seatings:
        numbers[seating.table.pk] += 1
        matches.append(
            {
                "table_id": seating.table.pk,
                "number": numbers[seating.table.pk],
                "status": Match.Status.FILED.value,
                "first_dealer_id": seating.seated[0].pk,
                "winner_id": seating.order[0].pk,
                "opened_at": when(seating.filed_at - MATCH_LENGTH),
                "filed_at": when(seating.filed_at),
            }
        )
    last = Match.objects.aggregate(last=Max("pk"))["last"] or 0
    rows_insert(Match, matches)
    # Their ids, by table and number: among the rows after the last one before them.
    ids: dict[tuple[int, int], int] = {
        (table, number): pk
        for pk, table, number in Match.objects.filter(
            pk__gt=last, table_id__in={seating.table.pk for seating in seatings}
        ).values_list("pk", "table_id", "number")
    }
    seats, taps = [], []
    for row, seating in zip(matches, seatings, strict=True):
        match = ids[(row["table_id"], row["number"])]
        place_of = {p.pk: place for place, p in enumerate(seating.order, start=1)}
        seats += [
            {"match_id": match, "player_id": p.pk, "position": position, "place": place_of[p.pk]}
            for position, p in enumerate(seating.seated)
        ]
        # In the order they were tapped: the first out (the last place) first, the crowning
        # (second place) last, a minute apart.
        out = len(seating.order)
        taps += [
            {
                "match_id": match,
                "player_id": seating.order[place - 1].pk,
                "place": place,
                "key": key.get_db_prep_value(uuid.uuid4(), connection),
                "tapped_by_id": host.pk,
                "tapped_at": when(seating.filed_at - datetime.timedelta(minutes=place - 2)),
            }
            for place in range(out, 1, -1)
        ]
    rows_insert(Seat, seats)
    rows_insert(Tap, taps)


@transaction.atomic
def _times(*, table_ids: list[int]) -> None:
    """Bulk inserts stamp a table with now: move each table's creation and closing to its
    first and last match."""
    at_table = Match.objects.filter(table_id=OuterRef("pk"))
    Table.objects.filter(Exists(at_table), pk__in=table_ids).update(
        created_at=Subquery(at_table.order_by("number").values("opened_at")[:1]),
        closed_at=Subquery(at_table.order_by("-number").values("filed_at")[:1]),
    )
