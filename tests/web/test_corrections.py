"""Correcting a filed match from its page: the link and form contracts, exact places
and points after a save, later matches untouched, the audit lines, a correction corrected
back, the refusals (nothing saved, never a 500), the confirmation a night that is over asks
for, and the caches the corrected result shows through."""

import datetime
import re
from html import unescape as html_unescape
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from matches.core.errors import Refusal, RuleError
from matches.integrity import integrity_problems
from matches.models import HeadToHead, Match, MatchCorrection, Seat, Tap
from matches.play import corrections
from matches.play.services.undo import table_undo_last
from matches.ratings.audit import rating_problems
from matches.rules.limits import MAX_PLAYERS, NAME_MAX_LENGTH
from tests.clients import FormClient
from tests.factories import make_host, make_table, open_match, other_venue, places, tap, written

pytestmark = pytest.mark.django_db

GAME = ["Alice", "Ben", "Cara", "Dev"]


def play(table, order):
    """Tap the players out in this order; the last one left is crowned."""
    for name in order:
        tap(table, name)


def correct_url(table, number=1):
    return reverse("matches:match_correct", args=[table.pk, number])


def match_url(table, number=1):
    return reverse("matches:match", args=[table.pk, number])


def filed(table, number=1) -> Match:
    return table.matches.filed().get(number=number)


def points(table, number=1) -> dict[str, int]:
    return {
        seat.player.name: {1: 3, 2: 2, 3: 1}.get(seat.place, 0)
        for seat in filed(table, number).seats.select_related("player")
    }


def save(client, table, players: str, number=1, **extra):
    """The correction confirmed, as the confirmation page posts it."""
    return client.post(correct_url(table, number), {"players": players, "confirm": "1"}, **extra)


def order(correction, side: str) -> list[str]:
    """A correction's order (before or after) as its seats' players are called now."""
    seats = dict(Seat.objects.values_list("pk", "player__name"))
    return [seats[pk] for pk in getattr(correction, f"{side}_seats")]


