"""The aggregates standings read carry the venue: the daily tallies and all-time totals copy
their table's, and the running totals gain a row per venue beside the league's (venue null),
so a venue's standings filter rows that are already counted. Filled here from the tallies;
the tallies' venue is required in 0023, a migration of its own (PostgreSQL cannot alter a
table whose rows the same transaction has just updated under a deferred foreign key)."""

import django.db.models.deletion
from django.db import migrations, models

COUNTS = ("played", "wins", "seconds", "thirds", "points")


def _fill_venues(apps, schema_editor):
    """Each tally and total takes its table's venue; then each player's venue tallies, per
    mode and over all modes, added up from their first day to each day (a window over the
    days, as 0008 counted the league's rows)."""
    qn = schema_editor.connection.ops.quote_name
    names = ("DailyTally", "AllTimeTotal", "Table", "RunningTotal")
    tables = {m: qn(apps.get_model("matches", m)._meta.db_table) for m in names}
    with schema_editor.connection.cursor() as cursor:
        for counts in ("DailyTally", "AllTimeTotal"):
            cursor.execute(
                f"UPDATE {tables[counts]} SET venue_id = ("  # noqa: S608 (names from the models)
                f"SELECT t.venue_id FROM {tables['Table']} t WHERE t.id = table_id)"
            )
        running = ", ".join(f"SUM(SUM(d.{c})) OVER w" for c in COUNTS)

        def per(mode, by):
            return (
                f"SELECT d.player_id, d.venue_id, {mode}, d.day, {running} "  # noqa: S608
                f"FROM {tables['DailyTally']} d JOIN {tables['Table']} t ON t.id = d.table_id "
                f"GROUP BY {by}, d.day HAVING SUM(d.played) > 0 "
                f"WINDOW w AS (PARTITION BY {by} ORDER BY d.day)"
            )

        cursor.execute(
            f"INSERT INTO {tables['RunningTotal']} "  # noqa: S608 (names from the models)
            f"(player_id, venue_id, mode, day, {', '.join(COUNTS)}) "
            f"{per('t.mode', 'd.player_id, d.venue_id, t.mode')} UNION ALL "
            f"{per(repr('all'), 'd.player_id, d.venue_id')}"
        )


def _drop_venue_rows(apps, schema_editor):
    apps.get_model("matches", "RunningTotal").objects.filter(venue__isnull=False).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0021_table_venue_required"),
    ]

    operations = [
        migrations.AddField(
            model_name="dailytally",
            name="venue",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="matches.venue",
                verbose_name="venue",
            ),
        ),
        migrations.AddField(
            model_name="alltimetotal",
            name="venue",
            field=models.ForeignKey(
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="matches.venue",
                verbose_name="venue",
            ),
        ),
        migrations.AddField(
            model_name="runningtotal",
            name="venue",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="matches.venue",
                verbose_name="venue",
            ),
        ),
        migrations.RemoveConstraint(model_name="runningtotal", name="running_total_unique"),
        migrations.AddConstraint(
            model_name="runningtotal",
            constraint=models.UniqueConstraint(
                condition=models.Q(("venue__isnull", True)),
                fields=("player", "mode", "day"),
                name="running_total_unique",
            ),
        ),
        migrations.AddConstraint(
            model_name="runningtotal",
            constraint=models.UniqueConstraint(
                condition=models.Q(("venue__isnull", False)),
                fields=("player", "venue", "mode", "day"),
                name="running_total_venue_unique",
            ),
        ),
        migrations.RunPython(_fill_venues, _drop_venue_rows),
    ]
