"""A venue's standings: only the matches at its tables, equal to a count made here from the
filed seats for any range, mode, undo and merge, beside league standings that count
everything; the venue on every aggregate row, checked by the integrity scan; the page, JSON
and CSV filters; the player page's venues."""

import csv
import datetime
import io
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from hypothesis import given, settings

from matches.integrity import integrity_problems
from matches.models import (
    AllTimeTotal,
    DailyTally,
    Match,
    Player,
    RunningTotal,
    Seat,
    Tap,
    VenueRole,
)
from matches.play.services.tables import table_launch
from matches.play.services.undo import table_undo_last
from matches.results import running_totals, tallies
from matches.results import standings as league_standings
from matches.results.filing import league_recount
from matches.results.players import services as player_records
from matches.results.standings import StandingsQuery
from matches.rules.nights import night_of
from matches.rules.scoring import COUNT_FIELDS, place_counts
from tests.clients import FormClient
from tests.factories import first_venue, other_venue, tap
from tests.strategies import asked_ranges, dated_operations

pytestmark = pytest.mark.django_db

TODAY = night_of()
D1, D2, D3 = TODAY - datetime.timedelta(days=10), TODAY - datetime.timedelta(days=5), TODAY
DAY = datetime.timedelta(days=1)


@pytest.fixture
def boss(db):
    """The organiser: launches at every venue."""
    return get_user_model().objects.create_superuser(username="boss", password="a-long-pass-1")


def launch(boss, venue, players, *, name, mode="ranked"):
    return table_launch(name=name, player_names=players, mode=mode, by=boss, venue_id=venue.pk)


def crown(table, order, day: datetime.date):
    """Tap players out in this order (the last one left wins), filed on that day at noon."""
    when = timezone.make_aware(datetime.datetime.combine(day, datetime.time(12)))
    with mock.patch.object(timezone, "now", return_value=when):
        for name in order:
            tap(table, name)


def recount(venue=None, date_from=None, date_to=None, mode=None) -> dict[str, tuple]:
    """Each player's counts added up from the filed seats themselves, at one venue or all."""
    totals: dict[str, list[int]] = {}
    seats = Seat.objects.filter(match__status=Match.Status.FILED).select_related(
        "player", "match__table"
    )
    for seat in seats:
        day = night_of(seat.match.filed_at)
        if (date_from and day < date_from) or (date_to and day > date_to):
            continue
        if mode and seat.match.table.mode != mode:
            continue
        if venue is not None and seat.match.table.venue_id != venue.pk:
            continue
        worth = place_counts(seat.match.table.mode, seat.place)
        row = totals.setdefault(seat.player.name, [0] * len(COUNT_FIELDS))
        for index, field in enumerate(COUNT_FIELDS):
            row[index] += getattr(worth, field)
    return {name: tuple(row) for name, row in totals.items() if row[0]}


def read(venue=None, date_from=None, date_to=None, mode=None) -> dict[str, tuple]:
    query = StandingsQuery(
        venue_id=venue.pk if venue else None, date_from=date_from, date_to=date_to, mode=mode
    )
    rows = league_standings.standings(query, real_names=True)
    return {r.player: tuple(getattr(r, field) for field in COUNT_FIELDS) for r in rows}


@pytest.fixture
def pubs(boss):
    """Two venues; Bob and Cy play at both, Ann only at the first, Eve only at the other."""
    home, anchor = first_venue(), other_venue("The Anchor")
    front = launch(boss, home, ["Ann", "Bob", "Cy", "Dee"], name="Front bar")
    back = launch(boss, anchor, ["Bob", "Cy", "Eve"], name="Back room", mode="winner_takes_all")
    crown(front, ["Dee", "Cy", "Bob"], D2)  # Ann 1st, Bob 2nd, Cy 3rd
    crown(back, ["Eve", "Bob"], D2)  # Cy wins
    crown(front, ["Ann", "Dee", "Bob"], D1)  # Cy 1st, Bob 2nd, Dee 3rd: an earlier day
    crown(back, ["Cy", "Eve"], D3)  # Bob wins
    return home, anchor


