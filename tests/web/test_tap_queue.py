"""The server's side of the tablet's tap queue: taps addressed by match number, undo by the
tap's key, the outcome headers and the codes, and the offline shell (service worker,
manifest, favicon)."""

import json
import re
import uuid

import pytest
from django.contrib.staticfiles import finders
from django.urls import reverse

from matches.models import Match, Seat, Tap
from matches.play.services.tables import match_set_roster, table_close
from matches.play.services.tap import match_eliminate
from matches.play.services.undo import table_undo_last
from tests.factories import make_table, open_match, places, seat_of, tap
from tests.web.test_views import KEPT_TAP_QUERIES

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def player_id(table, name, number=None):
    match = table.matches.get(number=number) if number else open_match(table)
    return seat_of(match, name).player_id


def tap_by_number(client, table, name, number, key=None):
    data = {"number": number, "player": player_id(table, name, 1), "key": key or uuid.uuid4()}
    return client.post(reverse("matches:tap", args=[table.pk]), data, **HTMX)


def undo_by_key(client, table, key):
    return client.post(reverse("matches:undo", args=[table.pk]), {"tap_key": key}, **HTMX)


class TestTapByNumber:
    def test_a_tap_names_the_open_match_by_its_number(self, host_client):
        table = make_table()
        response = tap_by_number(host_client, table, "Ben", 1)
        assert response["X-Tap-Outcome"] == "applied"
        assert "X-Tap-Code" not in response
        assert "<bdi>Ben</bdi> is out, 4th." in response.content.decode()
        assert places(open_match(table))["Ben"] == 4

    def test_a_tap_in_the_next_match_applies_once_the_crowning_opened_it(self, host_client):
        table = make_table()
        keys = [uuid.uuid4() for _ in range(4)]
        # Played offline, sent in order when the network came back.
        for key, (name, number) in zip(
            keys, [("Ben", 1), ("Alice", 1), ("Cara", 1), ("Dev", 2)], strict=True
        ):
            response = tap_by_number(host_client, table, name, number, key)
            assert response["X-Tap-Outcome"] == "applied", name
        assert places(table.matches.get(number=1)) == {"Alice": 3, "Ben": 4, "Cara": 2, "Dev": 1}
        assert places(open_match(table)) == {"Alice": None, "Ben": None, "Cara": None, "Dev": 4}
        assert list(Tap.objects.order_by("id").values_list("key", flat=True)) == keys

    def test_a_tap_by_number_costs_what_a_tap_by_id_does(
        self, host_client, django_assert_num_queries
    ):
        table = make_table()
        tap(table, "Ben")  # this process has read the table's filed results since
        data = {"number": 1, "player": player_id(table, "Alice"), "key": uuid.uuid4()}
        url = reverse("matches:tap", args=[table.pk])
        with django_assert_num_queries(KEPT_TAP_QUERIES):
            response = host_client.post(url, data, **HTMX)
        assert response["X-Tap-Outcome"] == "applied"

    def test_a_match_not_yet_open_is_refused_and_nothing_is_saved(self, host_client):
        table = make_table()
        response = tap_by_number(host_client, table, "Ben", 2)
        assert response["X-Tap-Outcome"] == "refused"
        assert response["X-Tap-Code"] == "match_not_open"
        assert "Match 2 has not started; nothing was changed." in response.content.decode()
        assert not Tap.objects.exists()
        assert all(place is None for place in places(open_match(table)).values())

    def test_a_filed_match_is_refused_with_its_code(self, host_client):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        response = tap_by_number(host_client, table, "Dev", 1)
        assert (response["X-Tap-Outcome"], response["X-Tap-Code"]) == ("refused", "match_filed")
        assert Tap.objects.count() == 3
        # Plain text, as a WSGI server requires of every header value (not a str subclass).
        assert type(response["X-Tap-Code"]) is str

    def test_a_discarded_match_of_that_number_is_not_the_one_tapped(self, host_client, host):
        """An undone crowning discards the match it opened: a tap named by that number waits
        for the match reopened under it, and then lands in that one, not the discarded one."""
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        table_undo_last(table_id=table.pk, tap_id=None, by=host)
        response = tap_by_number(host_client, table, "Ben", 2)
        assert (response["X-Tap-Outcome"], response["X-Tap-Code"]) == ("refused", "match_not_open")
        tap(table, "Cara")  # crowned again: match 2 opens anew
        response = tap_by_number(host_client, table, "Ben", 2)
        assert response["X-Tap-Outcome"] == "applied"
        reopened = open_match(table)
        assert reopened.number == 2 and places(reopened)["Ben"] == 4
        discarded = table.matches.get(number=2, status=Match.Status.DISCARDED)
        assert not discarded.taps.exists()

    def test_a_player_no_longer_seated_in_the_next_match_is_refused(self, host_client, host):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        match_set_roster(
            table_id=table.pk, match_id=open_match(table).pk,
            player_names=["Alice", "Cara", "Dev"], by=host,
        )  # fmt: skip
        response = tap_by_number(host_client, table, "Ben", 2)
        assert response["X-Tap-Code"] == "not_seated"
        assert Tap.objects.count() == 3

    def test_a_resent_tap_is_a_replay_and_a_rival_tap_is_already_out(self, host_client):
        table = make_table()
        key = uuid.uuid4()
        tap_by_number(host_client, table, "Ben", 1, key)
        again = tap_by_number(host_client, table, "Ben", 1, key)
        assert again["X-Tap-Outcome"] == "replayed"
        rival = tap_by_number(host_client, table, "Ben", 1)
        assert (rival["X-Tap-Outcome"], rival["X-Tap-Code"]) == ("refused", "already_out")
        assert Tap.objects.count() == 1

    def test_a_closed_table_refuses_with_its_code(self, host_client, host):
        table = make_table()
        table_close(table_id=table.pk, by=host)
        response = tap_by_number(host_client, table, "Ben", 1)
        assert response["X-Tap-Code"] == "table_closed"

    def test_a_tap_naming_no_match_is_refused(self, host_client):
        table = make_table()
        data = {"player": player_id(table, "Ben"), "key": uuid.uuid4()}
        response = host_client.post(reverse("matches:tap", args=[table.pk]), data, **HTMX)
        assert (response["X-Tap-Outcome"], response["X-Tap-Code"]) == ("refused", "bad_request")
        assert not Tap.objects.exists()
        with pytest.raises(ValueError):
            match_eliminate(
                table_id=table.pk, player_id=data["player"], key=uuid.uuid4(),
                by=table.created_by,
            )  # fmt: skip

    def test_the_number_is_this_tables(self, host_client):
        table = make_table()
        other = make_table(name="Snug", players=["Xi", "Yu", "Zo"])
        data = {"number": 1, "player": player_id(other, "Xi"), "key": uuid.uuid4()}
        response = host_client.post(reverse("matches:tap", args=[table.pk]), data, **HTMX)
        assert response["X-Tap-Code"] == "not_seated"
        assert not Tap.objects.exists()


