"""One night, one date: a night starts at noon (rules.nights), and every page names it by
its evening's date. A table started at 01:36 on the 7th belongs to the night of the 6th on
the home card, as on the TV and in the night's story."""

import datetime
import re
from unittest import mock

import pytest
from django.urls import reverse
from django.utils import timezone

from matches.play.services.tables import table_close
from tests.factories import make_table, open_match, tap

pytestmark = pytest.mark.django_db

SMALL_HOURS = timezone.make_aware(datetime.datetime(2026, 12, 7, 1, 36))


def at(moment: datetime.datetime):
    return mock.patch.object(timezone, "now", return_value=moment)


@pytest.fixture
def small_hours_tables(host):
    """Front bar launched, played and closed after midnight; Back room launched then and
    still open."""
    with at(SMALL_HOURS):
        closed = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(closed, name)
        open_table = make_table(name="Back room")
    with at(SMALL_HOURS + datetime.timedelta(minutes=4)):
        table_close(table_id=closed.pk, by=host, discard_match_id=open_match(closed).pk)
    return closed, open_table


def _started(html: str) -> str:
    return re.search(r"<dt>(?:Started|Começou)</dt><dd><time[^>]*>([^<]+)</time>", html)[1]


class TestTheNightIsNamedOnce:
    def test_the_home_card_names_the_night_the_tv_and_the_story_name(
        self, small_hours_tables, client
    ):
        closed, _open_table = small_hours_tables
        home = client.get(reverse("matches:home")).content.decode()
        assert _started(home) == "the night of 6 Dec 2026, at 01:36"
        assert "closed on the night of 6 Dec 2026, at 01:40" in home
        assert "7 Dec 2026" not in home
        tv = client.get(reverse("matches:tv", args=[closed.pk])).content.decode()
        story = client.get(reverse("matches:tonight", args=[closed.pk])).content.decode()
        for page in (tv, story):
            assert "The night of 6 Dec 2026" in page
            assert "7 Dec 2026" not in page

    def test_in_portuguese(self, small_hours_tables, client):
        home = client.get(reverse("matches:home"), HTTP_ACCEPT_LANGUAGE="pt").content.decode()
        assert _started(home) == "na noite de 6 de dezembro de 2026, às 01:36"
        assert "fechada na noite de 6 de dezembro de 2026, às 01:40" in home
        assert "7 de dezembro" not in home

    def test_after_noon_the_night_is_the_days_own(self, host, client):
        with at(SMALL_HOURS.replace(hour=12, minute=0)):
            make_table()
        home = client.get(reverse("matches:home")).content.decode()
        assert _started(home) == "the night of 7 Dec 2026, at 12:00"

    def test_a_correction_names_the_night_the_match_was_filed_on(
        self, small_hours_tables, host_client
    ):
        closed, _open_table = small_hours_tables
        url = reverse("matches:match_correct", args=[closed.pk, 1])
        with at(SMALL_HOURS + datetime.timedelta(days=2)):
            response = host_client.post(url, {"players": "Alice\nBen\nCara\nDev"})
        html = response.content.decode()
        assert response.status_code == 200
        assert "This match was filed on a night that is over (6 Dec 2026)." in html
        assert "7 Dec 2026" not in html
