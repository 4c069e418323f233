"""A season's qualifiers for the finals: per venue, its standings over the season's nights
there (the season's best nights rule when the rules say so), the players with enough nights
at the venue (rules.qualifying.needed_nights) taking its places in order, and under the
one-venue rule a player in the places at several venues keeping their best position while
the other venues' places pass down their lists. Every player listed carries the reason in
words. Read from the daily tallies of the season's days in one query, so once the season
has ended nothing filed later moves it."""

import datetime
import enum
from collections import defaultdict
from dataclasses import dataclass, field
from typing import cast

from django.contrib.humanize.templatetags.humanize import ordinal
from django.utils.translation import gettext, ngettext

from matches.models import DailyTally, Season, Venue
from matches.results.standings import (
    SUMS,
    StandingRow,
    night_name_values,
    rank_best_nights,
    rank_standings,
)
from matches.rules.nights import night_of
from matches.rules.qualifying import QualifyingRules, needed_nights, places_at

# Below a venue's last qualifier the lists show this many more players: those just out.
JUST_OUT = 3


class Reason(enum.StrEnum):
    QUALIFIED = "qualified"
    FEW_NIGHTS = "few_nights"
    ELSEWHERE = "qualified_elsewhere"
    OUTSIDE = "outside_places"


@dataclass(frozen=True)
class QualifierEntry:
    """One player in a venue's list: their standing there, their nights there and why they
    are in or out."""

    player_id: int
    name: str
    position: int  # 1-based row of the venue's list (ranks may be shared: rank)
    rank: int
    shared: bool
    played: int
    wins: int
    points: int
    nights: int  # nights played at the venue in the season
    needed: int  # nights needed there
    qualified: bool
    reason: Reason
    venue_name: str
    places: int
    elsewhere: str | None = None  # the venue they qualified at instead

    @property
    def reason_text(self) -> str:
        """The reason in words, in the active language."""
        if self.reason is Reason.QUALIFIED:
            shown = ordinal(self.rank)
            return gettext("Qualified: %(place)s at %(venue)s") % {
                "place": f"={shown}" if self.shared else shown,
                "venue": self.venue_name,
            }
        if self.reason is Reason.FEW_NIGHTS:
            return ngettext(
                "%(nights)s night at %(venue)s; needs %(needed)s",
                "%(nights)s nights at %(venue)s; needs %(needed)s",
                self.nights,
            ) % {"nights": self.nights, "venue": self.venue_name, "needed": self.needed}
        if self.reason is Reason.ELSEWHERE:
            return gettext("Qualified at %(venue)s instead") % {"venue": self.elsewhere}
        return gettext("Outside the top %(places)s") % {"places": self.places}

    def as_json(self) -> dict:
        return {
            "player_id": self.player_id,
            "player": self.name,
            "position": self.position,
            "rank": self.rank,
            "shared": self.shared,
            "qualified": self.qualified,
            "reason": str(self.reason),
            "reason_text": self.reason_text,
            "nights": self.nights,
            "needed_nights": self.needed,
            "played": self.played,
            "wins": self.wins,
            "points": self.points,
        }


@dataclass(frozen=True)
class VenueQualifiers:
    venue_id: int
    name: str
    slug: str
    nights: int  # nights with a filed match at the venue in the season
    needed: int  # nights a player needs there
    places: int
    ranked: int  # players ranked there
    entries: tuple[QualifierEntry, ...] = ()

    @property
    def shown(self) -> tuple[QualifierEntry, ...]:
        """The list the page shows: down to the last qualifier, and JUST_OUT more."""
        last = max((e.position for e in self.entries if e.qualified), default=0)
        return self.entries[: last + JUST_OUT]

    @property
    def qualified(self) -> tuple[QualifierEntry, ...]:
        return tuple(e for e in self.entries if e.qualified)


@dataclass(frozen=True)
class Finalist:
    player_id: int
    name: str  # the name to show, by the same public-name rule the standings use
    venue_id: int  # the venue they qualified at
    venue_name: str
    # 1 = best: their order among all finalists by the season's league standings (points,
    # then the standings' tie-breaks); seeds and runners-up read it.
    season_rank: int


