"""The standings' own counts of filed results: each player's daily tally per table (what
date ranges and seasons are summed from) and all-time total per table (what standings
without dates read). What each place is worth is scoring's to say."""

import datetime
from collections.abc import Iterable, Sequence
from typing import Any, cast

from django.db import connection, transaction
from django.db.models import F, Field, Sum

from matches.core.rows import rows_insert
from matches.core.stamp import standings_changed
from matches.models import AllTimeTotal, Counts, DailyTally, Match, Seat, Table
from matches.rules.limits import MAX_PLAYERS
from matches.rules.nights import night_of, night_of_field
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
    quote = connection.ops.quote_name
    counters: tuple[tuple[type[Counts], list], ...] = (
        (DailyTally, [table.pk, day_value]),
        (AllTimeTotal, [table.pk]),
    )
    with connection.cursor() as cursor:
        for model, where in counters:
            name, keys, counts = _columns(model)
            if sign > 0:
                # The table's venue copied into each new row (models.Counts.venue).
                row = "(" + ", ".join(["%s"] * (2 + len(where) + len(counts))) + ")"
                added = ", ".join(f"{c} = {name}.{c} + EXCLUDED.{c}" for c in counts)
                columns = [*keys, quote("venue_id"), *counts]
                cursor.execute(
                    f"INSERT INTO {name} ({', '.join(columns)}) "  # noqa: S608 (names from the model, values as parameters)
                    f"VALUES {', '.join([row] * len(worth))} "
                    f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {added}",
                    [
                        v
                        for player_id, c in worth.items()
                        for v in (
                            player_id,
                            *where,
                            table.venue_id,
                            *(getattr(c, f) for f in COUNT_FIELDS),
                        )
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


def _filed_by_night() -> dict[tuple[int, int, datetime.date], list[int]]:
    """Each player's filed results per table and night (the night a match was filed,
    night_of, as filing counts it), added up from the seats."""
    # Two plain reads added up here: the night of each match, then every filed seat. Grouped
    # by night in SQL, SQLite would call back into Python for each seat's time zone instead.
    filed = Match.objects.filter(status=Match.Status.FILED)
    day_of = {
        pk: night_of(filed_at)
        for pk, filed_at in filed.values_list("pk", "filed_at").iterator(chunk_size=5000)
    }
    worth = {
        (mode, place): [getattr(place_counts(mode, place), f) for f in COUNT_FIELDS]
        for mode in Table.Mode.values
        for place in range(1, MAX_PLAYERS + 1)
    }
    daily: dict[tuple[int, int, datetime.date], list[int]] = {}
    seats = Seat.objects.filter(match__status=Match.Status.FILED).values_list(
        "player_id", "match__table_id", "match_id", "place", "match__table__mode"
    )
    for player, table, match, place, mode in seats.iterator(chunk_size=5000):
        row = daily.setdefault((player, table, day_of[match]), [0] * len(COUNT_FIELDS))
        for index, count in enumerate(worth[(mode, finished_place(place))]):
            row[index] += count
    return daily


@transaction.atomic
def tallies_rebuild() -> tuple[int, int]:
    """Count every daily tally and all-time total afresh from the filed matches' seats (what
    every other aggregate but the pairs and ratings is counted from); returns how many of
    each were written."""
    # Under the league-wide lock and moving the stamp, as running_rebuild does: no filing
    # lands between the delete and the insert, and no standings cached from the damaged
    # counts are served again.
    standings_changed()
    daily = _filed_by_night()
    DailyTally.objects.all().delete()
    AllTimeTotal.objects.all().delete()
    return len(daily), _tallies_write(daily)


def tallies_refresh(*, player_ids: Sequence[int]) -> None:
    """Count these players' daily tallies and all-time totals afresh from their filed seats
    (after an undone merge gave seats back from one record to another)."""
    player_ids = list(player_ids)
    seats = Seat.objects.filter(
        player_id__in=player_ids, match__status=Match.Status.FILED
    ).values_list("player_id", "match__table_id", "match__filed_at", "place", "match__table__mode")
    daily: dict[tuple[int, int, datetime.date], list[int]] = {}
    for player, table, filed_at, place, mode in seats.iterator(chunk_size=5000):
        worth = place_counts(mode, finished_place(place))
        row = daily.setdefault((player, table, night_of(filed_at)), [0] * len(COUNT_FIELDS))
        for index, field in enumerate(COUNT_FIELDS):
            row[index] += getattr(worth, field)
    DailyTally.objects.filter(player_id__in=player_ids).delete()
    AllTimeTotal.objects.filter(player_id__in=player_ids).delete()
    _tallies_write(daily)


def _tallies_write(daily: dict[tuple[int, int, datetime.date], list[int]]) -> int:
    """Insert these daily tallies and the all-time totals they add up to (their rows are
    gone first); returns how many totals."""
    totals: dict[tuple[int, int], list[int]] = {}
    for (player, table, _day), counts in daily.items():
        total = totals.setdefault((player, table), [0] * len(COUNT_FIELDS))
        for index, count in enumerate(counts):
            total[index] += count
    day = connection.ops.adapt_datefield_value
    venue = dict(Table.objects.filter(pk__in={t for _p, t in totals}).values_list("pk", "venue_id"))
    rows_insert(
        DailyTally,
        [
            {"player_id": p, "table_id": t, "venue_id": venue[t], "day": day(d), **_named(counts)}
            for (p, t, d), counts in daily.items()
        ],
    )
    rows_insert(
        AllTimeTotal,
        [
            {"player_id": p, "table_id": t, "venue_id": venue[t], **_named(counts)}
            for (p, t), counts in totals.items()
        ],
    )
    return len(totals)


def _named(counts: Sequence[int]) -> dict[str, int]:
    return dict(zip(COUNT_FIELDS, counts, strict=True))


def _kept(model, *keys: str) -> dict[tuple, tuple[int, ...]]:
    """What a counts model holds per player and table (and keys), summed over its rows."""
    return {
        (r["player_id"], r["table_id"], *(r[k] for k in keys)): tuple(
            r[f"{f}_sum"] for f in COUNT_FIELDS
        )
        for r in model.objects.values("player_id", "table_id", *keys)
        .annotate(**{f"{field}_sum": Sum(field) for field in COUNT_FIELDS})
        .filter(played_sum__gt=0)
    }


def _filed(*keys: str) -> dict[tuple, tuple[int, ...]]:
    """The filed results per player and table (and keys), counted from the seats."""
    seats = Seat.objects.filter(match__status=Match.Status.FILED)
    if "night" in keys:
        seats = seats.annotate(night=night_of_field("match__filed_at"))
    rows = (
        seats.values("player_id", "match__table_id", *keys)
        .annotate(**{field: count_sum(field) for field in COUNT_FIELDS})
        .order_by()
    )
    # The sums are named at run time (annotate(**...)): the stubs' row type lacks them.
    return {
        (r["player_id"], r["match__table_id"], *(r[k] for k in keys)): tuple(
            r[f] for f in COUNT_FIELDS
        )
        for r in cast("Iterable[dict[str, Any]]", rows)
    }


def _misplaced(model: type[Counts], kind: str) -> list[str]:
    """Rows whose copy of the venue is not their table's: a venue's standings would count
    them at the wrong pub."""
    rows = model._default_manager.exclude(venue_id=F("table__venue_id")).values_list(
        "player_id", "table_id", "venue_id", "table__venue_id"
    )
    return [
        f"Player #{player} at table #{table}: {kind} say venue #{says}, the table is at #{is_at}"
        for player, table, says, is_at in rows.order_by("player_id", "table_id")
    ]


def tally_problems() -> list[str]:
    """Players whose daily tallies (each night's, night_of) or the all-time totals that
    standings without dates read differ from their filed results, or name another venue
    than their table's."""
    problems = [*_misplaced(AllTimeTotal, "all-time totals"), *_misplaced(DailyTally, "tallies")]
    checks = (
        ("all-time totals", _kept(AllTimeTotal), _filed()),
        ("tallies", _kept(DailyTally, "day"), _filed("night")),
    )
    for kind, kept, actual in checks:
        for key in sorted(set(actual) | set(kept)):
            if actual.get(key) != kept.get(key):
                player, table, *night = key
                on = f" on the night of {night[0]}" if night else ""
                problems.append(
                    f"Player #{player} at table #{table}{on}: {kind} say {kept.get(key)}, "
                    f"filed results say {actual.get(key)}"
                )
    return problems