RANGES = [(None, None), (D1, D1), (D1 - DAY, D2), (D2, None), (None, D2 - DAY), (D3, D3)]


class TestVenueStandings:
    @pytest.mark.parametrize("mode", [None, "ranked", "winner_takes_all"])
    @pytest.mark.parametrize(("date_from", "date_to"), RANGES)
    def test_each_venue_and_the_league_equal_a_count_of_the_seats(
        self, pubs, date_from, date_to, mode
    ):
        home, anchor = pubs
        for venue in (home, anchor, None):
            assert read(venue, date_from, date_to, mode) == recount(venue, date_from, date_to, mode)

    def test_a_player_of_two_venues_is_in_both_and_the_league_adds_them_up(self, pubs):
        home, anchor = pubs
        assert read(home) == {
            "Ann": (2, 1, 0, 0, 3),
            "Bob": (2, 0, 2, 0, 4),
            "Cy": (2, 1, 0, 1, 4),
            "Dee": (2, 0, 0, 1, 1),
        }
        assert read(anchor) == {
            "Bob": (2, 1, 0, 0, 0),
            "Cy": (2, 1, 0, 0, 0),
            "Eve": (2, 0, 0, 0, 0),
        }
        assert read()["Bob"] == (4, 1, 2, 0, 4)
        assert read()["Cy"] == (4, 2, 0, 1, 4)

    def test_a_venue_without_matches_has_no_standings(self, pubs):
        assert read(other_venue("The Crown")) == {}
        assert read(other_venue("The Crown"), D1, D3) == {}

    def test_a_table_at_another_venue_reads_nothing_there(self, pubs):
        home, anchor = pubs
        front = home.tables.get()
        assert (
            league_standings.standings(StandingsQuery(table_id=front.pk, venue_id=anchor.pk)) == []
        )

    def test_a_season_best_nights_rule_counts_nights_at_the_venue(self, pubs):
        _home, anchor = pubs
        query = StandingsQuery(
            venue_id=anchor.pk, date_from=D1, date_to=D3, best_nights=1, wins_only=True
        )
        rows = {r.player: (r.played, r.wins, r.nights) for r in league_standings.standings(query)}
        # At the Anchor, Bob's best night is D3's win; at the league his nights are three.
        assert rows == {"Bob": (1, 1, (D3,)), "Cy": (1, 1, (D2,)), "Eve": (1, 0, (D2,))}

    def test_an_undo_and_a_merge_keep_every_venue_equal_to_the_seats(self, pubs, boss):
        home, anchor = pubs
        back = anchor.tables.get()
        crown(back, ["Eve"], D3)  # the next match: one tap, then undone
        table_undo_last(table_id=back.pk, tap_id=None, by=boss)
        # Dee never shared a match with Eve: her record merges into Eve's.
        eve = Player.objects.get(name="Eve")
        player_records.player_merge(keep_id=eve.pk, other_name="Dee", by=boss)
        for venue in (home, anchor, None):
            for date_from, date_to in RANGES:
                assert read(venue, date_from, date_to) == recount(venue, date_from, date_to)
        assert "Eve" in read(home) and "Eve" in read(anchor)
        assert integrity_problems() == []


