"""Per-player aggregates for the player page: the career kept on every RatingChange (and the
latest on PlayerRating), the head-to-head pairs and the players' nights; filled here for the
existing league."""

from itertools import groupby

import django.db.models.deletion
from django.db import migrations, models

BATCH = 2000


def _fill_careers(apps, schema_editor):
    """Walk the filed matches in filing order, as ratings.py does, and write each player's
    career (number, place, run, longest run, best ranked place) on their rating changes."""
    Seat = apps.get_model("matches", "Seat")
    RatingChange = apps.get_model("matches", "RatingChange")
    PlayerRating = apps.get_model("matches", "PlayerRating")
    connection = schema_editor.connection
    qn = connection.ops.quote_name
    rows = (
        Seat.objects.filter(match__status="filed")
        .order_by("match__filed_at", "match_id", "position")
        .values_list("match_id", "match__table__mode", "player_id", "place")
        .iterator(chunk_size=BATCH)
    )
    careers: dict[int, tuple] = {}
    updates = []
    for (match_id, mode), seats in groupby(rows, key=lambda row: row[:2]):
        ranked = mode == "ranked"
        for _, _, player, place in seats:
            number, run, longest, best = careers.get(player, (0, 0, 0, None))
            run = run + 1 if place == 1 else 0
            if ranked:
                best = place if best is None else min(best, place)
            careers[player] = (number + 1, run, max(longest, run), best)
            updates.append((*careers[player], place, ranked, match_id, player))
    table = qn(RatingChange._meta.db_table)
    sql = (
        f"UPDATE {table} SET number = %s, run = %s, longest_run = %s, best_place = %s, "  # noqa: S608
        "place = %s, ranked = %s WHERE match_id = %s AND player_id = %s"
    )
    with connection.cursor() as cursor:
        for start in range(0, len(updates), BATCH):
            cursor.executemany(sql, updates[start : start + BATCH])
    for rating in PlayerRating.objects.all():
        number, run, longest, best = careers.get(rating.player_id, (0, 0, 0, None))
        rating.run, rating.longest_run, rating.best_place = run, longest, best
        rating.save(update_fields=["run", "longest_run", "best_place"])


