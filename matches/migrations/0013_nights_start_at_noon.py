"""A night starts at noon (rules/nights.py), but the daily tallies were filed by the calendar
date, cut at midnight. Counts each tally afresh from the filed seats by the night of its
match (the evening's date, in the league's time zone), then the players' nights and running
totals from those tallies, each in one INSERT ... SELECT: seconds for 100,000 matches. The
all-time totals hold no day and stay as they are."""

import datetime

from django.db import migrations
from django.db.models import Case, DateField, F, When
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


def _tallies_by_night(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    if not Match.objects.filter(status="filed").exists():
        return  # a new database: nothing filed, nothing to count
    connection = schema_editor.connection
    qn = connection.ops.quote_name
    tables = {
        name: qn(apps.get_model("matches", name)._meta.db_table)
        for name in (
            "Seat", "DailyTally", "PlayerNight", "RunningTotal", "Table", "StandingsStamp"
        )
    }
    # Each match's night worked out once (materialised: SQLite would otherwise work it out
    # for each seat, six times over, in Python functions).
    nights, params = (
        Match.objects.filter(status="filed")
        .annotate(night=_night("filed_at"))
        .values("id", "table_id", "night")
        .query.sql_with_params()
    )
    # The scoring rule as migration 0001 left it: a winner-takes-all match counts the
    # winner's win only; a ranked one 3, 2 and 1 points and the 2nds and 3rds.
    ranked = "t.mode = 'ranked'"
    worth = {
        "played": "1",
        "wins": "CASE WHEN s.place = 1 THEN 1 ELSE 0 END",
        "seconds": f"CASE WHEN {ranked} AND s.place = 2 THEN 1 ELSE 0 END",
        "thirds": f"CASE WHEN {ranked} AND s.place = 3 THEN 1 ELSE 0 END",
        "points": f"CASE WHEN {ranked} THEN CASE s.place WHEN 1 THEN 3 WHEN 2 THEN 2 "
        "WHEN 3 THEN 1 ELSE 0 END ELSE 0 END",
    }
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
            f"WITH n (match_id, table_id, night) AS MATERIALIZED ({nights}) "  # noqa: S608
            f"INSERT INTO {tables['DailyTally']} (player_id, table_id, day, {counts}) "
            f"SELECT s.player_id, n.table_id, n.night, "
            f"{', '.join(f'SUM({worth[c]})' for c in COUNTS)} FROM {tables['Seat']} s "
            f"JOIN n ON n.match_id = s.match_id JOIN {tables['Table']} t ON t.id = n.table_id "
            "GROUP BY s.player_id, n.table_id, n.night",
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
        ("matches", "0012_host_profile"),
    ]

    operations = [
        migrations.RunPython(_tallies_by_night, migrations.RunPython.noop, elidable=True),
    ]
