"""A correction moves the ratings replay back to the corrected match and re-rates nothing in
its request: the ratings shown stay the settled ones, said to be updating, until the replay's
steps end; a step that read the seats before a correction never writes what it read."""

import pytest
from django.urls import reverse

from matches.play import corrections
from matches.ratings import steps
from matches.ratings.audit import rating_problems
from matches.ratings.steps import Step, ratings_settle, replay_step
from tests.factories import make_table
from tests.ratings.test_ratings import League, api_rows, play_out

pytestmark = pytest.mark.django_db


@pytest.fixture
def manual(settings):
    settings.RATINGS_REPLAY = "manual"
    steps._kept.clear()
    yield
    steps._kept.clear()


def three_matches(host) -> tuple[League, object]:
    league = League()
    front = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"], name="Front")
    back = make_table(host=host, players=["Ann", "Bob", "Eve"], name="Back")
    play_out(front, ["Dee", "Cy", "Bob"], league)  # Ann won
    play_out(back, ["Eve", "Bob"], league)
    play_out(back, ["Bob", "Eve"], league)
    return league, front


class TestACorrectionsReplay:
    def test_the_request_only_moves_the_replay(self, manual, client, host):
        league, front = three_matches(host)
        shown = api_rows(client)
        corrections.match_correct(
            table_id=front.pk, number=1, names=["Ann", "Cy", "Bob", "Dee"], by=host
        )
        payload = client.get(reverse("matches:api_ratings")).json()
        assert payload["updating"] is True
        assert api_rows(client) == shown  # the last settled ratings, never a mix
        assert ratings_settle() == 3  # the corrected match and the two after it
        league.filed[0] = ("ranked", [("Ann", 4), ("Bob", 2), ("Cy", 3), ("Dee", 1)])
        assert rating_problems() == []
        assert client.get(reverse("matches:api_ratings")).json()["updating"] is False
        assert api_rows(client) == league.expected_rows()

    def test_a_step_that_read_the_old_seats_is_taken_again(self, manual, client, host, monkeypatch):
        league, front = three_matches(host)
        back = front.__class__.objects.get(name="Back")
        corrections.match_correct(
            table_id=front.pk, number=1, names=["Ann", "Cy", "Bob", "Dee"], by=host
        )
        league.filed[0] = ("ranked", [("Ann", 4), ("Bob", 2), ("Cy", 3), ("Dee", 1)])
        rerate = steps._rerate
        corrected = []

        def rerate_then_correct(*args, **kwargs):
            step = rerate(*args, **kwargs)
            if not corrected:  # a host corrects match 2 while the step has read its seats
                corrected.append(True)
                corrections.match_correct(
                    table_id=back.pk, number=1, names=["Bob", "Eve", "Ann"], by=host
                )
            return step

        monkeypatch.setattr(steps, "_rerate", rerate_then_correct)
        assert replay_step(owner="a")[0] is Step.MOVED
        ratings_settle(owner="a")
        league.filed[1] = ("ranked", [("Ann", 1), ("Bob", 3), ("Eve", 2)])
        assert rating_problems() == []
        assert api_rows(client) == league.expected_rows()
