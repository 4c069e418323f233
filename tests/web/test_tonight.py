"""The Tonight page and the share card: public like the table page, in the
reader's language, reachable from the table page, on the TV once the table closes; the card
is a 1080x1080 PNG whose every line stays on the canvas, drawn once per state."""

import io
import re

import pytest
from django.urls import reverse
from django.utils import translation
from PIL import Image

from matches.models import Table
from matches.play import story
from matches.play.services.tables import table_close
from matches.web import share_card
from tests.clients import FormClient
from tests.factories import make_table, open_match, tap

pytestmark = pytest.mark.django_db

TEN_LONG_NAMES = [
    "Maria da Conceição Albuquerque de Castro",
    "João Sebastião Gonçalves de Magalhães",
    "Françoise-Amélie Lefèvre-Dubœuf",
    "Łukasz Wójcik-Brzęczyszczykiewicz",
    "Zoë Ångström-Øvergaard Kjærsgaard",
    "Ignácio Estêvão Conceição Figueiredo",
    "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW",
    "Anne-Sophie Müller-Lüdenscheidt Straße",
    "Bartholomew Fitzwilliam-Worthington III",
    "Núria Puigdemont i Casamajó de St. Martí",
]
assert all(len(name) <= 40 for name in TEN_LONG_NAMES)


def play(table, *games):
    for order in games:
        for name in order:
            tap(table, name)


def tonight_url(table):
    return reverse("matches:tonight", args=[table.pk])


def card_url(table):
    return reverse("matches:tonight_png", args=[table.pk])


def close(table):
    table_close(table_id=table.pk, by=table.created_by, discard_match_id=open_match(table).pk)


@pytest.fixture
def night(host):
    """Dev wins twice running, then Cara: a ranked night at Front bar."""
    table = make_table()
    play(
        table,
        ["Ben", "Alice", "Cara"],  # Dev 3, Cara 2, Alice 1
        ["Ben", "Alice", "Cara"],  # Dev 3, Cara 2, Alice 1
        ["Ben", "Alice", "Dev"],  # Cara 3, Dev 2, Alice 1
    )
    return table


