"""Once a season's finals night is drawn its qualifiers are those finalists: a change of the
qualification rules is refused with a sentence, confirmed or not."""

import pytest

from matches.core.errors import RuleError
from matches.models import SeasonRuleChange
from matches.results.season_rules import rules_change, season_rules_save
from matches.rules.qualifying import QualifyingRules
from tests.factories import make_organiser
from tests.finals_factories import create

pytestmark = pytest.mark.django_db


def test_the_rules_are_fixed_once_the_finals_night_is_drawn(db):
    organiser = make_organiser()
    season = create(organiser).season
    after = QualifyingRules(places=3)
    token = rules_change(season, after, real_names=True).token
    with pytest.raises(RuleError, match="finals night has been drawn"):
        season_rules_save(season_id=season.pk, rules=after, by=organiser, confirm=token)
    season.refresh_from_db()
    assert season.qualify_places == 8
    assert not SeasonRuleChange.objects.exists()


def test_the_rules_page_says_so(client, db):
    organiser = make_organiser()
    season = create(organiser).season
    client.force_login(organiser)
    data = {"places": 3, "percent": "", "min_nights": "", "one_venue": "on"}
    response = client.post(f"/seasons/{season.pk}/rules/", data)
    assert response.status_code == 400
    assert "finals night has been drawn" in response.content.decode()
