import datetime
import json
import re
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from matches.models import HostProfile, Match, Player, Seat, Table, Tap
from matches.play import filings as table_filings
from matches.play.messages import ROSTER_LOCKED, WRONG_TABLE
from matches.play.services import tap as tap_services
from matches.play.services.tables import table_close
from matches.play.services.undo import table_undo_last
from matches.rules import nights as night_rules
from tests.clients import FormClient
from tests.factories import make_host, make_table, open_match, places, seat_of, tap

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def table_url(table):
    return reverse("matches:table", args=[table.pk])


def tap_form(table, name, key=None):
    match = open_match(table)
    return {"match": match.pk, "player": seat_of(match, name).player_id, "key": key or uuid.uuid4()}


def counts():
    return tuple(m.objects.count() for m in (Table, Match, Seat, Tap, Player))


def button_names(html: str) -> list[str]:
    """The board's tap buttons in order; not the tap queue's <template> of a tile."""
    html = re.sub(r"<template\b.*?</template>", "", html, flags=re.S)
    return re.findall(r'<button type="submit" class="player"[^>]*>([^<]*)</button>', html)


class TestFirstHost:
    def test_every_page_leads_to_creating_the_first_host(self, client):
        for url in ["/", reverse("login"), reverse("matches:table_new"), "/tables/1/"]:
            response = client.get(url)
            assert response.status_code == 302
            assert response["Location"] == reverse("matches:setup")

    def test_creating_the_first_host_logs_in_and_then_the_page_is_gone(self, client):
        password = "correct-horse-battery"
        response = client.post(
            reverse("matches:setup"),
            {"username": "maggie", "password1": password, "password2": password},
        )
        assert response.status_code == 302
        user = get_user_model().objects.get()
        assert user.username == "maggie" and user.is_superuser
        assert client.get(reverse("matches:table_new")).status_code == 200
        assert client.get(reverse("matches:setup")).status_code == 404

    def test_weak_or_mismatched_passwords_create_nobody(self, client):
        response = client.post(
            reverse("matches:setup"),
            {"username": "maggie", "password1": "abc", "password2": "abd"},
        )
        assert response.status_code == 200
        assert "didn’t match" in response.content.decode()
        assert not get_user_model().objects.exists()

    def test_each_password_error_sits_under_its_field_and_the_username_is_kept(self, client):
        response = client.post(
            reverse("matches:setup"),
            {"username": "maggie", "password1": "abc", "password2": "abd"},
        )
        form = response.context["form"]
        assert form.errors["password1"][0].startswith("This password is too short.")
        assert form.errors["password2"] == ["The two password fields didn’t match."]
        html = response.content.decode()
        assert 'name="username" value="maggie"' in html
        # Both password boxes come back empty: the first was refused, the second confirmed it.
        assert 'value="abc"' not in html and 'value="abd"' not in html
        weak = html.index('id="id_password1_error"')
        assert html.index('id="id_password1"') < weak < html.index('id="id_password2"')

    def test_a_mismatch_clears_only_the_confirmation(self, client):
        response = client.post(
            reverse("matches:setup"),
            {"username": "maggie", "password1": "correct-horse-battery", "password2": "typo"},
        )
        html = response.content.decode()
        assert 'value="correct-horse-battery"' in html and 'value="typo"' not in html
        assert list(response.context["form"].errors) == ["password2"]


class TestLogin:
    def test_login_form_labels_and_button(self, host, client):
        html = client.get(reverse("login")).content.decode()
        assert '<label for="id_username">Username</label>' in html
        assert '<label for="id_password">Password</label>' in html
        assert '<button type="submit" class="button button-primary">Log in</button>' in html

    def test_login_then_launch(self, host, client):
        response = client.post(
            reverse("login"), {"username": "host", "password": "a-long-test-password"}
        )
        assert response.status_code == 302
        assert client.get(reverse("matches:table_new")).status_code == 200


