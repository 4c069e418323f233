"""A heat's crowning undone as the last heat is crowned (real threads, a real database):
the two take turns, never deadlock, and the final stands only if every heat does."""

import uuid

import pytest

from matches.core.errors import RuleError
from matches.integrity import integrity_problems
from matches.models import FinalsTable, Match
from matches.play.services.tap import TapOutcome, match_eliminate
from matches.play.services.undo import UndoOutcome, table_undo_last
from tests.factories import make_organiser
from tests.finals_factories import create, final_table, heat_table, knock_out, play_out
from tests.races import run_at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("round_", range(6))
def test_a_heat_undone_as_the_last_heat_is_won(round_):
    organiser = make_organiser()
    event = create(organiser)
    play_out(heat_table(event, 1), organiser)
    play_out(heat_table(event, 2), organiser)
    last = heat_table(event, 3)
    knock_out(last, organiser, "Ivo")
    match = last.matches.open().get()
    dora = match.seats.get(player__name="Dora").player_id
    undone, tapped = run_at_once(
        lambda: table_undo_last(table_id=heat_table(event, 2).pk, tap_id=None, by=organiser),
        lambda: match_eliminate(
            table_id=last.pk, match_id=match.pk, player_id=dora, key=uuid.uuid4(), by=organiser
        ),
    )
    assert isinstance(undone, UndoOutcome), (undone, tapped)
    assert isinstance(tapped, TapOutcome), (undone, tapped)
    final = final_table(event)
    heat_two = FinalsTable.objects.get(event=event, heat=2)
    assert heat_two.winner is None
    # The final opened only if the undo came second, which took it back: none is open.
    assert final is None or not Match.objects.filter(table=final, status="open").exists()
    assert integrity_problems() == []
    assert not isinstance(undone, RuleError)
