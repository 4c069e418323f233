"""League standings: each player's filed results summed over the kept counts (all time, a
table, a date range or a season), ranked with the tie-breaks, as the page, JSON and CSV
show them."""

import dataclasses
import datetime
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple, cast

from django.db import connection
from django.db.models import BooleanField, ExpressionWrapper, Q, Sum
from django.utils.formats import number_format

from matches.models import AllTimeTotal, DailyTally, Player, Season, Table, Venue
from matches.results import running_totals
from matches.results.running_totals import PUBLIC_NAME_COLUMNS
from matches.rules import scoring
from matches.rules.names import shown_player_name
from matches.rules.scoring import COUNT_FIELDS


@dataclass(frozen=True)
class StandingRow:
    rank: int
    shared: bool
    player_id: int
    player: str
    played: int
    wins: int
    seconds: int
    thirds: int
    points: int
    # The step of the order that put this row below the one above (TIE_BREAK_STEPS), None
    # when the first key (points; wins when ranking by wins) did or on the first row, and
    # LEVEL when nothing did. For the page: the step that put it above the row below
    # (ahead_on, ahead_of that player) and whom it is level with on every step.
    tie_break: str | None = None
    ahead_on: str | None = None
    ahead_of: str | None = None
    level_with: tuple[str, ...] = ()
    # Under a season's "best N nights" rule: the nights that count, in date order.
    nights: tuple[datetime.date, ...] = ()

    @property
    def win_percent(self) -> Decimal:
        """One rounding everywhere (scoring.win_percent): the page and the CSV agree."""
        return scoring.win_percent(wins=self.wins, played=self.played)

    @property
    def win_percent_text(self) -> str:
        """One decimal, in the reader's language (66.7 or 66,7)."""
        return number_format(self.win_percent, 1)

    def as_json(self) -> dict:
        """The row in the standings API (with the nights that count under a season's best
        nights rule)."""
        row = {name: getattr(self, name) for name in STANDING_JSON_FIELDS}
        if self.nights:
            row["nights"] = [night.isoformat() for night in self.nights]
        return row

    def as_csv_row(self) -> list:
        """The row in the standings CSV, under STANDING_CSV_HEADER."""
        # The rank stays a number a spreadsheet can sort; "shared" says it is shared ("=2").
        shared = "yes" if self.shared else "no"
        counts = [self.played, self.wins, self.seconds, self.thirds, self.points]
        return [self.rank, shared, self.player, *counts, str(self.win_percent)]


STANDING_JSON_FIELDS = (
    "rank", "shared", "player", "played", "wins", "seconds", "thirds", "points", "tie_break"
)  # fmt: skip
STANDING_CSV_HEADER = [
    "rank", "shared", "player", "played", "wins", "2nds", "3rds", "points", "win %"
]  # fmt: skip


@dataclass(frozen=True)
class StandingsQuery:
    """Which standings to read: a table's, a venue's or the whole league's, over a date
    range (a season's days when a season is chosen) or all time, of one mode or both. The
    standings form builds it; the selector reads it and the cache keys name it."""

    table_id: int | None = None
    # A venue's standings count only the matches at its tables; None: the whole league.
    # venue_slug is what the API echoes (the form sets both).
    venue_id: int | None = None
    venue_slug: str | None = None
    season_id: int | None = None
    date_from: datetime.date | None = None
    date_to: datetime.date | None = None
    mode: str | None = None
    # Winner-takes-all matches only (that mode asked for, or a table of that mode): they
    # keep no points, so the standings rank by wins.
    wins_only: bool = False
    # The chosen season's best nights rule, if it has one.
    best_nights: int | None = None
    min_nights: int = 0

    @property
    def mixes_modes(self) -> bool:
        """League-wide standings of both modes, where points alone compare badly."""
        return self.table_id is None and not self.mode

    def as_json(self) -> dict:
        """The filters as the standings API echoes them (and its cache keys read them)."""
        return {
            "table": self.table_id,
            "venue": self.venue_slug,
            "season": self.season_id,
            "from": self.date_from.isoformat() if self.date_from else None,
            "to": self.date_to.isoformat() if self.date_to else None,
            "mode": self.mode,
        }


