"""Names safe in public: the public name, hiding a player, and an admin's
erasure, on every page, JSON and CSV, with the caches that keep them."""

import datetime
import unicodedata
from io import StringIO

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.forms.models import model_to_dict
from django.urls import reverse

from matches.core.errors import Refusal, RuleError
from matches.integrity import integrity_problems
from matches.models import MatchCorrection, Player, Season
from matches.play import corrections
from matches.play.selectors import last_seating
from matches.results import public_names
from matches.results.players import services as player_records
from matches.results.players.selectors import names_in_doubt
from matches.rules.names import redact
from matches.rules.nights import night_of
from tests.clients import FormClient
from tests.factories import make_host, make_table, tap


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


ZOE = "Zoë Marques"
PLAYERS = [ZOE, "Ben", "Cara", "Dev"]


def fold(text: str) -> str:
    """Text with case, width and accents set aside, to search for any variant of a name."""
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@pytest.fixture
def league(host):
    """Match 1 filed (Zoë 1st, Ben 2nd, Cara 3rd, Dev 4th), match 2 open with Dev out, a
    season covering tonight, and a second table named after Zoë."""
    table = make_table(players=PLAYERS)
    for name in ["Dev", "Cara", "Ben"]:
        tap(table, name)
    tap(table, "Dev")
    today = night_of()
    Season.objects.create(
        name="Winter",
        first_day=today - datetime.timedelta(days=10),
        last_day=today + datetime.timedelta(days=10),
    )
    other = make_table(players=[ZOE, "Ben", "Eve"], name="Zoë Marques birthday")
    zoe = Player.objects.get(name=ZOE)
    return {"table": table, "other": other, "zoe": zoe}


@pytest.fixture
def admin_client(db):
    boss = get_user_model().objects.create_superuser(username="boss", password="a-long-password-1")
    client = FormClient()
    client.force_login(boss)
    return client


def surfaces(league) -> list[tuple[str, dict]]:
    """Every page, JSON and CSV that names players, with the headers to ask for it."""
    table, other, zoe = league["table"], league["other"], league["zoe"]
    ben = Player.objects.get(name="Ben")
    htmx = {"HTTP_HX_REQUEST": "true"}
    urls = []
    for t in (table, other):
        urls += [
            (reverse("matches:table", args=[t.pk]), {}),
            (reverse("matches:table", args=[t.pk]), htmx),
            (reverse("matches:tv", args=[t.pk]), {}),
            (reverse("matches:tv", args=[t.pk]), htmx),
            (reverse("matches:matches", args=[t.pk]), {}),
            (reverse("matches:table_standings", args=[t.pk]), {}),
            (reverse("matches:table_results_csv", args=[t.pk]), {}),
            (reverse("matches:api_table", args=[t.pk]), {}),
            (reverse("matches:api_table_matches", args=[t.pk]), {}),
            (reverse("matches:showdown") + f"?table={t.pk}", {}),
            (reverse("matches:tonight", args=[t.pk]), {}),
        ]
    urls += [
        (reverse("matches:match", args=[table.pk, 1]), {}),
        (reverse("matches:match", args=[table.pk, 2]), {}),
        (reverse("matches:home"), {}),
        (reverse("matches:standings"), {}),
        (reverse("matches:standings") + "?mode=ranked", {}),
        (reverse("matches:standings_csv"), {}),
        (reverse("matches:results_csv"), {}),
        (reverse("matches:api_standings"), {}),
        (reverse("matches:api_ratings"), {}),
        (reverse("matches:seasons"), {}),
        (reverse("matches:player", args=[zoe.pk]), {}),
        (reverse("matches:player", args=[ben.pk]), {}),
        (reverse("matches:api_player", args=[zoe.pk]), {}),
        (reverse("matches:api_player", args=[ben.pk]), {}),
    ]
    return urls


def fetch_all(client, league, **headers) -> dict[str, str]:
    bodies = {}
    for url, extra in surfaces(league):
        response = client.get(url, **extra, **headers)
        assert response.status_code == 200, url
        content = b"".join(response.streaming_content) if response.streaming else response.content
        bodies[url + (" (htmx)" if extra else "")] = content.decode()
    return bodies


def without_table_name(body: str, league) -> str:
    """The folded body without the second table's name (a table's name is not a player's:
    only an erasure takes the player's name out of it)."""
    return fold(body).replace(fold(league["other"].name), "")


