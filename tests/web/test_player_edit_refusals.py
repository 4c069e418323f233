"""Hosts' player pages (merges, public names, erasure, corrections) given hostile callers
and input: a clear refusal, nothing saved, never a 500 and never a name leaked."""

import datetime
from unittest import mock

import pytest
from django.urls import reverse

from matches.models import MatchCorrection, Player, PlayerMerge, Season
from matches.results import public_names
from matches.results.players import services as player_records
from matches.rules.nights import night_of
from tests.clients import FormClient
from tests.factories import body, make_host, make_table, pid, written

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


HUGE_IDS = [str(2**63), str(2**64), str(2**63 - 1), "99999999999999999999999999999"]


def host_write_urls(table) -> list[str]:
    alice = pid("Alice")
    merge = player_records.player_merge(keep_id=pid("Ben"), other_name="Zed", by=table.created_by)
    urls = [
        reverse("matches:player_merge", args=[alice]),
        reverse("matches:player_public_name", args=[alice]),
        reverse("matches:player_erase", args=[alice]),
        reverse("matches:match_correct", args=[table.pk, 1]),
        reverse("matches:player_merges"),
        reverse("matches:players"),
        reverse("matches:api_player_search") + "?q=ali",
    ]
    urls.append(reverse("matches:player_merge_undo", args=[merge.pk]))
    return urls


class TestOutsidersAreRefused:
    """Anonymous callers, and hosts who are not admins, reach no host or admin action."""

    def test_anonymous_get_and_post_change_nothing(self, table, client):
        make_table(players=["Zed", "Yan", "Xi"], name="Other")
        urls = host_write_urls(table)
        before = written(), PlayerMerge.objects.count()
        for url in urls:
            for method in (client.get, client.post):
                response = method(url, {"other": "Ben", "confirm": "1", "public_name": "X"})
                assert response.status_code in (302, 405), url
                if response.status_code == 302:
                    assert response["Location"].startswith(reverse("login")), url
        assert (written(), PlayerMerge.objects.count()) == before
        assert not Player.objects.exclude(public_name="").exists()

    def test_the_search_json_never_names_a_player_to_the_public(self, table, client):
        response = client.get(reverse("matches:api_player_search"), {"q": "a"})
        assert response.status_code == 302 and "Alice" not in body(response)
        response = client.get(reverse("matches:api_player_search"), {"q": "a"}, HTTP_HX_REQUEST="1")
        assert "Alice" not in body(response)

    def test_a_venue_host_cannot_erase(self, table, client):
        client.force_login(make_host("venue_host"))
        url = reverse("matches:player_erase", args=[pid("Alice")])
        before = written()
        for method in (client.get, client.post):
            response = method(url)
            assert response.status_code == 403
            assert "Only the league’s organiser may rename, merge, name in public or erase" in (
                body(response)
            )
        assert written() == before
        assert Player.objects.get(pk=pid("Alice")).erased_at is None

    def test_posts_without_the_csrf_token_are_refused(self, table, csrf_client):
        make_table(players=["Zed", "Yan", "Xi"], name="Other")
        merge = player_records.player_merge(
            keep_id=pid("Ben"), other_name="Zed", by=table.created_by
        )
        before = written(), list(PlayerMerge.objects.values_list("undone_at", flat=True))
        posts = [
            (reverse("matches:player_merge", args=[pid("Alice")]), {"other": "Yan"}),
            (reverse("matches:player_public_name", args=[pid("Alice")]), {"hidden": "on"}),
            (reverse("matches:player_merge_undo", args=[merge.pk]), {}),
            (reverse("matches:match_correct", args=[table.pk, 1]),
             {"players": "Ben\nAlice\nCara\nDev"}),
        ]  # fmt: skip
        for url, data in posts:
            assert csrf_client.post(url, data).status_code == 403, url
        assert (written(), list(PlayerMerge.objects.values_list("undone_at", flat=True))) == before
        assert not Player.objects.filter(hidden=True).exists()


