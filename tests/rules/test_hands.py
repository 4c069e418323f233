"""The hand ranking of this game's rules (seed 000 section 04), as a pure module."""

from collections import Counter
from itertools import combinations, pairwise

import pytest
from hypothesis import given, settings

from matches.rules.hands import Card, Category, HandError, compare, judge, parse_hand, rank_hand
from tests.strategies import DECK, disjoint_cards


def hand(text: str):
    return rank_hand(parse_hand(text))


def assert_order(*texts: str) -> None:
    """Each hand beats the next."""
    for better, worse in pairwise(texts):
        assert compare(hand(better), hand(worse)) == 1, (better, worse)
        assert compare(hand(worse), hand(better)) == -1, (worse, better)


def test_category_counts_over_all_22100_hands():
    counts = Counter(rank_hand(cards).category for cards in combinations(DECK, 3))
    assert sum(counts.values()) == 22_100
    assert counts == {
        Category.PRIAL: 52,
        Category.RUNNING_FLUSH: 48,
        Category.RUN: 720,
        Category.FLUSH: 1_096,
        Category.PAIR: 3_744,
        Category.HIGH_CARD: 16_440,
    }


class TestSeedExamples:
    def test_queens_beat_jacks_with_an_ace_and_lose_to_any_flush(self):
        assert_order("QS QC 7D", "JS JH AD")
        assert_order("5H 3H 2H", "QS QC 7D")  # the lowest flush still wins

    def test_runs_a23_then_akq_then_kqj_down_to_432(self):
        assert_order("AD 2C 3H", "AS KD QC", "KS QD JC", "4S 3D 2C")

    def test_k_a_2_is_not_a_run(self):
        assert hand("KS AD 2C").category == Category.HIGH_CARD
        assert_order("4S 3D 2C", "KS AD 2C")

    def test_high_cards_compare_from_the_top(self):
        assert_order("KS 9D 2C", "QS 10D 5C", "QH 10C 3D", "QD 9H 8S")
        assert_order("JS 6D 3C", "10S 9D 7C", "10H 9C 6D")

    def test_pairs_compare_by_the_pair_then_the_odd_card(self):
        assert_order("9S 9D 3C", "8S 8D KC", "8H 8C JD")
        assert_order("5S 5D 3C", "4S 4D KC")

    def test_threes_are_the_best_prial(self):
        assert_order("3S 3H 3D", "AS AH AD", "KS KH KD", "2S 2H 2D")

    def test_categories_best_first(self):
        assert_order("2S 2H 2D", "AS 2S 3S", "AD 2C 3H", "KH 9H 4H", "QS QD 8C", "AS JD 9C")

    def test_any_run_beats_any_flush(self):
        assert_order("4S 3D 2C", "AH KH JH")

    def test_a_2_3_beats_4_3_2_whatever_a_garbled_line_says(self):
        assert_order("AS 2D 3C", "4H 3H 2S")


class TestSuitTieBreak:
    def test_only_exactly_equal_ranks_compare_the_highest_cards_suit(self):
        assert_order("KS 9D 2C", "KH 9S 2S")  # spades over hearts on the king
        assert_order("KD 9C 2C", "KC 9S 2S")

    def test_in_a_2_3_the_three_is_the_highest_card(self):
        assert_order("AC 2C 3S", "AS 2S 3H")

    def test_a_pair_on_top_counts_its_better_suit(self):
        assert_order("QS QC 7D", "QH QD 7S")
        # Pair below the odd card: the odd card is the highest.
        assert_order("4C 4D KS", "4S 4H KH")


class TestParsing:
    @pytest.mark.parametrize("text", ["QS 7D 4C", "Q♠ 7♦ 4♣", "qs,7d, 4c", "Q♤ 7♢ 4♧"])
    def test_formats(self, text):
        assert [str(c) for c in parse_hand(text)] == ["Q♠", "7♦", "4♣"]

    def test_tens(self):
        assert hand("10h 10c 2s").category == Category.PAIR
        assert hand("TH 10C 2S").ranks == (10, 2)

    @pytest.mark.parametrize(
        ("text", "code"),
        [("QS 7D", "not_three"), ("QS 7D 4C 2H", "not_three"), ("QX 7D 4C", "unknown_card"),
         ("1S 7D 4C", "unknown_card"), ("QS QS 4C", "card_twice")],
    )  # fmt: skip
    def test_bad_hands(self, text, code):
        with pytest.raises(HandError) as error:
            parse_hand(text)
        assert error.value.code == code

    def test_judge_orders_best_first_and_refuses_one_deck_clashes(self):
        order = judge({"Ann": "QS QC 7D", "Bob": "JS JH AD", "Cy": "2H 3H 5H"})
        assert [name for name, _ in order] == ["Cy", "Ann", "Bob"]
        with pytest.raises(HandError) as error:
            judge({"Ann": "QS QC 7D", "Bob": "QS JH AD"})
        assert (error.value.code, error.value.player, error.value.token, error.value.other) == (
            "card_twice", "Bob", "Q♠", "Ann"
        )  # fmt: skip
        with pytest.raises(HandError) as error:
            judge({"Ann": "QS QC 7D"})
        assert error.value.code == "too_few"


@settings(max_examples=100, deadline=200)  # Hypothesis's defaults: pure code keeps a deadline
@given(cards=disjoint_cards)
def test_a_strict_total_order_on_hands_from_one_deck(cards):
    a, b, c = (rank_hand(tuple(cards[i : i + 3])) for i in (0, 3, 6))
    # Antisymmetric, and two disjoint hands never compare equal.
    assert compare(a, b) == -compare(b, a) != 0
    # Transitive.
    if compare(a, b) == 1 and compare(b, c) == 1:
        assert compare(a, c) == 1


class TestPortugueseLetters:
    def test_rei_dama_valete_and_the_four_suits(self):
        assert parse_hand("RE DC VO", portuguese=True) == (Card(13, 4), Card(12, 3), Card(11, 2))
        assert parse_hand("10p 2e as", portuguese=True) == (Card(14, 4), Card(10, 1), Card(2, 4))

    def test_english_notation_still_reads_in_portuguese(self):
        # K, Q, J and S, H, D are English: this hand's C is clubs, not copas.
        assert parse_hand("KS QC JH", portuguese=True) == (Card(13, 4), Card(12, 1), Card(11, 3))

    def test_a_c_alone_is_copas_in_portuguese_and_clubs_in_english(self):
        assert parse_hand("AC 2C 3C", portuguese=True)[0] == Card(14, 3)
        assert parse_hand("AC 2C 3C")[0] == Card(14, 1)

    def test_portuguese_letters_are_not_cards_in_english(self):
        with pytest.raises(HandError) as error:
            parse_hand("RE DC VO")
        assert error.value.code == "unknown_card"