ALL_TIME = StandingsQuery()


def mode_played_most(venue_slug: str | None = None) -> str | None:
    """The mode of most filed matches when the league (or the venue of that slug) has filed
    matches of both modes (a tie goes to ranked), else None: points alone compare the two
    modes badly, so the standings open on one. Read off the running totals, not the
    matches: its cost stays flat however many are filed."""
    counts = running_totals.filed_per_mode(venue_slug)
    if len(counts) < 2:
        return None
    ranked, wta = counts.get(Table.Mode.RANKED, 0), counts.get(Table.Mode.WINNER_TAKES_ALL, 0)
    return Table.Mode.WINNER_TAKES_ALL if wta > ranked else Table.Mode.RANKED


class FilterChoices(NamedTuple):
    """What the standings filters offer, each as (id or slug, name)."""

    tables: list[tuple[int, str]]
    seasons: list[tuple[int, str]]
    venues: list[tuple[str, str]]


def filter_choices() -> FilterChoices:
    """What the standings filters offer: every table, season and venue, three small reads
    where rendering their lists costs a hundred times more."""
    tables = list(Table.objects.order_by("name", "id").values_list("pk", "name"))
    seasons = list(Season.objects.values_list("pk", "name"))
    venues = list(Venue.objects.values_list("slug", "name"))
    return FilterChoices(tables, seasons, venues)


def _tally_filter(
    table_id: int | None,
    date_from: datetime.date | None,
    date_to: datetime.date | None,
    venue_id: int | None = None,
) -> Q:
    where = Q()
    if table_id is not None:
        where &= Q(table_id=table_id)
    if venue_id is not None:
        where &= Q(venue_id=venue_id)
    if date_from is not None:
        where &= Q(day__gte=date_from)
    if date_to is not None:
        where &= Q(day__lte=date_to)
    return where


SUMS = {f"{name}_sum": Sum(name) for name in COUNT_FIELDS}


# The steps of each order, named as the standings API's tie_break says them.
TIE_BREAK_STEPS = ("points", "wins", "seconds", "thirds", "played")
WINS_ONLY_STEPS = ("wins", "played")
LEVEL = "level"


def _separated_on(above: tuple, below: tuple, steps: tuple[str, ...]) -> str | None:
    """The step that put `below` under `above`: None if the first, LEVEL if none."""
    for index, (a, b) in enumerate(zip(above, below, strict=True)):
        if a != b:
            return steps[index] if index else None
    return LEVEL


def _order_key(row: dict, wins_only: bool) -> tuple[int, ...]:
    # More is better except matches played: fewer is the last tie-break.
    if wins_only:
        return (-row["wins_sum"], row["played_sum"])
    return (
        -row["points_sum"],
        -row["wins_sum"],
        -row["seconds_sum"],
        -row["thirds_sum"],
        row["played_sum"],
    )


def shown_row_name(row: dict, *, real_names: bool) -> str:
    """The name a viewer reads of a player row (player_id, player__name and the
    PUBLIC_NAME_COLUMNS): the host's (real_names) or the public's."""
    return shown_player_name(
        player_id=row["player_id"],
        name=row["player__name"],
        public_name=row["player__public_name"],
        hidden=bool(row["player__hidden"]),
        erased=bool(row["player__erased"]),
        real=real_names,
    )


