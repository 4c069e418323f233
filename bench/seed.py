"""A realistic league, written with bulk inserts: players, tables, filed matches of 3 to 10
players with their seats, taps, daily tallies and all-time totals; then every rating (and the
aggregates kept beside them), computed as rebuild_ratings does."""

import datetime
import random
import uuid
from collections import defaultdict

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from matches.models import AllTimeTotal, DailyTally, Match, Player, Seat, Table, Tap
from matches.results.filing import league_recount
from matches.rules.limits import MAX_PLAYERS, MIN_PLAYERS
from matches.rules.names import name_key
from matches.rules.nights import night_of
from matches.rules.scoring import COUNT_FIELDS, place_counts

BATCH = 5000


def seed_league(*, players: int, tables: int, matches: int, days: int = 180, seed: int = 7):
    rng = random.Random(seed)
    host = get_user_model().objects.create_superuser("bench", password=uuid.uuid4().hex)
    names = [f"Player {n:03d} Ç" for n in range(players)]
    Player.objects.bulk_create([Player(name=n, key=name_key(n)) for n in names], batch_size=BATCH)
    people = list(Player.objects.order_by("pk"))
    table_rows = Table.objects.bulk_create(
        [
            Table(
                name=f"Table {t}",
                mode=rng.choice([Table.Mode.RANKED, Table.Mode.WINNER_TAKES_ALL]),
                created_by=host,
            )
            for t in range(tables)
        ]
    )
    start = timezone.now() - datetime.timedelta(days=days)
    tallies: dict[tuple[int, int, datetime.date], list[int]] = defaultdict(lambda: [0] * 5)
    numbers = defaultdict(int)
    # Each table has its regulars: a league's tables draw from overlapping pools of players.
    regulars = {t.pk: rng.sample(people, min(len(people), 24)) for t in table_rows}

    pending_matches, pending_results = [], []
    for index in range(matches):
        table = table_rows[index % len(table_rows)]
        numbers[table.pk] += 1
        seated = rng.sample(
            regulars[table.pk], rng.randint(MIN_PLAYERS, min(MAX_PLAYERS, len(regulars[table.pk])))
        )
        filed_at = start + datetime.timedelta(seconds=index * days * 86400 // matches)
        order = seated[:]
        rng.shuffle(order)  # order[0] wins, order[-1] went out first
        pending_matches.append(
            Match(
                table=table,
                number=numbers[table.pk],
                status=Match.Status.FILED,
                first_dealer=seated[0],
                winner=order[0],
                filed_at=filed_at,
            )
        )
        pending_results.append((table, seated, order, filed_at))
        if len(pending_matches) >= BATCH or index == matches - 1:
            _write(host, pending_matches, pending_results, tallies)
            pending_matches, pending_results = [], []

    # All-time totals are the daily tallies added up per player and table.
    totals: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0] * 5)
    for (p, t, _), v in tallies.items():
        totals[(p, t)] = [a + b for a, b in zip(totals[(p, t)], v, strict=True)]
    DailyTally.objects.bulk_create(
        [
            DailyTally(player_id=p, table_id=t, day=d, **_counts(v))
            for (p, t, d), v in tallies.items()
        ],
        batch_size=BATCH,
    )
    AllTimeTotal.objects.bulk_create(
        [AllTimeTotal(player_id=p, table_id=t, **_counts(v)) for (p, t), v in totals.items()],
        batch_size=BATCH,
    )
    league_recount()
    return host, people


def _counts(values: list[int]) -> dict[str, int]:
    return dict(zip(COUNT_FIELDS, values, strict=True))


@transaction.atomic
def _write(host, matches, results, tallies) -> None:
    created = Match.objects.bulk_create(matches)
    seats, taps = [], []
    for match, (table, seated, order, filed_at) in zip(created, results, strict=True):
        day = night_of(filed_at)
        place_of = {p.pk: i + 1 for i, p in enumerate(order)}
        for position, player in enumerate(seated):
            place = place_of[player.pk]
            seats.append(Seat(match=match, player=player, position=position, place=place))
            if place > 1:
                taps.append(
                    Tap(match=match, player=player, place=place, key=uuid.uuid4(), tapped_by=host)
                )
            row = tallies[(player.pk, table.pk, day)]
            worth = place_counts(table.mode, place)
            for index, field in enumerate(COUNT_FIELDS):
                row[index] += getattr(worth, field)
    Seat.objects.bulk_create(seats, batch_size=BATCH)
    Tap.objects.bulk_create(taps, batch_size=BATCH)
