"""The season page (its qualification rules in words and their history), the organiser's
rules page with its confirmation once the season has started, and the qualifiers page and
JSON: exact lists, reasons and query counts."""

import re
from dataclasses import replace

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from matches.core.errors import Refusal, RuleError
from matches.models import Player, Season, SeasonRuleChange, Table
from matches.org.roles import SEASONS_ARE_THE_ORGANISERS
from matches.play.services.tables import table_launch
from matches.results import season_rules, seasons
from matches.results.season_rules import rules_change, season_rules_save
from matches.rules.qualifying import QualifyingRules
from tests.clients import FormClient
from tests.factories import body, make_host, other_venue
from tests.results.test_qualifiers import D1, DAY, TODAY, crown, pubs  # noqa: F401

pytestmark = pytest.mark.django_db


def ended(**rules) -> Season:
    return Season.objects.create(
        name="Autumn", first_day=TODAY - 40 * DAY, last_day=TODAY - 10 * DAY, **rules
    )


def running(**rules) -> Season:
    return Season.objects.create(
        name="Winter", first_day=TODAY - 40 * DAY, last_day=TODAY + 10 * DAY, **rules
    )


def logged_in(user) -> FormClient:
    client = FormClient()
    client.force_login(user)
    return client


@pytest.fixture
def boss(pubs):  # noqa: F811
    return get_user_model().objects.get(username="organiser")