def set_public(client, player, public_name="", hidden=False):
    url = reverse("matches:player_public_name", args=[player.pk])
    data = {"public_name": public_name}
    if hidden:
        data["hidden"] = "on"
    return client.post(url, data)


def correct(league) -> None:
    """Match 1 corrected: Cara went out first, then Dev."""
    corrections.match_correct(
        table_id=league["table"].pk,
        number=1,
        names=["Cara", "Dev", "Ben", ZOE],
        by=league["table"].created_by,
        confirmed=True,
    )


def standings_names(client) -> list[str]:
    return [row["player"] for row in client.get(reverse("matches:api_standings")).json()["rows"]]


class TestContracts:
    def test_api_player_shows_the_public_name_to_anonymous_callers(
        self, league, client, host_client
    ):
        zoe = league["zoe"]
        set_public(host_client, zoe, "Zoë M.")
        url = reverse("matches:api_player", args=[zoe.pk])
        assert client.get(url).json()["player"] == "Zoë M."
        assert host_client.get(url).json()["player"] == ZOE
        ben = Player.objects.get(name="Ben")
        rivals = client.get(reverse("matches:api_player", args=[ben.pk])).json()["head_to_head"]
        assert "Zoë M." in [rival["opponent"] for rival in rivals]

    def test_api_standings_shows_the_public_name_to_anonymous_callers(
        self, league, client, host_client
    ):
        set_public(host_client, league["zoe"], "Zoë M.")
        assert standings_names(client) == ["Zoë M.", "Ben", "Cara", "Dev"]
        assert standings_names(host_client) == [ZOE, "Ben", "Cara", "Dev"]


