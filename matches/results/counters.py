"""Counters the services keep per key (a pair of players, a player's night): one upsert adds
a filed match's counts, one UPDATE per row takes them back. Shared by head_to_head.py and
player_nights.py, whose rows differ only in their key and count columns."""

from collections.abc import Sequence

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
