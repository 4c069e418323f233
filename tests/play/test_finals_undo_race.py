"""A heat's crowning undone while the final's first tap lands (real threads, a real
database): exactly one of them stands, and the other is refused with its sentence."""

import uuid

import pytest

from matches.core.errors import RuleError
from matches.integrity import integrity_problems
from matches.models import Match, Tap
from matches.play.services.tap import TapOutcome, match_eliminate
from matches.play.services.undo import UndoOutcome, table_undo_last
from tests.factories import make_organiser
from tests.finals_factories import create, final_table, heat_table, play_out
from tests.races import run_at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("round_", range(5))
def test_a_heat_undone_as_the_final_starts(round_):
    organiser = make_organiser()
    event = create(organiser)
    for number in (1, 2, 3):
        play_out(heat_table(event, number), organiser)
    final = final_table(event)
    match = final.matches.open().get()
    player_id = match.seats.get(player__name="Ana").player_id
    heat = heat_table(event, 3)
    results = run_at_once(
        lambda: table_undo_last(table_id=heat.pk, tap_id=None, by=organiser),
        lambda: match_eliminate(
            table_id=final.pk,
            match_id=match.pk,
            player_id=player_id,
            key=uuid.uuid4(),
            by=organiser,
        ),
    )
    undone, tapped = results
    if isinstance(undone, UndoOutcome):
        assert isinstance(tapped, RuleError)
        assert Match.objects.get(pk=match.pk).status == Match.Status.DISCARDED
        assert not Tap.objects.filter(match=match).exists()
    else:
        assert isinstance(tapped, TapOutcome), results
        assert isinstance(undone, RuleError)
        assert undone.message.startswith("The final is under way")
    assert integrity_problems() == []