@settings(max_examples=30)
@given(ops=dated_operations, asked=asked_ranges)
def test_random_leagues_across_venues_read_as_the_seats_count(boss, ops, asked):
    start = TODAY - 8 * DAY
    with transaction.atomic():
        home, anchor = first_venue(), other_venue("The Anchor")
        tables = [
            launch(boss, home, ["Ann", "Bob", "Cy", "Dee"], name="R"),
            launch(boss, anchor, ["Bob", "Cy", "Dee", "Eve"], name="W", mode="winner_takes_all"),
            launch(boss, anchor, ["Ann", "Cy", "Eve"], name="S"),
        ]
        for op in ops:
            table = tables[op[1]]
            if op[0] == "file":
                seats = table.matches.open().get().seats.filter(place__isnull=True)
                standing = [s.player.name for s in seats.select_related("player")]
                winner = standing[op[3] % len(standing)]
                crown(table, [name for name in standing if name != winner], start + op[2] * DAY)
            elif Tap.objects.filter(match__table=table, undone_at__isnull=True).exists():
                table_undo_last(table_id=table.pk, tap_id=None, by=boss)
        for low, high, mode in asked:
            date_from = None if low is None else start + low * DAY
            date_to = None if high is None else start + high * DAY
            if date_from and date_to and date_from > date_to:
                continue
            for venue in (home, anchor, None):
                assert read(venue, date_from, date_to, mode) == recount(
                    venue, date_from, date_to, mode
                )
        for venue in (home, anchor, None):
            assert running_totals.filed_per_mode(venue.slug if venue else None) == filed_count(
                venue
            )
        assert integrity_problems() == []
        transaction.set_rollback(True)


class TestAggregatesCarryTheVenue:
    def test_every_tally_and_total_names_its_tables_venue(self, pubs):
        for model in (DailyTally, AllTimeTotal):
            rows = model.objects.values_list("venue_id", "table__venue_id")
            assert rows and all(venue == at for venue, at in rows)

    def test_running_totals_keep_the_leagues_rows_and_each_venues(self, pubs):
        home, anchor = pubs
        bob = RunningTotal.objects.filter(player__name="Bob", mode="all", day=D2)
        assert sorted(bob.values_list("venue_id", "played"), key=str) == sorted(
            [(None, 3), (home.pk, 2), (anchor.pk, 1)], key=str
        )

    def test_a_wrong_venue_on_a_total_is_reported(self, pubs):
        home, anchor = pubs
        total = AllTimeTotal.objects.filter(venue=home).order_by("pk").first()
        AllTimeTotal.objects.filter(pk=total.pk).update(venue=anchor)
        assert integrity_problems() == [
            f"Player #{total.player_id} at table #{total.table_id}: all-time totals say venue "
            f"#{anchor.pk}, the table is at #{home.pk}"
        ]

    def test_a_wrong_venue_on_a_tally_is_reported(self, pubs):
        home, anchor = pubs
        tally = DailyTally.objects.filter(venue=anchor).order_by("pk").first()
        DailyTally.objects.filter(pk=tally.pk).update(venue=home)
        problems = integrity_problems()
        assert problems[0] == (
            f"Player #{tally.player_id} at table #{tally.table_id}: tallies say venue "
            f"#{home.pk}, the table is at #{anchor.pk}"
        )

    def test_a_running_total_at_the_wrong_venue_is_reported(self, pubs):
        home, anchor = pubs
        row = RunningTotal.objects.get(player__name="Eve", venue=anchor, mode="all", day=D2)
        RunningTotal.objects.filter(pk=row.pk).update(venue=home)
        problems = integrity_problems()
        assert (
            f"Player #{row.player_id} at all tables at venue #{anchor.pk} up to {D2}: running "
            f"totals say (0, 0, 0, 0, 0), daily tallies say (1, 0, 0, 0, 0)"
        ) in problems
        assert (
            f"Player #{row.player_id} at all tables at venue #{home.pk} up to {D2}: running "
            f"totals say (1, 0, 0, 0, 0), daily tallies say (0, 0, 0, 0, 0)"
        ) in problems

    def test_a_recount_puts_the_venues_right(self, pubs):
        home, anchor = pubs
        AllTimeTotal.objects.update(venue=home)
        RunningTotal.objects.filter(venue=anchor).delete()
        assert integrity_problems() != []
        league_recount()
        assert integrity_problems() == []
        assert read(anchor) == recount(anchor)

    def test_a_players_refresh_keeps_the_venue(self, pubs):
        _home, anchor = pubs
        eve = RunningTotal.objects.filter(player__name="Eve").values_list("player_id").first()[0]
        tallies.tallies_refresh(player_ids=[eve])
        running_totals.running_refresh(player_ids=[eve])
        assert integrity_problems() == []
        assert read(anchor)["Eve"] == recount(anchor)["Eve"]


