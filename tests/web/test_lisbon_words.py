"""Portuguese as Lisbon writes it (issue 38): matches are "terminadas", not "arquivadas";
the rating is "rating", not a share price; merges are "fusões"; seats are drawn
("sorteados"); card letters are R, D, V everywhere; quotation marks are «»."""

import datetime
import re
import struct
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from matches.models import Season
from matches.results.players.services import player_merge
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


MO = Path(__file__).resolve().parents[2] / "locale" / "pt" / "LC_MESSAGES" / "django.mo"

# What a Lisbon reader stumbled on; none of it may be left anywhere.
OLD = [
    "arquivad",
    "Arquivad",
    "Cotação",
    "cotação",
    "Junç",
    "junç",
    "Baralhar",
    "baralhados",
    "Partilham a frente",
    "em igualdade em tudo",
    "Dá as cartas",
    "até três dois",
    "“",
    "”",
]


def compiled_translations() -> list[str]:
    """Every translation in the compiled catalogue (the .mo the server reads), each plural
    form apart."""
    data = MO.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic == 0x950412DE else ">"
    count, _originals, translations = struct.unpack(order + "III", data[8:20])
    texts = []
    for index in range(count):
        length, offset = struct.unpack(order + "II", data[translations + 8 * index :][:8])
        texts.extend(data[offset : offset + length].decode().split("\x00"))
    return texts


@pytest.mark.parametrize("old", OLD)
def test_the_compiled_catalogue_has_none_of_the_old_words(old):
    found = [text for text in compiled_translations() if old in text]
    assert found == []


def test_the_compiled_catalogue_has_the_new_words():
    texts = compiled_translations()
    for new in [
        "Partidas terminadas",
        "terminada a %(when)s",
        "Terminada em",
        "Variação do rating",
        "Fusões",
        "Fundir outro registo com %(name)s",
        "A %(day)s, %(by)s fundiu «%(other)s» neste registo.",
        "A fusão foi anulada: «%(other)s» volta a ser um registo próprio, separado de %(name)s.",
        "Sortear os lugares",
        "Lugares sorteados.",
        "empatado em tudo com %(names)s",
        "Fechar a mesa %(name)s por esta noite?",
        "Começa a dar: %(name)s",
        "Uma delas foi uma vitória.",
    ]:
        assert new in texts, new


@pytest.fixture
def league(host):
    """Ann and Bob level on everything (a win and a 2nd each) at a ranked table, in a
    season under way."""
    today = timezone.localdate()
    Season.objects.create(
        name="Inverno",
        first_day=today - datetime.timedelta(days=3),
        last_day=today + datetime.timedelta(days=3),
    )
    table = make_table(host=host, players=["Ann", "Bob", "Cy"])
    for name in ["Cy", "Bob", "Cy", "Ann"]:
        tap(table, name)
    return table


def pages(client, urls):
    client.cookies["django_language"] = "pt"
    html = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        html[url] = response.content.decode()
    return html


def test_the_pages_read_as_lisbon_writes(host_client, league, host):
    ann = league.matches.get(number=1).winner
    table_page = reverse("matches:table", args=[league.pk])
    standings = reverse("matches:standings")
    seasons = reverse("matches:seasons")
    player = reverse("matches:player", args=[ann.pk])
    matches = reverse("matches:matches", args=[league.pk])
    match = reverse("matches:match", args=[league.pk, 1])
    close = reverse("matches:close", args=[league.pk])
    new_table = reverse("matches:table_new")
    rules = reverse("matches:rules")
    showdown = reverse("matches:showdown")
    merge = reverse("matches:player_merge", args=[ann.pk])
    correct = reverse("matches:match_correct", args=[league.pk, 1])
    verdict = f"{showdown}?hand_1=QS+QC+7D&hand_2=JS+JH+AD"
    html = pages(
        host_client,
        [table_page, standings, seasons, player, matches, match, close, new_table, rules,
         showdown, verdict, merge, correct],
    )  # fmt: skip

    assert re.search(r"Começa a dar: <strong><bdi>\w+</bdi></strong>", html[table_page])
    assert "Partidas terminadas" in html[table_page]
    assert '<th scope="col">Rating</th>' in html[standings]
    assert re.search(r"empatad[oa] em tudo com (Ann|Bob)", html[standings])
    assert re.search(r"Empatados na liderança, por agora:\s*<strong>", html[seasons])
    assert re.search(r"Ann</a></strong> e <strong><a [^>]+>Bob</a></strong>", html[seasons])
    assert "Fundir outro registo com Ann" in html[player]
    assert "<dt>Rating</dt>" in html[player]
    assert "Uma delas foi uma vitória." in html[player]
    assert "Terminada em" in html[matches]
    assert re.search(r"terminada a \d+ de \w+ de \d{4}", html[match])
    assert "Fechar a mesa <bdi>Front bar</bdi> por esta noite?" in html[close]
    assert "As partidas terminadas mantêm-se." in html[close]
    assert "Não se abre mais nenhuma partida até reabrir a mesa" in html[close]
    assert "Sortear os lugares" in html[new_table]
    assert 'data-shuffled="Lugares sorteados."' in html[new_table]
    assert "até três duques" in html[rules]
    assert "A-R-D, R-D-V, até 4-3-2. R-A-2 não é sequência." in html[rules]
    assert "5-5-3 bate 4-4-R" in html[rules]
    assert '<span class="card card-red">R♥</span>' in html[rules]
    assert '<span class="card">D♠</span>' in html[rules]
    assert '<span class="card card-red">V♦</span>' in html[rules]
    assert re.search(r'data-card="KS" data-label="R♠">R♠</button>', html[showdown])
    assert re.search(r'data-card="QH" data-label="D♥">D♥</button>', html[showdown])
    assert re.search(r'data-card="JC" data-label="V♣">V♣</button>', html[showdown])
    assert '<span class="card">D♠</span>' in html[verdict]
    assert '<span class="card card-red">V♥</span>' in html[verdict]
    assert "D♠ D♣ 7♦ vale mais do que A♦ V♠ V♥" in html[verdict]
    for page in (html[showdown], html[rules], html[verdict]):
        assert not re.search(r"[>\s][KQJ][♠♥♦♣]", page)
    assert "verá os dois registos" in html[merge]
    assert "a classificação e o rating são recalculados" in html[correct]

    # A merge and its page, done last: it moves Bob's results into Ann's record.
    other = make_table(host=host, players=["Zoe", "Dan", "Eve"], name="Snug")
    tap(other, "Dan")
    tap(other, "Eve")
    player_merge(keep_id=ann.pk, other_name="Zoe", by=host)
    merges = reverse("matches:player_merges")
    after = pages(host_client, [merges, player])
    assert "Fusões" in after[merges]
    assert "fundiu «Zoe» neste registo" in after[merges]
    assert "fundiu «Zoe» neste registo" in after[player]

    for url, page in {**html, **after}.items():
        for old in OLD:
            assert old not in page, (url, old)