class TestQualifiersPage:
    def test_the_lists_with_their_reasons_when_final(self, pubs, client):  # noqa: F811
        season = ended(qualify_places=4, qualify_min_nights=4)
        html = body(client.get(reverse("matches:season_qualifiers", args=[season.pk])))
        assert '<span class="badge">Final</span>' in html
        assert "The league has played 4 nights in this season." in html
        assert (
            "The Crown ran 3 of the league’s 4 nights: a player needs 4 × 3 ÷ 4, rounded up,"
            " = 3 nights here." in html
        )
        rows = [
            (name, reason)
            for name, reason in __import__("re").findall(
                r"<bdi>([^<]+)</bdi></a></th>.*?<td class=\"reason\">(?:<strong>)?([^<]+)",
                html,
                __import__("re").S,
            )
        ]
        assert rows == [
            ("Eve", "Qualified: 1st at The Anchor"),
            ("Bob", "Qualified at The Crown instead"),
            ("Fay", "Qualified: 3rd at The Anchor"),
            ("Bob", "Qualified: 1st at The Crown"),
            ("Ann", "Qualified: 2nd at The Crown"),
            ("Cy", "Qualified: 3rd at The Crown"),
            ("Gus", "1 night at The Crown; needs 3"),
            ("Dee", "Qualified: 5th at The Crown"),
            ("Hal", "1 night at The Crown; needs 3"),
            ("Ivy", "1 night at The Crown; needs 3"),
        ]

    def test_in_portuguese(self, pubs, client):  # noqa: F811
        season = running(qualify_places=4, qualify_min_nights=4)
        client.cookies["django_language"] = "pt"
        html = body(client.get(reverse("matches:season_qualifiers", args=[season.pk])))
        assert "Se a época acabasse esta noite" in html
        assert "1 noite em The Crown; são precisas 3" in html
        assert "Apurou-se noutro local: The Crown" in html
        page = body(client.get(reverse("matches:season", args=[season.pk])))
        assert "Apuram-se os 4 primeiros de cada local." in page

    def test_a_running_season_says_if_it_ended_tonight(self, pubs, client):  # noqa: F811
        season = running()
        html = body(client.get(reverse("matches:season_qualifiers", args=[season.pk])))
        assert "If the season ended tonight" in html
        assert "Final</span>" not in html

    def test_the_json(self, pubs, client):  # noqa: F811
        season = ended(qualify_places=2)
        data = client.get(reverse("matches:api_season_qualifiers", args=[season.pk])).json()
        assert (data["status"], data["final"], data["league_nights"]) == ("finished", True, 4)
        assert data["rules"] == {
            "places": 2, "percent": None, "min_nights": 0, "best_nights": None, "one_venue": True,
        }  # fmt: skip
        anchor, crown_pub = data["venues"]
        assert (anchor["venue"], anchor["places"], anchor["nights"], anchor["needed_nights"]) == (
            "the-anchor", 2, 2, 0,
        )  # fmt: skip
        assert [
            (p["player"], p["position"], p["qualified"], p["reason"], p["reason_text"],
             p["nights"], p["points"], p["wins"])
            for p in anchor["players"]
        ] == [
            ("Eve", 1, True, "qualified", "Qualified: 1st at The Anchor", 2, 5, 1),
            ("Bob", 2, False, "qualified_elsewhere", "Qualified at The Crown instead", 2, 4, 1),
            ("Fay", 3, True, "qualified", "Qualified: 3rd at The Anchor", 2, 3, 0),
        ]  # fmt: skip
        # Down to the last qualifier and three more: Hal and Ivy are not listed.
        assert [p["player"] for p in crown_pub["players"]] == ["Bob", "Ann", "Cy", "Gus", "Dee"]
        assert [(f["player"], f["venue"], f["season_rank"]) for f in data["finalists"]] == [
            ("Bob", "our-pub", 1), ("Eve", "the-anchor", 2), ("Ann", "our-pub", 3),
            ("Fay", "the-anchor", 4),
        ]  # fmt: skip

    def test_the_json_is_english_in_every_language(self, pubs, client):  # noqa: F811
        season = ended(qualify_places=2)
        data = client.get(
            reverse("matches:api_season_qualifiers", args=[season.pk]), HTTP_ACCEPT_LANGUAGE="pt"
        ).json()
        assert data["venues"][0]["players"][0]["reason_text"] == "Qualified: 1st at The Anchor"

    def test_queries_do_not_grow_with_players_or_venues(
        self,
        pubs,  # noqa: F811
        client,
        django_assert_num_queries,
    ):
        season = ended(qualify_places=2, qualify_min_nights=2)
        page = reverse("matches:season_qualifiers", args=[season.pk])
        api = reverse("matches:api_season_qualifiers", args=[season.pk])
        client.get(page)  # the process's first request asks once whether a host exists
        for _ in range(2):
            # The season, the season's tallies, the venues.
            with django_assert_num_queries(3):
                assert client.get(page).status_code == 200
            with django_assert_num_queries(3):
                assert client.get(api).status_code == 200
            # A third venue with a table of its own: the same queries.
            boss = get_user_model().objects.get(username="organiser")
            swan = other_venue("The Swan")
            table = table_launch(
                name="Swan bar", player_names=["Jo", "Kit", "Lu", "Mo"], mode="ranked",
                by=boss, venue_id=swan.pk,
            )  # fmt: skip
            crown(table, ["Jo", "Kit", "Lu"], D1)

    def test_an_upcoming_season_lists_nobody(self, pubs, client):  # noqa: F811
        season = Season.objects.create(
            name="Spring", first_day=TODAY + DAY, last_day=TODAY + 20 * DAY
        )
        html = body(client.get(reverse("matches:season_qualifiers", args=[season.pk])))
        assert "The season has not started: nobody has qualified yet." in html
        data = client.get(reverse("matches:api_season_qualifiers", args=[season.pk])).json()
        assert (data["status"], data["venues"], data["finalists"]) == ("upcoming", [], [])


class TestSeasonPage:
    def test_the_rules_in_plain_words(self, pubs, client):  # noqa: F811
        season = ended(qualify_places=6, qualify_percent=25, qualify_min_nights=4)
        html = body(client.get(reverse("matches:season", args=[season.pk])))
        assert (
            "The top 25% of each venue’s ranked players qualify (rounded up), at most 6 players"
            " per venue." in html
        )
        assert (
            "A player needs 4 nights at the venue; a venue that ran fewer of the league’s nights"
            " asks for fewer: 4 × its nights ÷ the league’s nights, rounded up." in html
        )
        assert "Every night at the venue counts." in html
        assert "A player qualifies at one venue only, where their position is best" in html
        assert reverse("matches:season_qualifiers", args=[season.pk]) in html
        assert "The rules have not been changed since the season was added." in html


