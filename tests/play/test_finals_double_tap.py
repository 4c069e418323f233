"""The last player of a heat tapped on two tablets at once: the second tap is told the heat
was won and by whom, as at any table, not only that the table is closed."""

import uuid

import pytest

from matches.core.errors import Refusal, RuleError
from matches.play.services.tap import match_eliminate
from tests.factories import make_organiser
from tests.finals_factories import create, heat_table, knock_out

pytestmark = pytest.mark.django_db


def test_a_second_tablet_tapping_the_crowned_heat_is_told_who_won(db):
    organiser = make_organiser()
    table = heat_table(create(organiser), 1)  # Ana, Fay, Gus
    match = table.matches.open().get()
    knock_out(table, organiser, "Gus")
    fay = match.seats.get(player__name="Fay").player_id
    match_eliminate(
        table_id=table.pk, match_id=match.pk, player_id=fay, key=uuid.uuid4(), by=organiser
    )
    with pytest.raises(RuleError) as refused:
        match_eliminate(
            table_id=table.pk, match_id=match.pk, player_id=fay, key=uuid.uuid4(), by=organiser
        )
    assert refused.value.code == Refusal.MATCH_FILED
    assert refused.value.instead == {"place": 2, "winner": "Ana"}


def test_the_same_tap_sent_again_is_a_replay(db):
    organiser = make_organiser()
    table = heat_table(create(organiser), 1)
    match = table.matches.open().get()
    knock_out(table, organiser, "Gus")
    fay = match.seats.get(player__name="Fay").player_id
    key = uuid.uuid4()
    first = match_eliminate(
        table_id=table.pk, match_id=match.pk, player_id=fay, key=key, by=organiser
    )
    again = match_eliminate(
        table_id=table.pk, match_id=match.pk, player_id=fay, key=key, by=organiser
    )
    assert again.replayed and again.tap.pk == first.tap.pk and again.winner.name == "Ana"