class TestLaunchView:
    def test_form_fields(self, host_client):
        html = host_client.get(reverse("matches:table_new")).content.decode()
        assert '<label for="id_name">Table name</label>' in html
        assert '<label for="id_players">Players</label>' in html
        assert "<legend>Mode</legend>" in html
        assert "Winner takes all</label>" in html and "Ranked (3/2/1)</label>" in html
        assert ">Launch table</button>" in html

    def test_launch_lands_on_the_table_page(self, host_client):
        response = host_client.post(
            reverse("matches:table_new"),
            {"name": "Front bar", "players": "Alice\nBen\r\nCara\n\nDev\n", "mode": "ranked"},
        )
        table = Table.objects.get()
        assert response.status_code == 302 and response["Location"] == table_url(table)
        page = host_client.get(table_url(table)).content.decode()
        assert "Match 1" in page
        assert button_names(page) == ["Alice", "Ben", "Cara", "Dev"]
        dealer = open_match(table).first_dealer.name
        assert f"First dealer: <strong><bdi>{dealer}</bdi></strong>" in page

    @pytest.mark.parametrize(
        ("data", "message"),
        [
            ({"name": ""}, "Give the table a name."),
            ({"name": "x" * 81}, "A table name is at most 80 characters."),
            ({"mode": "poker"}, "Choose a mode: Winner takes all or Ranked (3/2/1)."),
            ({"mode": ""}, "Choose a mode: Winner takes all or Ranked (3/2/1)."),
            ({"players": "Al\nBo"}, "A table needs at least 3 players; 2 given."),
            (
                {"players": "\n".join(f"P{i}" for i in range(11))},
                "A table seats at most 10 players; 11 given.",
            ),
            (
                {"players": "Al\nBo\nal"},
                "“al” is listed twice (names ignore upper and lower case).",
            ),
            ({"players": "Al\nBo\n" + "y" * 41}, "Player names are at most 40 characters"),
            ({"players": ""}, "List the players, one name per line."),
        ],
    )
    def test_bad_input_shows_a_message_and_saves_nothing(self, host_client, data, message):
        before = counts()
        form = {"name": "Snug", "players": "Al\nBo\nCy", "mode": "ranked", **data}
        response = host_client.post(reverse("matches:table_new"), form)
        assert response.status_code == 200
        assert message in response.content.decode()
        assert counts() == before