class TestRuleChanges:
    def test_before_the_first_night_a_change_saves_at_once(self, boss):
        season = Season.objects.create(
            name="Spring", first_day=TODAY + DAY, last_day=TODAY + 20 * DAY
        )
        client = logged_in(boss)
        response = client.post(
            reverse("matches:season_rules", args=[season.pk]),
            {"places": "4", "min_nights": "3", "one_venue": "on"},
        )
        assert response.status_code == 302
        season.refresh_from_db()
        assert (season.qualify_places, season.qualify_min_nights) == (4, 3)
        change = SeasonRuleChange.objects.get()
        assert (change.by, change.after_first_night, change.gained, change.lost) == (
            boss, False, [], [],
        )  # fmt: skip
        assert change.before["places"] == 8 and change.after["places"] == 4

    def test_after_the_first_night_the_change_waits_for_confirmation(self, pubs, boss):  # noqa: F811
        season = running(qualify_places=2)
        client = logged_in(boss)
        url = reverse("matches:season_rules", args=[season.pk])
        response = client.post(url, {"places": "3", "one_venue": "on"})
        html = body(response)
        assert response.status_code == 200
        # Three places: Cy comes in at The Crown; The Anchor had three players already.
        assert "Would gain a place: <bdi>Cy</bdi>" in html
        assert "Would lose a place: nobody" in html
        assert "Was: Each venue’s top 2 players qualify. Now: Each venue’s top 3" in html
        assert SeasonRuleChange.objects.count() == 0
        assert Season.objects.get().qualify_places == 2
        token = rules_change(season, replace(season.qualifying_rules, places=3)).token
        assert f'name="confirm" value="{token}"' in html
        response = client.post(url, {"places": "3", "one_venue": "on", "confirm": token})
        assert response.status_code == 302
        assert Season.objects.get().qualify_places == 3
        change = SeasonRuleChange.objects.get()
        assert change.after_first_night and change.by == boss
        page = body(client.get(reverse("matches:season", args=[season.pk]), follow=True))
        assert "The qualification rules of “Winter” are saved." in page
        when = timezone.localtime(change.at)
        assert "by organiser" in page
        assert "after the first night" in page
        assert "Gained a place: Cy" in page
        assert str(when.year) in page

    def test_a_confirmation_of_another_change_saves_nothing(self, pubs, boss):  # noqa: F811
        season = running(qualify_places=2)
        client = logged_in(boss)
        url = reverse("matches:season_rules", args=[season.pk])
        stale = rules_change(season, replace(season.qualifying_rules, places=3)).token
        # The organiser confirmed three places, but the form now asks for one venue off.
        response = client.post(url, {"places": "3", "confirm": stale})
        assert response.status_code == 200
        assert str(season_rules.RULES_CHANGED_MEANWHILE) in body(response)
        assert Season.objects.get().qualify_one_venue is True
        assert SeasonRuleChange.objects.count() == 0

    def test_the_service_refuses_without_confirmation(self, pubs, boss):  # noqa: F811
        season = running(qualify_places=2)
        with pytest.raises(RuleError) as refused:
            season_rules_save(season_id=season.pk, rules=QualifyingRules(places=1), by=boss)
        assert refused.value.code == Refusal.RULES_UNCONFIRMED
        assert refused.value.message == str(season_rules.RULES_NEED_CONFIRMATION)
        assert SeasonRuleChange.objects.count() == 0

    def test_a_host_is_refused_and_nothing_is_saved(self, pubs):  # noqa: F811
        season = Season.objects.create(
            name="Spring", first_day=TODAY + DAY, last_day=TODAY + 20 * DAY
        )
        client = logged_in(make_host("barman"))
        response = client.post(reverse("matches:season_rules", args=[season.pk]), {"places": "4"})
        assert response.status_code == 403
        assert str(SEASONS_ARE_THE_ORGANISERS) in body(response)
        assert Season.objects.get().qualify_places == 8
        assert SeasonRuleChange.objects.count() == 0
        anonymous = FormClient().post(reverse("matches:season_rules", args=[season.pk]))
        assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]

    def test_best_nights_needs_the_seasons_rule(self, pubs, boss):  # noqa: F811
        season = Season.objects.create(
            name="Spring", first_day=TODAY + DAY, last_day=TODAY + 20 * DAY
        )
        with pytest.raises(RuleError):
            season_rules_save(season_id=season.pk, rules=QualifyingRules(best_nights=3), by=boss)
        assert SeasonRuleChange.objects.count() == 0


