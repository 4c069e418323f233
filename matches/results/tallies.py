"""The standings' own counts of filed results: each player's daily tally per table (what
date ranges and seasons are summed from) and all-time total per table (what standings
without dates read). What each place is worth is scoring's to say."""

import datetime
from collections.abc import Iterable, Sequence
from typing import Any, cast

from django.db import connection
from django.db.models import Field, Sum

from matches.models import AllTimeTotal, Counts, DailyTally, Match, Seat, Table
from matches.rules.scoring import COUNT_FIELDS, count_sum, finished_place, place_counts


def _columns(model: type[Counts]) -> tuple[str, list[str], list[str]]:
    """The model's table, its key columns (player, table, and day for a tally: its unique
    constraint) and its count columns, as the database spells them."""
    quote = connection.ops.quote_name

    def column(name: str) -> str:
        # Every name here is a concrete field of the model, so it has a column.
        return quote(cast("str", cast("Field", model._meta.get_field(name)).column))

    keys = ["player", "table", *(["day"] if model is DailyTally else [])]
    return (
        quote(model._meta.db_table),
        [column(name) for name in keys],
        [column(name) for name in COUNT_FIELDS],
    )


def tallies_file(*, table: Table, day: datetime.date, seats: Sequence[Seat], sign: int) -> None:
    """Add a filed match's places to the day's tally and the all-time total (sign 1), or
    take them back (sign -1): one statement each.

    Plain SQL (standard, as SQLite 3.35+ and PostgreSQL read it), as running_totals is:
    the ORM took longer to build these two statements than the database to run them.
    Filing inserts each player's row with the match's counts, or adds them to the row
    already there (ON CONFLICT on the model's unique key); taking back subtracts them from
    the rows, which filing made."""
    worth = {seat.player_id: place_counts(table.mode, finished_place(seat.place)) for seat in seats}
    day_value = connection.ops.adapt_datefield_value(day)
    counters: tuple[tuple[type[Counts], list], ...] = (
        (DailyTally, [table.pk, day_value]),
        (AllTimeTotal, [table.pk]),
    )
    with connection.cursor() as cursor:
        for model, where in counters:
            name, keys, counts = _columns(model)
            if sign > 0:
                row = "(" + ", ".join(["%s"] * (1 + len(where) + len(counts))) + ")"
                added = ", ".join(f"{c} = {name}.{c} + EXCLUDED.{c}" for c in counts)
                cursor.execute(
                    f"INSERT INTO {name} ({', '.join(keys + counts)}) "  # noqa: S608 (names from the model, values as parameters)
                    f"VALUES {', '.join([row] * len(worth))} "
                    f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {added}",
                    [
                        v
                        for player_id, c in worth.items()
                        for v in (player_id, *where, *(getattr(c, f) for f in COUNT_FIELDS))
                    ],
                )
                continue
            sets, params = [], []
            for column, field in zip(counts, COUNT_FIELDS, strict=True):
                if not any(getattr(c, field) for c in worth.values()):
                    continue
                whens = " ".join(["WHEN %s THEN %s"] * len(worth))
                sets.append(f"{column} = {column} + CASE {keys[0]} {whens} ELSE 0 END")
                params += [v for pk, c in worth.items() for v in (pk, sign * getattr(c, field))]
            marks = ", ".join(["%s"] * len(worth))
            matching = " AND ".join(f"{key} = %s" for key in keys[1:])
            cursor.execute(
                f"UPDATE {name} SET {', '.join(sets)} "  # noqa: S608 (names from the model, values as parameters)
                f"WHERE {matching} AND {keys[0]} IN ({marks})",
                [*params, *where, *worth],
            )


def _kept(model) -> dict[tuple[int, int], tuple[int, ...]]:
    """What a counts model holds per player and table, summed over its rows."""
    return {
        (r["player_id"], r["table_id"]): tuple(r[f"{f}_sum"] for f in COUNT_FIELDS)
        for r in model.objects.values("player_id", "table_id")
        .annotate(**{f"{field}_sum": Sum(field) for field in COUNT_FIELDS})
        .filter(played_sum__gt=0)
    }


def tally_problems() -> list[str]:
    """Players whose daily tallies, or the all-time totals that standings without dates
    read, differ from their filed results."""
    rows = (
        Seat.objects.filter(match__status=Match.Status.FILED)
        .values("player_id", "match__table_id")
        .annotate(**{field: count_sum(field) for field in COUNT_FIELDS})
    )
    # The sums are named at run time (annotate(**...)): the stubs' row type lacks them.
    actual = {
        (r["player_id"], r["match__table_id"]): tuple(r[f] for f in COUNT_FIELDS)
        for r in cast("Iterable[dict[str, Any]]", rows)
    }
    problems = []
    for model, kind in ((DailyTally, "tallies"), (AllTimeTotal, "all-time totals")):
        kept = _kept(model)
        problems += [
            f"Player #{player} at table #{table}: {kind} say {kept.get((player, table))}, "
            f"filed results say {actual.get((player, table))}"
            for player, table in sorted(set(actual) | set(kept))
            if actual.get((player, table)) != kept.get((player, table))
        ]
    return problems
