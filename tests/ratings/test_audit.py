"""The integrity check's part for ratings: a stored rating or rating change that differs from a
recompute of every filed match is reported."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from matches.models import PlayerRating, RatingChange
from matches.ratings.audit import rating_problems
from tests.factories import make_table
from tests.ratings.test_ratings import League, play_out

pytestmark = pytest.mark.django_db


class TestRatingProblems:
    def test_check_integrity_reports_a_stored_rating_that_differs(self, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        play_out(table, ["Ann", "Bob"], League())
        call_command("check_integrity", stdout=StringIO())
        PlayerRating.objects.filter(player__name="Cy").update(mu=30.0)
        err = StringIO()
        with pytest.raises(CommandError):
            call_command("check_integrity", stdout=StringIO(), stderr=err)
        assert "stored rating (30.0," in err.getvalue()

    def test_check_integrity_reports_a_history_row_that_differs(self, host):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        match = play_out(table, ["Ann", "Bob"], League())
        RatingChange.objects.filter(match=match, player__name="Bob").update(sigma=1.0)
        assert [p.split(":")[0] for p in rating_problems()] == [f"Match #{match.pk}"]
