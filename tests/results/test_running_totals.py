"""Standings over a date range read from the running totals: equal to a recount of the filed
seats for any range, mode, undo and merge; rebuilt from the tallies; checked by the integrity
scan; one query whatever the range."""

import datetime
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from hypothesis import given, settings

from matches.integrity import integrity_problems
from matches.models import DailyTally, Match, Player, RunningTotal, Seat, Tap
from matches.play.services.undo import table_undo_last
from matches.results import running_totals
from matches.results import standings as league_standings
from matches.results.players import services as player_records
from matches.results.standings import StandingsQuery
from matches.rules.nights import night_of
from matches.rules.scoring import COUNT_FIELDS, place_counts
from tests.clients import FormClient
from tests.factories import make_organiser, make_table, tap
from tests.strategies import asked_ranges, dated_operations

pytestmark = pytest.mark.django_db

TODAY = night_of()
D1, D2, D3 = TODAY - datetime.timedelta(days=10), TODAY - datetime.timedelta(days=5), TODAY
DAY = datetime.timedelta(days=1)


def crown(table, order, day: datetime.date):
    """Tap players out in this order (the last one left wins), filed on that day at noon."""
    when = timezone.make_aware(datetime.datetime.combine(day, datetime.time(12)))
    with mock.patch.object(timezone, "now", return_value=when):
        for name in order:
            tap(table, name)


def recount(date_from=None, date_to=None, mode=None) -> dict[str, tuple[int, ...]]:
    """Each player's counts added up from the filed seats themselves."""
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
        worth = place_counts(seat.match.table.mode, seat.place)
        row = totals.setdefault(seat.player.name, [0] * len(COUNT_FIELDS))
        for index, field in enumerate(COUNT_FIELDS):
            row[index] += getattr(worth, field)
    return {name: tuple(row) for name, row in totals.items()}


def read(date_from=None, date_to=None, mode=None) -> dict[str, tuple[int, ...]]:
    rows = league_standings.standings(
        StandingsQuery(date_from=date_from, date_to=date_to, mode=mode)
    )
    return {r.player: tuple(getattr(r, field) for field in COUNT_FIELDS) for r in rows}


RANGES = [
    (D1 - 20 * DAY, D1 - DAY),  # before the first filing
    (D1, D1),  # one day with filings
    (D1 + DAY, D2 - DAY),  # days between filings
    (D1 - DAY, D2),  # from a day without, to one with
    (D1 + DAY, D3),  # from a day without, to the last
    (D2, D3 + 30 * DAY),  # past the last filing
    (D3 + DAY, D3 + 9 * DAY),  # after the last filing
    (None, D2),
    (D2 + DAY, None),
    (D1 - 365 * DAY, D3),
    (D3, D1),  # the wrong way round: nothing
]


@pytest.fixture
def league(host):
    """Two tables of each mode sharing players, filed on three days, not in day order."""
    ranked = make_table(host=host, players=["Ann", "Bob", "Cy", "Dee"])
    wta = make_table(host=host, players=["Ann", "Bob", "Eve"], mode="winner_takes_all", name="B")
    crown(ranked, ["Dee", "Cy", "Bob"], D2)  # Ann 1st, Bob 2nd, Cy 3rd
    crown(wta, ["Eve", "Bob"], D2)  # Ann wins
    crown(ranked, ["Ann", "Dee", "Bob"], D1)  # filed on an earlier day after D2's
    crown(wta, ["Ann", "Eve"], D3)  # Bob wins
    crown(ranked, ["Bob", "Ann", "Dee"], D3)  # Cy 1st, Dee 2nd, Ann 3rd
    return ranked, wta


