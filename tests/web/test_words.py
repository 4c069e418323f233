"""Words: European Portuguese a Lisbon reader writes (dates, "rating", nothing
gendering a player masculine, one name per mode), and English without numbers twice."""

import datetime
import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from matches.models import Match, Season, Table
from tests.factories import make_table, open_match, tap

pytestmark = pytest.mark.django_db


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


PO = Path(__file__).resolve().parents[2] / "locale" / "pt" / "LC_MESSAGES" / "django.po"


def in_portuguese(client):
    client.cookies["django_language"] = "pt"
    return client


def winter() -> Season:
    return Season.objects.create(
        name="Inverno", first_day=datetime.date(2026, 11, 1), last_day=datetime.date(2027, 2, 28)
    )


def file_at(table: Table, number: int, when: datetime.datetime) -> None:
    Match.objects.filter(table=table, number=number).update(filed_at=when)


class TestSeasonDates:
    def test_portuguese_writes_de_and_lower_case_months(self, host, client):
        season = winter()
        in_portuguese(client)
        standings = client.get(reverse("matches:standings"), {"season": season.pk})
        seasons = client.get(reverse("matches:seasons"))
        dates = "1 de novembro de 2026 a 28 de fevereiro de 2027"
        assert f"Época Inverno: {dates}." in standings.content.decode()
        assert dates in seasons.content.decode()
        assert "Novembro" not in seasons.content.decode()

    def test_english_writes_them_as_every_other_date(self, host, client):
        season = winter()
        standings = client.get(reverse("matches:standings"), {"season": season.pk})
        seasons = client.get(reverse("matches:seasons"))
        assert "Season Inverno: 1 Nov 2026 to 28 Feb 2027." in standings.content.decode()
        assert "1 Nov 2026 to 28 Feb 2027" in seasons.content.decode()

    def test_an_overlap_names_the_other_season_in_words(self, host_client):
        winter()
        in_portuguese(host_client)
        data = {"name": "Primavera", "first_day": "2027-02-01", "last_day": "2027-04-30"}
        response = host_client.post(reverse("matches:season_new"), data)
        assert (
            "Estes dias sobrepõem-se à época «Inverno» "
            "(1 de novembro de 2026 a 28 de fevereiro de 2027)."
        ) in response.content.decode()
        assert Season.objects.count() == 1


class TestPlayerPageDates:
    def test_the_match_history_reads_1_dec_2026(self, client):
        table = make_table(players=["Zoë", "Ana", "Rita"])
        tap(table, "Ana")
        tap(table, "Rita")
        file_at(table, 1, datetime.datetime(2026, 12, 1, 21, 7, 5, tzinfo=datetime.UTC))
        zoe = table.matches.get(number=1).winner
        english = client.get(reverse("matches:player", args=[zoe.pk])).content.decode()
        assert "<td>1 Dec 2026</td>" in english
        assert not re.search(r"\d\d/\d\d/\d{4}", english)
        portuguese = in_portuguese(client).get(reverse("matches:player", args=[zoe.pk]))
        assert "<td>1 de dezembro de 2026</td>" in portuguese.content.decode()


class TestRatingIsRating:
    def test_standings_and_player_page_say_rating(self, client):
        table = make_table(players=["Zoë", "Ana", "Rita"])
        tap(table, "Ana")
        tap(table, "Rita")
        in_portuguese(client)
        standings = client.get(reverse("matches:standings")).content.decode()
        assert '<th scope="col">Rating</th>' in standings
        assert "Ratings em JSON" in standings
        zoe = table.matches.get(number=1).winner
        player = client.get(reverse("matches:player", args=[zoe.pk])).content.decode()
        assert "<dt>Rating</dt>" in player
        assert "(provisório)" in player
        for page in (standings, player):
            assert "otaç" not in page


class TestNobodyIsMasculine:
    def test_a_woman_out_of_a_winner_takes_all_match(self, host_client):
        table = make_table(players=["Zoë", "Ana", "Rita", "Inês"], mode=Table.Mode.WINNER_TAKES_ALL)
        in_portuguese(host_client)
        match = open_match(table)
        zoe = match.seats.get(player__name="Zoë").player_id
        reply = host_client.post(
            reverse("matches:tap", args=[table.pk]),
            {"match": match.pk, "player": zoe},
            HTTP_HX_REQUEST="true",
        ).content.decode()
        assert "<bdi>Zoë</bdi> sai do jogo." in reply
        assert '<span class="tile-name">Zoë</span> <span class="tile-place">fora</span>' in reply
        audit = host_client.get(reverse("matches:match", args=[table.pk, 1])).content.decode()
        assert "Eliminação de <bdi>Zoë</bdi>" in audit
        for page in (reply, audit):
            assert "eliminad" not in page.lower()

    def test_a_ranked_place_reads_eliminacao_de_zoe_7(self, host_client):
        players = ["Zoë", "Ana", "Rita", "Inês", "Eva", "Sara", "Lia"]
        table = make_table(players=players)
        tap(table, "Zoë")
        in_portuguese(host_client)
        audit = host_client.get(reverse("matches:match", args=[table.pk, 1])).content.decode()
        assert "Eliminação de <bdi>Zoë</bdi> (7.º)" in audit
        page = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert '<span class="tile-name">Zoë</span> <span class="tile-place">7.º</span>' in page

    def test_a_winner_takes_all_winner_reads_vitoria(self, client):
        table = make_table(players=["Zoë", "Ana", "Rita"], mode=Table.Mode.WINNER_TAKES_ALL)
        tap(table, "Ana")
        tap(table, "Rita")
        zoe = table.matches.get(number=1).winner
        html = in_portuguese(client).get(reverse("matches:player", args=[zoe.pk]))
        assert "<td>vitória</td>" in html.content.decode()
        assert "vencedor</td>" not in html.content.decode()


