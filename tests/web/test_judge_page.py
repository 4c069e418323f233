"""The showdown judge as a dispute at the table needs it: the rows needed,
every problem named beside its field, the page's own card notation, a way in from the table."""

import re

import pytest
from django.urls import reverse

from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db
PT = {"HTTP_ACCEPT_LANGUAGE": "pt-PT,pt;q=0.9"}


def judge(client, params=None, **extra):
    return client.get(reverse("matches:showdown"), params or {}, **extra)


def rows(html: str) -> list[str]:
    """The name fields shown, with what they hold."""
    return re.findall(r'<input type="text" name="name_(\d+)"', html)


def field(html: str, name: str) -> str:
    return re.search(rf'<input [^>]*name="{name}"[^>]*>', html).group()


class TestRows:
    def test_two_rows_to_start_with(self, host, client):
        html = judge(client).content.decode()
        assert rows(html) == ["1", "2"]
        assert 'name="add"' in html

    def test_a_tables_standing_players_and_no_more(self, host, client):
        table = make_table(players=["Ann", "Bob", "Cy", "Dee"])
        tap(table, "Bob")
        html = judge(client, {"table": table.pk}).content.decode()
        assert re.findall(r'name="name_\d+"[^>]*value="([^"]*)"', html) == ["Ann", "Cy", "Dee"]
        assert rows(html) == ["1", "2", "3"]

    def test_add_a_player_keeps_what_was_typed_and_judges_nothing(self, host, client):
        params = {"rows": "2", "name_1": "Ann", "hand_1": "QS 7D 4C", "name_2": "Bob", "add": "1"}
        response = judge(client, params)
        html = response.content.decode()
        assert response.status_code == 200
        assert rows(html) == ["1", "2", "3"]
        assert 'value="QS 7D 4C"' in field(html, "hand_1")
        assert 'value="Bob"' in field(html, "name_2")
        assert "form-errors" not in html and "Best to worst" not in html

    def test_at_most_ten_rows_then_no_add_button(self, host, client):
        html = judge(client, {"rows": "10", "add": "1"}).content.decode()
        assert rows(html) == [str(n) for n in range(1, 11)]
        assert 'name="add"' not in html

    def test_a_filled_row_is_never_hidden(self, host, client):
        params = {"rows": "2", "hand_1": "QS QC 7D", "hand_4": "JS JH AD"}
        response = judge(client, params)
        assert response.status_code == 200
        assert rows(response.content.decode()) == ["1", "2", "3", "4"]
        assert "Hand 1 loses" not in response.content.decode()


class TestEveryError:
    def test_each_bad_hand_is_named_beside_its_field_and_marked(self, host, client):
        params = {
            "name_1": "Ann",
            "hand_1": "QS 7D",  # two cards
            "name_2": "Bob",
            "hand_2": "ZZ 2C 3C",  # not a card
            "name_3": "Cy",
            "hand_3": "KS KH 2D",  # fine
            "name_4": "Dee",
            "hand_4": "KS 4C 5C",  # the king of spades is Cy's
        }
        response = judge(client, params)
        html = response.content.decode()
        assert response.status_code == 400
        messages = {
            1: "Ann: a hand has exactly three cards; 2 given.",
            2: "Bob: “ZZ” is not a card. Write cards like QS, 10h or Q♠.",
            4: "K♠ is in both Cy’s and Dee’s hands; there is only one deck.",
        }
        summary = re.search(r'<div class="form-errors" role="alert">.*?</div>', html, re.S).group()
        assert "fix these 3 first" in summary
        for n, message in messages.items():
            assert message in summary, message
            # Beside its field, which points at it and is marked invalid.
            tag = field(html, f"hand_{n}")
            assert 'aria-invalid="true"' in tag
            assert f'aria-describedby="id_hand_{n}_error"' in tag
            beside = re.search(rf'<p class="field-error" id="id_hand_{n}_error">(.*?)</p>', html)
            assert beside.group(1) == message
        assert "aria-invalid" not in field(html, "hand_3")
        assert "aria-invalid" not in field(html, "name_1")

    def test_the_same_name_twice_marks_the_second_name(self, host, client):
        params = {"name_1": "Ann", "hand_1": "QS QC 7D", "name_2": "Ann", "hand_2": "JS JH AD"}
        response = judge(client, params)
        html = response.content.decode()
        assert response.status_code == 400
        assert 'aria-invalid="true"' in field(html, "name_2")
        assert "aria-invalid" not in field(html, "name_1")
        assert "Two hands are named Ann" in html

    def test_one_hand_is_too_few(self, host, client):
        response = judge(client, {"name_1": "Ann", "hand_1": "QS QC 7D"})
        assert response.status_code == 400
        assert "Enter at least two hands." in response.content.decode()

    def test_good_hands_are_still_judged(self, host, client):
        params = {"name_1": "Ann", "hand_1": "QS QC 7D", "name_2": "Bob", "hand_2": "JS JH AD"}
        html = judge(client, params).content.decode()
        assert re.search(r'<li class="loses">\s*<span class="who">Bob</span>', html)


class TestNotation:
    def test_english_placeholder_on_the_first_row_only(self, host, client):
        html = judge(client).content.decode()
        assert 'placeholder="QS 7D 4C"' in field(html, "hand_1")
        assert "placeholder" not in field(html, "hand_2")

    def test_portuguese_page_shows_portuguese_cards_and_reads_them(self, host, client):
        html = judge(client, **PT).content.decode()
        assert 'placeholder="DE 7O 4P"' in field(html, "hand_1")
        assert 'placeholder="QS' not in html
        # The example is a hand the Portuguese judge reads: dama de espadas, 7 de ouros, 4 de paus.
        params = {"name_1": "Ana", "hand_1": "DE 7O 4P", "name_2": "Rui", "hand_2": "VE VC AO"}
        page = judge(client, params, **PT).content.decode()
        loses = re.search(r'<li class="loses">(.*?)</li>', page, re.S).group(1)
        assert '<span class="who">Ana</span>' in loses
        assert all(card in loses for card in ["D♠", "7♦", "4♣"])


class TestTheWayIn:
    def test_the_table_page_links_the_judge_with_its_players(self, host, client, host_client):
        table = make_table(players=["Ann", "Bob", "Cy"])
        link = f'href="{reverse("matches:showdown")}?table={table.pk}"'
        for viewer in (client, host_client):
            html = viewer.get(reverse("matches:table", args=[table.pk])).content.decode()
            assert link in html
            assert "Judge a showdown" in html
