"""A season's best-nights rule as a host types it: a bad rule refused, and a minimum above
the nights counted still ranks and shows."""

import pytest
from django.urls import reverse

from matches.models import Season

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


class TestSeasonsBestNights:
    @pytest.mark.parametrize(
        "best, least",
        [("0", ""), ("-1", ""), (str(2**64), ""), ("367", ""), ("", "3"), ("2", "-1"), ("x", "")],
    )
    def test_a_bad_rule_is_refused(self, host_client, best, least):
        response = host_client.post(
            reverse("matches:season_new"),
            {"name": "S", "first_day": "2026-11-01", "last_day": "2026-11-30",
             "best_nights": best, "min_nights": least},
        )  # fmt: skip
        assert response.status_code in (200, 400)
        assert not Season.objects.exists()

    def test_a_minimum_above_the_best_counted_ranks_and_shows(self, table, host_client, client):
        response = host_client.post(
            reverse("matches:season_new"),
            {"name": "S", "first_day": "2026-01-01", "last_day": "2027-12-31",
             "best_nights": "2", "min_nights": "300"},
        )  # fmt: skip
        assert response.status_code in (200, 302)
        for season in Season.objects.all():
            for c in (client, host_client):
                assert c.get(reverse("matches:standings"), {"season": season.pk}).status_code == 200
                assert (
                    c.get(reverse("matches:api_standings"), {"season": season.pk}).status_code
                    == 200
                )
                assert (
                    c.get(reverse("matches:standings_csv"), {"season": season.pk}).status_code
                    == 200
                )
