"""A season's qualifiers: each venue's places by its standings over the season, the nights
needed there (scaled for a venue that ran fewer nights), the season's best nights, the
one-venue rule passing a place down the list, the reasons in words, and the finalists in
the season's league order (season_finalists, what the finals night reads)."""

import datetime
from unittest import mock

import pytest
from django.utils import timezone, translation

from matches.models import Season
from matches.play.services.tables import table_launch
from matches.results.qualifiers import Finalist, season_finalists, season_qualifiers
from matches.rules.nights import night_of
from tests.factories import first_venue, make_organiser, other_venue, tap

pytestmark = pytest.mark.django_db

TODAY = night_of()
DAY = datetime.timedelta(days=1)
D1, D2, D3, D4 = (TODAY - (30 - n) * DAY for n in range(4))


def crown(table, order, day: datetime.date) -> None:
    """Tap players out in this order (the last one left wins), filed at noon that day."""
    when = timezone.make_aware(datetime.datetime.combine(day, datetime.time(12)))
    with mock.patch.object(timezone, "now", return_value=when):
        for name in order:
            tap(table, name)


def season(**rules) -> Season:
    return Season.objects.create(
        name="Autumn", first_day=TODAY - 40 * DAY, last_day=TODAY - 10 * DAY, **rules
    )


def season_with(**rules) -> Season:
    """The season with these rules instead."""
    Season.objects.update(**rules)
    return Season.objects.get()


@pytest.fixture
def pubs(db):
    """The Crown (three nights) and The Anchor (two: it opened late). Bob plays at both."""
    boss = make_organiser()
    crown_pub = first_venue()
    crown_pub.name = "The Crown"
    crown_pub.save()
    anchor = other_venue("The Anchor")

    def launch(venue, players, name):
        return table_launch(
            name=name, player_names=players, mode="ranked", by=boss, venue_id=venue.pk
        )

    front = launch(crown_pub, ["Ann", "Bob", "Cy", "Dee"], "Front")
    snug = launch(crown_pub, ["Gus", "Hal", "Ivy"], "Snug")
    back = launch(anchor, ["Bob", "Eve", "Fay"], "Back")
    crown(front, ["Dee", "Cy", "Ann"], D1)  # Bob 3, Ann 2, Cy 1
    crown(front, ["Dee", "Ann", "Cy"], D2)  # Bob 3, Cy 2, Ann 1
    crown(snug, ["Ivy", "Hal"], D2)  # Gus 3, Hal 2, Ivy 1: their one night
    crown(front, ["Bob", "Cy", "Ann"], D3)  # Dee 3, Ann 2, Cy 1
    crown(back, ["Fay", "Eve"], D3)  # Bob 3, Eve 2, Fay 1
    crown(back, ["Bob", "Fay"], D4)  # Eve 3, Fay 2, Bob 1
    # The Crown: Bob 6, Ann 5, Cy 4, Gus 3 (one match), Dee 3 (three), Hal 2, Ivy 1.
    # The Anchor: Eve 5, Bob 4, Fay 3.
    return crown_pub, anchor


def lists(result) -> dict[str, list[tuple[str, bool, str]]]:
    with translation.override("en"):
        return {
            venue.name: [(e.name, e.qualified, e.reason_text) for e in venue.entries]
            for venue in result.venues
        }