class TestTablePage:
    def test_worked_game_through_plain_form_posts(self, host_client):
        table = make_table(mode=Table.Mode.RANKED)
        url = reverse("matches:tap", args=[table.pk])
        for name, expected in [
            ("Ben", "<bdi>Ben</bdi> is out, 4th."),
            ("Alice", "<bdi>Alice</bdi> is out, 3rd."),
        ]:
            response = host_client.post(url, tap_form(table, name))
            assert response.status_code == 302
            assert expected in host_client.get(table_url(table)).content.decode()
        response = host_client.post(url, tap_form(table, "Cara"), follow=True)
        page = response.content.decode()
        # The crowning is told once, by the result card: every place with its points.
        assert "is out, 2nd." not in page
        card = page[
            page.index('id="result-card"') : page.index(
                "</section>", page.index('id="result-card"')
            )
        ]
        assert "<bdi>Dev</bdi> wins match 1!" in card
        places_shown = re.findall(
            r'<span class="result-place">(\w+)</span> <span class="result-name">(\w+)</span> '
            r'<span class="result-points">(\d+ pts?)</span>',
            card,
        )
        assert places_shown == [
            ("1st", "Dev", "3 pts"), ("2nd", "Cara", "2 pts"), ("3rd", "Alice", "1 pt"), ("4th", "Ben", "0 pts"),
        ]  # fmt: skip
        assert "Match 2" in page
        assert button_names(page) == ["Alice", "Ben", "Cara", "Dev"]
        assert "Match 1: <bdi>Dev</bdi> won" in page

    def test_the_result_card_goes_at_the_next_matchs_first_tap(self, host_client):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL)
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        html = host_client.get(table_url(table)).content.decode()
        card = html[html.index('id="result-card"') :]
        assert "<bdi>Dev</bdi> wins match 1!" in card
        # Winner takes all: only the winner is named; the others are "out", said once.
        assert (
            '<span class="result-out-label">Out:</span> '
            "<bdi>Cara</bdi>, <bdi>Alice</bdi>, <bdi>Ben</bdi></p>"
        ) in card
        tap(table, "Ben")
        assert 'id="result-card"' not in host_client.get(table_url(table)).content.decode()

    def test_htmx_tap_returns_only_the_board_fragment(self, host_client):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL)
        response = host_client.post(
            reverse("matches:tap", args=[table.pk]), tap_form(table, "Ben"), **HTMX
        )
        html = response.content.decode()
        assert response.status_code == 200
        assert "<html" not in html and "<h1>" not in html
        assert "<bdi>Ben</bdi> is out." in html
        assert button_names(html) == ["Alice", "Cara", "Dev"]
        # Winner takes all names no places: Ben's tile stays in his seat, greyed, "out".
        assert (
            '<div class="player player-out"><span class="tile-name">Ben</span> '
            '<span class="tile-place">out</span></div>'
        ) in html
        assert html.index("tap-" + str(seat_of(open_match(table), "Alice").player_id)) < html.index(
            '<span class="tile-name">Ben</span>'
        )

    def test_ranked_out_tiles_show_places(self, host_client):
        table = make_table()
        tap(table, "Ben")
        tap(table, "Alice")
        html = host_client.get(table_url(table)).content.decode()
        assert '<span class="tile-name">Ben</span> <span class="tile-place">4th</span>' in html
        assert '<span class="tile-name">Alice</span> <span class="tile-place">3rd</span>' in html

    def test_a_viewer_reads_the_out_list_with_places(self, host, client):
        table = make_table()
        tap(table, "Ben")
        html = client.get(table_url(table)).content.decode()
        assert '<span class="name">Ben</span> <span class="place">4th</span>' in html

    def test_undo_button_takes_back_the_latest_tap(self, host_client):
        table = make_table()
        latest = tap(table, "Ben").tap
        html = host_client.get(table_url(table)).content.decode()
        assert re.search(
            r'<button type="submit" class="button button-undo"><span>Undo <bdi>Ben</bdi>', html
        )
        response = host_client.post(
            reverse("matches:undo", args=[table.pk]), {"tap": latest.pk}, **HTMX
        )
        assert "Undone: <bdi>Ben</bdi> is back in match 1." in response.content.decode()
        assert "button-undo" not in response.content.decode()
        assert places(open_match(table))["Ben"] is None

    def test_no_undo_button_when_nothing_to_undo(self, host_client):
        table = make_table()
        assert "button-undo" not in host_client.get(table_url(table)).content.decode()

    def test_a_refused_tap_says_so_and_changes_nothing(self, host_client):
        table = make_table()
        form = tap_form(table, "Ben")
        host_client.post(reverse("matches:tap", args=[table.pk]), form)
        form["key"] = uuid.uuid4()  # a second tablet, its own key
        response = host_client.post(reverse("matches:tap", args=[table.pk]), form, **HTMX)
        assert "Ben is already out; nothing was changed." in response.content.decode()
        assert Tap.objects.count() == 1

    def test_a_double_tap_is_applied_once(self, host_client):
        table = make_table()
        form = tap_form(table, "Ben")
        host_client.post(reverse("matches:tap", args=[table.pk]), form, **HTMX)
        response = host_client.post(reverse("matches:tap", args=[table.pk]), form, **HTMX)
        assert "Already recorded: <bdi>Ben</bdi> is out, 4th." in response.content.decode()
        assert Tap.objects.count() == 1

    @pytest.mark.parametrize(
        "data",
        [{}, {"match": "x", "player": "1"}, {"match": "1", "player": "1", "key": "nope"}],
    )
    def test_unreadable_tap(self, host_client, data):
        table = make_table()
        before = counts()
        response = host_client.post(reverse("matches:tap", args=[table.pk]), data, follow=True)
        assert "That tap could not be read; nothing was changed." in response.content.decode()
        assert counts() == before

    def test_tap_on_another_tables_match(self, host_client):
        table = make_table()
        other = make_table(name="Snug", players=["Xi", "Yu", "Zo"])
        response = host_client.post(
            reverse("matches:tap", args=[table.pk]), tap_form(other, "Xi"), follow=True
        )
        assert str(WRONG_TABLE) in response.content.decode()
        assert not Tap.objects.exists()

    def test_unknown_table_is_404(self, host_client):
        assert host_client.get("/tables/999/").status_code == 404
        response = host_client.post("/tables/999/tap/", {"match": 1, "player": 1})
        assert response.status_code == 404

    def test_viewer_sees_no_buttons_and_polls(self, host, client):
        table = make_table()
        tap(table, "Ben")
        html = client.get(table_url(table)).content.decode()
        assert button_names(html) == []
        assert "button-undo" not in html
        # Read-only: standing players are names in a list, nothing that looks pressable.
        assert '<ul class="standing-names">' in html and "<li>Alice</li>" in html
        assert 'class="player' not in html and "<button" not in html.split('<main id="main"')[1]
        assert 'hx-trigger="every 3s, brag:changed"' in html
        assert 'id="live-status"' in html  # "live · updated 3 s ago", filled by live.js

    def test_names_are_escaped(self, host_client):
        table = make_table(players=["<b>Bo</b>", "Al", "Cy"])
        html = host_client.get(table_url(table)).content.decode()
        assert "&lt;b&gt;Bo&lt;/b&gt;" in html
        assert "<b>Bo</b>" not in html

    def test_closing_the_table(self, host_client):
        table = make_table()
        response = host_client.post(reverse("matches:close", args=[table.pk]), follow=True)
        html = response.content.decode()
        assert "Table closed. No further match will open." in html
        assert button_names(html) == []
        assert not Match.objects.open().exists()
        response = host_client.post(
            reverse("matches:tap", args=[table.pk]), {"match": 1, "player": 1}, follow=True
        )
        assert "This table is closed; nothing was changed." in response.content.decode()