@dataclass(frozen=True)
class SeasonQualifiers:
    season: Season
    rules: QualifyingRules
    status: str  # "upcoming", "current" or "finished"
    league_nights: int  # nights with a filed match anywhere in the league in the season
    venues: tuple[VenueQualifiers, ...] = ()
    finalists: tuple[Finalist, ...] = field(default=())

    @property
    def final(self) -> bool:
        """The season has ended: the lists are fixed."""
        return self.status == "finished"


def season_status(season: Season, today: datetime.date | None = None) -> str:
    today = today or night_of()
    if today < season.first_day:
        return "upcoming"
    return "current" if today <= season.last_day else "finished"


def _night_rows(season: Season) -> list[dict]:
    """Each (venue, player, night) of the season with a filed match, its counts and the
    player's name columns: one query."""
    names = night_name_values()
    rows = cast(
        "list[dict]",
        list(
            DailyTally.objects.filter(day__gte=season.first_day, day__lte=season.last_day)
            .values("venue_id", "player_id", "day", *names["fields"], **names["expressions"])
            .annotate(**SUMS)
            .order_by()
        ),
    )
    # A night whose matches were all taken back leaves tallies of zero: not a night.
    return [row for row in rows if row["played_sum"]]


def _rank(nights: list[dict], best: int | None, *, real_names: bool) -> list[StandingRow]:
    """Standings over these per-night rows: each player's best nights, or all of them."""
    if best:
        return rank_best_nights(nights, best=best, real_names=real_names)
    totals: dict[int, dict] = {}
    for night in nights:
        row = totals.get(night["player_id"])
        if row is None:
            totals[night["player_id"]] = dict(night)
        else:
            for name in SUMS:
                row[name] += night[name]
    return rank_standings(list(totals.values()), real_names=real_names)


def season_qualifiers(
    season: Season,
    *,
    rules: QualifyingRules | None = None,
    real_names: bool = False,
    today: datetime.date | None = None,
) -> SeasonQualifiers:
    """The season's qualifiers under its rules (or these rules, to compare a change), as if
    the season ended tonight while it runs: two queries (the tallies, the venues), none
    before the season starts. Named as the public reads them unless real_names (a host)."""
    rules = rules or season.qualifying_rules
    status = season_status(season, today)
    if status == "upcoming":
        return SeasonQualifiers(season=season, rules=rules, status=status, league_nights=0)
    rows = _night_rows(season)
    by_venue: dict[int, list[dict]] = defaultdict(list)
    for row in rows:
        by_venue[row["venue_id"]].append(row)
    league_nights = len({row["day"] for row in rows})
    venues = {
        venue.pk: venue
        for venue in Venue.objects.filter(pk__in=list(by_venue)).only("name", "slug", "key")
    }
    # Each venue's standings and the nights each player played there.
    lists: dict[int, list[StandingRow]] = {}
    nights_at: dict[int, dict[int, int]] = {}
    needed: dict[int, int] = {}
    places: dict[int, int] = {}
    for venue_id, nights in by_venue.items():
        lists[venue_id] = _rank(nights, rules.best_nights, real_names=real_names)
        counted: dict[int, int] = defaultdict(int)
        for night in nights:
            counted[night["player_id"]] += 1
        nights_at[venue_id] = counted
        venue_nights = len({night["day"] for night in nights})
        needed[venue_id] = needed_nights(
            rules.min_nights, venue_nights=venue_nights, league_nights=league_nights
        )
        places[venue_id] = places_at(rules, len(lists[venue_id]))
    order = sorted(venues, key=lambda pk: (venues[pk].key, pk))
    venue_order = {pk: index for index, pk in enumerate(order)}
    # Every place a player could take, best position first: the better rank, then more
    # points, then the venue's name. A venue's list keeps its own order within it.
    candidates = sorted(
        (
            (row.rank, -row.points, venue_order[venue_id], index, venue_id, row.player_id)
            for venue_id, rows_here in lists.items()
            for index, row in enumerate(rows_here)
            if nights_at[venue_id][row.player_id] >= needed[venue_id]
        ),
    )
    taken: dict[int, int] = defaultdict(int)
    won: dict[int, set[int]] = defaultdict(set)  # venue -> its qualifiers
    best_venue: dict[int, int] = {}  # player -> the venue of their best place
    for *_, venue_id, player_id in candidates:
        if rules.one_venue and player_id in best_venue:
            continue  # qualified at a better position elsewhere: this place passes down
        if taken[venue_id] < places[venue_id]:
            taken[venue_id] += 1
            won[venue_id].add(player_id)
            best_venue.setdefault(player_id, venue_id)
    result = []
    for venue_id in order:
        venue = venues[venue_id]
        entries = []
        for index, standing in enumerate(lists[venue_id]):
            played_nights = nights_at[venue_id][standing.player_id]
            qualified = standing.player_id in won[venue_id]
            elsewhere = best_venue.get(standing.player_id)
            if qualified:
                reason = Reason.QUALIFIED
            elif played_nights < needed[venue_id]:
                reason = Reason.FEW_NIGHTS
            elif rules.one_venue and elsewhere is not None:
                reason = Reason.ELSEWHERE
            else:
                reason = Reason.OUTSIDE
            entries.append(
                QualifierEntry(
                    player_id=standing.player_id,
                    name=standing.player,
                    position=index + 1,
                    rank=standing.rank,
                    shared=standing.shared,
                    played=standing.played,
                    wins=standing.wins,
                    points=standing.points,
                    nights=played_nights,
                    needed=needed[venue_id],
                    qualified=qualified,
                    reason=reason,
                    venue_name=venue.name,
                    places=places[venue_id],
                    elsewhere=(
                        venues[elsewhere].name if reason is Reason.ELSEWHERE and elsewhere else None
                    ),
                )
            )
        result.append(
            VenueQualifiers(
                venue_id=venue_id,
                name=venue.name,
                slug=venue.slug,
                nights=len({night["day"] for night in by_venue[venue_id]}),
                needed=needed[venue_id],
                places=places[venue_id],
                ranked=len(lists[venue_id]),
                entries=tuple(entries),
            )
        )
    finalists = _finalists(rows, best_venue, venues, season, real_names=real_names)
    return SeasonQualifiers(
        season=season,
        rules=rules,
        status=status,
        league_nights=league_nights,
        venues=tuple(result),
        finalists=finalists,
    )


