"""Migrations 0022 and 0023 on a league filed before them: every daily tally and all-time
total takes its table's venue, and each venue's running totals are counted from the tallies,
the same rows the services keep from then on."""

import datetime
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from matches.integrity import integrity_problems
from matches.models import AllTimeTotal, DailyTally, RunningTotal
from matches.play.services.tables import table_launch
from matches.rules.nights import night_of
from matches.rules.scoring import COUNT_FIELDS
from tests.factories import first_venue, other_venue, tap

BEFORE = ("matches", "0021_table_venue_required")
AFTER = ("matches", "0023_aggregates_venue_required")


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


def running_rows() -> set[tuple]:
    return set(
        RunningTotal.objects.values_list("player_id", "venue_id", "mode", "day", *COUNT_FIELDS)
    )


@pytest.mark.django_db(transaction=True)
def test_the_aggregates_of_an_existing_league_learn_their_venue():
    boss = get_user_model().objects.create_superuser(username="boss", password="a-long-pass-1")
    home, anchor = first_venue(), other_venue("The Anchor")
    front = table_launch(
        name="Front bar", player_names=["Ann", "Bob", "Cy"], mode="ranked", by=boss,
        venue_id=home.pk,
    )  # fmt: skip
    back = table_launch(
        name="Back room", player_names=["Bob", "Cy", "Eve"], mode="winner_takes_all", by=boss,
        venue_id=anchor.pk,
    )  # fmt: skip
    for days_ago, table, order in [(6, front, ["Cy", "Bob"]), (3, back, ["Eve", "Bob"]),
                                   (3, front, ["Ann", "Cy"]), (0, back, ["Cy", "Eve"])]:  # fmt: skip
        day = night_of() - datetime.timedelta(days=days_ago)
        noon = timezone.make_aware(datetime.datetime.combine(day, datetime.time(12)))
        with mock.patch.object(timezone, "now", return_value=noon):
            for name in order:
                tap(table, name)
    kept = running_rows()
    assert {venue for _p, venue, *_rest in kept} == {None, home.pk, anchor.pk}
    try:
        old = migrate(BEFORE)
        # As a league before venues kept them: no venue on any aggregate row.
        assert not any(
            f.name == "venue" for f in old.get_model("matches", "DailyTally")._meta.fields
        )
        assert old.get_model("matches", "RunningTotal").objects.count() == len(
            [row for row in kept if row[1] is None]
        )
        migrate(AFTER)
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes("matches")[0])

    for model in (DailyTally, AllTimeTotal):
        rows = list(model.objects.values_list("venue_id", "table__venue_id"))
        assert rows and all(venue == at for venue, at in rows)
    assert running_rows() == kept
    assert integrity_problems() == []