class TestRosterView:
    def test_edit_the_roster_before_the_first_tap(self, host_client):
        table = make_table()
        url = reverse("matches:roster", args=[table.pk])
        assert "Alice\nBen\nCara\nDev" in host_client.get(url).content.decode()
        response = host_client.post(
            url,
            {"match": open_match(table).pk, "players": "Dev\nCara\nBen\nAlice\nEve"},
            follow=True,
        )
        html = response.content.decode()
        assert "Roster saved for match 1." in html
        assert button_names(html) == ["Dev", "Cara", "Ben", "Alice", "Eve"]

    def test_bad_roster_saves_nothing(self, host_client):
        table = make_table()
        response = host_client.post(
            reverse("matches:roster", args=[table.pk]),
            {"match": open_match(table).pk, "players": "Dev\nCara"},
        )
        assert "A table needs at least 3 players; 2 given." in response.content.decode()
        assert sorted(places(open_match(table))) == ["Alice", "Ben", "Cara", "Dev"]

    def test_roster_locked_after_a_tap(self, host_client):
        table = make_table()
        tap(table, "Ben")
        assert "Edit roster" not in host_client.get(table_url(table)).content.decode()
        response = host_client.post(
            reverse("matches:roster", args=[table.pk]),
            {"match": open_match(table).pk, "players": "Dev\nCara\nAlice"},
        )
        assert str(ROSTER_LOCKED) in response.content.decode()


class TestPermissions:
    def write_urls(self, table):
        match = open_match(table)
        return [
            (reverse("matches:table_new"), {"name": "X", "players": "A\nB\nC", "mode": "ranked"}),
            (reverse("matches:tap", args=[table.pk]), tap_form(table, "Ben")),
            (reverse("matches:undo", args=[table.pk]), {}),
            (reverse("matches:roster", args=[table.pk]), {"match": match.pk, "players": "A\nB\nC"}),
            (reverse("matches:close", args=[table.pk]), {}),
        ]

    def test_anonymous_writes_are_refused_and_change_nothing(self, host, client):
        table = make_table()
        tap(table, "Alice")
        before = counts()
        for url, data in self.write_urls(table):
            response = client.post(url, data)
            assert response.status_code == 302, url
            assert response["Location"].startswith(reverse("login")), url
            response = client.post(url, data, **HTMX)
            assert response.headers["HX-Redirect"].startswith(reverse("login")), url
        assert counts() == before
        table.refresh_from_db()
        assert table.is_open and table.version == 1

    def test_missing_csrf_token_is_refused_with_a_clear_page(self, csrf_client):
        table = make_table()
        before = counts()
        for url, data in self.write_urls(table):
            response = csrf_client.post(url, data)
            assert response.status_code == 403, url
            assert "nothing was saved" in response.content.decode()
        assert counts() == before

    def test_pages_answer_head_for_monitors(self, host, client):
        table = make_table()
        for url in ["/", reverse("matches:table", args=[table.pk]), reverse("matches:standings")]:
            assert client.head(url).status_code == 200, url

    def test_writes_need_post(self, host_client):
        table = make_table()
        assert host_client.get(reverse("matches:tap", args=[table.pk])).status_code == 405
        assert host_client.get(reverse("matches:reopen", args=[table.pk])).status_code == 405
        # A GET of close (or undo) is its confirmation page and changes nothing.
        assert host_client.get(reverse("matches:close", args=[table.pk])).status_code == 200
        assert Table.objects.get(pk=table.pk).is_open


