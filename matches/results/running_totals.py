"""Running totals: each player's filed results at tables of one mode, and at tables of all
modes, over every day up to one (RunningTotal), kept by the services beside the daily
tallies. Standings over a date range [a, b] are then, per player, the latest row of the
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
from matches.models import DailyTally, Player, RunningTotal, Seat, Table
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


def _latest(player: str, mode: str, op: str | None, columns: str = "r.id") -> str:
    """The latest row of one player and mode on or before a day (op "<="), before it ("<")
    or at all (None): a step back along the unique (player, mode, day) index, whatever the
    number of days."""
    day = f" AND r.day {op} %s" if op else ""
    return (
        f"SELECT {columns} FROM {_RUNNING} r WHERE r.player_id = {player} AND r.mode = {mode}"  # noqa: S608 (names from the model, values as parameters)
        f"{day} ORDER BY r.day DESC LIMIT 1"
    )


def _join(alias: str, op: str | None, *, outer: bool) -> str:
    """Join each player and mode to their latest row (see _latest) as alias. PostgreSQL
    reads it as a LATERAL subquery, one index step per player and mode; handed the row's
    id to join on instead, its planner hashes the whole table. SQLite has no LATERAL and
    seeks the id's row by its primary key."""
    kind = "LEFT JOIN" if outer else "JOIN"
    if connection.vendor == "postgresql":
        counts = ", ".join(f"r.{field}" for field in COUNT_FIELDS)
        return f"{kind} LATERAL ({_latest('p.id', 'm.mode', op, counts)}) {alias} ON true"
    return f"{kind} {_RUNNING} {alias} ON {alias}.id = ({_latest('p.id', 'm.mode', op)})"


def _day(day: datetime.date) -> str | datetime.date | None:
    """A day as the database driver takes it (a date for psycopg, text for SQLite)."""
    return connection.ops.adapt_datefield_value(day)