def filed_count(venue=None) -> dict[str, int]:
    """The filed matches of each mode, at one venue or all, counted from the matches."""
    counts: dict[str, int] = {}
    for match in Match.objects.filter(status=Match.Status.FILED).select_related("table"):
        if venue is None or match.table.venue_id == venue.pk:
            counts[match.table.mode] = counts.get(match.table.mode, 0) + 1
    return counts


class TestModePlayedMost:
    """The standings open on the mode played most, read off the running totals."""

    def test_each_venue_and_the_league_count_their_filed_matches_per_mode(self, pubs, boss):
        home, anchor = pubs
        crown(anchor.tables.get(), ["Eve", "Bob"], D3)  # a third winner-takes-all match
        table_undo_last(table_id=anchor.tables.get().pk, tap_id=None, by=boss)  # undone
        assert running_totals.filed_per_mode(home.slug) == {"ranked": 2}
        assert running_totals.filed_per_mode(anchor.slug) == {"winner_takes_all": 2}
        assert running_totals.filed_per_mode(None) == {"ranked": 2, "winner_takes_all": 2}
        for venue in (home, anchor, None):
            assert running_totals.filed_per_mode(venue.slug if venue else None) == filed_count(
                venue
            )

    def test_a_tie_opens_on_ranked_and_one_mode_opens_on_neither(self, pubs):
        home, anchor = pubs
        assert league_standings.mode_played_most() == "ranked"
        assert league_standings.mode_played_most(home.slug) is None
        assert league_standings.mode_played_most(anchor.slug) is None

    def test_more_winner_takes_all_matches_open_on_that_mode(self, pubs):
        _home, anchor = pubs
        crown(anchor.tables.get(), ["Eve", "Bob"], D3)
        assert league_standings.mode_played_most() == "winner_takes_all"

    def test_an_unknown_venue_has_filed_nothing(self, pubs):
        assert running_totals.filed_per_mode("no-such-pub") == {}
        assert league_standings.mode_played_most("no-such-pub") is None

    def test_it_is_one_query(self, pubs, django_assert_num_queries):
        _home, anchor = pubs
        with django_assert_num_queries(1):
            league_standings.mode_played_most(anchor.slug)


class TestVenueReadsAreOneQuery:
    def test_all_time(self, pubs, django_assert_num_queries):
        _home, anchor = pubs
        with django_assert_num_queries(1):
            league_standings.standings(StandingsQuery(venue_id=anchor.pk))

    def test_a_range(self, pubs, django_assert_num_queries):
        _home, anchor = pubs
        with django_assert_num_queries(1):
            league_standings.standings(StandingsQuery(venue_id=anchor.pk, date_from=D1, date_to=D3))

    def test_a_season_with_best_nights(self, pubs, django_assert_num_queries):
        _home, anchor = pubs
        query = StandingsQuery(venue_id=anchor.pk, date_from=D1, date_to=D3, best_nights=2)
        with django_assert_num_queries(1):
            league_standings.standings(query)


