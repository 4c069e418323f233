"""The finals night's pages: the organiser's form from the qualifiers, the finals page with
its draw, the finals board (every heat side by side, then the final, then the champion;
tagged, so an unchanged board answers 304), the champion on the seasons page and the
venue's TV, and a heat's table once its match is filed."""

import re

import pytest
from django.urls import reverse

from matches.models import DailyTally, FinalsEvent, Table
from matches.play.services.tables import table_launch
from tests.factories import first_venue, make_host, make_organiser
from tests.finals_factories import create, ended_season, final_table, heat_table, play_out

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]
HTMX = {"HTTP_HX_REQUEST": "true"}


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def cards(html: str) -> dict[str, str]:
    found = re.findall(r'<section class="venue-table[^"]*"[^>]*>(.*?)</section>', html, re.S)
    return {re.search(r"<h2 [^>]*>([^<]*)</h2>", card).group(1): text(card) for card in found}


@pytest.fixture
def organiser(db):
    return make_organiser()


@pytest.fixture
def boss(client, organiser):
    client.force_login(organiser)
    return client


def board(client, event) -> str:
    return client.get(reverse("matches:finals_board", args=[event.season_id])).content.decode()


class TestCreate:
    def qualify(self, season, names):
        """The season's nights at the first venue: one a player, points as listed."""
        table = table_launch(
            name="Past", player_names=names[:3], mode="ranked", by=make_host("past")
        )
        for points, name in enumerate(reversed(names)):
            from matches.models import Player

            player = Player.objects.get_or_create(name=name, defaults={})[0]
            DailyTally.objects.create(
                player=player,
                table=table,
                venue=first_venue(),
                day=season.first_day,
                played=1,
                points=points,
            )

    def test_the_form_lists_the_qualifiers_and_creates_the_heats(self, boss):
        season = ended_season()
        names = ["Ana", "Bea", "Cid", "Dora", "Edu", "Fay"]
        self.qualify(season, names)
        url = reverse("matches:finals_new", args=[season.pk])
        page = text(boss.get(url).content.decode())
        assert "6 finalists Ana (Our pub) Bea (Our pub) Cid (Our pub)" in page
        form = {
            "venue": first_venue().pk,
            "mode": "ranked",
            "heats": 2,
            "seeding": "spread",
            "runners_up": 1,
        }
        response = boss.post(url, form)
        assert response.status_code == 302
        assert response["Location"] == reverse("matches:finals", args=[season.pk])
        event = FinalsEvent.objects.get(season=season)
        assert [t.name for t in Table.objects.filter(finals=True).order_by("pk")] == [
            "Finals · Heat 1",
            "Finals · Heat 2",
        ]
        page = text(boss.get(response["Location"]).content.decode())
        assert "The finals night of Autumn is on: 2 heats are open." in page
        assert "Seeded by season position" in page
        assert event.heat_count == 2

    def test_a_form_error_says_why_and_saves_nothing(self, boss):
        season = ended_season()
        self.qualify(season, ["Ana", "Bea", "Cid", "Dora", "Edu"])
        url = reverse("matches:finals_new", args=[season.pk])
        form = {
            "venue": first_venue().pk,
            "mode": "ranked",
            "heats": 2,
            "seeding": "spread",
            "runners_up": 1,
        }
        response = boss.post(url, form)
        assert response.status_code == 400
        assert "5 finalists cannot fill 2 heats of at least 3 players." in text(
            response.content.decode()
        )
        assert FinalsEvent.objects.count() == 0


class TestFinalsPage:
    def test_the_random_draw_is_shown(self, client, organiser):
        event = create(organiser, seeding="random", draw_seed=4242)
        page = text(client.get(reverse("matches:finals", args=[event.season_id])).content.decode())
        assert "Drawn at random (draw number 4242)" in page
        assert "Drawn Player Season position Qualified at Heat" in page

    def test_no_finals_night_is_not_found(self, client, organiser):
        season = ended_season()
        assert client.get(reverse("matches:finals", args=[season.pk])).status_code == 404