class TestIdsOutOfRange:
    @pytest.mark.parametrize("raw", [*HUGE_IDS, "-1", "abc", "1e3", "0x10", "１"])
    def test_every_new_url_with_an_id_is_a_404(self, table, host_client, admin_client, client, raw):
        paths = [
            f"/players/{raw}/merge/",
            f"/players/merges/{raw}/undo/",
            f"/players/{raw}/public-name/",
            f"/players/{raw}/erase/",
            f"/players/{raw}/",
            f"/tables/{raw}/matches/1/correct/",
            f"/tables/{table.pk}/matches/{raw}/correct/",
            f"/tables/{raw}/tonight/",
            f"/tables/{raw}/tonight.png",
        ]
        for path in paths:
            for c in (host_client, admin_client):
                # The undo takes POST only: a GET of an id in range is a 405.
                assert c.get(path).status_code in ((404, 405) if "undo" in path else (404,)), path
                assert c.post(path, {}).status_code in (404, 405), path
            assert client.get(path).status_code in (302, 404), path

    @pytest.mark.parametrize("other_id", [str(2**63), str(2**64), "-5", "0", "x", ""])
    def test_a_forged_confirmation_id_is_refused(self, table, host_client, other_id):
        before = written()
        url = reverse("matches:player_merge", args=[pid("Alice")])
        make_table(players=["Zed", "Yan", "Xi"], name="Other")
        before = written()
        response = host_client.post(url, {"other": "Zed", "other_id": other_id, "confirm": "1"})
        assert response.status_code == 400
        assert "nothing was changed" in body(response)
        assert written() == before and not PlayerMerge.objects.exists()

    def test_a_confirmation_naming_another_record_s_id_is_refused(self, table, host_client):
        make_table(players=["Zed", "Yan", "Xi"], name="Other")
        before = written()
        url = reverse("matches:player_merge", args=[pid("Alice")])
        response = host_client.post(url, {"other": "Zed", "other_id": pid("Yan"), "confirm": "1"})
        assert response.status_code == 400 and "not the record you confirmed" in body(response)
        assert written() == before and not PlayerMerge.objects.exists()


BAD_NAMES = [
    "A" * 61,
    "A" * 10_000,
    "Zo\u200bë",  # zero-width space
    "\u202eecilA",  # right-to-left override
    "Ali\u2066ce",  # isolate
    "Ali\x00ce",
    "Ali\x07ce",
    "\ufeffAlice",
]


class TestHostileText:
    @pytest.mark.parametrize("name", BAD_NAMES)
    def test_a_bad_public_name_is_refused_and_nothing_changes(self, table, host_client, name):
        before = written()
        url = reverse("matches:player_public_name", args=[pid("Alice")])
        response = host_client.post(url, {"public_name": name})
        assert response.status_code == 400
        assert written() == before
        assert Player.objects.get(pk=pid("Alice")).public_name == ""

    @pytest.mark.parametrize("name", BAD_NAMES)
    def test_a_bad_name_to_merge_is_refused(self, table, host_client, name):
        before = written()
        url = reverse("matches:player_merge", args=[pid("Alice")])
        for data in ({"other": name}, {"other": name, "other_id": pid("Ben"), "confirm": "1"}):
            response = host_client.post(url, data)
            assert response.status_code == 400
        assert written() == before and not PlayerMerge.objects.exists()

    @pytest.mark.parametrize("query", [*BAD_NAMES, "%", "_", "'; drop table x; --", "\\"])
    def test_search_and_the_players_page_take_any_query(self, table, host_client, query):
        response = host_client.get(reverse("matches:api_player_search"), {"q": query})
        assert response.status_code == 200
        assert isinstance(response.json()["players"], list)
        response = host_client.get(reverse("matches:players"), {"q": query, "page": "99999999"})
        assert response.status_code == 200

    @pytest.mark.parametrize("page", ["-1", "0", "abc", str(2**64), "1" * 5000])
    def test_any_page_number_shows_a_page(self, table, host_client, page):
        for name in ("matches:players", "matches:player_merges"):
            assert host_client.get(reverse(name), {"page": page}).status_code == 200

    @pytest.mark.parametrize("name", BAD_NAMES)
    def test_a_bad_name_in_a_correction_is_refused(self, table, host_client, name):
        before = written()
        url = reverse("matches:match_correct", args=[table.pk, 1])
        response = host_client.post(url, {"players": f"{name}\nBen\nCara\nDev"})
        assert response.status_code == 200
        text = body(response)
        assert any(
            said in text
            for said in ("List exactly the players", "Null characters are not allowed", "at most")
        )
        assert written() == before and not MatchCorrection.objects.exists()

    def test_a_public_name_cannot_pose_as_another_player(self, table, host_client):
        """A public name that reads as another player's placeholder ("Player 7" for a
        hidden player, "Former player 7") would let the public take one for the other."""
        ben = pid("Ben")
        public_names.player_set_public_name(
            player_id=ben, public_name="", hidden=True, by=table.created_by
        )
        for pose in (f"Player {ben}", f"Former player {ben}"):
            url = reverse("matches:player_public_name", args=[pid("Alice")])
            response = host_client.post(url, {"public_name": pose})
            assert response.status_code == 400, pose
            assert Player.objects.get(pk=pid("Alice")).public_name == ""


