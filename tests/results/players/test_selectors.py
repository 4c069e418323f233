"""The player selectors: the league's side of "Did you mean?", of the seat picker's search and
of the merge form's suggestions."""

import pytest

from matches.models import Player
from matches.results.players.selectors import (
    NameInDoubt,
    names_in_doubt,
    other_player_names,
    players_search,
)
from tests.factories import make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def league(host):
    make_table(host=host, players=["Zoë Martins", "Margaret", "Ann Lee", "Ann Moss", "Bob"])
    make_table(host=host, players=["Zoë", "Ben", "Cara"])


class TestNamesInDoubt:
    def test_new_names_close_to_known_players_in_the_order_typed(self, league):
        doubts = names_in_doubt(names=["Margret", "Bob", "Zoe", "Ann", "Zack"])
        assert doubts == [
            NameInDoubt(typed="Margret", known=["Margaret"]),
            NameInDoubt(typed="Zoe", known=["Zoë", "Zoë Martins"]),
        ]

    def test_names_the_host_chose_to_add_are_not_asked_again(self, league):
        assert names_in_doubt(names=["Zoe", "Margret"], settled=["zoe"]) == [
            NameInDoubt(typed="Margret", known=["Margaret"])
        ]

    def test_known_players_cost_one_query(self, league, django_assert_num_queries):
        with django_assert_num_queries(1):
            assert names_in_doubt(names=["Zoë", "BOB", "margaret"]) == []

    def test_new_names_cost_two_queries_however_many(self, league, django_assert_num_queries):
        with django_assert_num_queries(2):
            assert len(names_in_doubt(names=["Zoe", "Margret", "Zack", "Bobby", "Cary"])) == 2


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


class TestOtherPlayerNames:
    def test_every_player_but_the_one_asked_about(self, league):
        zoe = Player.objects.get(name="Zoë")
        names = other_player_names(player=zoe)
        assert sorted(names) == [
            "Ann Lee",
            "Ann Moss",
            "Ben",
            "Bob",
            "Cara",
            "Margaret",
            "Zoë Martins",
        ]