class TestUndoByKey:
    def test_the_latest_tap_is_undone(self, host_client):
        table = make_table()
        latest = tap(table, "Ben").tap
        response = undo_by_key(host_client, table, latest.key)
        assert response["X-Tap-Outcome"] == "applied"
        assert "Undone: <bdi>Ben</bdi> is back in match 1." in response.content.decode()
        assert Tap.objects.get().is_undone

    def test_an_older_tap_is_refused_naming_its_player(self, host_client):
        table = make_table()
        older = tap(table, "Ben").tap
        tap(table, "Alice")
        response = undo_by_key(host_client, table, older.key)
        assert (response["X-Tap-Outcome"], response["X-Tap-Code"]) == ("refused", "not_latest")
        assert (
            "Ben’s tap is no longer the most recent one on this table, so it was not undone"
            in response.content.decode()
        )
        assert not Tap.objects.filter(undone_at__isnull=False).exists()

    def test_a_key_never_applied_says_so(self, host_client):
        table = make_table()
        tap(table, "Ben")
        response = undo_by_key(host_client, table, uuid.uuid4())
        assert (response["X-Tap-Outcome"], response["X-Tap-Code"]) == ("refused", "tap_unknown")
        assert "That tap was never recorded" in response.content.decode()
        assert not Tap.objects.filter(undone_at__isnull=False).exists()

    def test_a_resent_undo_is_a_replay(self, host_client):
        table = make_table()
        latest = tap(table, "Ben").tap
        undo_by_key(host_client, table, latest.key)
        again = undo_by_key(host_client, table, latest.key)
        assert again["X-Tap-Outcome"] == "replayed"
        assert Tap.objects.filter(undone_at__isnull=False).count() == 1

    def test_undo_of_a_crowning_by_key_reopens_the_match(self, host_client):
        table = make_table()
        for name in ["Ben", "Alice"]:
            tap(table, name)
        crowning = tap(table, "Cara").tap
        response = undo_by_key(host_client, table, crowning.key)
        assert response["X-Tap-Outcome"] == "applied"
        assert open_match(table).number == 1
        assert Match.objects.filter(status="discarded").count() == 1

    def test_a_tap_of_another_table_is_refused(self, host_client):
        table = make_table()
        other = make_table(name="Snug", players=["Xi", "Yu", "Zo"])
        tap(table, "Ben")
        theirs = tap(other, "Xi").tap
        response = undo_by_key(host_client, table, theirs.key)
        assert response["X-Tap-Code"] == "tap_not_found"