def text(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


@pytest.fixture
def table(host):
    """Match 1 filed (Alice out first, then Ben, then Cara: Dev won); match 2 filed
    (Dev, Cara, Ben out: Alice won); match 3 open."""
    table = make_table(host=host, players=GAME)
    play(table, ["Alice", "Ben", "Cara"])
    play(table, ["Dev", "Cara", "Ben"])
    return table


class TestTheLink:
    def test_a_host_who_may_change_the_table_sees_it(self, host_client, table):
        html = host_client.get(match_url(table)).content.decode()
        assert f'href="{correct_url(table)}">Correct this match</a>' in html

    def test_the_public_and_other_hosts_do_not(self, client, table):
        assert "Correct this match" not in client.get(match_url(table)).content.decode()
        other = FormClient()
        other.force_login(make_host("other", venue=other_venue()))
        assert "Correct this match" not in other.get(match_url(table)).content.decode()

    def test_the_open_match_has_none(self, host_client, table):
        assert "Correct this match" not in host_client.get(match_url(table, 3)).content.decode()


class TestTheForm:
    def test_it_lists_the_seated_players_in_the_order_they_went_out(self, host_client, table):
        html = host_client.get(correct_url(table)).content.decode()
        field = re.search(r'<textarea name="players"[^>]*>(.*?)</textarea>', html, re.S)
        assert field.group(1).strip().splitlines() == ["Alice", "Ben", "Cara", "Dev"]
        assert (
            '<button type="submit" class="button button-primary">Review correction</button>' in html
        )
        assert 'aria-label="Move Cara up"' in html and 'aria-label="Move Cara down"' in html
        assert 'src="/static/js/correct.js"' in html

    def test_saving_rewrites_places_and_points_and_keeps_later_matches(
        self, host_client, host, table
    ):
        second = places(filed(table, 2))
        response = save(host_client, table, "Cara\nBen\nAlice\nDev\n")
        assert response.status_code == 302 and response["Location"] == match_url(table)
        assert places(filed(table)) == {"Cara": 4, "Ben": 3, "Alice": 2, "Dev": 1}
        assert points(table) == {"Cara": 0, "Ben": 1, "Alice": 2, "Dev": 3}
        assert filed(table).winner.name == "Dev"
        assert places(filed(table, 2)) == second
        assert open_match(table).number == 3
        correction = MatchCorrection.objects.get()
        assert order(correction, "before") == ["Alice", "Ben", "Cara", "Dev"]
        assert order(correction, "after") == ["Cara", "Ben", "Alice", "Dev"]
        assert correction.corrected_by == host
        assert integrity_problems() == []

        page = text(host_client.get(match_url(table)))
        assert "Match 1 corrected." in page
        assert "Corrected by host," in page
        assert "Order before: Alice , Ben , Cara , Dev ." in page
        assert "Order after: Cara , Ben , Alice , Dev ." in page

    def test_a_new_winner_moves_the_win_and_its_head_to_head(self, host_client, table):
        save(host_client, table, "Alice\nBen\nDev\nCara")
        match = filed(table)
        assert match.winner.name == "Cara"
        assert places(match) == {"Alice": 4, "Ben": 3, "Dev": 2, "Cara": 1}
        # Cara finished above Dev in match 2, and now in match 1 too (it was Dev before).
        pair = HeadToHead.objects.get(player__name="Cara", opponent__name="Dev")
        assert (pair.matches, pair.ahead, pair.behind) == (2, 2, 0)
        standings = host_client.get(reverse("matches:api_standings")).json()["rows"]
        by_name = {row["player"]: row for row in standings}
        assert by_name["Cara"]["wins"] == 1 and by_name["Cara"]["points"] == 3 + 1
        assert by_name["Dev"]["wins"] == 0 and by_name["Dev"]["points"] == 2 + 0
        assert integrity_problems() == [] and rating_problems() == []

    def test_a_winner_takes_all_match_keeps_the_order_and_names_only_the_winner(
        self, host, host_client
    ):
        table = make_table(host=host, players=GAME, mode="winner_takes_all")
        play(table, ["Alice", "Ben", "Cara"])
        save(host_client, table, "Dev\nCara\nBen\nAlice")
        assert places(filed(table)) == {"Dev": 4, "Cara": 3, "Ben": 2, "Alice": 1}
        page = text(host_client.get(match_url(table)))
        assert "Winner: Alice" in page
        assert page.count(" out ") >= 3
        rows = host_client.get(reverse("matches:api_standings")).json()["rows"]
        assert {row["player"]: row["wins"] for row in rows} == {
            "Alice": 1, "Ben": 0, "Cara": 0, "Dev": 0
        }  # fmt: skip
        html = host_client.get(correct_url(table)).content.decode()
        field = re.search(r'<textarea name="players"[^>]*>(.*?)</textarea>', html, re.S)
        assert field.group(1).strip().splitlines() == ["Dev", "Cara", "Ben", "Alice"]

    def test_a_correction_can_be_corrected_back(self, host_client, table):
        save(host_client, table, "Dev\nBen\nCara\nAlice")
        save(host_client, table, "Alice\nBen\nCara\nDev")
        assert places(filed(table)) == {"Alice": 4, "Ben": 3, "Cara": 2, "Dev": 1}
        assert [
            (order(c, "before"), order(c, "after")) for c in MatchCorrection.objects.order_by("id")
        ] == [
            (["Alice", "Ben", "Cara", "Dev"], ["Dev", "Ben", "Cara", "Alice"]),
            (["Dev", "Ben", "Cara", "Alice"], ["Alice", "Ben", "Cara", "Dev"]),
        ]
        page = text(host_client.get(match_url(table)))
        assert page.count("Corrected by host,") == 2
        assert integrity_problems() == [] and rating_problems() == []

    def test_names_ignore_case_and_spacing_and_are_kept_as_written_on_the_record(
        self, host_client, table
    ):
        save(host_client, table, "  cara \n\nBEN\nalice\n dev")
        assert places(filed(table)) == {"Cara": 4, "Ben": 3, "Alice": 2, "Dev": 1}
        assert order(MatchCorrection.objects.get(), "after") == ["Cara", "Ben", "Alice", "Dev"]

    def test_the_match_page_reads_its_corrections_in_one_query(self, host_client, table):
        save(host_client, table, "Dev\nBen\nCara\nAlice")
        client = FormClient()
        one_count = _queries(client, table)
        save(host_client, table, "Alice\nBen\nCara\nDev")
        save(host_client, table, "Ben\nAlice\nCara\nDev")
        assert _queries(client, table) == one_count


def _queries(client, table) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(match_url(table)).status_code == 200
    return len(captured)


class TestRefusals:
    @pytest.mark.parametrize(
        "players",
        [
            "Alice\nBen\nCara",  # one missing
            "Alice\nBen\nCara\nDev\nEve",  # one who did not sit
            "Alice\nBen\nCara\nCara",  # twice, one missing
            "Alice\nBen\nCara\nEve",  # another in place of one
            "",
            "x" * 5000,
        ],
    )
    def test_other_names_than_the_seated_save_nothing(self, host_client, table, players):
        before = written()
        response = host_client.post(correct_url(table), {"players": players})
        assert response.status_code == 200
        assert written() == before
        assert not MatchCorrection.objects.exists()
        assert 'class="form-errors"' in response.content.decode() or "field-error" in (
            response.content.decode()
        )

    def test_the_message_names_who_sat(self, host_client, table):
        response = host_client.post(correct_url(table), {"players": "Alice\nBen\nCara\nEve"})
        assert (
            "List exactly the players who sat in match 1, each once: Alice, Ben, Cara, Dev. "
            "Who sat is a roster matter; nothing was changed."
        ) in text(response).replace(" .", ".")

    def test_the_same_order_saves_nothing(self, host_client, table):
        before = written()
        response = host_client.post(correct_url(table), {"players": "Alice\nBen\nCara\nDev"})
        assert "That is the order already filed; nothing was changed." in text(response)
        assert written() == before

    def test_the_open_match_cannot_be_corrected(self, host_client, host, table):
        before = written()
        response = host_client.post(correct_url(table, 3), {"players": "Alice\nBen\nCara\nDev"})
        assert response.status_code == 302 and response["Location"] == match_url(table, 3)
        assert written() == before
        page = text(host_client.get(match_url(table, 3)))
        assert "Match 3 is still in play: only a filed match can be corrected" in page
        with pytest.raises(RuleError) as refused:
            corrections.match_correct(
                table_id=table.pk, number=3, names=["Alice", "Ben", "Cara", "Dev"], by=host
            )
        assert refused.value.code == Refusal.MATCH_IN_PLAY

    def test_another_host_cannot_correct(self, table):
        other = FormClient()
        other.force_login(make_host("other", venue=other_venue()))
        before = written()
        for response in (
            other.get(correct_url(table)),
            other.post(correct_url(table), {"players": "Dev\nBen\nCara\nAlice"}),
        ):
            assert response.status_code == 403
            assert (
                "This table is at Our pub: only its hosts, its managers and the organiser can "
                "correct its matches; nothing was changed."
            ) in text(response)
        assert written() == before

    def test_the_public_is_sent_to_log_in(self, client, table):
        before = written()
        response = client.post(correct_url(table), {"players": "Dev\nBen\nCara\nAlice"})
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
        assert written() == before

    def test_no_such_match_or_table_is_a_404(self, host_client, table):
        assert host_client.get(correct_url(table, 9)).status_code == 404
        assert host_client.post(correct_url(table, 9), {"players": "A"}).status_code == 404
        missing = reverse("matches:match_correct", args=[table.pk + 100, 1])
        assert host_client.post(missing, {"players": "A"}).status_code == 404


class TestANightThatIsOver:
    @pytest.fixture
    def old(self, host):
        two_nights_ago = timezone.now() - datetime.timedelta(days=2)
        with mock.patch.object(timezone, "now", return_value=two_nights_ago):
            table = make_table(host=host, players=GAME, name="Last week")
            play(table, ["Alice", "Ben", "Cara"])
        return table

    def test_saving_asks_to_confirm_and_saves_nothing(self, host_client, old):
        before = written()
        page = host_client.get(correct_url(old)).content.decode()
        assert "This match was played on a night that is over" in page
        response = host_client.post(correct_url(old), {"players": "Dev\nBen\nCara\nAlice"})
        assert response.status_code == 200
        html = response.content.decode()
        assert (
            '<button type="submit" class="button button-danger-solid">Confirm correction</button>'
            in html
        )
        assert written() == before
        assert not MatchCorrection.objects.exists()
        field = re.search(r'<textarea name="players" hidden>(.*?)</textarea>', html, re.S)
        assert field.group(1).split() == ["Dev", "Ben", "Cara", "Alice"]
        assert '<input type="hidden" name="confirm" value="1">' in html

    def test_the_confirmation_sends_back_what_it_shows_for_a_full_table_of_long_names(
        self, host, host_client
    ):
        """The confirm button posts the page's own hidden field, as a browser sends it: its
        text, less the newline after the tag, entities read back. A full table of names at
        the length limit still fits the field's limit."""
        names = [f"{letter * 8} " + "x" * (NAME_MAX_LENGTH - 9) for letter in "ABCDEFGHIJ"]
        assert len(names) == MAX_PLAYERS and {len(name) for name in names} == {NAME_MAX_LENGTH}
        two_nights_ago = timezone.now() - datetime.timedelta(days=2)
        with mock.patch.object(timezone, "now", return_value=two_nights_ago):
            table = make_table(host=host, players=names, name="Last week")
            play(table, names[:-1])
        corrected = [names[1], names[0], *names[2:]]
        html = host_client.post(correct_url(table), {"players": "\n".join(corrected)})
        shown = re.search(
            r'<textarea name="players" hidden>(.*?)</textarea>', html.content.decode(), re.S
        )
        sent = html_unescape(shown.group(1).removeprefix("\n"))
        response = host_client.post(correct_url(table), {"players": sent, "confirm": "1"})
        assert response.status_code == 302
        assert places(filed(table))[names[0]] == 9

    def test_confirming_saves(self, host_client, old):
        response = host_client.post(
            correct_url(old), {"players": "Dev\nBen\nCara\nAlice", "confirm": "1"}
        )
        assert response.status_code == 302
        assert places(filed(old)) == {"Dev": 4, "Ben": 3, "Cara": 2, "Alice": 1}
        assert integrity_problems() == [] and rating_problems() == []


class TestWhatTheCorrectionMoves:
    def test_the_table_version_and_the_standings_stamp_move(self, host_client, table):
        api = reverse("matches:api_table_matches", args=[table.pk])
        first = host_client.get(api)
        tag = first["ETag"]
        standings = host_client.get(reverse("matches:api_standings")).json()["rows"]
        save(host_client, table, "Alice\nBen\nDev\nCara")
        again = host_client.get(api, HTTP_IF_NONE_MATCH=tag)
        assert again.status_code == 200 and again["ETag"] != tag
        first_match = next(m for m in again.json()["matches"] if m["number"] == 1)
        assert first_match["winner"] == "Cara"
        assert host_client.get(reverse("matches:api_standings")).json()["rows"] != standings

    def test_undo_after_correcting_the_latest_crowning_reopens_it_as_corrected(self, host, table):
        corrections.match_correct(
            table_id=table.pk, number=2, names=["Cara", "Dev", "Ben", "Alice"], by=host
        )
        table_undo_last(table_id=table.pk, tap_id=None, by=host, drop_roster=True)
        reopened = table.matches.open().get()
        assert reopened.number == 2
        # Ben, second in the corrected order, stands again with the winner.
        assert places(reopened) == {"Cara": 4, "Dev": 3, "Ben": None, "Alice": None}
        tap(table, "Alice")
        assert places(filed(table, 2)) == {"Cara": 4, "Dev": 3, "Alice": 2, "Ben": 1}
        assert integrity_problems() == [] and rating_problems() == []
        # The taps name who was tapped: Dev out first, then Cara, then (after the undo) Alice.
        live = Tap.objects.filter(match__number=2, match__table=table, undone_at__isnull=True)
        assert list(live.order_by("id").values_list("player__name", "place")) == [
            ("Dev", 4), ("Cara", 3), ("Alice", 2)
        ]  # fmt: skip

    def test_the_seats_of_a_correction_are_the_only_places_it_writes(self, host, table):
        others = list(Seat.objects.exclude(match__number=1).values_list("pk", "place"))
        corrections.match_correct(
            table_id=table.pk, number=1, names=["Dev", "Cara", "Ben", "Alice"], by=host
        )
        assert list(Seat.objects.exclude(match__number=1).values_list("pk", "place")) == others


class TestInPortuguese:
    def test_the_form_the_link_and_the_audit_line_speak_portuguese(self, host_client, table):
        pt = {"HTTP_ACCEPT_LANGUAGE": "pt"}
        assert "Corrigir esta partida" in text(host_client.get(match_url(table), **pt))
        form = text(host_client.get(correct_url(table), **pt))
        assert "Rever a correção" in form and "Ordem de saída" in form
        save(host_client, table, "Dev\nBen\nCara\nAlice", **pt)
        page = text(host_client.get(match_url(table), **pt))
        assert "Partida 1 corrigida." in page
        assert (
            "Corrigida por host," in page and "Ordem anterior: Alice , Ben , Cara , Dev ." in page
        )


class TestTheAdmin:
    @pytest.fixture
    def boss(self, db):
        client = FormClient()
        client.force_login(
            get_user_model().objects.create_superuser(username="boss", password="a-long-pw-1")
        )
        return client

    def test_corrections_are_shown_and_never_changed(self, boss, host, table):
        corrections.match_correct(
            table_id=table.pk, number=1, names=["Dev", "Ben", "Cara", "Alice"], by=host
        )
        correction = MatchCorrection.objects.get()
        page = boss.get(reverse("admin:matches_matchcorrection_changelist")).content.decode()
        assert "Front bar #1" in page
        url = reverse("admin:matches_matchcorrection_change", args=[correction.pk])
        assert 'name="after"' not in boss.get(url).content.decode()
        boss.post(url, {"before": "[]", "after": "[]"})
        boss.post(
            reverse("admin:matches_matchcorrection_delete", args=[correction.pk]), {"post": "yes"}
        )
        assert order(MatchCorrection.objects.get(), "after") == ["Dev", "Ben", "Cara", "Alice"]
        match = reverse("admin:matches_match_change", args=[filed(table).pk])
        assert "Dev" in boss.get(match).content.decode()

    def test_a_table_deleted_takes_its_corrections_with_it(self, boss, host, table):
        corrections.match_correct(
            table_id=table.pk, number=1, names=["Dev", "Ben", "Cara", "Alice"], by=host
        )
        url = reverse("admin:matches_table_delete", args=[table.pk])
        assert boss.post(url, {"post": "yes"}).status_code == 302
        assert not MatchCorrection.objects.exists()
        assert integrity_problems() == []


class TestEveryScreenShowsTheCorrection:
    def test_the_public_page_the_tv_and_a_tap_s_board_after_it(self, host_client, client, table):
        page = reverse("matches:table", args=[table.pk])
        tv = reverse("matches:tv", args=[table.pk])
        # Rendered and kept for spectators before the correction.
        assert "Match 1: Dev won" in text(client.get(page))
        seen_tv = client.get(tv)
        assert "Match 1: Dev won" in text(host_client.get(page))
        api_url = reverse("matches:api_table", args=[table.pk])
        seen_api = client.get(api_url)

        save(host_client, table, "Alice\nBen\nDev\nCara")

        assert "Match 1: Cara won" in text(client.get(page))
        again = client.get(tv, HTTP_IF_NONE_MATCH=seen_tv["ETag"])
        assert again.status_code == 200 and again["ETag"] != seen_tv["ETag"]
        api = client.get(api_url, HTTP_IF_NONE_MATCH=seen_api["ETag"])
        assert api.status_code == 200
        first = next(m for m in api.json()["matches"] if m["number"] == 1)
        assert first["winner"] == "Cara"
        assert first["results"] == [
            {"player": "Cara", "place": 1, "points": 3},
            {"player": "Dev", "place": 2, "points": 2},
            {"player": "Ben", "place": 3, "points": 1},
            {"player": "Alice", "place": 4, "points": 0},
        ]
        tap(table, "Ben")  # a plain tap answers from the filings this process kept
        assert "Match 1: Cara won" in text(host_client.get(page))
