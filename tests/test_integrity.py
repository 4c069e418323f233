"""check_integrity finds each kind of damage made behind the service's back."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from matches.models import Player
from matches.rules.nights import night_of
from tests.factories import make_table, open_match, seat_of, tap

pytestmark = pytest.mark.django_db


def sql(statement: str, *params) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def drop_index(name: str) -> None:
    # Conditional unique constraints are unique indexes on both databases.
    sql(f'DROP INDEX "{name}"')


def without_check_constraint(table: str, name: str) -> None:
    if connection.vendor == "sqlite":
        sql("PRAGMA ignore_check_constraints = ON")
    else:
        sql("SET CONSTRAINTS ALL IMMEDIATE")  # deferred foreign keys would block ALTER TABLE
        sql(f'ALTER TABLE "{table}" DROP CONSTRAINT "{name}"')


def problems() -> str:
    """The report on standard error; CommandError is what makes manage.py exit with 1."""
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("check_integrity", stderr=err, stdout=StringIO())
    return err.getvalue()


@pytest.fixture
def filed_table():
    """The worked game: match 1 filed (Dev 1st, Cara 2nd, Alice 3rd, Ben 4th), match 2 open."""
    table = make_table()
    for name in ["Ben", "Alice", "Cara"]:
        tap(table, name)
    tap(table, "Ben")
    yield table
    if connection.vendor == "sqlite":
        sql("PRAGMA ignore_check_constraints = OFF")


def test_a_sound_database_passes(filed_table):
    out = StringIO()
    call_command("check_integrity", stdout=out)
    assert "Integrity check passed" in out.getvalue()


def test_places_not_running_n_to_1(filed_table):
    match = filed_table.matches.get(number=1)
    sql("UPDATE matches_seat SET place = 7 WHERE id = %s", seat_of(match, "Ben").pk)
    assert "match 1: places do not run 4..1" in problems()


def test_open_match_places_with_a_gap(filed_table):
    match = open_match(filed_table)
    sql("UPDATE matches_seat SET place = 3 WHERE id = %s", seat_of(match, "Ben").pk)
    assert "match 2: places do not run down from 4" in problems()


def test_two_winners(filed_table):
    drop_index("seat_place_unique_per_match")
    match = filed_table.matches.get(number=1)
    sql("UPDATE matches_seat SET place = 1 WHERE id = %s", seat_of(match, "Cara").pk)
    report = problems()
    assert "match 1: two winners" in report
    assert "match 1: two players share a place" in report


def test_winner_is_not_first(filed_table):
    match = filed_table.matches.get(number=1)
    sql(
        "UPDATE matches_match SET winner_id = %s WHERE id = %s",
        seat_of(match, "Ben").player_id,
        match.pk,
    )
    assert "match 1: the winner is not the player in first place" in problems()


def test_filed_match_without_a_winner(filed_table):
    without_check_constraint("matches_match", "match_winner_iff_filed")
    sql(
        "UPDATE matches_match SET winner_id = NULL WHERE table_id = %s AND number = 1",
        filed_table.pk,
    )
    assert "match 1: filed without a winner" in problems()


def test_two_open_matches_on_a_table(filed_table):
    drop_index("match_one_open_per_table")
    sql(
        "UPDATE matches_match SET status = 'open', winner_id = NULL, filed_at = NULL "
        "WHERE table_id = %s AND number = 1",
        filed_table.pk,
    )
    assert f"(#{filed_table.pk}): 2 open matches" in problems()


def test_elimination_of_a_player_not_seated(filed_table):
    stranger = Player.objects.create(name="Stranger")
    match = open_match(filed_table)
    sql(
        "UPDATE matches_tap SET player_id = %s WHERE match_id = %s",
        stranger.pk,
        match.pk,
    )
    report = problems()
    assert "match 2: Stranger was eliminated but is not seated" in report
    assert "match 2: Ben has place 4 without a tap" in report


@pytest.mark.parametrize(
    "table_name, kind",
    [("matches_dailytally", "tallies"), ("matches_alltimetotal", "all-time totals")],
)
def test_counts_that_disagree_with_the_filed_results(filed_table, table_name, kind):
    # The all-time totals are what the standings without dates show.
    dev = seat_of(filed_table.matches.get(number=1), "Dev").player_id
    sql(f'UPDATE "{table_name}" SET points = points + 5 WHERE player_id = %s', dev)
    report = problems()
    # Tallies are kept per night: the report names the night of the match.
    night = f" on the night of {night_of(filed_table.matches.get(number=1).filed_at)}"
    on = night if kind == "tallies" else ""
    assert f"Player #{dev} at table #{filed_table.pk}{on}: {kind} say (1, 1, 0, 0, 8)" in report
    assert "filed results say (1, 1, 0, 0, 3)" in report
