"""The finals night's form says what is wrong with a number of runners-up, not that a whole
number is not one."""

import pytest
from django.urls import reverse

from matches.models import FinalsEvent
from tests.factories import first_venue, make_organiser
from tests.finals_factories import ended_season

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.mark.parametrize(
    ("runners_up", "sentence"),
    [("11", "At most 10 runners-up go through."), ("-1", "Enter 0 or more runners-up.")],
)
def test_runners_up_out_of_range(client, runners_up, sentence):
    client.force_login(make_organiser())
    season = ended_season()
    form = {
        "venue": first_venue().pk,
        "mode": "ranked",
        "heats": 2,
        "seeding": "spread",
        "runners_up": runners_up,
    }
    response = client.post(reverse("matches:finals_new", args=[season.pk]), form)
    html = response.content.decode()
    assert response.status_code == 400
    assert sentence in html and "Enter a whole number." not in html
    assert FinalsEvent.objects.count() == 0
