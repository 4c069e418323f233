"""Two heats crowned at the same moment (real threads, a real database): the final opens
exactly once, seated with both winners."""

import uuid

import pytest

from matches.integrity import integrity_problems
from matches.models import FinalsTable, Match
from matches.play.services.tap import TapOutcome, match_eliminate
from tests.factories import make_organiser
from tests.finals_factories import create, final_table, heat_table, knock_out, play_out, seated
from tests.races import run_at_once

pytestmark = pytest.mark.django_db(transaction=True)


def crowning(table, by, name):
    match = table.matches.open().get()
    player_id = match.seats.get(player__name=name).player_id
    return lambda: match_eliminate(
        table_id=table.pk, match_id=match.pk, player_id=player_id, key=uuid.uuid4(), by=by
    )


@pytest.mark.parametrize("round_", range(5))
def test_the_final_opens_once_when_the_last_two_heats_are_won_at_once(round_):
    organiser = make_organiser()
    event = create(organiser)
    play_out(heat_table(event, 1), organiser)
    knock_out(heat_table(event, 2), organiser, "Hana")
    knock_out(heat_table(event, 3), organiser, "Ivo")
    results = run_at_once(
        crowning(heat_table(event, 2), organiser, "Edu"),
        crowning(heat_table(event, 3), organiser, "Dora"),
    )
    assert all(isinstance(result, TapOutcome) for result in results), results
    assert FinalsTable.objects.filter(event=event, heat__isnull=True).count() == 1
    final = final_table(event)
    assert Match.objects.filter(table=final).count() == 1
    assert seated(final) == ["Ana", "Bea", "Cid", "Dora"]
    assert integrity_problems() == []