class TestVenueFilterOnThePages:
    def test_the_page_shows_the_venues_standings(self, pubs, client):
        _home, _anchor = pubs
        # Both modes: the page opens on the league's mode played most (ranked, on a tie).
        response = client.get(reverse("matches:standings"), {"venue": "the-anchor", "mode": ""})
        page = response.content.decode()
        assert response.status_code == 200
        assert "<h1>Standings at The Anchor</h1>" in page
        assert "Only matches played at The Anchor count here" in page
        assert ">Eve</a>" in page and ">Ann</a>" not in page

    def test_the_page_offers_the_venues_when_the_league_has_two(self, pubs, client):
        page = client.get(reverse("matches:standings")).content.decode()
        assert '<option value="the-anchor">The Anchor</option>' in page
        assert "All venues" in page

    def test_a_league_of_one_venue_offers_no_choice(self, boss, client):
        front = launch(boss, first_venue(), ["Ann", "Bob", "Cy"], name="Front bar")
        crown(front, ["Cy", "Bob"], D3)
        page = client.get(reverse("matches:standings")).content.decode()
        assert "All venues" not in page and 'name="venue"' not in page

    def test_an_unknown_venue_is_a_clear_message(self, pubs, client):
        for url in ("matches:standings", "matches:api_standings", "matches:standings_csv"):
            response = client.get(reverse(url), {"venue": "the-nowhere"})
            assert response.status_code == 400
            assert "There is no such venue." in response.content.decode()

    def test_the_json_echoes_the_venue_and_counts_only_its_matches(self, pubs, client):
        _home, _anchor = pubs
        body = client.get(reverse("matches:api_standings"), {"venue": "the-anchor"}).json()
        assert body["filters"]["venue"] == "the-anchor"
        assert {r["player"]: r["played"] for r in body["rows"]} == {"Bob": 2, "Cy": 2, "Eve": 2}
        league = client.get(reverse("matches:api_standings")).json()
        assert league["filters"]["venue"] is None
        assert {r["player"]: r["played"] for r in league["rows"]}["Bob"] == 4

    def test_the_cache_keeps_each_venue_apart(self, pubs, client):
        url = reverse("matches:api_standings")
        first = client.get(url, {"venue": "the-anchor"}).json()["rows"]
        home = client.get(url, {"venue": first_venue().slug}).json()["rows"]
        assert {r["player"] for r in first} == {"Bob", "Cy", "Eve"}
        assert {r["player"] for r in home} == {"Ann", "Bob", "Cy", "Dee"}

    def test_the_csv_counts_only_the_venue(self, pubs, client):
        response = client.get(reverse("matches:standings_csv"), {"venue": "the-anchor"})
        assert "standings-the-anchor-all-time.csv" in response["Content-Disposition"]
        rows = list(csv.reader(io.StringIO(response.content.decode())))
        assert sorted((r[2], r[3]) for r in rows[1:]) == [("Bob", "2"), ("Cy", "2"), ("Eve", "2")]


class TestPlayerPageVenues:
    def test_the_player_page_says_where_they_played(self, pubs, client):
        bob = Seat.objects.filter(player__name="Bob").first().player_id
        page = client.get(reverse("matches:player", args=[bob])).content.decode()
        both = sorted([first_venue().name, "The Anchor"])
        assert f"Played at: {both[0]} (2 matches), {both[1]} (2 matches)" in page

    def test_one_venue_league_says_nothing_of_venues(self, boss, client):
        front = launch(boss, first_venue(), ["Ann", "Bob", "Cy"], name="Front bar")
        crown(front, ["Cy", "Bob"], D3)
        ann = Seat.objects.filter(player__name="Ann").first().player_id
        assert (
            "Played at:" not in client.get(reverse("matches:player", args=[ann])).content.decode()
        )

    def test_a_host_of_one_venue_still_reads_every_venues_standings(self, pubs):
        user = get_user_model().objects.create_user(username="pat", password="a-long-pass-1")
        VenueRole.objects.create(user=user, venue=pubs[0], kind=VenueRole.Kind.HOST)
        browser = FormClient()
        browser.force_login(user)
        body = browser.get(reverse("matches:api_standings"), {"venue": "the-anchor"}).json()
        assert {r["player"] for r in body["rows"]} == {"Bob", "Cy", "Eve"}
