import pytest

from matches.play import selectors
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db


class TestMatchDetail:
    def test_seats_come_by_place_then_seat_with_standing_players_last(
        self, django_assert_num_queries
    ):
        table = make_table(players=["Ann", "Bob", "Cy", "Dee", "Eve"])
        tap(table, "Dee")  # fifth
        tap(table, "Bob")  # fourth
        with django_assert_num_queries(2):  # the match, then its seats with their players
            match = selectors.match_detail(table=table, number=1)
            seats = [(seat.player.name, seat.place) for seat in match.seats.all()]
        assert seats == [("Bob", 4), ("Dee", 5), ("Ann", None), ("Cy", None), ("Eve", None)]

    def test_a_filed_match_comes_in_finishing_order(self):
        table = make_table(players=["Ann", "Bob", "Cy"])
        tap(table, "Ann")
        tap(table, "Bob")
        match = selectors.match_detail(table=table, number=1)
        assert [(s.player.name, s.place) for s in match.seats.all()] == [
            ("Cy", 1),
            ("Bob", 2),
            ("Ann", 3),
        ]