class TestPublicNamesPosingAsRecords:
    @pytest.mark.parametrize(
        "pose", ["Player 2", "player  2", "PLAYER 17", "Former player 3", "Participante 4",
                 "Antigo participante 5", "Plàyer 2"],
    )  # fmt: skip
    def test_a_public_name_reading_as_a_hidden_or_erased_record_is_refused(
        self, table, host_client, pose
    ):
        url = reverse("matches:player_public_name", args=[pid("Alice")])
        response = host_client.post(url, {"public_name": pose})
        assert response.status_code == 400
        assert "reads as the public reads a hidden or erased player" in body(response)
        assert Player.objects.get(pk=pid("Alice")).public_name == ""

    @pytest.mark.parametrize("fine", ["Player One", "Player 2B", "Team 2", "2"])
    def test_other_names_with_numbers_are_fine(self, table, host_client, fine):
        url = reverse("matches:player_public_name", args=[pid("Alice")])
        assert host_client.post(url, {"public_name": fine}).status_code == 302
        assert Player.objects.get(pk=pid("Alice")).public_name == fine


class TestNewNamesPosingAsRecords:
    """A new player typed "Former player 3" would read, to everyone, as the erased record
    3. ("Player 5" stays a name a host may type for a stranger.)"""

    def test_launching_with_a_record_s_placeholder_is_refused(
        self, table, host_client, admin_client
    ):
        alice, ben = pid("Alice"), pid("Ben")
        admin_client.post(reverse("matches:player_erase", args=[alice]))
        public_names.player_set_public_name(
            player_id=ben, public_name="", hidden=True, by=table.created_by
        )
        for pose in (
            f"Former player {alice}",
            f"former  PLAYER {ben}",
            f"Antigo participante {ben}",
        ):
            before = written()
            response = host_client.post(
                reverse("matches:table_new"),
                {"name": "Snug", "mode": "ranked", "players": f"{pose}\nEve\nFay"},
            )
            assert response.status_code in (200, 400), pose
            assert "reads as an erased player’s record" in body(response), pose
            assert written() == before, pose

    def test_renaming_to_a_placeholder_is_refused(self, table, host_client):
        url = reverse("matches:player_rename", args=[pid("Cara")])
        response = host_client.post(url, {"name": f"Former player {pid('Dev')}"})
        assert response.status_code == 400
        assert "reads as an erased player’s record" in body(response)
        assert Player.objects.filter(name="Cara").exists()

    def test_a_stranger_typed_as_player_n_is_still_seated(self, host):
        table = make_table(host=host, players=["Player 1", "Player 100", "Fay"])
        assert table.matches.get().seats.filter(player__name="Player 100").exists()


class TestMoreLeaks:
    def test_a_best_nights_season_never_names_a_hidden_player(self, table, client, host):
        today = night_of()
        season = Season.objects.create(
            name="Winter",
            first_day=today - datetime.timedelta(days=5),
            last_day=today + datetime.timedelta(days=5),
            best_nights=1,
            min_nights=1,
        )
        public_names.player_set_public_name(
            player_id=pid("Dev"), public_name="", hidden=True, by=host
        )
        for url in (
            reverse("matches:standings"),
            reverse("matches:api_standings"),
            reverse("matches:standings_csv"),
            reverse("matches:seasons"),
        ):
            response = client.get(url, {"season": season.pk})
            assert response.status_code == 200, url
            text = body(response)
            assert "Dev" not in text, url
            if "seasons" not in url:
                assert f"Player {pid('Dev')}" in text, url

    def test_the_error_page_is_ours_and_says_nothing_was_lost(self, table, host):
        client = FormClient(raise_request_exception=False)
        with mock.patch("matches.play.story.night_story", side_effect=RuntimeError("boom")):
            response = client.get(reverse("matches:tonight", args=[table.pk]))
        assert response.status_code == 500
        assert "Something went wrong" in body(response) and "boom" not in body(response)

    def test_an_erased_player_s_public_name_cannot_be_set_again(self, table, admin_client):
        alice = pid("Alice")
        admin_client.post(reverse("matches:player_erase", args=[alice]))
        before = written()
        url = reverse("matches:player_public_name", args=[alice])
        response = admin_client.post(url, {"public_name": "Alice", "hidden": "on"}, follow=True)
        assert response.status_code == 200 and "This player was erased" in body(response)
        assert written() == before
        erased = Player.objects.get(pk=alice)
        assert (erased.public_name, erased.hidden) == ("", False)
