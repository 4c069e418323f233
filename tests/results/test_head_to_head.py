"""Head-to-head on hand-built matches of both modes: the API's counts and the player page."""

import pytest
from django.urls import reverse

from matches.models import Player
from matches.play.services.undo import table_undo_last
from matches.results.head_to_head import conqueror, favourite_victim, head_to_head
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db


def crown(table, order):
    """Tap players out in this order; the last one left is crowned."""
    for name in order:
        tap(table, name)


@pytest.fixture
def league(host):
    """Ranked: Ann 1st Ben 2nd Cy 3rd Dee 4th, then Ben 1st Dee 2nd Ann 3rd Cy 4th.
    Winner takes all: Cy wins over Ann, Ben (Ben out first); then Ann wins over Cy, Ben."""
    ranked = make_table(host=host, players=["Ann", "Ben", "Cy", "Dee"], name="Ranked")
    crown(ranked, ["Dee", "Cy", "Ben"])
    crown(ranked, ["Cy", "Ann", "Dee"])
    wta = make_table(host=host, players=["Ann", "Ben", "Cy"], name="WTA", mode="winner_takes_all")
    crown(wta, ["Ben", "Ann"])
    crown(wta, ["Ben", "Cy"])
    # An open match counts for nothing until it is filed.
    tap(ranked, "Ann")
    return {p.name: p for p in Player.objects.all()}


def rows(client, player):
    return client.get(reverse("matches:api_player", args=[player.pk])).json()


class TestHeadToHeadApi:
    def test_counts_of_both_modes(self, client, league):
        payload = rows(client, league["Ann"])
        assert payload["head_to_head"] == [
            # Ben: ranked ahead, behind; WTA: Ann not ahead when Cy won, ahead when Ann won.
            {"opponent": "Ben", "opponent_id": league["Ben"].pk, "matches": 4, "ahead": 2, "behind": 1},
            # Cy: ranked ahead twice; WTA behind (Cy won), ahead (Ann won).
            {"opponent": "Cy", "opponent_id": league["Cy"].pk, "matches": 4, "ahead": 3, "behind": 1},
            {"opponent": "Dee", "opponent_id": league["Dee"].pk, "matches": 2, "ahead": 1, "behind": 1},
        ]  # fmt: skip

    def test_two_non_winners_of_winner_takes_all_are_neither_ahead_nor_behind(self, client, league):
        ben = {r["opponent"]: r for r in rows(client, league["Ben"])["head_to_head"]}
        # Ben and Cy: ranked 2nd vs 3rd, then 1st vs 4th; WTA: Cy won once (Ben behind),
        # Ann won once (Ben and Cy both out: neither).
        assert ben["Cy"] == {
            "opponent": "Cy", "opponent_id": league["Cy"].pk, "matches": 4, "ahead": 2, "behind": 1
        }  # fmt: skip

    def test_totals_and_rating_come_with_it(self, client, league):
        payload = rows(client, league["Dee"])
        assert payload["id"] == league["Dee"].pk
        assert payload["player"] == "Dee"
        assert payload["totals"] == {"played": 2, "wins": 0, "seconds": 1, "thirds": 0, "points": 2}
        ratings = client.get(reverse("matches:api_ratings")).json()["rows"]
        dee = next(row for row in ratings if row["player"] == "Dee")
        assert payload["rating"] == {
            k: dee[k] for k in ("rank", "matches", "mu", "sigma", "ordinal", "provisional")
        }

    def test_a_player_without_filed_matches(self, client, host):
        make_table(host=host, players=["Ann", "Ben", "Cy"])
        payload = rows(client, Player.objects.get(name="Ann"))
        assert payload["totals"] == {"played": 0, "wins": 0, "seconds": 0, "thirds": 0, "points": 0}
        assert payload["rating"] is None
        assert payload["head_to_head"] == []

    def test_an_unknown_player_is_a_404(self, client, host):
        assert client.get(reverse("matches:api_player", args=[999])).status_code == 404

    def test_an_undone_crowning_no_longer_counts(self, client, host):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        crown(table, ["Cy", "Ben"])
        table_undo_last(table_id=table.pk, tap_id=None, by=host)
        assert rows(client, Player.objects.get(name="Ann"))["head_to_head"] == []

    def test_one_query_however_many_matches(self, league, django_assert_num_queries):
        with django_assert_num_queries(1):
            head_to_head(player=league["Ann"])


class TestConquerorAndVictim:
    def test_most_frequent_conqueror_and_favourite_victim(self, league):
        rivals = head_to_head(player=league["Ann"])
        assert favourite_victim(rivals).opponent == "Cy"  # ahead of Ben 2, Cy 3, Dee 1
        # Behind Ben, Cy and Dee once each: the one shared most, then first by name.
        assert conqueror(rivals).opponent == "Ben"
        assert conqueror(head_to_head(player=league["Dee"])).opponent == "Ben"  # behind Ben 0-2

    def test_nobody_when_never_beaten(self, host):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        crown(table, ["Cy", "Ben"])
        rivals = head_to_head(player=Player.objects.get(name="Ann"))
        assert conqueror(rivals) is None
        assert favourite_victim(rivals).opponent == "Ben"

    def test_readable_lines(self, league):
        lines = [r.text for r in head_to_head(player=league["Ann"])]
        assert lines == ["ahead of Ben 2–1 in 4", "ahead of Cy 3–1 in 4", "level with Dee 1–1 in 2"]
        lines = [r.text for r in head_to_head(player=league["Dee"])]
        assert lines == ["level with Ann 1–1 in 2", "behind Ben 0–2 in 2", "level with Cy 1–1 in 2"]