class TestBoardState:
    def test_the_host_page_carries_the_board_as_data(self, host_client):
        table = make_table()
        latest = tap(table, "Ben").tap
        html = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        start = html.index('<script id="board-state" type="application/json">')
        body = html[html.index(">", start) + 1 : html.index("</script>", start)]
        state = json.loads(body)
        assert state["table"] == table.pk and state["match"] == 1 and state["mode"] == "ranked"
        assert [(s["name"], s["place"]) for s in state["seats"]] == [
            ("Alice", None), ("Ben", 4), ("Cara", None), ("Dev", None),
        ]  # fmt: skip
        assert state["last_tap"]["key"] == str(latest.key)
        assert state["places"]["4"] == "4th" and state["points"]["1"] == "3 pts"

    def test_seats_keep_their_seat_whatever_their_place(self, host_client):
        table = make_table()
        tap(table, "Ben")
        html = host_client.get(reverse("matches:table", args=[table.pk])).content.decode()
        order = [html.index(f'data-player="{player_id(table, n)}"') for n in
                 ["Alice", "Ben", "Cara", "Dev"]]  # fmt: skip
        assert order == sorted(order)
        assert Seat.objects.count() == 4


def page_of(client, table) -> str:
    return client.get(reverse("matches:table", args=[table.pk])).content.decode()


def board_state_of(html: str) -> dict:
    start = html.index('<script id="board-state" type="application/json">')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])


def queue_template(html: str, template_id: str, **values) -> str:
    """A <template> the tap queue clones, filled in as draw.js fills it: every {name}."""
    start = html.index(f'<template id="{template_id}">') + len(f'<template id="{template_id}">')
    markup = html[start : html.index("</template>", start)]
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), markup)


def without_csrf(html: str) -> str:
    # Each {% csrf_token %} is masked afresh: the same token, other bytes.
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', 'name="csrfmiddlewaretoken"', html)


