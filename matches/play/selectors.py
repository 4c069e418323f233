"""Reads that span relations. Each runs a fixed number of queries, however long the table's
history: the table page and its polling stay cheap all season."""

import datetime
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import Count, F, OuterRef, Prefetch, Q, Subquery, Sum
from django.utils.formats import number_format

from . import ratings, running_totals, tonight
from .models import (
    AllTimeTotal,
    DailyTally,
    Match,
    Player,
    Season,
    Seat,
    StandingsStamp,
    Table,
    Tap,
)
from .scoring import points_for, shown_place

RECENT_MATCHES = 5


@dataclass(frozen=True)
class Board:
    """What the table page shows: the open match, who stands and who is out."""

    table: Table
    match: Match | None
    standing: list[Seat] = field(default_factory=list)
    out: list[Seat] = field(default_factory=list)
    last_tap: Tap | None = None
    recent: list[Match] = field(default_factory=list)
    # The match just filed, with its seats by place: shown as the result card until the
    # first tap of the next match.
    result: Match | None = None
    result_seats: list[Seat] = field(default_factory=list)
    # Undoing last_tap reopens its filed match (and removes the open one); if the open
    # match was given a new roster, that change goes too and the host confirms first.
    undo_reopens: bool = False
    undo_drops_roster: bool = False


def standings_stamp() -> str:
    """Changes whenever any standings change; one read of a one-row table."""
    row = StandingsStamp.objects.values_list("epoch", "version").first()
    return f"{row[0].hex}.{row[1]}" if row else "0"


# Plain SQL for the two reads that are a poll's whole work: building the ORM query cost more
# than running it. Table names as the models declare them (Meta.db_table's default).
_VERSION_SQL = "SELECT version FROM matches_table WHERE id = %s"
# The restore epoch (services never change it; `manage.py restore` does) comes with the row:
# a table's version goes back to the backup's on a restore, so a tag names the epoch too.
# The league's version comes too: the TV shows league ratings, which filings at other
# tables change.
_STAMPED_SQL = (
    "SELECT {columns}, s.epoch AS epoch, s.version AS league"
    " FROM matches_table t LEFT JOIN matches_standingsstamp s ON s.id = 1 WHERE t.id = %s"
)


def table_version(*, table_id: int) -> int | None:
    """The table's change counter, or None when there is no such table."""
    with connection.cursor() as cursor:
        cursor.execute(_VERSION_SQL, [table_id])
        row = cursor.fetchone()
    return None if row is None else row[0]


@dataclass(frozen=True)
class _RowReader:
    """The stamped read's SQL and the table fields' converters, worked out once per database
    connection: Table.objects.raw() did it on every call, which cost four times the query
    (every spectator poll runs this read)."""

    sql: str
    attnames: list[str]
    converters: list[tuple[int, Any, list]]  # (position, column, converters), as the ORM's

    @classmethod
    def build(cls, wrapper) -> "_RowReader":
        fields = Table._meta.concrete_fields
        columns = ", ".join(f"t.{wrapper.ops.quote_name(f.column)}" for f in fields)
        converters = []
        for position, model_field in enumerate(fields):
            column = model_field.get_col("t")
            found = wrapper.ops.get_db_converters(column) + model_field.get_db_converters(wrapper)
            if found:
                converters.append((position, column, found))
        return cls(_STAMPED_SQL.format(columns=columns), [f.attname for f in fields], converters)

    def table(self, wrapper, row: tuple) -> Table:
        values = list(row[: len(self.attnames)])
        for position, column, converters in self.converters:
            for convert in converters:
                values[position] = convert(values[position], column, wrapper)
        table = Table.from_db(wrapper.alias, self.attnames, values)
        table.epoch, table.league = row[len(self.attnames) :]
        return table


_row_readers: "weakref.WeakKeyDictionary[Any, _RowReader]" = weakref.WeakKeyDictionary()


