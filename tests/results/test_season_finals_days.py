"""A season's days never take in a finals night already held: its matches would count in
that season's standings (and best nights, and qualifiers)."""

import datetime

import pytest

from matches.core.errors import RuleError
from matches.models import Season
from matches.results.seasons import season_save
from tests.factories import make_organiser
from tests.finals_factories import create

pytestmark = pytest.mark.django_db
DAY = datetime.timedelta(days=1)


def test_the_season_cannot_be_stretched_over_its_own_finals_night(db):
    organiser = make_organiser()
    event = create(organiser)
    season = event.season
    with pytest.raises(RuleError, match="cannot take it in"):
        season_save(
            season_id=season.pk,
            name=season.name,
            first_day=season.first_day,
            last_day=event.night + 7 * DAY,
            by=organiser,
        )
    season.refresh_from_db()
    assert season.last_day < event.night


def test_a_new_season_cannot_take_in_a_finals_night(db):
    organiser = make_organiser()
    event = create(organiser)
    with pytest.raises(RuleError, match="cannot take it in"):
        season_save(
            season_id=None,
            name="Winter",
            first_day=event.night - DAY,
            last_day=event.night + 30 * DAY,
            by=organiser,
        )
    assert not Season.objects.filter(name="Winter").exists()


def test_a_season_after_the_finals_night_is_saved(db):
    organiser = make_organiser()
    event = create(organiser)
    season_save(
        season_id=None,
        name="Winter",
        first_day=event.night + DAY,
        last_day=event.night + 30 * DAY,
        by=organiser,
    )
    assert Season.objects.filter(name="Winter").exists()
