"""Each mode's rules, asked of scoring.py: what a place is worth and which places are named."""

import pytest
from django.utils import translation

from matches.rules.scoring import PlaceCounts, place_counts, place_label, points_for, shown_place


class TestPlaceCounts:
    @pytest.mark.parametrize(
        ("place", "expected"),
        [
            (1, PlaceCounts(played=1, wins=1, points=3)),
            (2, PlaceCounts(played=1, seconds=1, points=2)),
            (3, PlaceCounts(played=1, thirds=1, points=1)),
            (4, PlaceCounts(played=1)),
            (10, PlaceCounts(played=1)),
        ],
    )
    def test_a_ranked_place_is_worth_its_counts_and_3_2_1_points(self, place, expected):
        assert place_counts("ranked", place) == expected

    @pytest.mark.parametrize("place", [2, 3, 7])
    def test_winner_takes_all_counts_only_played_for_everyone_but_the_winner(self, place):
        assert place_counts("winner_takes_all", place) == PlaceCounts(played=1)
        assert place_counts("winner_takes_all", 1) == PlaceCounts(played=1, wins=1)

    def test_points_are_none_where_the_mode_keeps_none(self):
        assert points_for("winner_takes_all", 1) is None
        assert [points_for("ranked", p) for p in (1, 2, 3, 4, None)] == [3, 2, 1, 0, 0]


class TestShownPlace:
    def test_ranked_names_every_place_and_winner_takes_all_only_the_winner(self):
        assert [shown_place("ranked", p) for p in (1, 2, 5, None)] == [1, 2, 5, None]
        assert [shown_place("winner_takes_all", p) for p in (1, 2, 5)] == [1, None, None]

    def test_labels_in_english_and_portuguese(self):
        with translation.override("en"):
            assert place_label("ranked", 4) == "4th"
            assert place_label("winner_takes_all", 1) == "winner"
            assert place_label("winner_takes_all", 4) == "out"
        with translation.override("pt"):
            # Neither gendered: "fora" and "vitória" fit everyone.
            assert place_label("winner_takes_all", 4) == "fora"
            assert place_label("winner_takes_all", 1) == "vitória"
            assert place_label("ranked", 4) == "4.º"