def stamped_table(*, table_id: int, lock: bool = False) -> Table | None:
    """The table row with the restore epoch (table.epoch, as stored: its hex or a UUID) and
    the league's version (table.league), in one indexed read; with lock, locked until the
    transaction ends (PostgreSQL; SQLite's IMMEDIATE transaction already holds the write
    lock). The row comes as the ORM would build it (Table.from_db, its converters)."""
    wrapper = connections[DEFAULT_DB_ALIAS]  # this thread's own connection
    reader = _row_readers.get(wrapper)
    if reader is None:
        reader = _row_readers[wrapper] = _RowReader.build(wrapper)
    sql = reader.sql
    if lock and wrapper.features.has_select_for_update:
        sql += " FOR UPDATE OF t"
    with wrapper.cursor() as cursor:
        cursor.execute(sql, [table_id])
        row = cursor.fetchone()
    return None if row is None else reader.table(wrapper, row)


def restore_epoch() -> str:
    """The restore epoch alone, for a tag built from a version a write already holds."""
    epoch = StandingsStamp.objects.filter(pk=1).values_list("epoch", flat=True).first()
    return epoch.hex if epoch else "0"


T = TypeVar("T")
SNAPSHOT_TRIES = 3


@dataclass(frozen=True)
class Snapshot(Generic[T]):
    """What read(table) returned, all of it from the state at table.version. tries counts
    the reads (1: the first was clean; SNAPSHOT_TRIES + 1: it took the locked read)."""

    table: Table
    content: T
    tries: int


def table_snapshot(
    *, table_id: int, read: Callable[[Table], T], first: Table | None = None
) -> Snapshot[T] | None:
    """read(table) from one consistent state of the table, or None: no such table.

    Every write bumps the table's version in the transaction that makes the change
    (services._mark_changed), so when the version read after read() equals the one read
    with the row before it, no write committed in between and every query in read() saw the
    same state. Otherwise read again (a tap landed mid-read); after SNAPSHOT_TRIES, read
    under the table's row lock, which every write on the table takes first. first is the
    row (from stamped_table) when the caller already read it for the ETag."""
    table = first or stamped_table(table_id=table_id)
    for tries in range(1, SNAPSHOT_TRIES + 1):
        if table is None:
            return None
        content = read(table)
        if table_version(table_id=table_id) == table.version:
            return Snapshot(table, content, tries)
        table = stamped_table(table_id=table_id)
    with transaction.atomic():
        table = stamped_table(table_id=table_id, lock=True)
        return None if table is None else Snapshot(table, read(table), SNAPSHOT_TRIES + 1)


def _current_match(table: Table) -> tuple[Match | None, list[Seat], list[Seat]]:
    """The open match, its standing seats in seating order, and who is out, first out first."""
    match = table.matches.open().select_related("first_dealer").first()
    seats = list(match.seats.select_related("player")) if match else []
    standing = [seat for seat in seats if seat.place is None]
    out = sorted((seat for seat in seats if seat.place is not None), key=lambda s: -s.place)
    return match, standing, out


def _filed_with_winners(table: Table):
    return table.matches.filed().select_related("winner")


def recent_filed(*, table: Table) -> list[Match]:
    """The table's latest filed matches with their winners, newest first (one query)."""
    return list(_filed_with_winners(table).order_by("-number")[:RECENT_MATCHES])


