"""A venue's TV board (/venues/<slug>/board/): every open table at the pub side by side, as
each table's TV shows it, tonight's totals once none is open, in a fixed number of queries."""

import re

import pytest
from django.test import Client
from django.urls import reverse

from matches.play.services import tables as table_services
from tests.factories import first_venue, make_host, make_table, other_venue, tap

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


def board_url(venue) -> str:
    return reverse("matches:venue_board", args=[venue.slug])


def text(html: str) -> str:
    """The page's words, tags stripped and spaces squeezed."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def cards(html: str) -> dict[str, str]:
    """Each table's card on the board, by table name, as words."""
    found = re.findall(r'<section class="venue-table"[^>]*>(.*?)</section>', html, re.S)
    named = {}
    for card in found:
        name = re.search(r"<h2 [^>]*>([^<]*)</h2>", card).group(1)
        named[name] = text(card)
    return named


@pytest.fixture
def host():
    return make_host()


class TestTheBoardShowsEveryOpenTable:
    def test_each_table_with_who_stands_and_who_is_out_in_place(self, host):
        front = make_table(host=host, name="Front bar", players=["Ann", "Bob", "Cy", "Di"])
        back = make_table(
            host=host, name="Back room", players=["Eve", "Fay", "Gus"], mode="winner_takes_all"
        )
        tap(front, "Cy")
        tap(front, "Bob")
        tap(back, "Gus")
        response = Client().get(board_url(first_venue()))
        assert response.status_code == 200
        shown = cards(response.content.decode())
        assert list(shown) == ["Front bar", "Back room"]  # launch order
        assert (
            shown["Front bar"] == "Front bar Match 1 Ann Di Out 4th Cy 3rd Bob"
        )  # first out first
        assert shown["Back room"] == "Back room Match 1 Eve Fay Out Gus"
        assert "2 tables open" in text(response.content.decode())

    def test_the_last_result_shows_until_the_next_one(self, host):
        front = make_table(host=host, name="Front bar", players=["Ann", "Bob", "Cy"])
        for name in ("Cy", "Bob"):
            tap(front, name)
        shown = cards(Client().get(board_url(first_venue())).content.decode())
        assert shown["Front bar"] == "Front bar Match 2 Ann Bob Cy ♛ Match 1: Ann won"

    def test_another_venues_tables_and_closed_tables_are_not_shown(self, host):
        make_table(host=host, name="Front bar", players=["Ann", "Bob", "Cy"])
        closed = make_table(host=host, name="Snug", players=["Ann", "Bob", "Cy"])
        table_services.table_close(table_id=closed.pk, by=host, discard_match_id=None)
        anchor_host = make_host("anchor", venue=other_venue("The Anchor"))
        make_table(host=anchor_host, name="Anchor bar", players=["Xan", "Yul", "Zed"])
        shown = cards(Client().get(board_url(first_venue())).content.decode())
        assert list(shown) == ["Front bar"]
        anchor = cards(Client().get(board_url(other_venue("The Anchor"))).content.decode())
        assert list(anchor) == ["Anchor bar"]

    def test_an_unknown_venue_is_not_found(self, host):
        assert Client().get("/venues/nowhere/board/").status_code == 404

    def test_the_fragment_is_the_board_alone(self, host):
        make_table(host=host, name="Front bar", players=["Ann", "Bob", "Cy"])
        page = Client().get(board_url(first_venue()))
        fragment = Client().get(board_url(first_venue()), **HTMX)
        assert "<html" not in fragment.content.decode()
        assert fragment.content.decode().strip() in page.content.decode()
        assert page["ETag"] != fragment["ETag"]


class TestIdleBoard:
    def test_with_no_table_open_tonights_totals_at_each_table(self, host):
        front = make_table(host=host, name="Front bar", players=["Ann", "Bob", "Cy"])
        # Ann wins match 1 (Bob 2nd), Bob match 2 (Cy 2nd): 3 points a win, 2 a 2nd, 1 a 3rd.
        for name in ("Cy", "Bob", "Ann", "Cy"):
            tap(front, name)
        table_services.table_close(table_id=front.pk, by=host)
        html = Client().get(board_url(first_venue())).content.decode()
        words = text(html)
        assert "No table is open." in words
        assert "Tonight at Front bar Player Points ♛ Bob 5 Ann 4 Cy 3" in words

    def test_a_venue_with_nothing_tonight_says_so(self, host):
        words = text(Client().get(board_url(first_venue())).content.decode())
        assert "No table is open. No match filed tonight yet." in words


class TestPollsAndQueries:
    def test_a_poll_gets_304_until_a_table_at_the_venue_moves(self, host):
        front = make_table(host=host, name="Front bar", players=["Ann", "Bob", "Cy"])
        client = Client()
        tag = client.get(board_url(first_venue()), **HTMX)["ETag"]
        assert (
            client.get(board_url(first_venue()), HTTP_IF_NONE_MATCH=tag, **HTMX).status_code == 304
        )
        anchor_host = make_host("anchor", venue=other_venue("The Anchor"))
        anchor = make_table(host=anchor_host, name="Anchor bar", players=["Xan", "Yul", "Zed"])
        tap(anchor, "Zed")
        assert (
            client.get(board_url(first_venue()), HTTP_IF_NONE_MATCH=tag, **HTMX).status_code == 304
        )
        tap(front, "Cy")
        moved = client.get(board_url(first_venue()), HTTP_IF_NONE_MATCH=tag, **HTMX)
        assert moved.status_code == 200 and moved["ETag"] != tag
        make_table(host=host, name="Back room", players=["Ann", "Bob", "Cy"])
        launched = client.get(board_url(first_venue()), HTTP_IF_NONE_MATCH=moved["ETag"], **HTMX)
        assert launched.status_code == 200 and "Back room" in launched.content.decode()

    @pytest.mark.parametrize("count", [1, 8])
    def test_the_query_count_is_the_same_for_one_table_or_eight(
        self, host, count, django_assert_num_queries
    ):
        for number in range(count):
            table = make_table(
                host=host, name=f"Table {number}", players=["Ann", "Bob", "Cy", "Di"]
            )
            tap(table, "Di")
            for name in ("Cy", "Bob"):
                tap(table, name)  # match 1 filed: a last result at every table
        url = board_url(first_venue())
        # Every page's one (is there a host yet); the venue, its tables, the epoch; open
        # matches, seats, last results; the versions read again.
        with django_assert_num_queries(8):
            response = Client().get(url)
        assert len(cards(response.content.decode())) == count

    @pytest.mark.parametrize("count", [1, 8])
    def test_the_idle_query_count_is_the_same_for_one_table_or_eight(
        self, host, count, django_assert_num_queries
    ):
        for number in range(count):
            table = make_table(host=host, name=f"Table {number}", players=["Ann", "Bob", "Cy"])
            for name in ("Cy", "Bob"):
                tap(table, name)
            table_services.table_close(table_id=table.pk, by=host)
        url = board_url(first_venue())
        # Every page's one; the venue, its tables, the epoch; tonight's totals; the versions
        # read again.
        with django_assert_num_queries(6):
            response = Client().get(url)
        assert text(response.content.decode()).count("Tonight at Table") == count
