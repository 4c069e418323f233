from django.db import migrations, models



def counts_within_played(model: str) -> models.CheckConstraint:
    return models.CheckConstraint(
        condition=models.Q(wins__lte=models.F("played"))
        & models.Q(seconds__lte=models.F("played"))
        & models.Q(thirds__lte=models.F("played")),
        name=f"{model}_counts_within_played",
    )


class Migration(migrations.Migration):
    """Names that say what each is: the standings change stamp, the daily tallies and the
    all-time totals. Data, unique constraints and indexes are kept as they are."""

    dependencies = [
        ("matches", "0001_initial"),
    ]

    operations = [
        migrations.RenameModel(old_name="League", new_name="StandingsStamp"),
        migrations.RenameModel(old_name="Tally", new_name="DailyTally"),
        migrations.RenameModel(old_name="Total", new_name="AllTimeTotal"),
        # The shared counts check is named after its model ("%(class)s_counts_within_played").
        migrations.RemoveConstraint(model_name="alltimetotal", name="total_counts_within_played"),
        migrations.RemoveConstraint(model_name="dailytally", name="tally_counts_within_played"),
        migrations.AddConstraint(model_name="alltimetotal", constraint=counts_within_played("alltimetotal")),
        migrations.AddConstraint(model_name="dailytally", constraint=counts_within_played("dailytally")),
    ]