class TestRangeStandings:
    @pytest.mark.parametrize("mode", [None, "ranked", "winner_takes_all"])
    @pytest.mark.parametrize(("date_from", "date_to"), RANGES)
    def test_equal_a_recount_from_the_seats(self, league, date_from, date_to, mode):
        wrong_way = date_from and date_to and date_from > date_to
        expected = {} if wrong_way else recount(date_from, date_to, mode)
        assert read(date_from, date_to, mode) == expected

    def test_exact_counts_of_a_range_ending_between_filings(self, league):
        # D1 and D2: two ranked matches and one winner-takes-all match.
        assert read(D1 - DAY, D3 - DAY) == {
            "Ann": (3, 2, 0, 0, 3),
            "Bob": (3, 0, 2, 0, 4),
            "Cy": (2, 1, 0, 1, 4),
            "Dee": (2, 0, 0, 1, 1),
            "Eve": (1, 0, 0, 0, 0),
        }
        assert read(D1 - DAY, D3 - DAY, "winner_takes_all") == {
            "Ann": (1, 1, 0, 0, 0),
            "Bob": (1, 0, 0, 0, 0),
            "Eve": (1, 0, 0, 0, 0),
        }

    def test_a_filing_on_an_earlier_day_moves_every_later_row(self, league):
        ann = RunningTotal.objects.filter(player__name="Ann", mode="ranked", venue=None).order_by(
            "day"
        )
        assert list(ann.values_list("day", *COUNT_FIELDS)) == [
            (D1, 1, 0, 0, 0, 0),
            (D2, 2, 1, 0, 0, 3),
            (D3, 3, 1, 0, 1, 4),
        ]
        # Beside each mode's rows, all modes' (what standings of every mode read).
        every = RunningTotal.objects.filter(player__name="Ann", mode="all", venue=None).order_by(
            "day"
        )
        assert list(every.values_list("day", *COUNT_FIELDS)) == [
            (D1, 1, 0, 0, 0, 0),
            (D2, 3, 2, 0, 0, 3),
            (D3, 5, 2, 0, 1, 4),
        ]

    def test_an_undo_of_a_match_filed_on_an_earlier_day(self, league, host):
        other = make_table(host=host, players=["Ann", "Bob", "Fay"], name="C")
        crown(other, ["Fay", "Bob"], D1)  # Ann wins on D1; Ann and Bob have later rows
        table_undo_last(table_id=other.pk, tap_id=None, by=host)
        for date_from, date_to in RANGES:
            if date_from and date_to and date_from > date_to:
                continue
            assert read(date_from, date_to) == recount(date_from, date_to)
            assert read(date_from, date_to, "ranked") == recount(date_from, date_to, "ranked")
        assert read(D1, D1)["Ann"] == (1, 0, 0, 0, 0)
        assert integrity_problems() == []

    def test_after_a_merge(self, league, host):
        annie = make_table(host=host, players=["Annie", "Cy", "Gus"], name="D")
        crown(annie, ["Gus", "Cy"], D1 - 2 * DAY)  # Annie wins before Ann's first filing
        crown(annie, ["Annie", "Gus"], D2 + DAY)  # Cy wins
        player_records.player_merge(
            keep_id=Player.objects.get(name="Ann").pk,
            other_name="Annie",
            by=make_organiser(),
        )
        assert not RunningTotal.objects.filter(player__name="Annie").exists()
        for date_from, date_to in RANGES:
            if date_from and date_to and date_from > date_to:
                continue
            assert read(date_from, date_to) == recount(date_from, date_to)
        assert read(D1 - 5 * DAY, D1 - DAY)["Ann"] == (1, 1, 0, 0, 3)
        assert integrity_problems() == []

    def test_a_table_s_range_still_reads_its_tallies(self, league):
        ranked, _ = league
        rows = league_standings.standings(
            StandingsQuery(table_id=ranked.pk, date_from=D2, date_to=D3)
        )
        assert {r.player: r.points for r in rows} == {"Ann": 4, "Bob": 2, "Cy": 4, "Dee": 2}

    @pytest.mark.parametrize("days", [1, 30])
    def test_one_query_however_many_days(self, host, django_assert_num_queries, days):
        table = make_table(host=host, players=["Ann", "Bob", "Cy"])
        for offset in range(days):
            crown(table, ["Cy", "Bob"], TODAY - offset * DAY)
        with django_assert_num_queries(1):
            rows = league_standings.standings(
                StandingsQuery(date_from=TODAY - 60 * DAY, date_to=TODAY)
            )
        assert (rows[0].player, rows[0].played, rows[0].wins) == ("Ann", days, days)


class TestIntegrity:
    def test_a_damaged_running_total_is_reported(self, league):
        assert integrity_problems() == []
        bob = RunningTotal.objects.get(player__name="Bob", mode="ranked", day=D2, venue=None)
        RunningTotal.objects.filter(pk=bob.pk).update(points=F("points") + 1)
        assert integrity_problems() == [
            f"Player #{bob.player_id} at ranked tables up to {D2}: running totals say "
            f"(2, 0, 2, 0, 5), daily tallies say (2, 0, 2, 0, 4)"
        ]

    def test_a_damaged_row_of_all_modes_is_reported(self, league):
        eve = RunningTotal.objects.get(player__name="Eve", mode="all", day=D3, venue=None)
        RunningTotal.objects.filter(pk=eve.pk).update(wins=1)
        assert integrity_problems() == [
            f"Player #{eve.player_id} at all tables up to {D3}: running totals say "
            f"(2, 1, 0, 0, 0), daily tallies say (2, 0, 0, 0, 0)"
        ]

    def test_a_missing_day_is_reported(self, league):
        cy = RunningTotal.objects.get(player__name="Cy", mode="ranked", day=D3, venue=None)
        cy.delete()
        assert integrity_problems() == [
            f"Player #{cy.player_id} at ranked tables up to {D3}: running totals say "
            f"(2, 1, 0, 1, 4), daily tallies say (3, 2, 0, 1, 7)"
        ]

    def test_a_rebuild_puts_them_right(self, league):
        before = set(
            RunningTotal.objects.values_list("player_id", "venue_id", "mode", "day", *COUNT_FIELDS)
        )
        RunningTotal.objects.filter(Q(player__name="Ann") | Q(day=D3)).delete()
        RunningTotal.objects.filter(player__name="Bob").update(played=F("played") + 5)
        assert running_totals.running_rebuild() == len(before)
        assert (
            set(
                RunningTotal.objects.values_list(
                    "player_id", "venue_id", "mode", "day", *COUNT_FIELDS
                )
            )
            == before
        )
        assert integrity_problems() == []

    def test_a_rebuild_shows_in_cached_standings(self, league, client):
        params = {"from": D1.isoformat(), "to": D3.isoformat()}
        RunningTotal.objects.filter(player__name="Bob").update(played=F("played") + 5)
        damaged = client.get(reverse("matches:api_standings"), params).json()["rows"]
        assert {r["player"]: r["played"] for r in damaged}["Bob"] == 10
        running_totals.running_rebuild()
        rows = client.get(reverse("matches:api_standings"), params).json()["rows"]
        assert {r["player"]: r["played"] for r in rows} == {
            name: counts[0] for name, counts in recount(D1, D3).items()
        }

    def test_a_rebuild_that_fails_keeps_the_rows_it_had(self, league):
        before = set(
            RunningTotal.objects.values_list("player_id", "venue_id", "mode", "day", *COUNT_FIELDS)
        )
        failing = mock.patch.object(running_totals, "_insert", side_effect=RuntimeError("boom"))
        with failing, pytest.raises(RuntimeError):
            running_totals.running_rebuild()
        after = set(
            RunningTotal.objects.values_list("player_id", "venue_id", "mode", "day", *COUNT_FIELDS)
        )
        assert after == before


