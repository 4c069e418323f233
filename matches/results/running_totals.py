"""Running totals: each player's filed results at tables of one mode, and at tables of all
modes, over every day up to one (RunningTotal), the league's and each venue's, kept by the
services beside the daily tallies. Standings over a date range [a, b] are then, per player, the latest row of the
mode asked (or of all) on or before b less the latest row before a: two index seeks per
player, whether the range holds a day or a year.

Plain SQL throughout (standard SQL, as SQLite 3.35+ and PostgreSQL both read it): the range
read joins the two rows its correlated subqueries find, the filing's insert copies the row
before its day, and the rebuild adds the tallies up with a window; the ORM spells none of
these."""

import datetime
from collections import defaultdict
from collections.abc import Sequence

from django.db import connection, transaction
from django.db.models import Sum

from matches.core.stamp import standings_changed
from matches.models import DailyTally, Player, RunningTotal, Seat, Table, Venue
from matches.rules.scoring import COUNT_FIELDS, finished_place, place_counts

# What a standings row carries of a player's names besides the name, for the rule that picks
# the one a viewer reads (results.standings.rank_standings): the public name, whether hidden
# and whether erased.
PUBLIC_NAME_COLUMNS = ("player__public_name", "player__hidden", "player__erased")

ALL = RunningTotal.ALL_MODES

_RUNNING = RunningTotal._meta.db_table
_PLAYER = Player._meta.db_table
_TALLY = DailyTally._meta.db_table
_TABLE = Table._meta.db_table
_VENUE = Venue._meta.db_table


def _latest(
    player: str, mode: str, venue: str | None, op: str | None, columns: str = "r.id"
) -> str:
    """The latest row of one player and mode (at one venue, or the league's: venue None) on
    or before a day (op "<="), before it ("<") or at all (None): a step back along the
    unique index of the league's rows or of the venues', whatever the number of days."""
    day = f" AND r.day {op} %s" if op else ""
    # "IS NOT NULL" spelled out: both planners then match the venues' partial index.
    where = f"r.venue_id = {venue} AND r.venue_id IS NOT NULL" if venue else "r.venue_id IS NULL"
    return (
        f"SELECT {columns} FROM {_RUNNING} r WHERE r.player_id = {player} AND {where} "  # noqa: S608 (names from the model, values as parameters)
        f"AND r.mode = {mode}{day} ORDER BY r.day DESC LIMIT 1"
    )


def _join(alias: str, op: str | None, *, venue: str | None, outer: bool) -> str:
    """Join each player and mode to their latest row (see _latest) as alias. PostgreSQL
    reads it as a LATERAL subquery, one index step per player and mode; handed the row's
    id to join on instead, its planner hashes the whole table. SQLite has no LATERAL and
    seeks the id's row by its primary key."""
    kind = "LEFT JOIN" if outer else "JOIN"
    if connection.vendor == "postgresql":
        counts = ", ".join(f"r.{field}" for field in COUNT_FIELDS)
        latest = _latest("p.id", "m.mode", venue, op, counts)
        return f"{kind} LATERAL ({latest}) {alias} ON true"
    return f"{kind} {_RUNNING} {alias} ON {alias}.id = ({_latest('p.id', 'm.mode', venue, op)})"


def _day(day: datetime.date) -> str | datetime.date | None:
    """A day as the database driver takes it (a date for psycopg, text for SQLite)."""
    return connection.ops.adapt_datefield_value(day)