def rank_standings(
    rows: list[dict], *, wins_only: bool = False, real_names: bool = False
) -> list[StandingRow]:
    """Player rows (name, key, the public name's columns and SUMS) in standings order with
    their ranks: players equal on every step share a rank (1, =2, =2, 4) and are listed by
    name. Each row names its player as the public reads them unless real_names (a host)."""
    # Each row's order key once (a league has hundreds of players; this runs on every filing).
    keyed = sorted(
        ((_order_key(row, wins_only), row["player__key"], row["player_id"], row) for row in rows),
        key=lambda item: item[:3],
    )
    steps = WINS_ONLY_STEPS if wins_only else TIE_BREAK_STEPS
    # Each step against the row above, then against the row below (the next one's).
    breaks = [None] + [
        _separated_on(keyed[index - 1][0], keyed[index][0], steps) for index in range(1, len(keyed))
    ]
    # Who shares every step with whom (players with an equal key).
    level: dict[tuple, list[str]] = {}
    for key, _, _, row in keyed:
        level.setdefault(key, []).append(shown_row_name(row, real_names=real_names))
    result: list[StandingRow] = []
    for index, (key, _, _, row) in enumerate(keyed):
        tied_above = index > 0 and keyed[index - 1][0] == key
        tied_below = index + 1 < len(keyed) and keyed[index + 1][0] == key
        below = breaks[index + 1] if index + 1 < len(keyed) else None
        ahead = below not in (None, LEVEL)
        shown = shown_row_name(row, real_names=real_names)
        result.append(
            StandingRow(
                rank=result[-1].rank if tied_above else index + 1,
                shared=tied_above or tied_below,
                player_id=row["player_id"],
                player=shown,
                played=row["played_sum"],
                wins=row["wins_sum"],
                seconds=row["seconds_sum"],
                thirds=row["thirds_sum"],
                points=row["points_sum"],
                tie_break=breaks[index],
                ahead_on=below if ahead else None,
                ahead_of=(
                    shown_row_name(keyed[index + 1][3], real_names=real_names) if ahead else None
                ),
                level_with=tuple(name for name in level[key] if name != shown),
            )
        )
    return result


def standings(query: StandingsQuery = ALL_TIME, *, real_names: bool = False) -> list[StandingRow]:
    """League standings over filed matches (or a venue's: query.venue_id, its matches
    only): a date range from the running totals (one query), otherwise summed over the
    all-time totals, or a table's daily tallies.

    Order: points, wins, 2nds, 3rds, then fewer played. Standings of winner-takes-all
    matches only (wins_only) rank by wins, then fewer played: that mode keeps no points.
    A season's best nights rule (best_nights) counts each player's best nights only.
    Players are named as the public reads them unless real_names (a host)."""
    table_id, date_from, date_to = query.table_id, query.date_from, query.date_to
    mode, wins_only, venue_id = query.mode, query.wins_only, query.venue_id
    if query.best_nights:
        return best_nights_standings(
            table_id=table_id,
            venue_id=venue_id,
            date_from=date_from,
            date_to=date_to,
            mode=mode,
            wins_only=wins_only,
            best=query.best_nights,
            minimum=query.min_nights,
            real_names=real_names,
        )
    if (date_from or date_to) and table_id is None:
        # Two rows per player and mode, however long the range (results/running_totals.py).
        rows = running_totals.range_rows(
            date_from=date_from, date_to=date_to, mode=mode, venue_id=venue_id
        )
        return rank_standings(rows, wins_only=wins_only, real_names=real_names)
    # The all-time totals answer without dates; one table's few daily tallies its range.
    source = DailyTally if date_from or date_to else AllTimeTotal
    where = _tally_filter(table_id, date_from, date_to, venue_id)
    if mode:
        where &= Q(table__mode=mode)
    # Summed per player id alone, from the covering indexes (models.DailyTally): joining
    # the names to every tally row would cost more than reading them once per player.
    sums = (
        source.objects.filter(where)
        .values("player_id")
        .annotate(**SUMS)
        .filter(played_sum__gt=0)
        .order_by()
    )
    # Ranks over the player rows (a few hundred at most), not over matches.
    return rank_standings(_with_names(sums), wins_only=wins_only, real_names=real_names)


