"""The night's story page and its card for any table: none filed, ten long or right-to-left
names, a player hidden, a table gone."""

import pytest
from django.urls import reverse

from matches.models import Table
from tests.factories import body, make_table, pid, tap

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


class TestTheStoryCard:
    def png(self, client, table) -> bytes:
        response = client.get(reverse("matches:tonight_png", args=[table.pk]))
        assert response.status_code == 200 and response["Content-Type"] == "image/png"
        return response.content

    def test_a_table_with_no_match_filed(self, host, client):
        table = make_table(host=host, players=["Solo", "Duo", "Trio"])
        assert self.png(client, table).startswith(b"\x89PNG")
        assert client.get(reverse("matches:tonight", args=[table.pk])).status_code == 200

    @pytest.mark.parametrize(
        "names",
        [
            [f"{i}" + "W" * 39 for i in range(10)],
            [f"שחקן מספר {i}" + "א" * 29 for i in range(10)],
            [f"لاعب {i} " + "ب" * 33 for i in range(10)],
            [f"玩家{i}" + "龍" * 37 for i in range(10)],
        ],
    )
    def test_ten_long_or_rtl_names(self, host, client, names):
        table = make_table(host=host, players=names)
        for name in names[:-1]:
            tap(table, name)
        assert self.png(client, table).startswith(b"\x89PNG")
        assert client.get(reverse("matches:tonight", args=[table.pk])).status_code == 200

    def test_hiding_redraws_the_card_and_the_pages(self, table, client, host_client):
        dev = pid("Dev")
        first = self.png(client, table)
        assert self.png(client, table) == first
        urls = [
            reverse("matches:tonight", args=[table.pk]),
            reverse("matches:tv", args=[table.pk]),
            reverse("matches:api_table", args=[table.pk]),
            reverse("matches:api_table_matches", args=[table.pk]),
            reverse("matches:match", args=[table.pk, 1]),
            reverse("matches:matches", args=[table.pk]),
        ]
        tags = {}
        for url in urls:
            client.get(url)
            response = client.get(url)
            assert "Dev" in body(response), url
            tags[url] = response.get("ETag", "")
        host_client.post(
            reverse("matches:player_public_name", args=[dev]), {"public_name": "", "hidden": "on"}
        )
        assert self.png(client, table) != first
        for url in urls:
            response = client.get(url, HTTP_IF_NONE_MATCH=tags[url])
            assert response.status_code == 200, url
            assert "Dev" not in body(response) and f"Player {dev}" in body(response), url


class TestTableGone:
    def test_the_story_of_a_deleted_table_is_a_404(self, table, client):
        pk = table.pk
        Table.objects.filter(pk=pk).delete()
        assert client.get(reverse("matches:tonight", args=[pk])).status_code == 404
        assert client.get(reverse("matches:tonight_png", args=[pk])).status_code == 404

    def test_unknown_pages_are_404_pages_not_500(self, table, client):
        response = client.get("/no/such/page/")
        assert response.status_code == 404
        response = client.get(f"/players/{2**64}/")
        assert response.status_code == 404
