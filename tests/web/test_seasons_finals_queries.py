"""The seasons page reads every season's finals night and champion at once: its queries do
not grow with the seasons that have one."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import make_organiser
from tests.finals_factories import create, ended_season

pytestmark = pytest.mark.django_db


def queries(client) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("matches:seasons"))
    assert response.status_code == 200
    return len(captured)


def test_the_seasons_page_reads_the_finals_once(client):
    organiser = make_organiser()
    create(organiser, season=ended_season("S0"))
    client.force_login(organiser)
    client.get(reverse("matches:seasons"))
    one = queries(client)
    for name in ("S1", "S2", "S3"):
        create(organiser, season=ended_season(name))
    ended_season("S4")  # none yet: offered to the organiser
    html = client.get(reverse("matches:seasons")).content.decode()
    assert html.count("Finals board (TV)") == 4
    assert "Create the finals night" in html
    assert queries(client) == one
