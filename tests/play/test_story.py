"""The night's story at a table (play/story.py): the champion (shared on a tie), each
player's line, the longest winning run and the biggest upset by rating, in both modes."""

import datetime

import pytest

from matches.models import Match, RatingChange, Table
from matches.play import story, tonight
from matches.play.services.tables import table_close
from matches.ratings.engine import shown_rating
from tests.factories import make_table, open_match, tap

pytestmark = pytest.mark.django_db


def play(table, *games):
    """Each game: the players tapped out in order (the one left standing wins)."""
    for order in games:
        for name in order:
            tap(table, name)


def lines(night):
    return [(p.player, p.played, p.wins, p.points, p.places) for p in night.lines]


class TestRanked:
    def test_level_on_points_the_tie_breaks_crown_one_as_tonight_does(self):
        table = make_table()
        # Dev 1st, Cara 2nd, Alice 3rd, Ben 4th; then Alice 1st, Cara 2nd, Ben 3rd, Dev 4th.
        play(table, ["Ben", "Alice", "Cara"], ["Dev", "Ben", "Cara"])
        night = story.night_story(table=table)
        assert lines(night) == [
            ("Alice", 2, 1, 4, [3, 1]),
            ("Cara", 2, 0, 4, [2, 2]),
            ("Dev", 2, 1, 3, [1, 4]),
            ("Ben", 2, 0, 1, [4, 3]),
        ]
        # Level on 4 points, Alice has a win more: the standings' order crowns her alone,
        # as the Tonight panel beside the story does.
        assert [(p.player, p.place, p.shared) for p in night.lines] == [
            ("Alice", 1, False), ("Cara", 2, False), ("Dev", 3, False), ("Ben", 4, False),
        ]  # fmt: skip
        assert [p.player for p in night.champions] == ["Alice"]
        assert (night.ahead_on, night.ahead_of) == ("wins", "Cara")
        assert [r.person.name for r in tonight.table_tonight(table=table) if r.leads] == ["Alice"]
        assert night.champion_score == 4
        assert night.matches == 2

    def test_level_on_every_step_is_a_shared_championship(self):
        table = make_table()
        # Dev 1st, Alice 2nd, Cara 3rd; then Alice 1st, Dev 2nd, Cara 3rd: Dev and Alice
        # are level on points, wins, 2nds, 3rds and matches played.
        play(table, ["Ben", "Cara", "Alice"], ["Ben", "Cara", "Dev"])
        night = story.night_story(table=table)
        assert [(p.player, p.points, p.place, p.shared) for p in night.lines] == [
            ("Alice", 5, 1, True), ("Dev", 5, 1, True), ("Cara", 2, 3, False),
            ("Ben", 0, 4, False),
        ]  # fmt: skip
        assert [p.player for p in night.champions] == ["Alice", "Dev"]
        assert night.ahead_on is None
        assert [r.person.name for r in tonight.table_tonight(table=table) if r.leads] == [
            "Alice",
            "Dev",
        ]

    def test_one_champion_when_ahead_on_points(self):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"], ["Dev", "Ben", "Alice"])
        night = story.night_story(table=table)
        assert [(p.player, p.points) for p in night.champions] == [("Cara", 5)]

    def test_the_longest_winning_run_names_its_matches(self):
        table = make_table()
        play(
            table,
            ["Ben", "Alice", "Dev"],  # 1: Cara
            ["Ben", "Alice", "Cara"],  # 2: Dev
            ["Ben", "Alice", "Cara"],  # 3: Dev
            ["Ben", "Alice", "Cara"],  # 4: Dev
            ["Ben", "Dev", "Alice"],  # 5: Cara
        )
        night = story.night_story(table=table)
        assert night.runs == [story.Run("Dev", 3, 2, 4)]

    def test_runs_level_in_length_are_all_told(self):
        table = make_table()
        play(
            table,
            ["Ben", "Alice", "Dev"],  # 1: Cara
            ["Ben", "Alice", "Dev"],  # 2: Cara
            ["Ben", "Alice", "Cara"],  # 3: Dev
            ["Ben", "Alice", "Cara"],  # 4: Dev
        )
        night = story.night_story(table=table)
        assert night.runs == [story.Run("Cara", 2, 1, 2), story.Run("Dev", 2, 3, 4)]

    def test_no_run_of_one(self):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"], ["Ben", "Alice", "Dev"])
        assert story.night_story(table=table).runs == []

    def test_rating_change_runs_from_before_the_first_match_to_after_the_last(self):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"], ["Dev", "Ben", "Alice"], ["Alice", "Ben", "Cara"])
        night = story.night_story(table=table)
        dev = next(p for p in night.lines if p.player == "Dev")
        changes = list(
            RatingChange.objects.filter(player_id=dev.player_id).order_by("match__number")
        )
        assert dev.rating_before == 1000  # a newcomer's rating
        assert changes[0].mu_before is None
        assert dev.rating_after == shown_rating(changes[-1].mu, changes[-1].sigma)
        assert dev.rating_change == dev.rating_after - 1000
        assert dev.rating_change != 0

    def test_the_biggest_upset_is_the_winner_rated_furthest_below_the_favourite(self):
        # Ben wins three times at another table first: the favourite at this one.
        warm_up = make_table(name="Back room", players=["Ben", "Eve", "Finn"])
        play(warm_up, ["Eve", "Finn"], ["Eve", "Finn"], ["Finn", "Eve"])
        table = make_table(players=["Alice", "Ben", "Cara"])
        play(table, ["Cara", "Alice"], ["Ben", "Cara"])  # Ben wins, then Alice beats Ben
        night = story.night_story(table=table)
        second = Match.objects.get(table=table, number=2)
        before = {
            c.player.name: shown_rating(c.mu_before, c.sigma_before) if c.mu_before else 1000
            for c in RatingChange.objects.filter(match=second).select_related("player")
        }
        assert night.upset == story.Upset(
            match=2,
            winner="Alice",
            winner_rating=before["Alice"],
            favourite="Ben",
            favourite_rating=before["Ben"],
        )
        assert night.upset.gap == before["Ben"] - before["Alice"] > 0

    def test_no_upset_when_every_favourite_won(self):
        warm_up = make_table(name="Back room", players=["Ben", "Eve", "Finn"])
        play(warm_up, ["Eve", "Finn"], ["Eve", "Finn"])
        table = make_table(players=["Alice", "Ben", "Cara"])
        play(table, ["Cara", "Alice"])
        assert story.night_story(table=table).upset is None

    def test_in_three_queries_however_long_the_night(self, django_assert_num_queries):
        table = make_table(players=[f"P{n}" for n in range(8)])
        for _ in range(6):
            play(table, [f"P{n}" for n in range(7)])
        table_close(table_id=table.pk, by=table.created_by, discard_match_id=None)
        table.refresh_from_db()
        with django_assert_num_queries(3):
            night = story.night_story(table=table)
        assert night.matches == 6
        assert [(p.player, p.wins) for p in night.champions] == [("P7", 6)]