def _finalists(
    rows: list[dict],
    best_venue: dict[int, int],
    venues: dict[int, Venue],
    season: Season,
    *,
    real_names: bool,
) -> tuple[Finalist, ...]:
    """The qualified players in the season's league order: their nights added up over
    every venue (each player's best nights under the season's rule), ranked as the
    standings rank."""
    per_night: dict[tuple[int, datetime.date], dict] = {}
    for row in rows:
        if row["player_id"] not in best_venue:
            continue
        key = (row["player_id"], row["day"])
        night = per_night.get(key)
        if night is None:
            per_night[key] = dict(row)
        else:
            for name in SUMS:
                night[name] += row[name]
    league = _rank(list(per_night.values()), season.best_nights, real_names=real_names)
    return tuple(
        Finalist(
            player_id=row.player_id,
            name=row.player,
            venue_id=best_venue[row.player_id],
            venue_name=venues[best_venue[row.player_id]].name,
            season_rank=index + 1,
        )
        for index, row in enumerate(league)
    )


def qualifiers_json(result: SeasonQualifiers) -> dict:
    """The qualifiers as the API gives them (reasons in the active language)."""
    season = result.season
    slugs = {venue.venue_id: venue.slug for venue in result.venues}
    return {
        "season": {
            "id": season.pk,
            "name": season.name,
            "first_day": season.first_day.isoformat(),
            "last_day": season.last_day.isoformat(),
        },
        "status": result.status,
        "final": result.final,
        "rules": result.rules.as_dict(),
        "league_nights": result.league_nights,
        "venues": [
            {
                "venue": venue.slug,
                "name": venue.name,
                "nights": venue.nights,
                "needed_nights": venue.needed,
                "places": venue.places,
                "ranked": venue.ranked,
                "players": [entry.as_json() for entry in venue.shown],
            }
            for venue in result.venues
        ],
        "finalists": [
            {
                "player_id": finalist.player_id,
                "player": finalist.name,
                "venue": slugs[finalist.venue_id],
                "season_rank": finalist.season_rank,
            }
            for finalist in result.finalists
        ],
    }


def season_finalists(season: Season) -> list[Finalist]:
    """Every qualified player of the season under its rules (fixed once the season has
    ended), best season_rank first."""
    return list(season_qualifiers(season).finalists)
