"""Every tally and total has its table's venue (0022 filled them), and the indexes a venue's
standings read."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0022_aggregates_venue"),
    ]

    operations = [
        migrations.AlterField(
            model_name="dailytally",
            name="venue",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="matches.venue",
                verbose_name="venue",
            ),
        ),
        migrations.AlterField(
            model_name="alltimetotal",
            name="venue",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="matches.venue",
                verbose_name="venue",
            ),
        ),
        migrations.AddIndex(
            model_name="dailytally",
            index=models.Index(
                fields=["venue", "day", "player"],
                include=("table", "played", "wins", "seconds", "thirds", "points"),
                name="tally_venue_day_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="alltimetotal",
            index=models.Index(
                fields=["venue", "player", "played", "wins", "seconds", "thirds", "points"],
                name="total_venue_player_idx",
            ),
        ),
    ]