class TestPublicName:
    def test_every_anonymous_surface_shows_the_public_name_and_hosts_the_real_one(
        self, league, client, host_client
    ):
        response = set_public(host_client, league["zoe"], "Zoë M.")
        assert response.status_code == 302
        for url, body in fetch_all(client, league).items():
            assert "marques" not in without_table_name(body, league), url
        public = fetch_all(client, league)
        for url in [
            reverse("matches:table", args=[league["table"].pk]),
            reverse("matches:tv", args=[league["table"].pk]),
            reverse("matches:standings_csv"),
            reverse("matches:results_csv"),
            reverse("matches:table_results_csv", args=[league["table"].pk]),
            reverse("matches:api_table", args=[league["table"].pk]),
            reverse("matches:seasons"),
            reverse("matches:match", args=[league["table"].pk, 1]),
            reverse("matches:tonight", args=[league["table"].pk]),
        ]:
            assert "Zoë M." in public[url], url
        hosts = fetch_all(host_client, league)
        for url in [
            reverse("matches:table", args=[league["table"].pk]),
            reverse("matches:standings"),
            reverse("matches:standings_csv"),
            reverse("matches:results_csv"),
            reverse("matches:table_results_csv", args=[league["table"].pk]),
            reverse("matches:api_table", args=[league["table"].pk]),
            reverse("matches:api_ratings"),
            reverse("matches:seasons"),
            reverse("matches:match", args=[league["table"].pk, 1]),
            reverse("matches:player", args=[league["zoe"].pk]),
        ]:
            assert ZOE in hosts[url], url
        # The TV is the pub's screen: the public's names, even in a host's browser.
        assert ZOE not in hosts[reverse("matches:tv", args=[league["table"].pk])]

    def test_a_hidden_player_reads_player_and_their_id_to_the_public(
        self, league, client, host_client
    ):
        zoe = league["zoe"]
        set_public(host_client, zoe, "Zoë M.", hidden=True)
        bodies = fetch_all(client, league)
        for url, body in bodies.items():
            assert "zoe" not in without_table_name(body, league), url
        assert f"Player {zoe.pk}" in bodies[reverse("matches:standings")]
        assert f"Player {zoe.pk}" in bodies[reverse("matches:table", args=[league["table"].pk])]
        assert client.get(reverse("matches:api_player", args=[zoe.pk])).json()["player"] == (
            f"Player {zoe.pk}"
        )
        assert f"Player {zoe.pk}" in standings_names(client)
        assert ZOE in standings_names(host_client)
        page = host_client.get(reverse("matches:table", args=[league["table"].pk]))
        assert ZOE in page.content.decode()

    def test_portuguese_readers_see_a_hidden_player_as_participante(
        self, league, client, host_client
    ):
        zoe = league["zoe"]
        set_public(host_client, zoe, hidden=True)
        html = client.get(reverse("matches:standings"), HTTP_ACCEPT_LANGUAGE="pt").content
        assert f"Participante {zoe.pk}" in html.decode()
        # The JSON and the CSV are the same in every language.
        rows = client.get(reverse("matches:api_standings"), HTTP_ACCEPT_LANGUAGE="pt").json()
        assert f"Player {zoe.pk}" in [row["player"] for row in rows["rows"]]

    def test_the_name_is_shown_again_when_the_public_name_is_cleared(
        self, league, client, host_client
    ):
        set_public(host_client, league["zoe"], "Zoë M.", hidden=True)
        set_public(host_client, league["zoe"], "")
        assert ZOE in standings_names(client)
        assert Player.objects.get(pk=league["zoe"].pk).public_name == ""

    def test_a_corrections_orders_read_as_each_viewer_reads_the_players(
        self, league, client, host_client
    ):
        correct(league)
        set_public(host_client, league["zoe"], "Zoë M.")
        url = reverse("matches:match", args=[league["table"].pk, 1])
        public = client.get(url).content.decode()
        assert "<bdi>Dev</bdi>, <bdi>Cara</bdi>, <bdi>Ben</bdi>, <bdi>Zoë M.</bdi>" in public
        assert ZOE not in public
        assert f"<bdi>Ben</bdi>, <bdi>{ZOE}</bdi>" in host_client.get(url).content.decode()

    @pytest.mark.parametrize(
        ("typed", "message"),
        [
            ("Zo\u200bë", "invisible"),
            ("x" * 41, "at most 40 characters"),
            ("ben", "another player’s name"),
        ],
    )
    def test_a_bad_public_name_is_refused_and_nothing_changes(
        self, league, client, host_client, typed, message
    ):
        before = client.get(reverse("matches:api_standings"))
        response = set_public(host_client, league["zoe"], typed, hidden=True)
        assert response.status_code == 400
        assert message in response.content.decode()
        zoe = Player.objects.get(pk=league["zoe"].pk)
        assert (zoe.public_name, zoe.hidden) == ("", False)
        again = client.get(reverse("matches:api_standings"), HTTP_IF_NONE_MATCH=before["ETag"])
        assert again.status_code == 304

    def test_only_a_host_sets_a_public_name(self, league, client):
        response = set_public(client, league["zoe"], "Zoë M.")
        assert response.status_code == 302 and "/login/" in response["Location"]
        assert Player.objects.get(pk=league["zoe"].pk).public_name == ""

    def test_the_form_shows_what_the_public_reads(self, league, host_client):
        set_public(host_client, league["zoe"], "Zoë M.")
        url = reverse("matches:player_public_name", args=[league["zoe"].pk])
        html = host_client.get(url).content.decode()
        assert 'value="Zoë M."' in html and "<bdi>Zoë M.</bdi>" in html
        player = host_client.get(reverse("matches:player", args=[league["zoe"].pk]))
        assert "The public reads: <bdi>Zoë M.</bdi>" in player.content.decode()


class TestCaching:
    def test_a_cached_anonymous_page_changes_after_a_public_name_and_hiding(
        self, league, client, host_client
    ):
        table = league["table"]
        urls = [
            reverse("matches:table", args=[table.pk]),
            reverse("matches:tv", args=[table.pk]),
            reverse("matches:api_table", args=[table.pk]),
            reverse("matches:standings"),
            reverse("matches:api_standings"),
            reverse("matches:api_player", args=[league["zoe"].pk]),
            reverse("matches:player", args=[league["zoe"].pk]),
            reverse("matches:table_results_csv", args=[table.pk]),
        ]
        tags = {}
        for url in urls:  # twice: the second answer comes from what was kept
            client.get(url)
            response = client.get(url)
            assert ZOE in _shown(league, response), url
            tags[url] = response.get("ETag")
        set_public(host_client, league["zoe"], "Zoë M.")
        for url in urls:
            response = client.get(url, HTTP_IF_NONE_MATCH=tags[url] or "")
            assert response.status_code == 200, url
            body = _shown(league, response)
            assert "Zoë M." in body and ZOE not in body, url
        set_public(host_client, league["zoe"], "Zoë M.", hidden=True)
        for url in urls:
            body = _shown(league, client.get(url))
            assert f"Player {league['zoe'].pk}" in body and "Zoë" not in body, url

    def test_a_host_rendering_is_never_served_to_the_public(self, league, client, host_client):
        set_public(host_client, league["zoe"], "Zoë M.")
        table = league["table"]
        urls = [
            reverse("matches:table", args=[table.pk]),
            reverse("matches:api_table", args=[table.pk]),
            reverse("matches:api_table_matches", args=[table.pk]),
            reverse("matches:table_results_csv", args=[table.pk]),
            reverse("matches:results_csv"),
            reverse("matches:matches", args=[table.pk]),
            reverse("matches:standings"),
            reverse("matches:api_standings"),
            reverse("matches:api_ratings"),
            reverse("matches:api_player", args=[league["zoe"].pk]),
            reverse("matches:player", args=[league["zoe"].pk]),
        ]
        for url in urls:
            hosts = host_client.get(url)
            assert ZOE in _shown(league, hosts), url
            assert "public" not in hosts.get("Cache-Control", ""), url
            public = client.get(url, HTTP_IF_NONE_MATCH=hosts.get("ETag", ""))
            assert public.status_code == 200, url
            body = _shown(league, public)
            assert ZOE not in body and "Zoë M." in body, url
            assert ZOE in _shown(league, host_client.get(url)), url


