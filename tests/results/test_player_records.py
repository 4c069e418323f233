"""Renaming and merging players from the app: nothing lost, integrity and ratings hold, and
standings, ratings and the TV show the change at once."""

import re

import pytest
from django.urls import reverse

from matches.integrity import integrity_problems
from matches.models import AllTimeTotal, DailyTally, Match, Player, RatingChange, Seat, Tap
from matches.ratings.audit import rating_problems
from matches.ratings.selectors import rating_table
from matches.results import standings as league_standings
from matches.results.head_to_head import head_to_head
from tests.clients import FormClient
from tests.factories import make_table, tap

pytestmark = pytest.mark.django_db


@pytest.fixture
def host(organiser):
    """The organiser, whose work renaming, merging and naming players and defining seasons
    is (org.roles): a venue's host is refused it (tests/org/test_role_matrix.py)."""
    return organiser


def crown(table, order):
    for name in order:
        tap(table, name)


def merge_through_pages(host_client, keep, other: str, **kwargs):
    """The merge as a host makes it: the other record's name, then Confirm merge on the page
    that shows both records."""
    url = reverse("matches:player_merge", args=[keep.pk])
    shown = host_client.post(url, {"other": other})
    assert shown.status_code == 200, shown.content.decode()
    other_id = re.search(r'name="other_id" value="(\d+)"', shown.content.decode()).group(1)
    named = re.search(r'name="other" value="([^"]*)"', shown.content.decode()).group(1)
    body = {"other": named, "other_id": other_id, "confirm": "1"}
    return host_client.post(url, body, **kwargs)


def standings_names(client) -> list[str]:
    """The names on the league's standings across both modes (a league of both opens on the
    mode played most)."""
    html = client.get(reverse("matches:standings"), {"mode": ""}).content.decode()
    # A row's tie-break note follows the name in its cell.
    tie_break = r"(?:<small[^>]*>[^<]*</small>)?"
    return re.findall(rf'<td><a href="/players/\d+/">([^<]+)</a>{tie_break}</td>', html)


class TestRename:
    def test_rename_shows_at_once_on_cached_standings_ratings_and_the_tv(self, host_client, host):
        table = make_table(host=host, players=["Ann", "Ben", "Cy"])
        crown(table, ["Cy", "Ben"])
        viewer = FormClient()
        assert standings_names(viewer)[0] == "Ann"  # now cached
        tv = reverse("matches:tv", args=[table.pk])
        etag = viewer.get(tv)["ETag"]
        ann = Player.objects.get(name="Ann")
        response = host_client.post(
            reverse("matches:player_rename", args=[ann.pk]), {"name": "Annie"}, follow=True
        )
        assert "Renamed to “Annie”." in response.content.decode()
        assert standings_names(viewer)[0] == "Annie"
        assert viewer.get(reverse("matches:api_ratings")).json()["rows"][0]["player"] == "Annie"
        fresh = viewer.get(tv, HTTP_IF_NONE_MATCH=etag)
        assert fresh.status_code == 200 and "Annie" in fresh.content.decode()
        assert Player.objects.get(pk=ann.pk).key == "annie"

    def test_a_name_another_player_has_is_refused(self, host_client, host):
        make_table(host=host, players=["Ann", "Ben", "Cy"])
        ann = Player.objects.get(name="Ann")
        response = host_client.post(
            reverse("matches:player_rename", args=[ann.pk]), {"name": "ben"}
        )
        assert response.status_code == 400
        assert (
            "Another player is already called “Ben” (names ignore upper and lower case); "
            "choose a different name." in response.content.decode()
        )
        assert Player.objects.get(pk=ann.pk).name == "Ann"

    def test_changing_only_the_case_is_allowed(self, host_client, host):
        make_table(host=host, players=["ann", "Ben", "Cy"])
        ann = Player.objects.get(name="ann")
        host_client.post(reverse("matches:player_rename", args=[ann.pk]), {"name": "Ann"})
        assert Player.objects.get(pk=ann.pk).name == "Ann"

    def test_visitors_cannot_rename(self, client, host):
        make_table(host=host, players=["Ann", "Ben", "Cy"])
        ann = Player.objects.get(name="Ann")
        response = client.post(reverse("matches:player_rename", args=[ann.pk]), {"name": "X"})
        assert response.status_code == 302 and "/login/" in response.url
        assert Player.objects.get(pk=ann.pk).name == "Ann"