class TestMatchPages:
    def test_match_page_results_and_audit_trail(self, host, client):
        table = make_table()
        tap(table, "Ben")
        tap(table, "Alice")
        table_undo_last(table_id=table.pk, tap_id=None, by=host)
        tap(table, "Alice")
        tap(table, "Cara")
        html = client.get(reverse("matches:match", args=[table.pk, 1])).content.decode()
        assert "Winner: <strong><bdi>Dev</bdi></strong>" in html
        rows = re.findall(
            r"<tr(?: class=\"undone\")?>\s*<td>([^<]*)</td>\s*<td>\s*([^<]*?)\s*</td>\s*<td>(\d)</td>",
            html,
        )
        assert rows == [
            ("Dev", "1st", "3"),
            ("Cara", "2nd", "2"),
            ("Alice", "3rd", "1"),
            ("Ben", "4th", "0"),
        ]
        assert html.count('<tr class="undone">') == 1
        assert "<bdi>Alice</bdi> out, 3rd" in html and "by host" in html

    def test_taps_of_a_discarded_match_stay_in_the_audit_trail(self, host, client):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        tap(table, "Dev")  # match 2
        table_undo_last(table_id=table.pk, tap_id=None, by=host)  # Dev back
        table_undo_last(table_id=table.pk, tap_id=None, by=host)  # the crowning
        tap(table, "Cara")  # crowned again: a new match 2
        html = client.get(reverse("matches:match", args=[table.pk, 2])).content.decode()
        assert "<bdi>Dev</bdi> out, 4th" in html
        assert "Match 2, discarded when the crowning before it was undone" in html

    def test_winner_takes_all_match_page_reads_out(self, host, client):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL)
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        html = client.get(reverse("matches:match", args=[table.pk, 1])).content.decode()
        assert re.search(r"<td>Dev</td>\s*<td>\s*winner", html)
        assert len(re.findall(r"<td>\s*out\s*</td>", html)) == 3
        assert "Points" not in html

    def test_history_lists_filed_matches(self, host, client):
        table = make_table()
        for _ in range(2):
            for name in ["Ben", "Alice", "Cara"]:
                tap(table, name)
        html = client.get(reverse("matches:matches", args=[table.pk])).content.decode()
        assert html.count("<td>Dev</td>") == 2

    def test_display_names_cost_no_query(self, host, client, django_assert_num_queries):
        table = make_table()
        url = reverse("matches:match", args=[table.pk, 1])
        tap(table, "Ben")
        client.get(url)  # this process has learnt what every request learns once
        with django_assert_num_queries(4):
            assert "<td>host</td>" in client.get(url).content.decode()
        sam = make_host("sam")
        HostProfile.objects.create(user=host, display_name="Pat")
        HostProfile.objects.create(user=sam, display_name="Sam")
        Tap.objects.update(queued_by=sam)
        tap(table, "Alice", host=host)
        with django_assert_num_queries(4):
            html = client.get(url).content.decode()
        assert "<td>Pat (queued by Sam)</td>" in html and "<td>Pat</td>" in html

    def test_unknown_match_is_404(self, host, client):
        table = make_table()
        assert client.get(reverse("matches:match", args=[table.pk, 7])).status_code == 404


class TestApi:
    def test_ranked_shape(self, host, client):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        tap(table, "Dev")
        data = client.get(reverse("matches:api_table", args=[table.pk])).json()
        second = open_match(table)
        filed = table.matches.get(number=1)
        assert data == {
            "id": table.pk,
            "name": "Front bar",
            "mode": "ranked",
            "is_open": True,
            "current_match": {
                "number": 2,
                "first_dealer": second.first_dealer.name,
                "standing": ["Alice", "Ben", "Cara"],
                "out": [{"player": "Dev", "place": 4}],
            },
            "matches": [
                {
                    "number": 1,
                    "filed_at": filed.filed_at.isoformat(),
                    "winner": "Dev",
                    "results": [
                        {"player": "Dev", "place": 1, "points": 3},
                        {"player": "Cara", "place": 2, "points": 2},
                        {"player": "Alice", "place": 3, "points": 1},
                        {"player": "Ben", "place": 4, "points": 0},
                    ],
                }
            ],
            "next": None,  # every filed match is on this page
        }
        assert data["matches"][0]["filed_at"].endswith("+00:00")

    def test_winner_takes_all_shape_and_closed_table(self, host, client):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL)
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        tap(table, "Dev")
        table_close(
            table_id=table.pk, by=host, discard_match_id=table.matches.get(status="open").pk
        )
        data = json.loads(client.get(reverse("matches:api_table", args=[table.pk])).content)
        assert data["mode"] == "winner_takes_all" and data["is_open"] is False
        assert data["current_match"] is None
        assert data["matches"][0]["results"] == [
            {"player": "Dev", "place": 1, "points": None},
            {"player": "Cara", "place": None, "points": None},
            {"player": "Alice", "place": None, "points": None},
            {"player": "Ben", "place": None, "points": None},
        ]

    def test_wta_current_out_has_no_place(self, host, client):
        table = make_table(mode=Table.Mode.WINNER_TAKES_ALL)
        tap(table, "Ben")
        data = client.get(reverse("matches:api_table", args=[table.pk])).json()
        assert data["current_match"]["out"] == [{"player": "Ben", "place": None}]

    def test_unknown_table(self, host, client):
        assert client.get(reverse("matches:api_table", args=[404])).status_code == 404


