"""What the crowning moment is made of: every polled fragment of the TV and
of a spectator's page carries the table's latest filing time and, while it is the news, the
card live.js shows over the board. Hidden as served: without JavaScript the board shows the
latest result."""

import re

import pytest
from django.urls import reverse

from tests.factories import WORKED_GAME, make_table, tap

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}  # a poll


def crowning(html: str) -> str:
    # The element's own closing tag: the first </div> at its opening tag's indentation.
    found = re.search(r'^( *)(<div class="crowning" id="crowning".*?\n\1</div>)', html, re.S | re.M)
    return found.group(2)


def text(fragment: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", fragment)).strip()


def play(table, order):
    for name in order:
        tap(table, name)


class TestTheCard:
    def test_the_tv_fragment_names_the_filing_and_every_place_with_points(self, host, client):
        table = make_table(players=WORKED_GAME)
        play(table, ["Dev", "Cara", "Ben"])  # Alice wins match 1
        filed = table.matches.get(number=1)
        html = client.get(reverse("matches:tv", args=[table.pk]), **HTMX).content.decode()
        card = crowning(html)
        assert f'data-crowned-at="{int(filed.filed_at.timestamp())}" hidden>' in card
        assert '<span class="crowning-name">Alice</span>' in card
        places = re.findall(r"<li class=\"place-\d+\">(.*?)</li>", card)
        assert [text(place) for place in places] == [
            "1st Alice 3 pts",
            "2nd Ben 2 pts",
            "3rd Cara 1 pt",
            "4th Dev 0 pts",
        ]
        assert "Match 1" in card

    def test_winner_takes_all_names_who_was_out(self, host, client):
        table = make_table(players=WORKED_GAME, mode="winner_takes_all")
        play(table, ["Dev", "Cara", "Ben"])
        html = client.get(reverse("matches:tv", args=[table.pk])).content.decode()
        card = crowning(html)
        assert "crowning-places" not in card
        assert text(re.search(r'<p class="crowning-out">.*?</p>', card).group()) == (
            "Out: Ben, Cara, Dev"
        )

    def test_before_any_filing_nothing_to_crown(self, host, client):
        table = make_table(players=WORKED_GAME)
        html = client.get(reverse("matches:tv", args=[table.pk])).content.decode()
        card = crowning(html)
        assert 'data-crowned-at="" hidden>' in card and "crowning-card" not in card

    def test_a_spectator_gets_the_card_until_the_next_first_tap(self, host, client):
        table = make_table(players=WORKED_GAME)
        play(table, ["Dev", "Cara", "Ben"])
        url = reverse("matches:table", args=[table.pk])
        assert "crowning-card" in crowning(client.get(url, **HTMX).content.decode())
        tap(table, "Ben")  # match 2 under way: the filing time stays, the card goes
        filed = table.matches.get(number=1)
        card = crowning(client.get(url, **HTMX).content.decode())
        assert f'data-crowned-at="{int(filed.filed_at.timestamp())}"' in card
        assert "crowning-card" not in card

    def test_the_hosts_board_has_no_moment(self, host, host_client):
        table = make_table(players=WORKED_GAME)
        play(table, ["Dev", "Cara", "Ben"])
        html = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert 'id="crowning"' not in html
        assert "<bdi>Alice</bdi> wins match 1!" in html  # the host's own result card
