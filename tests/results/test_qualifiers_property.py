"""The qualifiers against a count made here, plainly, from the filed seats: random leagues of
two or three venues (the last opening mid-season), random matches over the season's nights
and around them, random rules (top N or a percent with a cap, a minimum of nights, the
season's best nights, the one-venue rule on or off). The one-venue rule is counted here the
way the issue says it: a player in the places at several venues keeps the best position,
their place elsewhere passes down the list, and again until nothing moves."""

import datetime
from collections import defaultdict
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from matches.models import Match, Season, Seat
from matches.play.services.tables import table_launch
from matches.results.qualifiers import Reason, season_qualifiers
from matches.rules.names import name_key
from matches.rules.nights import night_of
from matches.rules.scoring import place_counts
from tests.factories import first_venue, other_venue, tap_standing

pytestmark = pytest.mark.django_db

TODAY = night_of()
DAY = datetime.timedelta(days=1)
START = TODAY - 30 * DAY
NIGHTS = 8  # the season: START to START + 7
POOL = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
VENUES = ["The Anchor", "The Crown", "The Swan"]

tables_strategy = st.lists(
    st.tuples(
        st.integers(0, 2),  # the venue (modulo how many there are)
        st.lists(st.sampled_from(POOL), min_size=3, max_size=5, unique=True),
        st.sampled_from(["ranked", "ranked", "winner_takes_all"]),
    ),
    min_size=2,
    max_size=4,
)
matches_strategy = st.lists(
    st.tuples(
        st.integers(0, 3),  # the table (modulo how many)
        st.integers(-1, NIGHTS),  # the night: -1 and NIGHTS fall outside the season
        st.lists(st.integers(0, 9), min_size=4, max_size=4),  # who goes out, in turn
    ),
    min_size=1,
    max_size=14,
)
rules_strategy = st.fixed_dictionaries(
    {
        "qualify_places": st.integers(1, 4),
        "qualify_percent": st.one_of(st.none(), st.integers(1, 100)),
        "qualify_min_nights": st.integers(0, 6),
        "best_nights": st.one_of(st.none(), st.integers(1, 4)),
        "qualify_one_venue": st.booleans(),
    }
)


@pytest.fixture
def boss(db):
    first_venue()
    return get_user_model().objects.create_superuser(username="boss", password="a-long-pass-1")


def file_match(table, day: datetime.date, picks: list[int]) -> None:
    """Tap players out by these picks until one stands: filed at noon on that day."""
    when = timezone.make_aware(datetime.datetime.combine(day, datetime.time(12)))
    with mock.patch.object(timezone, "now", return_value=when):
        for pick in picks[: len(table_players(table)) - 1]:
            tap_standing(table, pick)


def table_players(table) -> list:
    return list(table.matches.open().get().seats.all())


# The count made here.


def nights_from_seats(first: datetime.date, last: datetime.date) -> dict:
    """(venue name, player name, night) -> [played, wins, seconds, thirds, points], from every
    filed seat of the season's nights."""
    counts: dict = defaultdict(lambda: [0, 0, 0, 0, 0])
    seats = Seat.objects.filter(match__status=Match.Status.FILED).select_related(
        "player", "match__table__venue"
    )
    for seat in seats:
        day = night_of(seat.match.filed_at)
        if not first <= day <= last:
            continue
        worth = place_counts(seat.match.table.mode, seat.place)
        row = counts[(seat.match.table.venue.name, seat.player.name, day)]
        for index, value in enumerate(
            (worth.played, worth.wins, worth.seconds, worth.thirds, worth.points)
        ):
            row[index] += value
    return counts


def order(counts: list[int]) -> tuple:
    """Better first: more points, wins, 2nds, 3rds, then fewer played."""
    played, wins, seconds, thirds, points = counts
    return (-points, -wins, -seconds, -thirds, played)


def standings_of(nights: dict[str, dict[datetime.date, list[int]]], best: int | None) -> list:
    """[(name, rank, counts)] from each player's nights (their best `best`: by the order
    above, the earlier night on a tie), best first; level players share a rank."""
    totals = {}
    for name, by_day in nights.items():
        days = sorted(by_day, key=lambda day: (order(by_day[day]), day))
        if best:
            days = days[:best]
        totals[name] = [sum(by_day[day][i] for day in days) for i in range(5)]
    ranked = sorted(totals, key=lambda name: (order(totals[name]), name_key(name)))
    result = []
    for index, name in enumerate(ranked):
        if index and order(totals[name]) == order(totals[ranked[index - 1]]):
            rank = result[-1][1]
        else:
            rank = index + 1
        result.append((name, rank, totals[name]))
    return result