class TestTheSeasonFormAndTheRules:
    def test_the_best_nights_the_qualifiers_count_stay_while_they_count_them(self, boss):
        season = Season.objects.create(
            name="Spring", first_day=TODAY + DAY, last_day=TODAY + 20 * DAY, best_nights=4,
            qualify_best_nights=True,
        )  # fmt: skip
        form = {"name": "Spring", "first_day": (TODAY + DAY).isoformat(),
                "last_day": (TODAY + 20 * DAY).isoformat()}  # fmt: skip
        client = logged_in(boss)
        response = client.post(reverse("matches:season_edit", args=[season.pk]), form)
        assert response.status_code == 400
        assert str(seasons.SEASON_BEST_NIGHTS_QUALIFY) in body(response)
        assert Season.objects.get().best_nights == 4
        # Before the first night another number is fine: the qualifiers follow it.
        response = client.post(
            reverse("matches:season_edit", args=[season.pk]), {**form, "best_nights": "3"}
        )
        assert response.status_code == 302
        assert Season.objects.get().qualifying_rules.best_nights == 3

    def test_after_the_first_night_it_goes_through_the_rules(self, pubs, boss):  # noqa: F811
        season = running(best_nights=4, qualify_best_nights=True)
        with pytest.raises(RuleError) as refused:
            seasons.season_save(
                season_id=season.pk, name="Winter", first_day=season.first_day,
                last_day=season.last_day, best_nights=3, by=boss,
            )  # fmt: skip
        assert refused.value.message == str(seasons.SEASON_BEST_NIGHTS_QUALIFY)


def hidden_fields(html: str) -> dict[str, str]:
    return dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', html))


class TestTheConfirmationPage:
    def test_its_hidden_form_saves_exactly_what_it_showed(self, pubs, boss):  # noqa: F811
        season = running(qualify_places=2, qualify_one_venue=True)
        client = logged_in(boss)
        url = reverse("matches:season_rules", args=[season.pk])
        # One venue off: Bob keeps The Anchor's place too, so Fay loses hers.
        html = body(client.post(url, {"places": "2", "min_nights": "1"}))
        assert "Would gain a place: nobody" in html
        assert "Would lose a place: <bdi>Fay</bdi>" in html
        fields = hidden_fields(html)
        assert set(fields) >= {"csrfmiddlewaretoken", "places", "confirm"}
        response = client.post(url, fields)
        assert response.status_code == 302
        saved = Season.objects.get()
        assert (saved.qualify_places, saved.qualify_min_nights, saved.qualify_one_venue) == (
            2, 1, False,
        )  # fmt: skip
        change = SeasonRuleChange.objects.get()
        assert change.lost == [Player.objects.get(name="Fay").pk] and change.gained == []

    def test_a_result_filed_meanwhile_asks_again(self, pubs, boss):  # noqa: F811
        season = running(qualify_places=1)
        client = logged_in(boss)
        url = reverse("matches:season_rules", args=[season.pk])
        fields = hidden_fields(body(client.post(url, {"places": "2", "one_venue": "on"})))
        # Gus wins two more matches at The Crown tonight: the change now brings in someone else.
        snug = Table.objects.get(name="Snug")
        crown(snug, ["Ivy", "Hal"], TODAY)
        crown(snug, ["Ivy", "Hal"], TODAY)
        response = client.post(url, fields)
        assert response.status_code == 200
        assert str(season_rules.RULES_CHANGED_MEANWHILE) in body(response)
        assert Season.objects.get().qualify_places == 1
        assert SeasonRuleChange.objects.count() == 0


class TestSeasonPageQueries:
    def test_the_history_reads_in_a_fixed_number_of_queries(
        self,
        pubs,  # noqa: F811
        boss,
        client,
        django_assert_num_queries,
    ):
        season = ended()
        url = reverse("matches:season", args=[season.pk])
        client.get(url)
        for places in (3, 4, 5):
            rules = replace(Season.objects.get().qualifying_rules, places=places)
            token = rules_change(Season.objects.get(), rules).token
            season_rules_save(season_id=season.pk, rules=rules, by=boss, confirm=token)
            # The season, its changes with their authors, the players they moved; and its
            # finals night (_season_champion.html: none yet).
            with django_assert_num_queries(4):
                html = body(client.get(url))
        assert html.count("by host") == 3  # the public reads the host's display name
        assert "Lost a place: " in html
