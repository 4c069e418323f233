"""A correction of a finals match: the final's corrected winner is the champion, and a heat's
corrected places seat the final again while nobody is out there yet (refused after)."""

import pytest

from matches.core.errors import RuleError
from matches.models import FinalsTable
from matches.play.corrections import match_correct
from tests.factories import make_organiser
from tests.finals_factories import create, final_table, heat_table, knock_out, play_out, seated

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser(db):
    return make_organiser()


def all_heats(event, by):
    for heat in (1, 2, 3):
        play_out(heat_table(event, heat), by)


def winner_of(table) -> str | None:
    stage = FinalsTable.objects.select_related("winner").get(table=table)
    return stage.winner.name if stage.winner else None


def correct(table, names, by):
    return match_correct(table_id=table.pk, number=1, names=names, by=by, confirmed=True)


def test_a_corrected_final_crowns_the_corrected_champion(organiser):
    event = create(organiser)
    all_heats(event, organiser)
    final = final_table(event)
    play_out(final, organiser, ["Ana", "Bea", "Cid", "Dora"])
    assert winner_of(final) == "Dora"
    correct(final, ["Ana", "Bea", "Dora", "Cid"], organiser)
    assert winner_of(final) == "Cid"


def test_a_corrected_heat_seats_the_untapped_final_again(organiser):
    event = create(organiser)
    all_heats(event, organiser)
    # Heat 1 (Ana, Fay, Gus) went Gus, Fay, Ana: corrected, Fay wins and Ana is 2nd.
    correct(heat_table(event, 1), ["Gus", "Ana", "Fay"], organiser)
    assert winner_of(heat_table(event, 1)) == "Fay"
    final = final_table(event)
    assert final.is_open and final.matches.open().count() == 1
    # Winners Fay, Bea, Cid; the best runner-up is now Ana (1st in the season).
    assert seated(final) == ["Ana", "Bea", "Cid", "Fay"]


def test_a_heat_correction_moving_the_final_is_refused_once_it_is_under_way(organiser):
    event = create(organiser)
    all_heats(event, organiser)
    final = final_table(event)
    knock_out(final, organiser, "Ana")
    with pytest.raises(RuleError, match="The final is under way"):
        correct(heat_table(event, 1), ["Gus", "Ana", "Fay"], organiser)
    assert winner_of(heat_table(event, 1)) == "Ana"
    assert seated(final) == ["Ana", "Bea", "Cid", "Dora"]


def test_a_heat_correction_that_moves_nobody_through_is_saved_under_way(organiser):
    event = create(organiser)
    all_heats(event, organiser)
    final = final_table(event)
    knock_out(final, organiser, "Ana")
    # Gus 2nd instead of Fay: Dora (4th) is still the best runner-up.
    correct(heat_table(event, 1), ["Fay", "Gus", "Ana"], organiser)
    assert winner_of(heat_table(event, 1)) == "Ana"
    assert seated(final) == ["Ana", "Bea", "Cid", "Dora"]
    assert final.matches.open().get().taps.count() == 1
