"""Did you mean? Which known names a typed name may be meant as."""

import pytest

from matches.rules.names import fold_key, near_names, one_edit_apart


class TestFoldKey:
    @pytest.mark.parametrize("typed", ["Zoe", "zoë", "ZOË", "Zoe\u0308", "\uff3a\uff4f\uff45"])
    def test_case_accents_and_width_fold_away(self, typed):
        assert fold_key(typed) == "zoe"


class TestOneEditApart:
    @pytest.mark.parametrize(
        "first, second",
        [("margaret", "margret"), ("margret", "margaret"), ("martin", "martyn"), ("ab", "abc")],
    )
    def test_one_letter_changed_added_or_removed(self, first, second):
        assert one_edit_apart(first, second)

    @pytest.mark.parametrize(
        "first, second",
        [("martin", "martin"), ("martin", "marvyn"), ("jonh", "john"), ("abc", "abcde")],
    )
    def test_none_or_more_than_one(self, first, second):
        assert not one_edit_apart(first, second)


class TestNearNames:
    def test_the_same_once_accents_case_and_width_are_folded(self):
        assert near_names("Zoe", ["Ann", "Zoë", "Bob"]) == ["Zoë"]
        assert near_names("ZOE", ["Zoë"]) == ["Zoë"]
        assert near_names("\uff3a\uff4f\uff45", ["Zoë"]) == ["Zoë"]

    def test_one_letter_away_for_names_of_five_letters_or_more(self):
        assert near_names("Margret", ["Margaret", "Bob"]) == ["Margaret"]
        assert near_names("Jamie", ["Jamiê", "Janie"]) == ["Jamiê", "Janie"]
        assert near_names("Rosie", ["Rosa", "Josie"]) == ["Josie"]

    def test_one_letter_away_is_not_asked_between_short_names(self):
        assert near_names("Ian", ["Ann"]) == []
        assert near_names("Anna", ["Anne"]) == []
        # Both names must be five letters long: "Rosie" and "Rose" are not asked about.
        assert near_names("Rosie", ["Rose"]) == []

    def test_a_first_name_alone_when_it_is_unique(self):
        assert near_names("Zoë", ["Zoë Martins", "Ann Lee"]) == ["Zoë Martins"]
        assert near_names("zoe", ["Zoë Martins"]) == ["Zoë Martins"]

    def test_a_first_name_shared_by_two_players_is_not_asked_about(self):
        assert near_names("Ann", ["Ann Lee", "Ann Moss"]) == []

    def test_a_known_name_is_never_in_doubt(self):
        assert near_names("Zoë", ["Zoë", "Zoe"]) == []
        assert near_names("zoë", ["Zoë"]) == []
        assert near_names("Ann  Lee", ["Ann Lee", "Ann Lea"]) == []

    def test_far_names_are_not_in_doubt(self):
        assert near_names("Zack", ["Zoë", "Ann Lee", "Margaret"]) == []
        assert near_names("Ann Lee", ["Ann Moss"]) == []

    def test_the_closest_come_first(self):
        assert near_names("Marie", ["Marie Curie", "Maria", "Marié"]) == [
            "Marié",
            "Maria",
            "Marie Curie",
        ]


class TestNumberedNames:
    @pytest.mark.parametrize(
        "typed, known",
        [("Player 3", "Player 2"), ("Table 12", "Table 1"), ("Guest 10", "Guest 1"),
         ("Player3", "Player")],
    )  # fmt: skip
    def test_names_told_apart_by_a_number_are_not_near(self, typed, known):
        assert near_names(typed, [known]) == []

    def test_a_typo_beside_a_number_is_still_near(self):
        assert near_names("Margret 2", ["Margaret 2"]) == ["Margaret 2"]
