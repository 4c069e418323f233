"""Every table has a venue (0020 gave the existing ones the first), in a migration of its own:
PostgreSQL cannot alter a table whose rows the same transaction has just updated under a
deferred foreign key."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0020_venues"),
    ]

    operations = [
        migrations.AlterField(
            model_name="table",
            name="venue",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="tables",
                to="matches.venue",
                verbose_name="venue",
            ),
        ),
    ]