def table_board(*, table: Table, for_host: bool = False, last_result: bool = False) -> Board:
    """The table's open match with its seats in seating order, and what can be undone.
    The result card is the match just filed, until the next match's first tap; with
    last_result (the TV) it is the latest filed match whatever happened since. Whether an
    undo would drop a roster change is only worked out for a host (for_host)."""
    match, standing, out = _current_match(table)
    last_tap = (
        Tap.objects.select_related("player", "match")
        .filter(match__table=table, undone_at__isnull=True)
        .order_by("-id")
        .first()
    )
    recent = recent_filed(table=table)
    result, result_seats = None, []
    just_filed = match is not None and not out and recent and recent[0].number == match.number - 1
    if recent and (just_filed or last_result):
        result = recent[0]
        result_seats = list(result.seats.select_related("player").order_by("place"))
    undo_reopens = last_tap is not None and last_tap.match.status == Match.Status.FILED
    undo_drops_roster = False
    if for_host and undo_reopens and match is not None:
        # One more read only when an undo would cross into the filed match.
        seating = [seat.player_id for seat in sorted(standing + out, key=lambda s: s.position)]
        filed = last_tap.match.seats.order_by("position").values_list("player_id", flat=True)
        undo_drops_roster = seating != list(filed)
    return Board(
        table=table,
        match=match,
        standing=standing,
        out=out,
        last_tap=last_tap,
        recent=recent,
        result=result,
        result_seats=result_seats,
        undo_reopens=undo_reopens,
        undo_drops_roster=undo_drops_roster,
    )


def board_after_tap(
    *,
    table: Table,
    tap: Tap,
    seats: list[Seat],
    recent: list[Match],
    next_match: Match | None = None,
    next_seats: list[Seat] | None = None,
) -> Board:
    """The board a tap leaves, from the rows its transaction already holds: the tap, its
    match's seats and, after a crowning, the match it opened with that match's seats; and
    the latest filed matches (recent_filed) as the tap found them. Reads nothing."""
    crowned = next_match is not None
    match, board_seats = (next_match, next_seats or []) if crowned else (tap.match, seats)
    standing = [seat for seat in board_seats if seat.place is None]
    out = sorted((seat for seat in board_seats if seat.place is not None), key=lambda s: -s.place)
    return Board(
        table=table,
        match=match,
        standing=standing,
        out=out,
        last_tap=tap,
        recent=recent,
        # The match just filed is the result card until the next match's first tap.
        result=tap.match if crowned else None,
        result_seats=sorted(seats, key=lambda s: s.place) if crowned else [],
        undo_reopens=crowned,
        # The next match opened with the filed match's seating: no roster change to lose.
        undo_drops_roster=False,
    )


def tv_ratings(*, tonight: "list[tonight.TonightRow]") -> dict[int, "ratings.RatingRow"]:
    """The league rating of each player in the TV's tonight table, by player id; one query,
    none before anyone filed tonight."""
    rows = ratings.ratings_of(player_ids=[row.player_id for row in tonight])
    return {row.player_id: row for row in rows}


@dataclass(frozen=True)
class TableSummary:
    """A table as the home page lists it."""

    table: Table
    match_number: int | None
    standing: int | None
    leader: "tonight.TonightRow | None"


def home_tables(*, limit: int = 50) -> tuple[list[TableSummary], list[TableSummary]]:
    """Open tables (newest first) with their match, players standing and tonight's leader;
    then closed tables, most recently closed first. A fixed four queries."""
    open_match = Match.objects.filter(table=OuterRef("pk"), status=Match.Status.OPEN)
    standing = (
        Seat.objects.filter(match__table=OuterRef("pk"), match__status=Match.Status.OPEN)
        .filter(place__isnull=True)
        .values("match")
        .annotate(n=Count("id"))
        .values("n")[:1]
    )
    tables = Table.objects.annotate(
        match_number=Subquery(open_match.values("number")[:1]), standing=Subquery(standing)
    )
    open_tables = list(tables.filter(closed_at__isnull=True).order_by("-created_at")[:limit])
    closed = list(tables.filter(closed_at__isnull=False).order_by("-closed_at", "-id")[:limit])
    leaders = tonight.tonight_leaders(tables=open_tables)

    def summary(table: Table) -> TableSummary:
        return TableSummary(table, table.match_number, table.standing, leaders.get(table.pk))

    return [summary(t) for t in open_tables], [summary(t) for t in closed]