def _shown(league, response) -> str:
    """The body without the second table's name (a table's name, not a player's)."""
    return _body(response).replace(league["other"].name, "")


def _body(response) -> str:
    if response.streaming:
        return b"".join(response.streaming_content).decode()
    return response.content.decode()


class TestErase:
    def test_erasure_leaves_no_trace_of_the_name_and_no_one_else_moves(
        self, league, client, host_client, admin_client
    ):
        zoe = league["zoe"]
        correct(league)  # a correction's orders name seats, read with each name as it is now
        set_public(host_client, zoe, "Zoë M.")
        # The admin's history holds the name (an earlier change made in the admin).
        LogEntry.objects.create(
            user_id=get_user_model().objects.get(username="boss").pk,
            content_type=ContentType.objects.get_for_model(Player),
            object_id=str(zoe.pk),
            object_repr=ZOE,
            action_flag=CHANGE,
            change_message=f"Renamed Zoe Marques to {ZOE}",
        )
        before = client.get(reverse("matches:api_standings")).json()["rows"]
        ratings_before = client.get(reverse("matches:api_ratings")).json()["rows"]
        fetch_all(client, league)  # everything rendered and kept once, with the name
        fetch_all(host_client, league)

        response = admin_client.post(reverse("matches:player_erase", args=[zoe.pk]))
        assert response.status_code == 302

        former = f"Former player {zoe.pk}"
        for who, viewer in [("public", client), ("host", host_client), ("admin", admin_client)]:
            for url, body in fetch_all(viewer, league).items():
                folded = fold(body)
                assert "zoe marques" not in folded and "zoe m." not in folded, (who, url)
                assert "marques" not in folded, (who, url)
        for url in [  # the host's own pages that name the players
            reverse("matches:roster", args=[league["table"].pk]),
            reverse("matches:close", args=[league["table"].pk]),
            reverse("matches:match_correct", args=[league["table"].pk, 1]),
            reverse("matches:table_new"),
            reverse("matches:player_merge", args=[zoe.pk]),
            reverse("matches:players"),
            reverse("matches:player_merges"),
        ]:
            response = host_client.get(url)
            assert response.status_code == 200, url
            assert "marques" not in fold(_body(response)), url
        assert former in _body(client.get(reverse("matches:standings")))
        assert former in _body(host_client.get(reverse("matches:table", args=[league["table"].pk])))
        after = client.get(reverse("matches:api_standings")).json()["rows"]
        assert [
            (r["player"] if r["player"] != former else "Zoë M.", r["points"]) for r in after
        ] == [(r["player"], r["points"]) for r in before]
        assert [
            {**row, "player": None}
            for row in client.get(reverse("matches:api_ratings")).json()["rows"]
        ] == [{**row, "player": None} for row in ratings_before]
        # The records the app keeps: the player's row, the admin's history, table names.
        stored = Player.objects.get(pk=zoe.pk)
        assert (stored.name, stored.public_name, stored.hidden) == (former, "", False)
        assert stored.erased_at is not None
        for entry in LogEntry.objects.all():
            assert "marques" not in fold(entry.object_repr + entry.change_message)
        for kept in MatchCorrection.objects.all():
            assert "marques" not in fold(str(model_to_dict(kept)))
        assert LogEntry.objects.filter(
            object_id=str(zoe.pk), change_message=public_names.LOGGED_ERASURE, user__username="boss"
        ).exists()
        assert "marques" not in fold(" ".join(Player.objects.values_list("name", flat=True)))
        league["other"].refresh_from_db()
        assert league["other"].name == f"{former} birthday"
        # Sound, and the name typed again is a new player, never the erased record.
        assert integrity_problems() == []
        out = StringIO()
        call_command("check_integrity", stdout=out)
        assert "Integrity check passed" in out.getvalue()
        make_table(players=[ZOE, "Ben", "Cara"], name="Later")
        assert Player.objects.get(name=ZOE).pk != zoe.pk

    def test_a_record_merged_into_the_erased_player_comes_back_erased(
        self, league, host_client, admin_client
    ):
        zoe = league["zoe"]
        make_table(players=["Zed Marques", "Ben", "Cara"], name="Back bar")
        split = Player.objects.get(name="Zed Marques")
        merge = player_records.player_merge(
            keep_id=zoe.pk, other_name="Zed Marques", by=league["table"].created_by
        )
        admin_client.post(reverse("matches:player_erase", args=[zoe.pk]))
        merge.refresh_from_db()
        assert "marques" not in fold(merge.absorbed_name + str(merge.absorbed))
        player_records.player_merge_undo(merge_id=merge.pk, by=league["table"].created_by)
        back = Player.objects.get(pk=split.pk)
        assert back.erased_at is not None and back.name == f"Former player {split.pk}"
        assert "marques" not in fold(" ".join(Player.objects.values_list("name", flat=True)))
        assert integrity_problems() == []

    def test_erasure_asks_first_and_says_backups_are_not_rewritten(self, league, admin_client):
        zoe = league["zoe"]
        url = reverse("matches:player_erase", args=[zoe.pk])
        html = admin_client.get(url).content.decode()
        assert "Backups taken before now still hold the name" in html
        assert f"Former player {zoe.pk}" in html and 'method="post"' in html
        assert Player.objects.get(pk=zoe.pk).erased_at is None
        page = admin_client.get(reverse("matches:player", args=[zoe.pk])).content.decode()
        assert url in page
        assert url in admin_client.get(reverse("matches:players")).content.decode()

    def test_erasure_reads_in_portuguese(self, league, client, admin_client):
        zoe = league["zoe"]
        admin_client.post(reverse("matches:player_erase", args=[zoe.pk]))
        html = client.get(reverse("matches:standings"), HTTP_ACCEPT_LANGUAGE="pt").content
        assert f"Antigo participante {zoe.pk}" in html.decode()

    def test_only_the_organiser_erases(self, league, client):
        zoe = league["zoe"]
        url = reverse("matches:player_erase", args=[zoe.pk])
        response = client.post(url)
        assert "/login/" in response["Location"]
        venue_host = make_host("venue_host")
        client.force_login(venue_host)
        assert client.post(url).status_code == 403
        assert client.get(url).status_code == 403
        assert url not in client.get(reverse("matches:player", args=[zoe.pk])).content.decode()
        assert url not in client.get(reverse("matches:players")).content.decode()
        assert Player.objects.get(pk=zoe.pk).name == ZOE
        with pytest.raises(RuleError, match="Only the league’s organiser") as refused:
            public_names.player_erase(player_id=zoe.pk, by=venue_host)
        assert refused.value.code == Refusal.NOT_THE_ORGANISER

    def test_an_erased_record_is_never_offered_to_seat_again(self, league, admin_client):
        zoe = league["zoe"]
        admin_client.post(reverse("matches:player_erase", args=[zoe.pk]))
        found = admin_client.get(reverse("matches:api_player_search"), {"q": "former"})
        assert found.json()["players"] == []
        assert names_in_doubt(names=[f"Former player {zoe.pk + 1}"]) == []
        assert last_seating(table=league["other"]) == ["Ben", "Eve"]


class TestRedact:
    def test_whole_words_in_any_case_width_or_accents(self):
        text = "ZOE MARQUES, zoë marques and Ｚｏｅ Marques; Zoëlla Marquesa stays"
        assert redact(text, [ZOE], "X") == "X, X and X; Zoëlla Marquesa stays"