class TestQualifiers:
    def test_one_venue_bob_keeps_his_first_place_and_the_anchor_passes_down(self, pubs):
        result = season_qualifiers(season(qualify_places=2))
        assert result.final and result.league_nights == 4
        assert lists(result) == {
            "The Anchor": [
                ("Eve", True, "Qualified: 1st at The Anchor"),
                ("Bob", False, "Qualified at The Crown instead"),
                ("Fay", True, "Qualified: 3rd at The Anchor"),
            ],
            "The Crown": [
                ("Bob", True, "Qualified: 1st at The Crown"),
                ("Ann", True, "Qualified: 2nd at The Crown"),
                ("Cy", False, "Outside the top 2"),
                ("Gus", False, "Outside the top 2"),
                ("Dee", False, "Outside the top 2"),
                ("Hal", False, "Outside the top 2"),
                ("Ivy", False, "Outside the top 2"),
            ],
        }
        # The lists show everyone down to the last qualifier and three more.
        assert [e.name for e in result.venues[1].shown] == ["Bob", "Ann", "Cy", "Gus", "Dee"]

    def test_nights_needed_scale_with_the_venues_nights(self, pubs):
        # The league ran 4 nights: The Crown 3 of them needs ceil(4 x 3 / 4) = 3, The
        # Anchor 2 of them ceil(4 x 2 / 4) = 2.
        result = season_qualifiers(season(qualify_places=4, qualify_min_nights=4))
        assert [(v.name, v.nights, v.needed, v.places) for v in result.venues] == [
            ("The Anchor", 2, 2, 3),
            ("The Crown", 3, 3, 4),
        ]
        assert lists(result)["The Crown"] == [
            ("Bob", True, "Qualified: 1st at The Crown"),
            ("Ann", True, "Qualified: 2nd at The Crown"),
            ("Cy", True, "Qualified: 3rd at The Crown"),
            ("Gus", False, "1 night at The Crown; needs 3"),
            ("Dee", True, "Qualified: 5th at The Crown"),
            ("Hal", False, "1 night at The Crown; needs 3"),
            ("Ivy", False, "1 night at The Crown; needs 3"),
        ]
        assert lists(result)["The Anchor"] == [
            ("Eve", True, "Qualified: 1st at The Anchor"),
            ("Bob", False, "Qualified at The Crown instead"),
            ("Fay", True, "Qualified: 3rd at The Anchor"),
        ]

    def test_without_the_one_venue_rule_a_player_keeps_both_places(self, pubs):
        result = season_qualifiers(season(qualify_places=2, qualify_one_venue=False))
        assert [(v.name, [e.name for e in v.qualified]) for v in result.venues] == [
            ("The Anchor", ["Eve", "Bob"]),
            ("The Crown", ["Bob", "Ann"]),
        ]
        # In the finals once, at the better position.
        assert [(f.name, f.venue_name) for f in result.finalists] == [
            ("Bob", "The Crown"), ("Eve", "The Anchor"), ("Ann", "The Crown"),
        ]  # fmt: skip

    def test_a_percent_with_a_cap(self, pubs):
        # 40% of 7 players at The Crown is 2.8: 3 places; of 3 at The Anchor 1.2: 2.
        result = season_qualifiers(season(qualify_places=8, qualify_percent=40))
        assert [(v.name, v.places) for v in result.venues] == [
            ("The Anchor", 2),
            ("The Crown", 3),
        ]
        capped = season_qualifiers(season_with(qualify_places=2, qualify_percent=40))
        assert [(v.name, v.places) for v in capped.venues] == [
            ("The Anchor", 2),
            ("The Crown", 2),
        ]

    def test_finalists_in_the_seasons_league_order(self, pubs):
        crown_pub, anchor = pubs
        finalists = season_finalists(season(qualify_places=2))
        # League points: Bob 6 + 4, then Eve and Ann 5 each (Eve won a match, Ann none),
        # then Fay 3.
        ids = [finalist.player_id for finalist in finalists]
        assert finalists == [
            Finalist(ids[0], "Bob", crown_pub.pk, "The Crown", 1),
            Finalist(ids[1], "Eve", anchor.pk, "The Anchor", 2),
            Finalist(ids[2], "Ann", crown_pub.pk, "The Crown", 3),
            Finalist(ids[3], "Fay", anchor.pk, "The Anchor", 4),
        ]

    def test_an_upcoming_season_has_no_qualifiers_yet(self, pubs):
        upcoming = Season.objects.create(
            name="Spring", first_day=TODAY + DAY, last_day=TODAY + 30 * DAY
        )
        assert season_finalists(upcoming) == []
        assert season_qualifiers(upcoming).status == "upcoming"
