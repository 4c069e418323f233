"""A venue's standings embed (/venues/<slug>/standings/embed/): the venue's standings as a
page the pub's own website frames, and only the origins its organiser lists may frame it;
every other page refuses to be framed."""

import pytest
from django.test import Client
from django.urls import reverse

from matches.models import Venue
from matches.web.framing import frame_origins
from tests.factories import first_venue, make_host, make_table, other_venue, tap

pytestmark = pytest.mark.django_db


def embed_url(venue: Venue) -> str:
    return reverse("matches:venue_standings_embed", args=[venue.slug])


@pytest.fixture
def played():
    """Ann wins at the first venue (Bob 2nd, Cy 3rd); at the Anchor, Zed wins (Ann 2nd)."""
    host = make_host()
    front = make_table(host=host, name="Front bar", players=["Ann", "Bob", "Cy"])
    tap(front, "Cy")
    tap(front, "Bob")
    anchor_host = make_host("anchor", venue=other_venue("The Anchor"))
    anchor = make_table(host=anchor_host, name="Anchor bar", players=["Zed", "Ann", "Yul"])
    tap(anchor, "Yul")
    tap(anchor, "Ann")


class TestFraming:
    def test_listed_origins_may_frame_it_and_no_others(self, played):
        venue = first_venue()
        venue.frame_origins = "https://thecrown.example\n\nhttp://localhost:8080/\n"
        venue.save()
        response = Client().get(embed_url(venue))
        assert response.status_code == 200
        policy = response["Content-Security-Policy"]
        assert "frame-ancestors https://thecrown.example http://localhost:8080" in policy
        assert "'none'" not in policy.split("frame-ancestors")[1].split(";")[0]
        assert "script-src 'self'" in policy  # the rest of the policy as every page's
        assert "X-Frame-Options" not in response

    def test_with_none_listed_it_refuses_framing_like_every_page(self, played):
        response = Client().get(embed_url(first_venue()))
        assert response.status_code == 200
        assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
        assert response["X-Frame-Options"] == "DENY"

    def test_a_revalidation_carries_the_same_framing(self, played):
        venue = first_venue()
        venue.frame_origins = "https://thecrown.example"
        venue.save()
        client = Client()
        tag = client.get(embed_url(venue))["ETag"]
        again = client.get(embed_url(venue), HTTP_IF_NONE_MATCH=tag)
        assert again.status_code == 304
        assert "frame-ancestors https://thecrown.example" in again["Content-Security-Policy"]
        assert "X-Frame-Options" not in again

    def test_another_venues_origins_do_not_open_this_one(self, played):
        anchor = other_venue("The Anchor")
        anchor.frame_origins = "https://theanchor.example"
        anchor.save()
        crown = Client().get(embed_url(first_venue()))
        assert "frame-ancestors 'none'" in crown["Content-Security-Policy"]
        assert crown["X-Frame-Options"] == "DENY"

    @pytest.mark.parametrize("name", ["matches:home", "matches:standings", "matches:venue_board"])
    def test_every_other_page_refuses_to_be_framed(self, played, name):
        venue = first_venue()
        venue.frame_origins = "https://thecrown.example"
        venue.save()
        args = [venue.slug] if name == "matches:venue_board" else []
        response = Client().get(reverse(name, args=args))
        assert response.status_code == 200
        assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
        assert response["X-Frame-Options"] == "DENY"

    def test_an_unknown_venue_is_not_found_and_not_framed(self, played):
        response = Client().get("/venues/nowhere/standings/embed/")
        assert response.status_code == 404
        assert response["X-Frame-Options"] == "DENY"


class TestOrigins:
    def test_only_bare_origins_are_sent(self):
        listed = "\n".join(
            [
                " https://TheCrown.example/ ",
                "https://thecrown.example",  # the same again
                "*",
                "https://*.example",
                "https://pub.example/standings",
                "https://pub.example; script-src *",
                "'self'",
                "javascript:alert(1)",
                "http://127.0.0.1:8000",
            ]
        )
        assert frame_origins(listed) == ["https://thecrown.example", "http://127.0.0.1:8000"]


class TestTheEmbed:
    def test_it_shows_the_venues_standings_by_public_names_without_navigation(self, played):
        html = Client().get(embed_url(first_venue())).content.decode()
        assert "Standings · Our pub" in html
        assert 'class="site-header"' not in html and "<nav" not in html and "<script" not in html
        rows = [
            " ".join(cell.split("<")[0] for cell in row.split(">")[1:] if cell.split("<")[0])
            for row in html.split("<tbody>")[1].split("</tbody>")[0].split("</tr>")[:-1]
        ]
        # The Anchor's match is not counted here: Ann 1 win, Bob 2nd, Cy 3rd.
        assert rows == ["1 Ann 1 1 3", "2 Bob 1 0 2", "3 Cy 1 0 1"]
