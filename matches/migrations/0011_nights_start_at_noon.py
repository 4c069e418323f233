"""A night starts at noon (rules/nights.py), but the daily tallies were filed by the calendar
date, cut at midnight. Counts each tally afresh from the filed seats by the night of its
match (the evening's date, in the league's time zone), then the players' nights and running
totals from those tallies, each in one INSERT ... SELECT: seconds for 100,000 matches. The
all-time totals hold no day and stay as they are."""

import datetime

from django.db import migrations
from django.db.models import Case, Count, DateField, F, IntegerField, Q, Sum, Value, When
from django.db.models.functions import TruncDate

COUNTS = ("played", "wins", "seconds", "thirds", "points")
NOON = 12


def _night(field):
    # rules.nights.night_of_field as it is today, kept here so this migration never changes:
    # before noon, 18 hours back lands on the evening before whatever a clock change did.
    return Case(
        When(**{f"{field}__hour__gte": NOON}, then=TruncDate(field)),
        default=TruncDate(F(field) - datetime.timedelta(hours=NOON + 6)),
        output_field=DateField(),
    )


def _worth(points_by_place, *, ranked_only=True):
    ranked = Q(match__table__mode="ranked") if ranked_only else Q()
    return Sum(
        Case(
            *[When(ranked & Q(place=p), then=Value(n)) for p, n in points_by_place.items()],
            default=Value(0),
            output_field=IntegerField(),
        )
    )


def _tallies_by_night(apps, schema_editor):
    Seat = apps.get_model("matches", "Seat")
    Match = apps.get_model("matches", "Match")
    if not Match.objects.filter(status="filed").exists():
        return  # a new database: nothing filed, nothing to count
    connection = schema_editor.connection
    qn = connection.ops.quote_name
    tables = {
        name: qn(apps.get_model("matches", name)._meta.db_table)
        for name in ("DailyTally", "PlayerNight", "RunningTotal", "Table", "StandingsStamp")
    }
    # The scoring rule as migration 0001 left it: a winner-takes-all match counts the
    # winner's win only; a ranked one 3, 2 and 1 points and the 2nds and 3rds.
    by_night = (
        Seat.objects.filter(match__status="filed")
        # Named: SQLite names a subquery's plain columns as it likes.
        .annotate(seat_player=F("player_id"), seat_table=F("match__table_id"), night=_night("match__filed_at"))
        .values("seat_player", "seat_table", "night")
        .annotate(
            played=Count("id"),
            wins=_worth({1: 1}, ranked_only=False),
            seconds=_worth({2: 1}),
            thirds=_worth({3: 1}),
            points=_worth({1: 3, 2: 2, 3: 1}),
        )
        .order_by()
    )
    select, params = by_night.query.sql_with_params()
    counts = ", ".join(COUNTS)
    running = ", ".join(f"SUM(SUM(d.{c})) OVER w" for c in COUNTS)

    def per(mode, by):
        return (
            f"SELECT d.player_id, {mode}, d.day, {running} FROM {tables['DailyTally']} d "  # noqa: S608
            f"JOIN {tables['Table']} t ON t.id = d.table_id "
            f"GROUP BY {by}, d.day HAVING SUM(d.played) > 0 "
            f"WINDOW w AS (PARTITION BY {by} ORDER BY d.day)"
        )

    with connection.cursor() as cursor:
        for name in ("RunningTotal", "PlayerNight", "DailyTally"):
            cursor.execute(f"DELETE FROM {tables[name]}")  # noqa: S608
        cursor.execute(
            f"INSERT INTO {tables['DailyTally']} (player_id, table_id, day, {counts}) "  # noqa: S608
            f"SELECT s.seat_player, s.seat_table, s.night, {', '.join(f's.{c}' for c in COUNTS)} "
            f"FROM ({select}) s",
            params,
        )
        cursor.execute(
            f"INSERT INTO {tables['PlayerNight']} (player_id, day, played, wins, points) "  # noqa: S608
            f"SELECT player_id, day, SUM(played), SUM(wins), SUM(points) "
            f"FROM {tables['DailyTally']} GROUP BY player_id, day"
        )
        cursor.execute(
            f"INSERT INTO {tables['RunningTotal']} (player_id, mode, day, {counts}) "  # noqa: S608
            f"{per('t.mode', 'd.player_id, t.mode')} UNION ALL {per(repr('all'), 'd.player_id')}"
        )
        # Standings pages and their ETags were built on the midnight-cut counts.
        cursor.execute(f"UPDATE {tables['StandingsStamp']} SET version = version + 1")  # noqa: S608


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0010_match_discard_reason"),
    ]

    operations = [
        migrations.RunPython(_tallies_by_night, migrations.RunPython.noop, elidable=True),
    ]