class TestPortugueseWording:
    def test_the_dealer_and_hide(self, host_client):
        table = make_table(players=["Zoë", "Ana", "Rita"])
        tap(table, "Ana")
        tap(table, "Rita")
        html = in_portuguese(host_client).get(reverse("matches:table", args=[table.pk]))
        html = html.content.decode()
        dealer = open_match(table).first_dealer.name
        assert f"Começa a dar: <strong><bdi>{dealer}</bdi></strong>" in html
        assert ">Ocultar</button>" in html
        assert "Dá primeiro" not in html and "Esconder" not in html

    def test_the_ranked_mode_has_one_name(self, host_client, client):
        form = in_portuguese(host_client).get(reverse("matches:table_new")).content.decode()
        assert "Por pontos (3/2/1)</label>" in form
        table = make_table(players=["Zoë", "Ana", "Rita"])
        tap(table, "Ana")
        tap(table, "Rita")
        zoe = table.matches.get(number=1).winner
        player = in_portuguese(client).get(reverse("matches:player", args=[zoe.pk]))
        assert "Nas mesas por pontos: 3 pontos" in player.content.decode()

    @pytest.mark.parametrize(
        "wrong",
        ["eliminad", "Esconder", "Dá primeiro", "classificad", "Campeão", "estreante",
         "sentado", "novo jogador", "jogaram ambos"],
    )  # fmt: skip
    def test_the_catalogue_keeps_none_of_the_flagged_words(self, wrong):
        # Every translation whole, its wrapped lines joined; placeholders are not words.
        entries = re.findall(r'^msgstr(?:\[\d\])? ((?:".*"\n?)+)', PO.read_text(), re.M)
        msgstrs = " ".join("".join(re.findall(r'"(.*)"', entry)) for entry in entries)
        msgstrs = re.sub(r"%\(\w+\)[sd]", "", msgstrs)
        assert not re.search(rf"\b{wrong}", msgstrs)


class TestEnglishLists:
    def test_filed_matches_are_not_numbered_twice(self, host_client):
        table = make_table(players=["Zoë", "Ana", "Rita"])
        tap(table, "Ana")
        tap(table, "Rita")
        html = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        assert re.search(
            r'<ul class="recent-list">\s*<li><a [^>]+>Match 1: <bdi>Zoë</bdi> won', html
        )
        assert '<ol class="recent-list">' not in html

    def test_the_podium_carries_its_own_ranks(self, client):
        today = timezone.localdate()
        Season.objects.create(name="Now", first_day=today - datetime.timedelta(days=3),
                              last_day=today + datetime.timedelta(days=3))  # fmt: skip
        table = make_table(players=["Featherstonehaugh", "Ana", "Rita"])
        tap(table, "Ana")
        tap(table, "Rita")
        html = client.get(reverse("matches:seasons")).content.decode()
        assert re.search(
            r'<ul class="podium">\s*<li><span class="rank">1</span> <a [^>]+>Feath', html
        )
        assert "<ol" not in html


class TestNamesOnOneLine:
    @pytest.mark.parametrize("players", ["Ana, Ben, Cara", "Ana; Ben; Cara", "Ana, Ben\nCara"])
    def test_commas_get_one_name_per_line(self, host_client, players):
        form = {"name": "Snug", "players": players, "mode": "ranked"}
        response = host_client.post(reverse("matches:table_new"), form)
        html = response.content.decode()
        assert response.status_code == 200
        assert "Put one name per line, not separated by commas or semicolons." in html
        assert "needs at least" not in html
        assert not Table.objects.exists()

    def test_in_portuguese(self, host_client):
        form = {"name": "Snug", "players": "Ana, Ben, Cara", "mode": "ranked"}
        html = in_portuguese(host_client).post(reverse("matches:table_new"), form)
        assert (
            "Escreva um nome por linha, sem os separar com vírgulas nem pontos e vírgulas."
            in html.content.decode()
        )

    def test_a_comma_in_a_full_roster_is_a_name_not_split(self, host_client):
        form = {"name": "Snug", "players": "Smith, Jo\nAna\nBen", "mode": "ranked"}
        response = host_client.post(reverse("matches:table_new"), form)
        assert response.status_code == 302
        table = Table.objects.get()
        names = list(
            open_match(table).seats.order_by("position").values_list("player__name", flat=True)
        )
        assert names == ["Smith, Jo", "Ana", "Ben"]

    def test_too_few_without_commas_keeps_the_count(self, host_client):
        form = {"name": "Snug", "players": "Ana\nBen", "mode": "ranked"}
        response = host_client.post(reverse("matches:table_new"), form)
        assert "A table needs at least 3 players; 2 given." in response.content.decode()