def _with_names(sums) -> list[dict]:
    """The per-player sums with each player's name and key joined to them, in one query:
    once per player rather than once per tally row, and without a second query naming
    every player id."""
    # Django's own SQL for the sums, its parameters passed apart: nothing here is user text.
    sql, params = sums.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT t.*, p."name" AS "player__name", p."key" AS "player__key", '  # noqa: S608
            f'p."public_name" AS "{PUBLIC_NAME_COLUMNS[0]}", p."hidden" AS "{PUBLIC_NAME_COLUMNS[1]}", '
            f'p."erased_at" IS NOT NULL AS "{PUBLIC_NAME_COLUMNS[2]}" FROM ({sql}) t'
            f' JOIN "{Player._meta.db_table}" p ON p."id" = t."player_id"',
            params,
        )
        columns = [column[0] for column in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


# What a per-night tally row carries of its player, for rank_standings to name them.
NIGHT_NAME_VALUES = ("player__name", "player__key", "player__public_name", "player__hidden")


def night_name_values() -> dict:
    """values() arguments naming each tally row's player as rank_standings reads them."""
    erased = ExpressionWrapper(Q(player__erased_at__isnull=False), output_field=BooleanField())
    return {"fields": NIGHT_NAME_VALUES, "expressions": {"player__erased": erased}}


def best_nights_standings(
    *,
    table_id: int | None = None,
    venue_id: int | None = None,
    date_from: datetime.date | None,
    date_to: datetime.date | None,
    mode: str | None = None,
    wins_only: bool = False,
    best: int,
    minimum: int = 0,
    real_names: bool = False,
) -> list[StandingRow]:
    """Standings under a season's "best N nights" rule (rank_best_nights): one query, each
    player's nights with their names. At a venue, a player's best nights there."""
    where = _tally_filter(table_id, date_from, date_to, venue_id)
    if mode:
        where &= Q(table__mode=mode)
    names = night_name_values()
    # The sums are annotations the stubs cannot type: read as plain dicts.
    per_night = cast(
        "list[dict]",
        list(
            DailyTally.objects.filter(where)
            .values("player_id", "day", *names["fields"], **names["expressions"])
            .annotate(**SUMS)
            .order_by()
        ),
    )
    return rank_best_nights(
        per_night, best=best, minimum=minimum, wins_only=wins_only, real_names=real_names
    )


def rank_best_nights(
    per_night: list[dict],
    *,
    best: int,
    minimum: int = 0,
    wins_only: bool = False,
    real_names: bool = False,
) -> list[StandingRow]:
    """Rows of one player's night each (player_id, day, the night_name_values() columns and
    SUMS) ranked under a "best N nights" rule: each player's counts are the sum of their
    best `best` nights (best by the standings' own order: points, wins, 2nds, 3rds, fewer
    played; the earlier night on a tie), and only players with `minimum` nights or more are
    ranked. No query."""
    nights: dict[int, list[dict]] = {}
    for night in per_night:
        # A night whose matches were all taken back leaves tallies of zero: not a night.
        if night["played_sum"]:
            nights.setdefault(night["player_id"], []).append(night)
    counted: dict[int, list[dict]] = {
        player_id: sorted(rows, key=lambda r: (_order_key(r, wins_only), r["day"]))[:best]
        for player_id, rows in nights.items()
        if len(rows) >= minimum
    }
    columns = (*NIGHT_NAME_VALUES, *PUBLIC_NAME_COLUMNS)
    rows = [
        {
            "player_id": player_id,
            **{column: chosen[0][column] for column in columns},
            **{name: sum(night[name] for night in chosen) for name in SUMS},
        }
        for player_id, chosen in counted.items()
    ]
    days = {
        player_id: tuple(sorted(n["day"] for n in chosen)) for player_id, chosen in counted.items()
    }
    return [
        dataclasses.replace(row, nights=days[row.player_id])
        for row in rank_standings(rows, wins_only=wins_only, real_names=real_names)
    ]