def range_rows(
    *,
    date_from: datetime.date | None,
    date_to: datetime.date | None,
    mode: str | None = None,
    venue_id: int | None = None,
) -> list[dict]:
    """Each player's filed results from date_from to date_to (either open), at tables of one
    mode or of any, at one venue or the league's, as standings rows (player_id,
    player__name, player__key, the public name's columns and the *_sum counts) with
    something played; one query."""
    if date_from is not None and date_to is not None and date_from > date_to:
        return []
    params: list = [mode or ALL, venue_id]
    venue = "m.venue" if venue_id is not None else None
    joins = _join("hi", None if date_to is None else "<=", venue=venue, outer=False)
    if date_to is not None:
        params.append(_day(date_to))
    less = dict.fromkeys(COUNT_FIELDS, "")
    if date_from is not None:
        joins += " " + _join("lo", "<", venue=venue, outer=True)
        params.append(_day(date_from))
        less = {field: f" - COALESCE(lo.{field}, 0)" for field in COUNT_FIELDS}
    counts = ", ".join(f"hi.{field}{less[field]}" for field in COUNT_FIELDS)
    # Each player once: a few hundred rows, each answered by its two index seeks. The venue
    # is typed: PostgreSQL reads an untyped NULL parameter as text.
    sql = (
        f"SELECT p.id, p.name, p.key, p.public_name, p.hidden, p.erased_at IS NOT NULL, "  # noqa: S608 (names from the models, values as parameters)
        f"{counts} FROM {_PLAYER} p "
        f"CROSS JOIN (SELECT %s AS mode, CAST(%s AS BIGINT) AS venue) m {joins} "
        f"WHERE hi.played{less['played']} > 0"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    names = (
        "player_id",
        "player__name",
        "player__key",
        *PUBLIC_NAME_COLUMNS,
        *(f"{f}_sum" for f in COUNT_FIELDS),
    )
    return [dict(zip(names, row, strict=True)) for row in rows]


def filed_per_mode(venue_slug: str | None = None) -> dict[str, int]:
    """How many matches each mode has filed, in the league or at the venue of venue_slug
    (none at a slug that names no venue). Each filed match crowns one winner, so the count is
    the players' latest wins of that mode summed: two index seeks per player, however many
    matches were filed; one query."""
    modes = [str(mode) for mode in Table.Mode]
    venue = "m.venue" if venue_slug else None
    pick = " UNION ALL ".join(["SELECT %s AS mode"] * len(modes))
    sql = (
        f"SELECT m.mode, SUM(hi.wins) FROM {_PLAYER} p "  # noqa: S608 (names from the models, values as parameters)
        f"CROSS JOIN (SELECT k.mode, CAST((SELECT id FROM {_VENUE} WHERE slug = %s) AS BIGINT) "
        f"AS venue FROM ({pick}) k) m {_join('hi', None, venue=venue, outer=False)} "
        f"GROUP BY m.mode"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [venue_slug or "", *modes])
        return {mode: int(wins) for mode, wins in cursor.fetchall() if wins}


def running_file(
    *, day: datetime.date, mode: str, venue_id: int, seats: Sequence[Seat], sign: int
) -> None:
    """Count a filed match in its players' running totals (of its mode and of all modes,
    the league's and its venue's) from its day on (sign 1), or take it back (sign -1).
    Filing adds to the rows from that day on (normally none but that day's own), then gives
    a player without a row that day one: their latest row before it, or nothing, plus the
    match. Two statements to file, one to take back, as before rows carried the venue."""
    worth = {seat.player_id: place_counts(mode, finished_place(seat.place)) for seat in seats}
    fields = [field for field in COUNT_FIELDS if any(getattr(c, field) for c in worth.values())]
    ids = list(worth)
    marks = ", ".join(["%s"] * len(ids))
    sets, params = [], []
    for field in fields:
        whens = " ".join(["WHEN %s THEN %s"] * len(ids))
        sets.append(f"{field} = {field} + CASE player_id {whens} ELSE 0 END")
        params += [v for pk, c in worth.items() for v in (pk, sign * getattr(c, field))]
    # The rows to add to, found along each partial unique index (the league's, the venue's):
    # an OR of the two would match neither index's condition and read the whole table.
    rows = " UNION ALL ".join(
        f"SELECT id FROM {_RUNNING} WHERE player_id IN ({marks}) AND {at} "  # noqa: S608 (names from the model, values as parameters)
        "AND mode IN (%s, %s) AND day >= %s"
        for at in ("venue_id IS NULL", "venue_id = %s AND venue_id IS NOT NULL")
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_RUNNING} SET {', '.join(sets)} WHERE id IN ({rows})",  # noqa: S608 (as above)
            [
                *params,
                *ids,
                *(mode, ALL, _day(day)),
                *ids,
                *(venue_id, mode, ALL, _day(day)),
            ],
        )
        if sign < 0:
            return
        row = "(" + ", ".join(["%s"] * (3 + len(COUNT_FIELDS))) + ")"
        values = ", ".join([row] * 4 * len(ids))
        added = ", ".join(
            f"COALESCE(prev.{field}, 0) + v.column{index}"
            for index, field in enumerate(COUNT_FIELDS, start=4)
        )
        league = _latest("v.column1", "v.column3", None, "<")
        at_venue = _latest("v.column1", "v.column3", "v.column2", "<")
        # Each row's own kind of latest row: the league's for a row without a venue. "WHERE
        # true": SQLite reads an ON after a join as the join's unless a WHERE comes between
        # it and ON CONFLICT. No conflict target: a row already there for the day, of
        # either partial unique index, was added to by the UPDATE.
        cursor.execute(
            f"INSERT INTO {_RUNNING} (player_id, venue_id, mode, day, "  # noqa: S608 (names from the model, values as parameters)
            f"{', '.join(COUNT_FIELDS)}) "
            f"SELECT v.column1, v.column2, v.column3, %s, {added} FROM (VALUES {values}) v "
            f"LEFT JOIN {_RUNNING} prev ON prev.id = (CASE WHEN v.column2 IS NULL "
            f"THEN ({league}) ELSE ({at_venue}) END) WHERE true ON CONFLICT DO NOTHING",
            [
                _day(day),
                *[
                    v
                    for pk, c in worth.items()
                    for venue in (None, venue_id)
                    for kind in (mode, ALL)
                    for v in (pk, venue, kind, *(getattr(c, f) for f in COUNT_FIELDS))
                ],
                _day(day),
                _day(day),
            ],
        )


