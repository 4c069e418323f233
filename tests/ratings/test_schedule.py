"""What other packages call to rate a filing or schedule a replay: an undo of an old crowning
or an admin's delete of a table only moves the replay's position in its own transaction, and
until the steps end the ratings shown are the last settled ones, said to be updating."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from matches.models import PlayerRating, RatingsReplay
from matches.play.services.undo import table_undo_last
from matches.ratings.audit import rating_problems
from matches.ratings.steps import ratings_settle
from tests.clients import FormClient
from tests.factories import make_table
from tests.ratings.test_ratings import League, api_rows, play_out
from tests.ratings.test_steps import (
    ROSTER,
    league_with_an_old_crowning,
    settle_and_check,
    stored_changes,
    stored_ratings,
)


class TestAnOldCrowningsUndo:
    def test_the_undo_only_moves_the_replay_and_the_ratings_shown_stay_settled(
        self, manual, client, host
    ):
        league, front, undone = league_with_an_old_crowning(host)
        rows_before = api_rows(client)
        later_changes = [c for c in stored_changes() if c[0] != undone.pk]
        ratings_before = stored_ratings()

        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(0)

        # The request re-rated nothing: the later matches' stored changes and the ratings
        # are as they were; only the undone match's own changes went.
        assert stored_changes() == later_changes
        assert stored_ratings() == ratings_before
        payload = client.get(reverse("matches:api_ratings")).json()
        assert payload["updating"] is True
        assert api_rows(client) == rows_before  # never a half-replayed mix
        page = client.get(reverse("matches:standings")).content.decode()
        assert "Ratings are updating after a change to an earlier match" in page
        assert "(updating)" in page

        assert ratings_settle() == 3  # the three later matches
        assert rating_problems() == []
        assert api_rows(client) == league.expected_rows()
        payload = client.get(reverse("matches:api_ratings")).json()
        assert payload["updating"] is False
        assert "(updating)" not in client.get(reverse("matches:standings")).content.decode()
        assert not RatingsReplay.objects.get().pending

    def test_the_newest_crownings_undo_is_exact_at_once(self, manual, client, host):
        league = League()
        front = make_table(host=host, players=ROSTER, name="Front")
        play_out(front, ["Dee", "Cy", "Bob"], league)
        play_out(front, ["Ann", "Cy", "Bob"], league)
        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop()
        assert client.get(reverse("matches:api_ratings")).json()["updating"] is False
        assert api_rows(client) == league.expected_rows()
        assert rating_problems() == []

    def test_an_undo_late_in_a_long_history_settles_to_a_recompute(self, manual, client, host):
        """Most of the history lies before the undone crowning: each player's state there is
        read walking back from their latest rating, where an early undo walks forward from
        their first (the shorter side either way). Gus starts after it, Eve plays only
        before it, Dee's only match is the one undone."""
        league = League()
        back = make_table(host=host, players=["Ann", "Bob", "Eve"], name="Back")
        for n in range(6):
            play_out(back, ["Eve", "Bob"] if n % 2 else ["Bob", "Eve"], league)
        front = make_table(host=host, players=ROSTER, name="Front")
        play_out(front, ["Dee", "Cy", "Bob"], league)
        late = make_table(host=host, players=["Ann", "Bob", "Gus"], name="Late")
        play_out(late, ["Gus", "Ann"], league)

        table_undo_last(table_id=front.pk, tap_id=None, by=host)
        league.filed.pop(6)

        assert client.get(reverse("matches:api_ratings")).json()["updating"] is True
        settle_and_check(client, league)


class TestATableDeletedInTheAdmin:
    @pytest.mark.parametrize("bulk", [False, True])
    def test_the_ratings_after_its_first_filing_are_replayed(self, client, host, bulk):
        """Its matches go with it, and every later rating that depended on them is replayed:
        before, check_integrity found the later matches rated as if they had been played."""
        league, front, _ = league_with_an_old_crowning(host, later=3)
        league.filed.pop(0)  # Front's one match goes with the table
        boss = FormClient()
        boss.force_login(
            get_user_model().objects.create_superuser(username="boss", password="a-long-pass-1")
        )
        if bulk:
            data = {"action": "delete_selected", "_selected_action": [front.pk], "post": "yes"}
            response = boss.post(reverse("admin:matches_table_changelist"), data)
        else:
            response = boss.post(
                reverse("admin:matches_table_delete", args=[front.pk]), {"post": "yes"}
            )
        assert response.status_code == 302
        assert rating_problems() == []
        assert api_rows(client) == league.expected_rows()
        assert not PlayerRating.objects.filter(player__name__in=["Cy", "Dee"]).exists()