class TestTonightPage:
    def test_a_spectator_reads_the_nights_story(self, night, client):
        html = client.get(tonight_url(night)).content.decode()
        assert "Champion of the night: <bdi>Dev</bdi>, with 8 points." in html
        assert "Longest winning run: <bdi>Dev</bdi>, 2 wins in a row (matches 1 to 2)." in html
        # Dev went into match 3 rated above Cara after two wins: Cara's win is the upset.
        upset = story.night_story(table=night).upset
        assert (upset.match, upset.winner, upset.favourite) == (3, "Cara", "Dev")
        assert (
            f"Biggest upset: <bdi>Cara</bdi> won match 3 rated {upset.winner_rating}, "
            f"{upset.gap} below the favourite, <bdi>Dev</bdi> ({upset.favourite_rating})."
        ) in html
        rows = re.findall(
            r'<th scope="row">(\w+)</th><td class="num">(\d+)</td><td class="num">(\d+)</td>'
            r'<td class="num">(\d+)</td><td class="places">([^<]+)</td>',
            html,
        )
        assert rows == [
            ("Dev", "3", "2", "8", "1st, 1st, 2nd"),
            ("Cara", "3", "1", "7", "2nd, 2nd, 1st"),
            ("Alice", "3", "0", "3", "3rd, 3rd, 3rd"),
            ("Ben", "3", "0", "0", "4th, 4th, 4th"),
        ]

    def test_the_rating_change_is_shown_with_its_ends(self, night, client):
        dev = next(p for p in story.night_story(table=night).lines if p.player == "Dev")
        html = client.get(tonight_url(night)).content.decode()
        assert (
            f'+{dev.rating_change} <span class="muted">(1000 → {dev.rating_after})</span>' in html
        )

    def test_the_text_to_copy_says_the_same(self, night, client):
        html = client.get(tonight_url(night)).content.decode()
        text = re.search(r'<textarea id="night-text"[^>]*>(.*?)</textarea>', html, re.S)[1]
        lines = text.splitlines()
        assert lines[0] == "Front bar, night of " + lines[0].split("night of ")[1]
        assert lines[1] == "Champion of the night: Dev, with 8 points."
        assert lines[3].startswith("1. Dev: 8 points, 2 wins, 3 played, rating +")
        assert (
            lines[6] == "4. Ben: 0 points, 0 wins, 3 played, rating " + lines[6].rsplit(" ", 1)[1]
        )
        assert "Longest winning run: Dev, 2 wins in a row (matches 1 to 2)." in lines
        assert lines[-1] == "http://testserver" + tonight_url(night)
        assert 'data-copy="night-text"' in html and ">Copy</button>" in html

    def test_in_portuguese(self, night, client):
        html = client.get(tonight_url(night), HTTP_ACCEPT_LANGUAGE="pt").content.decode()
        assert "Melhor da noite: <bdi>Dev</bdi>, com 8 pontos." in html
        assert (
            "Maior série de vitórias: <bdi>Dev</bdi>, 2 vitórias seguidas (partidas 1 a 2)." in html
        )
        assert "1. Dev: 8 pontos, 2 vitórias, 3 jogos, rating +" in html
        assert ">Copiar</button>" in html

    def test_a_shared_championship_names_both(self, host, client):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL)
        play(table, ["Ben", "Alice", "Cara"], ["Ben", "Alice", "Dev"])
        html = client.get(tonight_url(table)).content.decode()
        assert (
            "Shared champions of the night, level on 1 win: <bdi>Cara</bdi> and <bdi>Dev</bdi>."
            in html
        ) or (
            "Shared champions of the night, level on 1 win: <bdi>Dev</bdi> and <bdi>Cara</bdi>."
            in html
        )
        assert '<th scope="col" class="num">Points</th>' not in html

    def test_the_biggest_upset_in_words(self, host, client):
        warm_up = make_table(name="Back room", players=["Ben", "Eve", "Finn"])
        play(warm_up, ["Eve", "Finn"], ["Eve", "Finn"], ["Finn", "Eve"])
        table = make_table(players=["Alice", "Ben", "Cara"])
        play(table, ["Cara", "Alice"], ["Ben", "Cara"])
        upset = story.night_story(table=table).upset
        html = client.get(tonight_url(table)).content.decode()
        assert (
            f"Biggest upset: <bdi>Alice</bdi> won match 2 rated {upset.winner_rating}, "
            f"{upset.gap} below the favourite, <bdi>Ben</bdi> ({upset.favourite_rating})."
        ) in html

    def test_a_name_is_escaped(self, host, client):
        table = make_table(players=["<b>Ann</b>", "Ben", "Cara"])
        play(table, ["Ben", "Cara"])
        html = client.get(tonight_url(table)).content.decode()
        assert "<bdi>&lt;b&gt;Ann&lt;/b&gt;</bdi>" in html
        assert "<b>Ann</b>" not in html

    def test_no_upset_when_the_best_rated_won_each_match(self, host, client):
        table = make_table()
        play(table, ["Ben", "Alice", "Cara"], ["Ben", "Alice", "Cara"])  # Dev, twice
        html = client.get(tonight_url(table)).content.decode()
        assert "No upset: every match went to the best-rated player at the table." in html

    def test_an_empty_night(self, host, client):
        table = make_table()
        html = client.get(tonight_url(table)).content.decode()
        assert "No match was filed this night." in html
        assert "night-text" not in html

    def test_a_missing_table_is_404(self, host, client):
        assert client.get(reverse("matches:tonight", args=[999])).status_code == 404
        assert client.get(reverse("matches:tonight_png", args=[999])).status_code == 404

    def test_reachable_from_the_table_page_and_offered_on_closing(self, night, host_client):
        html = host_client.get(reverse("matches:table", args=[night.pk])).content.decode()
        assert f'<a href="{tonight_url(night)}">Tonight</a>' in html
        close(night)
        html = host_client.get(reverse("matches:table", args=[night.pk])).content.decode()
        assert f'href="{tonight_url(night)}">Read the night’s story</a>' in html

    def test_the_tv_tells_the_story_once_closed(self, night, client):
        tv = reverse("matches:tv", args=[night.pk])
        assert "Champion of the night" not in client.get(tv).content.decode()
        close(night)
        html = client.get(tv).content.decode()
        assert "Champion of the night: <bdi>Dev</bdi>, with 8 points." in html

    def test_a_fixed_number_of_queries_and_then_none(self, host, django_assert_num_queries):
        table = make_table(players=[f"P{n}" for n in range(8)])
        for _ in range(5):
            play(table, [f"P{n}" for n in range(7)])
        # The table row, then the night's seats and their rating changes (read again to
        # check the table did not move meanwhile: the snapshot's row).
        with django_assert_num_queries(4):
            assert FormClient().get(tonight_url(table)).status_code == 200
        with django_assert_num_queries(1):  # kept: only the table's row
            assert FormClient().get(tonight_url(table)).status_code == 200

    def test_a_filing_elsewhere_moves_the_tag_as_ratings_may_change(self, night, client):
        """The story tells ratings, which the league's replay may rewrite without a write on
        this table: the page, the card and a closed table's TV name the league's version."""
        close(night)
        urls = [tonight_url(night), card_url(night), reverse("matches:tv", args=[night.pk])]
        tags = [client.get(url)["ETag"] for url in urls]
        other = make_table(name="Back room")
        play(other, ["Ben", "Alice", "Cara"])
        assert all(client.get(url)["ETag"] != tag for url, tag in zip(urls, tags, strict=True))

    def test_answers_304_until_the_table_moves(self, night, client):
        first = client.get(tonight_url(night))
        again = client.get(tonight_url(night), HTTP_IF_NONE_MATCH=first["ETag"])
        assert again.status_code == 304
        tap(night, "Ben")
        moved = client.get(tonight_url(night), HTTP_IF_NONE_MATCH=first["ETag"])
        assert moved.status_code == 200


