"""A season's "best N nights" rule: each player's season counts their best N
nights (noon to noon), players with fewer than the minimum are not ranked, and the
standings say which nights count; a season without the rule is as before."""

import datetime

import pytest
from django.urls import reverse
from django.utils import formats

from matches.models import Season
from matches.results import seasons
from tests.factories import make_table
from tests.results.test_seasons import DAY, TODAY, play_on

pytestmark = pytest.mark.django_db


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


D1, D2, D3 = TODAY - 20 * DAY, TODAY - 19 * DAY, TODAY - 18 * DAY


@pytest.fixture
def league(host):
    """Ann wins nights 1 and 3, Ben night 2 (Cara third every night); Dev wins his only
    night, at another table."""
    table = make_table(players=["Ann", "Ben", "Cara"])
    play_on(D1, table, ["Cara", "Ben"])  # Ann 3, Ben 2, Cara 1
    play_on(D2, table, ["Cara", "Ann"])  # Ben 3, Ann 2, Cara 1
    play_on(D3, table, ["Cara", "Ben"])  # Ann 3, Ben 2, Cara 1
    other = make_table(players=["Dev", "Eve", "Finn"], name="Back room")
    play_on(D1, other, ["Finn", "Eve"])  # Dev 3
    return Season.objects.create(
        name="Autumn", first_day=TODAY - 25 * DAY, last_day=TODAY - 15 * DAY
    )


def api_rows(client, season):
    return client.get(reverse("matches:api_standings"), {"season": season.pk}).json()["rows"]


def with_rule(season, best, minimum=0):
    Season.objects.filter(pk=season.pk).update(best_nights=best, min_nights=minimum)
    season.refresh_from_db()
    return season


class TestBestNights:
    def test_without_the_rule_every_night_counts(self, league, client):
        rows = api_rows(client, league)
        assert [(r["player"], r["points"], r["played"]) for r in rows][:4] == [
            ("Ann", 8, 3), ("Ben", 7, 3), ("Dev", 3, 1), ("Cara", 3, 3),
        ]  # fmt: skip
        assert all("nights" not in r for r in rows)

    def test_best_two_nights_with_two_to_be_ranked(self, league, client):
        with_rule(league, best=2, minimum=2)
        rows = api_rows(client, league)
        assert [
            (r["player"], r["rank"], r["points"], r["wins"], r["seconds"], r["thirds"],
             r["played"], r["nights"])
            for r in rows
        ] == [
            ("Ann", 1, 6, 2, 0, 0, 2, [D1.isoformat(), D3.isoformat()]),
            # Level nights (D1 and D3, 2 points each): the earlier counts.
            ("Ben", 2, 5, 1, 1, 0, 2, [D1.isoformat(), D2.isoformat()]),
            ("Cara", 3, 2, 0, 0, 2, 2, [D1.isoformat(), D2.isoformat()]),
        ]  # fmt: skip
        # Dev, Eve and Finn played one night: not ranked.

    def test_without_a_minimum_everyone_is_ranked(self, league, client):
        with_rule(league, best=1)
        rows = api_rows(client, league)
        assert [(r["player"], r["points"], r["nights"]) for r in rows][:2] == [
            ("Ann", 3, [D1.isoformat()]),
            ("Ben", 3, [D2.isoformat()]),
        ]
        assert {r["player"] for r in rows} == {"Ann", "Ben", "Cara", "Dev", "Eve", "Finn"}
        dev = next(r for r in rows if r["player"] == "Dev")
        assert (dev["rank"], dev["shared"]) == (1, True)

    def test_the_page_says_the_rule_and_which_nights_count(self, league, client):
        with_rule(league, best=2, minimum=2)
        html = client.get(reverse("matches:standings"), {"season": league.pk}).content.decode()
        assert "Season rule: each player’s best 2 nights count." in html
        assert "Players need 2 nights to be ranked." in html
        first, third = (formats.date_format(d, "MONTH_DAY_FORMAT") for d in (D1, D3))
        assert (
            f'>Ann</a><small class="nights-counted">Nights counted: {first}, {third}</small>'
            in html
        )
        assert ">Dev</a>" not in html
        pt = client.get(
            reverse("matches:standings"), {"season": league.pk}, HTTP_ACCEPT_LANGUAGE="pt"
        ).content.decode()
        assert "Regra da época: contam as 2 melhores noites de cada pessoa." in pt
        assert "Para entrar na classificação são precisas 2 noites." in pt

    def test_the_seasons_page_podium_follows_the_rule(self, league, client):
        with_rule(league, best=2, minimum=2)
        (summary,) = seasons.seasons_overview()
        assert [(r.player, r.rank, r.points) for r in summary.podium] == [
            ("Ann", 1, 6), ("Ben", 2, 5), ("Cara", 3, 2),
        ]  # fmt: skip


class TestSeasonForm:
    def test_a_host_sets_the_rule(self, host_client):
        response = host_client.post(
            reverse("matches:season_new"),
            {"name": "Winter", "first_day": "2026-12-01", "last_day": "2027-02-28",
             "best_nights": "8", "min_nights": "3"},
            follow=True,
        )  # fmt: skip
        assert "Season “Winter” saved." in response.content.decode()
        saved = Season.objects.get()
        assert (saved.best_nights, saved.min_nights) == (8, 3)
        edit = host_client.get(reverse("matches:season_edit", args=[saved.pk])).content.decode()
        assert 'name="best_nights" value="8"' in edit

    def test_left_empty_every_night_counts(self, host_client):
        host_client.post(
            reverse("matches:season_new"),
            {"name": "Winter", "first_day": "2026-12-01", "last_day": "2027-02-28"},
        )
        saved = Season.objects.get()
        assert (saved.best_nights, saved.min_nights) == (None, 0)

    @pytest.mark.parametrize(
        ("extra", "message"),
        [
            ({"best_nights": "0"}, "Count at least one night, or leave it empty."),
            ({"min_nights": "2"}, "A minimum of nights goes with best nights counted."),
            ({"best_nights": "two"}, "Enter a whole number of nights."),
        ],
    )
    def test_refused_and_nothing_saved(self, host_client, extra, message):
        response = host_client.post(
            reverse("matches:season_new"),
            {"name": "Winter", "first_day": "2026-12-01", "last_day": "2027-02-28", **extra},
        )
        assert response.status_code == 400
        assert message in response.content.decode()
        assert not Season.objects.exists()

    def test_the_service_refuses_a_minimum_without_the_rule(self, host):
        from matches.core.errors import RuleError

        with pytest.raises(RuleError, match="A minimum of nights goes with best nights"):
            seasons.season_save(
                season_id=None, name="W", first_day=datetime.date(2026, 12, 1),
                last_day=datetime.date(2027, 1, 1), min_nights=2, by=host,
            )  # fmt: skip
        assert not Season.objects.exists()
