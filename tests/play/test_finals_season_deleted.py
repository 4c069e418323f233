"""A season deleted during its finals night: its heats lose their finals night, and are
ordinary tables a host can close, not tables left open for ever."""

import pytest
from django.urls import reverse

from matches.core.errors import RuleError
from matches.play.services.tables import table_close
from matches.results.seasons import season_delete
from tests.factories import make_organiser
from tests.finals_factories import create, heat_table

pytestmark = pytest.mark.django_db


def test_a_heat_whose_season_was_deleted_can_be_closed(client):
    organiser = make_organiser()
    event = create(organiser)
    table = heat_table(event, 1)
    with pytest.raises(RuleError, match="This is a finals table"):
        table_close(table_id=table.pk, by=organiser)
    season_delete(season_id=event.season_id, by=organiser)
    client.force_login(organiser)
    assert "Close table…" in client.get(reverse("matches:table", args=[table.pk])).content.decode()
    table_close(table_id=table.pk, by=organiser)
    table.refresh_from_db()
    assert not table.is_open and table.matches.open().count() == 0
