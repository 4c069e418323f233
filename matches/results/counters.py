"""Counters the services keep per key (a pair of players, a player's night, a player's day at
a table): one upsert adds a filed match's counts, one UPDATE per row takes them back, and a
merge adds one player's counters to another's. Shared by the aggregates whose rows differ
only in their key and count columns."""

from collections.abc import Sequence
from typing import cast

from django.db import connection, models

from matches.core.rows import unnest_rows


def count_rows(
    model: type[models.Model],
    *,
    keys: tuple[str, str],
    counts: tuple[str, ...],
    rows: Sequence[tuple],
    sign: int,
) -> None:
    """Add rows of (key..., count...) to the model's counters (sign 1), or subtract them
    (sign -1) and drop the counters left at zero in their first count."""
    if not rows:
        return
    qn = connection.ops.quote_name
    table = qn(model._meta.db_table)
    width = len(keys)
    with connection.cursor() as cursor:
        if sign > 0:
            columns = ", ".join(qn(column) for column in (*keys, *counts))
            sums = ", ".join(f"{qn(c)} = {table}.{qn(c)} + excluded.{qn(c)}" for c in counts)
            if connection.vendor == "postgresql":
                # A crowning of ten players is 90 pairs, 450 parameters as VALUES.
                source, params = unnest_rows(model, (*keys, *counts), rows)
            else:
                source = "VALUES " + ", ".join(
                    ["(" + ", ".join(["%s"] * len(rows[0])) + ")"] * len(rows)
                )
                params = [value for row in rows for value in row]
            cursor.execute(
                f"INSERT INTO {table} ({columns}) {source} "
                f"ON CONFLICT ({', '.join(qn(k) for k in keys)}) DO UPDATE SET {sums}",
                params,
            )
            return
        # An upsert's insert half would be checked as a negative row: subtract in place.
        less = ", ".join(f"{qn(c)} = {qn(c)} - %s" for c in counts)
        where = " AND ".join(f"{qn(k)} = %s" for k in keys)
        cursor.executemany(
            f"UPDATE {table} SET {less} WHERE {where}",  # noqa: S608 (names from the model, values as parameters)
            [(*row[width:], *row[:width]) for row in rows],
        )
    first_key = keys[0].removesuffix("_id")
    model._default_manager.filter(
        **{f"{first_key}__in": sorted({row[0] for row in rows})}, **{counts[0]: 0}
    ).delete()


def counts_merge(
    model: type[models.Model],
    *,
    owner: str,
    keep_id: int,
    drop_id: int,
    keys: tuple[str, ...],
    counts: Sequence[str],
) -> None:
    """Add drop's counters to keep's, owner being the field that names the player: a row
    with the same other keys (table, day, opponent) adds up, the rest move. Exact only for
    two players who never shared a match, as a merge requires.

    Three statements in plain SQL (UPDATE ... FROM: SQLite 3.33+, PostgreSQL): bulk_update's
    CASE per row costs Python time in proportion to a career, and counting a merged pair's
    head-to-head afresh reads every match the two played."""
    qn = connection.ops.quote_name
    table = qn(model._meta.db_table)

    def column(name: str) -> str:
        # A concrete field always has a column (the stubs allow None for any field).
        return qn(cast("str", cast("models.Field", model._meta.get_field(name)).column))

    player = column(owner)
    added = ", ".join(f"{column(c)} = {table}.{column(c)} + d.{column(c)}" for c in counts)
    same = " AND ".join(f"{table}.{column(key)} = d.{column(key)}" for key in keys)
    same_as_keep = " AND ".join(f"k.{column(key)} = {table}.{column(key)}" for key in keys)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {added} FROM {table} d "  # noqa: S608 (names from the model, values as parameters)
            f"WHERE {table}.{player} = %s AND d.{player} = %s AND {same}",
            [keep_id, drop_id],
        )
        cursor.execute(
            f"DELETE FROM {table} WHERE {player} = %s AND EXISTS ("  # noqa: S608 (as above)
            f"SELECT 1 FROM {table} k WHERE k.{player} = %s AND {same_as_keep})",
            [drop_id, keep_id],
        )
        cursor.execute(f"UPDATE {table} SET {player} = %s WHERE {player} = %s", [keep_id, drop_id])  # noqa: S608 (as above)