class TestFinalsBoard:
    def test_every_heat_side_by_side_then_the_final_then_the_champion(self, client, organiser):
        event = create(organiser)
        html = board(client, event)
        assert '<meta http-equiv="refresh" content="5">' in html
        assert cards(html) == {
            "Heat 1": "Heat 1 Ana Fay Gus",
            "Heat 2": "Heat 2 Bea Edu Hana",
            "Heat 3": "Heat 3 Cid Dora Ivo",
        }
        assert "Autumn · Finals" in text(html) and "3 heats" in text(html)
        play_out(heat_table(event, 1), organiser)
        assert cards(board(client, event))["Heat 1"] == "Heat 1 ♛ Ana won 1st Ana 2nd Fay 3rd Gus"
        play_out(heat_table(event, 2), organiser)
        play_out(heat_table(event, 3), organiser)
        html = board(client, event)
        assert cards(html)["The final"] == "The final Ana Bea Cid Dora"
        assert "The final" in re.search(r'id="finals-stage">([^<]*)<', html).group(1)
        play_out(final_table(event), organiser, ["Ana", "Bea", "Cid", "Dora"])
        html = board(client, event)
        assert "Season champion ♛ Dora" in text(html)
        assert cards(html)["The final"] == "The final ♛ Dora won 1st Dora 2nd Cid 3rd Bea 4th Ana"

    def test_an_unchanged_board_answers_304_and_a_tap_changes_it(self, client, organiser):
        event = create(organiser)
        url = reverse("matches:finals_board", args=[event.season_id])
        first = client.get(url, **HTMX)
        assert first.status_code == 200
        assert 'id="live"' not in first.content.decode()  # the fragment only
        again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **HTMX)
        assert again.status_code == 304
        from tests.finals_factories import knock_out

        knock_out(heat_table(event, 2), organiser, "Hana")
        moved = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **HTMX)
        assert moved.status_code == 200
        assert "Hana" in cards(moved.content.decode())["Heat 2"]

    def test_a_season_without_finals_has_no_board(self, client, organiser):
        season = ended_season()
        assert client.get(reverse("matches:finals_board", args=[season.pk])).status_code == 404


class TestChampionShown:
    def crowned(self, organiser):
        event = create(organiser)
        for heat in (1, 2, 3):
            play_out(heat_table(event, heat), organiser)
        play_out(final_table(event), organiser, ["Ana", "Bea", "Cid", "Dora"])
        return event

    def test_on_the_seasons_page(self, client, organiser):
        self.crowned(organiser)
        page = text(client.get(reverse("matches:seasons")).content.decode())
        assert "♛ Season champion: Dora , winner of the finals night" in page

    def test_on_the_season_page(self, client, organiser):
        event = self.crowned(organiser)
        html = client.get(reverse("matches:season", args=[event.season_id])).content.decode()
        assert "♛ Season champion: Dora , winner of the finals night" in text(html)
        assert reverse("matches:finals_board", args=[event.season_id]) in html

    def test_on_the_venue_board(self, client, organiser):
        self.crowned(organiser)
        html = client.get(
            reverse("matches:venue_board", args=[first_venue().slug])
        ).content.decode()
        assert "♛ Autumn champion: Dora" in text(html)

    def test_the_organiser_is_offered_to_create_the_finals(self, boss):
        season = ended_season()
        html = boss.get(reverse("matches:seasons")).content.decode()
        assert reverse("matches:finals_new", args=[season.pk]) in html


class TestHeatTable:
    def test_a_filed_heat_says_so_and_offers_undo(self, boss, organiser):
        event = create(organiser)
        table = heat_table(event, 1)
        play_out(table, organiser)
        html = boss.get(reverse("matches:table", args=[table.pk])).content.decode()
        page = text(html)
        assert "Heat 1 is over: its table closed when its match was won." in page
        assert "Undo Fay out — reopens match 1" in page
        assert "Reopen table" not in page and "Close table" not in page
        assert reverse("matches:finals_board", args=[event.season_id]) in html

    def test_home_offers_no_reopen_of_a_filed_heat(self, boss, organiser):
        event = create(organiser)
        table = heat_table(event, 1)
        play_out(table, organiser)
        html = boss.get(reverse("matches:home")).content.decode()
        assert "Finals · Heat 1" in html
        assert reverse("matches:reopen", args=[table.pk]) not in html