def range_rows(
    *,
    date_from: datetime.date | None,
    date_to: datetime.date | None,
    mode: str | None = None,
) -> list[dict]:
    """Each player's filed results from date_from to date_to (either open), at tables of one
    mode or of any, as standings rows (player_id, player__name, player__key, the public
    name's columns and the *_sum counts) with something played; one query."""
    if date_from is not None and date_to is not None and date_from > date_to:
        return []
    params: list = [mode or ALL]
    joins = _join("hi", None if date_to is None else "<=", outer=False)
    if date_to is not None:
        params.append(_day(date_to))
    less = dict.fromkeys(COUNT_FIELDS, "")
    if date_from is not None:
        joins += " " + _join("lo", "<", outer=True)
        params.append(_day(date_from))
        less = {field: f" - COALESCE(lo.{field}, 0)" for field in COUNT_FIELDS}
    counts = ", ".join(f"hi.{field}{less[field]}" for field in COUNT_FIELDS)
    # Each player once: a few hundred rows, each answered by its two index seeks.
    sql = (
        f"SELECT p.id, p.name, p.key, p.public_name, p.hidden, p.erased_at IS NOT NULL, "  # noqa: S608 (names from the models, values as parameters)
        f"{counts} FROM {_PLAYER} p "
        f"CROSS JOIN (SELECT %s AS mode) m {joins} "
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


def running_file(*, day: datetime.date, mode: str, seats: Sequence[Seat], sign: int) -> None:
    """Count a filed match in its players' running totals (of its mode and of all modes)
    from its day on (sign 1), or take it back (sign -1). Filing adds to the rows from that
    day on (normally none but that day's own), then gives a player without a row that day
    one: their latest row before it, or nothing, plus the match. Two statements to file,
    one to take back."""
    worth = {seat.player_id: place_counts(mode, finished_place(seat.place)) for seat in seats}
    fields = [field for field in COUNT_FIELDS if any(getattr(c, field) for c in worth.values())]
    ids = list(worth)
    marks = ", ".join(["%s"] * len(ids))
    with connection.cursor() as cursor:
        sets, params = [], []
        for field in fields:
            whens = " ".join(["WHEN %s THEN %s"] * len(ids))
            sets.append(f"{field} = {field} + CASE player_id {whens} ELSE 0 END")
            params += [v for pk, c in worth.items() for v in (pk, sign * getattr(c, field))]
        cursor.execute(
            f"UPDATE {_RUNNING} SET {', '.join(sets)} "  # noqa: S608 (names from the model, values as parameters)
            f"WHERE mode IN (%s, %s) AND day >= %s AND player_id IN ({marks})",
            [*params, mode, ALL, _day(day), *ids],
        )
        if sign < 0:
            return
        row = "(" + ", ".join(["%s"] * (2 + len(COUNT_FIELDS))) + ")"
        values = ", ".join([row] * 2 * len(ids))
        added = ", ".join(
            f"COALESCE(prev.{field}, 0) + v.column{index}"
            for index, field in enumerate(COUNT_FIELDS, start=3)
        )
        previous = _latest("v.column1", "v.column2", "<")
        # "WHERE true": SQLite reads an ON after a join as the join's unless a WHERE comes
        # between it and ON CONFLICT.
        cursor.execute(
            f"INSERT INTO {_RUNNING} (player_id, mode, day, {', '.join(COUNT_FIELDS)}) "  # noqa: S608 (names from the model, values as parameters)
            f"SELECT v.column1, v.column2, %s, {added} FROM (VALUES {values}) v "
            f"LEFT JOIN {_RUNNING} prev ON prev.id = ({previous}) WHERE true "
            "ON CONFLICT (player_id, mode, day) DO NOTHING",
            [
                _day(day),
                *[
                    v
                    for pk, c in worth.items()
                    for kind in (mode, ALL)
                    for v in (pk, kind, *(getattr(c, f) for f in COUNT_FIELDS))
                ],
                _day(day),
            ],
        )


def _rebuild_sql(player_ids: Sequence[int] | None) -> tuple[str, list]:
    where, params = "", []
    if player_ids is not None:
        where = f"WHERE d.player_id IN ({', '.join(['%s'] * len(player_ids))})"
        params = list(player_ids)
    running = ", ".join(f"SUM(SUM(d.{field})) OVER w" for field in COUNT_FIELDS)

    def per(mode: str, by: str) -> str:
        return (
            f"SELECT d.player_id, {mode}, d.day, {running} FROM {_TALLY} d "  # noqa: S608 (names from the models, values as parameters)
            f"JOIN {_TABLE} t ON t.id = d.table_id {where} "
            f"GROUP BY {by}, d.day HAVING SUM(d.played) > 0 "
            f"WINDOW w AS (PARTITION BY {by} ORDER BY d.day)"
        )

    # Each mode's rows, then all modes' (PostgreSQL refuses a constant to group by).
    every = per(f"'{ALL}'", "d.player_id")
    return f"{per('t.mode', 'd.player_id, t.mode')} UNION ALL {every}", params * 2


def _insert(player_ids: Sequence[int] | None) -> int:
    select, params = _rebuild_sql(player_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_RUNNING} (player_id, mode, day, {', '.join(COUNT_FIELDS)}) {select}",
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


def _tallied() -> dict[tuple[int, str], dict[datetime.date, tuple]]:
    """Each player's daily tallies added up per mode and day, and over all modes per day."""
    sums = {field: Sum(field) for field in COUNT_FIELDS}
    tallied: dict[tuple[int, str], dict[datetime.date, tuple]] = defaultdict(dict)
    per_mode = DailyTally.objects.values_list("player_id", "table__mode", "day").annotate(**sums)
    for player, mode, day, *counts in per_mode.order_by():
        tallied[(player, mode)][day] = tuple(counts)
    every = DailyTally.objects.values_list("player_id", "day").annotate(**sums)
    for player, day, *counts in every.order_by():
        tallied[(player, ALL)][day] = tuple(counts)
    return tallied


def running_problems() -> list[str]:
    """Days on which a player's running total (the latest row on or before the day) differs
    from their daily tallies added up to that day: checked on every day with a row or with
    a tally, which are the only days either can change."""
    tallied = _tallied()
    kept: dict[tuple[int, str], dict[datetime.date, tuple]] = defaultdict(dict)
    rows = RunningTotal.objects.values_list("player_id", "mode", "day", *COUNT_FIELDS)
    for player, mode, day, *counts in rows.iterator(chunk_size=5000):
        kept[(player, mode)][day] = tuple(counts)
    zero = (0,) * len(COUNT_FIELDS)
    problems = []
    for player, mode in sorted(set(tallied) | set(kept)):
        days, steps = tallied.get((player, mode), {}), kept.get((player, mode), {})
        should = says = zero
        for day in sorted(days.keys() | steps.keys()):
            if day in days:
                should = tuple(a + b for a, b in zip(should, days[day], strict=True))
            says = steps.get(day, says)
            if says != should:
                problems.append(
                    f"Player #{player} at {mode} tables up to {day}: running totals say "
                    f"{says}, daily tallies say {should}"
                )
    return problems