def _rebuild_sql(player_ids: Sequence[int] | None) -> tuple[str, list]:
    where, params = "", []
    if player_ids is not None:
        where = f"WHERE d.player_id IN ({', '.join(['%s'] * len(player_ids))})"
        params = list(player_ids)
    running = ", ".join(f"SUM(SUM(d.{field})) OVER w" for field in COUNT_FIELDS)

    def per(venue: str, mode: str, by: str) -> str:
        return (
            f"SELECT d.player_id, {venue}, {mode}, d.day, {running} FROM {_TALLY} d "  # noqa: S608 (names from the models, values as parameters)
            f"JOIN {_TABLE} t ON t.id = d.table_id {where} "
            f"GROUP BY {by}, d.day HAVING SUM(d.played) > 0 "
            f"WINDOW w AS (PARTITION BY {by} ORDER BY d.day)"
        )

    # Each mode's rows, then all modes' (PostgreSQL refuses a constant to group by); the
    # league's, then each venue's.
    selects = [
        per("CAST(NULL AS BIGINT)", "t.mode", "d.player_id, t.mode"),
        per("CAST(NULL AS BIGINT)", f"'{ALL}'", "d.player_id"),
        per("d.venue_id", "t.mode", "d.player_id, d.venue_id, t.mode"),
        per("d.venue_id", f"'{ALL}'", "d.player_id, d.venue_id"),
    ]
    return " UNION ALL ".join(selects), params * len(selects)


def _insert(player_ids: Sequence[int] | None) -> int:
    select, params = _rebuild_sql(player_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_RUNNING} (player_id, venue_id, mode, day, "
            f"{', '.join(COUNT_FIELDS)}) {select}",
            params,
        )
        return cursor.rowcount


def running_refresh(*, player_ids: Sequence[int]) -> None:
    """Count these players' running totals afresh from their tallies (after a merge)."""
    RunningTotal.objects.filter(player_id__in=player_ids).delete()
    _insert(player_ids)


@transaction.atomic
def running_rebuild() -> int:
    """Count every running total afresh from the daily tallies; returns the number of rows."""
    # Under the league-wide lock, and moving the stamp: standings cached from the rows this
    # replaces (damaged, as check_integrity found them) must not be served again, and no
    # date range may read the table emptied before it is filled.
    standings_changed()
    RunningTotal.objects.all().delete()
    return _insert(None)


# A running total's key: player, venue (None: the league's) and mode.
Key = tuple[int, int | None, str]


def _tallied() -> dict[Key, dict[datetime.date, tuple]]:
    """Each player's daily tallies added up per mode and day, and over all modes per day:
    the league's, and each venue's (from the table's venue, not the tally's copy of it)."""
    sums = {field: Sum(field) for field in COUNT_FIELDS}
    tallied: dict[Key, dict[datetime.date, tuple]] = defaultdict(dict)
    per_mode = DailyTally.objects.values_list(
        "player_id", "table__venue_id", "table__mode", "day"
    ).annotate(**sums)
    for player, venue, mode, day, *counts in per_mode.order_by():
        for key in ((player, None, mode), (player, venue, mode)):
            _add(tallied[key], day, counts)
    every = DailyTally.objects.values_list("player_id", "table__venue_id", "day").annotate(**sums)
    for player, venue, day, *counts in every.order_by():
        for key in ((player, None, ALL), (player, venue, ALL)):
            _add(tallied[key], day, counts)
    return tallied


def _add(days: dict[datetime.date, tuple], day: datetime.date, counts: Sequence[int]) -> None:
    before = days.get(day, (0,) * len(COUNT_FIELDS))
    days[day] = tuple(a + b for a, b in zip(before, counts, strict=True))


def running_problems() -> list[str]:
    """Days on which a player's running total (the latest row on or before the day), the
    league's or a venue's, differs from their daily tallies added up to that day: checked
    on every day with a row or with a tally, which are the only days either can change."""
    tallied = _tallied()
    kept: dict[Key, dict[datetime.date, tuple]] = defaultdict(dict)
    rows = RunningTotal.objects.values_list("player_id", "venue_id", "mode", "day", *COUNT_FIELDS)
    for player, venue, mode, day, *counts in rows.iterator(chunk_size=5000):
        kept[(player, venue, mode)][day] = tuple(counts)
    zero = (0,) * len(COUNT_FIELDS)
    problems = []
    for player, venue, mode in sorted(
        set(tallied) | set(kept), key=lambda k: (k[0], k[1] or 0, k[2])
    ):
        days, steps = tallied.get((player, venue, mode), {}), kept.get((player, venue, mode), {})
        at = f" at venue #{venue}" if venue is not None else ""
        should = says = zero
        for day in sorted(days.keys() | steps.keys()):
            if day in days:
                should = tuple(a + b for a, b in zip(should, days[day], strict=True))
            says = steps.get(day, says)
            if says != should:
                problems.append(
                    f"Player #{player} at {mode} tables{at} up to {day}: running totals say "
                    f"{says}, daily tallies say {should}"
                )
    return problems
