"""Bulk inserts without a model instance per row: for seeding and rebuilding hundreds of
thousands of rows, where building and preparing instances costs ten times what the database
does. No save(), no signals, no auto_now: the caller gives every value that matters."""

from collections.abc import Sequence
from typing import Any, cast

from django.db import connection
from django.db.models import Field, Model


def rows_insert(model: type[Model], rows: list[dict[str, Any]]) -> None:
    """Insert rows (values by attname, as the database takes them; every other column its
    default): one executemany, or COPY on PostgreSQL."""
    if not rows:
        return
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    given = rows[0].keys()
    defaults = {
        f.attname: f.get_db_prep_save(f.get_default(), connection)
        for f in fields
        if f.attname not in given
    }
    names = [f.attname for f in fields]
    # A concrete field always has a column (the stubs allow None for any field).
    columns = ", ".join(connection.ops.quote_name(cast(str, f.column)) for f in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    values = ([row.get(name, defaults.get(name)) for name in names] for row in rows)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for value in values:
                    copy.write_row(value)
            return
        marks = ", ".join(["%s"] * len(names))
        cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(values))  # noqa: S608 (names from the model, values as parameters)


def _quoted(model: type[Model], names: Sequence[str]) -> tuple[str, list[str]]:
    """The model's table and these fields' columns, quoted for SQL."""
    qn = connection.ops.quote_name
    # A concrete field always has a column (the stubs allow None for any field).
    columns = [qn(cast(str, cast(Field, model._meta.get_field(name)).column)) for name in names]
    return qn(model._meta.db_table), columns


def rows_upsert(
    model: type[Model],
    names: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    keys: Sequence[str],
) -> None:
    """Insert rows of values for the fields names (numbers, booleans, dates or None: see
    unnest_rows), or where a row with the same keys exists, set its other fields. One
    statement on PostgreSQL; one executemany on SQLite, whose statements cost no binding
    in Python. No model instances: bulk_create's cost a crowning about a millisecond."""
    if not rows:
        return
    table, columns = _quoted(model, names)
    key_columns = set(_quoted(model, keys)[1])
    updated = ", ".join(f"{c} = EXCLUDED.{c}" for c in columns if c not in key_columns)
    into = f"INSERT INTO {table} ({', '.join(columns)})"
    conflict = (
        f"ON CONFLICT ({', '.join(c for c in columns if c in key_columns)}) DO UPDATE SET {updated}"
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            source, arrays = unnest_rows(model, names, rows)
            cursor.execute(f"{into} {source} {conflict}", arrays)
        else:
            marks = ", ".join(["%s"] * len(columns))
            cursor.executemany(f"{into} VALUES ({marks}) {conflict}", cast(Any, rows))


def rows_update(
    model: type[Model],
    names: Sequence[str],
    rows: Sequence[Sequence[object]],
    *,
    keys: Sequence[str],
) -> int:
    """Set the fields names (keys among them, first) of the stored rows with each row's
    keys, in one statement on PostgreSQL, one executemany on SQLite; how many rows were
    updated (a row with no stored match is left out). Unlike rows_upsert, only the fields
    named are set: SQLite moves an index entry for every indexed column an UPDATE sets,
    changed or not, so leaving such a column out halves the write of a replay step."""
    if not rows:
        return 0
    table, columns = _quoted(model, names)
    key_count = len(keys)
    if list(names[:key_count]) != list(keys):
        raise ValueError("rows_update takes the keys first")
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            source, arrays = unnest_rows(model, names, rows)
            sets = ", ".join(f"{c} = source.{c}" for c in columns[key_count:])
            match = " AND ".join(f"{table}.{c} = source.{c}" for c in columns[:key_count])
            cursor.execute(
                f"UPDATE {table} SET {sets} FROM ({source}) AS source ({', '.join(columns)}) "  # noqa: S608 (names from the model, values as parameters)
                f"WHERE {match}",
                arrays,
            )
        else:
            sets = ", ".join(f"{c} = %s" for c in columns[key_count:])
            match = " AND ".join(f"{c} = %s" for c in columns[:key_count])
            cursor.executemany(
                f"UPDATE {table} SET {sets} WHERE {match}",  # noqa: S608 (as above)
                cast(Any, [(*row[key_count:], *row[:key_count]) for row in rows]),
            )
        return cursor.rowcount


def unnest_rows(
    model: type[Model], names: Sequence[str], rows: Sequence[Sequence[object]]
) -> tuple[str, list[str]]:
    """PostgreSQL: rows as "SELECT * FROM unnest(%s::type[], ...)" and its parameters, one
    array per column, for an INSERT to take. One statement whatever the rows: as many
    rows in VALUES or executemany cost Django's client-side binding a quoted parameter
    each, most of such a write's time. Each array goes as one text literal."""
    fields = [cast(Field, model._meta.get_field(name)) for name in names]
    arrays = ", ".join(f"%s::{field.db_type(connection)}[]" for field in fields)
    source = f"SELECT * FROM unnest({arrays})"  # noqa: S608 (types from the model, values as parameters)
    return source, [_array_literal(column) for column in zip(*rows, strict=True)]


def _array_literal(values: Sequence[object]) -> str:
    # Numbers, booleans, dates and None, whose text needs no quoting in an array (a column
    # holds one type: its first value tells). str() of a float is the shortest text that
    # reads back as the same float, so nothing is rounded on the way.
    if isinstance(next((value for value in values if value is not None), None), (str, bytes)):
        raise TypeError("unnest_rows takes no text columns: their values would need quoting")
    if None in values:
        return "{" + ",".join("NULL" if value is None else str(value) for value in values) + "}"
    return "{" + ",".join(map(str, values)) + "}"  # most columns: no None, no test per value


def statistics_refresh() -> None:
    """Have the database look at its tables again (ANALYZE, on both databases) after a bulk
    load. PostgreSQL's autovacuum does it only a while later, and until then plans queries
    for empty tables, and a big freshly seeded league's first replay and merge then read
    whole tables."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