def _png(response):
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response.content.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(response.content))
    image.verify()
    return image


class TestShareCard:
    def test_a_1080_square_png(self, night, client):
        assert _png(client.get(card_url(night))).size == (1080, 1080)

    @pytest.mark.parametrize("language", ["en", "pt"])
    def test_ten_long_names_stay_on_the_card(self, host, client, language):
        table = make_table(players=TEN_LONG_NAMES)
        for _ in range(3):
            play(table, TEN_LONG_NAMES[:9])
        response = client.get(card_url(table), HTTP_ACCEPT_LANGUAGE=language)
        assert _png(response).size == (1080, 1080)
        night = story.night_story(table=table)
        with translation.override(language):
            placed = share_card.layout(night)
        for line in placed:
            assert line.x >= share_card.MARGIN, line
            assert line.x + line.width <= share_card.RIGHT, line
            assert line.width == share_card.text_width(line.text, line.size, line.bold)
            assert line.y >= 0 and line.y + line.height <= share_card.SIZE, line
        texts = [line.text for line in placed]
        # Every player has a row; the longest names were cut to fit, accents kept.
        assert sum(1 for t in texts if t.endswith("…")) >= 1
        assert any(t.startswith("Maria da Conceição") for t in texts)
        champion = "Champion of the night:" if language == "en" else "Melhor da noite:"
        assert any(t.startswith(champion) for t in texts)
        # Ten rows, one name each, in order and above the sentences at the foot.
        names = [line for line in placed if line.x == share_card.MARGIN and 414 <= line.y < 900]
        assert len(names) == 10
        assert [line.y for line in names] == sorted({line.y for line in names})
        assert names[-1].y + names[-1].height <= 900

    def test_the_card_is_drawn_once_per_state(self, night, client, django_assert_num_queries):
        first = client.get(card_url(night))
        with django_assert_num_queries(1):  # the table row; the PNG is kept
            again = FormClient().get(card_url(night))
        assert again.content == first.content
        assert client.get(card_url(night), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
        assert "public" in first["Cache-Control"]

    def test_the_language_changes_the_card(self, night, client):
        english = client.get(card_url(night), HTTP_ACCEPT_LANGUAGE="en")
        portuguese = client.get(card_url(night), HTTP_ACCEPT_LANGUAGE="pt")
        assert english["ETag"] != portuguese["ETag"]
        assert english.content != portuguese.content


def _crowned(html: str) -> dict[str, list[str]]:
    """Who each panel of a page crowns: the story's lines and the Tonight panel's rows."""
    story_html = html.split('class="night-story"', 1)[1].split("</section>", 1)[0]
    tonight_html = html.split('class="tonight"', 1)[1].split("</section>", 1)[0]
    return {
        "story": re.findall(r'<tr class="leader"><th scope="row">([^<]+)</th>', story_html),
        "tonight": re.findall(
            r'<tr class="leader"><th scope="row"><span class="crown" aria-hidden="true">♛</span> '
            r"([^<]+)</th>",
            tonight_html,
        ),
    }


@pytest.fixture
def level_on_points(host):
    """Alice and Cara level on 4 points; Alice has a win, Cara none: Alice leads."""
    table = make_table()
    play(table, ["Ben", "Alice", "Cara"], ["Dev", "Ben", "Cara"])
    return table


@pytest.fixture
def level_on_everything(host):
    """Alice and Dev level on points, wins, 2nds, 3rds and matches played: shared."""
    table = make_table()
    play(table, ["Ben", "Cara", "Alice"], ["Ben", "Cara", "Dev"])
    return table


class TestOneRuleForTheNightsLeaders:
    """The story, the TV, Tonight, the home card, the share card and the text to copy crown
    the same players: the standings' order (points, wins, 2nds, 3rds, fewer played), shared
    only when level on every step."""

    def test_a_closed_tv_crowns_one_champion_in_both_panels(self, level_on_points, client):
        close(level_on_points)
        html = client.get(reverse("matches:tv", args=[level_on_points.pk])).content.decode()
        assert (
            "Champion of the night: <bdi>Alice</bdi>, with 4 points, ahead of <bdi>Cara</bdi> "
            "on wins." in html
        )
        assert "Shared champions" not in html
        assert _crowned(html) == {"story": ["Alice"], "tonight": ["Alice"]}

    def test_a_shared_crown_is_shared_in_both_panels(self, level_on_everything, client):
        close(level_on_everything)
        html = client.get(reverse("matches:tv", args=[level_on_everything.pk])).content.decode()
        assert (
            "Shared champions of the night, level on 5 points: <bdi>Alice</bdi> and "
            "<bdi>Dev</bdi>." in html
        )
        assert _crowned(html) == {"story": ["Alice", "Dev"], "tonight": ["Alice", "Dev"]}

    def test_the_text_to_copy_numbers_a_shared_place_once(self, level_on_everything, client):
        html = client.get(tonight_url(level_on_everything)).content.decode()
        text = re.search(r'<textarea id="night-text"[^>]*>(.*?)</textarea>', html, re.S)[1]
        numbered = [
            line.split(":")[0] for line in text.splitlines() if line and line[0] in "=0123456789"
        ]
        assert numbered == ["=1. Alice", "=1. Dev", "3. Cara", "4. Ben"]

    def test_the_text_to_copy_names_the_tie_break(self, level_on_points, client):
        html = client.get(tonight_url(level_on_points), HTTP_ACCEPT_LANGUAGE="pt").content.decode()
        text = re.search(r'<textarea id="night-text"[^>]*>(.*?)</textarea>', html, re.S)[1]
        lines = text.splitlines()
        assert lines[1] == "Melhor da noite: Alice, com 4 pontos, à frente de Cara em vitórias."
        assert [line.split(":")[0] for line in lines[3:7]] == [
            "1. Alice", "2. Cara", "3. Dev", "4. Ben",
        ]  # fmt: skip

    def test_the_share_card_golds_the_same_champion(self, level_on_points):
        placed = share_card.layout(story.night_story(table=level_on_points))
        gold = {line.text for line in placed if line.fill == share_card.GOLD and line.size < 44}
        names = {"Alice", "Ben", "Cara", "Dev"}
        assert gold & names == {"Alice"}

    def test_the_home_card_crowns_as_tonight_does(
        self, level_on_points, level_on_everything, client
    ):
        html = client.get(reverse("matches:home")).content.decode()
        leaders = re.findall(r'<span class="leader">.*?<span class="name">([^<]+)</span>', html)
        # Newest table first: level on everything (two leaders), then level on points (one).
        assert leaders == ["Alice", "Dev", "Alice"]
        assert html.count("Tonight’s leaders") == 1
