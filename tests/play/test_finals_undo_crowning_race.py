"""A heat's crowning undone as the final's crowning lands: the undo read the final before it
was won, and must not then take the heat back from under a crowned champion."""

import uuid

import pytest
from django.db import transaction

from matches.core.errors import RuleError
from matches.integrity import integrity_problems
from matches.models import FinalsTable, Match
from matches.play.services import finals
from matches.play.services.tap import TapOutcome, match_eliminate
from matches.play.services.undo import UndoOutcome, table_undo_last
from tests.factories import make_organiser
from tests.finals_factories import create, final_table, heat_table, knock_out, play_out
from tests.races import run_at_once


def _final_ready(organiser):
    event = create(organiser)
    for number in (1, 2, 3):
        play_out(heat_table(event, number), organiser)
    final = final_table(event)
    knock_out(final, organiser, "Ana")
    knock_out(final, organiser, "Bea")
    return event, final


@pytest.mark.django_db
def test_a_final_won_since_it_was_read_is_not_taken_back(db):
    organiser = make_organiser()
    event, final = _final_ready(organiser)
    read_before = FinalsTable.objects.get(event=event, heat__isnull=True)  # not yet won
    knock_out(final, organiser, "Cid")  # Dora is the champion
    with pytest.raises(RuleError, match="The final has been won"), transaction.atomic():
        finals._final_take_back(read_before)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("round_", range(6))
def test_a_heat_undone_as_the_final_is_won(round_):
    organiser = make_organiser()
    event, final = _final_ready(organiser)
    match = final.matches.open().get()
    player_id = match.seats.get(player__name="Cid").player_id
    heat = heat_table(event, 3)
    undone, tapped = run_at_once(
        lambda: table_undo_last(table_id=heat.pk, tap_id=None, by=organiser),
        lambda: match_eliminate(
            table_id=final.pk,
            match_id=match.pk,
            player_id=player_id,
            key=uuid.uuid4(),
            by=organiser,
        ),
    )
    assert isinstance(tapped, TapOutcome), (undone, tapped)
    assert isinstance(undone, RuleError) and not isinstance(undone, UndoOutcome), undone
    heat_match = heat.matches.exclude(status=Match.Status.DISCARDED).get()
    assert heat_match.status == Match.Status.FILED
    assert FinalsTable.objects.get(table=heat).winner is not None
    assert integrity_problems() == []
