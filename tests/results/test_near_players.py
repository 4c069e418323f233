"""Issue 22: the league's side of "Did you mean?" and of the seat picker's search."""

import pytest

from matches.results.players import NameInDoubt, players_in_doubt, players_search
from tests.factories import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def league(host):
    make_table(host=host, players=["Zoë Martins", "Margaret", "Ann Lee", "Ann Moss", "Bob"])
    make_table(host=host, players=["Zoë", "Ben", "Cara"])


class TestPlayersInDoubt:
    def test_new_names_close_to_known_players_in_the_order_typed(self, league):
        doubts = players_in_doubt(names=["Margret", "Bob", "Zoe", "Ann", "Zack"])
        assert doubts == [
            NameInDoubt(typed="Margret", known=["Margaret"]),
            NameInDoubt(typed="Zoe", known=["Zoë", "Zoë Martins"]),
        ]

    def test_names_the_host_chose_to_add_are_not_asked_again(self, league):
        assert players_in_doubt(names=["Zoe", "Margret"], settled=["zoe"]) == [
            NameInDoubt(typed="Margret", known=["Margaret"])
        ]

    def test_known_players_cost_one_query(self, league, django_assert_num_queries):
        with django_assert_num_queries(1):
            assert players_in_doubt(names=["Zoë", "BOB", "margaret"]) == []

    def test_new_names_cost_two_queries_however_many(self, league, django_assert_num_queries):
        with django_assert_num_queries(2):
            assert len(players_in_doubt(names=["Zoe", "Margret", "Zack", "Bobby", "Cary"])) == 2


class TestPlayersSearch:
    def test_folds_case_accents_and_width(self, league):
        assert [p.name for p in players_search(query="zoe")] == ["Zoë", "Zoë Martins"]
        assert [p.name for p in players_search(query="ＺＯＥ")] == ["Zoë", "Zoë Martins"]

    def test_names_starting_with_it_then_words_then_the_rest(self, league):
        make_table(players=["Dana", "Adan", "Ann Dale"])
        assert [p.name for p in players_search(query="da")] == ["Dana", "Ann Dale", "Adan"]

    def test_bounded_and_one_query(self, league, django_assert_num_queries):
        make_table(players=[f"Player {n}" for n in range(10)])
        with django_assert_num_queries(1):
            found = players_search(query="pla", limit=8)
        assert [p.name for p in found] == [f"Player {n}" for n in range(8)]

    def test_nothing_typed_finds_nothing(self, league, django_assert_num_queries):
        with django_assert_num_queries(0):
            assert players_search(query="  ") == []