class TestTheQueueDrawsTheServersMarkup:
    """While taps wait, the queue draws tiles and result cards by filling in the page's
    <template>s: filled with a seat's values they are the board's own markup, so there is
    one markup to keep, the server's."""

    def test_a_standing_tile_is_the_boards(self, host_client):
        table = make_table()
        html = without_csrf(page_of(host_client, table))
        alice = player_id(table, "Alice")
        key = re.search(
            rf'name="player" value="{alice}">\s*<input type="hidden" name="key" value="([-0-9a-f]+)"',
            html,
        ).group(1)
        tile = queue_template(
            html, "queue-tile-standing", name="Alice", player=alice, match=open_match(table).pk,
            key=key,
        )  # fmt: skip
        assert 'class="tap-form"' in tile
        assert tile in html[html.index('id="tiles"') :]

    def test_an_out_tile_is_the_boards(self, host_client):
        table = make_table()
        tap(table, "Ben")
        html = page_of(host_client, table)
        place = board_state_of(html)["places"]["4"]
        tile = queue_template(
            html, "queue-tile-out", name="Ben", player=player_id(table, "Ben"), place=place
        )
        assert '<span class="tile-place">4th</span>' in tile
        assert tile in html[html.index('id="tiles"') :]

    def test_a_pending_tile_is_an_out_tile_marked_pending(self, host_client):
        table = make_table()
        html = page_of(host_client, table)
        values = {"name": "Ben", "player": player_id(table, "Ben"), "place": "4th"}
        out = queue_template(html, "queue-tile-out", **values)
        pending = queue_template(html, "queue-tile-pending", **values)
        assert '<span class="tile-name">Ben</span> <span class="tile-place">4th</span>' in out
        assert (
            '<button type="button" class="player player-out is-pending" disabled>'
            '<span class="tile-name">Ben</span> <span class="tile-place">4th</span> '
            '<span class="tile-pending">pending</span></button>'
        ) in pending

    def test_a_result_cards_heading_and_places_are_the_servers(self, host_client):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        html = page_of(host_client, table)
        state = board_state_of(html)
        card = html[
            html.index('id="result-card"') : html.index(
                "</section>", html.index('id="result-card"')
            )
        ]
        drawn = queue_template(html, "queue-card", name="Dev", number=1)
        heading = '<span class="crown" aria-hidden="true">♛</span> <bdi>Dev</bdi> wins match 1!'
        assert heading in drawn and heading in card
        assert '<span class="result-pending">(pending)</span>' in drawn
        for seat in state["result"]["seats"]:
            place = str(seat["place"])
            row = queue_template(
                html, "queue-card-place", place=place, label=state["places"][place],
                name=seat["name"], points=state["points"][place],
            )  # fmt: skip
            assert row in card

    def test_the_long_name_rule_comes_with_the_board(self, host_client):
        table = make_table(players=["Alice", "Bartholomew", "Cara", "Dev"])
        html = page_of(host_client, table)
        assert {s["name"]: s["long"] for s in board_state_of(html)["seats"]} == {
            "Alice": False, "Bartholomew": True, "Cara": False, "Dev": False,
        }  # fmt: skip
        bart = player_id(table, "Bartholomew")
        assert f'class="tile tile-long" data-player="{bart}"' in html
        assert "tile-long" not in queue_template(
            html, "queue-tile-standing", name="Bartholomew", player=bart, match=1, key="k"
        )


class TestOfflineShell:
    def test_the_service_worker_lists_the_shell_and_is_never_cached(self, host, client):
        response = client.get("/sw.js")
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/javascript")
        assert "no-cache" in response["Cache-Control"]
        assert response["Service-Worker-Allowed"] == "/"
        body = response.content.decode()
        for path in ["css/app.css", "js/app.js", "js/tap-queue.js", "htmx/htmx.min.js"]:
            assert f'"/static/{path}"' in body
        assert '"/manifest.webmanifest"' in body and '"/favicon.ico"' in body
        assert "const HASHED = false;" in body  # the tests' storage: network first

    def test_with_hashed_static_files_it_names_them_and_changes_with_them(
        self, host, client, settings, tmp_path
    ):
        from django.core.management import call_command

        from matches.web.views import offline

        settings.STATIC_ROOT = tmp_path
        settings.STORAGES = {
            **settings.STORAGES,
            "staticfiles": {
                "BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"
            },
        }
        call_command("collectstatic", interactive=False, verbosity=0)
        body = client.get("/sw.js").content.decode()
        hashed = re.search(r'"(/static/js/tap-queue\.[0-9a-f]{12}\.js)"', body)
        assert hashed, body[:600]
        assert "const HASHED = true;" in body
        version = re.search(r'const VERSION = "(\w+)";', body).group(1)
        urls = offline.shell_urls()
        assert version == offline.shell_version(urls)
        changed = [
            url.replace(hashed.group(1), "/static/js/tap-queue.0123456789ab.js") for url in urls
        ]
        assert offline.shell_version(changed) != version

    def test_the_manifest_installs_full_screen(self, host, client):
        response = client.get("/manifest.webmanifest")
        assert response["Content-Type"].startswith("application/manifest+json")
        manifest = json.loads(response.content)
        assert manifest["display"] == "standalone"
        assert manifest["start_url"] == "/"
        assert {icon["sizes"] for icon in manifest["icons"]} >= {"192x192", "512x512"}
        assert manifest["theme_color"] == "#14613f"
        for icon in manifest["icons"]:
            assert finders.find(icon["src"].removeprefix("/static/")), icon["src"]

    def test_favicon(self, host, client):
        response = client.get("/favicon.ico")
        assert response.status_code == 200
        assert response["Content-Type"] == "image/x-icon"
        assert response.content[:4] == b"\x00\x00\x01\x00"  # an ICO header

    def test_pages_link_the_manifest_and_the_csp_allows_the_worker(self, host, client):
        response = client.get("/")
        html = response.content.decode()
        assert '<link rel="manifest" href="/manifest.webmanifest">' in html
        assert 'rel="apple-touch-icon"' in html
        csp = response["Content-Security-Policy"]
        assert "worker-src 'self'" in csp and "manifest-src 'self'" in csp


