"""Migration 0019 on corrections made before it: the orders kept as names become the match's
seats (a name renamed since takes the seat left over), each correction learns the taps it
covers, and the taps an earlier correction rewrote name again the players who were tapped."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from matches.integrity import integrity_problems
from matches.models import MatchCorrection, Player, Seat, Tap
from matches.play import corrections
from matches.rules.names import name_key
from tests.factories import make_table, tap

BEFORE = ("matches", "0018_fewer_seat_and_tap_indexes")
AFTER = ("matches", "0019_corrections_keep_the_taps")


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


@pytest.mark.django_db(transaction=True)
def test_names_become_seats_and_rewritten_taps_name_who_was_tapped(host):
    table = make_table(host=host, players=["Ann", "Gonçalo", "Priya", "Zoe"])
    for name in ["Zoe", "Gonçalo", "Priya"]:
        tap(table, name)
    corrections.match_correct(
        table_id=table.pk, number=1, names=["Zoe", "Priya", "Gonçalo", "Ann"], by=host
    )
    crowning = Tap.objects.get(match__number=1, place=2)
    try:
        old = migrate(BEFORE)
        # As the code before it left them: the names as they read, the live taps renamed to
        # the corrected order; then Priya renamed.
        old.get_model("matches", "MatchCorrection").objects.update(
            before=["Zoe", "Gonçalo", "Priya", "Ann"], after=["Zoe", "Priya", "Gonçalo", "Ann"]
        )
        players = old.get_model("matches", "Player").objects
        taps = old.get_model("matches", "Tap").objects.filter(match__number=1)
        # One live tap per player then: Gonçalo's goes by Ann's name while they swap.
        taps.filter(place=3).update(player=players.get(name="Ann"))
        taps.filter(place=2).update(player=players.get(name="Gonçalo"))
        taps.filter(place=3).update(player=players.get(name="Priya"))
        players.filter(name="Priya").update(name="Priyanka", key=name_key("Priyanka"))

        migrate(AFTER)
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes("matches")[0])

    seat = dict(Seat.objects.filter(match__number=1).values_list("pk", "player__name"))
    correction = MatchCorrection.objects.get()
    assert [seat[pk] for pk in correction.before_seats] == ["Zoe", "Gonçalo", "Priyanka", "Ann"]
    assert [seat[pk] for pk in correction.after_seats] == ["Zoe", "Priyanka", "Gonçalo", "Ann"]
    assert correction.through_tap_id == crowning.pk
    assert list(
        Tap.objects.filter(match__number=1).order_by("id").values_list("player__name", "place")
    ) == [("Zoe", 4), ("Gonçalo", 3), ("Priyanka", 2)]
    assert Player.objects.filter(name="Priyanka").exists()
    assert integrity_problems() == []