class TestConditionalPolling:
    def test_304_when_nothing_changed_and_a_new_etag_after_a_tap(self, host, client):
        table = make_table()
        url = table_url(table)
        first = client.get(url, **HTMX)
        etag = first["ETag"]
        assert client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304
        tap(table, "Ben")
        response = client.get(url, HTTP_IF_NONE_MATCH=etag, **HTMX)
        assert response.status_code == 200
        assert response["ETag"] != etag
        assert "Ben" in response.content.decode()

    def test_host_and_viewer_get_different_etags(self, host, host_client):
        table = make_table()
        viewer = FormClient().get(table_url(table))["ETag"]
        assert host_client.get(table_url(table))["ETag"] != viewer

    def test_a_pending_message_is_never_hidden_by_a_304(self, host_client):
        table = make_table()
        tap(table, "Ben")
        host_client.get(table_url(table))  # the first page sets the CSRF cookie
        etag = host_client.get(table_url(table))["ETag"]
        # A refused tap changes nothing, so the version stays; its message must still show.
        host_client.post(reverse("matches:tap", args=[table.pk]), tap_form(table, "Ben"))
        response = host_client.get(table_url(table), HTTP_IF_NONE_MATCH=etag)
        assert response.status_code == 200
        assert "Ben is already out; nothing was changed." in response.content.decode()
        assert host_client.get(table_url(table), HTTP_IF_NONE_MATCH=etag).status_code == 304

    def test_a_tap_answers_with_the_tag_the_next_poll_gets(self, host_client):
        table = make_table()
        host_client.get(table_url(table))  # the first page sets the CSRF cookie
        response = host_client.post(
            reverse("matches:tap", args=[table.pk]), tap_form(table, "Ben"), **HTMX
        )
        tag = response["X-Board-ETag"]
        assert tag
        assert host_client.get(table_url(table), HTTP_IF_NONE_MATCH=tag, **HTMX).status_code == 304

    @pytest.mark.parametrize("how", ["first tap", "crowning", "by number"])
    def test_a_taps_tag_is_the_tag_the_next_poll_computes(self, host_client, how):
        """The same state, viewer, language and night give the same tag, whether built
        from the row the tap's version bump returned or read afresh by the poll."""
        table = make_table()
        host_client.get(table_url(table))  # the first page sets the CSRF cookie
        if how == "crowning":
            tap(table, "Ben")
            tap(table, "Alice")
        name = "Cara" if how == "crowning" else "Ben"
        form = tap_form(table, name)
        if how == "by number":  # as the tablet's queue names a match it may never have seen
            form["number"] = open_match(table).number
            del form["match"]
        response = host_client.post(reverse("matches:tap", args=[table.pk]), form, **HTMX)
        assert response["X-Tap-Outcome"] == "applied"
        poll = host_client.get(table_url(table), **HTMX)
        assert poll.status_code == 200
        assert poll["ETag"] == response["X-Board-ETag"]
        assert (
            host_client.get(
                table_url(table), HTTP_IF_NONE_MATCH=response["X-Board-ETag"], **HTMX
            ).status_code
            == 304
        )

    def test_a_tap_answered_across_noon_is_tagged_with_the_night_it_read(
        self, host_client, monkeypatch
    ):
        """Tonight's totals start afresh at noon. A tap whose totals were read at 11:59:59
        and whose tag is built just after noon must name the night it read, or the polls
        would keep last night's totals with a 304."""
        table = make_table()
        host_client.get(table_url(table))  # the first page sets the CSRF cookie
        noon = datetime.datetime.combine(timezone.localdate(), night_rules.NIGHT_STARTS)
        before = timezone.make_aware(noon - datetime.timedelta(seconds=1))
        clock = [before]
        monkeypatch.setattr(timezone, "now", lambda: clock[0])
        tap_service = tap_services.match_eliminate

        def then_noon(**kwargs):
            result = tap_service(**kwargs)
            clock[0] = before + datetime.timedelta(seconds=2)
            return result

        monkeypatch.setattr(tap_services, "match_eliminate", then_noon)
        response = host_client.post(
            reverse("matches:tap", args=[table.pk]), tap_form(table, "Ben"), **HTMX
        )
        assert night_rules.night_start(before).strftime(".n%Y%m%d") in response["X-Board-ETag"]
        poll = host_client.get(
            table_url(table), HTTP_IF_NONE_MATCH=response["X-Board-ETag"], **HTMX
        )
        assert poll.status_code == 200  # a new night: not the answer's state any more

    def test_a_tap_answers_with_the_state_it_wrote_under_that_states_tag(
        self, host_client, monkeypatch
    ):
        """Another tablet's write landing between the tap's commit and its answer must not
        put old content under a new tag (the next polls would answer 304 and the tablet
        would keep showing Cara standing)."""
        table = make_table()
        host_client.get(table_url(table))  # the first page sets the CSRF cookie
        tap_service = tap_services.match_eliminate

        def then_another_tablet(**kwargs):
            result = tap_service(**kwargs)
            cara = seat_of(open_match(table), "Cara").player_id
            tap_service(**{**kwargs, "player_id": cara, "key": uuid.uuid4()})
            return result

        monkeypatch.setattr(tap_services, "match_eliminate", then_another_tablet)
        response = host_client.post(
            reverse("matches:tap", args=[table.pk]), tap_form(table, "Ben"), **HTMX
        )
        monkeypatch.undo()
        written = Tap.objects.get(player__name="Ben")
        assert written.match.table.version == 2  # Ben's tap made it 1, Cara's 2
        assert f'"t{table.pk}.v1.' in response["X-Board-ETag"]
        html = response.content.decode()
        assert "Cara" in button_names(html)  # as Ben's tap left the board
        assert "Ben" not in button_names(html)
        poll = host_client.get(
            table_url(table), HTTP_IF_NONE_MATCH=response["X-Board-ETag"], **HTMX
        )
        assert poll.status_code == 200
        assert "Cara" not in button_names(poll.content.decode())

    def test_api_etag(self, host, client):
        table = make_table()
        url = reverse("matches:api_table", args=[table.pk])
        etag = client.get(url)["ETag"]
        assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304