class TestWhatHappenedInstead:
    """A tap another tablet made moot is refused with what stands instead (X-Tap-Instead),
    so the tablet can say it."""

    def test_a_tap_in_a_match_won_meanwhile_names_the_winner_and_the_place(self, host_client):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:  # Dev wins match 1
            tap(table, name)
        response = tap_by_number(host_client, table, "Alice", 1)
        assert (response["X-Tap-Outcome"], response["X-Tap-Code"]) == ("refused", "match_filed")
        assert json.loads(response["X-Tap-Instead"]) == {"place": 3, "winner": "Dev"}
        assert type(response["X-Tap-Instead"]) is str
        won = tap_by_number(host_client, table, "Dev", 1)
        assert json.loads(won["X-Tap-Instead"]) == {"place": 1, "winner": "Dev"}
        assert Tap.objects.count() == 3

    def test_a_tap_on_a_player_already_out_names_their_place(self, host_client):
        table = make_table()
        tap(table, "Ben")
        tap(table, "Cara")
        response = tap_by_number(host_client, table, "Ben", 1)
        assert response["X-Tap-Code"] == "already_out"
        assert json.loads(response["X-Tap-Instead"]) == {"place": 4}

    def test_a_name_outside_ascii_travels_escaped(self, host_client):
        table = make_table(players=["Gonçalo", "Inês", "João"])
        tap(table, "João")
        tap(table, "Inês")  # Gonçalo wins
        response = tap_by_number(host_client, table, "João", 1)
        assert response["X-Tap-Instead"].isascii()
        assert json.loads(response["X-Tap-Instead"]) == {"place": 3, "winner": "Gonçalo"}

    def test_other_refusals_carry_nothing_instead(self, host_client, host):
        table = make_table()
        table_close(table_id=table.pk, by=host)
        response = tap_by_number(host_client, table, "Ben", 1)
        assert response["X-Tap-Code"] == "table_closed"
        assert "X-Tap-Instead" not in response


class TestUndoThatAsksFirst:
    def test_the_board_state_says_undo_would_drop_the_new_roster(self, host_client, host):
        table = make_table()
        for name in ["Ben", "Alice", "Cara"]:
            tap(table, name)
        url = reverse("matches:table", args=[table.pk])
        assert board_state(host_client, url)["last_tap"]["drops_roster"] is False
        match_set_roster(
            table_id=table.pk, match_id=open_match(table).pk,
            player_names=["Alice", "Cara", "Dev", "Eve"], by=host,
        )  # fmt: skip
        assert board_state(host_client, url)["last_tap"]["drops_roster"] is True


def board_state(client, url):
    html = client.get(url).content.decode()
    start = html.index('<script id="board-state" type="application/json">')
    return json.loads(html[html.index(">", start) + 1 : html.index("</script>", start)])
