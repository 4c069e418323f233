import json
import re

import pytest
from django.urls import reverse

from matches.rules import showdown
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db


def post(client, payload, raw=None):
    body = raw if raw is not None else json.dumps(payload)
    return client.post(reverse("matches:api_showdown"), body, content_type="application/json")


class TestApi:
    def test_order_loser_and_descriptions(self, host, client):
        response = post(client, {"hands": {"Ann": "QS QC 7D", "Bob": "JS JH AD", "Cy": "2h 3h 5h"}})
        assert response.status_code == 200
        assert response.json() == {
            "order": ["Cy", "Ann", "Bob"],
            "loser": "Bob",
            "hands": {
                "Cy": {"category": "flush", "description": "Flush, five high"},
                "Ann": {"category": "pair", "description": "Pair of queens, seven kicker"},
                "Bob": {"category": "pair", "description": "Pair of jacks, ace kicker"},
            },
        }

    @pytest.mark.parametrize(
        ("hands", "error"),
        [
            ({"Ann": "QS 7D 4C"}, "Enter at least two hands."),
            (
                {"Ann": "QS 7D 4X", "Bob": "2C 3C 5D"},
                "Ann: “4X” is not a card. Write cards like QS, 10h or Q♠.",
            ),
            ({"Ann": "QS 7D", "Bob": "2C 3C 5D"}, "Ann: a hand has exactly three cards; 2 given."),
            (
                {"Ann": "QS 7D 4C", "Bob": "QS 3C 5D"},
                "Q♠ is in both Ann’s and Bob’s hands; there is only one deck.",
            ),
        ],
    )
    def test_bad_hands_get_400_with_a_message(self, host, client, hands, error):
        response = post(client, {"hands": hands})
        assert response.status_code == 400 and response.json() == {"error": error}

    @pytest.mark.parametrize(
        "raw",
        ["not json", "[]", '{"hands": []}', '{"hands": {"": "QS 7D 4C"}}', '{"hands": {"A": 3}}'],
    )
    def test_malformed_bodies(self, host, client, raw):
        response = post(client, None, raw=raw)
        assert response.status_code == 400 and "Send JSON like" in response.json()["error"]

    def test_needs_no_login_and_no_csrf_token(self, host):
        from tests.clients import FormClient

        response = FormClient(enforce_csrf_checks=True).post(
            reverse("matches:api_showdown"),
            json.dumps({"hands": {"A": "AS 2S 3S", "B": "AH KH QH"}}),
            content_type="application/json",
        )
        assert response.status_code == 200 and response.json()["loser"] == "B"


class TestPage:
    def test_judged_by_get_with_the_loser_and_the_reason(self, host, client):
        params = {"name_1": "Ann", "hand_1": "KS 9D 2C", "name_2": "Bob", "hand_2": "KH 9S 2S"}
        html = client.get(reverse("matches:showdown"), params).content.decode()
        assert re.search(r'<li class="loses">\s*<span class="who">Bob</span>', html)
        assert (
            "Bob loses to Ann: the ranks are exactly the same, so the suit of the highest card "
            "decides, and spades beat hearts."
        ) in html

    def test_categories_and_the_same_kind(self, host, client):
        params = {
            "name_1": "Ann",
            "hand_1": "9S 9D 3C",
            "name_2": "Bob",
            "hand_2": "8S 8D KC",
            "hand_3": "AH 2D 3H",
        }
        html = client.get(reverse("matches:showdown"), params).content.decode()
        assert "Run, ace-two-three" in html
        assert "Bob loses to Ann: both hold a pair, and 9♠ 9♦ 3♣ ranks above K♣ 8♠ 8♦." in html

    def test_a_bad_hand_is_named(self, host, client):
        response = client.get(
            reverse("matches:showdown"), {"name_1": "Ann", "hand_1": "QS 7D", "hand_2": "2C 3C 5D"}
        )
        assert response.status_code == 400
        assert "Ann: a hand has exactly three cards; 2 given." in response.content.decode()

    def test_names_prefilled_from_a_tables_standing_players(self, host, client):
        table = make_table(players=["Ann", "Bob", "Cy", "Dee"])
        tap(table, "Bob")
        html = client.get(reverse("matches:showdown"), {"table": table.pk}).content.decode()
        names = re.findall(r'name="name_\d+"[^>]*value="([^"]*)"', html)
        assert names == ["Ann", "Cy", "Dee"]

    def test_unknown_table_prefills_nothing(self, host, client):
        assert client.get(reverse("matches:showdown"), {"table": "x"}).status_code == 200
        assert client.get(reverse("matches:showdown"), {"table": "999"}).status_code == 200

    def test_rules_page(self, host, client):
        html = client.get(reverse("matches:rules")).content.decode()
        for heading in ["Players and lives", "Three kinds of turn", "Knocking and the last turn",
                        "Knock-outs and the tap", "How hands rank, best first", "Exactly equal ranks"]:  # fmt: skip
            assert heading in html
        assert "in A-2-3 the ace plays low, so the highest card is the 3" in html


class TestApiRefusesHostileBodies:
    """Too many hands and too deep JSON are refused before any work."""

    def test_a_body_over_the_limit_is_refused_by_its_length(self, host, client):
        # Over 16 KB, under the 64 KiB every request is held to (tests/web/test_request_limits.py).
        hands = {f"P{n}": "AS KS QS" for n in range(2_000)}
        response = post(client, {"hands": hands})
        assert response.status_code == 400
        assert response.json() == {
            "error": "A showdown request is at most 16 KB: send at most 10 hands."
        }

    def test_too_many_hands_are_counted_before_any_hand_is_looked_at(self, host, client):
        # Names that collide once trimmed: the per-hand duplicate check used to run (and
        # Answer) before the count.
        hands = {" " * n + "Ann": "AS KS QS" for n in range(11)}
        response = post(client, {"hands": hands})
        assert response.status_code == 400
        assert response.json() == {"error": "At most 10 hands can be judged at once."}

    @pytest.mark.parametrize("body", ["[" * 5_000, '{"hands": ' + "[" * 5_000, '{"a":' * 3_000])
    def test_deeply_nested_json_is_a_400(self, host, client, body):
        response = post(client, None, raw=body)
        assert response.status_code == 400
        assert response.json() == {"error": str(showdown.BAD_SHOWDOWN_JSON)}