def tally_sums(date_from, date_to, mode) -> dict[int, tuple[int, ...]]:
    """What the standings summed before the running totals: the daily tallies in range."""
    where = Q(played__gt=0)
    if date_from:
        where &= Q(day__gte=date_from)
    if date_to:
        where &= Q(day__lte=date_to)
    if mode:
        where &= Q(table__mode=mode)
    totals: dict[int, list[int]] = {}
    for player, *counts in DailyTally.objects.filter(where).values_list("player_id", *COUNT_FIELDS):
        row = totals.setdefault(player, [0] * len(COUNT_FIELDS))
        totals[player] = [a + b for a, b in zip(row, counts, strict=True)]
    return {player: tuple(row) for player, row in totals.items() if row[0]}


PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve"]


@settings(max_examples=40)
@given(ops=dated_operations, asked=asked_ranges)
def test_random_filings_and_undos_read_as_the_tallies_add_up(host, ops, asked):
    start = TODAY - 8 * DAY
    with transaction.atomic():
        tables = [
            make_table(host=host, players=PLAYERS[:4], name="R"),
            make_table(host=host, players=PLAYERS[1:], name="W", mode="winner_takes_all"),
            make_table(host=host, players=PLAYERS[::2], name="S"),
        ]
        for op in ops:
            table = tables[op[1]]
            if op[0] == "file":
                # Everyone standing goes out but the winner the draw picked.
                seats = table.matches.open().get().seats.filter(place__isnull=True)
                standing = [s.player.name for s in seats.select_related("player")]
                winner = standing[op[3] % len(standing)]
                crown(table, [name for name in standing if name != winner], start + op[2] * DAY)
            elif Tap.objects.filter(match__table=table, undone_at__isnull=True).exists():
                table_undo_last(table_id=table.pk, tap_id=None, by=host)
        for low, high, mode in asked:
            date_from = None if low is None else start + low * DAY
            date_to = None if high is None else start + high * DAY
            if date_from is None and date_to is None:
                continue
            kept = {
                r.player_id: tuple(getattr(r, f) for f in COUNT_FIELDS)
                for r in league_standings.standings(
                    StandingsQuery(date_from=date_from, date_to=date_to, mode=mode)
                )
            }
            wrong_way = date_from and date_to and date_from > date_to
            assert kept == ({} if wrong_way else tally_sums(date_from, date_to, mode))
        assert running_totals.running_problems() == []
        transaction.set_rollback(True)


class TestTableDeleted:
    """The admin may delete a table: its matches and tallies go, and so must its part of
    the running totals, or a date range still counts what all time no longer does."""

    @pytest.mark.parametrize("bulk", [False, True])
    def test_a_range_no_longer_counts_its_matches(self, league, bulk):
        _ranked, wta = league
        client = FormClient()
        client.force_login(
            get_user_model().objects.create_superuser(username="boss", password="a-long-pass-1")
        )
        if bulk:
            data = {"action": "delete_selected", "_selected_action": [wta.pk], "post": "yes"}
            response = client.post(reverse("admin:matches_table_changelist"), data)
        else:
            url = reverse("admin:matches_table_delete", args=[wta.pk])
            response = client.post(url, {"post": "yes"})
        assert response.status_code == 302
        assert read(D1, D3) == recount(D1, D3) == read()
        ann, bob, cy, dee = (1, 1, 0, 0, 3), (1, 0, 1, 0, 2), (1, 0, 0, 1, 1), (1, 0, 0, 0, 0)
        assert read(D2, D2) == {"Ann": ann, "Bob": bob, "Cy": cy, "Dee": dee}
        assert integrity_problems() == []