class TestMerge:
    @pytest.fixture
    def league(self, host):
        """ "Dev" and "Devon" are one person, entered twice at different tables."""
        ranked = make_table(host=host, players=["Ann", "Dev", "Cy"], name="Ranked")
        crown(ranked, ["Cy", "Ann"])  # Dev wins
        crown(ranked, ["Dev", "Ann"])  # Cy wins, Dev 3rd
        wta = make_table(
            host=host, players=["Devon", "Ann", "Bo"], name="WTA", mode="winner_takes_all"
        )
        crown(wta, ["Ann", "Bo"])  # Devon wins
        crown(ranked, ["Ann", "Cy"])  # Dev wins again, after Devon's match
        tap(wta, "Bo")  # an open match with a live tap by Devon's table
        return ranked, wta

    def totals(self) -> dict[str, tuple]:
        return {
            row.player: (row.played, row.wins, row.seconds, row.thirds, row.points)
            for row in league_standings.standings()
        }

    def test_merge_moves_everything_and_integrity_passes(self, host_client, league):
        before = self.totals()
        seats, taps = Seat.objects.count(), Tap.objects.count()
        dev = Player.objects.get(name="Dev")
        devon = Player.objects.get(name="Devon")
        both = Seat.objects.filter(player__in=[dev, devon]).count()
        response = merge_through_pages(host_client, dev, "devon", follow=True)
        assert "“Devon” is now part of Dev: every match, win and rating moved." in (
            response.content.decode()
        )
        assert not Player.objects.filter(name="Devon").exists()
        assert (Seat.objects.count(), Tap.objects.count()) == (seats, taps)
        assert Seat.objects.filter(player=dev).count() == both
        assert Match.objects.filed().filter(winner=dev).count() == 3
        expected = {name: counts for name, counts in before.items() if name != "Devon"}
        d, dn = before["Dev"], before["Devon"]
        expected["Dev"] = tuple(a + b for a, b in zip(d, dn, strict=True))
        assert self.totals() == expected
        # The per-table and per-day rows add up too (the integrity scan checks them).
        assert not DailyTally.objects.filter(player_id=devon.pk).exists()
        assert not AllTimeTotal.objects.filter(player_id=devon.pk).exists()
        assert integrity_problems() == []
        assert rating_problems() == []

    def test_ratings_and_head_to_head_follow(self, host_client, league):
        dev = Player.objects.get(name="Dev")
        merge_through_pages(host_client, dev, "Devon")
        row = next(r for r in rating_table() if r.player == "Dev")
        assert row.matches == 4
        assert RatingChange.objects.filter(player=dev).count() == 4
        rivals = {r.opponent: (r.matches, r.ahead, r.behind) for r in head_to_head(player=dev)}
        assert rivals == {"Ann": (4, 3, 1), "Cy": (3, 2, 1), "Bo": (1, 1, 0)}

    def test_two_players_of_one_match_cannot_be_merged(self, host_client, league):
        dev, ann = Player.objects.get(name="Dev"), Player.objects.get(name="Ann")
        response = host_client.post(
            reverse("matches:player_merge", args=[dev.pk]), {"other": "Ann"}
        )
        assert response.status_code == 400
        assert "Dev and Ann both sat in match 1 at “Ranked”, so they are two people" in (
            response.content.decode()
        )
        assert Player.objects.filter(pk=ann.pk).exists()

    @pytest.mark.parametrize(
        ("other", "message"),
        [("Nobody", "There is no player called “Nobody”; nothing was changed."),
         ("dev", "A record cannot be merged into itself; nothing was changed.")],
    )  # fmt: skip
    def test_clear_errors(self, host_client, league, other, message):
        dev = Player.objects.get(name="Dev")
        response = host_client.post(
            reverse("matches:player_merge", args=[dev.pk]), {"other": other}
        )
        assert response.status_code == 400 and message in response.content.decode()
        assert Player.objects.count() == 5

    def test_standings_refreshed_at_once(self, host_client, league):
        viewer = FormClient()
        assert "Devon" in standings_names(viewer)
        dev = Player.objects.get(name="Dev")
        merge_through_pages(host_client, dev, "Devon")
        names = standings_names(viewer)
        assert "Devon" not in names and names[0] == "Dev"