def standing_names(table_id: str) -> list[str]:
    """Who stands in a table's open match (the id as typed in a query; none if unknown)."""
    # ASCII digits only, and no longer than an id can be: int() refuses "²" (which isdigit()
    # accepts) and any string over 4,300 digits.
    if not (table_id.isascii() and table_id.isdigit()) or len(table_id) > 19:
        return []
    table = Table.objects.filter(pk=int(table_id)).first()
    return [seat.player.name for seat in _current_match(table)[1]] if table else []


def table_filed_matches(*, table: Table) -> list[Match]:
    """Filed matches of a table, newest first, with their winners."""
    return list(_filed_with_winners(table).order_by("-number"))


def match_detail(*, table: Table, number: int) -> Match | None:
    """A match by number with its seats (by place, then seat)."""
    return (
        table.matches.live()
        .filter(number=number)
        .select_related("first_dealer", "winner")
        .prefetch_related(
            Prefetch(
                "seats",
                # Standing players (no place yet) last: SQLite sorts NULL first unless told.
                queryset=Seat.objects.select_related("player").order_by(
                    F("place").asc(nulls_last=True), "position"
                ),
            )
        )
        .first()
    )


def match_audit(*, table: Table, number: int) -> list[Tap]:
    """Every tap ever made under this match number, undone ones included, and those of a
    match discarded when the crowning before it was undone: nothing is silently dropped."""
    return list(
        Tap.objects.filter(match__table=table, match__number=number)
        .select_related("player", "tapped_by", "undone_by", "match")
        .order_by("id")
    )


def table_api(*, table: Table) -> dict:
    """The read-only JSON document for scoreboards and other programs."""
    match, standing, out = _current_match(table)
    current = None
    if match is not None:
        current = {
            "number": match.number,
            "first_dealer": match.first_dealer.name,
            "standing": [seat.player.name for seat in standing],
            "out": [
                {"player": seat.player.name, "place": shown_place(table.mode, seat.place)}
                for seat in out
            ],
        }
    filed = (
        _filed_with_winners(table)
        .prefetch_related(
            Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("place"))
        )
        .order_by("number")
    )
    return {
        "id": table.pk,
        "name": table.name,
        "mode": table.mode,
        "is_open": table.is_open,
        "current_match": current,
        "matches": [
            {
                "number": match.number,
                "filed_at": match.filed_at.isoformat(),
                "winner": match.winner.name,
                "results": [
                    {
                        "player": seat.player.name,
                        "place": shown_place(table.mode, seat.place),
                        "points": points_for(table.mode, seat.place),
                    }
                    for seat in match.seats.all()
                ],
            }
            for match in filed
        ],
    }


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

    @property
    def win_percent(self) -> Decimal:
        """Rounded once, half up, to one decimal (2 of 3 is 66.7): the page and the CSV
        show this same number (number_format alone would cut 66.66… to 66.6)."""
        if not self.played:
            return Decimal("0.0")
        exact = Decimal(100 * self.wins) / Decimal(self.played)
        return exact.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)

    @property
    def win_percent_text(self) -> str:
        """One decimal, in the reader's language (66.7 or 66,7)."""
        return number_format(self.win_percent, 1)

    def as_json(self) -> dict:
        """The row in the standings API."""
        return {name: getattr(self, name) for name in STANDING_JSON_FIELDS}

    def as_csv_row(self) -> list:
        """The row in the standings CSV, under STANDING_CSV_HEADER."""
        # The rank stays a number a spreadsheet can sort; "shared" says it is shared ("=2").
        shared = "yes" if self.shared else "no"
        counts = [self.played, self.wins, self.seconds, self.thirds, self.points]
        return [self.rank, shared, self.player, *counts, str(self.win_percent)]


STANDING_JSON_FIELDS = ("rank", "shared", "player", "played", "wins", "seconds", "thirds", "points")
STANDING_CSV_HEADER = [
    "rank", "shared", "player", "played", "wins", "2nds", "3rds", "points", "win %"
]  # fmt: skip