class TestWinnerTakesAll:
    def test_champion_on_wins_and_no_points(self):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL)
        play(table, ["Ben", "Alice", "Cara"], ["Ben", "Alice", "Cara"], ["Ben", "Dev", "Alice"])
        night = story.night_story(table=table)
        assert lines(night)[:2] == [("Dev", 3, 2, None, [1, 1, 3]), ("Cara", 3, 1, None, [2, 2, 1])]
        assert [p.player for p in night.champions] == ["Dev"]
        assert night.champion_score == 2
        assert night.runs == [story.Run("Dev", 2, 1, 2)]

    def test_a_tie_on_wins_is_shared(self):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL)
        play(table, ["Ben", "Alice", "Cara"], ["Ben", "Alice", "Dev"])
        night = story.night_story(table=table)
        assert sorted(p.player for p in night.champions) == ["Cara", "Dev"]
        assert night.champion_score == 1


class TestWhichNight:
    def test_an_open_table_tells_tonight_only(self):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])
        filed = table.matches.get(number=1).filed_at
        assert story.night_story(table=table, now=filed).matches == 1
        later = story.night_story(table=table, now=filed + datetime.timedelta(days=1))
        assert later.matches == 0
        assert later.champions == [] and later.lines == []

    def test_a_closed_table_tells_its_last_night(self):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"])  # match 1: an earlier night
        play(table, ["Dev", "Ben", "Alice"])  # match 2: the last night
        first = table.matches.get(number=1)
        Match.objects.filter(pk=first.pk).update(
            filed_at=first.filed_at - datetime.timedelta(days=2)
        )
        table_close(table_id=table.pk, by=table.created_by, discard_match_id=open_match(table).pk)
        table.refresh_from_db()
        # Days later the closed table still tells its last night: match 2 alone.
        night = story.night_story(table=table, now=table.closed_at + datetime.timedelta(days=5))
        assert night.matches == 1
        assert [p.player for p in night.champions] == ["Cara"]
