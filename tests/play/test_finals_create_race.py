"""A finals night created while the organiser, in another tab, changes the season (real
threads, a real database): the two take turns, never deadlock, and what is saved agrees."""

import datetime

import pytest

from matches.core.errors import RuleError
from matches.models import FinalsEvent, Season
from matches.results.season_rules import rules_change, season_rules_save
from matches.results.seasons import season_save
from matches.rules.qualifying import QualifyingRules
from tests.factories import make_organiser
from tests.finals_factories import create, ended_season
from tests.races import run_at_once

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("round_", range(4))
def test_finals_created_as_the_rules_change(round_):
    organiser = make_organiser()
    season = ended_season()
    after = QualifyingRules(places=3)
    token = rules_change(season, after, real_names=True).token
    made, changed = run_at_once(
        lambda: create(organiser, season=season),
        lambda: season_rules_save(season_id=season.pk, rules=after, by=organiser, confirm=token),
    )
    assert isinstance(made, FinalsEvent), made
    season.refresh_from_db()
    if isinstance(changed, RuleError):
        assert "finals night has been drawn" in changed.message
        assert season.qualify_places == 8
    else:
        assert season.qualify_places == 3


@pytest.mark.parametrize("round_", range(4))
def test_finals_created_as_the_season_is_stretched(round_):
    organiser = make_organiser()
    season = ended_season()
    later = datetime.date.today() + datetime.timedelta(days=30)
    made, saved = run_at_once(
        lambda: create(organiser, season=season),
        lambda: season_save(
            season_id=season.pk,
            name=season.name,
            first_day=season.first_day,
            last_day=later,
            by=organiser,
        ),
    )
    season.refresh_from_db()
    if isinstance(made, FinalsEvent):
        assert isinstance(saved, RuleError), saved
        assert season.last_day < made.night
    else:
        assert isinstance(made, RuleError) and "held after the season" in made.message
        assert isinstance(saved, Season) and season.last_day == later