def _fill_pairs(apps, schema_editor):
    """Count every pair of players who shared a filed match, in both directions."""
    connection = schema_editor.connection
    qn = connection.ops.quote_name
    names = {m: qn(apps.get_model("matches", m)._meta.db_table) for m in ("Seat", "Match", "Table", "HeadToHead")}
    above = "CASE WHEN {a}.place = 1 OR (t.mode = 'ranked' AND {a}.place < {b}.place) THEN 1 ELSE 0 END"
    sql = (
        f"INSERT INTO {names['HeadToHead']} (player_id, opponent_id, matches, ahead, behind) "  # noqa: S608
        f"SELECT mine.player_id, theirs.player_id, COUNT(*), "
        f"SUM({above.format(a='mine', b='theirs')}), SUM({above.format(a='theirs', b='mine')}) "
        f"FROM {names['Seat']} mine JOIN {names['Seat']} theirs ON theirs.match_id = mine.match_id "
        f"AND theirs.player_id <> mine.player_id JOIN {names['Match']} m ON m.id = mine.match_id "
        f"JOIN {names['Table']} t ON t.id = m.table_id WHERE m.status = 'filed' "
        f"GROUP BY mine.player_id, theirs.player_id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)


def _fill_nights(apps, schema_editor):
    """Each player's daily tallies added up over tables."""
    DailyTally = apps.get_model("matches", "DailyTally")
    PlayerNight = apps.get_model("matches", "PlayerNight")
    rows = (
        DailyTally.objects.values("player_id", "day")
        .annotate(n=models.Sum("played"), w=models.Sum("wins"), p=models.Sum("points"))
        .filter(n__gt=0)
    )
    PlayerNight.objects.bulk_create(
        (
            PlayerNight(player_id=r["player_id"], day=r["day"], played=r["n"], wins=r["w"], points=r["p"])
            for r in rows.iterator(chunk_size=BATCH)
        ),
        batch_size=BATCH,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0006_speed_tally_covering_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="playerrating",
            name="run",
            field=models.PositiveIntegerField(default=0, verbose_name="current winning run"),
        ),
        migrations.AddField(
            model_name="playerrating",
            name="longest_run",
            field=models.PositiveIntegerField(default=0, verbose_name="longest winning run"),
        ),
        migrations.AddField(
            model_name="playerrating",
            name="best_place",
            field=models.PositiveSmallIntegerField(
                blank=True, null=True, verbose_name="best ranked place"
            ),
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="number",
            field=models.PositiveIntegerField(default=0, verbose_name="number in the career"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="place",
            field=models.PositiveSmallIntegerField(default=1, verbose_name="place"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="ranked",
            field=models.BooleanField(default=False, verbose_name="ranked"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="run",
            field=models.PositiveIntegerField(default=0, verbose_name="winning run"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="longest_run",
            field=models.PositiveIntegerField(default=0, verbose_name="longest winning run"),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="best_place",
            field=models.PositiveSmallIntegerField(
                blank=True, null=True, verbose_name="best ranked place"
            ),
        ),
        migrations.RemoveIndex(
            model_name='ratingchange',
            name='rating_change_player_idx',
        ),
        migrations.AlterField(
            model_name='ratingchange',
            name='match',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='rating_changes', to='matches.match', verbose_name='match'),
        ),
        migrations.AlterField(
            model_name='ratingchange',
            name='player',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='rating_changes', to='matches.player', verbose_name='player'),
        ),
        migrations.AddIndex(
            model_name="ratingchange",
            index=models.Index(fields=["player", "number"], name="rating_change_career_idx"),
        ),
        migrations.CreateModel(
            name="HeadToHead",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("matches", models.PositiveIntegerField(verbose_name="shared matches")),
                ("ahead", models.PositiveIntegerField(verbose_name="ahead")),
                ("behind", models.PositiveIntegerField(verbose_name="behind")),
                ("opponent", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to="matches.player", verbose_name="opponent")),
                ("player", models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="+", to="matches.player", verbose_name="player")),
            ],
            options={
                "verbose_name": "head-to-head record",
                "verbose_name_plural": "head-to-head records",
                "constraints": [
                    models.UniqueConstraint(fields=("player", "opponent"), name="head_to_head_unique"),
                    models.CheckConstraint(condition=models.Q(("ahead__lte", models.F("matches")), ("behind__lte", models.F("matches"))), name="head_to_head_within_matches"),
                    models.CheckConstraint(condition=models.Q(("player", models.F("opponent")), _negated=True), name="head_to_head_two_players"),
                ],
            },
        ),
        migrations.CreateModel(
            name="PlayerNight",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("day", models.DateField(verbose_name="day")),
                ("played", models.PositiveIntegerField(verbose_name="played")),
                ("wins", models.PositiveIntegerField(verbose_name="wins")),
                ("points", models.PositiveIntegerField(verbose_name="points")),
                ("player", models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="+", to="matches.player", verbose_name="player")),
            ],
            options={
                "verbose_name": "player's night",
                "verbose_name_plural": "players' nights",
                "indexes": [models.Index(fields=["player", "-wins", "-points", "played", "-day"], name="player_night_best_idx")],
                "constraints": [
                    models.UniqueConstraint(fields=("player", "day"), name="player_night_unique"),
                    models.CheckConstraint(condition=models.Q(("wins__lte", models.F("played"))), name="player_night_wins"),
                ],
            },
        ),
        migrations.RunPython(_fill_careers, migrations.RunPython.noop, elidable=True),
        migrations.RunPython(_fill_nights, migrations.RunPython.noop, elidable=True),
        migrations.RunPython(_fill_pairs, migrations.RunPython.noop, elidable=True),
    ]
