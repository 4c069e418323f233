"""Back up mid-season while the app runs, restore into an emptied database: same standings."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from matches import integrity, selectors, services
from matches.models import Player, Table
from tests.factories import make_host, make_table, tap

pytestmark = pytest.mark.django_db(transaction=True)


def season():
    host = make_host()
    front = make_table(host=host, name="Front", players=["Ann", "Bob", "Cy", "Dee"])
    snug = make_table(
        host=host, name="Snug", players=["Ann", "Eve", "Fay"], mode="winner_takes_all"
    )
    for order in (["Dee", "Cy", "Bob"], ["Ann", "Dee", "Cy"], ["Bob", "Ann", "Dee"]):
        for name in order:
            tap(front, name)
    for order in (["Fay", "Eve"], ["Ann", "Fay"]):
        for name in order:
            tap(snug, name)
    tap(front, "Ann")  # a match under way
    return host, front


def snapshot():
    return (
        selectors.standings(),
        [selectors.table_api(table=t) for t in Table.objects.order_by("pk")],
    )


def test_backup_and_restore_give_identical_standings(tmp_path):
    host, front = season()
    before = snapshot()
    path = tmp_path / "backups" / "mid-season.dump"
    out = StringIO()
    call_command("backup", str(path), stdout=out)
    assert path.stat().st_size > 0 and "Backup written" in out.getvalue()

    tap(front, "Bob")  # play goes on after the backup: the restore takes it back
    services.table_close(table_id=front.pk, by=host)
    Table.objects.all().delete()
    Player.objects.all().delete()
    assert selectors.standings() == []

    call_command("restore", str(path), "--yes", stdout=StringIO())
    assert snapshot() == before
    assert integrity.integrity_problems() == []


def test_restore_needs_confirmation_and_a_file(tmp_path):
    with pytest.raises(CommandError, match="Add --yes"):
        path = tmp_path / "b.dump"
        call_command("backup", str(path), stdout=StringIO())
        call_command("restore", str(path), stdout=StringIO())
    with pytest.raises(CommandError, match="No backup at"):
        call_command("restore", str(tmp_path / "missing"), "--yes", stdout=StringIO())