def play_matches(table, count):
    for _ in range(count):
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)


class TestQueryCounts:
    @pytest.mark.parametrize("filed", [1, 50])
    def test_tap(self, host_client, django_assert_num_queries, filed):
        table = make_table()
        play_matches(table, filed)
        url = reverse("matches:tap", args=[table.pk])
        form = tap_form(table, "Ben")
        with django_assert_num_queries(TAP_QUERIES):
            response = host_client.post(url, form, **HTMX)
        assert "<bdi>Ben</bdi> is out, 4th." in response.content.decode()

    @pytest.mark.parametrize("filed", [1, 50])
    @pytest.mark.parametrize("kept", [True, False])
    def test_crowning_tap(self, host_client, django_assert_num_queries, filed, kept):
        table = make_table()
        play_matches(table, filed)
        tap(table, "Ben")
        tap(table, "Alice")
        if not kept:
            table_filings.kept.clear()  # a process that has not read this table's filings
        url = reverse("matches:tap", args=[table.pk])
        form = tap_form(table, "Cara")
        with django_assert_num_queries(KEPT_CROWNING_QUERIES if kept else CROWNING_QUERIES):
            response = host_client.post(url, form, **HTMX)
        assert "<bdi>Dev</bdi> wins match" in response.content.decode()

    def test_replayed_tap(self, host_client, django_assert_num_queries):
        table = make_table()
        play_matches(table, 1)
        url = reverse("matches:tap", args=[table.pk])
        form = tap_form(table, "Ben")
        host_client.post(url, form, **HTMX)
        with django_assert_num_queries(REPLAYED_TAP_QUERIES):
            response = host_client.post(url, form, **HTMX)
        assert "Already recorded: <bdi>Ben</bdi> is out, 4th." in response.content.decode()
        assert Tap.objects.filter(key=form["key"]).count() == 1

    def test_refused_tap(self, host_client, django_assert_num_queries):
        table = make_table()
        play_matches(table, 1)
        url = reverse("matches:tap", args=[table.pk])
        host_client.post(url, tap_form(table, "Ben"), **HTMX)
        again = tap_form(table, "Ben")  # a new key: not a retry
        with django_assert_num_queries(REFUSED_TAP_QUERIES):
            response = host_client.post(url, again, **HTMX)
        assert "Ben is already out; nothing was changed." in response.content.decode()

    @pytest.mark.parametrize("filed", [1, 50])
    def test_table_page_for_a_host(self, host_client, django_assert_num_queries, filed):
        table = make_table()
        play_matches(table, filed)
        tap(table, "Ben")
        with django_assert_num_queries(HOST_PAGE_QUERIES):
            assert host_client.get(table_url(table)).status_code == 200

    @pytest.mark.parametrize("filed", [1, 50])
    def test_table_page_for_a_viewer_and_its_304(
        self, host, client, django_assert_num_queries, filed
    ):
        table = make_table()
        play_matches(table, filed)
        with django_assert_num_queries(VIEWER_PAGE_QUERIES):
            etag = client.get(table_url(table), **HTMX)["ETag"]
        with django_assert_num_queries(VIEWER_304_QUERIES):
            assert client.get(table_url(table), HTTP_IF_NONE_MATCH=etag, **HTMX).status_code == 304
        # A new spectator gets the rendering the first one caused, for the same one read.
        with django_assert_num_queries(VIEWER_304_QUERIES):
            again = FormClient().get(table_url(table), **HTMX)
        assert again.status_code == 200 and again["ETag"] == etag