def expected(season: Season) -> tuple[dict, list]:
    """Each venue's list [(name, rank, qualified, reason, elsewhere, nights, needed)] and the
    finalists [(name, venue)] in the league's order, counted here."""
    counts = nights_from_seats(season.first_day, season.last_day)
    counts = {key: row for key, row in counts.items() if row[0]}
    league_nights = len({day for _, _, day in counts})
    per_venue: dict[str, dict[str, dict]] = defaultdict(lambda: defaultdict(dict))
    for (venue, name, day), row in counts.items():
        per_venue[venue][name][day] = row
    best = season.best_nights if season.qualify_best_nights else None
    lists, places, needed, nights_at = {}, {}, {}, {}
    for venue, players in per_venue.items():
        lists[venue] = standings_of(players, best)
        venue_nights = len({day for days in players.values() for day in days})
        # ceil(minimum x venue nights / league nights), by the issue's own words.
        needed[venue] = 0
        while needed[venue] * league_nights < season.qualify_min_nights * venue_nights:
            needed[venue] += 1
        ranked = len(lists[venue])
        if season.qualify_percent is None:
            places[venue] = min(season.qualify_places, ranked)
        else:
            share = 0
            while share * 100 < ranked * season.qualify_percent:
                share += 1
            places[venue] = min(season.qualify_places, share, ranked)
        nights_at[venue] = {name: len(days) for name, days in players.items()}

    def eligible(venue: str) -> list[tuple[str, int, list]]:
        return [row for row in lists[venue] if nights_at[venue][row[0]] >= needed[venue]]

    # Pass places down until nothing moves.
    chosen: dict[str, str] = {}
    while True:
        cut = {
            venue: [
                row
                for row in eligible(venue)
                if not season.qualify_one_venue or chosen.get(row[0], venue) == venue
            ][: places[venue]]
            for venue in lists
        }
        standing: dict[str, list] = defaultdict(list)
        for venue, rows in cut.items():
            for name, rank, totals in rows:
                standing[name].append((rank, -totals[4], name_key(venue), venue))
        choice = {name: min(options)[3] for name, options in standing.items()}
        if not season.qualify_one_venue or choice == chosen:
            break
        chosen = choice
    result = {}
    for venue in sorted(lists, key=name_key):
        rows = []
        qualifiers = {row[0] for row in cut[venue]}
        for name, rank, _totals in lists[venue]:
            nights = nights_at[venue][name]
            elsewhere = None
            if name in qualifiers:
                reason = Reason.QUALIFIED
            elif nights < needed[venue]:
                reason = Reason.FEW_NIGHTS
            elif season.qualify_one_venue and name in choice:
                reason, elsewhere = Reason.ELSEWHERE, choice[name]
            else:
                reason = Reason.OUTSIDE
            rows.append((name, rank, name in qualifiers, reason, elsewhere, nights, needed[venue]))
        result[venue] = rows
    # The finalists in the season's league order: their nights added up over the venues.
    league: dict[str, dict] = defaultdict(dict)
    for (_, name, day), row in counts.items():
        if name in choice:
            kept = league[name].setdefault(day, [0] * 5)
            for index in range(5):
                kept[index] += row[index]
    finalists = [(name, choice[name]) for name, _, _ in standings_of(league, season.best_nights)]
    return result, finalists


@settings(max_examples=25)
@given(
    venue_count=st.integers(2, 3),
    opens=st.integers(1, NIGHTS - 2),
    tables=tables_strategy,
    matches=matches_strategy,
    rules=rules_strategy,
)
def test_the_qualifiers_equal_a_count_of_the_seats(
    boss, venue_count, opens, tables, matches, rules
):
    with transaction.atomic():
        venues = [other_venue(name) for name in VENUES[:venue_count]]
        launched = [
            table_launch(
                name=f"Table {index}",
                player_names=players,
                mode=mode,
                by=boss,
                venue_id=venues[venue % venue_count].pk,
            )
            for index, (venue, players, mode) in enumerate(tables)
        ]
        late = venues[-1]  # opens on the season's night `opens`
        for table_index, night, picks in matches:
            table = launched[table_index % len(launched)]
            if table.venue_id == late.pk and 0 <= night < opens:
                night = opens
            file_match(table, START + night * DAY, picks)
        best = rules.pop("best_nights")
        season = Season.objects.create(
            name="Autumn",
            first_day=START,
            last_day=START + (NIGHTS - 1) * DAY,
            best_nights=best,
            qualify_best_nights=best is not None,
            **rules,
        )
        result = season_qualifiers(season, real_names=True)
        lists, finalists = expected(season)
        assert {
            venue.name: [
                (
                    e.name,
                    e.rank,
                    e.qualified,
                    e.reason,
                    e.elsewhere,
                    e.nights,
                    e.needed,
                )
                for e in venue.entries
            ]
            for venue in result.venues
        } == lists
        assert [venue.name for venue in result.venues] == list(lists)
        assert [(f.name, f.venue_name) for f in result.finalists] == finalists
        assert [f.season_rank for f in result.finalists] == list(range(1, len(finalists) + 1))
        transaction.set_rollback(True)