def filter_choices() -> tuple[list, list]:
    """What the standings filters offer: every table and season as (id, name), two small
    reads where rendering their lists costs a hundred times more."""
    tables = list(Table.objects.order_by("name", "id").values_list("pk", "name"))
    seasons = list(Season.objects.values_list("pk", "name"))
    return tables, seasons


def _tally_filter(
    table_id: int | None, date_from: datetime.date | None, date_to: datetime.date | None
) -> Q:
    where = Q()
    if table_id is not None:
        where &= Q(table_id=table_id)
    if date_from is not None:
        where &= Q(day__gte=date_from)
    if date_to is not None:
        where &= Q(day__lte=date_to)
    return where


SUMS = {f"{name}_sum": Sum(name) for name in ("played", "wins", "seconds", "thirds", "points")}


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


def rank_standings(rows: list[dict], *, wins_only: bool = False) -> list[StandingRow]:
    """Player rows (name, key and SUMS) in standings order with their ranks: players equal
    on every step share a rank (1, =2, =2, 4) and are listed by name."""
    # Each row's order key once (a league has hundreds of players; this runs on every filing).
    keyed = sorted(
        ((_order_key(row, wins_only), row["player__key"], row["player_id"], row) for row in rows),
        key=lambda item: item[:3],
    )
    result: list[StandingRow] = []
    for index, (key, _, _, row) in enumerate(keyed):
        tied_above = index > 0 and keyed[index - 1][0] == key
        tied_below = index + 1 < len(keyed) and keyed[index + 1][0] == key
        result.append(
            StandingRow(
                rank=result[-1].rank if tied_above else index + 1,
                shared=tied_above or tied_below,
                player_id=row["player_id"],
                player=row["player__name"],
                played=row["played_sum"],
                wins=row["wins_sum"],
                seconds=row["seconds_sum"],
                thirds=row["thirds_sum"],
                points=row["points_sum"],
            )
        )
    return result


def standings(
    *,
    table_id: int | None = None,
    date_from: datetime.date | None = None,
    date_to: datetime.date | None = None,
    mode: str | None = None,
    wins_only: bool = False,
) -> list[StandingRow]:
    """League standings over filed matches: a date range from the running totals (one
    query), otherwise summed over the all-time totals, or a table's daily tallies.

    Order: points, wins, 2nds, 3rds, then fewer played. Standings of winner-takes-all
    matches only (wins_only) rank by wins, then fewer played: that mode keeps no points."""
    if (date_from or date_to) and table_id is None:
        # Two rows per player and mode, however long the range (running_totals.py).
        rows = running_totals.range_rows(date_from=date_from, date_to=date_to, mode=mode)
        return rank_standings(rows, wins_only=wins_only)
    # The all-time totals answer without dates; one table's few daily tallies its range.
    source = DailyTally if date_from or date_to else AllTimeTotal
    where = _tally_filter(table_id, date_from, date_to)
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
    return rank_standings(_with_names(sums), wins_only=wins_only)


def _with_names(sums) -> list[dict]:
    """The per-player sums with each player's name and key joined to them, in one query:
    once per player rather than once per tally row, and without a second query naming
    every player id."""
    # Django's own SQL for the sums, its parameters passed apart: nothing here is user text.
    sql, params = sums.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT t.*, p."name" AS "player__name", p."key" AS "player__key" FROM ({sql}) t'  # noqa: S608
            f' JOIN "{Player._meta.db_table}" p ON p."id" = t."player_id"',
            params,
        )
        columns = [column[0] for column in cursor.description]
        return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def table_results(*, table: Table):
    """Every result of a table's filed matches, by match then place, for the CSV export."""
    return (
        Seat.objects.filter(match__table=table, match__status=Match.Status.FILED)
        .select_related("match", "player")
        .order_by("match__number", "place")
    )