# Session and user (2); in the transaction (two savepoint statements under test, BEGIN and
# COMMIT in production): the table locked by bumping its version (1), the match with its
# seats (1), the seat, the tap (2); then, still under the lock, the board's filed matches and
# tonight's totals (2). The tag is the version the tap wrote: no read after.
TAP_QUERIES = 10
# The same tap when this process already read that table's filed results at the same stamp
# and night (any plain tap after the first since the last filing): play.filings keeps them.
KEPT_TAP_QUERIES = TAP_QUERIES - 2
# Undoing a plain tap (the page's button naming it), when this process kept the table's filed
# results as for KEPT_TAP_QUERIES: session and user (2); in the transaction (2, as a tap's):
# the table locked by bumping its version (1), the latest two live taps with their matches
# (the one undone and the one its Undo button names next: 1), the match's seats (1), the
# seat and the tap (2). The answer is built from those rows: no read after.
UNDO_QUERIES = KEPT_TAP_QUERIES + 1
# The crowning also saves the winner's seat and the match, bumps the league stamp (1), adds
# the match to the day's tally and the all-time total (one upsert each: 2), looks up the first dealer a discarded
# match of that number had (1), opens the next match and seats (2); the crowning also rates
# the match (is any match filed later, the players' ratings, their rating changes, their new
# ratings: 4) and counts it in the head-to-head pairs and the players' nights (one upsert
# each: 2) and in the players' running totals (the rows from its day on, then the day's row
# for a player without one: 2). The board is built from the rows written, with no more
# reads than a plain tap.
CROWNING_QUERIES = 26
# The same crowning when this process kept the table's filed results at the stamp it found
# (as for KEPT_TAP_QUERIES): its answer adds the match to them instead of reading them.
KEPT_CROWNING_QUERIES = CROWNING_QUERIES - 2
# A retried tap: its transaction bumps the version, reads the match and seats, finds the
# player out, looks the key up and rolls back (savepoint, rollback and release under test:
# 6); the replay reads the match's table (1); then the board from one snapshot, as any read
# of it: the table row with its version, the board's 4 reads, tonight's totals and the
# version again (7).
REPLAYED_TAP_QUERIES = 16
# A refused tap: as a retry, without the replay's read (the key is new).
REFUSED_TAP_QUERIES = 15
# Session, user, the host's venue roles, the table row with its version (the ETag, and the
# snapshot's first read), the board's 4 reads, tonight's totals and the version again (the
# snapshot's check).
HOST_PAGE_QUERIES = 10
# No session, and no first-host check once a host exists: the table row with its version, the
# board's 4 reads, the result card's seats (the next match has no tap yet), tonight's totals
# and the version again.
VIEWER_PAGE_QUERIES = 8
# One indexed read of the table row (version and restore epoch), for a 304 or for a rendering
# this process keeps for every spectator.
VIEWER_304_QUERIES = 1
