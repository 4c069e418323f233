"""A plain tap that waits on its table's lock behind a rename (or a crowning) must show what
that write committed: the stamp version its bump returns is the one after the wait."""

import threading
import time

import pytest
from django.db import connection, transaction

from matches.models import Player
from matches.play import filings as table_filings
from matches.results.players import services as player_records
from tests.factories import make_table, tap, the_organiser

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_plain_tap_waiting_behind_a_rename_shows_the_new_name():
    table = make_table()  # Alice, Ben, Cara, Dev
    for name in ["Ben", "Alice", "Cara"]:
        tap(table, name)  # match 1 filed: Dev won
    table_filings.kept.clear()
    tap(table, "Ben")  # a plain tap: tonight and the filed list kept at this stamp
    dev = Player.objects.get(name="Dev")
    renaming, renamed = threading.Event(), threading.Event()

    def rename() -> None:
        try:
            with transaction.atomic():
                player_records.player_rename(player_id=dev.pk, name="Devika", by=the_organiser())
                renaming.set()
                time.sleep(1)  # the tap below starts meanwhile and waits on the table
        finally:
            renamed.set()
            connection.close()

    thread = threading.Thread(target=rename)
    thread.start()
    renaming.wait(10)
    result = tap(table, "Alice")
    thread.join(10)
    assert renamed.is_set()
    assert [(row.person.name, row.points) for row in result.answer.tonight] == [
        ("Devika", 3),
        ("Cara", 2),
        ("Alice", 1),
        ("Ben", 0),
    ]
    assert [m.winner.name for m in result.answer.board.recent] == ["Devika"]
